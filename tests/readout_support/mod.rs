//! Helpers shared by the read-out tests (range, get, export): the binary, temp databases, and
//! a fast fill through the engine for tests that need many rows.
#![allow(dead_code)] // each test file uses a different subset

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;
use xs::db::lock::LockWait;
use xs::{Access, Database};

#[path = "../common/mod.rs"]
mod common;
pub use common::{layout, with_layout};

pub fn xs() -> Command {
    let mut cmd = Command::cargo_bin("xs").expect("the xs binary is built for tests");
    cmd.env_remove("XS_DB");
    with_layout(&mut cmd);
    cmd
}

/// Runs `xs ARGS`, asserts success, returns stdout.
pub fn ok(args: &[&str]) -> String {
    let out = xs().args(args).output().expect("xs runs");
    assert!(
        out.status.success(),
        "xs {args:?} failed ({:?})\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("output is UTF-8")
}

/// Creates a database `name` in a fresh temp dir with `xs create NAME ARGS`.
pub fn create(name: &str, args: &[&str]) -> (TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let db = tmp.path().join(name);
    let mut all = vec!["create", db.to_str().expect("utf-8 temp path")];
    all.extend_from_slice(args);
    ok(&all);
    (tmp, db)
}

pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 temp path")
}

/// Writes `n` rows, one per slot from `start_ns`, through the engine; `fields(i)` gives row i's
/// values as text in schema order. One `pwrite` per slot: fast enough for a few 100k rows.
pub fn fill(db: &Path, start_ns: i64, n: u64, fields: impl Fn(u64) -> Vec<String>) {
    if layout() == "bucket" {
        return fill_by_import(db, start_ns, n, fields);
    }
    let db = Database::open(db, Access::Write(LockWait::No), &mut |_| {}).expect("open for writing");
    let schema = db.schema().clone();
    for i in 0..n {
        let t = start_ns + i as i64 * db.config().granularity.ns();
        let mut row = schema.new_row();
        for (col, text) in fields(i).iter().enumerate() {
            schema.set_field(&mut row, col, text).expect("valid field");
        }
        let slot = db.slot_of(t).expect("aligned time");
        let partition = db.partition(slot.key, true).expect("partition").expect("created");
        let mut slab = vec![0u8; partition.slab_len as usize];
        slab[..row.len()].copy_from_slice(&row);
        partition.write_slot(slot.index, &slab).expect("write");
    }
}

/// `fill` for any layout: writes the rows as CSV (epoch-ns times) and imports it with `xs`.
fn fill_by_import(db: &Path, start_ns: i64, n: u64, fields: impl Fn(u64) -> Vec<String>) {
    let (columns, granularity_ns) = {
        let handle = Database::open(db, Access::Read, &mut |_| {}).expect("open");
        let config = handle.config();
        let mut names = vec![config.time_column.clone()];
        names.extend(config.schema.columns().iter().map(|c| c.name.clone()));
        (names, config.granularity.ns())
    };
    let quote = |f: &str| {
        if f.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", f.replace('"', "\"\""))
        } else {
            f.to_string()
        }
    };
    let mut text = columns.join(",");
    text.push('\n');
    for i in 0..n {
        let t = start_ns + i as i64 * granularity_ns;
        text.push_str(&t.to_string());
        for f in fields(i) {
            text.push(',');
            text.push_str(&quote(&f));
        }
        text.push('\n');
    }
    let csv = db.with_extension("fill.csv");
    std::fs::write(&csv, text).expect("write fill csv");
    ok(&["-d", s(db), "import", "--quiet", "--time-unit", "ns", s(&csv)]);
    std::fs::remove_file(&csv).expect("remove fill csv");
}

/// A partition file: name, logical length, non-zero blocks (offset, bytes).
pub type PartitionImage = (String, u64, Vec<(u64, Vec<u8>)>);

/// The partition files of a database, by name: logical length and every non-zero 4 KiB block
/// (offset, bytes), found through SEEK_DATA so that terabyte-sized sparse files compare in
/// what their data costs. Two databases with equal results hold byte-identical files.
pub fn partition_files(db: &Path) -> Vec<PartitionImage> {
    use std::os::unix::fs::FileExt;
    let mut files = Vec::new();
    for entry in std::fs::read_dir(db).expect("read db dir") {
        let path = entry.expect("dir entry").path();
        // Grid partition files, and bucket directory (.xs) and data (.xs.data) files.
        let name = path.file_name().expect("name").to_string_lossy().into_owned();
        if !(name.ends_with(".xs") || name.ends_with(".xs.data")) || name.starts_with('.') {
            continue;
        }
        let file = std::fs::File::open(&path).expect("open partition");
        let len = file.metadata().expect("stat").len();
        let mut blocks = Vec::new();
        for (from, to) in xs::db::partition::data_segments(&file, 0, len).expect("seek data") {
            let mut at = from / 4096 * 4096;
            while at < to {
                let mut block = vec![0u8; 4096.min((len - at) as usize)];
                file.read_exact_at(&mut block, at).expect("read block");
                if block.iter().any(|&b| b != 0) {
                    blocks.push((at, block));
                }
                at += 4096;
            }
        }
        let name = path.file_name().expect("name").to_string_lossy().into_owned();
        files.push((name, len, blocks));
    }
    files.sort();
    files
}

/// The binary as a plain `std::process::Command` (for redirecting stdout to a file).
pub fn xs_std() -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("xs"));
    cmd.env_remove("XS_DB");
    cmd
}
