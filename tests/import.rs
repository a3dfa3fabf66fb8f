//! `xs import` end to end: formats, dialects, inference, upsert semantics, rejects, crashes.

mod common;

use std::fs;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Output, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use common::{layout, with_layout};
use tempfile::TempDir;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");

fn xs(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("xs").unwrap();
    cmd.current_dir(dir);
    with_layout(&mut cmd);
    cmd
}

/// Runs and returns (exit code, stdout, stderr), printing them on failure of the caller.
fn run(cmd: &mut Command) -> (i32, String, String) {
    let out: Output = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(cmd: &mut Command) -> (String, String) {
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "command {cmd:?} failed\nstdout:\n{out}\nstderr:\n{err}");
    (out, err)
}

fn create(dir: &Path, name: &str, args: &[&str]) {
    ok(xs(dir).args(["create", name]).args(args));
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

/// Every stored row as CSV, header first.
fn range(dir: &Path, db: &str) -> String {
    ok(xs(dir).args(["-d", db, "range", "1970-01-01", "2200-01-01"])).0
}

fn partition_files(db: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            // Grid partition files, and bucket directory (.xs) and data (.xs.data) files.
            let name = p.file_name().unwrap().to_string_lossy();
            !name.starts_with('.') && (name.ends_with(".xs") || name.ends_with(".xs.data"))
        })
        .collect();
    files.sort();
    files
}

/// Data segments of a sparse file (SEEK_DATA / SEEK_HOLE).
fn segments(file: &fs::File) -> Vec<(u64, u64)> {
    let len = file.metadata().unwrap().len();
    let mut out = Vec::new();
    let mut at = 0i64;
    loop {
        // SAFETY: lseek on an open descriptor.
        let start = unsafe { libc::lseek(file.as_raw_fd(), at, libc::SEEK_DATA) };
        if start < 0 {
            break;
        }
        let end = unsafe { libc::lseek(file.as_raw_fd(), start, libc::SEEK_HOLE) };
        let end = if end < 0 { len as i64 } else { end };
        out.push((start as u64, end as u64));
        at = end;
        if end as u64 >= len {
            break;
        }
    }
    out
}

/// Asserts that two databases hold byte-identical partition files (holes read as zeros),
/// reading only where either file has data.
fn assert_same_partitions(a: &Path, b: &Path) {
    let fa = partition_files(a);
    let fb = partition_files(b);
    let names = |v: &[PathBuf]| -> Vec<String> {
        v.iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(names(&fa), names(&fb), "partition files differ");
    for (pa, pb) in fa.iter().zip(&fb) {
        let (x, y) = (fs::File::open(pa).unwrap(), fs::File::open(pb).unwrap());
        assert_eq!(x.metadata().unwrap().len(), y.metadata().unwrap().len());
        let mut ranges = segments(&x);
        ranges.extend(segments(&y));
        for (from, to) in ranges {
            let mut bx = vec![0u8; (to - from) as usize];
            let mut by = vec![0u8; (to - from) as usize];
            x.read_exact_at(&mut bx, from).unwrap();
            y.read_exact_at(&mut by, from).unwrap();
            assert!(
                bx == by,
                "{} and {} differ in [{from}, {to})",
                pa.display(),
                pb.display()
            );
        }
    }
}

fn rejects_text(db: &Path) -> String {
    let mut text = String::new();
    for e in fs::read_dir(db).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_string_lossy().starts_with("rejects-") {
            text.push_str(&fs::read_to_string(p).unwrap());
        }
    }
    text
}

#[test]
fn every_time_format_and_unit() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    // 2024-01-01T00:00:01.250Z in every form; all land on the same 1 ms slot.
    let cases: &[(&str, &[&str])] = &[
        ("1704067201.25", &[]),
        ("1704067201250", &[]),
        ("1704067201250000", &[]),
        ("1704067201250000000", &[]),
        ("1704067201250", &["--time-unit", "ms"]),
        ("1704067201.25", &["--time-unit", "s"]),
        ("1704067201250000", &["--time-unit", "us"]),
        ("1704067201250000000", &["--time-unit", "ns"]),
        (
            "2024-01-01 01:00:01.250 +0100",
            &["--time-format", "%Y-%m-%d %H:%M:%S%.f %z"],
        ),
        ("2024-01-01T00:00:01.250Z", &[]),
        ("2024-01-01 00:00:01.25", &[]),
        ("2024-01-01T00:00:01.250000000Z", &[]),
        ("2024-01-01T01:00:01.250+01:00", &[]),
        ("2023-12-31T23:00:01.250-0100", &[]),
        (
            "01/01/2024 00:00:01.250",
            &["--time-format", "%d/%m/%Y %H:%M:%S%.f"],
        ),
    ];
    for (i, (time, extra)) in cases.iter().enumerate() {
        let db = format!("db{i}");
        create(
            d,
            &db,
            &["--granularity", "1ms", "--columns", "v:i64", "--partition", "day"],
        );
        let input = write(d, &format!("in{i}.csv"), &format!("time,v\n{time},{i}\n"));
        let (_, err) = ok(xs(d).args(["-d", &db, "import"]).arg(&input).args(*extra));
        assert_eq!(
            range(d, &db),
            format!("time,v\n2024-01-01T00:00:01.250Z,{i}\n"),
            "case {time} {extra:?}: {err}"
        );
        if extra.is_empty() && !time.contains('-') && !time.contains('/') {
            assert!(err.contains("epoch numbers read as"), "{err}");
        }
        if time.contains(" ") && extra.is_empty() {
            assert!(err.contains("without a zone were read as UTC"), "{err}");
        }
    }
    // Date only, and 0 fraction digits, on a 1 s grid.
    create(d, "days", &["--granularity", "1s", "--columns", "v:i64"]);
    let input = write(d, "days.csv", "time,v\n2024-02-29,1\n2024-03-01T12:00:00Z,2\n");
    ok(xs(d).args(["-d", "days", "import"]).arg(&input));
    assert_eq!(
        range(d, "days"),
        "time,v\n2024-02-29T00:00:00Z,1\n2024-03-01T12:00:00Z,2\n"
    );
}

#[test]
fn gzip_zstd_stdin_and_tabs() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let text = "time,v\n2024-01-01T00:00:01Z,1\n2024-01-01T00:00:02Z,2\n";
    let expected = "time,v\n2024-01-01T00:00:01Z,1\n2024-01-01T00:00:02Z,2\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    fs::write(d.join("in.csv.gz"), gz.finish().unwrap()).unwrap();
    fs::write(
        d.join("in.csv.zst"),
        zstd::encode_all(text.as_bytes(), 3).unwrap(),
    )
    .unwrap();
    // Compression is detected from the content, so a misleading name does not matter.
    fs::write(
        d.join("zst-named.csv"),
        zstd::encode_all(text.as_bytes(), 3).unwrap(),
    )
    .unwrap();
    for (i, file) in ["in.csv.gz", "in.csv.zst", "zst-named.csv"].iter().enumerate() {
        let db = format!("db{i}");
        create(d, &db, &["--granularity", "1s", "--columns", "v:i64"]);
        ok(xs(d).args(["-d", &db, "import", file]));
        assert_eq!(range(d, &db), expected, "{file}");
    }
    create(d, "stdin", &["--granularity", "1s", "--columns", "v:i64"]);
    ok(xs(d).args(["-d", "stdin", "import", "-"]).write_stdin(text));
    assert_eq!(range(d, "stdin"), expected);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    create(d, "stdin-gz", &["--granularity", "1s", "--columns", "v:i64"]);
    ok(xs(d)
        .args(["-d", "stdin-gz", "import", "-"])
        .write_stdin(gz.finish().unwrap()));
    assert_eq!(range(d, "stdin-gz"), expected);
    create(d, "tabs", &["--granularity", "1s", "--columns", "v:i64"]);
    let input = write(d, "in.tsv", &text.replace(',', "\t"));
    ok(xs(d)
        .args(["-d", "tabs", "import", "--delimiter", "tab"])
        .arg(&input));
    assert_eq!(range(d, "tabs"), expected);
    // A directory of inputs, in name order.
    fs::create_dir(d.join("many")).unwrap();
    write(d, "many/a.csv", "time,v\n2024-01-01T00:00:00Z,0\n");
    fs::copy(d.join("in.csv.zst"), d.join("many/b.csv.zst")).unwrap();
    write(d, "many/skipped.txt", "not an input");
    create(d, "dir", &["--granularity", "1s", "--columns", "v:i64"]);
    ok(xs(d).args(["-d", "dir", "import", "many"]));
    assert_eq!(
        range(d, "dir"),
        format!("time,v\n2024-01-01T00:00:00Z,0\n{}", &expected[7..])
    );
}

#[test]
fn quoting_crlf_bom_and_nulls() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    create(
        d,
        "q",
        &["--granularity", "1s", "--columns", "name:str(16),note:str(32)"],
    );
    ok(xs(d).args(["-d", "q", "import", &format!("{FIXTURES}/import/quoting.csv")]));
    assert_eq!(
        range(d, "q"),
        "time,name,note\n2024-01-01T00:00:01Z,plain,simple\n\
         2024-01-01T00:00:02Z,\"with, comma\",\"line one\r\nline two\"\n\
         2024-01-01T00:00:03Z,\"say \"\"hi\"\"\",\n"
    );
    // Empty fields are null; an input that lacks a database column is refused (its rows
    // would silently null it).
    create(
        d,
        "n",
        &["--granularity", "1s", "--columns", "a:i64,b:f64,c:bool,e:i8"],
    );
    let input = write(
        d,
        "n.csv",
        "time,a,b,c\n2024-01-01T00:00:01Z,,,\n2024-01-01T00:00:02Z,1,2.5,true\n",
    );
    let (code, _, err) = run(xs(d).args(["-d", "n", "import"]).arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("lacks the database column(s) e"), "{err}");
    let input = write(
        d,
        "n.csv",
        "time,a,b,c,e\n2024-01-01T00:00:01Z,,,,\n2024-01-01T00:00:02Z,1,2.5,true,\n",
    );
    ok(xs(d).args(["-d", "n", "import"]).arg(&input));
    assert_eq!(
        range(d, "n"),
        "time,a,b,c,e\n2024-01-01T00:00:01Z,,,,\n2024-01-01T00:00:02Z,1,2.5,true,\n"
    );
}

/// A `--null` sentinel given as a number matches that number however a numeric column writes
/// it (`-200.0`, `-2e2`, `-200,0` under a decimal comma), never a nearby value; in a text
/// column only its own text is null. Before, `-200,0` in UCI's air-quality file was stored
/// as -200.0 under `--null -200`.
#[test]
fn a_numeric_null_sentinel_matches_the_number_however_written() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    create(
        d,
        "s",
        &[
            "--granularity",
            "1s",
            "--columns",
            "f:f64,i:i64,m:dec(2),s:str(8)",
        ],
    );
    let input = write(
        d,
        "s.csv",
        "time,f,i,m,s\n\
         2024-01-01T00:00:01Z,-200.0,-200,-200.00,-200\n\
         2024-01-01T00:00:02Z,-2e2,-0200,-200,-200.0\n\
         2024-01-01T00:00:03Z,-200.5,-201,-199.99,x\n",
    );
    let (_, err) = ok(xs(d).args(["-d", "s", "import", "--null", "-200"]).arg(&input));
    assert!(err.contains("7 field(s) held a null token"), "{err}");
    assert_eq!(
        range(d, "s"),
        "time,f,i,m,s\n2024-01-01T00:00:01Z,,,,\n2024-01-01T00:00:02Z,,,,-200.0\n\
         2024-01-01T00:00:03Z,-200.5,-201,-199.99,x\n"
    );
    // Under a decimal comma, `-200,0` is the number too.
    let input = write(d, "c.csv", "time;f;m\n2024-01-01T00:00:04Z;-200,0;-200,00\n");
    ok(xs(d)
        .args([
            "-d",
            "s",
            "import",
            "--null",
            "-200",
            "--decimal-comma",
            "--update-columns",
        ])
        .arg(&input));
    let (code, out, err) = run(xs(d).args(["-d", "s", "get", "2024-01-01T00:00:04Z"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "time,f,i,m,s\n2024-01-01T00:00:04Z,,,,\n");
}

#[test]
fn column_mapping() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    create(d, "m", &["--granularity", "1s", "--columns", "a:i64,b:i64"]);
    let input = write(d, "extra.csv", "time,a,zz,b,yy\n2024-01-01T00:00:01Z,1,2,,3\n");
    let (code, _, err) = run(xs(d).args(["-d", "m", "import"]).arg(&input));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("zz, yy") && err.contains("--ignore-columns"),
        "{err}"
    );
    ok(xs(d).args(["-d", "m", "import", "--ignore-columns"]).arg(&input));
    assert_eq!(range(d, "m"), "time,a,b\n2024-01-01T00:00:01Z,1,\n");
    // Columns in another order are matched by name.
    let input = write(d, "swapped.csv", "b,time,a\n5,2024-01-01T00:00:02Z,4\n");
    ok(xs(d).args(["-d", "m", "import"]).arg(&input));
    assert!(range(d, "m").ends_with("2024-01-01T00:00:02Z,4,5\n"));
    // No time column: an error naming it.
    let input = write(d, "notime.csv", "a,b\n1,2\n");
    let (code, _, err) = run(xs(d).args(["-d", "m", "import"]).arg(&input));
    assert_eq!(code, 2);
    assert!(err.contains("no time column `time`"), "{err}");
    // Headerless input: the export order by default, or named with --columns.
    let input = write(d, "nohdr.csv", "2024-01-01T00:00:03Z,6,7\n");
    ok(xs(d).args(["-d", "m", "import", "--no-header"]).arg(&input));
    let input = write(d, "nohdr2.csv", "8,2024-01-01T00:00:04Z,\n");
    ok(xs(d)
        .args(["-d", "m", "import", "--no-header", "--columns", "b,time,a"])
        .arg(&input));
    assert!(
        range(d, "m").ends_with("2024-01-01T00:00:03Z,6,7\n2024-01-01T00:00:04Z,,8\n"),
        "{}",
        range(d, "m")
    );
}

#[test]
fn inference_of_types_time_granularity_and_depth() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::copy(format!("{FIXTURES}/import/types.csv"), d.join("types.csv")).unwrap();
    // Raw records: a regular series then gets the grid, whose depth is inferred.
    let codec = if layout() == "bucket" { "columnar" } else { "raw" };
    let (_, err) = ok(xs(d).args(["import", "types.csv", "--codec", codec]));
    assert!(err.contains("time column `timestamp`"), "{err}");
    assert!(err.contains("granularity 1ms"), "{err}");
    if layout() == "bucket" {
        assert!(err.contains("layout bucket as given"), "{err}");
        assert!(err.contains("xs create types --layout bucket --bucket"), "{err}");
    } else {
        assert!(err.contains("depth 4"), "{err}");
        assert!(err.contains("xs create types --granularity 1ms"), "{err}");
    }
    let config = fs::read_to_string(d.join("types/xs.toml")).unwrap();
    let depth = if layout() == "bucket" {
        "layout = \"bucket\""
    } else {
        "depth = 4"
    };
    for needle in [
        "granularity = \"1ms\"",
        depth,
        "time_column = \"timestamp\"",
        "name = \"id\"\ntype = \"i64\"",
        "name = \"price\"\ntype = \"dec(2)\"",
        "name = \"side\"\ntype = \"str(8)\"",
        "name = \"ok\"\ntype = \"bool\"",
        "name = \"qty\"\ntype = \"i64\"",
    ] {
        assert!(config.contains(needle), "{needle} not in\n{config}");
    }
    assert_eq!(
        ok(xs(&d.join("types")).args(["range", "2024-01-01", "2025-01-01"])).0,
        "timestamp,id,price,side,ok,qty\n\
         2024-03-01T10:00:00.250Z,1,100.50,buy,true,3\n\
         2024-03-01T10:00:00.250Z,2,100.25,sell,false,-4\n\
         2024-03-01T10:00:00.500Z,3,99.00,buy,true,\n\
         2024-03-01T10:00:01.000Z,4,101.75,sell,true,7\n"
    );
    // Importing again uses ./types as it is: nothing changes.
    let (_, err) = ok(xs(d).args(["import", "types.csv"]));
    assert!(!err.contains("does not exist"), "{err}");
    // Overrides: the time column, a type.
    let (_, err) = ok(xs(d).args([
        "-d",
        "ids",
        "import",
        "types.csv",
        "--time-column",
        "timestamp",
        "--columns",
        "qty:f32",
        "--depth",
        "2",
    ]));
    assert!(err.contains("depth 2 as given"), "{err}");
    assert!(fs::read_to_string(d.join("ids/xs.toml"))
        .unwrap()
        .contains("name = \"qty\"\ntype = \"f32\""));
    // Nanosecond times cannot fit a grid: asked for one, say so and what to do.
    write(
        d,
        "ns.csv",
        "local_ts_ns,v\n1723161254087896568,1\n1723161254347673567,2\n",
    );
    let (code, _, err) = run(xs(d).args(["import", "ns.csv", "--layout", "grid"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--floor-time") && err.contains("--time-column"),
        "{err}"
    );
    ok(xs(d).args([
        "-d",
        "ns-us",
        "import",
        "ns.csv",
        "--granularity",
        "1us",
        "--floor-time",
    ]));
    assert!(!d.join("ns-us/rejects").exists());
    // Without a layout given, they are stored exactly, in buckets.
    let (_, err) = ok(xs(d).args(["import", "ns.csv"]));
    assert!(err.contains("layout bucket"), "{err}");
    assert_eq!(
        ok(xs(d).args([
            "-d",
            "ns",
            "range",
            "2024-01-01",
            "2025-01-01",
            "--time-format",
            "epoch-ns"
        ]))
        .0,
        "local_ts_ns,v\n1723161254087896568,1\n1723161254347673567,2\n"
    );
}

#[test]
fn importing_twice_is_byte_identical() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut text = String::from("time,v,s\n");
    for i in 0..5000u64 {
        // Several rows per timestamp, out of order, over two years.
        let sec = (i * 7919) % 3000;
        let year = 2023 + (i % 2);
        text.push_str(&format!(
            "{year}-06-01T00:{:02}:{:02}Z,{i},s{}\n",
            sec / 60 % 60,
            sec % 60,
            i % 10
        ));
    }
    let input = write(d, "in.csv", &text);
    for db in ["once", "twice"] {
        create(
            d,
            db,
            &[
                "--granularity",
                "1s",
                "--columns",
                "v:i64,s:str(4)",
                "--depth",
                "8",
            ],
        );
    }
    ok(xs(d).args(["-d", "once", "import"]).arg(&input));
    ok(xs(d).args(["-d", "twice", "import"]).arg(&input));
    ok(xs(d)
        .args(["-d", "twice", "import", "--threads", "1"])
        .arg(&input));
    assert_same_partitions(&d.join("once"), &d.join("twice"));
    // Two years: two grid files, or two directory and two data files.
    let files = if layout() == "bucket" { 4 } else { 2 };
    assert_eq!(partition_files(&d.join("once")).len(), files);
}

#[test]
fn upsert_replaces_only_the_timestamps_in_the_input() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    create(
        d,
        "u",
        &["--granularity", "1s", "--columns", "v:i64", "--depth", "4"],
    );
    let a = write(d, "a.csv", "time,v\n2024-01-01T00:00:01Z,1\n2024-01-01T00:00:01Z,2\n2024-01-01T00:00:01Z,3\n2024-01-01T00:00:02Z,4\n");
    let b = write(d, "b.csv", "time,v\n2024-01-01T00:00:01Z,9\n");
    ok(xs(d).args(["-d", "u", "import"]).arg(&a));
    ok(xs(d).args(["-d", "u", "import"]).arg(&b));
    assert_eq!(
        range(d, "u"),
        "time,v\n2024-01-01T00:00:01Z,9\n2024-01-01T00:00:02Z,4\n"
    );
}

/// Many rows per millisecond across chunk boundaries, K per timestamp: all stored in order;
/// K+1 at one timestamp: exactly one rejected. The same at 1 and 2 threads.
#[test]
fn duplicates_up_to_depth_at_any_thread_count() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let k = 4;
    let mut text = String::from("time,v\n");
    let mut n = 0;
    // Tiny chunks, so that timestamps straddle chunk and batch boundaries.
    for ms in 0..6_000u64 {
        for _ in 0..k {
            text.push_str(&format!("{},{n}\n", 1_704_067_200_000 + ms));
            n += 1;
        }
    }
    let full = write(d, "k.csv", &text);
    text.push_str(&format!("{},{n}\n", 1_704_067_200_000u64 + 3_000));
    let over = write(d, "k1.csv", &text);
    for threads in ["1", "2"] {
        let db = format!("k{threads}");
        create(
            d,
            &db,
            &[
                "--granularity",
                "1ms",
                "--columns",
                "v:i64",
                "--depth",
                "4",
                "--partition",
                "day",
            ],
        );
        let (_, err) = ok(xs(d)
            .args(["-d", &db, "import", "--chunk-bytes", "1000", "--threads", threads])
            .arg(&full));
        assert!(
            err.contains(&format!("{n} rows read, {n} stored, 0 rejected")),
            "{err}"
        );
        let out = ok(xs(d).args([
            "-d",
            &db,
            "range",
            "2024-01-01T00:00:03Z",
            "2024-01-01T00:00:03.001Z",
        ]))
        .0;
        assert_eq!(out, "time,v\n2024-01-01T00:00:03.000Z,12000\n2024-01-01T00:00:03.000Z,12001\n2024-01-01T00:00:03.000Z,12002\n2024-01-01T00:00:03.000Z,12003\n");
        let db1 = format!("k1-{threads}");
        create(
            d,
            &db1,
            &[
                "--granularity",
                "1ms",
                "--columns",
                "v:i64",
                "--depth",
                "4",
                "--partition",
                "day",
            ],
        );
        let (code, _, err) = run(xs(d)
            .args([
                "-d",
                &db1,
                "import",
                "--chunk-bytes",
                "1000",
                "--threads",
                threads,
            ])
            .arg(&over));
        if layout() == "bucket" {
            // Depth does not limit the bucket layout: the extra row is stored after the others.
            assert_eq!(code, 0, "{err}");
            assert!(
                err.contains(&format!("{} rows read, {} stored, 0 rejected", n + 1, n + 1)),
                "{err}"
            );
            let out = ok(xs(d).args([
                "-d",
                &db1,
                "range",
                "2024-01-01T00:00:03Z",
                "2024-01-01T00:00:03.001Z",
            ]))
            .0;
            assert_eq!(out, format!("time,v\n2024-01-01T00:00:03.000Z,12000\n2024-01-01T00:00:03.000Z,12001\n2024-01-01T00:00:03.000Z,12002\n2024-01-01T00:00:03.000Z,12003\n2024-01-01T00:00:03.000Z,{n}\n"));
            continue;
        }
        assert_eq!(code, 4, "{err}");
        assert!(
            err.contains(&format!("{} rows read, {n} stored, 1 rejected", n + 1)),
            "{err}"
        );
        let rejects = rejects_text(&d.join(&db1));
        assert_eq!(rejects.lines().count(), 2, "{rejects}");
        assert!(
            rejects.contains(&format!(",{},", n + 2)),
            "line number: {rejects}"
        );
        assert!(rejects.contains("database depth 4"), "{rejects}");
        assert_same_partitions(&d.join(&db), &d.join(&db1));
        // --max-rejects allows it.
        ok(xs(d)
            .args(["-d", &db1, "import", "--max-rejects", "1"])
            .arg(&over));
    }
    assert_same_partitions(&d.join("k1"), &d.join("k2"));
}

#[test]
fn bad_rows_are_rejected_with_line_numbers_and_neighbours_stored() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    create(
        d,
        "b",
        &["--granularity", "1s", "--columns", "qty:i64,side:str(4)"],
    );
    let mut text = fs::read_to_string(format!("{FIXTURES}/import/bad.csv")).unwrap();
    // A 10 MB field, then a good row after it.
    text.push_str("2024-01-01T00:00:09Z,9,\"");
    text.push_str(&"x".repeat(10 << 20));
    text.push_str("\"\n2024-01-01T00:00:10Z,10,ab\n");
    let input = write(d, "bad.csv", &text);
    let (code, _, err) = run(xs(d).args(["-d", "b", "import"]).arg(&input));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("10 rows read, 4 stored, 6 rejected"), "{err}");
    assert_eq!(
        range(d, "b"),
        "time,qty,side\n2024-01-01T00:00:01Z,1,ab\n2024-01-01T00:00:04Z,4,ab\n\
         2024-01-01T00:00:08Z,8,ab\n2024-01-01T00:00:10Z,10,ab\n"
    );
    let rejects = rejects_text(&d.join("b"));
    let lines: Vec<&str> = rejects.lines().collect();
    assert_eq!(lines[0], "file,line,byte_offset,reason,record");
    let expect = [
        (3, "expected 3 fields, found 2"),
        (4, "not a valid i64"),
        (6, "unreadable time"),
        (7, "year 9999 is outside the storable range"),
        (8, "string too long"),
        (10, "record longer than"),
    ];
    assert_eq!(lines.len(), 1 + expect.len(), "{rejects:.2000}");
    for (row, (line, reason)) in lines[1..].iter().zip(expect) {
        assert!(row.contains(&format!(",{line},")), "line {line}: {row:.300}");
        assert!(row.contains(reason), "{reason}: {row:.300}");
    }
    // Byte offset of line 3 and its original text.
    let offset = text.find("2024-01-01T00:00:02Z,2\n").unwrap();
    assert!(lines[1].contains(&format!(",3,{offset},")), "{}", lines[1]);
    assert!(lines[1].ends_with(",\"2024-01-01T00:00:02Z,2\""), "{}", lines[1]);
    // --rejects puts them elsewhere.
    let (code, _, _) = run(xs(d)
        .args(["-d", "b", "import", "--rejects", "here.csv"])
        .arg(&input));
    assert_eq!(code, 4);
    assert_eq!(fs::read_to_string(d.join("here.csv")).unwrap().lines().count(), 7);
}

#[test]
fn misaligned_times_are_rejected_unless_floored() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    create(
        d,
        "f",
        &["--granularity", "1s", "--columns", "v:i64", "--depth", "2"],
    );
    let input = write(
        d,
        "f.csv",
        "time,v\n2024-01-01T00:00:01.5Z,1\n2024-01-01T00:00:01Z,2\n",
    );
    let (code, _, err) = run(xs(d).args(["-d", "f", "import"]).arg(&input));
    assert_eq!(code, 4, "{err}");
    assert!(rejects_text(&d.join("f")).contains("not a multiple of the granularity 1s"));
    ok(xs(d).args(["-d", "f", "import", "--floor-time"]).arg(&input));
    assert_eq!(
        range(d, "f"),
        "time,v\n2024-01-01T00:00:01Z,1\n2024-01-01T00:00:01Z,2\n"
    );
}

#[test]
fn a_multi_year_file_gives_one_partition_per_year() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    create(d, "y", &["--granularity", "1m", "--columns", "v:i64"]);
    let mut text = String::from("time,v\n");
    for year in [2019, 2021, 2020, 1969, 2261] {
        text.push_str(&format!("{year}-05-05T05:05:00Z,{year}\n"));
    }
    let input = write(d, "y.csv", &text);
    let (_, err) = ok(xs(d).args(["-d", "y", "import"]).arg(&input));
    assert!(err.contains("5 partition(s)"), "{err}");
    let names: Vec<String> = partition_files(&d.join("y"))
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let expected: Vec<String> = ["1969", "2019", "2020", "2021", "2261"]
        .iter()
        .flat_map(|y| {
            if layout() == "bucket" {
                vec![format!("{y}.xs"), format!("{y}.xs.data")]
            } else {
                vec![format!("{y}.xs")]
            }
        })
        .collect();
    assert_eq!(names, expected);
}

#[test]
fn empty_inputs_and_garbage_do_not_break() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    create(d, "e", &["--granularity", "1s", "--columns", "v:i64"]);
    for (name, bytes) in [
        ("empty.csv", b"".to_vec()),
        ("header.csv", b"time,v\n".to_vec()),
        ("blank.csv", b"time,v\n\n\r\n".to_vec()),
    ] {
        fs::write(d.join(name), bytes).unwrap();
        let (_, err) = ok(xs(d).args(["-d", "e", "import", name]));
        assert!(err.contains("0 rows read"), "{name}: {err}");
    }
    let garbage: Vec<u8> = (0..200_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    fs::write(d.join("garbage.bin"), garbage).unwrap();
    let (code, _, err) = run(xs(d).args(["-d", "e", "import", "garbage.bin"]));
    assert!(code == 2 || code == 4, "{code} {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn killed_import_is_completed_by_running_it_again() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    let mut text = String::with_capacity(40 << 20);
    // 400,000 rows over two years, several per second.
    let start = 1_704_067_200i64 - 400_000;
    for i in 0..400_000i64 {
        text.push_str(&format!("{},{i},{}\n", start + i / 3 * 3, i % 1000));
    }
    let input = write(d, "big.csv", &format!("time,a,b\n{text}"));
    for db in ["clean", "crashed"] {
        create(
            d,
            db,
            &["--granularity", "1s", "--columns", "a:i64,b:i32", "--depth", "4"],
        );
    }
    ok(xs(d).args(["-d", "clean", "import"]).arg(&input));
    let bin = assert_cmd::cargo::cargo_bin("xs");
    let mut killed = false;
    for _attempt in 0..5 {
        let mut child = StdCommand::new(&bin)
            .current_dir(d)
            .args(["-d", "crashed", "import", "--threads", "1"])
            .arg(&input)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let marker = d.join("crashed/.import-unfinished");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !marker.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        std::thread::sleep(Duration::from_millis(30));
        child.kill().unwrap();
        let status = child.wait().unwrap();
        if !status.success() {
            killed = true;
            break;
        }
    }
    assert!(killed, "the import always finished before it could be killed");
    let (code, _, err) = run(xs(d).args(["-d", "crashed", "get", "2024-01-01"]));
    assert!(code == 0 || code == 1);
    assert!(err.contains("did not finish") && err.contains("import"), "{err}");
    ok(xs(d).args(["-d", "crashed", "import"]).arg(&input));
    assert!(!d.join("crashed/.import-unfinished").exists());
    let (_, _, err) = run(xs(d).args(["-d", "crashed", "get", "2024-01-01"]));
    assert!(!err.contains("did not finish"), "{err}");
    assert_same_partitions(&d.join("clean"), &d.join("crashed"));
}

#[test]
fn a_locked_database_exits_5() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    create(d, "l", &["--granularity", "1s", "--columns", "v:i64"]);
    let input = write(d, "l.csv", "time,v\n2024-01-01T00:00:01Z,1\n");
    let lock = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(d.join("l/.lock"))
        .unwrap();
    // SAFETY: flock on an open descriptor.
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let (code, _, err) = run(xs(d).args(["-d", "l", "import"]).arg(&input));
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("locked"), "{err}");
    drop(lock);
    ok(xs(d).args(["-d", "l", "import"]).arg(&input));
}

#[test]
fn real_trades_fixture_imports() {
    let t = TempDir::new().unwrap();
    let d = t.path();
    fs::copy(
        format!("{FIXTURES}/btcusdt-trades-20240808.csv"),
        d.join("btcusdt-trades-20240808.csv"),
    )
    .unwrap();
    let (_, err) = ok(xs(d).args(["import", "btcusdt-trades-20240808.csv"]));
    assert!(err.contains("time column `event_time_ms`"), "{err}");
    assert!(err.contains("0 rejected"), "{err}");
    let out = ok(xs(&d.join("btcusdt-trades-20240808")).args([
        "range",
        "2024-08-08T23:54:15.342Z",
        "2024-08-08T23:54:15.620Z",
    ]))
    .0;
    assert!(out.starts_with("event_time_ms,local_ts_ns,trade_time_ms,symbol,trade_id,price,qty,is_buyer_maker\n2024-08-08T23:54:15.343Z,1723161254087896568,1723161255342,BTCUSDT,3735683259,61837.63000000,0.02000000,true\n"), "{out}");
}

#[test]
fn a_bad_time_in_the_sample_is_rejected_without_stopping_inference() {
    let tmp = TempDir::new().unwrap();
    write(
        tmp.path(),
        "z.csv",
        "time,v\n2020-01-01,1.5\n2020-01-02,NaN\n9999-01-01,7\n2020-01-03,inf\n2020-01-04,-inf\n",
    );
    let (code, _, err) = run(xs(tmp.path()).args(["import", "z.csv"]));
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("5 rows read, 4 stored, 1 rejected"), "{err}");
    let rejects = rejects_text(&tmp.path().join("z"));
    assert!(
        rejects.contains("\"z.csv\",4,") && rejects.contains("year 9999 is outside the storable range"),
        "{rejects}"
    );
    assert_eq!(
        range(tmp.path(), "z"),
        "time,v\n2020-01-01T00:00:00Z,1.5\n2020-01-02T00:00:00Z,NaN\n2020-01-03T00:00:00Z,inf\n2020-01-04T00:00:00Z,-inf\n"
    );
}

/// Issue 18: `xs import days/` without -d named the database after the input directory, then
/// said "days already exists; choose another path or remove it first" — advice to delete the
/// input. It now asks for -d.
#[test]
fn a_directory_input_without_a_database_asks_for_one() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    fs::create_dir(d.join("days")).unwrap();
    fs::write(d.join("days/a.csv"), "time,v\n2024-01-01T00:00:00Z,1\n").unwrap();
    for input in ["days/", "days"] {
        let out = xs(d).args(["import", input]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("is a directory of input files"), "{err}");
        assert!(err.contains("-d days-db"), "{err}");
        assert!(!err.contains("remove it"), "{err}");
    }
    assert!(
        fs::read_dir(d.join("days")).unwrap().count() == 1,
        "the input is untouched"
    );
    let out = xs(d).args(["-d", "days-db", "import", "days"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
