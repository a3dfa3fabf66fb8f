//! `xs put` → `xs get`: every type round-trips; times at calendar edges; depth and append.

mod common;

use common::{layout, run, TestDb};

const ALL_TYPES: &str = "a:i8,b:i16,c:i32,d:i64,e:u8,f:u16,g:u32,h:u64,i:f32,j:f64,k:bool,s:str(8)";

fn all_types_db() -> TestDb {
    TestDb::create("1s", ALL_TYPES, &[])
}

fn get_body(db: &TestDb, t: &str) -> String {
    let out = db.ok(&["get", t]);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("time,a,b,c,d,e,f,g,h,i,j,k,s"));
    lines.collect::<Vec<_>>().join("\n")
}

#[test]
fn every_type_round_trips_at_its_limits() {
    let db = all_types_db();
    let cases = [
        (
            "2024-01-01T00:00:01Z",
            "-128 -32768 -2147483648 -9223372036854775808 0 0 0 0 -3.4028235e38 -1.7976931348623157e308 false é",
        ),
        (
            "2024-01-01T00:00:02Z",
            "127 32767 2147483647 9223372036854775807 255 65535 4294967295 18446744073709551615 3.4028235e38 1.7976931348623157e308 true 日本x",
        ),
        ("2024-01-01T00:00:03Z", "-1 -2 -3 -4 1 2 3 4 NaN NaN true a,b\"c"),
        ("2024-01-01T00:00:04Z", "0 0 0 0 0 0 0 0 inf -inf false z"),
        ("2024-01-01T00:00:05Z", "1 1 1 1 1 1 1 1 1e-45 5e-324 true 12345678"),
        ("2024-01-01T00:00:06Z", "0 0 0 0 0 0 0 0 0.1 0.1 false x"),
    ];
    for (t, values) in cases {
        let mut args = vec!["put", t];
        args.extend(values.split(' '));
        db.ok(&args);
    }
    let expect = [
        "-128,-32768,-2147483648,-9223372036854775808,0,0,0,0,-3.4028235e38,-1.7976931348623157e308,false,é",
        "127,32767,2147483647,9223372036854775807,255,65535,4294967295,18446744073709551615,3.4028235e38,1.7976931348623157e308,true,日本x",
        "-1,-2,-3,-4,1,2,3,4,NaN,NaN,true,\"a,b\"\"c\"",
        "0,0,0,0,0,0,0,0,inf,-inf,false,z",
        "1,1,1,1,1,1,1,1,1e-45,5e-324,true,12345678",
        "0,0,0,0,0,0,0,0,0.1,0.1,false,x",
    ];
    for ((t, _), want) in cases.iter().zip(expect) {
        let got = get_body(&db, t);
        let got = got.strip_prefix(&format!("{t},")).expect("time first");
        assert_same_fields(got, want);
    }
}

/// Compares CSV fields; the two float columns (8: f32, 9: f64) by value and bits, not text.
fn assert_same_fields(got: &str, want: &str) {
    let got: Vec<&str> = got.splitn(12, ',').collect();
    let want: Vec<&str> = want.splitn(12, ',').collect();
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        match i {
            8 => assert_eq!(
                g.parse::<f32>().unwrap().to_bits(),
                w.parse::<f32>().unwrap().to_bits(),
                "f32 {g} vs {w}"
            ),
            9 => assert_eq!(
                g.parse::<f64>().unwrap().to_bits(),
                w.parse::<f64>().unwrap().to_bits(),
                "f64 {g} vs {w}"
            ),
            _ => assert_eq!(g, w, "field {i}"),
        }
    }
}

#[test]
fn named_values_leave_the_rest_null_and_empty_values_are_null() {
    let db = all_types_db();
    db.ok(&["put", "2024-01-01T00:00:01Z", "j=2.5", "s=hé"]);
    assert_eq!(
        get_body(&db, "2024-01-01T00:00:01Z"),
        "2024-01-01T00:00:01Z,,,,,,,,,,2.5,,hé"
    );
    db.ok(&[
        "put",
        "2024-01-01T00:00:02Z",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
        "",
    ]);
    assert_eq!(
        get_body(&db, "2024-01-01T00:00:02Z"),
        "2024-01-01T00:00:02Z,,,,,,,,,,,,"
    );
}

#[test]
fn an_all_zero_row_is_a_row_not_a_hole() {
    let db = all_types_db();
    db.ok(&[
        "put",
        "2024-03-01T00:00:00Z",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "0",
        "false",
        "x",
    ]);
    db.ok(&["put", "2024-03-01T00:00:01Z", "a=0"]);
    assert_eq!(
        get_body(&db, "2024-03-01T00:00:00Z"),
        "2024-03-01T00:00:00Z,0,0,0,0,0,0,0,0,0.0,0.0,false,x"
    );
    assert_eq!(
        get_body(&db, "2024-03-01T00:00:01Z"),
        "2024-03-01T00:00:01Z,0,,,,,,,,,,,"
    );
}

#[test]
fn bad_values_are_refused_with_the_column_and_reason() {
    let db = all_types_db();
    let long = format!("s={}", "x".repeat(5000));
    let cases: [(&[&str], &str); 7] = [
        (
            &["s=123456789"],
            "column `s`: `123456789`: string too long: 9 bytes, the column holds 8 (it is never \
             cut); widen it: `xs alter --widen 's:str(9)'` for this database",
        ),
        // Past any str(N): no widening to offer, and the value shown by its start.
        (
            &[&long],
            "`xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…`: string too long: 5000 bytes, the column \
             holds 8 and no str(N) more than 4096; leave the column out",
        ),
        (&["s=ééééé"], "string too long: 10 bytes"),
        (&["a=128"], "column `a`: `128`: value out of range for i8"),
        (&["h=-1"], "value out of range for u64"),
        (&["c=1.5"], "not a valid i32"),
        (&["k=maybe"], "not a valid bool"),
    ];
    for (values, needle) in cases {
        let mut args = vec!["put", "2024-01-01T00:00:01Z"];
        args.extend_from_slice(values);
        let (code, _, stderr) = run(db.xs(&args));
        assert_eq!(code, 2, "{values:?}: {stderr}");
        assert!(stderr.contains(needle), "{values:?}: {stderr}");
    }
    let (code, _, stderr) = run(db.xs(&["put", "2024-01-01T00:00:01Z", "1", "2"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("expected 12 values (a,b,c,d,e,f,g,h,i,j,k,s), got 2"),
        "{stderr}"
    );
    let (code, _, stderr) = run(db.xs(&["put", "2024-01-01T00:00:01Z", "zz=1"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("unknown column names: zz=1"), "{stderr}");
    // One column twice: refused, not the last value taken.
    let (code, _, stderr) = run(db.xs(&["put", "2024-01-01T00:00:01Z", "a=1", "b=2", "a=2"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("column `a` is given twice"), "{stderr}");
    let (code, _, _) = run(db.xs(&["get", "2024-01-01T00:00:01Z"]));
    assert_eq!(code, 1, "nothing was stored by the refused puts");
}

#[test]
fn times_at_calendar_edges_land_in_the_right_files() {
    let db = TestDb::create("1ms", "v:i64", &[]);
    let times = [
        ("1969-12-31T23:59:59.999Z", "1969.xs"),
        ("1900-06-15T12:00:00.001Z", "1900.xs"),
        ("2024-02-29T23:59:59.999Z", "2024.xs"),
        ("2024-12-31T23:59:59.999Z", "2024.xs"),
        ("2025-01-01T00:00:00.000Z", "2025.xs"),
    ];
    for (i, (t, file)) in times.iter().enumerate() {
        db.ok(&["put", t, &i.to_string()]);
        assert!(db.file(file).exists(), "{t} → {file}");
    }
    for (i, (t, _)) in times.iter().enumerate() {
        assert_eq!(db.ok(&["get", t]), format!("time,v\n{t},{i}\n"));
    }
    // The same instants as epoch numbers with units.
    assert_eq!(
        db.ok(&["get", "--", "-1ms"]),
        "time,v\n1969-12-31T23:59:59.999Z,0\n"
    );
    assert_eq!(
        db.ok(&["get", "1735689600s"]),
        "time,v\n2025-01-01T00:00:00.000Z,4\n"
    );
    let all = db.ok(&["range", "1900-01-01", "2026-01-01"]);
    assert_eq!(all.lines().count(), 6, "{all}");
    assert!(
        all.lines().nth(1).unwrap().starts_with("1900-06-15"),
        "time order: {all}"
    );
}

#[test]
fn misaligned_and_out_of_range_times_are_refused() {
    let db = TestDb::create("1s", "v:i64", &[]);
    let (code, _, stderr) = run(db.xs(&["put", "2024-01-01T00:00:00.5Z", "1"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("not a multiple of the granularity 1s"),
        "{stderr}"
    );
    for t in [
        "9999-01-01",
        "1600-01-01",
        "2024-02-30",
        "yesterday",
        "1700000000",
    ] {
        let (code, _, stderr) = run(db.xs(&["put", t, "1"]));
        assert_eq!(code, 2, "{t}: {stderr}");
        assert!(stderr.contains(t), "{t}: {stderr}");
    }
}

#[test]
fn depth_holds_rows_in_insertion_order_and_refuses_one_too_many() {
    let db = TestDb::create("1ms", "px:f64,side:str(4)", &["--depth", "4"]);
    let t = "2024-08-08T23:54:15.342Z";
    db.ok(&["put", t, "1.5", "buy"]);
    for (px, side) in [("1.6", "sell"), ("1.7", "buy"), ("1.8", "sell")] {
        db.ok(&["put", "--append", t, px, side]);
    }
    let rows = db.ok(&["get", t]);
    assert_eq!(
        rows,
        format!("time,px,side\n{t},1.5,buy\n{t},1.6,sell\n{t},1.7,buy\n{t},1.8,sell\n")
    );
    let (code, _, stderr) = run(db.xs(&["put", "--append", t, "1.9", "buy"]));
    if layout() == "bucket" {
        // Depth does not limit the bucket layout.
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(db.ok(&["get", t]).lines().count(), 6);
    } else {
        assert_eq!(code, 2);
        assert!(
            stderr.contains("already holds 4 rows, the database depth"),
            "{stderr}"
        );
    }
    // A plain put replaces all rows at the timestamp.
    db.ok(&["put", t, "2.0", "sell"]);
    assert_eq!(db.ok(&["get", t]), format!("time,px,side\n{t},2.0,sell\n"));
}

#[test]
fn get_reads_a_batch_from_stdin_in_time_order_and_exits_1_when_nothing_is_found() {
    let db = TestDb::create("1s", "v:i64", &[]);
    db.ok(&["put", "2024-01-01T00:00:02Z", "2"]);
    db.ok(&["put", "2023-01-01T00:00:01Z", "1"]);
    let out = db
        .xs(&["get", "-"])
        .write_stdin("2024-01-01T00:00:02Z\n\n1672531201s\n2024-06-01T00:00:00Z\n")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "time,v\n2023-01-01T00:00:01Z,1\n2024-01-01T00:00:02Z,2\n"
    );
    let (code, stdout, stderr) = run(db.xs(&["get", "2024-06-01T00:00:00Z"]));
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (1, "time,v\n", ""));
    let mut bad = db.xs(&["get", "-"]);
    bad.write_stdin("2024-01-01T00:00:02Z\nnot a time\n");
    let (code, _, stderr) = run(bad);
    assert_eq!(code, 2);
    assert!(stderr.contains("stdin line 2"), "{stderr}");
}

/// Issue 18: `--append` after the values was read as a value ("unknown column names:
/// --append"); negative numbers and `-inf` among the values still are values.
#[test]
fn append_after_the_values_is_the_option_and_negative_values_stay_values() {
    let db = TestDb::create("1ms", "px:f64,side:str(4)", &["--depth", "4"]);
    let t = "2024-08-08T23:54:15.342Z";
    db.ok(&["put", t, "-1.5", "buy"]);
    db.ok(&["put", t, "-inf", "sell", "--append"]);
    db.ok(&["put", t, "px=-2", "side=buy", "--append"]);
    assert_eq!(
        db.ok(&["get", t]),
        format!("time,px,side\n{t},-1.5,buy\n{t},-inf,sell\n{t},-2.0,buy\n")
    );
    // `--wait` after the values was stored as the text of a value.
    let t = "2024-08-08T23:54:16.000Z";
    db.ok(&["put", t, "2.5", "", "--wait"]);
    db.ok(&["put", t, "px=3.5", "--wait", "--append"]);
    assert_eq!(db.ok(&["get", t]), format!("time,px,side\n{t},2.5,\n{t},3.5,\n"));
}
