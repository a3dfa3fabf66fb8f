//! The bucket layout's own behaviour: upserts into existing buckets, out-of-order imports,
//! delete, and defrag (same `range` output, garbage back to zero, buckets in time order,
//! an interrupted defrag finished by the next one).

mod common;

use common::{run, sparse_copy, TestDb};
use serde_json::Value;
use std::fs;

fn bucket_db() -> TestDb {
    TestDb::create(
        "1ms",
        "price:f64,side:str(4)",
        &["--layout", "bucket", "--bucket", "1s"],
    )
}

fn import(db: &TestDb, name: &str, text: &str) {
    let path = db.path.with_file_name(name);
    fs::write(&path, text).unwrap();
    db.ok(&["import", path.to_str().unwrap()]);
}

fn all(db: &TestDb) -> String {
    db.ok(&["range", "2020-01-01", "2030-01-01"])
}

fn stat(db: &TestDb) -> Value {
    serde_json::from_str(&db.ok(&["stat", "--json"])).expect("stat --json is JSON")
}

/// (garbage bytes, out-of-order buckets) summed over the partitions.
fn garbage_and_disorder(db: &TestDb) -> (u64, u64) {
    let s = stat(db);
    let mut out = (0, 0);
    for p in s["partitions"].as_array().unwrap() {
        out.0 += p["bucket"]["garbage_bytes"].as_u64().unwrap();
        out.1 += p["bucket"]["out_of_order_buckets"].as_u64().unwrap();
    }
    out
}

/// Rows of `seconds` × `per_second`, at irregular milliseconds, several sharing one.
fn ticks(seconds: std::ops::Range<u64>, tag: &str) -> String {
    let mut text = String::from("time,price,side\n");
    for s in seconds {
        for k in 0..5u64 {
            let ms = (s * 7919 + k * 211) % 1000;
            let ms = if k == 4 { (s * 7919) % 1000 } else { ms };
            text.push_str(&format!(
                "{},{}.{k},{tag}\n",
                1_704_067_200_000 + s * 1000 + ms,
                s
            ));
        }
    }
    text
}

#[test]
fn upserts_out_of_order_imports_delete_and_defrag_keep_range_output() {
    let db = bucket_db();
    // A later hour first, then an earlier one: buckets out of time order in the data file.
    import(&db, "late.csv", &ticks(3600..3700, "a"));
    import(&db, "early.csv", &ticks(0..100, "b"));
    let (garbage, disorder) = garbage_and_disorder(&db);
    assert_eq!(garbage, 0);
    assert!(disorder > 0, "buckets imported out of order are reported");
    // Upsert into existing buckets: timestamps in the input are replaced, the rest stay.
    let before_upsert = all(&db);
    import(
        &db,
        "fix.csv",
        "time,price,side\n1704067200000,9.5,fix\n1704067200000,9.6,fix\n1704070800500,8.5,fix\n",
    );
    let after_upsert = all(&db);
    assert!(after_upsert.contains("2024-01-01T00:00:00.000Z,9.5,fix\n2024-01-01T00:00:00.000Z,9.6,fix\n"));
    assert!(after_upsert.contains("2024-01-01T01:00:00.500Z,8.5,fix\n"));
    assert_eq!(
        after_upsert.lines().count(),
        before_upsert.lines().count() - before_upsert.matches("2024-01-01T00:00:00.000Z,").count() + 2
            - before_upsert.matches("2024-01-01T01:00:00.500Z,").count()
            + 1
    );
    // Re-running an import changes no byte.
    let data = db.file("2024.xs.data");
    let len = fs::metadata(&data).unwrap().len();
    import(
        &db,
        "fix.csv",
        "time,price,side\n1704067200000,9.5,fix\n1704067200000,9.6,fix\n1704070800500,8.5,fix\n",
    );
    assert_eq!(fs::metadata(&data).unwrap().len(), len);
    // Delete across bucket edges.
    db.ok(&["delete", "2024-01-01T00:00:10.500Z", "2024-01-01T00:00:20.250Z"]);
    let kept = all(&db);
    assert!(!kept.contains("2024-01-01T00:00:15."));
    let (garbage, _) = garbage_and_disorder(&db);
    assert!(garbage > 0, "rewritten buckets leave garbage");

    let said = db.ok(&["defrag"]);
    assert!(
        said.starts_with("2024: defragmented: ") && said.contains("; garbage ") && said.contains(" → 0 B"),
        "a bucket defrag says what garbage it removed: {said}"
    );
    assert!(!said.contains("summaries added"), "already version 2: {said}");
    assert_eq!(all(&db), kept, "defrag keeps every row");
    assert_eq!(garbage_and_disorder(&db), (0, 0));
    let said = db.ok(&["defrag"]);
    assert!(
        said.starts_with("2024: skipped, already compact (no garbage, buckets in time order, summaries, no fragmented extent): "),
        "{said}"
    );
    let s = stat(&db);
    let p = &s["partitions"][0];
    assert_eq!(
        p["bucket"]["live_bytes"].as_u64().unwrap() + 4096,
        fs::metadata(&data).unwrap().len(),
        "the data file holds only live records"
    );
    assert_eq!(p["rows"].as_u64().unwrap() + 1, kept.lines().count() as u64);
}

#[test]
fn any_number_of_rows_share_a_timestamp() {
    let db = bucket_db();
    let mut text = String::from("time,price,side\n");
    for i in 0..3000 {
        text.push_str(&format!("1704067200123,{i},x\n"));
    }
    import(&db, "same.csv", &text);
    let got = db.ok(&["get", "2024-01-01T00:00:00.123Z"]);
    assert_eq!(got.lines().count(), 3001);
    assert!(got.lines().nth(1).unwrap().ends_with(",0.0,x"));
    assert!(got.lines().last().unwrap().ends_with(",2999.0,x"));
}

#[test]
fn an_interrupted_defrag_is_refused_by_readers_and_finished_by_the_next_defrag() {
    let db = bucket_db();
    import(&db, "late.csv", &ticks(3600..3650, "a"));
    import(&db, "early.csv", &ticks(0..50, "b"));
    let expected = all(&db);
    // Defrag a copy, then give the original the copy's new data file and its new directory
    // under the pending name: the state after the first of defrag's two renames.
    let copy = db.path.with_file_name("copy");
    fs::create_dir(&copy).unwrap();
    for name in ["xs.toml", "2024.xs", "2024.xs.data"] {
        sparse_copy(&db.file(name), &copy.join(name));
    }
    let mut cmd = common::xs();
    cmd.arg("-d").arg(&copy).arg("defrag");
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    sparse_copy(&copy.join("2024.xs.data"), &db.file("2024.xs.data"));
    sparse_copy(&copy.join("2024.xs"), &db.file(".2024.xs.dir.defrag"));
    let (code, _, err) = run(db.xs(&["range", "2024-01-01", "2025-01-01"]));
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("defrag was interrupted") && err.contains("xs defrag"),
        "{err}"
    );
    db.ok(&["defrag"]);
    assert!(!db.file(".2024.xs.dir.defrag").exists());
    assert_eq!(all(&db), expected);
    assert_eq!(garbage_and_disorder(&db), (0, 0));
}

#[test]
fn a_grid_only_option_is_refused_clearly() {
    let (code, _, err) = {
        let tmp = tempfile::tempdir().unwrap();
        let mut cmd = common::xs();
        cmd.arg("create")
            .arg(tmp.path().join("x"))
            .args(["-g", "1ms", "-c", "v:i64", "--bucket", "1s"]);
        run(cmd)
    };
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--bucket needs --layout bucket"), "{err}");
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = common::xs();
    cmd.arg("create")
        .arg(tmp.path().join("y"))
        .args(["-g", "1ms", "-c", "v:i64", "--layout", "bucket", "--bucket", "7s"]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("does not divide one day"), "{err}");
}
