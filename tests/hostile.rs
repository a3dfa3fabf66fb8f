//! Hostile and damaged database directories (issue 19): links planted in the directory are
//! never followed, and nothing outside the database is written through them.

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use common::{run, xs, TestDb};

const LINK_MESSAGE: &str = "is a symbolic link; xs never follows links inside a database";

/// A file outside the database (next to it), with known content.
fn outside_file(db: &TestDb, name: &str) -> PathBuf {
    let path = db.path.parent().expect("the db has a parent").join(name);
    fs::write(&path, "precious, not xs's\n").expect("write the outside file");
    path
}

fn assert_untouched(path: &Path) {
    let meta = fs::symlink_metadata(path).expect("the outside file is still there");
    assert!(
        meta.file_type().is_file(),
        "{} is no longer a plain file",
        path.display()
    );
    assert_eq!(
        fs::read_to_string(path).expect("read the outside file"),
        "precious, not xs's\n",
        "{} was written through a link",
        path.display()
    );
}

/// Runs `xs -d DB ARGS…` and asserts that it fails with exit 3 naming the link `name`.
fn assert_refuses_link(db: &TestDb, args: &[&str], name: &str) {
    let (code, stdout, stderr) = run(db.xs(args));
    assert_eq!(code, 3, "xs {args:?}\nstdout:\n{stdout}\nstderr:\n{stderr}");
    let link = db.file(name);
    assert!(
        stderr.contains(&format!("{} {LINK_MESSAGE}", link.display())),
        "xs {args:?}: {stderr}"
    );
    assert!(!stderr.contains("os error"), "{stderr}");
}

fn grid_db() -> TestDb {
    let db = TestDb::create("1s", "v:i64", &["--layout", "grid"]);
    db.ok(&["put", "2024-01-01T00:00:00Z", "1"]);
    db
}

fn bucket_db() -> TestDb {
    let db = TestDb::create("1s", "v:i64", &["--layout", "bucket", "--bucket", "1m"]);
    db.ok(&["put", "2024-01-01T00:00:00Z", "1"]);
    db
}

#[test]
fn a_lock_file_link_is_refused_and_its_target_not_truncated() {
    for db in [grid_db(), bucket_db()] {
        let target = outside_file(&db, "target");
        fs::remove_file(db.file(".lock")).unwrap();
        symlink(&target, db.file(".lock")).unwrap();
        assert_refuses_link(&db, &["put", "2024-01-01T00:00:01Z", "2"], ".lock");
        assert_refuses_link(&db, &["delete", "2024-01-01T00:00:00Z"], ".lock");
        assert_untouched(&target);
        // Readers take no lock: they still read.
        assert_eq!(
            db.ok(&["get", "2024-01-01T00:00:00Z"]),
            "time,v\n2024-01-01T00:00:00Z,1\n"
        );
        // A dangling link is refused too, and its target is not created.
        let nowhere = db.path.parent().unwrap().join("nowhere");
        fs::remove_file(db.file(".lock")).unwrap();
        symlink(&nowhere, db.file(".lock")).unwrap();
        assert_refuses_link(&db, &["put", "2024-01-01T00:00:01Z", "2"], ".lock");
        assert!(!nowhere.exists());
    }
}

#[test]
fn an_import_marker_link_is_refused_and_its_target_not_overwritten() {
    for db in [grid_db(), bucket_db()] {
        let target = outside_file(&db, "target");
        symlink(&target, db.file(".import-unfinished")).unwrap();
        let csv = db.path.parent().unwrap().join("in.csv");
        fs::write(&csv, "time,v\n2024-01-01T00:00:02Z,3\n").unwrap();
        let csv = csv.to_str().unwrap().to_string();
        assert_refuses_link(&db, &["import", &csv], ".import-unfinished");
        assert_untouched(&target);
        // Nothing was imported: the marker is written before the first row.
        let (code, _, _) = run(db.xs(&["get", "2024-01-01T00:00:02Z"]));
        assert_eq!(code, 1);
    }
}

#[test]
fn a_stale_temporary_link_is_replaced_and_its_target_untouched() {
    let db = grid_db();
    let target = outside_file(&db, "target");
    symlink(&target, db.file(".2025.xs.tmp")).unwrap();
    db.ok(&["put", "2025-01-01T00:00:00Z", "5"]);
    assert_untouched(&target);
    assert!(fs::symlink_metadata(db.file("2025.xs"))
        .unwrap()
        .file_type()
        .is_file());
    assert!(!db.file(".2025.xs.tmp").exists());
    assert_eq!(
        db.ok(&["get", "2025-01-01T00:00:00Z"]),
        "time,v\n2025-01-01T00:00:00Z,5\n"
    );

    let db = bucket_db();
    let target = outside_file(&db, "target");
    let data_target = outside_file(&db, "data-target");
    symlink(&target, db.file(".2025.xs.tmp")).unwrap();
    symlink(&data_target, db.file(".2025.xs.data.tmp")).unwrap();
    db.ok(&["put", "2025-01-01T00:00:00Z", "5"]);
    assert_untouched(&target);
    assert_untouched(&data_target);
    for name in ["2025.xs", "2025.xs.data"] {
        assert!(
            fs::symlink_metadata(db.file(name)).unwrap().file_type().is_file(),
            "{name}"
        );
    }
    assert_eq!(
        db.ok(&["get", "2025-01-01T00:00:00Z"]),
        "time,v\n2025-01-01T00:00:00Z,5\n"
    );
}

#[test]
fn a_partition_link_is_refused_by_readers_and_writers() {
    for (other, name) in [(grid_db(), "2024.xs"), (bucket_db(), "2024.xs.data")] {
        // Another database whose partition the link points into.
        let layout = if name.ends_with(".data") { "bucket" } else { "grid" };
        let db = if layout == "bucket" {
            TestDb::create("1s", "v:i64", &["--layout", "bucket", "--bucket", "1m"])
        } else {
            TestDb::create("1s", "v:i64", &["--layout", "grid"])
        };
        if layout == "bucket" {
            // Both files exist; only the data file is a link.
            db.ok(&["put", "2024-01-01T00:00:00Z", "9"]);
            fs::remove_file(db.file(name)).unwrap();
        }
        let victim = other.file(name);
        let before = fs::read(&victim).unwrap();
        symlink(&victim, db.file(name)).unwrap();
        assert_refuses_link(&db, &["put", "2024-01-01T00:00:05Z", "7"], name);
        assert_refuses_link(
            &db,
            &["delete", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"],
            name,
        );
        assert_refuses_link(&db, &["get", "2024-01-01T00:00:00Z"], name);
        assert_refuses_link(
            &db,
            &["range", "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"],
            name,
        );
        assert_refuses_link(&db, &["stat"], name);
        assert_eq!(
            fs::read(&victim).unwrap(),
            before,
            "{layout}: written through a link"
        );
        assert_eq!(
            other.ok(&["get", "2024-01-01T00:00:00Z"]),
            "time,v\n2024-01-01T00:00:00Z,1\n"
        );
    }
}

#[test]
fn a_dangling_partition_link_is_refused_not_created_through() {
    let db = grid_db();
    let nowhere = db.path.parent().unwrap().join("nowhere.xs");
    symlink(&nowhere, db.file("2025.xs")).unwrap();
    assert_refuses_link(&db, &["put", "2025-01-01T00:00:00Z", "5"], "2025.xs");
    assert!(!nowhere.exists());
    assert!(fs::symlink_metadata(db.file("2025.xs"))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn a_config_link_is_refused() {
    let db = grid_db();
    let other = grid_db();
    fs::remove_file(db.file("xs.toml")).unwrap();
    symlink(other.file("xs.toml"), db.file("xs.toml")).unwrap();
    assert_refuses_link(&db, &["get", "2024-01-01T00:00:00Z"], "xs.toml");
    assert_refuses_link(&db, &["put", "2024-01-01T00:00:00Z", "2"], "xs.toml");
}

/// A named pipe in place of a partition, a data file or the config: every command fails at
/// once (exit 3, naming the file and what it is) instead of waiting forever for a writer to
/// open the pipe, as opening it for reading did.
#[test]
fn a_named_pipe_in_place_of_a_database_file_is_refused_not_waited_on() {
    for (db, name) in [
        (grid_db(), "2023.xs"),
        (bucket_db(), "2024.xs.data"),
        (grid_db(), "xs.toml"),
    ] {
        let path = db.file(name);
        let _ = fs::remove_file(&path);
        let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the NUL-terminated path only.
        assert_eq!(
            unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) },
            0,
            "mkfifo {name}"
        );
        for args in [
            &["range", ".."][..],
            &["get", "2024-01-01T00:00:00Z"],
            &["put", "2024-01-01T00:00:02Z", "3"],
            &["schema"],
            &["stat"],
            &["check"],
        ] {
            let mut cmd = db.xs(args);
            cmd.timeout(std::time::Duration::from_secs(30));
            let (code, out, err) = run(cmd);
            assert_eq!(code, 3, "{name}: xs {args:?}\n{out}{err}");
            assert!(
                err.contains(&format!("{}: it is not a regular file", path.display())),
                "{name}: xs {args:?}: {err}"
            );
        }
    }
}

#[test]
fn the_database_path_itself_may_be_a_link() {
    let db = grid_db();
    let link = db.path.parent().unwrap().join("alias");
    symlink(&db.path, &link).unwrap();
    let mut cmd = xs();
    cmd.arg("-d")
        .arg(&link)
        .args(["put", "2024-01-01T00:00:03Z", "4"]);
    let (code, _, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        db.ok(&["get", "2024-01-01T00:00:03Z"]),
        "time,v\n2024-01-01T00:00:03Z,4\n"
    );
}

/// `n` columns of `str(4096)`.
fn wide_columns(n: usize) -> String {
    (0..n)
        .map(|i| format!("c{i}:str(4096)"))
        .collect::<Vec<_>>()
        .join(",")
}

#[test]
fn create_refuses_a_slot_past_the_memory_bound_with_the_arithmetic() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    // The config: put and get died with "memory allocation of 268439617410 bytes failed".
    for (columns, needle) in [
        (
            wide_columns(1000),
            "rows of 4096126 bytes (1000 columns) are past the bound of 1048576 bytes",
        ),
        (
            wide_columns(100),
            "a slot of depth 65535 × rows of 409613 bytes = 26843987955 bytes (25.0 GiB) is past the \
             bound of 16777216 bytes (16.0 MiB)",
        ),
    ] {
        let mut cmd = xs();
        cmd.arg("create").arg(&dir).args([
            "--layout",
            "grid",
            "--granularity",
            "1d",
            "--depth",
            "65535",
            "--columns",
            &columns,
        ]);
        let (code, _, stderr) = run(cmd);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains(needle), "{stderr}");
        assert!(!dir.join("xs.toml").exists());
    }
    // The largest depth that fits is named, and it is accepted.
    let mut cmd = xs();
    cmd.arg("create").arg(&dir).args([
        "--layout",
        "grid",
        "--granularity",
        "1d",
        "--depth",
        "40",
        "--columns",
        &wide_columns(100),
    ]);
    let (code, _, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn an_edited_config_past_the_memory_bound_is_refused_not_aborted_on() {
    let db = TestDb::create("1d", &wide_columns(100), &["--layout", "grid", "--depth", "2"]);
    let config = fs::read_to_string(db.file("xs.toml")).unwrap();
    fs::write(db.file("xs.toml"), config.replace("depth = 2", "depth = 65535")).unwrap();
    for args in [&["get", "2024-01-01"][..], &["put", "2024-01-01", "x"]] {
        let (code, _, stderr) = run(db.xs(args));
        assert_eq!(code, 3, "{args:?}: {stderr}");
        assert!(stderr.contains("xs.toml: a slot of depth 65535"), "{stderr}");
        assert!(stderr.contains("past the bound of 16777216 bytes"), "{stderr}");
    }
}

/// Runs `xs -d DB ARGS…` and asserts exit 3 with `needle` in the message and no raw OS error.
fn assert_fails_with(db: &TestDb, args: &[&str], needle: &str) {
    let (code, stdout, stderr) = run(db.xs(args));
    assert_eq!(code, 3, "xs {args:?}\nstdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stderr.contains(needle), "xs {args:?}: {stderr}");
    assert!(!stderr.contains("os error"), "{stderr}");
}

const READS: [&[&str]; 4] = [
    &["get", "2024-01-01T00:00:00Z"],
    &["range", "2020-01-01", "2030-01-01"],
    &["stat"],
    &["export", "-o", "-"],
];

#[test]
fn a_partition_period_edited_into_the_config_is_an_error_not_an_empty_answer() {
    for db in [grid_db(), bucket_db()] {
        let config = fs::read_to_string(db.file("xs.toml")).unwrap();
        fs::write(
            db.file("xs.toml"),
            config.replace("partition = \"year\"", "partition = \"month\""),
        )
        .unwrap();
        let needle = format!(
            "{} is the file of a year partition, but xs.toml says partition = \"month\"; restore partition = \"year\"",
            db.file("2024.xs").display()
        );
        for args in READS
            .iter()
            .chain([&["put", "2024-01-01T00:00:01Z", "2"][..]].iter())
        {
            assert_fails_with(&db, args, &needle);
        }
    }
}

#[test]
fn a_header_that_does_not_match_the_config_is_an_error_even_for_other_partitions() {
    for db in [grid_db(), bucket_db()] {
        let config = fs::read_to_string(db.file("xs.toml")).unwrap();
        fs::write(
            db.file("xs.toml"),
            config.replace("granularity = \"1s\"", "granularity = \"2s\""),
        )
        .unwrap();
        // 2025 has no file: before, this read as "nothing there" (exit 1 / an empty range).
        for args in [
            &["get", "2025-01-01T00:00:00Z"][..],
            &["range", "2025-01-01", "2026-01-01"],
        ] {
            assert_fails_with(
                &db,
                args,
                "its granularity (ns) is 1000000000, this database has 2000000000",
            );
        }
        assert_fails_with(
            &db,
            &["get", "2025-01-01T00:00:00Z"],
            "if xs.toml was edited, restore it",
        );
    }
}

#[test]
fn a_missing_bucket_file_is_an_error() {
    let db = bucket_db();
    fs::remove_file(db.file("2024.xs.data")).unwrap();
    let needle = format!("{} is missing", db.file("2024.xs.data").display());
    for args in READS
        .iter()
        .chain([&["put", "2025-01-01T00:00:01Z", "2"][..]].iter())
    {
        assert_fails_with(&db, args, &needle);
    }

    let db = bucket_db();
    fs::remove_file(db.file("2024.xs")).unwrap();
    let needle = format!("{} is missing", db.file("2024.xs").display());
    for args in READS {
        assert_fails_with(&db, args, &needle);
    }
}

#[test]
fn a_partition_that_cannot_be_opened_is_an_error() {
    let db = grid_db();
    db.ok(&["put", "2025-01-01T00:00:00Z", "2"]);
    fs::remove_file(db.file("2025.xs")).unwrap();
    fs::create_dir(db.file("2025.xs")).unwrap();
    for args in [
        &["get", "2025-01-01T00:00:00Z"][..],
        &["range", "2020-01-01", "2030-01-01"],
    ] {
        assert_fails_with(&db, args, &db.file("2025.xs").display().to_string());
    }
}

#[test]
fn empty_databases_and_creation_leftovers_still_read_as_empty() {
    for layout in ["grid", "bucket"] {
        let db = TestDb::create("1s", "v:i64", &["--layout", layout]);
        let (code, _, stderr) = run(db.xs(&["get", "2024-01-01T00:00:00Z"]));
        assert_eq!(code, 1, "{stderr}");
        assert_eq!(db.ok(&["range", "2020-01-01", "2030-01-01"]), "time,v\n");
        db.ok(&["stat"]);
    }
    // A bucket partition's data file is created before its directory: a crash between the
    // two leaves a data file of only its header, which the next write replaces.
    let db = bucket_db();
    fs::write(db.file("2025.xs.data"), vec![0u8; 4096]).unwrap();
    assert_eq!(db.ok(&["range", "2025-01-01", "2026-01-01"]), "time,v\n");
    db.ok(&["put", "2025-01-01T00:00:00Z", "5"]);
    assert_eq!(
        db.ok(&["get", "2025-01-01T00:00:00Z"]),
        "time,v\n2025-01-01T00:00:00Z,5\n"
    );
}
#[test]
fn a_stale_config_temporary_link_is_replaced_at_create() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("target");
    fs::write(&target, "precious, not xs's\n").unwrap();
    let dir = tmp.path().join("db");
    fs::create_dir(&dir).unwrap();
    // An import killed while creating leaves these; the re-run must not write through them.
    fs::write(dir.join(".lock"), "").unwrap();
    symlink(&target, dir.join(".xs.toml.tmp")).unwrap();
    let csv = tmp.path().join("in.csv");
    fs::write(&csv, "time,v\n2024-01-01T00:00:00Z,1\n2024-01-01T00:00:01Z,2\n").unwrap();
    let out = xs().arg("-d").arg(&dir).arg("import").arg(&csv).output().unwrap();
    common::assert_success(&out, &["import"]);
    assert_untouched(&target);
    assert!(fs::symlink_metadata(dir.join("xs.toml"))
        .unwrap()
        .file_type()
        .is_file());
}

/// A temp dir with `db` (not created) and a CSV `in.csv` of `rows` rows from 2024-01-01.
fn csv_input(tmp: &Path, name: &str, first_s: u32, rows: u32) -> PathBuf {
    let mut text = String::from("time,v\n");
    for i in first_s..first_s + rows {
        text.push_str(&format!("2024-01-01T00:{:02}:{:02}Z,{i}\n", i / 60, i % 60));
    }
    let path = tmp.join(name);
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn an_import_killed_while_creating_the_database_is_completed_by_a_rerun() {
    for layout in ["grid", "bucket"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        let csv = csv_input(tmp.path(), "in.csv", 0, 30);
        // What a kill before the rename of xs.toml leaves: the lock and a partial temp config.
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join(".lock"), "pid 999999").unwrap();
        fs::write(dir.join(".xs.toml.tmp"), "# xs database config\nformat = 1\nlayo").unwrap();
        let mut cmd = xs();
        cmd.env("XS_LAYOUT", layout)
            .arg("-d")
            .arg(&dir)
            .arg("import")
            .arg(&csv);
        let (code, _, stderr) = run(cmd);
        assert_eq!(code, 0, "{layout}: {stderr}");
        assert!(!dir.join(".xs.toml.tmp").exists());
        let mut cmd = xs();
        cmd.arg("-d")
            .arg(&dir)
            .args(["range", "2024-01-01", "2024-01-02", "--no-header"]);
        let (code, stdout, stderr) = run(cmd);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout.lines().count(), 30, "{layout}: {stdout}");

        // `xs create` completes such a leftover too; anything else in the directory is refused.
        let dir = tmp.path().join("made");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join(".lock"), "").unwrap();
        fs::write(dir.join(".xs.toml.tmp"), "").unwrap();
        let create = |dir: &Path| {
            let mut cmd = xs();
            cmd.arg("create").arg(dir).args([
                "--layout",
                layout,
                "--granularity",
                "1s",
                "--columns",
                "v:i64",
            ]);
            run(cmd)
        };
        let (code, _, stderr) = create(&dir);
        assert_eq!(code, 0, "{stderr}");
        let (code, _, stderr) = create(&dir);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("already exists"), "{stderr}");
        let other = tmp.path().join("other");
        fs::create_dir(&other).unwrap();
        fs::write(other.join("notes.txt"), "mine").unwrap();
        let (code, _, stderr) = create(&other);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("already exists"), "{stderr}");
    }
}

#[test]
fn two_waiting_imports_into_a_database_that_does_not_exist_yet_both_succeed() {
    let bin = assert_cmd::cargo::cargo_bin("xs");
    for round in 0..20 {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        let a = csv_input(tmp.path(), "a.csv", 0, 40);
        let b = csv_input(tmp.path(), "b.csv", 100, 40);
        let spawn = |csv: &Path| {
            std::process::Command::new(&bin)
                .env_remove("XS_DB")
                .env_remove("XS_LAYOUT")
                .arg("-d")
                .arg(&dir)
                .args(["--wait", "import"])
                .arg(csv)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (first, second) = (spawn(&a), spawn(&b));
        for child in [first, second] {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: exit {:?}\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let mut cmd = xs();
        cmd.arg("-d")
            .arg(&dir)
            .args(["range", "2024-01-01", "2024-01-02", "--no-header"]);
        let (code, stdout, stderr) = run(cmd);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout.lines().count(), 80, "round {round}: {stdout}");
    }
}

#[test]
fn a_defrag_interrupted_between_its_renames_is_reported_without_advice_that_hides_data() {
    let db = bucket_db();
    // A second write to the same bucket leaves garbage, so that defrag rewrites the files.
    db.ok(&["put", "2024-01-01T00:00:01Z", "2"]);
    let copy = db.path.with_file_name("copy");
    fs::create_dir(&copy).unwrap();
    for name in ["xs.toml", "2024.xs", "2024.xs.data"] {
        common::sparse_copy(&db.file(name), &copy.join(name));
    }
    let mut cmd = xs();
    cmd.arg("-d").arg(&copy).arg("defrag");
    let (code, _, stderr) = run(cmd);
    assert_eq!(code, 0, "{stderr}");
    // The state after the first of defrag's two renames.
    common::sparse_copy(&copy.join("2024.xs.data"), &db.file("2024.xs.data"));
    common::sparse_copy(&copy.join("2024.xs"), &db.file(".2024.xs.dir.defrag"));
    let (code, _, stderr) = run(db.xs(&["range", "2024-01-01", "2025-01-01"]));
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("nothing is lost") && stderr.contains("xs defrag"),
        "{stderr}"
    );
    assert!(!stderr.contains("move it out"), "{stderr}");
    // Without the pending directory nothing can finish it: never advise moving a file out.
    fs::remove_file(db.file(".2024.xs.dir.defrag")).unwrap();
    let (code, _, stderr) = run(db.xs(&["get", "2024-01-01T00:00:00Z"]));
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("restore this partition from a backup"),
        "{stderr}"
    );
    assert!(!stderr.contains("move it out"), "{stderr}");
}

#[test]
fn a_delete_that_stops_halfway_leaves_a_marker_with_the_command_that_completes_it() {
    let db = bucket_db();
    db.ok(&["put", "2024-06-01T00:00:00Z", "2"]);
    db.ok(&["put", "2025-01-01T00:00:00Z", "3"]);
    // A clean delete leaves no marker.
    db.ok(&["delete", "2024-06-01T00:00:00Z"]);
    assert!(!db.file(".delete-unfinished").exists());
    db.ok(&["put", "2024-06-01T00:00:00Z", "2"]);
    // Damage the 2025 record that the delete rewrites (its bucket straddles the window's
    // end): the delete stops after 2024, as a kill there would stop it. (A partition that
    // cannot be opened is refused before anything changes.)
    let data = db.file("2025.xs.data");
    let saved = fs::read(&data).unwrap();
    let mut damaged = saved.clone();
    *damaged.last_mut().unwrap() ^= 0xff;
    fs::write(&data, damaged).unwrap();
    let (code, _, stderr) = run(db.xs(&["delete", "2024-01-01", "2025-01-01T00:00:30Z"]));
    assert_eq!(code, 6, "{stderr}");
    let marker = fs::read_to_string(db.file(".delete-unfinished")).unwrap();
    let rerun = marker.lines().next().unwrap().to_string();
    assert!(
        rerun.ends_with(" delete 2024-01-01T00:00:00Z 2025-01-01T00:00:30Z"),
        "{marker}"
    );
    fs::write(&data, saved).unwrap();
    // Every command says so, with the command to run.
    let (code, stdout, stderr) = run(db.xs(&["range", "2024-01-01", "2026-01-01", "--no-header"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout, "2025-01-01T00:00:00Z,3\n",
        "2024 was deleted, 2025 not yet"
    );
    assert!(
        stderr.contains("a delete in") && stderr.contains("did not finish") && stderr.contains(&rerun),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_str(&db.ok(&["stat", "--json"])).unwrap();
    assert_eq!(report["unfinished_deletes"][0], rerun.as_str());
    // Running it again completes it and removes the marker.
    let words: Vec<&str> = rerun.split(' ').collect();
    let n = words.len();
    db.ok(&["delete", words[n - 2], words[n - 1]]);
    assert!(!db.file(".delete-unfinished").exists());
    assert_eq!(db.ok(&["range", "2024-01-01", "2026-01-01", "--no-header"]), "");
}

/// Regression: a delete refused at a partition file it cannot open (a link, here) left
/// `.delete-unfinished` behind, though it had changed nothing, and every later command warned
/// that a delete did not finish. The partitions are opened before the marker is written.
#[test]
fn a_refused_delete_leaves_no_marker() {
    for db in [grid_db(), bucket_db()] {
        db.ok(&["put", "2025-01-01T00:00:00Z", "2"]);
        db.ok(&["put", "2026-01-01T00:00:00Z", "3"]);
        // The middle partition: the database opens (it checks the first) and the delete
        // reaches the link only when it opens 2025.
        let moved = db.path.with_file_name("2025.xs.moved");
        fs::rename(db.file("2025.xs"), &moved).unwrap();
        symlink(&moved, db.file("2025.xs")).unwrap();
        for window in [&["2025-01-01T00:00:00Z"][..], &["2024-01-01", "2027-01-01"]] {
            let mut args = vec!["delete"];
            args.extend_from_slice(window);
            assert_refuses_link(&db, &args, "2025.xs");
            assert!(
                !db.file(".delete-unfinished").exists(),
                "xs {args:?} left a marker"
            );
        }
        fs::remove_file(db.file("2025.xs")).unwrap();
        fs::rename(&moved, db.file("2025.xs")).unwrap();
        let (code, stdout, stderr) = run(db.xs(&["range", "2024-01-01", "2027-01-01", "--no-header"]));
        assert_eq!(code, 0, "{stderr}");
        assert!(!stderr.contains("did not finish"), "{stderr}");
        assert_eq!(
            stdout, "2024-01-01T00:00:00Z,1\n2025-01-01T00:00:00Z,2\n2026-01-01T00:00:00Z,3\n",
            "nothing was deleted"
        );
    }
}

#[test]
fn a_rejects_file_link_inside_the_database_is_refused() {
    let db = grid_db();
    let target = outside_file(&db, "target");
    symlink(&target, db.file("rejects.csv")).unwrap();
    let csv = db.path.parent().unwrap().join("in.csv");
    fs::write(
        &csv,
        "time,v\n2024-01-01T00:00:02Z,3\n2024-01-01T00:00:03Z,oops\n",
    )
    .unwrap();
    let rejects = db.file("rejects.csv").display().to_string();
    assert_refuses_link(
        &db,
        &["import", csv.to_str().unwrap(), "--rejects", &rejects],
        "rejects.csv",
    );
    assert_untouched(&target);
}

#[test]
fn import_refuses_to_create_a_slot_past_the_memory_bound() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("wide.csv");
    let long = "x".repeat(300);
    fs::write(
        &csv,
        format!("time,name,v\n2024-01-01T00:00:00Z,{long},1\n2024-01-01T00:00:01Z,y,2\n"),
    )
    .unwrap();
    let dir = tmp.path().join("db");
    let mut cmd = xs();
    cmd.arg("-d")
        .arg(&dir)
        .args(["import", "--layout", "grid", "--depth", "65535"])
        .arg(&csv);
    let (code, _, stderr) = run(cmd);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("a slot of depth 65535 × rows of")
            && stderr.contains("past the bound of 16777216 bytes"),
        "{stderr}"
    );
    assert!(!dir.exists(), "nothing is created");
}

#[test]
fn an_import_killed_at_any_early_moment_is_completed_by_a_rerun() {
    let bin = assert_cmd::cargo::cargo_bin("xs");
    let tmp = tempfile::tempdir().unwrap();
    let csv = csv_input(tmp.path(), "in.csv", 0, 200);
    for round in 0..20u64 {
        let dir = tmp.path().join(format!("db{round}"));
        let mut child = std::process::Command::new(&bin)
            .env_remove("XS_DB")
            .env_remove("XS_LAYOUT")
            .arg("-d")
            .arg(&dir)
            .arg("import")
            .arg(&csv)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Spread the kills over the first ~20 ms, where the database is being created.
        std::thread::sleep(std::time::Duration::from_micros(round * 1000));
        let _ = child.kill();
        let _ = child.wait();
        let mut cmd = xs();
        cmd.arg("-d").arg(&dir).arg("import").arg(&csv);
        let (code, _, stderr) = run(cmd);
        assert_eq!(code, 0, "round {round}: {stderr}");
        let mut cmd = xs();
        cmd.arg("-d")
            .arg(&dir)
            .args(["range", "2024-01-01", "2024-01-02", "--no-header"]);
        let (code, stdout, stderr) = run(cmd);
        assert_eq!(code, 0, "round {round}: {stderr}");
        assert_eq!(stdout.lines().count(), 200, "round {round}");
        assert!(!dir.join(".import-unfinished").exists(), "round {round}");
    }
}

#[test]
fn a_killed_delete_is_either_whole_untouched_or_marked() {
    let bin = assert_cmd::cargo::cargo_bin("xs");
    let tmp = tempfile::tempdir().unwrap();
    let mut text = String::from("time,v\n");
    for year in 1990..2030 {
        for month in 1..=12 {
            text.push_str(&format!("{year}-{month:02}-01T00:00:00Z,{month}\n"));
        }
    }
    let csv = tmp.path().join("in.csv");
    fs::write(&csv, text).unwrap();
    let mut marked = 0;
    for round in 0..20u64 {
        let dir = tmp.path().join(format!("db{round}"));
        let mut cmd = xs();
        cmd.arg("-d")
            .arg(&dir)
            .args([
                "import",
                "--no-sync",
                "--layout",
                if round % 2 == 0 { "grid" } else { "bucket" },
            ])
            .arg(&csv);
        let (code, _, stderr) = run(cmd);
        assert_eq!(code, 0, "{stderr}");
        let mut child = std::process::Command::new(&bin)
            .env_remove("XS_DB")
            .arg("-d")
            .arg(&dir)
            .args(["delete", "1990-01-01", "2030-01-01"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_micros(round * 1500));
        let _ = child.kill();
        let _ = child.wait();
        let range = || {
            let mut cmd = xs();
            cmd.arg("-d")
                .arg(&dir)
                .args(["range", "1990-01-01", "2030-01-01", "--no-header"]);
            let (code, stdout, stderr) = run(cmd);
            assert_eq!(code, 0, "round {round}: {stderr}");
            stdout.lines().count()
        };
        let left = range();
        let marker = db_marker(&dir);
        if marker.is_empty() {
            assert!(
                left == 0 || left == 480,
                "round {round}: {left} rows left and no marker"
            );
            continue;
        }
        marked += 1;
        let words: Vec<&str> = marker[0].split(' ').collect();
        let mut cmd = xs();
        cmd.arg("-d")
            .arg(&dir)
            .args(["delete", words[words.len() - 2], words[words.len() - 1]]);
        let (code, _, stderr) = run(cmd);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(range(), 0, "round {round}: the re-run deletes the rest");
        assert!(db_marker(&dir).is_empty());
    }
    eprintln!("{marked} of 20 kills left a marker");
}

fn db_marker(dir: &Path) -> Vec<String> {
    fs::read_to_string(dir.join(".delete-unfinished"))
        .map(|t| t.lines().map(str::to_string).collect())
        .unwrap_or_default()
}
