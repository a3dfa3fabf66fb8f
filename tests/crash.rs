//! Crashes (issue 19): `kill -9` at random moments of an import, a defrag and a delete, on
//! both layouts, with and without a series key and a unique key. Before the re-run a read
//! serves no torn or damaged row with exit 0; after it the database equals a clean run
//! (`range` of everything identical, and for imports the partition files byte for byte).
//!
//! `XS_CRASH_LOOPS=N` sets the kills per layout, operation and database (default 3, so the
//! suite stays fast); the counts are printed (`cargo test --test crash -- --nocapture`).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{run, xs};

const DAMAGED: i32 = 6;

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("xs")
}

/// `xs -d DIR ARGS…` → (exit code, stdout, stderr).
fn xs_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd = xs();
    cmd.arg("-d").arg(dir).args(args);
    run(cmd)
}

fn ok_in(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = xs_in(dir, args);
    assert_eq!(code, 0, "xs -d {} {args:?}: {out}\n{err}", dir.display());
    common::assert_no_panic(&err);
    out
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Every partition file of a database (series directories included), path relative to it →
/// bytes.
fn partition_files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in fs::read_dir(dir).expect("read the database directory") {
            let path = entry.expect("a directory entry").path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_string();
            if path.is_dir() {
                walk(root, &path, out);
            } else if !name.starts_with('.') && (name.ends_with(".xs") || name.ends_with(".xs.data")) {
                let rel = path.strip_prefix(root).expect("under the root").to_path_buf();
                out.insert(rel, fs::read(&path).expect("read a partition file"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The names of the files that differ between two databases' partition files.
fn differing(a: &BTreeMap<PathBuf, Vec<u8>>, b: &BTreeMap<PathBuf, Vec<u8>>) -> Vec<String> {
    let names: BTreeSet<&PathBuf> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter(|n| a.get(*n) != b.get(*n))
        .map(|n| {
            let len = |m: &BTreeMap<PathBuf, Vec<u8>>| m.get(n).map(Vec::len);
            format!("{} ({:?} vs {:?} bytes)", n.display(), len(a), len(b))
        })
        .collect()
}

/// Ticks: `n` rows over `seconds` seconds of 2024-01-01 at 1 ms granularity, several rows
/// per millisecond, two symbols, an id unique per symbol. `shift` moves the values (a second
/// import of the same keys with other values).
fn ticks(n: usize, seconds: u64, shift: i64) -> String {
    let mut csv = String::from("time,sym,id,price,qty\n");
    for i in 0..n {
        // Three rows share each millisecond.
        let ms = (i / 3) as u64 * seconds * 1000 / (n as u64 / 3 + 1);
        let sym = if i % 2 == 0 { "AAA" } else { "BBB" };
        csv.push_str(&format!(
            "2024-01-01T{:02}:{:02}:{:02}.{:03}Z,{sym},{i},{}.{:02},{}\n",
            ms / 3_600_000,
            ms / 60_000 % 60,
            ms / 1000 % 60,
            ms % 1000,
            100 + (i as i64 * 7 + shift) % 50,
            (i as i64 + shift).rem_euclid(100),
            i % 13 + 1
        ));
    }
    csv
}

/// Creates a database: `keyed` with a series key (`sym`) and a unique key (`id`).
fn create(dir: &Path, layout: &str, keyed: bool) {
    let mut args = vec![
        "create",
        s(dir),
        "--granularity",
        "1ms",
        "--columns",
        "sym:str(4),id:i64,price:f64,qty:i64",
        "--layout",
        layout,
        "--partition",
        "day",
    ];
    if layout == "bucket" {
        args.extend(["--bucket", "100ms"]);
    } else {
        args.extend(["--depth", "8"]);
    }
    if keyed {
        args.extend(["--series-by", "sym", "--unique-by", "id"]);
    }
    let mut cmd = xs();
    cmd.args(&args);
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{args:?}: {out}\n{err}");
}

const ALL: [&str; 2] = ["2024-01-01", "2024-01-03"];

/// `range` of everything: (exit code, rows, stderr).
fn range_all(dir: &Path) -> (i32, String, String) {
    xs_in(dir, &["range", ALL[0], ALL[1]])
}

/// Small chunks, so that the import runs in many batches and a timestamp's rows straddle
/// batch boundaries.
const CHUNK: &str = "--chunk-bytes=2048";

/// Issue 19: each re-run of a bucket import appended records and rewrote the buckets whose
/// rows straddled a batch boundary, so the files differed from the clean import's (rows
/// identical).
#[test]
fn a_rerun_of_a_bucket_import_whose_batches_split_timestamps_changes_no_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let input = ticks(20_000, 60, 0);
    // From stdin: a file this small would be read whole into its first chunk (the sample).
    let import = |dir: &Path| {
        let mut cmd = xs();
        cmd.arg("-d")
            .arg(dir)
            .args(["import", CHUNK, "-"])
            .write_stdin(input.clone());
        let (code, out, err) = run(cmd);
        assert_eq!(code, 0, "{out}\n{err}");
    };
    for keyed in [false, true] {
        let dir = tmp.path().join(format!("db-{keyed}"));
        create(&dir, "bucket", keyed);
        import(&dir);
        let clean = partition_files(&dir);
        let rows = ok_in(&dir, &["range", ALL[0], ALL[1]]);
        assert_eq!(rows.lines().count(), 20_001, "keyed {keyed}");
        import(&dir);
        assert_eq!(
            differing(&clean, &partition_files(&dir)),
            Vec::<String>::new(),
            "keyed {keyed}: a re-run changed files"
        );
        assert_eq!(ok_in(&dir, &["range", ALL[0], ALL[1]]), rows);
        // No garbage: a clean import writes each bucket once.
        let stat = ok_in(&dir, &["stat", "--json"]);
        let stat: serde_json::Value = serde_json::from_str(&stat).unwrap();
        let parts = stat["partitions"].as_array().expect("partitions");
        assert!(!parts.is_empty(), "{stat}");
        for p in parts {
            assert_eq!(p["bucket"]["garbage_bytes"], 0, "keyed {keyed}: {p}");
        }
    }
}
