//! `xs stat`: its figures checked against fstat, an independent SEEK_DATA walk and filefrag; the
//! JSON schema against docs/STAT.md; --fast, --bytes, partition arguments, the unfinished-import
//! marker and file systems without FIEMAP.

mod common;
mod stat_common;

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use stat_common::*;

/// Rows in 2020 and 2021, a deleted one, and a fragmented layout: every figure is checked.
#[test]
fn figures_match_fstat_seek_data_and_filefrag() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_db(tmp.path());
    let rows = put_rows_at_window_edges(&dir, 4);
    // One far-off row on its own, then deleted again: its block is punched out.
    put(&dir, Y2020_S + 300 * 86_400, 7);
    ok(xs(&dir).args(["delete", &format!("{}s", Y2020_S + 300 * 86_400)]));
    fragment(&[dir.join("2020.xs"), dir.join("2021.xs")]);

    let report = stat_json(&dir, &["--bytes"]);
    let mut total_physical = 0;
    let mut total_segments = 0;
    for (name, year_start) in [("2020", Y2020_S), ("2021", Y2021_S)] {
        let path = dir.join(format!("{name}.xs"));
        let p = partition(&report, name);
        let (size, physical, _) = fstat(&path);
        assert_eq!(u(&p["logical_bytes"]), size, "{name}: logical = st_size");
        assert_eq!(
            u(&p["physical_bytes"]),
            physical,
            "{name}: physical = st_blocks × 512"
        );
        let runs = seek_data_runs(&path);
        assert_eq!(
            u(&p["data_segments"]),
            runs.len() as u64,
            "{name}: segments = SEEK_DATA runs"
        );
        let data: u64 = runs.iter().map(|(a, b)| b - a).sum();
        assert_eq!(u(&p["data_bytes"]), data, "{name}: data bytes");
        let mine: Vec<&(i64, i64)> = rows
            .iter()
            .filter(|(t, _)| (year_start..year_start + 366 * 86_400).contains(t))
            .collect();
        assert_eq!(u(&p["rows"]), mine.len() as u64, "{name}: rows");
        assert_eq!(u(&p["row_bytes"]), mine.len() as u64 * ROW_LEN as u64);
        let fill = p["fill"].as_f64().unwrap();
        let want_fill = (mine.len() as f64 * ROW_LEN as f64) / physical as f64;
        assert!(
            (fill - want_fill).abs() < 1e-5,
            "{name}: fill {fill} vs {want_fill}"
        );
        let first = mine.iter().map(|r| r.0).min().unwrap();
        let last = mine.iter().map(|r| r.0).max().unwrap();
        assert_eq!(p["first_ns"].as_i64(), Some(first * 1_000_000_000));
        assert_eq!(p["last_ns"].as_i64(), Some(last * 1_000_000_000));
        let extents = u(&p["extents"]);
        assert_eq!(
            u(&p["fragmented_extents"]),
            extents.saturating_sub(runs.len() as u64)
        );
        match filefrag_extents(&path) {
            Some(theirs) => assert_eq!(extents, theirs, "{name}: extents vs filefrag -v"),
            None => eprintln!("note: filefrag not available; extents not cross-checked"),
        }
        if on_ext4_or_xfs(&path) {
            assert!(
                extents > runs.len() as u64,
                "{name}: the interleaved rewrite should leave more extents ({extents}) than data \
                 segments ({})",
                runs.len()
            );
        } else {
            eprintln!("note: not ext4/xfs; fragmentation not asserted");
        }
        total_physical += physical;
        total_segments += runs.len() as u64;
    }
    let total = &report["total"];
    assert_eq!(u(&total["partitions"]), 2);
    assert_eq!(u(&total["physical_bytes"]), total_physical);
    assert_eq!(u(&total["data_segments"]), total_segments);
    assert_eq!(u(&total["rows"]), rows.len() as u64);
    assert_eq!(report["rows_counted"], true);
    assert_eq!(report["unfinished_import"], Value::Null);
}

/// The keys of the JSON example in docs/STAT.md, per object: top level, partition, total.
fn documented_keys() -> (BTreeSet<String>, BTreeSet<String>, BTreeSet<String>) {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/STAT.md"))
        .expect("docs/STAT.md exists");
    let block = doc
        .split("```json")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/STAT.md has a ```json example");
    let example: Value = serde_json::from_str(block).expect("the example in docs/STAT.md is JSON");
    (
        keys(&example),
        keys(&example["partitions"][0]),
        keys(&example["total"]),
    )
}

fn keys(v: &Value) -> BTreeSet<String> {
    v.as_object().expect("an object").keys().cloned().collect()
}

#[test]
fn json_parses_and_matches_the_documented_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_db(tmp.path());
    put(&dir, Y2021_S + 10, 1);
    put(&dir, Y2021_S + 11, 2);
    let (top, part, total) = documented_keys();
    for extra in [&[][..], &["--fast"][..]] {
        let report = stat_json(&dir, extra);
        assert_eq!(keys(&report), top, "top-level keys");
        assert_eq!(keys(&report["partitions"][0]), part, "partition keys");
        assert_eq!(keys(&report["total"]), total, "total keys");
        assert_eq!(report["xs_stat_version"], 1);
    }
    let report = stat_json(&dir, &[]);
    let p = partition(&report, "2021");
    assert_eq!(p["file"], "2021.xs");
    assert_eq!(p["rows"], 2);
    assert_eq!(p["first_time"], "2021-01-01T00:00:10Z");
    assert_eq!(p["last_time"], "2021-01-01T00:00:11Z");
}

#[test]
fn fast_reads_no_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_db(tmp.path());
    put(&dir, Y2021_S, 1);
    let report = stat_json(&dir, &["--fast"]);
    let p = partition(&report, "2021");
    for key in [
        "rows",
        "row_bytes",
        "fill",
        "first_time",
        "last_time",
        "first_ns",
        "last_ns",
    ] {
        assert_eq!(p[key], Value::Null, "--fast leaves {key} null");
    }
    assert_eq!(report["rows_counted"], false);
    assert!(u(&p["physical_bytes"]) > 0);
    let table = ok(xs(&dir).args(["stat", "--fast"]));
    assert!(table.contains("rows: not counted (--fast)"), "{table}");
}

#[test]
fn table_is_aligned_with_units_and_exact_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_db(tmp.path());
    put(&dir, Y2020_S + 5, 1);
    put(&dir, Y2021_S + 5, 1);
    let table = ok(xs(&dir).arg("stat"));
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("partition"), "{table}");
    assert!(lines[1].starts_with("2020 ") && lines[2].starts_with("2021 ") && lines[3].starts_with("total"));
    // Right-aligned numeric columns end at the same place on every row: the header's
    // "physical" ends where each row's physical size ends.
    let end = lines[0].find("physical").unwrap() + "physical".len();
    for line in &lines[1..4] {
        assert!(line[..end].ends_with("KiB"), "physical column aligned: {line}");
    }
    assert!(lines[1].contains("MiB"), "logical size in MiB: {}", lines[1]);
    let exact = ok(xs(&dir).args(["stat", "--bytes", "2021"]));
    let (size, physical, _) = fstat(&dir.join("2021.xs"));
    let row: Vec<&str> = exact.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(row[0], "2021");
    assert_eq!(row[1], size.to_string());
    assert_eq!(row[2], physical.to_string());
    assert_eq!(exact.lines().count(), 3, "one partition and the total:\n{exact}");
}

#[test]
fn partition_arguments_select_and_unknown_ones_are_usage_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_db(tmp.path());
    put(&dir, Y2020_S, 1);
    put(&dir, Y2021_S, 1);
    let report = stat_json(&dir, &["2021.xs"]);
    assert_eq!(report["partitions"].as_array().unwrap().len(), 1);
    assert_eq!(report["total"]["partitions"], 1);
    let out = run(xs(&dir).args(["stat", "2019"]));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no partition `2019`") && err.contains("2020, 2021"),
        "stderr: {err}"
    );
}

#[test]
fn empty_database_and_unfinished_import_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = create_db(tmp.path());
    let table = ok(xs(&dir).arg("stat"));
    assert!(table.contains("no partitions yet"), "{table}");
    std::fs::write(dir.join(".import-unfinished"), "xs import trades.csv\n").unwrap();
    let report = stat_json(&dir, &[]);
    assert_eq!(report["unfinished_import"], "xs import trades.csv");
    assert_eq!(report["total"]["partitions"], 0);
    assert_eq!(report["total"]["rows"], 0);
    let out = run(xs(&dir).arg("stat"));
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("unfinished import") && stdout.contains("xs import trades.csv"),
        "{stdout}"
    );
}

/// tmpfs has no FIEMAP: stat says so and reports everything else.
#[test]
fn without_fiemap_extents_are_unknown_and_said_so() {
    let shm = Path::new("/dev/shm");
    let Ok(tmp) = tempfile::tempdir_in(shm) else {
        eprintln!("note: /dev/shm is not writable here; FIEMAP fallback not tested");
        return;
    };
    let dir = create_db(tmp.path());
    put(&dir, Y2021_S, 1);
    let report = stat_json(&dir, &[]);
    if report["fiemap_supported"] == true {
        eprintln!("note: /dev/shm supports FIEMAP here; fallback not tested");
        return;
    }
    let p = partition(&report, "2021");
    assert_eq!(p["extents"], Value::Null);
    assert_eq!(p["fragmented_extents"], Value::Null);
    assert_eq!(p["rows"], 1);
    assert!(u(&p["data_segments"]) >= 1);
    let table = ok(xs(&dir).arg("stat"));
    assert!(table.contains("does not support FIEMAP"), "{table}");
    let out = ok(xs(&dir).arg("defrag"));
    assert!(out.contains("extents unknown"), "{out}");
}

#[test]
fn rows_count_every_row_at_a_timestamp_with_depth() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ticks");
    ok(std::process::Command::new(env!("CARGO_BIN_EXE_xs"))
        .arg("create")
        .arg(&dir)
        .args(["--granularity", "1ms", "--columns", "price:f64", "--depth", "3"]));
    for (t, append) in [
        ("2024-08-08T10:00:00.001Z", false),
        ("2024-08-08T10:00:00.001Z", true),
    ] {
        let mut cmd = xs(&dir);
        cmd.arg("put");
        if append {
            cmd.arg("--append");
        }
        ok(cmd.args([t, "1.5"]));
    }
    put_ms(&dir, "2024-08-09T00:00:00Z");
    put_ms(&dir, "2024-08-07T23:59:59.999Z");
    let report = stat_json(&dir, &[]);
    let p = partition(&report, "2024");
    assert_eq!(p["rows"], 4);
    assert_eq!(p["row_bytes"], 4 * 9);
    assert_eq!(p["first_time"], "2024-08-07T23:59:59.999Z");
    assert_eq!(p["last_time"], "2024-08-09T00:00:00.000Z");
    assert_eq!(report["depth"], 3);
}

fn put_ms(dir: &Path, t: &str) {
    ok(xs(dir).args(["put", t, "2.5"]));
}

/// A 1 ms year partition is 265 GiB of holes around a few rows: counting rows must walk the
/// data segments only. Reading the holes would take minutes; the walk takes milliseconds.
#[test]
fn never_reads_holes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ms");
    ok(std::process::Command::new(env!("CARGO_BIN_EXE_xs"))
        .arg("create")
        .arg(&dir)
        .args(["--granularity", "1ms", "--columns", "price:f64"]));
    for t in [
        "2024-01-01T00:00:00Z",
        "2024-06-30T12:00:00.500Z",
        "2024-12-31T23:59:59.999Z",
    ] {
        put_ms(&dir, t);
    }
    let start = std::time::Instant::now();
    let report = stat_json(&dir, &[]);
    let took = start.elapsed();
    let p = partition(&report, "2024");
    assert!(u(&p["logical_bytes"]) > 250 << 30, "a sparse 1 ms year");
    assert_eq!(p["rows"], 3);
    assert_eq!(p["data_segments"], 3);
    assert!(took.as_secs() < 10, "stat took {took:?}: it must not read holes");
}
