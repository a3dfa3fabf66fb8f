//! The writer lock: a second writer fails with exit 5 or waits; readers never block.

mod common;

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStderr, Stdio};
use std::time::Duration;

use common::{run, TestDb};

fn hold_lock(db: &TestDb) -> std::fs::File {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(db.file(".lock"))
        .unwrap();
    file.lock().unwrap();
    std::fs::write(db.file(".lock"), "pid 4242").unwrap();
    file
}

#[test]
fn a_second_writer_fails_at_once_with_the_locked_exit_code() {
    let db = TestDb::create("1s", "v:i64", &[]);
    db.ok(&["put", "2024-01-01T00:00:00Z", "1"]);
    let lock = hold_lock(&db);
    for args in [
        &["put", "2024-01-01T00:00:01Z", "2"][..],
        &["delete", "2024-01-01T00:00:00Z"],
    ] {
        let (code, _, stderr) = run(db.xs(args));
        assert_eq!(code, 5, "{stderr}");
        assert!(
            stderr.contains("is locked by another writer (pid 4242)"),
            "{stderr}"
        );
        assert!(stderr.contains("--wait"), "{stderr}");
    }
    // Readers are not blocked by the writer.
    assert_eq!(
        db.ok(&["get", "2024-01-01T00:00:00Z"]),
        "time,v\n2024-01-01T00:00:00Z,1\n"
    );
    drop(lock);
    // `--wait`: a child that another test thread is spawning at this moment holds a copy of
    // every open descriptor, the lock's too, until its exec closes them, so the lock can
    // outlive `drop` by a moment (a run without it failed with exit 5).
    db.ok(&["put", "--wait", "2024-01-01T00:00:01Z", "2"]);
}

#[test]
fn with_wait_a_second_writer_waits_then_writes() {
    // `--wait` before the subcommand, and after it.
    for args in [
        ["--wait", "put", "2024-01-01T00:00:05Z", "7"],
        ["put", "--wait", "2024-01-01T00:00:05Z", "7"],
    ] {
        a_writer_waits_then_writes(&args);
    }
}

/// Spawns `xs -d DB ARGS` (a writer, while the test holds the lock) and returns it once it
/// says that it waits, with its stderr and that first line: waiting for a fixed time instead,
/// a loaded CI machine can outlast it before the child even starts.
fn spawn_waiting(db: &TestDb, args: &[&str]) -> (Child, BufReader<ChildStderr>, String) {
    let bin = assert_cmd::cargo::cargo_bin("xs");
    let mut child = std::process::Command::new(bin)
        .env_remove("XS_DB")
        .arg("-d")
        .arg(&db.path)
        .args(args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    assert!(
        first.contains("waiting for the writer lock") && first.contains("pid 4242"),
        "{first:?}, {:?}",
        child.try_wait()
    );
    (child, stderr, first)
}

/// Waits for a writer from `spawn_waiting`, once the lock is released, and checks that it
/// succeeded.
fn finished(mut child: Child, mut stderr: BufReader<ChildStderr>, first: &str) {
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}: {first}{rest}");
}

fn a_writer_waits_then_writes(args: &[&str]) {
    let db = TestDb::create("1s", "v:i64", &[]);
    let lock = hold_lock(&db);
    let (mut child, stderr, first) = spawn_waiting(&db, args);
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the waiting writer must not finish while locked"
    );
    drop(lock);
    finished(child, stderr, &first);
    assert_eq!(
        db.ok(&["get", "2024-01-01T00:00:05Z"]),
        "time,v\n2024-01-01T00:00:05Z,7\n"
    );
}

/// Issue 18: a reader beside a live import warned "an import … did not finish; complete it by
/// running again", inviting a second import while the first was still writing.
#[test]
fn a_reader_beside_a_live_import_says_it_is_under_way_not_unfinished() {
    use std::io::Write;
    let db = TestDb::create("1s", "v:i64", &[]);
    let mut import = std::process::Command::new(assert_cmd::cargo::cargo_bin("xs"))
        .env_remove("XS_DB")
        .arg("-d")
        .arg(&db.path)
        .args(["import", "-", "--time-unit", "s", "--chunk-bytes", "4096"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xs import starts");
    let mut stdin = import.stdin.take().expect("stdin");
    let mut csv = String::from("time,v\n");
    // More than the import samples before it begins, so it writes some while it waits for
    // the rest.
    for s in 0..200_000 {
        csv.push_str(&format!("{},{s}\n", 1_704_067_200 + s));
    }
    stdin.write_all(csv.as_bytes()).expect("feed the import");
    stdin.flush().expect("flush");
    // The import has begun writing once its marker is there; it then waits for more input.
    let started = std::time::Instant::now();
    while !db.file(".import-unfinished").exists() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the import never began"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (code, _, stderr) = run(db.xs(&["range", "2024-01-01", "2024-01-02"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("is under way"), "{stderr}");
    assert!(!stderr.contains("did not finish"), "{stderr}");
    drop(stdin);
    assert!(import.wait().expect("the import ends").success());
    let (_, _, stderr) = run(db.xs(&["range", "2024-01-01", "2024-01-02"]));
    assert!(stderr.is_empty(), "{stderr}");
}

/// Issue 18: `--wait` was offered by every subcommand, readers included, where it does nothing.
#[test]
fn only_writers_offer_wait() {
    let help = |sub: &str| {
        let out = common::xs().args([sub, "--help"]).output().expect("xs runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for writer in ["import", "put", "delete", "defrag"] {
        assert!(help(writer).contains("--wait"), "{writer} --help");
    }
    for reader in ["get", "range", "export", "stat", "check", "schema", "create"] {
        assert!(!help(reader).contains("--wait"), "{reader} --help offers --wait");
    }
}

/// A writer holds the lock itself: after a killed import, `put` said "a write into … is under
/// way (pid <its own>)" instead of naming the import to run again.
#[test]
fn a_writer_after_a_killed_import_names_the_import_not_itself() {
    let db = TestDb::create("1s", "v:i64", &[]);
    db.ok(&["put", "2024-01-01T00:00:00Z", "1"]);
    let rerun = format!("xs -d {} import day.csv", db.path.display());
    std::fs::write(db.file(".import-unfinished"), format!("{rerun}\n")).unwrap();
    let (code, _, stderr) = run(db.xs(&["put", "2024-01-01T00:00:01Z", "2"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("did not finish") && stderr.contains(&rerun),
        "{stderr}"
    );
    assert!(!stderr.contains("under way"), "{stderr}");
}

/// A writer that waited for the lock reads the config again once it holds it: the writer it
/// waited for may have been an `alter`. It wrote its rows with the schema it had read before
/// waiting, in the old row length, and every read of the database then failed ("partition
/// file … does not belong to this database").
#[test]
fn a_writer_that_waited_reads_the_schema_it_gets() {
    let db = TestDb::create("1s", "v:i64", &[]);
    let altered = TestDb::create("1s", "v:i64,w:i64", &[]);
    let lock = hold_lock(&db);
    let (child, stderr, first) = spawn_waiting(&db, &["put", "--wait", "2024-01-01T00:00:05Z", "v=7"]);
    // What `alter --add w:i64` leaves in a database without partitions: the new config.
    std::fs::copy(altered.file("xs.toml"), db.file("xs.toml")).unwrap();
    drop(lock);
    finished(child, stderr, &first);
    assert_eq!(
        db.ok(&["get", "2024-01-01T00:00:05Z"]),
        "time,v,w\n2024-01-01T00:00:05Z,7,\n"
    );
    db.ok(&["check"]);
}
