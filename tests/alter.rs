//! `xs alter`: add, widen and rename columns, on a series database with stored rows in
//! several partitions; refusals; and `kill -9` at each step of a rewriting alter. Run on both
//! layouts (tests/alter_bucket.rs runs this file with the bucket layout).

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::{layout, ok_in, run, sparse_copy, xs, xs_in, TestDb};

const INPUT: &str = "time,sym,price,qty,n,note\n\
    2023-12-31T23:59:59Z,BTC,61837.63,3,7,a\n\
    2024-01-01T00:00:01Z,BTC,1.5,-128,255,bc\n\
    2024-01-01T00:00:01Z,BTC,2.25,127,0,\n\
    2024-01-01T00:00:01Z,ETH,-2.25,-4,,xyz\n\
    2025-03-01T00:00:02Z,BTC,,5,200,q\n\
    2025-03-01T00:00:02Z,DOGE,0.01,0,1,\n";

/// The rows of INPUT as `range` prints them after `--widen price:dec(4) --widen qty:i32
/// --widen n:i16 --widen sym:str(8) --rename qty=quantity --add fee:f64`: values kept, nulls
/// kept, the new column null, in time then series order.
fn expected_after_alter(frac: &str) -> String {
    let t = |s: &str| format!("{s}{frac}Z");
    [
        "time,sym,price,quantity,n,note,fee".to_string(),
        format!("{},BTC,61837.6300,3,7,a,", t("2023-12-31T23:59:59")),
        format!("{},BTC,1.5000,-128,255,bc,", t("2024-01-01T00:00:01")),
        format!("{},BTC,2.2500,127,0,,", t("2024-01-01T00:00:01")),
        format!("{},ETH,-2.2500,-4,,xyz,", t("2024-01-01T00:00:01")),
        format!("{},BTC,,5,200,q,", t("2025-03-01T00:00:02")),
        format!("{},DOGE,0.0100,0,1,,", t("2025-03-01T00:00:02")),
    ]
    .join("\n")
        + "\n"
}

fn frac() -> &'static str {
    if layout() == "bucket" {
        ".000"
    } else {
        ""
    }
}

/// A series database (key `sym`) holding INPUT, in three yearly partitions.
fn trades() -> TestDb {
    trades_keyed(true)
}

/// A database holding INPUT, with the series key `sym` or without one.
fn trades_keyed(series: bool) -> TestDb {
    let columns = "sym:str(4),price:dec(2),qty:i8,n:u8,note:str(3)";
    let mut extra = if layout() == "bucket" {
        vec!["--bucket", "1s"]
    } else {
        vec!["--depth", "3"]
    };
    if series {
        extra.extend(["--series-by", "sym"]);
    }
    let granularity = if layout() == "bucket" { "1ms" } else { "1s" };
    let db = TestDb::create(granularity, columns, &extra);
    let input = db.path.with_file_name("in.csv");
    fs::write(&input, INPUT).unwrap();
    db.ok(&["import", input.to_str().unwrap()]);
    db
}

const ALTER: &[&str] = &[
    "alter",
    "--widen",
    "price:dec(4)",
    "--widen",
    "qty:i32",
    "--widen",
    "n:i16",
    "--widen",
    "sym:str(8)",
    "--rename",
    "qty=quantity",
    "--add",
    "fee:f64",
];

fn all(db: &TestDb) -> String {
    db.ok(&["range", "1900-01-01", "2200-01-01"])
}

/// Every file under `dir` (recursively) with its length and its 4 KiB blocks that are not all
/// zero (partition files are sparse: their holes are not read).
fn files(dir: &Path) -> BTreeMap<PathBuf, (u64, BTreeMap<u64, Vec<u8>>)> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().unwrap() != ".lock" {
                out.insert(path.strip_prefix(dir).unwrap().to_path_buf(), content(&path));
            }
        }
    }
    out
}

fn content(path: &Path) -> (u64, BTreeMap<u64, Vec<u8>>) {
    use std::os::unix::fs::FileExt;
    use std::os::unix::io::AsRawFd;
    let file = fs::File::open(path).unwrap();
    let len = file.metadata().unwrap().len();
    let fd = file.as_raw_fd();
    let mut blocks = BTreeMap::new();
    let mut at = 0u64;
    while at < len {
        // SAFETY: lseek on a file descriptor this function owns; no memory is passed.
        let data = unsafe { libc::lseek(fd, at as libc::off_t, libc::SEEK_DATA) };
        if data < 0 {
            break;
        }
        // SAFETY: as above.
        let hole = unsafe { libc::lseek(fd, data, libc::SEEK_HOLE) };
        let (from, to) = (data as u64 / 4096 * 4096, (hole.max(data) as u64).min(len));
        let mut block = from;
        while block < to {
            let mut buf = vec![0u8; 4096.min(len - block) as usize];
            file.read_exact_at(&mut buf, block).unwrap();
            if buf.iter().any(|&b| b != 0) {
                blocks.insert(block, buf);
            }
            block += 4096;
        }
        at = to.max(from + 4096);
    }
    (len, blocks)
}

/// Partition-file names left by an alter (`.NAME.alter`) or its marker, anywhere in `dir`.
fn leftovers(dir: &Path) -> Vec<PathBuf> {
    files(dir)
        .into_keys()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".alter") || name.ends_with(".alter.tmp") || name == ".alter-unfinished"
        })
        .collect()
}

#[test]
fn add_widen_and_rename_keep_every_stored_value_without_a_series_key() {
    let db = trades_keyed(false);
    let (code, _, err) = run(db.xs(ALTER));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("rewrote 3 partition(s) (6 rows)"), "{err}");
    assert_eq!(all(&db), expected_after_alter(frac()));
    assert!(db.ok(&["check"]).contains("no damage found"));
    // Bucket summaries are rewritten at the new scale: the filter skips nothing it needs.
    let hits = db.ok(&["range", "1900-01-01", "2200-01-01", "--where", "price>=2.25"]);
    assert_eq!(hits.lines().count(), 3, "{hits}");
    let max = db.ok(&[
        "range",
        "2023-01-01",
        "2026-01-01",
        "--agg",
        "max(price),min(quantity)",
        "--every",
        "1d",
    ]);
    assert!(max.contains("61837.6300,3"), "{max}");
    assert!(leftovers(&db.path).is_empty(), "{:?}", leftovers(&db.path));
}

#[test]
fn add_widen_and_rename_keep_every_stored_value_in_every_series() {
    let db = trades();
    let (code, _, err) = run(db.xs(ALTER));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("rewrote 5 partition(s) (6 rows)"), "{err}");
    assert_eq!(all(&db), expected_after_alter(frac()));
    assert_eq!(
        db.ok(&["range", "1900-01-01", "2200-01-01", "--series", "ETH"])
            .lines()
            .count(),
        2
    );
    let schema = db.ok(&["schema"]);
    for needle in [
        "sym       str(8)  series key",
        "quantity  i32",
        "fee       f64",
        "price     dec(4)",
    ] {
        assert!(schema.contains(needle), "{needle:?} not in\n{schema}");
    }
    assert!(db.ok(&["check"]).contains("no damage found"));
    assert!(leftovers(&db.path).is_empty(), "{:?}", leftovers(&db.path));
    // The widened columns take what they could not before, and the new column a value.
    db.ok(&[
        "put",
        "2024-06-01T00:00:00Z",
        "sym=LONGNAME",
        "quantity=100000",
        "n=-5",
        "price=0.1234",
        "fee=0.5",
    ]);
    let got = db.ok(&["get", "2024-06-01T00:00:00Z", "--series", "LONGNAME"]);
    assert!(got.ends_with(",LONGNAME,0.1234,100000,-5,,0.5\n"), "{got}");
    // Aggregates over the altered rows.
    let sum = db.ok(&[
        "range",
        "2024-01-01",
        "2024-01-02",
        "--agg",
        "count,sum(price),max(quantity)",
    ]);
    assert!(sum.contains(",BTC,2,3.7500,127\n"), "{sum}");
    assert!(sum.contains(",ETH,1,-2.2500,-4\n"), "{sum}");
}

#[test]
fn a_rename_changes_only_the_config_and_follows_into_the_keys() {
    let db = if layout() == "bucket" {
        TestDb::create(
            "1ms",
            "sym:str(4),id:u32,px:f64",
            &["--series-by", "sym", "--unique-by", "id", "--bucket", "1s"],
        )
    } else {
        TestDb::create(
            "1s",
            "sym:str(4),id:u32,px:f64",
            &["--series-by", "sym", "--unique-by", "id", "--depth", "2"],
        )
    };
    let input = db.path.with_file_name("in.csv");
    fs::write(
        &input,
        "time,sym,id,px\n2024-01-01T00:00:01Z,A,1,1.5\n2024-01-01T00:00:01Z,A,2,2.5\n",
    )
    .unwrap();
    db.ok(&["import", input.to_str().unwrap()]);
    let before = files(&db.path);
    let (code, _, err) = run(db.xs(&[
        "alter",
        "--rename",
        "sym=symbol",
        "--rename",
        "id=trade_id",
        "--rename",
        "time=ts",
    ]));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("only xs.toml changed"), "{err}");
    let after = files(&db.path);
    for (path, bytes) in &before {
        if path != Path::new("xs.toml") {
            assert!(after.get(path) == Some(bytes), "{} changed", path.display());
        }
    }
    assert_eq!(before.len(), after.len());
    let config = fs::read_to_string(db.file("xs.toml")).unwrap();
    assert!(config.contains("series_by = [\"symbol\"]"), "{config}");
    assert!(config.contains("unique_by = [\"trade_id\"]"), "{config}");
    assert!(config.contains("time_column = \"ts\""), "{config}");
    assert!(config.contains("schema_hash = \""), "{config}");
    let out = all(&db);
    assert_eq!(
        out,
        format!(
            "ts,symbol,trade_id,px\n2024-01-01T00:00:01{f}Z,A,1,1.5\n2024-01-01T00:00:01{f}Z,A,2,2.5\n",
            f = frac()
        )
    );
    // The new names work for writes: an upsert by the renamed unique key replaces its row.
    fs::write(&input, "ts,symbol,trade_id,px\n2024-01-01T00:00:01Z,A,2,9.5\n").unwrap();
    db.ok(&["import", input.to_str().unwrap()]);
    assert!(all(&db).ends_with(",A,2,9.5\n"), "{}", all(&db));
    // Renamed back, the partitions' hash is the columns' own again: no schema_hash kept.
    db.ok(&[
        "alter",
        "--rename",
        "symbol=sym",
        "--rename",
        "trade_id=id",
        "--rename",
        "ts=time",
    ]);
    let config = fs::read_to_string(db.file("xs.toml")).unwrap();
    assert!(!config.contains("schema_hash"), "{config}");
    assert!(db.ok(&["check"]).contains("no damage found"));
    // A rewrite after a rename writes the new hash and drops the kept one.
    db.ok(&["alter", "--rename", "px=price"]);
    db.ok(&["alter", "--widen", "id:u64"]);
    let config = fs::read_to_string(db.file("xs.toml")).unwrap();
    assert!(!config.contains("schema_hash"), "{config}");
    assert!(all(&db).starts_with("time,sym,id,price\n"), "{}", all(&db));
    assert!(db.ok(&["check"]).contains("no damage found"));
}

#[test]
fn refusals_name_the_column_and_the_reason_and_change_nothing() {
    let db = trades();
    let before = files(&db.path);
    let cases: &[(&[&str], i32, &str)] = &[
        (&["alter", "--widen", "qty:i8"], 2, "`qty` is already i8"),
        (&["alter", "--widen", "n:u8"], 2, "`n` is already u8"),
        (
            &["alter", "--widen", "price:dec(1)"],
            2,
            "cannot change `price` from dec(2) to dec(1): dec(1) is narrower than dec(2)",
        ),
        (
            &["alter", "--widen", "sym:str(2)"],
            2,
            "str(2) is narrower than str(4), and values could be lost",
        ),
        (
            &["alter", "--widen", "n:i8"],
            2,
            "cannot change `n` from u8 to i8: u8 values cannot all be written as i8",
        ),
        (
            &["alter", "--widen", "qty:u16"],
            2,
            "cannot change `qty` from i8 to u16",
        ),
        (
            &["alter", "--widen", "price:f64"],
            2,
            "dec(2) values cannot all be written as f64 without loss",
        ),
        (
            &["alter", "--widen", "nope:i64"],
            2,
            "cannot widen `nope`: there is no such column (the columns: sym,price,qty,n,note)",
        ),
        (&["alter", "--widen", "time:i64"], 2, "`time` is the time column"),
        (
            &["alter", "--rename", "nope=x"],
            2,
            "cannot rename `nope`: there is no such column",
        ),
        (
            &["alter", "--rename", "qty=price"],
            2,
            "two columns would be named `price`",
        ),
        (
            &["alter", "--rename", "qty=time"],
            2,
            "`time` would be the name of a column and of the time column",
        ),
        (
            &["alter", "--rename", "qty=a b"],
            2,
            "cannot rename `qty` to `a b`: bad column name",
        ),
        (
            &["alter", "--add", "price:f64"],
            2,
            "two columns would be named `price`",
        ),
        (
            &["alter", "--add", "time:f64"],
            2,
            "`time` would be the name of a column and of the time column",
        ),
        (
            &["alter", "--add", "a/b:f64"],
            2,
            "cannot add `a/b`: bad column name",
        ),
        (&["alter", "--add", "x:float"], 2, "unknown type `float`"),
        (&["alter", "--add", "x"], 2, "`x` has no type: write NAME:TYPE"),
        (&["alter"], 2, "nothing to change"),
    ];
    for (args, code, message) in cases {
        let (got, out, err) = run(db.xs(args));
        assert_eq!(got, *code, "{args:?}: {out}{err}");
        assert!(err.starts_with("xs: "), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {message:?} not in {err}");
        assert!(!err.contains("panicked") && !err.contains("os error"), "{err}");
        assert!(files(&db.path) == before, "{args:?} changed files");
    }
    // Past the memory bounds: a slot of a grid database with a deep slot; rows past 1 MiB.
    let many: Vec<String> = (0..300)
        .flat_map(|i| ["--add".to_string(), format!("c{i}:str(4096)")])
        .collect();
    let mut args = vec!["alter"];
    args.extend(many.iter().map(String::as_str));
    let (got, _, err) = run(db.xs(&args));
    assert_eq!(got, 2, "{err}");
    assert!(err.contains("past the bound of 1048576 bytes"), "{err}");
    assert!(files(&db.path) == before);
}

#[test]
fn a_dec_value_that_would_not_fit_the_larger_scale_is_refused_before_anything_changes() {
    let db = trades();
    db.ok(&[
        "put",
        "2024-01-01T00:00:03Z",
        "sym=ETH",
        "price=1000000000000000.5",
    ]);
    let before = files(&db.path);
    let (code, _, err) = run(db.xs(&["alter", "--widen", "price:dec(4)", "--add", "fee:f64"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "cannot widen `price` to dec(4): the value 1000000000000000.50 stored at 2024-01-01T00:00:03Z"
        ),
        "{err}"
    );
    assert!(err.contains("nothing was changed"), "{err}");
    assert!(
        files(&db.path) == before,
        "files changed: leftovers {:?}",
        leftovers(&db.path)
    );
    // A scale the values fit is fine.
    db.ok(&["alter", "--widen", "price:dec(3)"]);
    assert!(all(&db).contains(",ETH,1000000000000000.500,"), "{}", all(&db));
}

/// `kill -9` at each step of a rewriting alter: before its commit point the database reads as
/// before, after it as after (also before any writer finished the alter), `xs check` passes,
/// and the next writer leaves exactly the altered database with no files of the alter left.
#[test]
fn kill_9_at_each_step_leaves_the_old_or_the_new_schema_readable() {
    for series in [true, false] {
        kill_at_each_step(&trades_keyed(series));
    }
}

fn kill_at_each_step(source: &TestDb) {
    let old = all(source);
    let new = expected_after_alter(frac());
    for (step, committed) in [
        ("marked", false),
        ("wrote", false),
        ("committed", true),
        ("renamed", true),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("db");
        copy_dir(&source.path, &db);
        let mut cmd = xs();
        cmd.arg("-d").arg(&db).args(ALTER).env("XS_ALTER_KILL_AT", step);
        let out = cmd.output().unwrap();
        assert_eq!(
            out.status.code(),
            None,
            "{step}: not killed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if !committed {
            assert!(
                !leftovers(&db).is_empty(),
                "{step}: the kill left no trace to recover from"
            );
        }
        // Readers, before any writer: one schema or the other, whole.
        let range = ["range", "1900-01-01", "2200-01-01"];
        let want = if committed { &new } else { &old };
        assert_eq!(&ok_in(&db, &range), want, "{step}");
        let (code, out, err) = xs_in(&db, &["check"]);
        assert_eq!(code, 0, "{step}: {out}{err}");
        // The next writer finishes (or undoes) it; the alter itself re-run completes it.
        let (code, _, err) = xs_in(&db, ALTER);
        if committed {
            assert_eq!(code, 2, "{step}: {err}");
            assert!(err.contains("is already"), "{step}: {err}");
        } else {
            assert_eq!(code, 0, "{step}: {err}");
        }
        assert_eq!(ok_in(&db, &range), new, "{step}");
        assert!(leftovers(&db).is_empty(), "{step}: {:?}", leftovers(&db));
        assert!(ok_in(&db, &["check"]).contains("no damage found"), "{step}");
    }
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            sparse_copy(&path, &target);
        }
    }
}

#[test]
fn an_unfinished_import_must_be_completed_first() {
    let db = trades();
    fs::write(db.file(".import-unfinished"), "xs -d db import in.csv\n").unwrap();
    let before = files(&db.path);
    let (code, _, err) = run(db.xs(&["alter", "--add", "fee:f64"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("an import did not finish; complete it first by running again: xs -d db import in.csv"),
        "{err}"
    );
    assert!(files(&db.path) == before);
}

/// A link planted where an alter writes its new files is replaced, never followed: the file it
/// points to is untouched, and the alter completes.
#[test]
fn links_in_place_of_the_alter_files_are_never_followed() {
    let db = trades_keyed(false);
    let outside = db.path.with_file_name("outside");
    fs::write(&outside, "keep me").unwrap();
    let first = fs::read_dir(&db.path)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.ends_with(".xs"))
        .unwrap();
    for name in [format!(".{first}.alter"), format!("..{first}.alter.tmp")] {
        std::os::unix::fs::symlink(&outside, db.path.join(name)).unwrap();
    }
    let (code, _, err) = run(db.xs(ALTER));
    assert_eq!(code, 0, "{err}");
    assert_eq!(fs::read_to_string(&outside).unwrap(), "keep me");
    assert_eq!(all(&db), expected_after_alter(frac()));
    assert!(leftovers(&db.path).is_empty(), "{:?}", leftovers(&db.path));
    // A link in place of the marker is refused with the usual message, nothing changed.
    std::os::unix::fs::symlink(&outside, db.file(".alter-unfinished")).unwrap();
    let (code, _, err) = run(db.xs(&["alter", "--add", "more:i8"]));
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("is a symbolic link; xs never follows links inside a database"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&outside).unwrap(), "keep me");
}

#[test]
fn whole_numbers_widen_to_decimals_and_floats_every_value_checked() {
    // A day's file of whole numbers made `qty` an integer column; the next day's `40.5` was
    // rejected with no way to widen the column but a new database.
    let db = trades_keyed(false);
    db.ok(&["alter", "--widen", "qty:dec(2)", "--widen", "n:f64"]);
    let after = all(&db);
    let f = frac();
    assert!(
        after.contains(&format!("2024-01-01T00:00:01{f}Z,BTC,1.50,-128.00,255.0,bc\n")),
        "{after}"
    );
    assert!(
        after.contains(&format!("2024-01-01T00:00:01{f}Z,ETH,-2.25,-4.00,,xyz\n")),
        "{after}"
    );
    let day2 = db.path.with_file_name("day2.csv");
    fs::write(
        &day2,
        "time,sym,price,qty,n,note\n2025-03-02T00:00:00Z,BTC,1,40.5,0.25,x\n",
    )
    .unwrap();
    db.ok(&["import", day2.to_str().unwrap()]);
    assert!(all(&db).contains(",BTC,1.00,40.50,0.25,x\n"), "{}", all(&db));
    assert!(db.ok(&["check"]).contains("no damage found"));

    // A value the new type does not hold refuses the whole alter, naming it; nothing changes.
    let extra: &[&str] = if layout() == "bucket" {
        &["--bucket", "1s"]
    } else {
        &[]
    };
    let granularity = if layout() == "bucket" { "1ms" } else { "1s" };
    let big = TestDb::create(granularity, "v:i64,w:u64", extra);
    let input = big.path.with_file_name("big.csv");
    fs::write(
        &input,
        "time,v,w\n2024-01-01T00:00:00Z,100000000000000000,18446744073709551615\n\
         2024-01-01T00:00:01Z,9007199254740993,1\n",
    )
    .unwrap();
    big.ok(&["import", input.to_str().unwrap()]);
    let before = files(&big.path);
    for (args, message) in [
        (
            &["alter", "--widen", "v:dec(2)"][..],
            "cannot widen `v` to dec(2): the value 100000000000000000 stored at 2024-01-01T00:00:00",
        ),
        (
            &["alter", "--widen", "w:dec(0)"][..],
            "cannot widen `w` to dec(0): the value 18446744073709551615 stored at",
        ),
        (
            &["alter", "--widen", "v:f64"][..],
            "cannot widen `v` to f64: the value 9007199254740993 stored at 2024-01-01T00:00:01",
        ),
    ] {
        let (code, _, err) = run(big.xs(args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
        assert_eq!(files(&big.path), before, "{args:?} changed files");
    }
    big.ok(&["alter", "--widen", "v:dec(1)"]);
    assert!(
        all(&big).contains(",100000000000000000.0,18446744073709551615\n"),
        "{}",
        all(&big)
    );
}

#[test]
fn a_column_that_holds_no_value_takes_any_type() {
    // A first file whose `id` column was empty made it f64; the next file's ids past 2^53 were
    // stored rounded (9007199254740993 as 9007199254740992) with exit 0.
    let db = trades();
    db.ok(&["alter", "--add", "id:f64"]);
    let day2 = db.path.with_file_name("day2.csv");
    fs::write(
        &day2,
        "time,sym,price,qty,n,note,id\n2025-03-02T00:00:00Z,BTC,1,4,0,x,9007199254740993\n",
    )
    .unwrap();
    let (code, _, err) = run(db.xs(&["import", day2.to_str().unwrap()]));
    assert_eq!(code, 4, "{err}");
    let rejects: String = fs::read_dir(&db.path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("rejects-"))
        .map(|p| fs::read_to_string(p).unwrap())
        .collect();
    assert!(
        rejects.contains("column `id`: a whole number past 2^53, which f64 holds only rounded")
            && rejects.contains("`xs alter --widen id:i64` if this column holds no value yet"),
        "{rejects}"
    );
    let (code, _, err) = run(db.xs(&["put", "2025-03-02T00:00:00Z", "sym=BTC", "id=9007199254740993"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("past 2^53"), "{err}");
    assert!(!all(&db).contains("2025-03-02"), "{}", all(&db));

    // The column holds no value: any type, here the integer its values are.
    db.ok(&["alter", "--widen", "id:i64"]);
    db.ok(&["import", "--max-rejects", "0", day2.to_str().unwrap()]);
    assert!(
        all(&db).contains(",BTC,1.00,4,0,x,9007199254740993\n"),
        "{}",
        all(&db)
    );
    assert!(db.ok(&["check"]).contains("no damage found"));

    // A column that holds a value (here in the last series only) keeps the widening rules,
    // refused before anything is written; a key column always does.
    let before = files(&db.path);
    for (args, message) in [
        (
            &["alter", "--widen", "id:u8"][..],
            "cannot change `id` from i64 to u8: u8 is narrower than i64, and values could be \
             lost; xs alter widens",
        ),
        (
            &["alter", "--widen", "note:i64"][..],
            "Only a column that holds no value takes any type, and this one holds a value at \
             2023-12-31T23:59:59",
        ),
        (
            &["alter", "--widen", "sym:i64"][..],
            "cannot change `sym` from str(4) to i64",
        ),
    ] {
        let (code, _, err) = run(db.xs(args));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
        assert_eq!(files(&db.path), before, "{args:?} changed files");
    }
}
