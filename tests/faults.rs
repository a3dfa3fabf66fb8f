//! Fault injection (issue 19): the real `xs`, built with `--features faults`, runs an import, a
//! defrag, a delete, a put or an alter while its storage layer (src/db/vfs.rs, driven by `XS_FAULT`) fails one
//! chosen write, size change, allocation, fsync, rename, removal or creation — with an errno,
//! a short write, or a power loss that undoes what was not yet synced. Every operation of every
//! scenario gets faults. After each:
//! - no panic, no raw "os error" text;
//! - reading everything serves, at each timestamp, exactly the rows from before or from after
//!   the operation (never a torn row, never part of a timestamp), or fails with an error;
//! - the documented re-run (the command in the marker, else the same command) succeeds and
//!   leaves the rows of a clean run, a clean `xs check`, and (grid) the same bytes.
//!
//! Every `xs` here builds the new series of an import past the first two aside and puts them in
//! place at its end (`XS_IMPORT_DEFER_SYNC_AFTER=2`; 32 by default), so that a few series
//! exercise what 30,000 do.
//!
//! `XS_FAULTS_FULL=1` tries every fault kind at every operation (the default rotates the errno
//! kinds, and the two kinds of crash, over the operations); `XS_FAULTS_TORN_SEEDS=k` adds
//! k - 1 more torn crashes (other pages kept) at every operation; `XS_FAULTS_ONLY=<name>` runs one scenario.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// New series an import syncs one by one before it builds the others aside.
const DEFER_SYNC: (&str, &str) = ("XS_IMPORT_DEFER_SYNC_AFTER", "2");
/// Status of a process that "lost power" (src/db/vfs/fault.rs).
const CRASH_STATUS: i32 = 86;
const ALL: [&str; 2] = ["2000-01-01", "2100-01-01"];
const OPS: [&str; 7] = ["write", "size", "alloc", "sync", "rename", "remove", "create"];

fn xs_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_xs"))
}

fn xs(dir: &Path, args: &[String], fault: Option<&str>) -> (i32, String, String) {
    let mut cmd = Command::new(xs_bin());
    cmd.current_dir(dir)
        .args(args)
        .env_remove("XS_DB")
        .env_remove("XS_LAYOUT")
        .env(DEFER_SYNC.0, DEFER_SYNC.1);
    cmd.env_remove("XS_FAULT").env_remove("XS_FAULT_TRACE");
    if let Some(fault) = fault {
        cmd.env("XS_FAULT", fault);
    }
    let out = cmd.output().expect("xs runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// One operation to break, on a database prepared by `setup` (commands run in the work dir,
/// the database is `db`).
struct Scenario {
    name: &'static str,
    setup: Vec<Vec<&'static str>>,
    op: Vec<&'static str>,
    /// Whether a re-run promises the same bytes as a clean run (docs/IMPORT.md, grid).
    same_bytes: bool,
}

fn scenarios() -> Vec<Scenario> {
    let grid = ["--granularity", "1s", "--partition", "day", "--layout", "grid"];
    let bucket = [
        "--granularity",
        "1s",
        "--partition",
        "day",
        "--layout",
        "bucket",
        "--bucket",
        "1m",
    ];
    let trades = [
        "--granularity",
        "1ms",
        "--partition",
        "day",
        "--layout",
        "bucket",
        "--bucket",
        "1s",
        "--series-by",
        "symbol",
        "--unique-by",
        "trade_id",
    ];
    let trades_grid = [
        "--granularity",
        "100ms",
        "--partition",
        "day",
        "--layout",
        "grid",
        "--series-by",
        "symbol",
        "--unique-by",
        "trade_id",
    ];
    let with = |head: &[&'static str], tail: &[&'static str]| -> Vec<&'static str> {
        head.iter().chain(tail).copied().collect()
    };
    let import = |file: &'static str, flags: &[&'static str]| with(&["-d", "db", "import", file], flags);
    let delete = vec![
        "-d",
        "db",
        "delete",
        "2024-03-01T00:01:30Z",
        "2024-03-01T00:04:10Z",
    ];
    let defrag = vec!["-d", "db", "defrag", "--min-extents", "0"];
    // A slot of 3 × 17 bytes and its 4-byte check: the slot at 00:01:14 crosses a page edge.
    let unique_grid = with(&grid, &["--unique-by", "status", "--depth", "3"]);
    // Alter: each database made with `create` (the types known), then filled.
    let create =
        |columns: &'static str, flags: &[&'static str]| with(&["create", "db", "--columns", columns], flags);
    let alter_sensor = vec![
        "-d",
        "db",
        "alter",
        "--add",
        "note:str(4)",
        "--widen",
        "status:i16",
        "--rename",
        "temp=temperature",
    ];
    let alter_trades = vec![
        "-d",
        "db",
        "alter",
        "--widen",
        "symbol:str(16)",
        "--widen",
        "trade_id:i64",
        "--add",
        "fee:f64",
        "--rename",
        "qty=quantity",
    ];
    // Issue 15: both keys `sym`, so every new trade id appends to the symbol dictionary.
    let sym_columns = ["--columns", "symbol:sym,trade_id:sym,price:f64,qty:i64"];
    let trades_sym_grid = with(&trades_grid, &sym_columns);
    let trades_sym = with(&trades, &sym_columns);
    vec![
        Scenario {
            name: "alter_grid",
            setup: vec![
                create("temp:f64,status:u8", &grid),
                import("base.csv", &[]),
                import("over.csv", &[]),
            ],
            op: alter_sensor.clone(),
            same_bytes: true,
        },
        Scenario {
            name: "alter_bucket",
            setup: vec![
                create("temp:f64,status:u8", &bucket),
                import("bbase.csv", &[]),
                import("bover.csv", &[]),
            ],
            op: alter_sensor,
            same_bytes: true,
        },
        Scenario {
            name: "alter_series_unique",
            setup: vec![
                create("symbol:str(4),trade_id:u32,price:f64,qty:u8", &trades),
                import("tbase.csv", &[]),
            ],
            op: alter_trades.clone(),
            same_bytes: true,
        },
        Scenario {
            name: "alter_series_grid",
            setup: vec![
                create("symbol:str(4),trade_id:u32,price:f64,qty:u8", &trades_grid),
                import("tbase.csv", &[]),
            ],
            op: alter_trades,
            same_bytes: true,
        },
        Scenario {
            name: "import_sym_series_grid",
            setup: vec![import("tbase.csv", &trades_sym_grid)],
            op: import("tover.csv", &[]),
            same_bytes: true,
        },
        Scenario {
            name: "import_new_sym_series_bucket",
            setup: vec![],
            op: import("tbase.csv", &trades_sym),
            same_bytes: false,
        },
        Scenario {
            name: "put_unique_grid",
            setup: vec![import("base.csv", &unique_grid)],
            op: vec!["-d", "db", "put", "2024-03-01T00:01:14Z", "temp=1.5", "status=2"],
            same_bytes: true,
        },
        Scenario {
            name: "import_new_grid",
            setup: vec![],
            op: import("base.csv", &grid),
            same_bytes: true,
        },
        Scenario {
            name: "import_over_grid",
            setup: vec![import("base.csv", &grid)],
            op: import("over.csv", &[]),
            same_bytes: true,
        },
        Scenario {
            name: "import_new_bucket",
            setup: vec![],
            op: import("bbase.csv", &bucket),
            same_bytes: false,
        },
        Scenario {
            name: "import_over_bucket",
            setup: vec![import("bbase.csv", &bucket)],
            op: import("bover.csv", &[]),
            same_bytes: false,
        },
        Scenario {
            name: "import_series_unique",
            setup: vec![import("tbase.csv", &trades)],
            op: import("tover.csv", &[]),
            same_bytes: false,
        },
        Scenario {
            // Past the first two new series, an import builds each new one aside, with no
            // fsync of its own, and puts them in place at its end (`series/.NAME.new`).
            name: "import_many_new_series_bucket",
            setup: vec![import("tbase.csv", &trades)],
            op: import("tmany.csv", &[]),
            same_bytes: false,
        },
        Scenario {
            name: "import_many_new_series_grid",
            setup: vec![import("tbase.csv", &trades_grid)],
            op: import("tmany.csv", &[]),
            same_bytes: true,
        },
        Scenario {
            name: "import_series_grid",
            setup: vec![import("tbase.csv", &trades_grid)],
            op: import("tover.csv", &[]),
            same_bytes: true,
        },
        Scenario {
            name: "defrag_grid",
            setup: vec![import("base.csv", &grid), import("over.csv", &[])],
            op: defrag.clone(),
            same_bytes: false,
        },
        Scenario {
            name: "defrag_bucket",
            setup: vec![import("bbase.csv", &bucket), import("bover.csv", &[])],
            op: defrag.clone(),
            same_bytes: false,
        },
        Scenario {
            name: "defrag_series_unique",
            setup: vec![import("tbase.csv", &trades), import("tover.csv", &[])],
            op: defrag,
            same_bytes: false,
        },
        Scenario {
            name: "delete_grid",
            setup: vec![import("base.csv", &grid), import("over.csv", &[])],
            op: delete.clone(),
            same_bytes: false,
        },
        Scenario {
            name: "delete_bucket",
            setup: vec![import("bbase.csv", &bucket), import("bover.csv", &[])],
            op: delete.clone(),
            same_bytes: false,
        },
        Scenario {
            name: "delete_series_unique",
            setup: vec![import("tbase.csv", &trades)],
            op: vec![
                "-d",
                "db",
                "delete",
                "2024-03-01T00:00:03Z",
                "2024-03-01T00:00:09Z",
            ],
            same_bytes: false,
        },
    ]
}

/// Inputs: sensor rows (one per second; `b*` with two rows at every third second) and trades
/// of two symbols with unique ids; each `over` file overlaps the second half of its `base`.
fn write_inputs(dir: &Path) {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for (name, lo, hi, dup) in [
        ("base", 0, 240, false),
        ("over", 120, 360, false),
        ("bbase", 0, 240, true),
        ("bover", 120, 360, true),
    ] {
        let mut csv = String::from("time,temp,status\n");
        for i in lo..hi {
            for _ in 0..if dup && i % 3 == 0 { 2 } else { 1 } {
                let temp = (next() % 4000) as f64 / 100.0 - 10.0;
                writeln!(
                    csv,
                    "2024-03-01T00:{:02}:{:02}Z,{temp},{}",
                    i / 60,
                    i % 60,
                    next() % 6
                )
                .unwrap();
            }
        }
        std::fs::write(dir.join(format!("{name}.csv")), csv).unwrap();
    }
    for (name, lo, hi) in [("tbase", 0, 300), ("tover", 150, 450)] {
        let mut csv = String::from("time,symbol,trade_id,price,qty\n");
        for i in lo..hi {
            let symbol = if i % 2 == 0 { "BTC" } else { "ETH" };
            let price = 100.0 + (next() % 10000) as f64 / 100.0;
            // Both symbols at each 100 ms: a series' rows fill consecutive slots.
            let t = i / 2;
            writeln!(
                csv,
                "2024-03-01T00:00:{:02}.{:03}Z,{symbol},{i},{price},{}",
                t / 10,
                (t % 10) * 100,
                1 + next() % 9
            )
            .unwrap();
        }
        std::fs::write(dir.join(format!("{name}.csv")), csv).unwrap();
    }
    // Five new symbols and one stored, after the stored trades (a grid slot holds one row per
    // series): more new series than an import syncs one by one.
    let mut csv = String::from("time,symbol,trade_id,price,qty\n");
    for i in 0..24u32 {
        let symbol = match i % 6 {
            5 => "BTC".to_string(),
            k => format!("S{k:02}"),
        };
        let price = 100.0 + (next() % 10000) as f64 / 100.0;
        writeln!(
            csv,
            "2024-03-01T00:00:{:02}.{:03}Z,{symbol},{},{price},{}",
            30 + i / 10,
            (i % 10) * 100,
            5000 + i,
            1 + next() % 9
        )
        .unwrap();
    }
    std::fs::write(dir.join("tmany.csv"), csv).unwrap();
}

/// The rows of `range` output grouped by timestamp (the first field), each group sorted; in a
/// series database (`series`), by timestamp and series (the second field), since each series
/// is stored, and changes, on its own.
fn by_time(csv: &str, series: bool) -> BTreeMap<String, Vec<String>> {
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in csv.lines().skip(1) {
        let fields = if series { 2 } else { 1 };
        let time = line.split(',').take(fields).collect::<Vec<_>>().join(",");
        groups.entry(time).or_default().push(line.to_string());
    }
    for rows in groups.values_mut() {
        rows.sort();
    }
    groups
}

/// Everything in the database: rows grouped by time (series databases print one header and
/// rows of every series).
fn read_all(work: &Path) -> (i32, String, String) {
    xs(work, &strings(&["-d", "db", "range", ALL[0], ALL[1]]), None)
}

/// Every regular file under `dir` with its bytes, by relative path (the lock file aside).
fn files_of(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n != ".lock") {
                out.insert(
                    path.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    out
}

/// The operation counts `XS_FAULT=count` reports.
fn counts(stderr: &str) -> BTreeMap<String, u64> {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("xs-fault-count:"))
        .unwrap_or("");
    line.split_whitespace()
        .skip(1)
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.parse().unwrap()))
        .collect()
}

#[derive(Default)]
struct Tally {
    cases: u64,
    fired: u64,
    failed_cleanly: u64,
    read_refused: u64,
    reruns_from_marker: u64,
    bytes_differ: u64,
    problems: Vec<String>,
}

/// The faults tried at the `n`th operation of kind `op`.
fn faults_for(op: &str, n: u64, full: bool) -> Vec<String> {
    let mut kinds: Vec<&str> = vec!["EIO"];
    if matches!(op, "write" | "size" | "alloc" | "create") {
        kinds.push("ENOSPC");
    }
    if op == "write" {
        kinds.push("short");
    }
    if !full {
        kinds = vec![kinds[(n as usize) % kinds.len()]];
    }
    kinds.into_iter().map(|k| format!("{op}:{n}:{k}")).collect()
}

fn run_scenario(base: &Path, s: &Scenario, full: bool) -> Tally {
    let mut tally = Tally::default();
    let root = base.join(s.name);
    let seed_dir = root.join("seed");
    std::fs::create_dir_all(&seed_dir).unwrap();
    write_inputs(&seed_dir);
    for args in &s.setup {
        let (code, _, err) = xs(&seed_dir, &strings(args), None);
        assert_eq!(code, 0, "{}: setup {args:?}: {err}", s.name);
    }
    let op = strings(&s.op);
    let series = s.name.contains("series");
    let torn_seeds: u64 = std::env::var("XS_FAULTS_TORN_SEEDS").map_or(1, |v| v.parse().unwrap());
    // Before, after (clean), and the count of each kind of operation.
    let before_text = if seed_dir.join("db").exists() {
        read_all(&seed_dir).1
    } else {
        String::new()
    };
    let before = by_time(&before_text, series);
    // An alter changes every row at once: a read serves the whole database before or after.
    let whole = s.name.starts_with("alter");
    let clean = root.join("clean");
    common::sparse_copy(&seed_dir, &clean);
    let (code, _, err) = xs(&clean, &op, Some("count"));
    assert_eq!(code, 0, "{}: clean run: {err}", s.name);
    let counted = counts(&err);
    let (code, after_text, err) = read_all(&clean);
    assert_eq!(code, 0, "{}: clean read: {err}", s.name);
    let after = by_time(&after_text, series);
    let clean_files = files_of(&clean.join("db"));

    let mut faults = Vec::new();
    for op_name in OPS {
        for n in 1..=counted.get(op_name).copied().unwrap_or(0) {
            faults.extend(faults_for(op_name, n, full));
        }
    }
    for n in 1..=counted.get("any").copied().unwrap_or(0) {
        if full || n % 2 == 1 {
            faults.push(format!("any:{n}:crash"));
        }
        if full || n % 2 == 0 {
            faults.push(format!("any:{n}:torn"));
        }
        for seed in 1..torn_seeds {
            faults.push(format!("any:{n}:torn:{}", seed * 1000 + n));
        }
    }
    for (i, fault) in faults.iter().enumerate() {
        tally.cases += 1;
        let work = root.join(format!("case{i}"));
        common::sparse_copy(&seed_dir, &work);
        let mut problem = |what: String| tally.problems.push(format!("{} {fault}: {what}", s.name));
        let (code, _, err) = xs(&work, &op, Some(fault));
        if err.contains("xs-fault: injected") {
            tally.fired += 1;
        }
        if err.contains("panicked") || err.contains("os error") {
            problem(format!("the faulted run printed: {err}"));
        }
        if code != 0 && code != CRASH_STATUS {
            tally.failed_cleanly += 1;
        }
        // Reading now: each timestamp as before or as after, or an error.
        if work.join("db/xs.toml").exists() {
            let (code, out, err) = read_all(&work);
            if err.contains("panicked") || err.contains("os error") {
                problem(format!("the read printed: {err}"));
            }
            if code == 0 && whole && out != before_text && out != after_text {
                problem(format!(
                    "read served neither the old nor the new schema's rows:\n{out}"
                ));
            }
            if code == 0 {
                let now = by_time(&out, series);
                let times: std::collections::BTreeSet<&String> =
                    now.keys().chain(before.keys()).chain(after.keys()).collect();
                for t in times {
                    let (n, b, a) = (now.get(t), before.get(t), after.get(t));
                    if n != b && n != a {
                        problem(format!("read served {n:?} at {t}; before {b:?}, after {a:?}"));
                        break;
                    }
                }
            } else {
                tally.read_refused += 1;
                // While a marker names the command that repairs a torn write, the error says so
                // rather than send the user to a backup.
                let journaled = files_of(&work.join("db"))
                    .keys()
                    .any(|p| p.to_string_lossy().ends_with(".undo"));
                let marked = journaled
                    || ["db/.import-unfinished", "db/.delete-unfinished"]
                        .iter()
                        .any(|m| work.join(m).exists());
                if marked && err.contains("restore the partition from a backup") {
                    problem(format!("with a marker, the read advised a backup: {err}"));
                }
            }
        }
        // The documented re-run, then the clean result.
        let marker = ["db/.import-unfinished", "db/.delete-unfinished"]
            .iter()
            .find_map(|m| std::fs::read_to_string(work.join(m)).ok());
        let rerun = match &marker {
            Some(text) => {
                tally.reruns_from_marker += 1;
                if !text.contains("xs -d ") {
                    problem(format!("the marker holds no command: {text:?}"));
                }
                let path = format!(
                    "{}:{}",
                    xs_bin().parent().unwrap().display(),
                    std::env::var("PATH").unwrap_or_default()
                );
                let out = Command::new("sh")
                    .arg("-c")
                    .arg(text.trim())
                    .current_dir(&work)
                    .env("PATH", path)
                    .env(DEFER_SYNC.0, DEFER_SYNC.1)
                    .env_remove("XS_FAULT")
                    .env_remove("XS_LAYOUT")
                    .env_remove("XS_DB")
                    .output()
                    .unwrap();
                (
                    out.status.code().unwrap_or(-1),
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                )
            }
            None => {
                let (code, _, err) = xs(&work, &op, None);
                // An alter that committed before the fault is refused when run again ("`x`
                // is already …"); that run, a writer, finishes it.
                if whole && code == 2 && err.contains("is already") {
                    (0, err)
                } else {
                    (code, err)
                }
            }
        };
        if rerun.0 != 0 {
            problem(format!("the re-run failed ({}): {}", rerun.0, rerun.1));
            continue;
        }
        let (code, out, err) = read_all(&work);
        if code != 0 || by_time(&out, series) != after {
            problem(format!(
                "after the re-run the rows differ from a clean run (exit {code}): {err}"
            ));
        }
        let (code, _, err) = xs(&work, &strings(&["-d", "db", "check"]), None);
        if code != 0 {
            problem(format!("after the re-run `xs check` says ({code}): {err}"));
        }
        let left: Vec<_> = files_of(&work.join("db"))
            .into_keys()
            .filter(|p| {
                let text = p.to_string_lossy();
                // A series an import built aside and never put in place.
                let aside = p.components().any(|c| {
                    let c = c.as_os_str().to_string_lossy();
                    c.starts_with('.') && c.ends_with(".new")
                });
                text.contains(".xs-fault-backup") || text.ends_with("-unfinished") || aside
            })
            .collect();
        if !left.is_empty() {
            problem(format!("left behind: {left:?}"));
        }
        if files_of(&work.join("db")) != clean_files {
            tally.bytes_differ += 1;
            if s.same_bytes {
                problem("the files differ from a clean run's".to_string());
            }
        }
        let _ = std::fs::remove_dir_all(&work);
    }
    eprintln!(
        "{}: {} faults over {counted:?}: {} fired, {} failed with an error, {} reads refused, {} re-runs from a marker, {} re-runs not byte-identical",
        s.name, tally.cases, tally.fired, tally.failed_cleanly, tally.read_refused, tally.reruns_from_marker, tally.bytes_differ
    );
    tally
}

#[test]
fn every_operation_survives_every_fault() {
    let full = std::env::var_os("XS_FAULTS_FULL").is_some();
    let only = std::env::var("XS_FAULTS_ONLY").ok();
    let tmp = tempfile::tempdir().unwrap();
    let queue: Mutex<Vec<Scenario>> = Mutex::new(
        scenarios()
            .into_iter()
            .filter(|s| only.as_deref().is_none_or(|o| s.name.contains(o)))
            .collect(),
    );
    let results: Mutex<Vec<Tally>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let Some(s) = queue.lock().unwrap().pop() else {
                    break;
                };
                let tally = run_scenario(tmp.path(), &s, full);
                results.lock().unwrap().push(tally);
            });
        }
    });
    let results = results.into_inner().unwrap();
    let cases: u64 = results.iter().map(|t| t.cases).sum();
    let problems: Vec<&String> = results.iter().flat_map(|t| &t.problems).collect();
    for p in &problems {
        eprintln!("PROBLEM {p}");
    }
    eprintln!("{cases} faults injected, {} problems", problems.len());
    assert!(cases > 0);
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems
            .iter()
            .take(30)
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
