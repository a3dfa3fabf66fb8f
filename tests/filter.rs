//! `--where` with several conditions (=, !=, <, <=, >, >=, in) on `range`, `export`, `get`,
//! `get --asof` and the aggregates, checked against a filter written here over randomized rows
//! (nulls, NaN, whole-number floats, text with spaces and commas, several rows per timestamp).

mod common;

use std::fs;

use common::{run, TestDb};

/// 2021-01-01T00:00:00Z in ms.
const T0_MS: i64 = 1_609_459_200_000;

#[derive(Clone, Debug)]
struct Row {
    t_ms: i64,
    id: i64,
    price: Option<f64>,
    qty: Option<f32>,
    n: Option<i32>,
    u: Option<u16>,
    side: Option<&'static str>,
    ok: Option<bool>,
}

/// A value as the reference filter compares it.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
enum V {
    I(i128),
    F(f64),
    S(String),
}

const SIDES: [&str; 5] = ["buy", "sell", "b s", "a,b", "zz'q"];
const COLUMNS: [&str; 7] = ["price", "qty", "n", "u", "side", "ok", "time"];

impl Row {
    fn value(&self, col: &str) -> Option<V> {
        match col {
            "price" => self.price.map(V::F),
            "qty" => self.qty.map(|q| V::F(f64::from(q))),
            "n" => self.n.map(|n| V::I(n.into())),
            "u" => self.u.map(|u| V::I(u.into())),
            "side" => self.side.map(|s| V::S(s.into())),
            "ok" => self.ok.map(|b| V::I(b.into())),
            "time" => Some(V::I(i128::from(self.t_ms) * 1_000_000)),
            _ => unreachable!("{col}"),
        }
    }
}

/// Small xorshift, so that a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Rows over about 20 minutes, in runs and gaps, up to 3 at one millisecond; whole-number
/// prices and NaN among them.
fn rows(rng: &mut Rng) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut t = T0_MS;
    for id in 0..1500 {
        t += match rng.below(10) {
            0 => 0,
            1..=7 => 1 + rng.below(400) as i64,
            _ => 1 + rng.below(20_000) as i64,
        };
        if rows.last().is_some_and(|r: &Row| r.t_ms == t) && rows.len() >= 3 {
            let n = rows.len();
            if rows[n - 3].t_ms == t {
                t += 1;
            }
        }
        // Prices drift with time, so storage buckets hold distinct ranges the summaries tell.
        let base = 50.0 + ((t - T0_MS) / 60_000) as f64;
        rows.push(Row {
            t_ms: t,
            id,
            price: match rng.below(12) {
                0 => None,
                1 => Some(f64::NAN),
                2..=5 => Some(base + rng.below(3) as f64),
                _ => Some(base + rng.below(400) as f64 / 100.0),
            },
            qty: (!rng.chance(10)).then(|| rng.below(9) as f32 * 0.5),
            n: (!rng.chance(10)).then(|| rng.below(11) as i32 - 5),
            u: (!rng.chance(10)).then(|| rng.below(11) as u16),
            side: (!rng.chance(10)).then(|| SIDES[rng.below(5) as usize]),
            ok: (!rng.chance(10)).then(|| rng.chance(50)),
        });
    }
    rows
}

fn iso_ms(t_ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(t_ms)
        .unwrap()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

fn database(rows: &[Row]) -> TestDb {
    let db = TestDb::create(
        "1ms",
        "id:i64,price:f64,qty:f32,n:i32,u:u16,side:str(6),ok:bool",
        &["--depth", "3"],
    );
    let mut csv = String::from("time,id,price,qty,n,u,side,ok\n");
    let opt = |v: Option<String>| v.unwrap_or_default();
    for r in rows {
        let side = r.side.map(|s| {
            if s.contains([',', '"']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        });
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            iso_ms(r.t_ms),
            r.id,
            opt(r
                .price
                .map(|p| if p.is_nan() { "NaN".into() } else { p.to_string() })),
            opt(r.qty.map(|q| q.to_string())),
            opt(r.n.map(|n| n.to_string())),
            opt(r.u.map(|u| u.to_string())),
            opt(side),
            opt(r.ok.map(|b| b.to_string())),
        ));
    }
    let file = db.path.with_extension("csv");
    fs::write(&file, csv).unwrap();
    db.ok(&["import", file.to_str().unwrap()]);
    db
}

/// One condition as the test means it.
#[derive(Clone, Debug)]
enum Cond {
    Null(&'static str, bool),
    Cmp(&'static str, &'static str, V),
    In(&'static str, Vec<V>),
}

impl Cond {
    fn holds(&self, r: &Row) -> bool {
        match self {
            Cond::Null(col, is_null) => r.value(col).is_none() == *is_null,
            Cond::Cmp(col, op, want) => {
                let Some(v) = r.value(col) else { return false };
                let ord = v.partial_cmp(want);
                match *op {
                    "=" => ord == Some(std::cmp::Ordering::Equal),
                    "!=" => ord != Some(std::cmp::Ordering::Equal),
                    "<" => ord == Some(std::cmp::Ordering::Less),
                    "<=" => matches!(ord, Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)),
                    ">" => ord == Some(std::cmp::Ordering::Greater),
                    ">=" => matches!(ord, Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)),
                    _ => unreachable!(),
                }
            }
            Cond::In(col, wants) => r.value(col).is_some_and(|v| wants.contains(&v)),
        }
    }

    fn text(&self, rng: &mut Rng) -> String {
        let sp = |rng: &mut Rng| if rng.chance(30) { " " } else { "" };
        match self {
            Cond::Null(col, true) => format!("{col}="),
            Cond::Null(col, false) => format!("{col}!="),
            Cond::Cmp(col, op, v) => format!("{col}{}{op}{}{}", sp(rng), sp(rng), lit(col, v)),
            Cond::In(col, vs) => {
                let items: Vec<String> = vs.iter().map(|v| lit(col, v)).collect();
                format!("{col} in ({})", items.join(", "))
            }
        }
    }
}

/// A value written as `--where` takes it: text quoted (a quote doubled), times as epoch ns.
fn lit(col: &str, v: &V) -> String {
    match v {
        V::I(x) if col == "time" => format!("{x}ns"),
        V::I(x) if col == "ok" => (*x == 1).to_string(),
        V::I(x) => x.to_string(),
        V::F(x) => format!("{x:?}"),
        V::S(s) => format!("'{}'", s.replace('\'', "''")),
    }
}

fn random_value(rng: &mut Rng, col: &'static str, rows: &[Row]) -> V {
    // Mostly values that occur, sometimes values between or beyond them.
    let r = &rows[rng.below(rows.len() as u64) as usize];
    match (col, r.value(col)) {
        ("price", Some(V::F(p))) if !p.is_nan() && rng.chance(70) => V::F(p),
        ("price", _) => V::F(49.0 + rng.below(3000) as f64 / 100.0),
        ("qty", _) => V::F(f64::from(rng.below(10) as f32 * 0.5 - 0.25 * rng.below(2) as f32)),
        ("n", _) => V::I(rng.below(13) as i128 - 6),
        ("u", _) => V::I(rng.below(12) as i128),
        ("side", Some(v)) if rng.chance(80) => v,
        ("side", _) => V::S(["b", "c", "sell", "zz"][rng.below(4) as usize].into()),
        ("ok", _) => V::I(rng.below(2) as i128),
        ("time", Some(V::I(t))) => V::I(t + rng.below(3) as i128 - 1),
        _ => V::I(0),
    }
}

fn random_cond(rng: &mut Rng, rows: &[Row]) -> Cond {
    let col = COLUMNS[rng.below(COLUMNS.len() as u64) as usize];
    match rng.below(20) {
        0 if col != "time" => Cond::Null(col, rng.chance(50)),
        1..=4 => Cond::In(
            col,
            (0..1 + rng.below(3))
                .map(|_| random_value(rng, col, rows))
                .collect(),
        ),
        _ => {
            let op = ["=", "!=", "<", "<=", ">", ">="][rng.below(6) as usize];
            Cond::Cmp(col, op, random_value(rng, col, rows))
        }
    }
}

/// `--where` arguments for `conds`: some repeated, some joined by `and`.
fn where_args(rng: &mut Rng, conds: &[Cond]) -> Vec<String> {
    let mut args = Vec::new();
    let mut i = 0;
    while i < conds.len() {
        let take = 1 + rng.below((conds.len() - i) as u64) as usize;
        let joined: Vec<String> = conds[i..i + take].iter().map(|c| c.text(rng)).collect();
        let and = if rng.chance(50) { " and " } else { " AND " };
        args.push("--where".into());
        args.push(joined.join(and));
        i += take;
    }
    args
}

fn ids(out: &str) -> Vec<i64> {
    out.lines().map(|l| l.parse().unwrap()).collect()
}

#[test]
fn random_filters_match_the_reference_on_every_read() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let rows = rows(&mut rng);
    let db = database(&rows);
    let (from_ms, to_ms) = (T0_MS, rows.last().unwrap().t_ms + 1);
    let (from, to) = (iso_ms(from_ms), iso_ms(to_ms));
    for round in 0..24 {
        let conds: Vec<Cond> = (0..1 + rng.below(3))
            .map(|_| random_cond(&mut rng, &rows))
            .collect();
        let filter = where_args(&mut rng, &conds);
        let passes = |r: &Row| conds.iter().all(|c| c.holds(r));
        let want: Vec<&Row> = rows.iter().filter(|r| passes(r)).collect();
        let want_ids: Vec<i64> = want.iter().map(|r| r.id).collect();
        let with = |base: &[&str]| -> Vec<String> {
            let mut a: Vec<String> = base.iter().map(|s| s.to_string()).collect();
            a.extend(filter.iter().cloned());
            a
        };
        let call = |args: Vec<String>| -> String {
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            db.ok(&refs)
        };
        let ctx = format!("round {round}: {filter:?}");

        // range and export: the rows that pass, in time order.
        let got = call(with(&["range", &from, &to, "--columns", "id", "--no-header"]));
        assert_eq!(ids(&got), want_ids, "range {ctx}");
        let got = call(with(&["export", "-o", "-", "--columns", "id", "--no-header"]));
        assert_eq!(ids(&got), want_ids, "export {ctx}");

        // Aggregates: one window, and 1 min buckets.
        let got = call(with(&[
            "range",
            &from,
            &to,
            "--agg",
            "count,sum(id),max(u)",
            "--no-header",
        ]));
        let count = want.len();
        let sum: i64 = want.iter().map(|r| r.id).sum();
        let max_u = want
            .iter()
            .filter_map(|r| r.u)
            .max()
            .map(|u| u.to_string())
            .unwrap_or_default();
        // No row passes: count 0 and the other aggregates empty, as for a window without rows.
        let want_fields = if count == 0 {
            vec!["0".to_string(), String::new(), String::new()]
        } else {
            vec![count.to_string(), sum.to_string(), max_u]
        };
        let line = got.lines().next().unwrap_or("");
        assert_eq!(
            line.split(',').skip(1).collect::<Vec<_>>(),
            want_fields,
            "agg {ctx}"
        );
        let got = call(with(&[
            "range",
            &from,
            &to,
            "--every",
            "1m",
            "--agg",
            "count",
            "--no-header",
        ]));
        let mut per_minute: Vec<(i64, usize)> = Vec::new();
        for r in &want {
            let m = r.t_ms.div_euclid(60_000) * 60_000;
            match per_minute.last_mut() {
                Some((at, n)) if *at == m => *n += 1,
                _ => per_minute.push((m, 1)),
            }
        }
        let want_lines: Vec<String> = per_minute
            .iter()
            .map(|(m, n)| {
                let t = chrono::DateTime::from_timestamp_millis(*m).unwrap();
                format!("{},{n}", t.format("%Y-%m-%dT%H:%M:%SZ"))
            })
            .collect();
        let got_lines: Vec<&str> = got.lines().collect();
        assert_eq!(got_lines, want_lines, "--every 1m {ctx}");

        // get at a few stored times, and get --asof at a few times.
        for _ in 0..3 {
            let r = &rows[rng.below(rows.len() as u64) as usize];
            let at = iso_ms(r.t_ms);
            let want_at: Vec<i64> = want.iter().filter(|w| w.t_ms == r.t_ms).map(|w| w.id).collect();
            let (code, out, err) = run(db.xs(&with(&["get", &at, "--columns", "id", "--no-header"])
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()));
            assert_eq!(
                code,
                if want_at.is_empty() { 1 } else { 0 },
                "get {at} {ctx}: {err}"
            );
            assert_eq!(ids(&out), want_at, "get {at} {ctx}");

            let t = r.t_ms + rng.below(5000) as i64;
            let hit = want.iter().filter(|w| w.t_ms <= t).map(|w| w.t_ms).max();
            let want_asof: Vec<i64> = want
                .iter()
                .filter(|w| Some(w.t_ms) == hit)
                .map(|w| w.id)
                .collect();
            let at = iso_ms(t);
            let args = with(&["get", "--asof", &at, "--columns", "id", "--no-header"]);
            let (code, out, err) = run(db.xs(&args.iter().map(String::as_str).collect::<Vec<_>>()));
            assert_eq!(
                code,
                if want_asof.is_empty() { 1 } else { 0 },
                "asof {at} {ctx}: {err}"
            );
            assert_eq!(ids(&out), want_asof, "asof {at} {ctx}");
        }
    }
}

#[test]
fn bad_conditions_are_usage_errors_that_say_what_to_write() {
    let mut rng = Rng(7);
    let rows = rows(&mut rng);
    let db = database(&rows[..50]);
    let cases: &[(&str, &str)] = &[
        ("nope>1", "unknown column `nope`"),
        (
            "price>cheap",
            "`cheap` is not a value of column `price` (f64): give a number",
        ),
        ("n>=1.5", "column `n` (i32): give a whole number"),
        ("ok=maybe", "column `ok` (bool): give true or false"),
        ("side", "no comparison found"),
        ("side in buy", "no comparison found"),
        ("price<", "nulls never compare"),
        ("side='buy", "not closed"),
        ("n=1 and ", "`and` needs a condition"),
        ("time>soon", "give a time"),
        ("u in ()", "`in` takes values"),
    ];
    for (cond, message) in cases {
        for cmd in [
            vec!["range", "2021-01-01", "2021-01-02", "--where", cond],
            vec![
                "range",
                "2021-01-01",
                "2021-01-02",
                "--agg",
                "count",
                "--where",
                cond,
            ],
            vec!["export", "-o", "-", "--where", cond],
            vec!["get", "2021-01-01", "--where", cond],
            vec!["get", "--asof", "2021-01-01", "--where", cond],
        ] {
            let (code, _, stderr) = run(db.xs(&cmd));
            assert_eq!(code, 2, "{cmd:?}: {stderr}");
            assert!(stderr.contains(message), "{cmd:?}: {stderr}");
            common::assert_no_panic(&stderr);
        }
    }
}

#[test]
fn header_text_names_and_the_old_equality_still_work() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("prices.csv");
    fs::write(
        &csv,
        "Date,Adj Close,Side\n2024-01-02,3.95,buy\n2024-01-03,4.5,sell\n2024-01-04,5,sell\n",
    )
    .unwrap();
    let db = tmp.path().join("db");
    let mut cmd = common::xs();
    cmd.args(["-d", db.to_str().unwrap(), "import"]).arg(&csv);
    cmd.assert().success();
    let q = |args: &[&str]| {
        let mut cmd = common::xs();
        cmd.arg("-d").arg(&db).args(args);
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let range = |w: &[&str]| {
        let mut a = vec![
            "range",
            "2024-01-01",
            "2024-02-01",
            "--columns",
            "Adj Close",
            "--no-header",
        ];
        for x in w {
            a.extend(["--where", x]);
        }
        q(&a)
    };
    assert_eq!(range(&["Adj Close=3.95"]), "3.95\n");
    assert_eq!(range(&["Side=sell", "Adj Close >= 4.5"]), "4.50\n5.00\n");
    assert_eq!(range(&["adj_close > 4 and Side = sell"]), "4.50\n5.00\n");
    assert_eq!(range(&["Date < 2024-01-03"]), "3.95\n");
}
