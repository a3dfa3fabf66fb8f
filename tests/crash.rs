//! Crashes (issue 19): `kill -9` at random moments of an import, a defrag and a delete, on
//! both layouts, with and without a series key and a unique key, and with both keys on `sym`
//! columns (whose dictionary must never lose an entry a row refers to). Before the re-run a read
//! serves no torn or damaged row with exit 0; after it the database equals a clean run
//! (`range` of everything identical, and the partition files byte for byte).
//!
//! `XS_CRASH_LOOPS=N` sets the kills per layout, operation and database (default 1, so the
//! suite stays fast); the counts are printed (`cargo test --test crash -- --nocapture`).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{ok_in, run, s, xs, xs_in, Rng};

const DAMAGED: i32 = 6;

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("xs")
}

/// A sparse file's content without reading its holes: its logical length, and its 4 KiB
/// blocks that are not all zero, by offset (a zero block reads the same allocated or not).
#[derive(PartialEq, Eq, Debug)]
struct Content {
    len: u64,
    blocks: BTreeMap<u64, Vec<u8>>,
}

fn content(path: &Path) -> Content {
    use std::os::unix::fs::FileExt;
    use std::os::unix::io::AsRawFd;
    let file = fs::File::open(path).expect("open a partition file");
    let len = file.metadata().expect("stat a partition file").len();
    let fd = file.as_raw_fd();
    let mut blocks = BTreeMap::new();
    let mut at = 0u64;
    while at < len {
        // SAFETY: lseek on a file descriptor this function owns; no memory is passed.
        let data = unsafe { libc::lseek(fd, at as libc::off_t, libc::SEEK_DATA) };
        if data < 0 {
            break; // ENXIO: no data past `at`
        }
        // SAFETY: as above.
        let hole = unsafe { libc::lseek(fd, data, libc::SEEK_HOLE) };
        let (from, to) = (data as u64 / 4096 * 4096, (hole.max(data) as u64).min(len));
        let mut block = from;
        while block < to {
            let mut buf = vec![0u8; 4096.min(len - block) as usize];
            file.read_exact_at(&mut buf, block).expect("read a block");
            if buf.iter().any(|&b| b != 0) {
                blocks.insert(block, buf);
            }
            block += 4096;
        }
        at = to.max(from + 4096);
    }
    Content { len, blocks }
}

/// Every partition file of a database (series directories included) and its symbol
/// dictionary, path relative to it → content.
fn partition_files(dir: &Path) -> BTreeMap<PathBuf, Content> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Content>) {
        for entry in fs::read_dir(dir).expect("read the database directory") {
            let path = entry.expect("a directory entry").path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_string();
            if path.is_dir() {
                walk(root, &path, out);
            } else if !name.starts_with('.')
                && (name.ends_with(".xs") || name.ends_with(".xs.data") || name == "sym.dict")
            {
                let rel = path.strip_prefix(root).expect("under the root").to_path_buf();
                out.insert(rel, content(&path));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The names of the files that differ between two databases' partition files.
fn differing(a: &BTreeMap<PathBuf, Content>, b: &BTreeMap<PathBuf, Content>) -> Vec<String> {
    let names: BTreeSet<&PathBuf> = a.keys().chain(b.keys()).collect();
    names
        .into_iter()
        .filter(|n| a.get(*n) != b.get(*n))
        .map(|n| {
            let len = |m: &BTreeMap<PathBuf, Content>| m.get(n).map(|c| c.len);
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

/// Creates a database of `kind`: "plain"; "keyed", with a series key (`sym`) and a unique key
/// (`id`); "sym", keyed likewise with both key columns `sym`, so that every distinct id is a
/// dictionary entry, appended batch by batch through the import (issue 15).
fn create(dir: &Path, layout: &str, kind: &str) {
    let keyed = kind != "plain";
    let columns = if kind == "sym" {
        "sym:sym,id:sym,price:f64,qty:i64"
    } else {
        "sym:str(4),id:i64,price:f64,qty:i64"
    };
    let mut args = vec![
        "create",
        s(dir),
        "--granularity",
        "1ms",
        "--columns",
        columns,
        "--partition",
        "day",
    ];
    match layout {
        "grid" => args.extend(["--layout", "grid", "--depth", "8"]),
        "bucket" => args.extend(["--layout", "bucket", "--bucket", "100ms"]),
        // Columnar records: buckets wide enough that most records are columnar, not raw.
        _ => args.extend(["--layout", "bucket", "--bucket", "10s", "--codec", "columnar"]),
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
        create(&dir, "bucket", if keyed { "keyed" } else { "plain" });
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

/// The operations killed.
#[derive(Clone, Copy, Debug)]
enum Op {
    Import,
    Defrag,
    Delete,
}

impl Op {
    fn args(self) -> Vec<&'static str> {
        match self {
            // The input comes on stdin (see `Scenario::input`).
            Op::Import => vec!["import", CHUNK, "-"],
            Op::Defrag => vec!["defrag", "--min-extents", "0"],
            Op::Delete => vec!["delete", "2024-01-01T00:00:07.5Z", "2024-01-01T00:00:52.05Z"],
        }
    }
}

/// A database and an operation on it, with the state before and the clean result after.
struct Scenario {
    kind: &'static str,
    op: Op,
    /// The database before the operation.
    before: PathBuf,
    /// The same after a clean run of the operation.
    after: PathBuf,
    /// The import's input (stdin of every import).
    input: PathBuf,
    before_rows: BTreeSet<String>,
    after_rows: String,
    after_files: BTreeMap<PathBuf, Content>,
    /// Wall time of the clean run, the window the kills are spread over.
    duration: Duration,
}

/// Runs `op` on `dir` to its end, or kills it with SIGKILL after `kill_after`.
fn run_op(dir: &Path, op: Op, input: &Path, kill_after: Option<Duration>) -> Option<i32> {
    let mut cmd = Command::new(bin());
    cmd.env_remove("XS_DB")
        .env_remove("XS_LAYOUT")
        .arg("-d")
        .arg(dir)
        .args(op.args())
        .stdin(fs::File::open(input).expect("open the input"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("xs starts");
    match kill_after {
        Some(after) => {
            std::thread::sleep(after);
            let _ = child.kill();
            let _ = child.wait();
            None
        }
        None => {
            let out = child.wait_with_output().expect("xs runs");
            let err = String::from_utf8_lossy(&out.stderr);
            common::assert_no_panic(&err);
            assert!(out.status.success(), "{op:?} on {}: {err}", dir.display());
            out.status.code()
        }
    }
}

/// Replaces the database at `to` with a copy of the one at `from`.
fn copy_db(from: &Path, to: &Path) {
    let _ = fs::remove_dir_all(to);
    common::sparse_copy(from, to);
}

/// The scenario of `op` on a `layout` database; `imported` is the database after the import
/// scenario's clean run (the state the other operations start from).
fn scenario(
    root: &Path,
    layout: &'static str,
    kind: &'static str,
    op: Op,
    imported: Option<&Path>,
) -> Scenario {
    let name = format!("{layout}-{kind}-{op:?}");
    let base = root.join(format!("{name}-base.csv"));
    let input = root.join(format!("{name}-input.csv"));
    // The stored rows the import merges with (other values, other times, some the same).
    fs::write(&base, ticks(9_000, 60, 5)).unwrap();
    fs::write(&input, ticks(20_000, 60, 0)).unwrap();
    let before = root.join(format!("{name}-before"));
    match imported {
        Some(dir) => copy_db(dir, &before),
        None => {
            create(&before, layout, kind);
            run_op(&before, Op::Import, &base, None);
        }
    }
    let after = root.join(format!("{name}-after"));
    copy_db(&before, &after);
    let started = Instant::now();
    run_op(&after, op, &input, None);
    let duration = started.elapsed();
    let rows = |dir: &Path| {
        let (code, out, err) = range_all(dir);
        assert_eq!(code, 0, "{err}");
        out
    };
    Scenario {
        kind,
        op,
        before_rows: rows(&before).lines().map(str::to_string).collect(),
        after_rows: rows(&after),
        after_files: partition_files(&after),
        before,
        after,
        input,
        duration,
    }
}

/// What the kills of one scenario found.
#[derive(Default, Debug)]
struct Tally {
    kills: u32,
    /// Reads before the re-run, by exit code.
    read_ok: u32,
    read_damaged: u32,
    read_refused: u32,
    /// Kills that left the operation's marker (`.import-unfinished`, `.delete-unfinished`).
    marked: u32,
    /// Re-runs whose partition files equal the clean run's.
    identical: u32,
    failures: Vec<String>,
}

fn kill_loop(sc: &Scenario, loops: u32, rng: &mut Rng) -> Tally {
    let mut t = Tally::default();
    let dir = sc.before.with_file_name(format!(
        "{}-killed",
        sc.before.file_name().and_then(|n| n.to_str()).unwrap_or("db")
    ));
    let window_us = sc.duration.as_micros() as u64 + 1;
    for round in 0..loops {
        copy_db(&sc.before, &dir);
        let at = Duration::from_micros(rng.below(window_us));
        run_op(&dir, sc.op, &sc.input, Some(at));
        t.kills += 1;
        let mut fail = |what: String| t.failures.push(format!("round {round} (kill at {at:?}): {what}"));
        if dir.join(".import-unfinished").exists() || dir.join(".delete-unfinished").exists() {
            t.marked += 1;
        }

        // Before the re-run: every row served is a row of before or after, or the read fails
        // with damage (exit 6) or a documented refusal.
        let (code, out, err) = range_all(&dir);
        common::assert_no_panic(&err);
        let after: BTreeSet<&str> = sc.after_rows.lines().collect();
        let foreign: Vec<&str> = out
            .lines()
            .filter(|l| !sc.before_rows.contains(*l) && !after.contains(l))
            .take(3)
            .collect();
        if !foreign.is_empty() {
            fail(format!(
                "read served rows of neither state (exit {code}): {foreign:?}\n{err}"
            ));
        }
        match code {
            0 => t.read_ok += 1,
            DAMAGED => t.read_damaged += 1,
            3 if err.contains("a defrag was interrupted between its two renames") => t.read_refused += 1,
            _ => fail(format!("read exit {code}: {err}")),
        }

        // The re-run completes it.
        let mut cmd = xs();
        cmd.arg("-d")
            .arg(&dir)
            .args(sc.op.args())
            .pipe_stdin(&sc.input)
            .expect("open the input");
        let (code, _, err) = run(cmd);
        common::assert_no_panic(&err);
        if code != 0 {
            fail(format!("re-run exit {code}: {err}"));
            continue;
        }
        let (code, out, err) = range_all(&dir);
        if code != 0 || out != sc.after_rows {
            fail(format!(
                "after the re-run: exit {code}, {} rows, {} expected: {err}",
                out.lines().count(),
                sc.after_rows.lines().count()
            ));
        }
        for marker in [".import-unfinished", ".delete-unfinished"] {
            if dir.join(marker).exists() {
                fail(format!("{marker} left after the re-run"));
            }
        }
        let diff = differing(&sc.after_files, &partition_files(&dir));
        if diff.is_empty() {
            t.identical += 1;
        } else {
            // docs/IMPORT.md: an import killed at any point and run again equals a clean
            // import byte for byte; a defrag or delete run again equals a clean one too.
            fail(format!("files differ from a clean run: {diff:?}"));
        }
    }
    t
}

/// `kill -9` during import, defrag and delete, on both layouts (the bucket layout with raw
/// and columnar records), with and without keys.
#[test]
fn kill_9_at_any_moment_serves_no_torn_row_and_a_rerun_equals_a_clean_run() {
    let loops: u32 = common::env_number("XS_CRASH_LOOPS", 1);
    let seed: u64 = common::env_number("XS_CRASH_SEED", 0x9e37_79b9_7f4a_7c15);
    let mut rng = Rng(seed | 1);
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for layout in ["grid", "bucket", "columnar"] {
        for kind in ["plain", "keyed", "sym"] {
            let mut imported: Option<PathBuf> = None;
            for op in [Op::Import, Op::Defrag, Op::Delete] {
                let sc = scenario(tmp.path(), layout, kind, op, imported.as_deref());
                let t = kill_loop(&sc, loops, &mut rng);
                eprintln!(
                    "{layout:8} {:5} {op:?}: {} kills over {:?}; reads before the re-run: {} ok, {} damaged (exit 6), {} refused; {} marked; {} re-runs byte-identical to a clean run; {} failures",
                    sc.kind,
                    t.kills,
                    sc.duration,
                    t.read_ok,
                    t.read_damaged,
                    t.read_refused,
                    t.marked,
                    t.identical,
                    t.failures.len()
                );
                for f in t.failures.iter().take(5) {
                    eprintln!("  {f}");
                }
                failures.extend(
                    t.failures
                        .into_iter()
                        .map(|f| format!("{kind} {layout} {op:?}: {f}")),
                );
                let _ = fs::remove_dir_all(&sc.before);
                if matches!(op, Op::Import) {
                    // Defrag and delete start from the import's result.
                    imported = Some(sc.after);
                } else {
                    let _ = fs::remove_dir_all(&sc.after);
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Issue 19: an import into a unique-key grid database reads each stored slot to merge into
/// it; a kill that cut the slot's write left it torn, and the re-run, which must read it,
/// stopped with exit code 6. The undo journal (docs/FORMAT.md) puts the old rows back first.
#[test]
fn a_torn_slot_of_a_unique_key_import_is_rolled_back_and_the_rerun_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base.csv");
    let input = tmp.path().join("input.csv");
    fs::write(&base, ticks(9_000, 60, 5)).unwrap();
    fs::write(&input, ticks(20_000, 60, 0)).unwrap();
    let before = tmp.path().join("before");
    create(&before, "grid", "keyed");
    run_op(&before, Op::Import, &base, None);
    let clean = tmp.path().join("clean");
    copy_db(&before, &clean);
    run_op(&clean, Op::Import, &input, None);
    let clean_rows = range_all(&clean).1;
    let clean_files = partition_files(&clean);

    // The import stops (kill -9) once its first undo journal is durable, before the slots.
    let dir = tmp.path().join("killed");
    copy_db(&before, &dir);
    let mut cmd = Command::new(bin());
    cmd.env_remove("XS_DB")
        .env("XS_IMPORT_KILL_AT", "journaled")
        .arg("-d")
        .arg(&dir)
        .args(Op::Import.args())
        .stdin(fs::File::open(&input).unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let _ = cmd.status().expect("xs runs");
    // Then one slot is torn as a cut pwrite leaves it: its first bytes new, the rest old. The
    // slot is the first the clean import changed in a partition that has a committed journal
    // (or in any partition, if there is none). A journal still empty belongs to a partition
    // whose writes had not begun when the other one's commit ended the process: tearing its
    // slot would fake a write that never started (the test raced on that once).
    let journals: Vec<PathBuf> = ["AAA", "BBB"]
        .iter()
        .map(|s| dir.join(format!("series/{s}/.2024-01-01.xs.undo")))
        .filter(|p| fs::metadata(p).is_ok_and(|m| m.len() > 0))
        .collect();
    let file = journals
        .first()
        .map(|j| j.with_file_name("2024-01-01.xs"))
        .unwrap_or_else(|| dir.join("series/AAA/2024-01-01.xs"));
    let rel = file.strip_prefix(&dir).unwrap();
    let old = content(&before.join(rel));
    let new = content(&clean.join(rel));
    let block = *new
        .blocks
        .iter()
        .find(|(at, bytes)| old.blocks.get(at) != Some(bytes))
        .expect("the import changes a block")
        .0;
    let new_block = &new.blocks[&block];
    let old_block = old
        .blocks
        .get(&block)
        .cloned()
        .unwrap_or_else(|| vec![0; new_block.len()]);
    let first = (0..new_block.len())
        .find(|&i| new_block[i] != old_block[i])
        .unwrap() as u64;
    // Rows of 29 bytes, depth 8, a 4-byte check: 236-byte slots after the 4 KiB header.
    let slot_len = 8 * 29 + 4;
    let slot_at = 4096 + (block + first - 4096) / slot_len * slot_len;
    let new_slot = read_range(&clean.join(rel), slot_at, slot_len);
    let old_slot = read_range(&before.join(rel), slot_at, slot_len);
    // Cut after the first byte that differs: the rows differ there and the check at the end.
    let cut = (0..new_slot.len()).find(|&i| new_slot[i] != old_slot[i]).unwrap() + 1;
    let mut torn = new_slot[..cut].to_vec();
    torn.extend_from_slice(&old_slot[cut..]);
    assert!(torn != new_slot && torn != old_slot);
    patch(&file, slot_at, &torn);
    let rerun = format!("xs -d {} import -", dir.display());
    fs::write(dir.join(".import-unfinished"), format!("{rerun}\n")).unwrap();

    let (code, out, err) = range_all(&dir);
    assert_eq!(code, DAMAGED, "a torn slot is not served: {err}");
    assert!(err.contains("torn") && err.contains(&rerun), "{err}");
    let served: BTreeSet<&str> = out.lines().collect();
    assert!(served.len() < 3, "rows before the damage at most: {out}");

    // The re-run rolls the journal back and merges into the old rows.
    let mut cmd = xs();
    cmd.arg("-d")
        .arg(&dir)
        .args(Op::Import.args())
        .pipe_stdin(&input)
        .unwrap();
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "the re-run: {err}");
    assert_eq!(range_all(&dir).1, clean_rows);
    assert_eq!(
        differing(&clean_files, &partition_files(&dir)),
        Vec::<String>::new()
    );
    assert!(!journals.is_empty(), "the import left an undo journal");
    for j in &journals {
        assert!(!j.exists(), "{} removed", j.display());
    }
    ok_in(&dir, &["check"]);
}

fn read_range(path: &Path, at: u64, len: u64) -> Vec<u8> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; len as usize];
    fs::File::open(path).unwrap().read_exact_at(&mut buf, at).unwrap();
    buf
}

fn patch(path: &Path, at: u64, bytes: &[u8]) {
    use std::os::unix::fs::FileExt;
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(bytes, at).unwrap();
}
