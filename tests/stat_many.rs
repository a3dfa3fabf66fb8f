//! `xs stat DB DB…` and `xs stat --recursive ROOT` (issue 18): a line per database and totals
//! that add up to what `xs stat` says of each database on its own.

mod common;

use std::path::{Path, PathBuf};

use common::{run, xs};
use serde_json::Value;

/// `xs import CSV` into a new database `dir` (created from the file); `extra` flags as given.
fn import(dir: &Path, csv: &str, extra: &[&str]) {
    let input = dir.with_extension("csv");
    std::fs::write(&input, csv).expect("write input");
    let (code, _, err) = run({
        let mut c = xs();
        c.arg("-d").arg(dir).arg("import").arg(&input).args(extra);
        c
    });
    assert!(code == 0 || code == 4, "import into {}: {err}", dir.display());
}

fn ticks(n: usize, symbol: bool) -> String {
    let mut csv = String::from(if symbol { "time,symbol,v\n" } else { "time,v\n" });
    for i in 0..n {
        let t = format!("2024-01-01T00:{:02}:{:02}Z", i / 60, i % 60);
        if symbol {
            csv.push_str(&format!("{t},{},{i}\n", if i % 2 == 0 { "AAA" } else { "BBB" }));
        } else {
            csv.push_str(&format!("{t},{i}\n"));
        }
    }
    csv
}

fn stat_json(args: &[&str]) -> (i32, Value, String) {
    let (code, out, err) = run({
        let mut c = xs();
        c.arg("stat").args(args).arg("--json");
        c
    });
    (code, serde_json::from_str(&out).unwrap_or(Value::Null), err)
}

/// The `total` of `xs -d DB stat --json`.
fn single_total(db: &Path) -> Value {
    let (code, report, err) = stat_json(&["-d", db.to_str().expect("utf-8 path")]);
    assert_eq!(code, 0, "{err}");
    report["total"].clone()
}

/// Three databases: a grid one, a bucket one with a rejects file, and a series one below a
/// subdirectory.
fn three_databases(root: &Path) -> [PathBuf; 3] {
    let grid = root.join("grid");
    import(&grid, &ticks(100, false), &["--layout", "grid"]);
    let bucket = root.join("bucket");
    // Two rows that cannot be stored: times that are not times.
    let mut csv = ticks(50, false);
    csv.push_str("yesterday,1\ntomorrow,2\n");
    import(&bucket, &csv, &["--layout", "bucket", "--max-rejects", "5"]);
    let series = root.join("deep/series");
    std::fs::create_dir_all(root.join("deep")).expect("mkdir");
    import(
        &series,
        &ticks(80, true),
        &["--series-by", "symbol", "--layout", "grid"],
    );
    [grid, bucket, series]
}

#[test]
fn several_databases_give_a_line_each_and_totals_that_add_up() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dbs = three_databases(tmp.path());
    let names: Vec<&str> = dbs.iter().map(|p| p.to_str().expect("utf-8 path")).collect();
    let (code, report, err) = stat_json(&names);
    assert_eq!(code, 0, "{err}");
    let listed = report["databases"].as_array().expect("databases");
    assert_eq!(listed.len(), 3, "{report}");
    let mut physical = 0;
    for (entry, db) in listed.iter().zip(&dbs) {
        let single = single_total(db);
        assert_eq!(entry["rows"], single["rows"], "{}", db.display());
        assert_eq!(
            entry["physical_bytes"],
            single["physical_bytes"],
            "{}",
            db.display()
        );
        assert_eq!(
            entry["logical_bytes"],
            single["logical_bytes"],
            "{}",
            db.display()
        );
        physical += single["physical_bytes"].as_u64().expect("physical bytes");
    }
    assert_eq!(listed[1]["rejects_rows"], 2, "{report}");
    assert_eq!(listed[2]["series"], 2, "{report}");
    let total = &report["total"];
    assert_eq!(total["databases"], 3);
    assert_eq!(total["rows"], 100 + 50 + 80);
    assert_eq!(total["physical_bytes"], physical);
    assert_eq!(total["rejects_files"], 1);
    assert_eq!(total["rejects_rows"], 2);

    let (code, table, err) = run({
        let mut c = xs();
        c.arg("stat").args(&names);
        c
    });
    assert_eq!(code, 0, "{err}");
    assert!(table.contains("total (3 databases)"), "{table}");
    assert!(table.contains("2 rows in 1 file"), "{table}");
    assert!(table.contains("grid (2 series)"), "{table}");
}

#[test]
fn recursive_finds_every_database_below_and_follows_no_symbolic_link() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("root");
    std::fs::create_dir(&root).expect("mkdir");
    three_databases(&root);
    // A database outside the root, linked in: not audited.
    let outside = tmp.path().join("outside");
    import(&outside, &ticks(10, false), &[]);
    std::os::unix::fs::symlink(&outside, root.join("link")).expect("symlink");
    let (code, report, err) = stat_json(&["--recursive", root.to_str().expect("utf-8 path")]);
    assert_eq!(code, 0, "{err}");
    let found: Vec<String> = report["databases"]
        .as_array()
        .expect("databases")
        .iter()
        .map(|d| {
            let path = PathBuf::from(d["database"].as_str().expect("a path"));
            path.strip_prefix(&root)
                .expect("below the root")
                .display()
                .to_string()
        })
        .collect();
    // In name order; the series database's own directories are part of it, not databases.
    assert_eq!(found, ["bucket", "deep/series", "grid"]);
    assert_eq!(report["total"]["rows"], 230);
}

#[test]
fn an_unreadable_database_is_marked_and_the_others_still_reported() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let [grid, bucket, _] = three_databases(tmp.path());
    std::fs::write(grid.join("xs.toml"), "not = [a config").expect("spoil the config");
    let (code, out, err) = run({
        let mut c = xs();
        c.arg("stat").arg("-r").arg(tmp.path());
        c
    });
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("1 of 3 databases could not be read"), "{err}");
    let line = |name: &Path| {
        out.lines()
            .find(|l| l.starts_with(name.to_str().expect("utf-8 path")))
            .unwrap_or_default()
            .to_string()
    };
    assert!(line(&grid).contains("unreadable"), "{out}");
    assert!(line(&bucket).contains(" 50 "), "{out}");
    assert!(out.contains("bad database config"), "{out}");
}

#[test]
fn partitions_named_beside_databases_are_a_usage_error() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let [grid, ..] = three_databases(tmp.path());
    let (code, _, err) = run({
        let mut c = xs();
        c.arg("stat").arg(&grid).arg("2024");
        c
    });
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("2024 named with databases"), "{err}");
    let (code, _, err) = run({
        let mut c = xs();
        c.args(["stat", "--recursive", "no/such/dir"]);
        c
    });
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a directory"), "{err}");
}
