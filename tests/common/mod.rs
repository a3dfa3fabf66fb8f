//! Helpers shared by the integration tests: run the real `xs` binary on temp directories.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use tempfile::TempDir;

/// The `xs` binary under test, with no inherited database.
pub fn xs() -> Command {
    let mut cmd = Command::cargo_bin("xs").expect("xs binary is built");
    cmd.env_remove("XS_DB");
    with_layout(&mut cmd);
    cmd
}

/// A database in its own temp directory.
pub struct TestDb {
    _tmp: TempDir,
    pub path: PathBuf,
}

impl TestDb {
    /// `xs create` with these arguments (granularity, columns, extras).
    pub fn create(granularity: &str, columns: &str, extra: &[&str]) -> TestDb {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = tmp.path().join("db");
        xs().arg("create")
            .arg(&path)
            .args(["--granularity", granularity, "--columns", columns])
            .args(extra)
            .assert()
            .success();
        TestDb { _tmp: tmp, path }
    }

    /// A database in its own temp directory made of copies of the files of `source` (a
    /// database written by an older xs, under fixtures/).
    pub fn copy_of(source: &Path) -> TestDb {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = tmp.path().join("db");
        std::fs::create_dir(&path).expect("db dir");
        for entry in std::fs::read_dir(source).expect("fixture dir") {
            let from = entry.expect("fixture entry").path();
            let name = from.file_name().expect("a file name").to_owned();
            std::fs::copy(&from, path.join(name)).expect("copy a fixture file");
        }
        TestDb { _tmp: tmp, path }
    }

    /// `xs -d DB ARGS…`, not yet run.
    pub fn xs(&self, args: &[&str]) -> Command {
        let mut cmd = xs();
        cmd.arg("-d").arg(&self.path).args(args);
        cmd
    }

    /// Runs `xs -d DB ARGS…`, asserts success and returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.xs(args).output().expect("xs runs");
        assert_success(&out, args);
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

/// Fails with the command, stdout and stderr when `out` is not a success.
pub fn assert_success(out: &Output, args: &[&str]) {
    assert!(
        out.status.success(),
        "xs {args:?} failed with {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs and returns (exit code, stdout, stderr).
pub fn run(mut cmd: Command) -> (i32, String, String) {
    let out = cmd.output().expect("xs runs");
    let code = out.status.code().expect("exited, not killed");
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `xs` run in `dir` (inputs named relative to it), with no inherited database or layout.
pub fn xs_at(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("xs").expect("xs binary is built");
    cmd.current_dir(dir).env_remove("XS_LAYOUT").env_remove("XS_DB");
    cmd
}

/// Runs `cmd`: (exit code, stdout, stderr).
pub fn output_of(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("xs runs");
    (
        out.status.code().expect("exited, not killed"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `output_of` that must succeed without a panic: (stdout, stderr).
pub fn ok_of(cmd: &mut Command) -> (String, String) {
    let (code, out, err) = output_of(cmd);
    assert_eq!(code, 0, "command {cmd:?} failed\nstdout:\n{out}\nstderr:\n{err}");
    assert_no_panic(&err);
    (out, err)
}

/// Runs `xs -d DIR ARGS…`: (exit code, stdout, stderr).
pub fn xs_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut cmd = xs();
    cmd.arg("-d").arg(dir).args(args);
    run(cmd)
}

/// `xs_in` that must succeed without a panic: its stdout.
pub fn ok_in(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = xs_in(dir, args);
    assert_eq!(
        code,
        0,
        "xs -d {} {args:?}\nstdout: {out}\nstderr: {err}",
        dir.display()
    );
    assert_no_panic(&err);
    out
}

/// A path as an argument of `xs_in`.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Allocated bytes of a file (st_blocks × 512).
pub fn allocated_bytes(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).expect("file exists").blocks() * 512
}

/// Logical size of a file (st_size).
pub fn logical_bytes(path: &Path) -> u64 {
    std::fs::metadata(path).expect("file exists").len()
}

/// Asserts that nothing looks like a Rust panic.
pub fn assert_no_panic(stderr: &str) {
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "panic:\n{stderr}"
    );
}

/// Copies a sparse file, or a directory tree to a path that does not exist yet, keeping holes
/// (a plain copy would write terabytes of zeros) and attributes.
pub fn sparse_copy(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp")
        .args(["-a", "--sparse=always"])
        .arg(from)
        .arg(to)
        .status()
        .expect("cp runs");
    assert!(
        status.success(),
        "cp -a --sparse=always {} {}",
        from.display(),
        to.display()
    );
}

/// A small seeded generator (xorshift64*): a loop driven by it reproduces from its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform enough in `0..n` (`0` when n is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The number in the environment variable `name`, else `default` (unset or not a number).
pub fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The layout this test target runs against: targets named `*_bucket` (tests/*_bucket.rs,
/// which include a suite file) create bucket databases; the others leave the choice to `xs`.
pub fn layout() -> &'static str {
    if env!("CARGO_CRATE_NAME").ends_with("_bucket") {
        "bucket"
    } else {
        "grid"
    }
}

/// Sets the layout of databases that `cmd` creates (`XS_LAYOUT`, read by `create` and by
/// `import` when it creates a database).
pub fn with_layout(cmd: &mut assert_cmd::Command) {
    if layout() == "bucket" {
        cmd.env("XS_LAYOUT", "bucket");
    } else {
        cmd.env_remove("XS_LAYOUT");
    }
}

/// The allocated runs `[start, end)` of a sparse file, by a `SEEK_DATA`/`SEEK_HOLE` walk.
pub fn data_runs(path: &Path) -> Vec<(u64, u64)> {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).unwrap();
    let len = file.metadata().unwrap().len() as i64;
    let mut runs = Vec::new();
    let mut at = 0i64;
    while at < len {
        // SAFETY: lseek on an open descriptor.
        let start = unsafe { libc::lseek(file.as_raw_fd(), at, libc::SEEK_DATA) };
        if start < 0 {
            break; // ENXIO: no more data
        }
        // SAFETY: as above.
        let end = unsafe { libc::lseek(file.as_raw_fd(), start, libc::SEEK_HOLE) };
        assert!(end > start, "SEEK_HOLE after {start} in {}", path.display());
        runs.push((start as u64, end as u64));
        at = end;
    }
    runs
}

/// The data of a sparse file: each allocated stretch with its offset, then the length. Files
/// gigabytes long (a grid partition of a year) are compared without reading their holes.
pub fn sparse_data(path: &Path) -> Vec<u8> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path).unwrap();
    let mut out = Vec::new();
    for (start, end) in data_runs(path) {
        let mut buf = vec![0u8; (end - start) as usize];
        file.read_exact_at(&mut buf, start).unwrap();
        out.extend_from_slice(&start.to_le_bytes());
        out.extend_from_slice(&buf);
    }
    out.extend_from_slice(&file.metadata().unwrap().len().to_le_bytes());
    out
}
