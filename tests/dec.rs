//! `dec(S)` columns: exact decimals through import, put, range, get, export, the aggregates
//! and `--where`, and the values refused rather than rounded (tests/dec_bucket.rs runs the
//! same suite on the bucket layout).
//!
//! The day of trades is generated here and, byte for byte, by this Python (3, stdlib), which
//! computed the reference figures below with `decimal`:
//!
//! ```python
//! from decimal import Decimal, ROUND_HALF_UP
//! M = (1 << 64) - 1; state = 0x5eed_dec0
//! def nxt():
//!     global state
//!     state = (state + 0x9e3779b97f4a7c15) & M; z = state
//!     z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
//!     z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
//!     return z ^ (z >> 31)
//! cents, rows = 6183763, []
//! for i in range(21600):
//!     t = 1723075200 + i * 4 + nxt() % 4
//!     cents += nxt() % 201 - 100
//!     q = nxt() % 500_000_000 + 1
//!     side = "buy" if nxt() % 2 == 0 else "sell"
//!     rows.append((t, Decimal("%d.%02d000000" % (cents // 100, cents % 100)),
//!                  Decimal("%d.%08d" % (q // 10**8, q % 10**8)), side))
//! print(sum(r[2] for r in rows))                                   # SUM_QTY
//! print(sum(r[2] for r in rows if r[3] == "sell"))                 # SUM_SELL_QTY
//! print((sum(r[1] for r in rows) / len(rows)).quantize(Decimal("1e-8"), ROUND_HALF_UP))  # MEAN_PRICE
//! print(sum(1 for r in rows if r[1] > Decimal("61837.635")))       # ABOVE_61837_635
//! ```
//!
//! The same quantities summed as f64 give 54045.593054089935.

mod common;

use std::fs;
use std::path::Path;

use common::{assert_no_panic, run, xs, TestDb};

const SUM_QTY: &str = "54045.59305409";
const SUM_SELL_QTY: &str = "27106.09006240";
const MEAN_PRICE: &str = "61881.55643056";
const MIN_PRICE: &str = "61819.99000000";
const MAX_PRICE: &str = "61929.80000000";
const ABOVE_61837_635: usize = 20702;
const TRADES: usize = 21600;

struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// One trade of the generated day: epoch seconds, price and qty as written, side.
struct Trade {
    t_s: i64,
    price: String,
    qty: String,
    side: &'static str,
}

/// A day of BTCUSDT-like trades every ~4 s, prices and quantities with 8 decimals as Binance
/// writes them (`61837.63000000`, `0.02000000`).
fn day() -> Vec<Trade> {
    let mut r = SplitMix(0x5eed_dec0);
    let mut cents: i64 = 6_183_763;
    (0..TRADES as i64)
        .map(|i| {
            let t_s = 1_723_075_200 + i * 4 + (r.next() % 4) as i64;
            cents += (r.next() % 201) as i64 - 100;
            let q = r.next() % 500_000_000 + 1;
            let side = if r.next().is_multiple_of(2) { "buy" } else { "sell" };
            Trade {
                t_s,
                price: format!("{}.{:02}000000", cents / 100, cents % 100),
                qty: format!("{}.{:08}", q / 100_000_000, q % 100_000_000),
                side,
            }
        })
        .collect()
}

fn write_day(dir: &Path, trades: &[Trade]) -> std::path::PathBuf {
    let mut text = String::from("time,price,qty,side\n");
    for t in trades {
        text.push_str(&format!("{},{},{},{}\n", t.t_s, t.price, t.qty, t.side));
    }
    let path = dir.join("btcusdt-20240808.csv");
    fs::write(&path, text).expect("write the day");
    path
}

fn trades_db() -> (TestDb, Vec<Trade>) {
    let db = TestDb::create(
        "1s",
        "price:dec(8),qty:dec(8),side:str(4)",
        &["--time-column", "time"],
    );
    let trades = day();
    let csv = write_day(db.path.parent().expect("temp dir"), &trades);
    db.ok(&["import", csv.to_str().expect("utf-8 path")]);
    (db, trades)
}

const DAY: [&str; 2] = ["2024-08-08", "2024-08-09"];

fn agg(db: &TestDb, spec: &str, filter: &[&str]) -> String {
    let mut args = vec!["range", DAY[0], DAY[1], "--agg", spec, "--no-header"];
    for f in filter {
        args.extend(["--where", f]);
    }
    let out = db.ok(&args);
    let line = out.trim_end();
    // The bucket's time first, then the aggregates.
    line.split_once(',').map_or(line, |(_, v)| v).to_string()
}

#[test]
fn binance_prices_and_quantities_round_trip_as_text() {
    let (db, trades) = trades_db();
    let out = db.ok(&["range", DAY[0], DAY[1], "--time-format", "epoch-s"]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("time,price,qty,side"));
    let mut n = 0;
    for (line, t) in lines.zip(&trades) {
        assert_eq!(line, format!("{},{},{},{}", t.t_s, t.price, t.qty, t.side));
        n += 1;
    }
    assert_eq!(n, TRADES);
    assert_eq!(out.lines().count(), TRADES + 1);
    // NDJSON carries them as numbers with every decimal.
    let json = db.ok(&["range", DAY[0], DAY[1], "--format", "ndjson", "--limit", "1"]);
    assert!(
        json.contains(&format!(
            "\"price\":{},\"qty\":{}",
            trades[0].price, trades[0].qty
        )),
        "{json}"
    );
    // get, at the first trade's time.
    let at = format!("{}s", trades[0].t_s);
    let got = db.ok(&["get", &at]);
    assert!(
        got.ends_with(&format!(
            ",{},{},{}\n",
            trades[0].price, trades[0].qty, trades[0].side
        )),
        "{got}"
    );
    // export, then import into a fresh database: the same text again.
    let dir = db.path.parent().expect("temp dir");
    let exported = dir.join("export.csv");
    db.ok(&[
        "export",
        "-o",
        exported.to_str().expect("utf-8"),
        "--compress",
        "none",
    ]);
    let fresh = TestDb::create("1s", "price:dec(8),qty:dec(8),side:str(4)", &[]);
    fresh.ok(&["import", exported.to_str().expect("utf-8")]);
    assert_eq!(
        fresh.ok(&["range", DAY[0], DAY[1], "--time-format", "epoch-s"]),
        out
    );
}

#[test]
fn a_days_volume_sums_exactly() {
    let (db, _) = trades_db();
    assert_eq!(agg(&db, "sum(qty)", &[]), SUM_QTY);
    assert_eq!(agg(&db, "sum(qty)", &["side=sell"]), SUM_SELL_QTY);
    assert_eq!(
        agg(
            &db,
            "count,min(price),max(price),mean(price),first(qty),last(qty)",
            &[]
        ),
        format!(
            "{TRADES},{MIN_PRICE},{MAX_PRICE},{MEAN_PRICE},0.33749284,{}",
            day()[TRADES - 1].qty
        )
    );
    // Hourly volumes add up to the day's, exactly.
    let hourly = db.ok(&[
        "range",
        DAY[0],
        DAY[1],
        "--agg",
        "sum(qty)",
        "--every",
        "1h",
        "--no-header",
    ]);
    let total: i128 = hourly
        .lines()
        .map(|l| {
            l.rsplit(',')
                .next()
                .expect("a sum")
                .replace('.', "")
                .parse::<i128>()
                .expect("digits")
        })
        .sum();
    assert_eq!(hourly.lines().count(), 24);
    assert_eq!(total.to_string(), SUM_QTY.replace('.', ""));
    // vwap of two dec columns is their exact Σ p·q / Σ q, rounded once: each hour's printed
    // f64 lies within an ulp of the ratio of the scaled integers (checked in integers).
    let hourly_vwap = |db: &TestDb, how: &[&str]| {
        let mut args = vec![
            "range",
            DAY[0],
            DAY[1],
            "--every",
            "1h",
            "--agg",
            "vwap(price,qty)",
        ];
        args.extend_from_slice(how);
        db.ok(&args)
    };
    let hours = hourly_vwap(&db, &["--time-format", "epoch-s", "--no-header"]);
    assert_eq!(hours.lines().count(), 24);
    let scaled = |text: &str| text.replace('.', "").parse::<i128>().expect("digits");
    for line in hours.lines() {
        let (start, vwap) = line.split_once(',').expect("time,vwap");
        let start: i64 = start.parse().expect("epoch seconds");
        let (mut pq, mut q) = (0i128, 0i128);
        for t in day().iter().filter(|t| t.t_s >= start && t.t_s < start + 3600) {
            pq += scaled(&t.price) * scaled(&t.qty);
            q += scaled(&t.qty);
        }
        assert!(
            within_an_ulp(vwap.parse().expect("f64"), pq, q * 100_000_000),
            "{line}"
        );
    }
    // Not what f64 sums of the same values give: those round at every row.
    let floats = TestDb::create("1s", "price:f64,qty:f64,side:str(4)", &[]);
    let csv = write_day(floats.path.parent().expect("temp dir"), &day());
    floats.ok(&["import", csv.to_str().expect("utf-8 path")]);
    assert_ne!(hourly_vwap(&db, &[]), hourly_vwap(&floats, &[]));
    // The bars of --ohlcv too.
    let bars = db.ok(&["range", DAY[0], DAY[1], "--ohlcv", "price,qty", "--no-header"]);
    assert!(bars.contains(&format!(",{MAX_PRICE},{MIN_PRICE},")), "{bars}");
    assert!(bars.contains(&format!(",{SUM_QTY},{TRADES}")), "{bars}");
}

#[test]
fn an_inferred_database_makes_the_decimals_dec_and_sums_them_exactly() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let csv = write_day(tmp.path(), &day());
    let db = tmp.path().join("db");
    let (code, _, err) = run({
        let mut c = xs();
        c.arg("-d").arg(&db).arg("import").arg(&csv);
        c
    });
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("columns: price:dec(8),qty:dec(8),side:sym"), "{err}");
    assert!(
        err.contains("a later value with more is rejected, never rounded"),
        "{err}"
    );
    let toml = fs::read_to_string(db.join("xs.toml")).expect("config");
    assert!(toml.contains("name = \"price\"\ntype = \"dec(8)\""), "{toml}");
    let mut c = xs();
    c.arg("-d")
        .arg(&db)
        .args(["range", DAY[0], DAY[1], "--agg", "sum(qty)", "--no-header"]);
    let (code, out, err) = run(c);
    assert_eq!(code, 0, "{err}");
    assert!(out.trim_end().ends_with(&format!(",{SUM_QTY}")), "{out}");
}

#[test]
fn filters_compare_decimals_exactly() {
    let (db, trades) = trades_db();
    let count = |filter: &[&str]| -> usize { agg(&db, "count", filter).parse().unwrap_or(0) };
    // A literal finer than the scale: between two storable prices.
    assert_eq!(count(&["price > 61837.635"]), ABOVE_61837_635);
    assert_eq!(count(&["price >= 61837.635"]), ABOVE_61837_635);
    assert_eq!(count(&["price <= 61837.635"]), TRADES - ABOVE_61837_635);
    assert_eq!(count(&["price < 61837.635"]), TRADES - ABOVE_61837_635);
    assert_eq!(count(&["price = 61837.635"]), 0);
    assert_eq!(count(&["price != 61837.635"]), TRADES);
    // Exact literals, however they are written.
    let p = &trades[0].price;
    let want = trades.iter().filter(|t| &t.price == p).count();
    assert!(want > 0);
    let short = p.trim_end_matches('0');
    assert_eq!(count(&[&format!("price = {short}")]), want);
    assert_eq!(count(&[&format!("price = +{p}00")]), want);
    assert_eq!(count(&[&format!("price in ({short}, 1.000000001)")]), want);
    // Literals far past the column's range compare as arithmetic says.
    assert_eq!(count(&["price < 99999999999999999999999999"]), TRADES);
    assert_eq!(count(&["price > -99999999999999999999999999"]), TRADES);
    assert_eq!(count(&["price >= 99999999999999999999999999"]), 0);
    // Exponents are not decimals.
    let (code, _, err) = run(db.xs(&["range", DAY[0], DAY[1], "--where", "price > 6e4"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("give a plain decimal"), "{err}");
    assert_no_panic(&err);

    // dec(2): 1.005 lies between 1.00 and 1.01.
    let small = TestDb::create("1s", "price:dec(2)", &[]);
    for (i, v) in ["1.00", "1.01", "-1.01", "-1.00", "2"].iter().enumerate() {
        small.ok(&["put", &format!("2024-01-01T00:00:0{i}Z"), v]);
    }
    let range = |w: &str| {
        small.ok(&[
            "range",
            "2024-01-01",
            "2024-01-02",
            "--where",
            w,
            "--columns",
            "price",
            "--no-header",
        ])
    };
    assert_eq!(range("price > 1.005"), "1.01\n2.00\n");
    assert_eq!(range("price < 1.005"), "1.00\n-1.01\n-1.00\n");
    assert_eq!(range("price > -1.005"), "1.00\n1.01\n-1.00\n2.00\n");
    assert_eq!(range("price <= -1.005"), "-1.01\n");
    assert_eq!(range("price = 1.005"), "");
    assert_eq!(range("price = 2.000"), "2.00\n");
}

#[test]
fn values_that_would_be_rounded_are_rejected_with_their_reason() {
    let db = TestDb::create("1s", "price:dec(2),n:i64", &[]);
    let dir = db.path.parent().expect("temp dir");
    let input = dir.join("in.csv");
    fs::write(
        &input,
        "time,price,n\n\
         2024-01-01T00:00:00Z,1.50,1\n\
         2024-01-01T00:00:01Z,1.005,2\n\
         2024-01-01T00:00:02Z,1e-5,3\n\
         2024-01-01T00:00:03Z,nan,4\n\
         2024-01-01T00:00:04Z,inf,5\n\
         2024-01-01T00:00:05Z,99999999999999999.99,6\n\
         2024-01-01T00:00:06Z,-.5,7\n",
    )
    .expect("write");
    let rejects = dir.join("rejects.csv");
    let (code, _, err) = run(db.xs(&[
        "import",
        input.to_str().expect("utf-8"),
        "--rejects",
        rejects.to_str().expect("utf-8"),
    ]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("5 row(s) rejected"), "{err}");
    assert_no_panic(&err);
    let listed = fs::read_to_string(&rejects).expect("rejects file");
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 6, "{listed}");
    assert!(lines[1].contains(",3,"), "line number of 1.005: {listed}");
    assert!(
        lines[1].contains(
            "column `price`: 3 decimals, more than dec(2) holds (it is never rounded); widen the scale: `xs alter --widen 'price:dec(3)'` for this database"
        ),
        "{listed}"
    );
    for (line, value) in [(2, "1e-5"), (3, "nan"), (4, "inf")] {
        assert!(
            lines[line].contains("not a valid dec(2): write a plain decimal") && lines[line].contains(value),
            "{listed}"
        );
    }
    assert!(
        lines[5].contains("value out of range for dec(2), which holds at most 92233720368547758.07"),
        "{listed}"
    );
    assert_eq!(
        db.ok(&["range", "2024-01-01", "2024-01-02", "--no-header"]),
        "2024-01-01T00:00:00Z,1.50,1\n2024-01-01T00:00:06Z,-0.50,7\n"
    );
}

#[test]
fn an_inferred_scale_refuses_a_later_finer_value_rather_than_round_it() {
    // Read from stdin, only the head is sampled: the finer value comes after it.
    let mut text = String::from("time,price\n");
    for i in 0..12_000 {
        text.push_str(&format!("{},{}.{:02}\n", 1_704_067_200 + i, 100 + i % 7, i % 100));
    }
    text.push_str("1704079300,100.125\n");
    let tmp = tempfile::tempdir().expect("temp dir");
    let db = tmp.path().join("db");
    let mut c = xs();
    c.arg("-d")
        .arg(&db)
        .args(["import", "-", "--max-rejects", "1"])
        .write_stdin(text);
    let (code, _, err) = run(c);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("column `price`: dec(2)"), "{err}");
    assert!(err.contains("12001 rows read, 12000 stored, 1 rejected"), "{err}");
    let rejects: Vec<_> = fs::read_dir(&db)
        .expect("db dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("rejects"))
        })
        .collect();
    assert_eq!(rejects.len(), 1, "{rejects:?}");
    let listed = fs::read_to_string(&rejects[0]).expect("rejects");
    assert!(
        listed.contains("3 decimals, more than dec(2) holds") && listed.contains("100.125"),
        "{listed}"
    );
}

#[test]
fn put_takes_decimals_as_import_does() {
    let db = TestDb::create("1s", "price:dec(8),qty:dec(0)", &[]);
    db.ok(&["put", "2024-08-08T23:54:15Z", "61837.63", "+12"]);
    db.ok(&["put", "2024-08-08T23:54:16Z", ".5", "-0"]);
    assert_eq!(
        db.ok(&["range", "2024-08-08", "2024-08-09", "--no-header"]),
        "2024-08-08T23:54:15Z,61837.63000000,12\n2024-08-08T23:54:16Z,0.50000000,0\n"
    );
    let schema: serde_json::Value = serde_json::from_str(&db.ok(&["schema", "--json"])).expect("json");
    assert_eq!(schema["columns"][0]["type"], "dec(8)", "{schema}");
    assert_eq!(schema["columns"][0]["width_bytes"], 8, "{schema}");
    let (code, _, err) = run(db.xs(&["put", "2024-08-08T23:54:17Z", "1.123456789", "1"]));
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("9 decimals, more than dec(8) holds"), "{err}");
    assert!(err.contains("price"), "{err}");
    assert_no_panic(&err);
    let (code, _, err) = run(db.xs(&["put", "2024-08-08T23:54:17Z", "1", "1.5"]));
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("1 decimals, more than dec(0) holds"), "{err}");
}

#[test]
fn a_sum_too_large_for_the_column_is_an_error_not_a_wrap() {
    let db = TestDb::create("1s", "v:dec(2)", &[]);
    db.ok(&["put", "2024-01-01T00:00:00Z", "92233720368547758.07"]);
    db.ok(&["put", "2024-01-01T00:00:01Z", "0.01"]);
    let (code, out, err) = run(db.xs(&["range", "2024-01-01", "2024-01-02", "--agg", "sum(v),mean(v)"]));
    // A runtime error (3), not a usage one: the command was right, the data made the sum.
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        err.contains(
            "sum(v) of the bucket at 2024-01-01T00:00:00Z is 92233720368547758.08, too large for dec(2)"
        ),
        "{err}"
    );
    assert_no_panic(&err);
    // The mean cannot overflow: it lies between the values.
    assert_eq!(
        db.ok(&[
            "range",
            "2024-01-01",
            "2024-01-02",
            "--agg",
            "mean(v),min(v),max(v)",
            "--no-header"
        ]),
        "2024-01-01T00:00:00Z,46116860184273879.04,0.01,92233720368547758.07\n"
    );
}

#[test]
fn a_bad_scale_is_refused_at_create() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for spec in ["p:dec(19)", "p:dec(x)", "p:dec"] {
        let mut c = xs();
        c.arg("create")
            .arg(tmp.path().join("db"))
            .args(["--granularity", "1s", "--columns", spec]);
        let (code, _, err) = run(c);
        assert_eq!(code, 2, "{spec}: {err}");
        assert!(err.contains("dec(S)"), "{spec}: {err}");
    }
}

/// Whether `x` lies within one ulp of `num / den` (den > 0), compared exactly: with x = m·2^e,
/// |m·den − num·2^−e| ≤ den·2^0 (one ulp, 2^e, times den·2^−e).
fn within_an_ulp(x: f64, num: i128, den: i128) -> bool {
    assert!(x > 0.0 && x.is_normal() && den > 0);
    let bits = x.to_bits();
    let m = i128::from((bits & ((1 << 52) - 1)) | (1 << 52));
    let e = ((bits >> 52) & 0x7ff) as i32 - 1075;
    assert!((-100..0).contains(&e), "a ratio this test's numbers give: {x}");
    let shift = u32::try_from(-e).expect("negative exponent");
    let diff = m.checked_mul(den).expect("m·den fits") - num.checked_mul(1 << shift).expect("num·2^−e fits");
    diff.abs() <= den
}
