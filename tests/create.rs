//! `xs create` and opening databases: config validation, partition sizing, refusal to overwrite.

mod common;

use common::{assert_no_panic, layout, run, sparse_copy, xs, TestDb};
use std::fs;

#[test]
fn create_writes_a_versioned_config_and_says_what_it_made() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("trades");
    let (code, _, stderr) = run({
        let mut c = xs();
        c.arg("create")
            .arg(&db)
            .args(["-g", "1ms", "-c", "price:f64,qty:f64,side:str(4)", "--depth", "4"]);
        c
    });
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("rows of 21 bytes"), "{stderr}"); // 1 flag byte + 8 + 8 + 4
    let layout_words = if layout() == "bucket" {
        "bucket layout with 1s raw buckets"
    } else {
        "depth 4"
    };
    assert!(
        stderr.contains(layout_words) && stderr.contains("year partitions"),
        "{stderr}"
    );
    let config = fs::read_to_string(db.join("xs.toml")).unwrap();
    assert!(config.contains("format = 1"), "{config}");
    assert!(config.contains("granularity = \"1ms\""), "{config}");
    assert!(config.contains("row_len = 21"), "{config}");
}

#[test]
fn create_refuses_to_overwrite() {
    let db = TestDb::create("1s", "v:f64", &[]);
    let (code, _, stderr) = run({
        let mut c = xs();
        c.arg("create").arg(&db.path).args(["-g", "1s", "-c", "v:f64"]);
        c
    });
    assert_eq!(code, 2);
    assert!(stderr.contains("already exists"), "{stderr}");
    let tmp = tempfile::tempdir().unwrap();
    fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
    let (code, _, stderr) = run({
        let mut c = xs();
        c.arg("create").arg(tmp.path()).args(["-g", "1s", "-c", "v:f64"]);
        c
    });
    assert_eq!(code, 2, "a non-empty directory is not taken over");
    assert!(stderr.contains("already exists"), "{stderr}");
}

#[test]
fn create_rejects_bad_granularity_and_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["-g", "7s", "-c", "v:f64"], "does not divide one day"),
        (&["-g", "1y", "-c", "v:f64"], "bad granularity"),
        (&["-g", "1s", "-c", "v:f128"], "unknown type"),
        (&["-g", "1s", "-c", "v:str(0)"], "bad string length"),
        (&["-g", "1s", "-c", "v:f64,v:i8"], "appears twice"),
        (&["-g", "1s", "-c", "time:f64"], "time column"),
    ];
    for (args, needle) in cases {
        let mut c = xs();
        c.arg("create").arg(tmp.path().join("db")).args(args);
        let (code, _, stderr) = run(c);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!tmp.path().join("db").join("xs.toml").exists());
    }
}

#[test]
fn fine_granularity_gets_day_partitions_and_too_fine_is_refused_with_arithmetic() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("us");
    let mut c = xs();
    c.arg("create").arg(&db).args(["-g", "1us", "-c", "v:f64"]);
    let (code, _, stderr) = run(c);
    assert_eq!(code, 0, "{stderr}");
    if layout() == "bucket" {
        // Buckets keep the directory small whatever the granularity: year partitions, and
        // nanoseconds are storable.
        assert!(stderr.contains("year partitions"), "{stderr}");
        let mut c = xs();
        c.arg("create")
            .arg(tmp.path().join("ns"))
            .args(["-g", "1ns", "-c", "v:f64"]);
        let (code, _, stderr) = run(c);
        assert_eq!(code, 0, "{stderr}");
        xs().arg("-d")
            .arg(tmp.path().join("ns"))
            .args(["put", "2024-02-29T10:00:00.000000001Z", "1.5"])
            .assert()
            .success();
        assert!(tmp.path().join("ns/2024.xs").exists());
        return;
    }
    assert!(stderr.contains("using day partitions"), "{stderr}");
    xs().arg("-d")
        .arg(&db)
        .args(["put", "2024-02-29T10:00:00.000001Z", "1.5"])
        .assert()
        .success();
    assert!(db.join("2024-02-29.xs").exists());

    let mut c = xs();
    c.arg("create")
        .arg(tmp.path().join("ns"))
        .args(["-g", "1ns", "-c", "v:f64"]);
    let (code, _, stderr) = run(c);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("86400000000000 slots × 1 rows × 9 bytes"),
        "{stderr}"
    );
}

#[test]
fn corrupt_configs_give_clear_errors_not_panics() {
    let db = TestDb::create("1s", "v:f64,n:i32", &[]);
    let good = fs::read_to_string(db.file("xs.toml")).unwrap();
    let cases = [
        (
            good.replace("format = 1", "format = 9"),
            "format version 9 is not supported",
        ),
        (
            good.replace("row_len = 13", "row_len = 13\nseries_by = [\"n\"]"),
            "series_by and unique_by need `format = 2`",
        ),
        (good.replace("\"i32\"", "\"int\""), "unknown type `int`"),
        (good.replace("row_len = 13", "row_len = 14"), "row_len is 14"),
        (
            good.replace(&format!("layout = \"{}\"", layout()), "layout = \"btree\""),
            "unknown layout",
        ),
        ("\u{0}\u{1}binary garbage".to_string(), "bad database config"),
        (String::new(), "bad database config"),
    ];
    for (text, needle) in cases {
        fs::write(db.file("xs.toml"), &text).unwrap();
        for args in [
            &["get", "2024-01-01"][..],
            &["put", "2024-01-01", "1", "2"],
            &["range", "2024-01-01", "2025-01-01"],
        ] {
            let (code, _, stderr) = run(db.xs(args));
            assert_eq!(code, 3, "{needle}: {stderr}");
            assert!(
                stderr.starts_with("xs: ") && stderr.contains(needle),
                "{needle}: {stderr}"
            );
            assert_no_panic(&stderr);
        }
    }
}

#[test]
fn a_partition_file_from_another_database_is_refused() {
    let a = TestDb::create("1s", "v:f64", &[]);
    let b = TestDb::create("1s", "w:f64", &[]);
    a.ok(&["put", "2024-05-01T00:00:00Z", "1"]);
    b.ok(&["put", "2024-05-01T00:00:00Z", "2"]);
    sparse_copy(&b.file("2024.xs"), &a.file("2024.xs"));
    let (code, _, stderr) = run(a.xs(&["get", "2024-05-01T00:00:00Z"]));
    assert_eq!(code, 3);
    assert!(
        stderr.contains("does not belong to this database") && stderr.contains("schema hash"),
        "{stderr}"
    );

    // A file with another database's granularity is refused for that reason.
    let c = TestDb::create("2s", "v:f64", &[]);
    c.ok(&["put", "2024-05-01T00:00:00Z", "3"]);
    sparse_copy(&c.file("2024.xs"), &a.file("2024.xs"));
    let (code, _, stderr) = run(a.xs(&["get", "2024-05-01T00:00:00Z"]));
    assert_eq!(code, 3);
    assert!(stderr.contains("granularity"), "{stderr}");

    // Garbage under a partition name is refused, not misread.
    fs::write(a.file("2024.xs"), vec![7u8; 10_000]).unwrap();
    let (code, _, stderr) = run(a.xs(&["range", "2024-01-01", "2025-01-01"]));
    assert_eq!(code, 3);
    assert!(stderr.contains("bad magic"), "{stderr}");
}

#[test]
fn the_database_comes_from_the_flag_the_environment_or_the_current_directory() {
    let db = TestDb::create("1s", "v:f64", &[]);
    xs().env("XS_DB", &db.path)
        .args(["put", "2024-01-01T00:00:01Z", "5"])
        .assert()
        .success();
    let out = xs()
        .current_dir(&db.path)
        .args(["get", "2024-01-01T00:00:01Z"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "time,v\n2024-01-01T00:00:01Z,5.0\n"
    );
    let tmp = tempfile::tempdir().unwrap();
    let mut c = xs();
    c.current_dir(tmp.path()).args(["get", "2024-01-01"]);
    let (code, _, stderr) = run(c);
    assert_eq!(code, 2);
    assert!(stderr.contains("pass -d DIR"), "{stderr}");
    let mut c = xs();
    c.arg("-d")
        .arg(tmp.path().join("nope"))
        .args(["get", "2024-01-01"]);
    let (code, _, stderr) = run(c);
    assert_eq!(code, 2);
    assert!(stderr.contains("is not an xs database"), "{stderr}");
    // A path that is a file is not a database either: the same usage error (issue 18).
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let mut c = xs();
    c.arg("-d").arg(&file).args(["get", "2024-01-01"]);
    let (code, _, stderr) = run(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is not an xs database"), "{stderr}");
}

#[test]
fn argument_errors_carry_the_xs_prefix_and_exit_2() {
    for args in [&["nosuch"][..], &["get", "--no-such-flag", "2024-01-01"]] {
        let mut c = xs();
        c.args(args);
        let (code, _, stderr) = run(c);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.starts_with("xs: "), "{args:?}: {stderr}");
        assert!(!stderr.contains("error:"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_missing_input_file_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("missing.csv");
    let db = tmp.path().join("db");
    let mut c = xs();
    c.arg("import").arg(&missing).arg("-d").arg(&db);
    let (code, _, stderr) = run(c);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("missing.csv: no such file or directory"),
        "{stderr}"
    );
    assert!(!stderr.contains("os error"), "{stderr}");
    assert!(!db.exists(), "nothing is created for a mistyped input");
}

#[test]
fn creation_flags_on_an_existing_database_are_said_to_be_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("x.csv");
    std::fs::write(&input, "time,a\n2024-01-01T00:00:00Z,1\n").unwrap();
    let db = tmp.path().join("db");
    let import = |extra: &[&str]| {
        let mut c = xs();
        c.arg("import").arg(&input).arg("-d").arg(&db).args(extra);
        run(c)
    };
    let (code, _, stderr) = import(&[]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = import(&["--layout", "bucket", "--granularity", "1ms"]);
    assert_eq!(code, 0, "{stderr}");
    for flag in ["--layout", "--granularity"] {
        assert!(stderr.contains(&format!("{flag} is ignored")), "{flag}: {stderr}");
    }
}

/// Columnar records need the bucket layout. create, import and defrag (a dry run too) refuse
/// them for a grid. Each says so with exit 2 and says what to do instead, and nothing is
/// written.
#[test]
fn the_columnar_codec_on_a_grid_is_refused_by_create_import_and_defrag() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("g");
    let (code, _, stderr) = run({
        let mut c = xs();
        c.arg("create").arg(&db).args([
            "-g", "1s", "-c", "v:i64", "--layout", "grid", "--codec", "columnar",
        ]);
        c
    });
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("codec columnar needs the bucket layout") && stderr.contains("--layout bucket"),
        "{stderr}"
    );
    assert!(!db.exists());

    let csv = tmp.path().join("v.csv");
    fs::write(&csv, "time,v\n2024-01-01T00:00:00Z,1\n2024-01-01T00:00:01Z,2\n").unwrap();
    let (code, _, stderr) = run({
        let mut c = xs();
        c.arg("import")
            .arg(&csv)
            .arg("-d")
            .arg(&db)
            .args(["--layout", "grid", "--codec", "columnar"]);
        c
    });
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("codec columnar needs the bucket layout") && stderr.contains("drop --layout grid"),
        "{stderr}"
    );
    assert!(!db.join("xs.toml").exists());

    let grid = TestDb::create("1s", "v:i64", &["--layout", "grid"]);
    grid.ok(&["put", "2024-01-01T00:00:00Z", "1"]);
    let config = fs::read_to_string(grid.file("xs.toml")).unwrap();
    for dry in [true, false] {
        let mut args = vec!["defrag", "--codec", "columnar"];
        if dry {
            args.push("--dry-run");
        }
        let (code, _, stderr) = run(grid.xs(&args));
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("codec columnar needs the bucket layout")
                && stderr.contains("export, then import"),
            "{stderr}"
        );
        assert_eq!(fs::read_to_string(grid.file("xs.toml")).unwrap(), config);
    }
}
