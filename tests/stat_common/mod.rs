//! Helpers shared by tests/stat.rs and tests/defrag.rs: databases built through the real
//! binary, independent measurements of files (fstat, a SEEK_DATA walk, `filefrag`), and a way
//! to fragment partition files on purpose.

#![allow(dead_code)] // each test file uses a subset

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;

/// 2020-01-01T00:00:00Z and 2021-01-01T00:00:00Z in seconds.
pub const Y2020_S: i64 = 1_577_836_800;
pub const Y2021_S: i64 = 1_609_459_200;
/// Row length of the test schema `v:i64`: one flags byte and 8 value bytes.
pub const ROW_LEN: i64 = 9;
/// Bytes of one slot on disk: the row, then its 4-byte check (partition version 3).
pub const SLOT_LEN: i64 = ROW_LEN + 4;
/// ext4 preallocates in 8 MiB logical windows; data crossing a window edge is allocated twice.
pub const WINDOW_BYTES: i64 = 8 << 20;

pub fn xs(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("xs").expect("the xs binary is built");
    cmd.arg("-d").arg(dir).env_remove("XS_DB");
    cmd.env_remove("XS_DEFRAG_KILL_AT")
        .env_remove("XS_DEFRAG_ASSUME_FREE_BYTES");
    cmd
}

/// Runs and returns the output, whatever the status.
pub fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("xs runs")
}

/// Runs, asserting success; returns stdout.
pub fn ok(cmd: &mut Command) -> String {
    let out = run(cmd);
    assert!(
        out.status.success(),
        "command failed: {cmd:?}\nstatus: {}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// A new database `v:i64` at 1 s granularity (yearly partitions of ~271 MiB logical).
pub fn create_db(parent: &Path) -> PathBuf {
    let dir = parent.join("db");
    let mut cmd = Command::cargo_bin("xs").unwrap();
    ok(cmd
        .arg("create")
        .arg(&dir)
        .args(["--granularity", "1s", "--columns", "v:i64"]));
    dir
}

pub fn put(dir: &Path, t_s: i64, v: i64) {
    ok(xs(dir).args(["put", &format!("{t_s}s"), &v.to_string()]));
}

/// Seconds (from the year start) of two slots whose rows straddle the edge of the `r`-th
/// 8 MiB window of the file: the row ending at or after the edge and the one before it.
pub fn slots_at_window_edge(r: i64) -> [i64; 2] {
    let s = (WINDOW_BYTES * r - 4096) / SLOT_LEN;
    [s - 1, s]
}

/// Puts rows across `windows` window edges in 2020 and 2021 (2 rows per edge per year).
pub fn put_rows_at_window_edges(dir: &Path, windows: i64) -> Vec<(i64, i64)> {
    let mut rows = Vec::new();
    for r in 1..=windows {
        for base in [Y2020_S, Y2021_S] {
            for slot in slots_at_window_edge(r) {
                let t = base + slot;
                put(dir, t, t % 1000 - 500);
                rows.push((t, t % 1000 - 500));
            }
        }
    }
    rows
}

/// Every row as CSV, the database's whole time range.
pub fn range_all(dir: &Path) -> String {
    ok(xs(dir).args(["range", "1970-01-01", "2100-01-01"]))
}

/// (st_size, st_blocks × 512, inode).
pub fn fstat(path: &Path) -> (u64, u64, u64) {
    let m = fs::metadata(path).unwrap();
    (m.len(), m.blocks() * 512, m.ino())
}

/// An independent SEEK_DATA/SEEK_HOLE walk: the data runs of the file.
pub use crate::common::data_runs as seek_data_runs;

/// Whether `path` lies on ext4 or xfs, where the extent assertions are meaningful.
pub fn on_ext4_or_xfs(path: &Path) -> bool {
    const EXT4_SUPER_MAGIC: i64 = 0xEF53;
    const XFS_SUPER_MAGIC: i64 = 0x5846_5342;
    let c = std::ffi::CString::new(path.as_os_str().to_str().unwrap()).unwrap();
    let mut buf = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: valid C string and a writable statfs buffer, read only on success.
    let rc = unsafe { libc::statfs(c.as_ptr(), buf.as_mut_ptr()) };
    if rc != 0 {
        return false;
    }
    // f_type is a C long: i64 here, i32 on 32-bit targets.
    #[allow(clippy::unnecessary_cast)]
    // SAFETY: statfs succeeded, so it initialized `buf`.
    let f_type = unsafe { buf.assume_init() }.f_type as i64;
    f_type == EXT4_SUPER_MAGIC || f_type == XFS_SUPER_MAGIC
}

/// Extents as `filefrag -s -v` lists them, counted the way `xs stat` counts (neighbours that
/// continue each other logically and physically join); `None` when filefrag is absent or
/// cannot map the file.
pub fn filefrag_extents(path: &Path) -> Option<u64> {
    let out = Command::new("filefrag")
        .args(["-s", "-v"])
        .arg(path)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut count = 0u64;
    let mut prev: Option<(u64, u64, u64)> = None;
    for line in text.lines() {
        // "   3:     6143..    6144:   21968895..  21968896:      2:   21968897: last,eof"
        let fields: Vec<&str> = line.split(':').map(str::trim).collect();
        if fields.len() < 4 || fields[0].parse::<u64>().is_err() {
            continue;
        }
        let start_of = |range: &str| range.split("..").next()?.trim().parse::<u64>().ok();
        let (Some(logical), Some(physical), Ok(len)) =
            (start_of(fields[1]), start_of(fields[2]), fields[3].parse::<u64>())
        else {
            continue;
        };
        let continues = prev.is_some_and(|(l, p, n)| l + n == logical && p + n == physical);
        if !continues {
            count += 1;
        }
        prev = Some((logical, physical, len));
    }
    Some(count)
}

/// A file's length and its data runs (offset, bytes).
type Layout = (u64, Vec<(u64, Vec<u8>)>);

/// Rewrites `files` so that they are fragmented on ext4 and xfs, with the same bytes.
///
/// How: this one process recreates each file and writes its header block (fsync), then
/// creates `FILLERS` scratch files the same way, then writes the data runs of all of them in
/// turn, one fsync after each. Files created together tend to get their first blocks one 8 MiB
/// preallocation window apart, so a run crossing a window edge finds the place it would
/// continue at taken by a neighbour and lands in two extents. Placement is the allocator's
/// choice, so this is retried (up to 5 times) until every file has more extents than data
/// segments; returns whether that was reached.
pub fn fragment(files: &[PathBuf]) -> bool {
    const FILLERS: usize = 4;
    let mut contents: Vec<Layout> = Vec::new();
    for path in files {
        let file = File::open(path).unwrap();
        let len = file.metadata().unwrap().len();
        let runs: Vec<(u64, Vec<u8>)> = seek_data_runs(path)
            .into_iter()
            .map(|(from, to)| {
                let mut buf = vec![0u8; (to - from) as usize];
                file.read_exact_at(&mut buf, from).unwrap();
                (from, buf)
            })
            .collect();
        assert_eq!(runs.first().map(|r| r.0), Some(0), "the header is the first run");
        contents.push((len, runs));
    }
    let scratch = files[0]
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("fragment-scratch");
    for attempt in 0..5 {
        let _ = fs::remove_dir_all(&scratch);
        fs::create_dir(&scratch).unwrap();
        let mut targets: Vec<PathBuf> = files.to_vec();
        let mut layouts: Vec<&Layout> = contents.iter().collect();
        for i in 0..FILLERS {
            targets.push(scratch.join(format!("filler{i}")));
            layouts.push(&contents[i % contents.len()]);
        }
        let mut handles = Vec::new();
        for (path, (len, runs)) in targets.iter().zip(&layouts) {
            let _ = fs::remove_file(path);
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(path)
                .unwrap();
            file.set_len(*len).unwrap();
            file.write_all_at(&runs[0].1, runs[0].0).unwrap();
            file.sync_all().unwrap();
            handles.push(file);
        }
        let most = contents.iter().map(|c| c.1.len()).max().unwrap_or(0);
        for i in 1..most {
            for (file, (_, runs)) in handles.iter().zip(&layouts) {
                if let Some((at, bytes)) = runs.get(i) {
                    file.write_all_at(bytes, *at).unwrap();
                    file.sync_all().unwrap();
                }
            }
        }
        drop(handles);
        let _ = fs::remove_dir_all(&scratch);
        let fragmented = files.iter().all(|path| {
            let f = xs::db::stat::Footprint::of_file(&File::open(path).unwrap()).unwrap();
            f.extents.is_some_and(|e| e > f.data_segments)
        });
        if fragmented {
            if attempt > 0 {
                eprintln!("note: fragmenting took {} attempts", attempt + 1);
            }
            return true;
        }
    }
    false
}

/// `xs stat --json` parsed.
pub fn stat_json(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let text = ok(xs(dir).args(["stat", "--json"]).args(extra));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("stat --json is not JSON: {e}\n{text}"))
}

/// The figures of partition `name` in a parsed stat report.
pub fn partition<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["partition"] == name)
        .unwrap_or_else(|| panic!("no partition {name} in {report:#}"))
}

pub fn u(v: &serde_json::Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("not an unsigned number: {v}"))
}
