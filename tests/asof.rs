//! `xs get --asof`: the rows of the latest timestamp at or before a time, across holes of days,
//! missing and present partitions, bounded by `--within`; batch lookups from stdin.

mod common;

use std::fs;
use std::time::Instant;

use common::{run, TestDb};

/// A 1 ms database of depth 2 with rows far apart: 2019, then late 2020, then 2021 (the 2020
/// partition is mostly holes), filled by `xs import`.
fn database() -> TestDb {
    let db = TestDb::create("1ms", "price:f64,side:str(4)", &["--depth", "2"]);
    let csv = "time,price,side\n\
               2019-06-01T12:00:00.000Z,1,buy\n\
               2020-12-30T10:00:00.250Z,2,buy\n\
               2020-12-30T10:00:00.250Z,3,sell\n\
               2021-01-03T00:00:00.005Z,4,sell\n\
               2021-01-10T08:00:00.000Z,,buy\n";
    let file = db.path.with_extension("csv");
    fs::write(&file, csv).unwrap();
    db.ok(&["import", file.to_str().unwrap()]);
    db
}

fn asof(db: &TestDb, args: &[&str]) -> (i32, String) {
    let mut all = vec!["get", "--asof", "--no-header"];
    all.extend_from_slice(args);
    let (code, out, err) = run(db.xs(&all));
    common::assert_no_panic(&err);
    assert!(code == 0 || code == 1, "{all:?}: {code} {err}");
    (code, out)
}

#[test]
fn an_exact_hit_prints_every_row_at_that_time() {
    let db = database();
    let (code, out) = asof(&db, &["2020-12-30T10:00:00.250Z"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "2020-12-30T10:00:00.250Z,2.0,buy\n2020-12-30T10:00:00.250Z,3.0,sell\n"
    );
}

#[test]
fn the_search_goes_back_over_days_of_holes_and_the_year_boundary() {
    let db = database();
    // From 2021 back into 2020, over three days of holes.
    let (_, out) = asof(&db, &["2021-01-02T23:59:59.999Z"]);
    assert_eq!(
        out,
        "2020-12-30T10:00:00.250Z,2.0,buy\n2020-12-30T10:00:00.250Z,3.0,sell\n"
    );
    // One millisecond (and a fraction) later: the 2021 row.
    let (_, out) = asof(&db, &["2021-01-03T00:00:00.0059Z"]);
    assert_eq!(out, "2021-01-03T00:00:00.005Z,4.0,sell\n");
    // From mid-2020 back over half a year of holes, then into the 2019 partition.
    let (_, out) = asof(&db, &["2020-06-01"]);
    assert_eq!(out, "2019-06-01T12:00:00.000Z,1.0,buy\n");
    // Far in the future, with no partition at all: the last row.
    let (_, out) = asof(&db, &["2030-01-01"]);
    assert_eq!(out, "2021-01-10T08:00:00.000Z,,buy\n");
    // Before the first row: nothing, exit 1.
    let (code, out) = asof(&db, &["2019-06-01T11:59:59.999Z"]);
    assert_eq!((code, out.as_str()), (1, ""));
}

#[test]
fn within_bounds_the_look_back() {
    let db = database();
    let (code, out) = asof(&db, &["--within", "3d", "2021-01-02T09:00:00Z"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 2);
    let (code, out) = asof(&db, &["--within", "1d", "2021-01-02T12:00:00Z"]);
    assert_eq!((code, out.as_str()), (1, ""));
    // The bound is inclusive: exactly 5 ms back still finds the row.
    let (code, _) = asof(&db, &["--within", "5ms", "2021-01-03T00:00:00.010Z"]);
    assert_eq!(code, 0);
    let (code, _) = asof(&db, &["--within", "4ms", "2021-01-03T00:00:00.010Z"]);
    assert_eq!(code, 1);
    let (code, _, err) = run(db.xs(&["get", "--within", "1d", "2021-01-02"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--asof"), "{err}");
}

#[test]
fn times_from_stdin_are_joined_each_in_input_order() {
    let db = database();
    // A miss, a repeat and times out of order: one output row per input line, as given.
    let out = db
        .xs(&["get", "--asof", "--prefix", "q", "-"])
        .write_stdin("2021-01-05\n2020-12-31\n\n2019-01-01\n2021-01-04\n2021-01-05\n")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "time,q.time,q.price,q.side\n\
         2021-01-05,2021-01-03T00:00:00.005Z,4.0,sell\n\
         2020-12-31,2020-12-30T10:00:00.250Z,3.0,sell\n\
         2019-01-01,,,\n\
         2021-01-04,2021-01-03T00:00:00.005Z,4.0,sell\n\
         2021-01-05,2021-01-03T00:00:00.005Z,4.0,sell\n"
    );
}

#[test]
fn a_csv_is_joined_on_its_time_column_with_the_match_appended() {
    let db = database();
    let input = db.path.with_extension("trades.csv");
    // Bare epoch milliseconds (by their magnitude), a quoted field, a row too early to match.
    fs::write(
        &input,
        "id,note,time\n1,\"a, b\",1609322400250\n2,,1546300800000\n3,x,1610265600000\n",
    )
    .unwrap();
    let join = |file: &std::path::Path| {
        let file = file.to_str().unwrap();
        db.ok(&[
            "get",
            "--asof",
            "--join",
            file,
            "--prefix",
            "q",
            "--columns",
            "price,side",
            "--within",
            "7d",
        ])
    };
    let out = join(&input);
    assert_eq!(
        out,
        "id,note,time,q.price,q.side\n\
         1,\"a, b\",1609322400250,3.0,sell\n\
         2,,1546300800000,,\n\
         3,x,1610265600000,,buy\n"
    );
    // The same rows separated by `;` come out as the same CSV.
    let semi = db.path.with_extension("semi.csv");
    fs::write(
        &semi,
        "id;note;time\n1;a, b;1609322400250\n2;;1546300800000\n3;x;1610265600000\n",
    )
    .unwrap();
    let again = join(&semi);
    assert_eq!(again, out);
    // `--on` names the column; one that is not there is an error naming the columns.
    let (code, _, err) = run(db.xs(&["get", "--asof", "--join", input.to_str().unwrap(), "--on", "when"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no time column `when` among id,note,time"), "{err}");
}

#[test]
fn a_year_of_holes_costs_seeks_not_reads() {
    // 1 µs granularity: a day partition holds 86.4 G slots; a week back over holes, slot by
    // slot, would take hours.
    let db = TestDb::create("1us", "v:i64", &["--partition", "day"]);
    db.ok(&["put", "2021-01-01T00:00:00.000001Z", "v=1"]);
    db.ok(&["put", "2021-01-08T23:00:00Z", "v=2"]);
    let started = Instant::now();
    let (_, out) = asof(&db, &["2021-01-08T22:59:59.999999Z"]);
    assert_eq!(out, "2021-01-01T00:00:00.000001Z,1\n");
    assert!(started.elapsed().as_secs() < 10, "took {:?}", started.elapsed());
}

#[test]
fn random_lookups_match_a_brute_force_search() {
    // Bursts of rows over three days around the year boundary, with gaps of minutes to a day.
    let db = TestDb::create("1ms", "v:i64", &["--depth", "2"]);
    let start_ms: i64 = 1_609_459_200_000 - 36 * 3_600_000;
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut times = Vec::new();
    let mut t = start_ms;
    while times.len() < 2000 {
        let gap = match next() % 100 {
            0 => 86_400_000,
            1..=5 => 600_000,
            6..=30 => 5_000,
            _ => 1 + (next() % 300) as i64,
        };
        t += gap;
        times.push(t);
    }
    let mut csv = String::from("time,v\n");
    for (i, t) in times.iter().enumerate() {
        csv.push_str(&format!("{t},{i}\n"));
    }
    let file = db.path.with_extension("csv");
    fs::write(&file, csv).unwrap();
    db.ok(&["import", "--time-unit", "ms", file.to_str().unwrap()]);
    let queries: Vec<i64> = (0..400)
        .map(|_| start_ms - 1000 + (next() % (t - start_ms + 2000) as u64) as i64)
        .collect();
    for within in [None, Some(60_000i64)] {
        let mut want: Vec<i64> = queries
            .iter()
            .filter_map(|&q| {
                let hit = times.iter().copied().filter(|&t| t <= q).max()?;
                (within.is_none_or(|w| q - hit <= w)).then_some(hit)
            })
            .collect();
        want.sort_unstable();
        want.dedup();
        // Times as arguments: each timestamp found is printed once, in time order.
        let texts: Vec<String> = queries.iter().map(|q| format!("{q}ms")).collect();
        let mut args = vec![
            "get",
            "--asof",
            "--no-header",
            "--time-format",
            "epoch-ms",
            "--columns",
            "time",
        ];
        let w = within.map(|w| format!("{w}ms"));
        if let Some(w) = &w {
            args.extend(["--within", w]);
        }
        args.push("--");
        args.extend(texts.iter().map(String::as_str));
        let out = db.xs(&args).output().unwrap();
        let got: Vec<i64> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        assert_eq!(got, want, "within {within:?}");
        // The join: every query in order with its own match, by lookups (a few queries) and
        // by one merged scan (many).
        for n in [40, queries.len()] {
            let stdin: String = queries[..n].iter().map(|q| format!("{q}\n")).collect();
            let mut args = vec![
                "get",
                "--asof",
                "--join",
                "-",
                "--no-header",
                "--time-format",
                "epoch-ms",
            ];
            args.extend(["--columns", "time,v"]);
            if let Some(w) = &w {
                args.extend(["--within", w]);
            }
            let out = db.xs(&args).write_stdin(stdin).output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            let text = String::from_utf8(out.stdout).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), n);
            for (q, line) in queries.iter().zip(&lines) {
                let hit = times
                    .iter()
                    .rposition(|&t| t <= *q)
                    .filter(|&i| within.is_none_or(|w| q - times[i] <= w));
                let want = match hit {
                    Some(i) => format!("{q},{},{i}", times[i]),
                    None => format!("{q},,"),
                };
                assert_eq!(*line, want, "{n} queries, within {within:?}");
            }
        }
    }
}

#[test]
fn join_inputs_at_the_edges() {
    let db = database();
    let file = |name: &str, text: &str| {
        let path = db.path.with_extension(name);
        fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let join = |input: &str, extra: &[&str]| {
        let mut args = vec![
            "get",
            "--asof",
            "--join",
            input,
            "--prefix",
            "q",
            "--columns",
            "price",
        ];
        args.extend_from_slice(extra);
        run(db.xs(&args))
    };
    // A quoted header field holding `;` does not make `;` the delimiter; a row without a time
    // is printed without a match, and said.
    let quoted = file("quoted.csv", "time,\"a;b;c\"\n2021-01-05,x\n,y\n");
    let (code, out, err) = join(&quoted, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "time,a;b;c,q.price\n2021-01-05,x,4.0\n,y,\n");
    assert!(err.contains("1 input row(s) have no time"), "{err}");
    // A record wider than its header would misplace its match: refused, naming the record.
    let wide = file("wide.csv", "time,note\n2021-01-05,a,EXTRA\n");
    let (code, out, err) = join(&wide, &[]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains("record 2: 3 fields, but the header names 2"),
        "{err}"
    );
    // Options the join cannot honour are refused, not ignored.
    let (code, _, err) = join(&quoted, &["--limit", "1"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = join(&quoted, &["--series", "A"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("has no series key"), "{err}");
}

#[test]
fn a_bad_time_in_a_large_input_names_the_earliest_record() {
    let db = database();
    // 20,000 records, read in several pieces side by side: the message names the first bad
    // record in input order, whichever piece found it and whatever was wrong with it (a time
    // that does not parse, or an epoch number out of range in the unit given).
    let input = |bad_iso: usize, too_big: usize| {
        let mut text = String::from("time,note\n");
        for k in 0..20_000 {
            let time = match k {
                k if k == bad_iso => "2021-13-45T00:00:00Z".to_string(),
                k if k == too_big => "99999999999999999".to_string(),
                k => (1_609_459_200_000i64 + k as i64).to_string(),
            };
            text.push_str(&format!("{time},x{k}\n"));
        }
        let path = db.path.with_extension(format!("bad{bad_iso}.csv"));
        fs::write(&path, text).unwrap();
        path
    };
    for (bad_iso, too_big, named) in [(15_000, 12_000, "record 12002"), (9_000, 12_000, "record 9002")] {
        let path = input(bad_iso, too_big);
        let (code, out, err) = run(db.xs(&[
            "get",
            "--asof",
            "--join",
            path.to_str().unwrap(),
            "--time-unit",
            "ms",
        ]));
        common::assert_no_panic(&err);
        assert_eq!((code, out.as_str()), (2, ""), "{err}");
        assert!(
            err.contains(named) && err.contains("cannot read the time"),
            "{named}: {err}"
        );
    }
}
