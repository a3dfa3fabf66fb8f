//! One test per bug found, named after it; each failed on the code before its fix.

mod common;

use std::path::{Path, PathBuf};

use common::{run, TestDb};

/// Forty rows at four neighbouring seconds of a grid database whose slot (1000 × 9 bytes) spans
/// three 4 KiB blocks: each slot's rows fill its first block only, so the blocks between them
/// are holes, and a slot's rows sit in one data segment while its slot also overlaps the next.
fn split_slot_db() -> TestDb {
    let db = TestDb::create("1s", "v:i64", &["--depth", "1000", "--layout", "grid"]);
    let mut csv = String::from("time,v\n");
    for s in 0..4 {
        for k in 1..=10 {
            csv.push_str(&format!("2024-01-01T00:00:0{s}Z,{}\n", s * 100 + k));
        }
    }
    let input = db.path.with_file_name("dup.csv");
    std::fs::write(&input, csv).expect("write input");
    db.ok(&["import", input.to_str().expect("utf-8 path")]);
    db
}

/// A database that `xs import` created from `csv` with `options`, in its own temp directory
/// beside its input file `in.csv`.
struct Imported {
    _tmp: tempfile::TempDir,
    db: PathBuf,
    input: PathBuf,
    options: &'static [&'static str],
}

impl Imported {
    fn new(csv: &str, options: &'static [&'static str]) -> Imported {
        let tmp = tempfile::tempdir().unwrap();
        let input = tmp.path().join("in.csv");
        std::fs::write(&input, csv).unwrap();
        let db = tmp.path().join("db");
        let imported = Imported {
            _tmp: tmp,
            db,
            input,
            options,
        };
        assert_eq!(imported.import(None).0, 0);
        imported
    }

    /// The import again, with the fault `XS_FAULT` injects if any: (exit code, stdout, stderr).
    fn import(&self, fault: Option<&str>) -> (i32, String, String) {
        let mut cmd = common::xs();
        cmd.arg("-d").arg(&self.db).arg("import").arg(&self.input);
        cmd.args(self.options);
        if let Some(fault) = fault {
            cmd.env("XS_FAULT", fault);
        }
        run(cmd)
    }
}

/// Applies `tear` to the first stored byte after the 4 KiB header of the partition file
/// `part`: a write that stopped part way.
fn tear_first_row(part: &Path, tear: impl FnOnce(&mut u8)) {
    let mut bytes = std::fs::read(part).unwrap();
    let first = bytes
        .iter()
        .enumerate()
        .skip(4096)
        .find(|(_, &b)| b != 0)
        .map(|(i, _)| i)
        .unwrap();
    tear(&mut bytes[first]);
    std::fs::write(part, bytes).unwrap();
}

/// Issue 12: a slot that spans a hole was handed out once for each data segment it touches,
/// so `range` printed 70 rows of 40, and every reader built on the segment walk doubled too.
#[test]
fn grid_slot_spanning_a_hole_is_read_once() {
    let db = split_slot_db();
    let window = ["2024-01-01", "2024-01-02"];

    let rows = db.ok(&["range", window[0], window[1], "--no-header", "--columns", "v"]);
    let want: Vec<String> = (0..4)
        .flat_map(|s| (1..=10).map(move |k| (s * 100 + k).to_string()))
        .collect();
    assert_eq!(
        rows.lines().collect::<Vec<_>>(),
        want,
        "range, in time and input order"
    );

    let count = db.ok(&["range", window[0], window[1], "--agg", "count,sum(v)"]);
    assert_eq!(count, "time,count,sum_v\n2024-01-01T00:00:00Z,40,6220\n");

    let bars = db.ok(&["range", window[0], window[1], "--every", "1s", "--ohlcv", "v,v"]);
    assert_eq!(
        bars.lines().nth(1),
        Some("2024-01-01T00:00:00Z,1,10,1,10,55,10"),
        "first 1 s bar: {bars}"
    );
    assert_eq!(bars.lines().count(), 5, "a header and four bars: {bars}");

    let export = db.ok(&["export", "-o", "-", "--no-header"]);
    assert_eq!(export.lines().count(), 40, "export");

    let stat = db.ok(&["stat", "--json"]);
    let stat: serde_json::Value = serde_json::from_str(&stat).expect("stat --json");
    assert_eq!(stat["total"]["rows"], 40, "stat rows: {stat}");

    let (code, _, stderr) = run(db.xs(&["delete", window[0], window[1]]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("deleted 40 rows"),
        "delete counts each row once: {stderr}"
    );
    assert_eq!(db.ok(&["range", window[0], window[1], "--no-header"]), "");
}

/// Found by the model test: without `--every`, the one bucket of a window longer than 292
/// years (wider than i64 nanoseconds) was cut in two, so `--agg count` printed two rows.
#[test]
fn whole_window_aggregate_longer_than_i64_is_one_bucket() {
    let db = TestDb::create("1s", "v:i64", &[]);
    db.ok(&["put", "1700-01-01T00:00:00Z", "v=1"]);
    db.ok(&["put", "2200-01-01T00:00:00Z", "v=2"]);
    let out = db.ok(&["range", "1678-01-01", "2262-01-01", "--agg", "count,sum(v)"]);
    assert_eq!(out, "time,count,sum_v\n1678-01-01T00:00:00Z,2,3\n");
}

/// Found by the model test: an aggregate with a fine `--every` over a long, nearly empty
/// window cut it into one slice per 65,536 buckets and visited every slice (24 s for a day of
/// 1 µs buckets holding two rows, 8 s for a year of 1 ms slots); bucket scans and bucket defrag
/// likewise walked a sparse directory 65,536 entries at a time. They now jump over holes with
/// `SEEK_DATA`. The timeout only guards against a hang: these take milliseconds.
#[test]
fn fine_aggregates_over_sparse_windows_jump_over_holes() {
    let timeout = std::time::Duration::from_secs(60);
    let bucket = TestDb::create(
        "1us",
        "v:i64",
        &["--layout", "bucket", "--bucket", "1us", "--partition", "day"],
    );
    bucket.ok(&["put", "2024-03-01T00:00:00Z", "v=1"]);
    bucket.ok(&["put", "2024-03-01T23:59:59Z", "v=2"]);
    let out = bucket
        .xs(&[
            "range",
            "2024-03-01",
            "2024-03-02",
            "--every",
            "1us",
            "--agg",
            "count,sum(v)",
        ])
        .timeout(timeout)
        .output()
        .expect("xs runs");
    common::assert_success(&out, &["range --every 1us"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "time,count,sum_v\n2024-03-01T00:00:00.000000Z,1,1\n2024-03-01T23:59:59.000000Z,1,2\n"
    );
    let out = bucket
        .xs(&["range", "2024-03-01", "2024-03-02", "--no-header"])
        .timeout(timeout)
        .output()
        .expect("xs runs");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);

    let grid = TestDb::create("1ms", "v:i64", &["--layout", "grid"]);
    grid.ok(&["put", "2024-01-01T00:00:00Z", "v=1"]);
    grid.ok(&["put", "2024-12-31T00:00:00Z", "v=2"]);
    let out = grid
        .xs(&[
            "range",
            "2024-01-01",
            "2025-01-01",
            "--every",
            "1ms",
            "--agg",
            "count",
        ])
        .timeout(timeout)
        .output()
        .expect("xs runs");
    common::assert_success(&out, &["range --every 1ms"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "time,count\n2024-01-01T00:00:00.000Z,1\n2024-12-31T00:00:00.000Z,1\n"
    );
}

/// Found by the model test (seed 1819857473510393, series merged into rows): with an `--every`
/// so wide that the first bucket's start is clamped to 1677-09-21 (the start of the storable
/// range), the bucket was taken to end one width after the clamped start instead of at the
/// next bucket's start, so rows of the second bucket (1679-10-13 on) read in the same batch of
/// timed rows (several series merged) were counted in the first: here 2 rows in one bucket.
#[test]
fn a_clamped_first_bucket_ends_where_the_next_begins() {
    for layout in ["grid", "bucket"] {
        let db = TestDb::create("1d", "s:str(2),v:i64", &["--layout", layout, "--series-by", "s"]);
        db.ok(&["put", "1679-10-12T00:00:00Z", "a", "1"]);
        db.ok(&["put", "1679-10-14T00:00:00Z", "b", "2"]);
        let out = db.ok(&[
            "range",
            "1678-01-01",
            "1700-01-01",
            "--every",
            "1000d",
            "--agg",
            "count,sum(v)",
            "--all-series",
        ]);
        assert_eq!(
            out, "time,count,sum_v\n1677-09-21T00:12:43Z,1,1\n1679-10-13T00:00:00Z,1,2\n",
            "{layout}"
        );
    }
}

/// Found by the model test (seed 1732101103438835): a bucket directory entry that begins in
/// one 4 KiB block and ends in the next, with zeros for its last bytes (summaries of zero
/// values), left the next block allocated and all zero when no other entry was there; readers
/// took that block for an erased one and refused the partition as damaged (exit 6).
#[test]
fn an_entry_ending_in_zeros_at_a_block_edge_is_not_damage() {
    let db = TestDb::create(
        "1m",
        "id:i64,n:i64,c0:i8,c1:u8,c3:u64",
        &["--layout", "bucket", "--bucket", "2m"],
    );
    // One row per bucket, all zeros, in buckets whose entries cross the first block edges.
    for b in 0..120i64 {
        let t = 1_704_067_200 + b * 120;
        db.ok(&["put", &format!("{t}s"), "0", "0", "0", "0", "0"]);
    }
    let (code, _, err) = common::run(db.xs(&["check"]));
    assert_eq!(code, 0, "{err}");
    let out = db.ok(&["range", "2024-01-01", "2024-01-02", "--agg", "count"]);
    assert!(out.ends_with(",120\n"), "{out}");
}

/// Found by the fault-injection harness (tests/faults.rs): the unfinished-import marker was
/// truncated and then rewritten in place, so a full disk or a crash in between left an empty
/// or cut marker: `xs` then advised "complete it by running again: " with no command, and the
/// re-run it recorded could not be found. Now the marker is replaced whole (temp file, rename).
#[cfg(feature = "faults")]
#[test]
fn an_import_marker_is_never_left_empty_or_cut() {
    let imported = Imported::new(
        "time,v\n2024-03-01T00:00:00Z,1\n2024-03-01T00:00:01Z,2\n",
        &["--granularity", "1s", "--partition", "day"],
    );
    // The first writes and size changes of a second import fail in turn, and it crashes at
    // each of its first steps (the lock file and the marker come first); whenever a marker is
    // left, it holds the whole command.
    let mut faults = Vec::new();
    for n in 1..=4 {
        faults.extend([
            format!("write:{n}:short"),
            format!("write:{n}:ENOSPC"),
            format!("size:{n}:EIO"),
        ]);
    }
    faults.extend((1..=16).map(|n| format!("any:{n}:crash")));
    let mut silent = Vec::new();
    for fault in &faults {
        let (_, _, err) = imported.import(Some(fault));
        if !err.contains("xs-fault: injected") {
            silent.push(format!("{fault}: {}", err.lines().last().unwrap_or("")));
        }
        if let Ok(text) = std::fs::read_to_string(imported.db.join(".import-unfinished")) {
            assert!(
                text.contains(" import ") && text.contains("in.csv"),
                "{fault}: marker {text:?}"
            );
        }
        assert_eq!(imported.import(None).0, 0, "{fault}: the re-run");
        assert!(!imported.db.join(".import-unfinished").exists());
    }
    // 21 fire on a quiet machine (an import of two rows makes 3 writes, 1 resize and 14
    // operations in all); the faults that did not fire are named, with their last line.
    let fired = faults.len() - silent.len();
    assert!(fired >= 20, "{fired} faults fired; not: {silent:#?}");
}

/// Found by the fault-injection harness: a torn slot of a series database was reported as
/// damage to restore from a backup, though an import was unfinished and its re-run rewrites
/// the slot: the marker was looked for beside the series' file, not at the database's top.
#[test]
fn a_torn_series_slot_names_the_unfinished_import() {
    let imported = Imported::new(
        "time,sym,v\n2024-03-01T00:00:00Z,A,1\n2024-03-01T00:00:01Z,B,2\n",
        &[
            "--granularity",
            "1s",
            "--partition",
            "day",
            "--layout",
            "grid",
            "--series-by",
            "sym",
        ],
    );
    let db = &imported.db;
    // A torn write of an import that did not finish: one byte of A's row, and the marker.
    tear_first_row(&db.join("series/A/2024-03-01.xs"), |b| *b ^= 0x40);
    let rerun = format!("xs -d {} import {}", db.display(), imported.input.display());
    std::fs::write(db.join(".import-unfinished"), format!("{rerun}\n")).unwrap();
    let (code, _, err) = common::xs_in(
        &imported.db,
        &["range", "2024-03-01", "2024-03-02", "--series", "A"],
    );
    assert_eq!(code, 6, "{err}");
    assert!(err.contains("did not finish") && err.contains(&rerun), "{err}");
    assert!(!err.contains("restore the partition from a backup"), "{err}");
}

/// Found by the fault-injection harness: a delete clears a slot that crosses a 4 KiB block
/// edge with two writes, so a full disk or a crash between them leaves the slot torn; reads
/// and `xs check` then sent the user to a backup, though `.delete-unfinished` names the delete
/// whose re-run clears it.
#[test]
fn a_slot_torn_by_an_unfinished_delete_names_the_delete() {
    let imported = Imported::new(
        "time,v\n2024-03-01T00:00:00Z,1\n2024-03-01T00:00:01Z,2\n",
        &["--granularity", "1s", "--partition", "day", "--layout", "grid"],
    );
    let db = &imported.db;
    // The delete's first write zeroed part of the first slot; its second never came.
    tear_first_row(&db.join("2024-03-01.xs"), |b| *b = 0);
    let rerun = format!(
        "xs -d {} delete 2024-03-01T00:00:00Z 2024-03-01T00:00:01Z",
        db.display()
    );
    std::fs::write(db.join(".delete-unfinished"), format!("{rerun}\n")).unwrap();
    for args in [&["range", "2024-03-01", "2024-03-02"][..], &["check"]] {
        let (code, _, err) = common::xs_in(&imported.db, args);
        assert_eq!(code, 6, "{args:?}: {err}");
        assert!(
            err.contains("a delete") && err.contains(&rerun),
            "{args:?}: {err}"
        );
        assert!(!err.contains("from a backup"), "{args:?}: {err}");
    }
}

/// Issue 19: `defrag --min-extents 0` rewrote a bucket partition that was already compact into
/// the next generation of its data file, so a second run (or the re-run after a kill that came
/// just after the renames) changed every byte of the header and the directory. A compact
/// partition is now kept as it was unless the copy lies better on disk, as in the grid.
#[test]
fn a_second_bucket_defrag_changes_no_byte() {
    let db = TestDb::create("1ms", "v:i64", &["--layout", "bucket", "--bucket", "1s"]);
    // Two imports, the later seconds first, so the first defrag has buckets to put in order.
    for (name, seconds) in [("late.csv", [2, 3]), ("early.csv", [0, 1])] {
        let mut csv = String::from("time,v\n");
        for s in seconds {
            for k in 0..5 {
                csv.push_str(&format!("2024-01-01T00:00:0{s}.{k}Z,{}\n", s * 10 + k));
            }
        }
        let input = db.path.with_file_name(name);
        std::fs::write(&input, csv).expect("write input");
        db.ok(&["import", input.to_str().expect("utf-8 path")]);
    }
    let files = || -> Vec<(String, Vec<u8>)> {
        let mut names: Vec<_> = std::fs::read_dir(&db.path)
            .expect("read the database")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("2024"))
            .collect();
        names.sort();
        names
            .into_iter()
            .map(|n| {
                let bytes = std::fs::read(db.path.join(&n)).expect("read a partition file");
                (n, bytes)
            })
            .collect()
    };
    let first = db.ok(&["defrag", "--min-extents", "0"]);
    assert!(first.contains("defragmented"), "{first}");
    let after_first = files();
    let second = db.ok(&["defrag", "--min-extents", "0"]);
    assert!(second.contains("kept as it was"), "{second}");
    assert!(
        after_first == files(),
        "the second defrag changed the partition files"
    );
    let rows = db.ok(&[
        "range",
        "2024-01-01",
        "2024-01-02",
        "--no-header",
        "--columns",
        "v",
    ]);
    assert_eq!(rows.lines().count(), 20, "{rows}");
}

/// Issue 19, found by the fault harness's torn crashes (`import_new_bucket any:33:torn:5033`):
/// a power loss in the middle of a bucket import can leave a directory block allocated but all
/// zero. Readers rightly report it as damage, but the import's re-run read it too and stopped
/// with exit 6, so nothing could complete the import. The re-run of an unfinished import now
/// returns such blocks to holes first (they hold no entry; the ones the import had written
/// there, it writes again).
#[test]
fn a_zeroed_directory_block_does_not_stop_the_rerun_of_an_unfinished_import() {
    // Two summarized columns: 64-byte directory entries, 64 to a block, none across an edge.
    let mut csv = String::from("time,v,w\n");
    for i in 0..3000 {
        csv.push_str(&format!(
            "2024-03-01T{:02}:{:02}:{:02}Z,{i},{}\n",
            i / 3600,
            i / 60 % 60,
            i % 60,
            i * 2
        ));
    }
    let imported = Imported::new(
        &csv,
        &[
            "--layout",
            "bucket",
            "--bucket",
            "1s",
            "--granularity",
            "1s",
            "--partition",
            "day",
        ],
    );
    let clean = {
        let mut cmd = common::xs();
        cmd.arg("-d")
            .arg(&imported.db)
            .args(["range", "..", "--no-header"]);
        run(cmd).1
    };
    // The power loss: the import's marker is left, and a directory block it wrote is zero.
    let dir_file = imported.db.join("2024-03-01.xs");
    let f = std::fs::OpenOptions::new().write(true).open(&dir_file).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, &[0u8; 4096], 8192).unwrap();
    drop(f);
    let rerun = format!(
        "xs -d {} import {}\n",
        imported.db.display(),
        imported.input.display()
    );
    std::fs::write(imported.db.join(".import-unfinished"), rerun).unwrap();

    let mut cmd = common::xs();
    cmd.arg("-d")
        .arg(&imported.db)
        .args(["range", "..", "--no-header"]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 6, "a reader reports the damage: {err}");

    let (code, _, err) = imported.import(None);
    assert_eq!(code, 0, "the re-run completes the import: {err}");
    let mut cmd = common::xs();
    cmd.arg("-d")
        .arg(&imported.db)
        .args(["range", "..", "--no-header"]);
    assert_eq!(run(cmd).1, clean, "the re-run restores every row");
    let mut cmd = common::xs();
    cmd.arg("-d").arg(&imported.db).arg("check");
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
}

/// A daily series too sparse for its grid (a few tickers, some days) was told to take "a
/// coarser --granularity", but 1d is the coarsest there is: the advice is now the bucket layout
/// alone at 1d, and still the coarser granularity below it.
#[test]
fn the_sparse_grid_warning_at_1d_does_not_advise_a_coarser_granularity() {
    let tmp = tempfile::tempdir().unwrap();
    let daily = tmp.path().join("daily.csv");
    std::fs::write(&daily, "date,v\n2024-01-01,1\n2024-03-01,2\n2024-06-01,3\n").unwrap();
    let mut cmd = common::xs();
    cmd.current_dir(tmp.path())
        .args(["import", "daily.csv", "--granularity", "1d", "--layout", "grid"]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("xs: warning: this grid will take about"), "{err}");
    assert!(
        err.contains("1d is the coarsest granularity; --layout bucket stores each row"),
        "{err}"
    );
    assert!(!err.contains("A coarser --granularity"), "{err}");

    let hourly = tmp.path().join("hourly.csv");
    std::fs::write(
        &hourly,
        "time,v\n2024-01-01T00:00Z,1\n2024-03-01T05:00Z,2\n2024-06-01T07:00Z,3\n",
    )
    .unwrap();
    let mut cmd = common::xs();
    cmd.current_dir(tmp.path())
        .args(["import", "hourly.csv", "--granularity", "1h", "--layout", "grid"]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("A coarser --granularity with --floor-time"), "{err}");
}

/// `xs range FROM TO --series A` listed the partitions of every series before it applied
/// `--series` (to find the ends of an open window, even when both ends were given): on 30,000
/// hosts one host's 12 hours took 1.3 s instead of milliseconds. A read of one series must
/// touch only that series' files: here another series' directory holds a file that makes
/// opening it an error, and reads of the first series, open windows included, do not see it.
#[test]
fn a_read_of_one_series_does_not_open_the_others() {
    for layout in ["grid", "bucket"] {
        let tmp = tempfile::tempdir().unwrap();
        let input = tmp.path().join("in.csv");
        std::fs::write(
            &input,
            "time,sym,v\n2024-01-01T00:00:00Z,A,1\n2024-01-01T00:00:00Z,B,2\n2024-01-01T00:00:01Z,A,3\n",
        )
        .unwrap();
        let db = tmp.path().join("db");
        let mut cmd = common::xs();
        cmd.arg("-d").arg(&db).arg("import").arg(&input).args([
            "--series-by",
            "sym",
            "--granularity",
            "1s",
            "--layout",
            layout,
            "--partition",
            "year",
        ]);
        let (code, _, err) = run(cmd);
        assert_eq!(code, 0, "{err}");
        // A month partition's file in a year-partitioned series: opening series B fails.
        std::fs::write(db.join("series/B/2024-01.xs"), b"").unwrap();
        let (code, _, err) = common::xs_in(&db, &["range", "2024-01-01", "2024-01-02", "--series", "B"]);
        assert_eq!(code, 3, "series B is refused as damaged: {err}");

        for window in [
            &["2024-01-01", "2024-01-02"][..],
            &["2024-01-01"][..],
            &["..2024-01-02"][..],
        ] {
            let mut args = vec!["range"];
            args.extend_from_slice(window);
            args.extend_from_slice(&["--series", "A", "--columns", "time,v"]);
            let out = common::ok_in(&db, &args);
            assert_eq!(
                out, "time,v\n2024-01-01T00:00:00Z,1\n2024-01-01T00:00:01Z,3\n",
                "{layout} {window:?}"
            );
        }
        let out = common::ok_in(
            &db,
            &[
                "range",
                "2024-01-01",
                "2024-01-02",
                "--series",
                "A",
                "--every",
                "1d",
                "--agg",
                "count",
            ],
        );
        assert!(out.ends_with(",2\n"), "{layout}: {out}");
        common::ok_in(&db, &["get", "2024-01-01T00:00:01Z", "--series", "A"]);
        common::ok_in(&db, &["get", "--asof", "2024-01-01T00:00:05Z", "--series", "A"]);
    }
}

/// `--series` with a long list of values (here 100) read as one name first, to see whether
/// a series is named with its commas: that name is longer than any series' and the file
/// system refused to look it up, so the read failed with `File name too long`. A name past
/// the bound is no series: the values are read one by one, the missing ones named.
#[test]
fn a_long_list_of_series_values_is_read_value_by_value() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.csv");
    std::fs::write(
        &input,
        "time,host,v\n2024-01-01T00:00:00Z,host_1,1\n2024-01-01T00:00:00Z,host_2,2\n",
    )
    .unwrap();
    let db = tmp.path().join("db");
    let mut cmd = common::xs();
    cmd.arg("-d")
        .arg(&db)
        .arg("import")
        .arg(&input)
        .args(["--series-by", "host", "-q"]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    let list: Vec<String> = (0..100).map(|i| format!("host_{i}")).collect();
    let list = list.join(",");
    assert!(list.len() > 255, "longer than a file name may be");
    let (code, out, err) = common::xs_in(
        &db,
        &[
            "get",
            "2024-01-01T00:00:00Z",
            "--series",
            &list,
            "--columns",
            "host,v",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "host,v\nhost_1,1\nhost_2,2\n");
    assert!(!err.contains("too long"), "{err}");
    assert!(err.contains("holds no series `host_0`"), "{err}");
    // Put: a value that makes too long a name is refused with the bound, not an OS error.
    let long = "x".repeat(300);
    let (code, _, err) = common::xs_in(
        &db,
        &["put", "2024-01-01T00:00:01Z", &format!("host={long}"), "v=3"],
    );
    assert_ne!(code, 0);
    assert!(err.contains("past the 240 bytes a name may have"), "{err}");
}

/// `delete FROM TO` with FROM after TO said "deleted 0 rows" and exited 0, where `range` and
/// `export` refuse swapped bounds: it is a usage error too, and deletes nothing.
#[test]
fn a_delete_with_from_after_to_is_a_usage_error() {
    let db = TestDb::create("1s", "v:i64", &[]);
    db.ok(&["put", "2025-01-01T00:00:00Z", "1"]);
    let (code, stdout, stderr) = run(db.xs(&["delete", "2025-01-02", "2025-01-01"]));
    assert_eq!(code, 2, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(
        stderr.contains(
            "FROM (2025-01-02T00:00:00Z) is after TO (2025-01-01T00:00:00Z); give the window as FROM TO"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("deleted"), "{stderr}");
    assert!(!db.file(".delete-unfinished").exists());
    assert_eq!(
        db.ok(&["range", "2025-01-01", "2025-01-02", "--no-header"]),
        "2025-01-01T00:00:00Z,1\n"
    );
}
