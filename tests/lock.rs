//! The writer lock: a second writer fails with exit 5 or waits; readers never block.

mod common;

use std::fs::OpenOptions;
use std::process::Stdio;
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
    db.ok(&["put", "2024-01-01T00:00:01Z", "2"]);
}

#[test]
fn with_wait_a_second_writer_waits_then_writes() {
    let db = TestDb::create("1s", "v:i64", &[]);
    let lock = hold_lock(&db);
    let bin = assert_cmd::cargo::cargo_bin("xs");
    let mut child = std::process::Command::new(bin)
        .arg("-d")
        .arg(&db.path)
        .args(["--wait", "put", "2024-01-01T00:00:05Z", "7"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the waiting writer must not finish while locked"
    );
    drop(lock);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("waiting for the writer lock") && stderr.contains("pid 4242"),
        "{stderr}"
    );
    assert_eq!(
        db.ok(&["get", "2024-01-01T00:00:05Z"]),
        "time,v\n2024-01-01T00:00:05Z,7\n"
    );
}
