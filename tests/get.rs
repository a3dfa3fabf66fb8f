//! `xs get`: formats, projection, limit and the not-found exit status.

#[path = "readout_support/mod.rs"]
mod support;

use support::{create, ok, s, xs};

fn db() -> (tempfile::TempDir, std::path::PathBuf) {
    let (tmp, db) = create(
        "db",
        &["-g", "1s", "-c", "v:f64,flag:bool,name:str(6)", "--depth", "3"],
    );
    let d = s(&db);
    ok(&[
        "-d",
        d,
        "put",
        "2024-02-29T12:00:00Z",
        "v=2.5",
        "flag=true",
        "name=one",
    ]);
    ok(&[
        "-d",
        d,
        "put",
        "--append",
        "2024-02-29T12:00:00Z",
        "v=1e-7",
        "flag=false",
        "name=",
    ]);
    ok(&[
        "-d",
        d,
        "put",
        "1969-12-31T23:59:59Z",
        "v=-0.0",
        "flag=",
        "name=\"q\"",
    ]);
    (tmp, db)
}

#[test]
fn get_prints_every_row_at_each_time_as_csv() {
    let (_tmp, db) = db();
    let out = ok(&["-d", s(&db), "get", "2024-02-29T12:00:00Z", "--", "-1s"]);
    assert_eq!(
        out,
        "time,v,flag,name\n\
         1969-12-31T23:59:59Z,-0.0,,\"\"\"q\"\"\"\n\
         2024-02-29T12:00:00Z,2.5,true,one\n\
         2024-02-29T12:00:00Z,1e-7,false,\n"
    );
}

#[test]
fn get_speaks_ndjson_tsv_and_projects() {
    let (_tmp, db) = db();
    let out = ok(&[
        "-d",
        s(&db),
        "get",
        "-f",
        "ndjson",
        "--time-format",
        "epoch-s",
        "1709208000s",
    ]);
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["time"], 1_709_208_000i64);
    assert_eq!(rows[0]["v"], 2.5);
    assert_eq!(rows[0]["flag"], true);
    assert_eq!(rows[0]["name"], "one");
    assert_eq!(rows[1]["v"], 1e-7);
    assert!(rows[1]["name"].is_null());

    let out = ok(&[
        "-d",
        s(&db),
        "get",
        "-f",
        "tsv",
        "--columns",
        "name,v",
        "--limit",
        "1",
        "1709208000s",
    ]);
    assert_eq!(out, "name\tv\none\t2.5\n");
}

#[test]
fn nothing_found_exits_1_without_a_message() {
    let (_tmp, db) = db();
    let out = xs()
        .args(["-d", s(&db), "get", "--no-header", "2024-03-01T00:00:00Z"])
        .output()
        .expect("xs runs");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(out.stdout, b"");
    assert_eq!(out.stderr, b"");
}

#[test]
fn options_may_follow_the_timestamps() {
    let (_tmp, db) = db();
    let out = xs()
        .args(["-d", s(&db), "get", "2024-03-01T00:00:00Z", "--no-header"])
        .output()
        .expect("xs runs");
    assert_eq!(out.status.code(), Some(1), "parsed as an option, not a timestamp");
    assert_eq!(out.stderr, b"");
}
