//! `xs range --every`: every aggregate against a plain reference computation over the same
//! fixture (nulls, NaN, several rows at one timestamp, buckets straddling a year boundary),
//! `--fill`, `--ohlcv`, `--where`, output formats and the errors that name what to fix.

mod common;

use std::fs;

use common::{run, TestDb};

/// 2021-01-01T00:00:00Z in seconds.
const Y2021_S: i64 = 1_609_459_200;

/// One fixture row: time in seconds, then price, qty, side (None: null).
#[derive(Clone, Debug)]
struct Row {
    t_s: i64,
    price: Option<f64>,
    qty: Option<i64>,
    side: &'static str,
}

/// Deterministic rows from 2020-12-31T23:00Z to 2021-01-01T00:30Z (irregular steps, some
/// timestamps with two rows), a gap, then 2021-01-01T02:00Z to 02:30Z. Prices are sometimes
/// null, once NaN; quantities sometimes null.
fn fixture() -> Vec<Row> {
    let mut rows = Vec::new();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let emit = |from_s: i64, to_s: i64, rows: &mut Vec<Row>, next: &mut dyn FnMut() -> u64| {
        let mut t = from_s;
        while t < to_s {
            let k = if next().is_multiple_of(5) { 2 } else { 1 };
            for _ in 0..k {
                let r = next();
                let price = if r.is_multiple_of(13) {
                    None
                } else {
                    Some(100.0 + (r % 10_000) as f64 / 100.0)
                };
                let qty = if r.is_multiple_of(17) {
                    None
                } else {
                    Some((r >> 20) as i64 % 50 - 5)
                };
                let side = if (r >> 8).is_multiple_of(2) { "buy" } else { "sell" };
                rows.push(Row {
                    t_s: t,
                    price,
                    qty,
                    side,
                });
            }
            t += 1 + (next() % 40) as i64;
        }
    };
    emit(Y2021_S - 3600, Y2021_S + 1800, &mut rows, &mut next);
    emit(Y2021_S + 7200, Y2021_S + 9000, &mut rows, &mut next);
    // One NaN price, in the bucket of 2021-01-01T00:10Z.
    let nan_at = rows
        .iter()
        .position(|r| r.t_s >= Y2021_S + 600 && r.price.is_some())
        .unwrap();
    rows[nan_at].price = Some(f64::NAN);
    rows
}

fn iso(t_s: i64) -> String {
    chrono::DateTime::from_timestamp(t_s, 0)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// A 1 s database of depth 2 holding `rows`, filled by `xs import` of a CSV.
fn database(rows: &[Row]) -> TestDb {
    let db = TestDb::create("1s", "price:f64,qty:i64,side:str(4)", &["--depth", "2"]);
    let mut csv = String::from("time,price,qty,side\n");
    for r in rows {
        let price = match r.price {
            None => String::new(),
            Some(p) if p.is_nan() => "NaN".into(),
            Some(p) => p.to_string(),
        };
        let qty = r.qty.map(|q| q.to_string()).unwrap_or_default();
        csv.push_str(&format!("{},{price},{qty},{}\n", iso(r.t_s), r.side));
    }
    let file = db.path.with_extension("csv");
    fs::write(&file, csv).unwrap();
    db.ok(&["import", file.to_str().unwrap()]);
    db
}

/// A value of the reference computation.
#[derive(Clone, Debug)]
enum V {
    Null,
    N(f64),
    S(String),
}

fn same(a: &V, b: &V) -> bool {
    match (a, b) {
        (V::Null, V::Null) => true,
        (V::S(x), V::S(y)) => x == y,
        (V::N(x), V::N(y)) => {
            (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
        }
        _ => false,
    }
}

fn parse_field(text: &str, numeric: bool) -> V {
    if text.is_empty() {
        V::Null
    } else if numeric {
        V::N(text.parse().unwrap_or_else(|_| panic!("not a number: {text}")))
    } else {
        V::S(text.to_string())
    }
}

/// The reference: one aggregate over the rows of one bucket, computed the plain way.
fn reference(agg: &str, rows: &[&Row]) -> V {
    let prices: Vec<f64> = rows.iter().filter_map(|r| r.price).collect();
    let qtys: Vec<i64> = rows.iter().filter_map(|r| r.qty).collect();
    let num = |v: Option<f64>| v.map_or(V::Null, V::N);
    let min_max = |v: &[f64], max: bool| -> V {
        if v.is_empty() {
            V::Null
        } else if v.iter().any(|x| x.is_nan()) {
            V::N(f64::NAN)
        } else if max {
            V::N(v.iter().cloned().fold(f64::MIN, f64::max))
        } else {
            V::N(v.iter().cloned().fold(f64::MAX, f64::min))
        }
    };
    match agg {
        "count" => V::N(rows.len() as f64),
        "first(price)" => num(prices.first().copied()),
        "last(price)" => num(prices.last().copied()),
        "first(side)" => rows.first().map_or(V::Null, |r| V::S(r.side.into())),
        "last(side)" => rows.last().map_or(V::Null, |r| V::S(r.side.into())),
        "min(price)" => min_max(&prices, false),
        "max(price)" => min_max(&prices, true),
        "min(qty)" => num(qtys.iter().min().map(|&q| q as f64)),
        "max(qty)" => num(qtys.iter().max().map(|&q| q as f64)),
        "sum(qty)" => num((!qtys.is_empty()).then(|| qtys.iter().sum::<i64>() as f64)),
        "sum(price)" => num((!prices.is_empty()).then(|| prices.iter().sum())),
        "mean(price)" => num((!prices.is_empty()).then(|| prices.iter().sum::<f64>() / prices.len() as f64)),
        "mean(qty)" => num((!qtys.is_empty()).then(|| qtys.iter().sum::<i64>() as f64 / qtys.len() as f64)),
        "stddev(qty)" | "stddev(price)" => {
            let v: Vec<f64> = if agg == "stddev(qty)" {
                qtys.iter().map(|&q| q as f64).collect()
            } else {
                prices.clone()
            };
            if v.len() < 2 {
                return V::Null;
            }
            let mean = v.iter().sum::<f64>() / v.len() as f64;
            let ss: f64 = v.iter().map(|x| (x - mean) * (x - mean)).sum();
            V::N((ss / (v.len() - 1) as f64).sqrt())
        }
        "vwap(price,qty)" => {
            let (mut pq, mut q) = (0.0, 0.0);
            for r in rows {
                if let (Some(p), Some(n)) = (r.price, r.qty) {
                    pq += p * n as f64;
                    q += n as f64;
                }
            }
            if q == 0.0 {
                V::Null
            } else {
                V::N(pq / q)
            }
        }
        other => match quantile_spec(other) {
            Some(("price", q)) => quantile(&prices, q),
            Some(("qty", q)) => quantile(&qtys.iter().map(|&x| x as f64).collect::<Vec<_>>(), q),
            _ => panic!("no reference for {other}"),
        },
    }
}

/// `median(c)` → (c, 0.5), `quantile(c,q)` → (c, q).
fn quantile_spec(agg: &str) -> Option<(&str, f64)> {
    if let Some(c) = agg.strip_prefix("median(").and_then(|r| r.strip_suffix(')')) {
        return Some((c, 0.5));
    }
    let inner = agg.strip_prefix("quantile(")?.strip_suffix(')')?;
    let (c, q) = inner.split_once(',')?;
    Some((c.trim(), q.trim().parse().ok()?))
}

/// numpy.quantile(values, q) (method "linear"), written out: sort, then interpolate at
/// (n − 1)·q. Empty: null; any NaN: NaN.
fn quantile(values: &[f64], q: f64) -> V {
    if values.is_empty() {
        return V::Null;
    }
    if values.iter().any(|v| v.is_nan()) {
        return V::N(f64::NAN);
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pos = (sorted.len() - 1) as f64 * q;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    V::N(sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64))
}

/// The expected table: (bucket start in seconds, one value per aggregate) for non-empty
/// buckets, or every bucket of [from, to) with `fill`.
fn expected(
    rows: &[Row],
    aggs: &[&str],
    every_s: i64,
    from_s: i64,
    to_s: i64,
    fill: bool,
) -> Vec<(i64, Vec<V>)> {
    let mut out = Vec::new();
    // Epoch-aligned; whole weeks from Monday 1970-01-05.
    let origin = if every_s % (7 * 86_400) == 0 {
        4 * 86_400
    } else {
        0
    };
    let mut b = (from_s - origin).div_euclid(every_s) * every_s + origin;
    while b < to_s {
        let in_bucket: Vec<&Row> = rows
            .iter()
            .filter(|r| r.t_s >= b.max(from_s) && r.t_s < (b + every_s).min(to_s))
            .collect();
        if fill || !in_bucket.is_empty() {
            out.push((b, aggs.iter().map(|a| reference(a, &in_bucket)).collect()));
        }
        b += every_s;
    }
    out
}

/// Runs the aggregation with epoch-s times and parses its CSV.
fn actual(db: &TestDb, args: &[&str], aggs: &[&str]) -> (String, Vec<(i64, Vec<V>)>) {
    let mut all = args.to_vec();
    all.extend(["--time-format", "epoch-s"]);
    let out = db.ok(&all);
    let mut lines = out.lines();
    let header = lines.next().unwrap_or_default().to_string();
    let table = lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            assert_eq!(fields.len(), aggs.len() + 1, "{line}");
            let values = aggs
                .iter()
                .zip(&fields[1..])
                .map(|(a, f)| parse_field(f, !a.contains("side")))
                .collect();
            (fields[0].parse().unwrap(), values)
        })
        .collect();
    (header, table)
}

fn assert_tables(want: &[(i64, Vec<V>)], got: &[(i64, Vec<V>)], aggs: &[&str], what: &str) {
    assert_eq!(
        want.iter().map(|w| w.0).collect::<Vec<_>>(),
        got.iter().map(|g| g.0).collect::<Vec<_>>(),
        "{what}: bucket starts"
    );
    for (w, g) in want.iter().zip(got) {
        for (i, agg) in aggs.iter().enumerate() {
            assert!(
                same(&w.1[i], &g.1[i]),
                "{what}: bucket {} ({}), {agg}: expected {:?}, got {:?}",
                w.0,
                iso(w.0),
                w.1[i],
                g.1[i]
            );
        }
    }
}

const ALL: [&str; 16] = [
    "count",
    "first(price)",
    "last(price)",
    "first(side)",
    "last(side)",
    "min(price)",
    "max(price)",
    "min(qty)",
    "max(qty)",
    "sum(qty)",
    "sum(price)",
    "mean(price)",
    "mean(qty)",
    "stddev(qty)",
    "stddev(price)",
    "vwap(price,qty)",
];

#[test]
fn every_aggregate_matches_the_reference_for_several_bucket_widths() {
    let rows = fixture();
    let db = database(&rows);
    let spec = ALL.join(",");
    let (from_s, to_s) = (Y2021_S - 7200, Y2021_S + 10_800);
    // 1000 s and 7 d buckets straddle the year (and partition) boundary at 2021-01-01.
    for (every, every_s) in [("1m", 60), ("1000s", 1000), ("1h", 3600), ("7d", 7 * 86_400)] {
        let (header, got) = actual(
            &db,
            &[
                "range",
                &iso(from_s),
                &iso(to_s),
                "--every",
                every,
                "--agg",
                &spec,
            ],
            &ALL,
        );
        assert_eq!(
            header,
            "time,count,first_price,last_price,first_side,last_side,min_price,max_price,min_qty,\
             max_qty,sum_qty,sum_price,mean_price,mean_qty,stddev_qty,stddev_price,vwap_price_qty"
        );
        let want = expected(&rows, &ALL, every_s, from_s, to_s, false);
        assert_tables(&want, &got, &ALL, every);
    }
    // The straddling buckets really hold rows of both years.
    let straddle = Y2021_S.div_euclid(1000) * 1000;
    assert!(straddle < Y2021_S);
    assert!(rows.iter().any(|r| r.t_s >= straddle && r.t_s < Y2021_S));
    assert!(rows.iter().any(|r| r.t_s >= Y2021_S && r.t_s < straddle + 1000));
}

#[test]
fn an_unaligned_window_counts_only_its_rows_and_prints_bucket_starts() {
    let rows = fixture();
    let db = database(&rows);
    let aggs = ["count", "sum(qty)", "vwap(price,qty)"];
    let (from_s, to_s) = (Y2021_S - 1234, Y2021_S + 777);
    let (_, got) = actual(
        &db,
        &[
            "range",
            &iso(from_s),
            &iso(to_s),
            "--every",
            "10m",
            "--agg",
            &aggs.join(","),
        ],
        &aggs,
    );
    assert_tables(
        &expected(&rows, &aggs, 600, from_s, to_s, false),
        &got,
        &aggs,
        "unaligned",
    );
    assert_eq!(got[0].0, (Y2021_S - 1234).div_euclid(600) * 600);
}

/// The mean of integers is their exact sum divided once: a sum in f64 lost the low digits of
/// large values (2/3 printed as 0.0 beside sum 2 and count 3; nanosecond stamps stored as
/// i64 came out 30 µs off over 100,000 rows).
#[test]
fn the_mean_of_integers_divides_their_exact_sum() {
    let db = TestDb::create("1s", "n:i64", &[]);
    for (t, n) in [
        ("00", "1"),
        ("01", "9007199254740993"),
        ("02", "-9007199254740992"),
    ] {
        db.ok(&["put", &format!("2021-01-01T00:00:{t}Z"), n]);
    }
    let out = db.ok(&[
        "range",
        "2021-01-01",
        "2021-01-02",
        "--agg",
        "count,sum(n),mean(n)",
    ]);
    assert_eq!(
        out,
        "time,count,sum_n,mean_n\n2021-01-01T00:00:00Z,3,2,0.6666666666666666\n"
    );
}

#[test]
fn nan_propagates_and_nulls_are_skipped() {
    let rows = fixture();
    let db = database(&rows);
    let bucket = Y2021_S + 600;
    let out = db.ok(&[
        "range",
        &iso(bucket),
        &iso(bucket + 60),
        "--every",
        "1m",
        "--agg",
        "count,sum(price),max(price),mean(price),vwap(price,qty)",
    ]);
    assert!(out.ends_with(",NaN,NaN,NaN,NaN\n"), "{out}");
    // NDJSON has no NaN: null.
    let out = db.ok(&[
        "range",
        &iso(bucket),
        &iso(bucket + 60),
        "--every",
        "1m",
        "--agg",
        "sum(price)",
        "-f",
        "ndjson",
    ]);
    assert_eq!(
        out,
        format!("{{\"time\":\"{}\",\"sum_price\":null}}\n", iso(bucket))
    );
    // A bucket whose only values are null: count counts the row, the rest are empty.
    let db = TestDb::create("1s", "price:f64,qty:i64", &[]);
    db.ok(&["put", "2021-01-01T00:00:00Z", "price=", "qty="]);
    let out = db.ok(&[
        "range",
        "2021-01-01",
        "2021-01-02",
        "--every",
        "1d",
        "--agg",
        "count,first(price),min(price),sum(qty),mean(qty),stddev(qty),vwap(price,qty)",
    ]);
    assert_eq!(
        out,
        "time,count,first_price,min_price,sum_qty,mean_qty,stddev_qty,vwap_price_qty\n\
         2021-01-01T00:00:00Z,1,,,,,,\n"
    );
}

#[test]
fn fill_prints_empty_buckets_over_the_whole_window() {
    let rows = fixture();
    let db = database(&rows);
    let aggs = ["count", "first(price)", "sum(qty)"];
    // The data has a gap from 00:30 to 02:00.
    let (from_s, to_s) = (Y2021_S, Y2021_S + 4 * 3600);
    let args = [
        "range",
        &iso(from_s),
        &iso(to_s),
        "--every",
        "15m",
        "--agg",
        &aggs.join(","),
    ];
    let (_, sparse) = actual(&db, &args, &aggs);
    let mut with_fill = args.to_vec();
    with_fill.push("--fill");
    let (_, filled) = actual(&db, &with_fill, &aggs);
    assert_eq!(filled.len(), 16);
    assert!(sparse.len() < filled.len());
    assert_tables(
        &expected(&rows, &aggs, 900, from_s, to_s, true),
        &filled,
        &aggs,
        "fill",
    );
    let empty = filled.iter().find(|(t, _)| *t == Y2021_S + 3600).unwrap();
    assert!(same(&empty.1[0], &V::N(0.0)) && matches!(empty.1[1], V::Null) && matches!(empty.1[2], V::Null));
    // --fill also covers a window with no partition at all.
    let out = db.ok(&[
        "range",
        "2030-01-01",
        "2030-01-01T00:03:00Z",
        "--every",
        "1m",
        "--agg",
        "count",
        "--fill",
    ]);
    assert_eq!(
        out,
        "time,count\n2030-01-01T00:00:00Z,0\n2030-01-01T00:01:00Z,0\n2030-01-01T00:02:00Z,0\n"
    );
    assert_eq!(
        db.ok(&[
            "range",
            "2030-01-01",
            "2030-01-02",
            "--every",
            "1m",
            "--agg",
            "count"
        ]),
        "time,count\n"
    );
}

#[test]
fn ohlcv_is_first_max_min_last_sum_and_count() {
    let rows = fixture();
    let db = database(&rows);
    let aggs = [
        "first(price)",
        "max(price)",
        "min(price)",
        "last(price)",
        "sum(qty)",
        "count",
    ];
    let (from_s, to_s) = (Y2021_S - 3600, Y2021_S + 3600);
    let (header, got) = actual(
        &db,
        &[
            "range",
            &iso(from_s),
            &iso(to_s),
            "--every",
            "5m",
            "--ohlcv",
            "price,qty",
        ],
        &aggs,
    );
    assert_eq!(header, "time,open,high,low,close,volume,count");
    assert_tables(
        &expected(&rows, &aggs, 300, from_s, to_s, false),
        &got,
        &aggs,
        "ohlcv",
    );
}

#[test]
fn where_filters_aggregates_and_plain_ranges() {
    let rows = fixture();
    let db = database(&rows);
    let buys: Vec<Row> = rows.iter().filter(|r| r.side == "buy").cloned().collect();
    let aggs = ["count", "sum(qty)", "vwap(price,qty)", "last(side)"];
    let (from_s, to_s) = (Y2021_S - 3600, Y2021_S + 9000);
    let (_, got) = actual(
        &db,
        &[
            "range",
            &iso(from_s),
            &iso(to_s),
            "--every",
            "1000s",
            "--agg",
            &aggs.join(","),
            "--where",
            "side=buy",
        ],
        &aggs,
    );
    assert_tables(
        &expected(&buys, &aggs, 1000, from_s, to_s, false),
        &got,
        &aggs,
        "where",
    );
    let out = db.ok(&[
        "range",
        &iso(from_s),
        &iso(to_s),
        "--where",
        "side=buy",
        "--columns",
        "side",
    ]);
    assert_eq!(out.lines().count(), buys.len() + 1);
    assert!(out.lines().skip(1).all(|l| l == "buy"));
    // An empty value matches nulls.
    let null_qty = rows.iter().filter(|r| r.qty.is_none()).count();
    let out = db.ok(&[
        "range",
        &iso(from_s),
        &iso(to_s),
        "--where",
        "qty=",
        "--no-header",
    ]);
    assert_eq!(out.lines().count(), null_qty);
    let out = db.ok(&[
        "range",
        &iso(from_s),
        &iso(to_s),
        "--where",
        "qty=",
        "--limit",
        "1",
        "--no-header",
    ]);
    assert_eq!(out.lines().count(), 1);
}

#[test]
fn formats_limit_and_integer_results() {
    let db = TestDb::create("1ms", "price:f32,qty:u32,n:i8", &[]);
    for (t, p, q, n) in [
        ("2021-01-01T00:00:00.001Z", "1.5", "4000000000", "-100"),
        ("2021-01-01T00:00:00.002Z", "2.25", "4000000000", "-100"),
        ("2021-01-01T00:00:01.000Z", "3", "1", "7"),
    ] {
        db.ok(&[
            "put",
            t,
            &format!("price={p}"),
            &format!("qty={q}"),
            &format!("n={n}"),
        ]);
    }
    let out = db.ok(&[
        "range",
        "2021-01-01",
        "2021-01-02",
        "--every",
        "1s",
        "--agg",
        "sum(qty),sum(n),min(n),max(price),mean(price)",
    ]);
    // Integer sums are exact (u32 sums into u64, i8 into i64), min/max keep the column type.
    assert_eq!(
        out,
        "time,sum_qty,sum_n,min_n,max_price,mean_price\n\
         2021-01-01T00:00:00Z,8000000000,-200,-100,2.25,1.875\n\
         2021-01-01T00:00:01Z,1,7,7,3.0,3.0\n"
    );
    let out = db.ok(&[
        "range",
        "2021-01-01",
        "2021-01-02",
        "--every",
        "1s",
        "--agg",
        "count",
        "-f",
        "tsv",
        "--limit",
        "1",
    ]);
    assert_eq!(out, "time\tcount\n2021-01-01T00:00:00Z\t2\n");
    let out = db.ok(&[
        "range",
        "2021-01-01",
        "2021-01-02",
        "--every",
        "1s",
        "--agg",
        "count,max(qty)",
        "--columns",
        "max_qty,time",
        "--time-format",
        "epoch-ms",
        "--no-header",
    ]);
    assert_eq!(out, "4000000000,1609459200000\n1,1609459201000\n");
}

#[test]
fn bad_specs_say_what_to_fix() {
    let db = TestDb::create("1ms", "price:f64,qty:f64,side:str(4)", &[]);
    let cases: &[(&[&str], &str)] = &[
        (
            &["--every", "1m", "--agg", "sum(volume)"],
            "unknown column `volume`",
        ),
        (
            &["--every", "1m", "--agg", "sum(side)"],
            "`side` is str(4), not a number",
        ),
        (
            &["--every", "1m", "--agg", "mode(price)"],
            "unknown aggregate `mode(price)`",
        ),
        (&["--every", "1m", "--agg", "vwap(price)"], "vwap(price,qty)"),
        (
            &["--every", "1500us", "--agg", "count"],
            "multiple of the database granularity 1ms",
        ),
        (&["--every", "1m"], "--every needs aggregates"),
        (&["--every", "1m", "--ohlcv", "price"], "--ohlcv price,qty"),
        (
            &["--every", "1m", "--agg", "count", "--columns", "time,nope"],
            "`nope` is not an output column",
        ),
        (
            &["--every", "1m", "--agg", "count", "--where", "nope=1"],
            "unknown column `nope`",
        ),
        (
            &["--where", "price=cheap"],
            "`cheap` is not a value of column `price` (f64): give a number",
        ),
    ];
    for (extra, message) in cases {
        let mut args = vec!["range", "2021-01-01", "2021-01-02"];
        args.extend_from_slice(extra);
        let (code, _, stderr) = run(db.xs(&args));
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        common::assert_no_panic(&stderr);
    }
    let (code, _, stderr) = run(db.xs(&["range", "2021-01-01", "2021-01-02", "--fill", "--agg", "count"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--every"), "{stderr}");
}

#[test]
fn without_every_one_row_covers_the_whole_window() {
    let rows = fixture();
    let db = database(&rows);
    // Long enough that the window is cut into many slices whose partial results are merged.
    let (from_s, to_s) = (Y2021_S - 5000, Y2021_S + 8000);
    let (_, got) = actual(
        &db,
        &["range", &iso(from_s), &iso(to_s), "--agg", &ALL.join(",")],
        &ALL,
    );
    let in_window: Vec<&Row> = rows.iter().filter(|r| r.t_s >= from_s && r.t_s < to_s).collect();
    let want = vec![(from_s, ALL.iter().map(|a| reference(a, &in_window)).collect())];
    assert_tables(&want, &got, &ALL, "whole window");
    // Same thing for rows without the NaN: stddev and mean merged across slices stay exact.
    let aggs = [
        "count",
        "stddev(price)",
        "mean(price)",
        "min(price)",
        "first(price)",
        "last(price)",
    ];
    let (from_s, to_s) = (Y2021_S + 7200, Y2021_S + 9000);
    let (_, got) = actual(
        &db,
        &["range", &iso(from_s), &iso(to_s), "--agg", &aggs.join(",")],
        &aggs,
    );
    let in_window: Vec<&Row> = rows.iter().filter(|r| r.t_s >= from_s && r.t_s < to_s).collect();
    let want = vec![(from_s, aggs.iter().map(|a| reference(a, &in_window)).collect())];
    assert_tables(&want, &got, &aggs, "whole window, no NaN");
}

/// Issue 18: `--every 1w` buckets run Monday to Sunday (ISO weeks), not from the epoch's
/// Thursday.
#[test]
fn weekly_buckets_start_on_monday() {
    let db = TestDb::create("1h", "v:i64", &[]);
    // Sunday 2024-03-03, Monday 2024-03-04, Sunday 2024-03-10, Monday 2024-03-11.
    for (t, v) in [
        ("2024-03-03T12:00:00Z", 1),
        ("2024-03-04T00:00:00Z", 2),
        ("2024-03-10T23:00:00Z", 3),
        ("2024-03-11T00:00:00Z", 4),
    ] {
        db.ok(&["put", t, &v.to_string()]);
    }
    assert_eq!(
        db.ok(&[
            "range",
            "2024-03-01",
            "2024-04-01",
            "--every",
            "1w",
            "--agg",
            "count,sum(v)"
        ]),
        "time,count,sum_v\n\
         2024-02-26T00:00:00Z,1,1\n\
         2024-03-04T00:00:00Z,2,5\n\
         2024-03-11T00:00:00Z,1,4\n"
    );
}

/// Bucket starts print at the bucket's precision: `2d`, `7d` and `1w` (which do not divide a
/// day) at whole seconds like `1d`, not at the millisecond granularity of the database.
#[test]
fn buckets_of_several_days_print_at_their_precision() {
    let db = TestDb::create("1ms", "v:i64", &[]);
    db.ok(&["put", "2024-03-04T00:00:00.001Z", "1"]);
    for every in ["1d", "2d", "7d", "1w"] {
        let out = db.ok(&[
            "range",
            "2024-03-04",
            "2024-03-05",
            "--every",
            every,
            "--agg",
            "count",
        ]);
        let time = out
            .lines()
            .nth(1)
            .and_then(|l| l.split(',').next())
            .unwrap_or_default();
        assert!(time.ends_with("T00:00:00Z") && time.len() == 20, "{every}: {out}");
    }
    let out = db.ok(&[
        "range",
        "2024-03-04",
        "2024-03-05",
        "--every",
        "90ms",
        "--agg",
        "count",
    ]);
    assert!(out.contains("\n2024-03-04T00:00:00.00Z,1\n"), "{out}");
}

/// Issue 18: `--every 1M` buckets are calendar months (and 3M quarters, 12M years), whatever
/// their length; with an open window `--fill` stops at the last partition.
#[test]
fn calendar_month_buckets() {
    let db = TestDb::create("1h", "v:i64", &["--partition", "year"]);
    for (t, v) in [
        ("2024-01-31T23:00:00Z", 1),
        ("2024-02-01T00:00:00Z", 2),
        ("2024-02-29T23:00:00Z", 3),
        ("2024-03-01T00:00:00Z", 4),
        ("2024-12-31T23:00:00Z", 5),
    ] {
        db.ok(&["put", t, &v.to_string()]);
    }
    assert_eq!(
        db.ok(&["range", "..", "--every", "1M", "--agg", "count,sum(v)"]),
        "time,count,sum_v\n\
         2024-01-01T00:00:00Z,1,1\n\
         2024-02-01T00:00:00Z,2,5\n\
         2024-03-01T00:00:00Z,1,4\n\
         2024-12-01T00:00:00Z,1,5\n"
    );
    assert_eq!(
        db.ok(&["range", "..", "--every", "3M", "--agg", "count", "--fill"]),
        "time,count\n\
         2024-01-01T00:00:00Z,4\n\
         2024-04-01T00:00:00Z,0\n\
         2024-07-01T00:00:00Z,0\n\
         2024-10-01T00:00:00Z,1\n"
    );
    // A window that starts mid-month counts only its own rows, timed by the month.
    assert_eq!(
        db.ok(&[
            "range",
            "2024-02-15",
            "2024-03-15",
            "--every",
            "1M",
            "--agg",
            "count"
        ]),
        "time,count\n2024-02-01T00:00:00Z,1\n2024-03-01T00:00:00Z,1\n"
    );
    let (code, _, err) = run(db.xs(&["range", "..", "--every", "0M", "--agg", "count"]));
    assert_eq!(code, 2, "{err}");
}

const QUANTILES: [&str; 8] = [
    "count",
    "median(price)",
    "quantile(price,0.9)",
    "quantile(price,0)",
    "quantile(price,1)",
    "median(qty)",
    "quantile(qty,0.25)",
    "quantile(qty,0.999)",
];

/// Issue 18: `median` and `quantile` against numpy's definition, over buckets of many sizes (odd
/// and even counts, nulls, the NaN bucket), a bucket straddling the year boundary, the whole
/// window (cut into slices whose values are pooled), and under `--where`.
#[test]
fn median_and_quantile_match_the_reference() {
    let rows = fixture();
    let db = database(&rows);
    let spec = QUANTILES.join(",");
    let (from_s, to_s) = (Y2021_S - 7200, Y2021_S + 10_800);
    for (every, every_s) in [
        ("1s", 1),
        ("1m", 60),
        ("1000s", 1000),
        ("1h", 3600),
        ("7d", 7 * 86_400),
    ] {
        let args = [
            "range",
            &iso(from_s),
            &iso(to_s),
            "--every",
            every,
            "--agg",
            &spec,
        ];
        let (header, got) = actual(&db, &args, &QUANTILES);
        assert_eq!(
            header,
            "time,count,median_price,quantile_price_0.9,quantile_price_0,quantile_price_1,\
             median_qty,quantile_qty_0.25,quantile_qty_0.999"
        );
        let want = expected(&rows, &QUANTILES, every_s, from_s, to_s, false);
        assert_tables(&want, &got, &QUANTILES, every);
    }
    // Both parities occur among the 1 m buckets' qty counts, and a bucket of only null prices.
    let counts: Vec<usize> = (0..120)
        .map(|m| {
            let b = Y2021_S - 3600 + m * 60;
            rows.iter()
                .filter(|r| r.t_s >= b && r.t_s < b + 60 && r.qty.is_some())
                .count()
        })
        .filter(|&n| n > 1)
        .collect();
    assert!(counts.iter().any(|n| n % 2 == 0) && counts.iter().any(|n| n % 2 == 1));
    // The whole window, without the NaN bucket and with it.
    for (from_s, to_s) in [(Y2021_S + 7200, Y2021_S + 9000), (Y2021_S - 5000, Y2021_S + 8000)] {
        let (_, got) = actual(
            &db,
            &["range", &iso(from_s), &iso(to_s), "--agg", &spec],
            &QUANTILES,
        );
        let in_window: Vec<&Row> = rows.iter().filter(|r| r.t_s >= from_s && r.t_s < to_s).collect();
        let want = vec![(
            from_s,
            QUANTILES.iter().map(|a| reference(a, &in_window)).collect(),
        )];
        assert_tables(&want, &got, &QUANTILES, "whole window");
    }
    // --where: only the sells count.
    let sells: Vec<Row> = rows.iter().filter(|r| r.side == "sell").cloned().collect();
    let (_, got) = actual(
        &db,
        &[
            "range",
            &iso(from_s),
            &iso(to_s),
            "--every",
            "10m",
            "--agg",
            &spec,
            "--where",
            "side=sell",
        ],
        &QUANTILES,
    );
    let want = expected(&sells, &QUANTILES, 600, from_s, to_s, false);
    assert_tables(&want, &got, &QUANTILES, "--where side=sell");
    // Calendar months: December 2020 and January 2021.
    let (_, got) = actual(
        &db,
        &["range", &iso(from_s), &iso(to_s), "--every", "1M", "--agg", &spec],
        &QUANTILES,
    );
    let dec_1 = Y2021_S - 31 * 86_400;
    let want: Vec<(i64, Vec<V>)> = [(dec_1, from_s, Y2021_S), (Y2021_S, Y2021_S, to_s)]
        .iter()
        .map(|&(b, lo, hi)| {
            let in_month: Vec<&Row> = rows.iter().filter(|r| r.t_s >= lo && r.t_s < hi).collect();
            (b, QUANTILES.iter().map(|a| reference(a, &in_month)).collect())
        })
        .collect();
    assert_tables(&want, &got, &QUANTILES, "--every 1M");
}

/// Issue 18: exact answers on small buckets of every numeric type: odd and even counts, nulls
/// skipped, an all-null bucket and a `--fill`ed one empty, NaN propagating, `dec(S)` exact and
/// rounded half away from zero at S decimals, infinities.
#[test]
fn median_and_quantile_on_every_numeric_type() {
    let db = TestDb::create("1m", "i:i8,u:u64,f:f32,x:f64,d:dec(2)", &["--depth", "4"]);
    let csv = "time,i,u,f,x,d\n\
               2024-01-01T00:00:00Z,3,18446744073709551615,0.5,1,1.01\n\
               2024-01-01T00:00:00Z,-128,0,1.5,inf,1.02\n\
               2024-01-01T00:00:00Z,,,,,\n\
               2024-01-01T00:00:00Z,1,7,2.5,-inf,\n\
               2024-01-01T00:01:00Z,4,1,0.25,NaN,-1.05\n\
               2024-01-01T00:01:00Z,2,2,0.75,2,-1.04\n\
               2024-01-01T00:02:00Z,,,,,\n";
    let file = db.path.with_extension("csv");
    fs::write(&file, csv).unwrap();
    db.ok(&["import", file.to_str().unwrap()]);
    let out = db.ok(&[
        "range",
        "2024-01-01",
        "2024-01-01T00:04:00Z",
        "--every",
        "1m",
        "--fill",
        "--agg",
        "median(i),median(u),median(f),median(x),median(d),quantile(d,0.25),quantile(x,0.5),quantile(i,1)",
    ]);
    assert_eq!(
        out,
        "time,median_i,median_u,median_f,median_x,median_d,quantile_d_0.25,quantile_x_0.5,quantile_i_1\n\
         2024-01-01T00:00:00Z,1.0,7.0,1.5,1.0,1.02,1.01,1.0,3.0\n\
         2024-01-01T00:01:00Z,3.0,1.5,0.5,NaN,-1.05,-1.05,NaN,4.0\n\
         2024-01-01T00:02:00Z,,,,,,,,\n\
         2024-01-01T00:03:00Z,,,,,,,,\n"
    );
    // u64 enters as its f64, as DuckDB's quantile_cont takes it: 2^64 − 1 is 1.8446744073709552e19.
    let out = db.ok(&[
        "range",
        "2024-01-01",
        "2024-01-01T00:00:01Z",
        "--agg",
        "quantile(u,1),quantile(d,0.5)",
    ]);
    assert_eq!(
        out,
        "time,quantile_u_1,quantile_d_0.5\n2024-01-01T00:00:00Z,1.8446744073709552e19,1.02\n"
    );
}

/// Issue 18: `dec(S)` quantiles against an exact reference (scaled integers, rationals) over
/// random decimals, per bucket and for the whole window.
#[test]
fn dec_quantiles_are_exact() {
    let db = TestDb::create("1s", "d:dec(3)", &["--depth", "3"]);
    let mut rng = common::Rng(0x5eed);
    let mut rows: Vec<(i64, Option<i64>)> = Vec::new();
    let mut csv = String::from("time,d\n");
    for k in 0..2000 {
        let t = Y2021_S + k / 2;
        let v = (rng.below(7) != 0).then(|| rng.below(2_000_000) as i64 - 1_000_000);
        let text = v.map(|v| {
            format!(
                "{}{}.{:03}",
                if v < 0 { "-" } else { "" },
                v.abs() / 1000,
                v.abs() % 1000
            )
        });
        csv.push_str(&format!("{},{}\n", iso(t), text.unwrap_or_default()));
        rows.push((t, v));
    }
    let file = db.path.with_extension("csv");
    fs::write(&file, csv).unwrap();
    db.ok(&["import", file.to_str().unwrap()]);
    // q as a fraction num/den.
    let qs = [
        ("0.5", 1, 2),
        ("0.1", 1, 10),
        ("0.333", 333, 1000),
        ("0.99", 99, 100),
    ];
    let spec: Vec<String> = qs.iter().map(|(q, _, _)| format!("quantile(d,{q})")).collect();
    let exact = |values: &[i64], num: i128, den: i128| -> String {
        if values.is_empty() {
            return String::new();
        }
        let mut v = values.to_vec();
        v.sort();
        let pos = (v.len() as i128 - 1) * num;
        let (lo, rem) = ((pos / den) as usize, pos % den);
        let (a, b) = (i128::from(v[lo]), i128::from(v[(lo + 1).min(v.len() - 1)]));
        // a + (b − a)·rem/den, in units of 1/den of the last decimal; half away from zero.
        let scaled = a * den + (b - a) * rem;
        let mut r = scaled.abs() / den;
        if 2 * (scaled.abs() % den) >= den {
            r += 1;
        }
        let r = if scaled < 0 { -r } else { r };
        format!(
            "{}{}.{:03}",
            if r < 0 { "-" } else { "" },
            r.abs() / 1000,
            r.abs() % 1000
        )
    };
    for (every, every_s) in [("7s", 7i64), ("1m", 60), ("1h", 3600)] {
        let out = db.ok(&[
            "range",
            &iso(Y2021_S),
            &iso(Y2021_S + 1000),
            "--every",
            every,
            "--agg",
            &spec.join(","),
            "--time-format",
            "epoch-s",
        ]);
        let mut want = format!(
            "time,{}\n",
            qs.iter()
                .map(|(q, _, _)| format!("quantile_d_{q}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let mut b = Y2021_S.div_euclid(every_s) * every_s;
        while b < Y2021_S + 1000 {
            let values: Vec<i64> = rows
                .iter()
                .filter(|r| r.0 >= b && r.0 < b + every_s)
                .filter_map(|r| r.1)
                .collect();
            if rows.iter().any(|r| r.0 >= b && r.0 < b + every_s) {
                let cells: Vec<String> = qs.iter().map(|&(_, n, d)| exact(&values, n, d)).collect();
                want.push_str(&format!("{b},{}\n", cells.join(",")));
            }
            b += every_s;
        }
        assert_eq!(out, want, "--every {every}");
    }
}

/// Issue 18: with a series key, quantiles go per series (each series' values alone) unless
/// `--all-series` folds them together.
#[test]
fn quantiles_per_series_and_over_all_series() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("db");
    let file = tmp.path().join("t.csv");
    fs::write(
        &file,
        "time,sym,price\n\
         2024-01-01T00:00:01Z,A,10\n\
         2024-01-01T00:00:01Z,B,20\n\
         2024-01-01T00:00:02Z,A,12\n\
         2024-01-01T00:00:03Z,B,26\n\
         2024-01-01T00:00:04Z,A,13\n\
         2024-01-01T00:01:30Z,A,11\n",
    )
    .unwrap();
    let (code, _, err) = run({
        let mut c = common::xs();
        c.arg("-d")
            .arg(&path)
            .arg("import")
            .arg(&file)
            .args(["--series-by", "sym"]);
        c
    });
    assert_eq!(code, 0, "{err}");
    let ok = |extra: &[&str]| {
        let mut c = common::xs();
        c.arg("-d")
            .arg(&path)
            .args([
                "range",
                "2024-01-01",
                "2024-01-02",
                "--agg",
                "median(price),quantile(price,0.75)",
            ])
            .args(extra);
        let (code, out, err) = run(c);
        assert_eq!(code, 0, "{extra:?}: {err}");
        out
    };
    assert_eq!(
        ok(&["--every", "1m"]),
        "time,sym,median_price,quantile_price_0.75\n\
         2024-01-01T00:00:00Z,A,12.0,12.5\n\
         2024-01-01T00:01:00Z,A,11.0,11.0\n\
         2024-01-01T00:00:00Z,B,23.0,24.5\n"
    );
    // A: 10 11 12 13 → 11.5, 12.25; all: 10 11 12 13 20 26 → 12.5, 18.25.
    assert_eq!(
        ok(&[]),
        "time,sym,median_price,quantile_price_0.75\n\
         2024-01-01T00:00:00Z,A,11.5,12.25\n\
         2024-01-01T00:00:00Z,B,23.0,24.5\n"
    );
    assert_eq!(
        ok(&["--all-series"]),
        "time,median_price,quantile_price_0.75\n2024-01-01T00:00:00Z,12.5,18.25\n"
    );
}

/// Issue 18: a bad `median`/`quantile` says what is wrong and what would work.
#[test]
fn bad_quantile_specs_say_what_to_write() {
    let rows = fixture();
    let db = database(&rows[..10]);
    for (spec, says) in [
        (
            "quantile(price)",
            "quantile takes a column and a fraction q from 0 to 1: quantile(price,0.9)",
        ),
        ("quantile(price, 1.5)", "q `1.5` is not between 0 and 1"),
        ("quantile(price, x)", "q `x` is not a number"),
        ("quantile(price,-0.5)", "not between 0 and 1"),
        (
            "median(side)",
            "`side` is str(4), not a number; median needs a numeric column",
        ),
        ("quantile(side,0.5)", "quantile needs a numeric column"),
        ("median(volume)", "unknown column `volume`"),
        ("median(price,0.5)", "median takes one column"),
    ] {
        let (code, out, err) = run(db.xs(&["range", "2020-01-01", "2022-01-01", "--agg", spec]));
        assert_eq!(code, 2, "{spec}: {out}{err}");
        assert!(err.contains(says), "{spec}: {err}");
        common::assert_no_panic(&err);
    }
}

#[test]
fn f64_sums_give_the_same_digits_with_any_number_of_threads() {
    // Values whose sum depends on the order of addition (1e16 swallows a 0.1): a window cut
    // into slices by the thread count summed them in other groupings.
    let db = TestDb::create("1s", "v:f64", &[]);
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut csv = String::from("time,v\n");
    for i in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let scale = [1e16, -1e16, 1.0, 0.1, -2.5e15][(x % 5) as usize];
        let v = scale * ((x >> 11) as f64 / (1u64 << 53) as f64);
        csv.push_str(&format!("{},{v:?}\n", iso(Y2021_S + i)));
    }
    let file = db.path.with_extension("csv");
    fs::write(&file, csv).unwrap();
    db.ok(&["import", file.to_str().unwrap()]);
    let window = ["range", "2021-01-01", "2021-01-02"];
    for extra in [
        &["--agg", "sum(v),mean(v),stddev(v)"][..],
        &["--agg", "sum(v),mean(v),stddev(v)", "--every", "10m"][..],
    ] {
        let outputs: Vec<String> = [1, 2, 3, 5, 8]
            .iter()
            .map(|threads| {
                let out = db
                    .xs(&window)
                    .args(extra)
                    .env("RAYON_NUM_THREADS", threads.to_string())
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                String::from_utf8(out.stdout).unwrap()
            })
            .collect();
        assert!(
            outputs.iter().all(|o| *o == outputs[0]),
            "{extra:?}: {outputs:#?}"
        );
    }
}

/// Regression: with an `--every` so wide that the first epoch-aligned bucket starts before
/// 1678 (clamped to the earliest time), `--fill` stepped from the clamped start: buckets off the
/// epoch grid, one overlapping the next, or the data's bucket left out. Filled buckets are the
/// buckets without `--fill`, each once, in order.
#[test]
fn fill_with_a_bucket_wider_than_the_years_before_1678_keeps_the_epoch_grid() {
    let db = TestDb::create("1s", "temp:f64", &[]);
    let mut csv = String::from("time,temp\n");
    for k in 0..7200 {
        csv.push_str(&format!("{},{}\n", iso(1_735_689_600 + k), k % 50));
    }
    let file = db.path.with_extension("csv");
    fs::write(&file, csv).unwrap();
    db.ok(&["import", file.to_str().unwrap()]);
    let range = |every: &str, to: &str, fill: bool| {
        let mut args = vec!["range", "--every", every, "--agg", "count", "1678-01-01", to];
        if fill {
            args.push("--fill");
        }
        db.ok(&args)
    };
    // 50000 d: 1833-02-08 and 1696-03-17 are the buckets before 1970; the one before them
    // starts before 1678 and prints at the earliest time.
    assert_eq!(
        range("50000d", "2026-01-01", true),
        "time,count\n\
         1677-09-21T00:12:43Z,0\n\
         1696-03-17T00:00:00Z,0\n\
         1833-02-08T00:00:00Z,0\n\
         1970-01-01T00:00:00Z,7200\n"
    );
    assert_eq!(
        range("50000d", "2026-01-01", false),
        "time,count\n1970-01-01T00:00:00Z,7200\n"
    );
    // 100000 d: the bucket of 1970 was missing; it starts in the window, so it is filled.
    assert_eq!(
        range("100000d", "2024-03-01", true),
        "time,count\n\
         1677-09-21T00:12:43Z,0\n\
         1696-03-17T00:00:00Z,0\n\
         1970-01-01T00:00:00Z,0\n"
    );
    assert_eq!(
        range("100000d", "2026-01-01", true),
        "time,count\n\
         1677-09-21T00:12:43Z,0\n\
         1696-03-17T00:00:00Z,0\n\
         1970-01-01T00:00:00Z,7200\n"
    );
}

/// 3,000 rows from 2020-12-31T23:30Z, a few seconds apart, some sharing a second: two decimal
/// and two f64 columns, about one value in nine null, one NaN, and a text column.
fn mixed_csv() -> String {
    let mut rng = common::Rng(0x5EED_F01D);
    let mut csv = String::from("time,p,q,f,g,s\n");
    let mut t = Y2021_S - 1800;
    for _ in 0..3000 {
        t += (rng.below(7) as i64).max(u64::from(rng.below(4) == 0) as i64);
        let values = [
            format!("{}.{:02}", 100 + rng.below(50), rng.below(100)),
            format!("{}.{:03}", rng.below(20), rng.below(1000)),
            format!("{}", (rng.below(100_000) as f64) / 7.0),
            format!("{}", (rng.below(1000) as f64) / 3.0),
        ];
        // About one value in nine is null.
        let [p, q, f, g] = values.map(|v| if rng.below(9) == 0 { String::new() } else { v });
        let s = if rng.below(2) == 0 { "buy" } else { "sell" };
        csv.push_str(&format!("{},{p},{q},{f},{g},{s}\n", iso(t)));
    }
    // One NaN, which min, max, sum, mean, stddev and vwap must all carry.
    csv = csv.replacen(
        ",sell\n",
        ",sell\n2021-01-01T00:20:00Z,1.00,1.000,NaN,2,sell\n",
        1,
    );
    csv
}

/// A database of each `stores` (create arguments) holding `mixed_csv()`.
fn mixed_databases(stores: &[(&str, Vec<&str>)]) -> Vec<TestDb> {
    let csv = mixed_csv();
    stores
        .iter()
        .map(|(_, extra)| {
            let db = TestDb::create("1s", "p:dec(2),q:dec(3),f:f64,g:f64,s:str(4)", extra);
            let file = db.path.with_extension("csv");
            fs::write(&file, &csv).unwrap();
            db.ok(&["import", "-q", file.to_str().unwrap()]);
            db
        })
        .collect()
}

/// Every aggregate over each column of `mixed_csv()`, as one spec.
fn mixed_spec() -> String {
    let mut aggs = vec!["count".to_string(), "vwap(p,q)".into(), "vwap(f,g)".into()];
    for c in ["p", "q", "f", "g"] {
        for kind in ["first", "last", "min", "max", "sum", "mean", "stddev", "median"] {
            aggs.push(format!("{kind}({c})"));
        }
        aggs.push(format!("quantile({c},0.3)"));
    }
    aggs.join(",")
}

/// Columnar records fold as the columns they decode to, without rows being built: every
/// aggregate, with and without a filter, answers byte for byte as over the same rows stored
/// as raw records. Decimal and f64 columns (each with its own loop), nulls, NaN, several rows
/// at one time and storage buckets wider than the output buckets.
#[test]
fn columnar_records_aggregate_byte_for_byte_as_raw_records() {
    let stores = [
        (
            "raw",
            vec!["--layout", "bucket", "--bucket", "5m", "--codec", "raw"],
        ),
        (
            "columnar",
            vec!["--layout", "bucket", "--bucket", "5m", "--codec", "columnar"],
        ),
    ];
    let dbs = mixed_databases(&stores);
    let spec = mixed_spec();
    let (from, to) = (iso(Y2021_S - 3600), iso(Y2021_S + 7200));
    for every in ["1m", "7m", "1h", "1d"] {
        for filter in [None, Some("s=buy"), Some("p>120")] {
            let mut args = vec!["range", &from, &to, "--every", every, "--agg", &spec];
            if let Some(f) = filter {
                args.extend(["--where", f]);
            }
            let outputs: Vec<String> = dbs.iter().map(|db| db.ok(&args)).collect();
            assert!(
                outputs[0].lines().count() > 2,
                "rows in the window: {}",
                outputs[0]
            );
            for ((name, _), out) in stores.iter().zip(&outputs).skip(1) {
                assert_eq!(
                    out, &outputs[0],
                    "{name} records against raw ones, --every {every}, filter {filter:?}"
                );
            }
        }
    }
    // And one whole-window answer, where every storage bucket folds into one.
    let whole: Vec<String> = dbs
        .iter()
        .map(|db| db.ok(&["range", &from, &to, "--agg", &spec]))
        .collect();
    assert!(whole.iter().all(|w| w == &whole[0]), "{whole:?}");
}

/// Regression: over the same window, f64 aggregates printed other last digits on the grid
/// than on bucket records (`mean(g)` of the bucket of 23:27, its rows from 23:30:
/// 171.24019607843132 against 171.24019607843138). Time slices began where each layout found
/// data, so the bucket was summed in other parts; slice edges now lie on the window's grid.
#[test]
fn f64_aggregates_print_the_same_digits_on_every_layout() {
    let stores = [
        ("grid", vec!["--layout", "grid", "--depth", "4"]),
        (
            "raw",
            vec!["--layout", "bucket", "--bucket", "5m", "--codec", "raw"],
        ),
        (
            "columnar",
            vec!["--layout", "bucket", "--bucket", "5m", "--codec", "columnar"],
        ),
    ];
    let dbs = mixed_databases(&stores);
    let spec = "sum(f),mean(g),stddev(f),vwap(f,g),mean(p)";
    let to = iso(Y2021_S + 7200);
    // Windows that start before the data, at a bucket's start and inside a bucket.
    for from in [Y2021_S - 3600, Y2021_S - 1980, Y2021_S - 1700] {
        for every in ["7m", "13m", "1h"] {
            let from = iso(from);
            let args = ["range", &from, &to, "--every", every, "--agg", spec];
            let outputs: Vec<String> = dbs.iter().map(|db| db.ok(&args)).collect();
            for ((name, _), out) in stores.iter().zip(&outputs).skip(1) {
                assert_eq!(
                    out, &outputs[0],
                    "{name} against the grid, from {from}, --every {every}"
                );
            }
        }
    }
}

/// Columnar records of thousands of rows (time offsets in pages): an aggregate without a
/// filter decodes only the pages of offsets whose rows straddle an output bucket or the
/// window's edges, and must answer byte for byte as over raw records, for buckets narrower
/// and wider than a page, and for a window that cuts pages.
#[test]
fn paged_records_aggregate_as_raw_records_whatever_the_buckets() {
    let mut rng = common::Rng(0x000D_305E);
    let mut csv = String::from("time,p,q,f,g,s\n");
    let mut t_ms = Y2021_S * 1000;
    for _ in 0..40_000 {
        // About 50 rows a second, a few at one time.
        t_ms += rng.below(40) as i64 * i64::from(rng.below(8) != 0);
        let (p, q) = (100 + rng.below(50), rng.below(20));
        let f = (rng.below(100_000) as f64) / 7.0;
        let g = if rng.below(9) == 0 {
            String::new()
        } else {
            format!("{}", rng.below(1000))
        };
        let s = if rng.below(2) == 0 { "buy" } else { "sell" };
        let time = format!("{}.{:03}Z", &iso(t_ms / 1000)[..19], t_ms % 1000);
        csv.push_str(&format!("{time},{p}.{:02},{q}.5,{f},{g},{s}\n", rng.below(100)));
    }
    let dbs: Vec<TestDb> = ["raw", "columnar"]
        .iter()
        .map(|codec| {
            let db = TestDb::create(
                "1ms",
                "p:dec(2),q:dec(1),f:f64,g:f64,s:str(4)",
                &["--layout", "bucket", "--bucket", "1m", "--codec", codec],
            );
            let file = db.path.with_extension("csv");
            fs::write(&file, &csv).unwrap();
            db.ok(&["import", "-q", file.to_str().unwrap()]);
            db
        })
        .collect();
    let stat = dbs[1].ok(&["stat"]);
    assert!(stat.contains("columnar"), "{stat}");
    let spec = mixed_spec();
    let windows = [
        (iso(Y2021_S), iso(Y2021_S + 3600)),
        (
            format!("{}.137Z", &iso(Y2021_S + 95)[..19]),
            format!("{}.911Z", &iso(Y2021_S + 500)[..19]),
        ),
    ];
    for (from, to) in &windows {
        for every in [
            None,
            Some("250ms"),
            Some("1s"),
            Some("7s"),
            Some("30s"),
            Some("1m"),
            Some("5m"),
        ] {
            for filter in [None, Some("s=buy")] {
                let mut args = vec!["range", from.as_str(), to.as_str(), "--agg", &spec];
                if let Some(every) = every {
                    args.extend(["--every", every]);
                }
                if let Some(f) = filter {
                    args.extend(["--where", f]);
                }
                let raw = dbs[0].ok(&args);
                assert!(raw.lines().count() >= 2, "{args:?}: {raw}");
                assert_eq!(dbs[1].ok(&args), raw, "{args:?}");
            }
        }
    }
}
