//! `xs export`: files, stdout, zstd, windows, `--split`, and the round trip through `xs import`
//! back to byte-identical partition files.

#[path = "readout_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};

use support::{create, layout, ok, partition_files, s, xs, xs_std};
use tempfile::TempDir;

const CREATE: &[&str] = &[
    "-g",
    "1ms",
    "-c",
    "a:i8,b:i16,c:i32,d:i64,e:u8,f:u16,g:u32,h:u64,x:f32,y:f64,ok:bool,name:str(12)",
    "--depth",
    "3",
];

/// Every type, nulls, extremes, awkward text, three rows at one timestamp, three years
/// (one before 1970).
fn every_type() -> (TempDir, PathBuf) {
    let (tmp, db) = create("db", CREATE);
    let d = s(&db);
    let rows: &[(&str, bool, &[&str])] = &[
        (
            "1969-07-20T20:17:40.000Z",
            false,
            &[
                "-128",
                "-32768",
                "-2147483648",
                "-9223372036854775808",
                "0",
                "0",
                "0",
                "0",
                "-0.0",
                "5e-324",
                "false",
                "moon",
            ],
        ),
        (
            "2021-03-04T05:06:07.089Z",
            false,
            &[
                "127",
                "32767",
                "2147483647",
                "9223372036854775807",
                "255",
                "65535",
                "4294967295",
                "18446744073709551615",
                "3.4028235e38",
                "1.7976931348623157e308",
                "true",
                "a,\"b\"\nc",
            ],
        ),
        (
            "2021-03-04T05:06:07.089Z",
            true,
            &["", "", "", "", "", "", "", "", "", "", "", ""],
        ),
        (
            "2021-03-04T05:06:07.089Z",
            true,
            &["1", "", "3", "", "5", "", "7", "", "NaN", "-inf", "", "é ü 日本"],
        ),
        (
            "2021-12-31T23:59:59.999Z",
            false,
            &[
                "0", "1", "2", "3", "4", "5", "6", "7", "0.1", "0.1", "true", " spaced ",
            ],
        ),
        (
            "2024-02-29T12:00:00.000Z",
            false,
            &[
                "-1",
                "-1",
                "-1",
                "-1",
                "1",
                "1",
                "1",
                "1",
                "1e-45",
                "1e-300",
                "false",
                "tab\there",
            ],
        ),
    ];
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "x", "y", "ok", "name"];
    for (t, append, values) in rows {
        let mut args = vec!["-d", d, "put"];
        if *append {
            args.push("--append");
        }
        args.push(t);
        let pairs: Vec<String> = names
            .iter()
            .zip(values.iter())
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        args.extend(pairs.iter().map(String::as_str));
        ok(&args);
    }
    (tmp, db)
}

fn all_rows(db: &Path) -> String {
    ok(&["-d", s(db), "range", "1678-01-01", "2261-12-31"])
}

fn zstd_text(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("read export");
    String::from_utf8(zstd::decode_all(&bytes[..]).expect("valid zstd")).expect("UTF-8")
}

#[test]
fn export_to_a_file_equals_range_output() {
    let (tmp, db) = every_type();
    let expected = all_rows(&db);
    assert_eq!(
        expected.lines().count(),
        1 + 6 + 1,
        "one quoted field spans two lines"
    );
    let csv = tmp.path().join("all.csv");
    ok(&["-d", s(&db), "export", "-o", s(&csv)]);
    assert_eq!(std::fs::read_to_string(&csv).expect("read"), expected);

    let zst = tmp.path().join("all.csv.zst");
    ok(&["-d", s(&db), "export", "-o", s(&zst), "--level", "19"]);
    assert_eq!(zstd_text(&zst), expected);

    assert_eq!(ok(&["-d", s(&db), "export", "-o", "-"]), expected);
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("read dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

/// Regression: `export -o /dev/stdout -f csv > out.csv` said "exported … rows" and left out.csv
/// empty: the rows went to a temporary file renamed over the /dev/stdout link.
#[test]
fn export_to_dev_stdout_on_a_file_writes_the_rows_into_that_file() {
    let (tmp, db) = every_type();
    let expected = all_rows(&db);
    let captured = tmp.path().join("out.csv");
    let out = xs_std()
        .args(["-d", s(&db), "export", "-o", "/dev/stdout", "-f", "csv"])
        .stdout(std::fs::File::create(&captured).expect("create out.csv"))
        .output()
        .expect("xs runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("exported 6 rows to /dev/stdout"), "{err}");
    assert_eq!(std::fs::read_to_string(&captured).expect("read"), expected);
    assert!(
        std::fs::symlink_metadata("/dev/stdout")
            .expect("/dev/stdout")
            .file_type()
            .is_symlink(),
        "/dev/stdout is still a link"
    );
}

#[test]
fn export_takes_a_window_and_a_format_from_the_file_name() {
    let (tmp, db) = every_type();
    let out = tmp.path().join("w.ndjson");
    ok(&[
        "-d",
        s(&db),
        "export",
        "--from",
        "2021-01-01",
        "--to",
        "2022-01-01",
        "-o",
        s(&out),
    ]);
    let text = std::fs::read_to_string(&out).expect("read");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
        .collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0]["h"], u64::MAX);
    assert_eq!(rows[0]["name"], "a,\"b\"\nc");
    assert!(rows[1]["a"].is_null() && rows[1]["name"].is_null());
    assert!(
        rows[2]["x"].is_null() && rows[2]["y"].is_null(),
        "NaN and -inf print as null"
    );
    assert_eq!(rows[3]["time"], "2021-12-31T23:59:59.999Z");
}

#[test]
fn split_writes_one_file_per_year_with_rows() {
    let (tmp, db) = every_type();
    let dir = tmp.path().join("dump");
    ok(&["-d", s(&db), "export", "--split", "year", "-o", s(&dir)]);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["1969.csv", "2021.csv", "2024.csv"]);
    let full = all_rows(&db);
    let header = full.lines().next().expect("header");
    let mut joined = format!("{header}\n");
    for name in &names {
        let text = std::fs::read_to_string(dir.join(name)).expect("read");
        let body = text
            .strip_prefix(&format!("{header}\n"))
            .expect("each file has the header");
        joined.push_str(body);
    }
    assert_eq!(joined, full);

    let zdir = tmp.path().join("zdump");
    ok(&[
        "-d",
        s(&db),
        "export",
        "--split",
        "year",
        "--compress",
        "zstd",
        "--from",
        "2000-01-01",
        "-o",
        s(&zdir),
    ]);
    assert!(!zdir.join("1969.csv.zst").exists(), "outside the window");
    assert_eq!(
        zstd_text(&zdir.join("2024.csv.zst")),
        std::fs::read_to_string(dir.join("2024.csv")).expect("read")
    );
}

/// A Parquet dataset split into `year=…/month=…/` directories, of a database with a column
/// named `year`: DuckDB and Polars read the directory's 2024 in place of the stored 2023.
/// Refused, naming the column and the ways out; `--columns` without it writes.
#[test]
fn a_column_named_like_a_hive_level_is_not_split_into_its_directories() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let db = tmp.path().join("db");
    let csv = tmp.path().join("y.csv");
    std::fs::write(
        &csv,
        "time,year,v\n2024-01-05T00:00:00Z,2023,1\n2024-02-05T00:00:00Z,2024,2\n",
    )
    .unwrap();
    ok(&["-d", s(&db), "import", s(&csv), "-q"]);
    let dir = tmp.path().join("ds");
    let args = [
        "-d",
        s(&db),
        "export",
        "--split",
        "month",
        "-f",
        "parquet",
        "-o",
        s(&dir),
    ];
    let out = xs().args(args).output().expect("run xs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("column `year`") && err.contains("--rename year=NEW"),
        "{err}"
    );
    assert!(!dir.join("year=2024").exists());
    ok(&[&args[..], &["--columns", "time,v"]].concat());
    assert!(dir.join("year=2024").join("month=02").exists());
}

#[test]
fn bad_export_arguments_are_usage_errors() {
    let (tmp, db) = every_type();
    for (args, message) in [
        (vec!["export", "--split", "year", "-o", "-"], "give -o DIR"),
        (vec!["export", "-o", "x.csv.zst", "--level", "99"], "out of range"),
        (
            vec![
                "export",
                "-o",
                "x.csv",
                "--from",
                "2022-01-01",
                "--to",
                "2021-01-01",
            ],
            "is after --to",
        ),
        (
            vec!["export", "-o", "no/such/dir/x.csv"],
            "directory no/such/dir does not exist",
        ),
    ] {
        let out = xs()
            .current_dir(tmp.path())
            .args(["-d", s(&db)])
            .args(&args)
            .output()
            .expect("xs runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// Creates an empty database with the same schema and imports `files` into it.
fn import_copy(tmp: &TempDir, name: &str, files: &[PathBuf]) -> PathBuf {
    let copy = tmp.path().join(name);
    let mut args = vec!["create", s(&copy)];
    args.extend_from_slice(CREATE);
    ok(&args);
    let mut args = vec!["-d", s(&copy), "import"];
    args.extend(files.iter().map(|f| s(f)));
    ok(&args);
    copy
}

/// The partition files of `db`; a bucket database is defragmented first, because rows put
/// one by one leave old bucket versions as garbage that an import of the export does not
/// have; defrag writes the live records in time order, which is what an import writes. The
/// data file's generation (docs/FORMAT.md: bumped by each rewrite, outside the header's
/// check) is masked: a defragmented original and a fresh import differ there by design.
fn compacted_partition_files(db: &Path) -> Vec<support::PartitionImage> {
    if layout() != "bucket" {
        return partition_files(db);
    }
    ok(&["-d", s(db), "defrag"]);
    // The generation's offset in a data file's header block, and in a directory's.
    const DATA_GENERATION: usize = 72;
    const DIR_GENERATION: usize = 80;
    let mut files = partition_files(db);
    for (name, _, blocks) in &mut files {
        let at = if name.ends_with(".xs.data") {
            DATA_GENERATION
        } else {
            DIR_GENERATION
        };
        if let Some((0, header)) = blocks.first_mut() {
            header[at..at + 8].fill(0);
        }
    }
    files
}

#[test]
fn csv_and_zstd_exports_import_back_to_identical_partition_files() {
    let (tmp, db) = every_type();
    let original = compacted_partition_files(&db);
    let files = if layout() == "bucket" { 6 } else { 3 };
    assert_eq!(original.len(), files);
    assert!(
        original.iter().all(|(_, _, blocks)| !blocks.is_empty()),
        "every year holds data"
    );
    for name in ["all.csv", "all.csv.zst"] {
        let file = tmp.path().join(name);
        ok(&["-d", s(&db), "export", "-o", s(&file)]);
        let copy = import_copy(&tmp, &format!("copy-{name}"), &[file]);
        assert!(
            compacted_partition_files(&copy) == original,
            "{name}: partition files differ after the round trip"
        );
    }
}

#[test]
fn split_exports_import_back_to_identical_partition_files() {
    let (tmp, db) = every_type();
    let original = compacted_partition_files(&db);
    for compress in ["none", "zstd"] {
        let dir = tmp.path().join(format!("dump-{compress}"));
        ok(&[
            "-d",
            s(&db),
            "export",
            "--split",
            "year",
            "--compress",
            compress,
            "-o",
            s(&dir),
        ]);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("read dir")
            .map(|e| e.expect("entry").path())
            .collect();
        files.sort();
        assert_eq!(files.len(), 3);
        let copy = import_copy(&tmp, &format!("copy-{compress}"), &files);
        assert!(
            compacted_partition_files(&copy) == original,
            "--split {compress}: partition files differ"
        );
    }
}
