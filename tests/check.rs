//! Checksums (issue 19): a damaged or torn unit is an error (exit 6) naming the file, offset and
//! times, never a wrong row; `xs check` finds each; `defrag` refuses; a torn write of an
//! unfinished import is reported as such and its re-run repairs it; partitions of the older
//! versions still read. Every test runs on both layouts. The corruption loop flips random
//! bytes of small databases and asserts that no read (range, export, get, hourly aggregates,
//! Arrow output) serves a wrong row with exit 0; it runs `XS_CORRUPTIONS` flips per layout
//! (default 60).

mod common;

use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use common::{ok_in, s, xs, xs_in, Rng, TestDb};
use tempfile::TempDir;

const DAMAGED: i32 = 6;
/// The layouts, and the bucket layout with columnar records.
const LAYOUTS: [&str; 3] = ["grid", "bucket", "columnar"];
/// Rows of `v:f64,n:i64`: a flags byte and two 8-byte columns.
const ROW_LEN: u64 = 17;
/// A bucket directory entry with two summarized columns: 32 + 16 × 2 bytes.
const ENTRY_LEN: u64 = 64;

/// A database of `layout` with 1 s granularity, day partitions and (bucket) 1 min buckets.
fn create(layout: &str) -> (TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("db");
    let mut cmd = xs();
    cmd.arg("create").arg(&dir).args([
        "--granularity",
        "1s",
        "--columns",
        "v:f64,n:i64",
        "--partition",
        "day",
    ]);
    match layout {
        "grid" => cmd.args(["--layout", "grid"]),
        "bucket" => cmd.args(["--layout", "bucket", "--bucket", "1m"]),
        _ => cmd.args(["--layout", "bucket", "--bucket", "1m", "--codec", "columnar"]),
    };
    cmd.assert().success();
    (tmp, dir)
}

/// Imports `csv` (written next to the database as `name`) into `dir`.
fn import(dir: &Path, name: &str, csv: &str) -> PathBuf {
    let path = dir.parent().unwrap().join(name);
    fs::write(&path, csv).unwrap();
    ok_in(dir, &["import", s(&path)]);
    path
}

/// Rows every 10 s from 00:00 to 02:00 on 2024-01-01, `v` = 1000 + i / 4, `n` = i.
fn some_rows() -> String {
    let mut csv = String::from("time,v,n\n");
    for i in 0..720 {
        let (h, m, sec) = (i * 10 / 3600, i * 10 / 60 % 60, i * 10 % 60);
        csv += &format!(
            "2024-01-01T{h:02}:{m:02}:{sec:02}Z,{},{i}\n",
            1000.0 + i as f64 / 4.0
        );
    }
    csv
}

fn range_all(dir: &Path) -> (i32, String, String) {
    xs_in(dir, &["range", "2024-01-01", "2024-01-03"])
}

fn export_all(dir: &Path) -> (i32, String, String) {
    let out = dir.parent().unwrap().join("export.csv");
    let _ = fs::remove_file(&out);
    let (code, _, err) = xs_in(dir, &["export", "--output", s(&out)]);
    (code, fs::read_to_string(&out).unwrap_or_default(), err)
}

/// Hourly aggregates: the bucket layout answers count, min and max from its directory's
/// summaries, a read path of its own.
fn aggregates(dir: &Path) -> (i32, String, String) {
    xs_in(
        dir,
        &[
            "range",
            "2024-01-01",
            "2024-01-03",
            "--every",
            "1h",
            "--agg",
            "count,min(v),max(n),sum(n)",
        ],
    )
}

/// Every row as an Arrow IPC stream (its bytes as text, which is enough to compare).
fn arrow_all(dir: &Path) -> (i32, String, String) {
    xs_in(dir, &["range", "2024-01-01", "2024-01-03", "--format", "arrow"])
}

/// Offset of the first occurrence of `needle` in the file `path`.
fn find(path: &Path, needle: &[u8]) -> u64 {
    let bytes = fs::read(path).unwrap();
    bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {}", path.display())) as u64
}

fn patch(path: &Path, at: u64, bytes: &[u8]) {
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(bytes, at).unwrap();
}

fn read_at(path: &Path, at: u64, len: usize) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    fs::File::open(path).unwrap().read_exact_at(&mut buf, at).unwrap();
    buf
}

/// The file that holds rows: the partition (grid) or its data file (bucket).
fn row_file(dir: &Path, layout: &str) -> PathBuf {
    match layout {
        "grid" => dir.join("2024-01-01.xs"),
        _ => dir.join("2024-01-01.xs.data"),
    }
}

/// Every line of `out` is a line of `pristine`: no wrong row was served.
fn assert_no_wrong_rows(out: &str, pristine: &str, what: &str) {
    for line in out.lines() {
        assert!(
            pristine.lines().any(|l| l == line),
            "{what} served a wrong row: {line}"
        );
    }
}

#[test]
fn a_flipped_byte_in_a_row_is_an_error_not_wrong_data() {
    for layout in LAYOUTS {
        let (_tmp, dir) = create(layout);
        import(&dir, "rows.csv", &some_rows());
        let (pristine, pristine_export) = (range_all(&dir).1, export_all(&dir).1);
        let agg = ["range", "2024-01-01", "2024-01-02", "--agg", "max(v),first(v)"];
        let pristine_agg = ok_in(&dir, &agg);
        let max_only = ["range", "2024-01-01", "2024-01-02", "--agg", "max(v)"];
        let pristine_max = ok_in(&dir, &max_only);
        // Row 100 (00:16:40) holds v = 1025: flip a byte of its value where it is stored.
        let file = row_file(&dir, layout);
        let at = find(&file, &1025.0f64.to_le_bytes()) + 3;
        patch(&file, at, &[read_at(&file, at, 1)[0] ^ 0x10]);
        let (code, out, err) = xs_in(&dir, &["get", "2024-01-01T00:16:40Z"]);
        assert_eq!(code, DAMAGED, "{layout} get: {out}\n{err}");
        assert!(out.is_empty(), "{layout}: get served {out}");
        assert!(
            err.contains(s(&file)) && err.contains("fails its checksum") && err.contains("2024-01-01T00:16"),
            "{layout}: {err}"
        );
        // An as-of lookup that lands on it.
        let (code, out, err) = xs_in(&dir, &["get", "--asof", "2024-01-01T00:16:45Z"]);
        assert_eq!(code, DAMAGED, "{layout} as-of: {out}\n{err}");
        assert!(out.is_empty(), "{layout}: as-of served {out}");
        let (code, out, err) = range_all(&dir);
        assert_eq!(code, DAMAGED, "{layout} range: {err}");
        assert_no_wrong_rows(&out, &pristine, "range");
        let (code, out, err) = export_all(&dir);
        assert_eq!(code, DAMAGED, "{layout} export: {err}");
        assert_no_wrong_rows(&out, &pristine_export, "export");
        let (code, out, err) = xs_in(&dir, &agg);
        assert_eq!(code, DAMAGED, "{layout} agg: {out}\n{err}");
        assert_no_wrong_rows(&out, &pristine_agg, "agg");
        // max alone may come from the bucket entries' summaries (their own checks hold, and
        // were computed from the rows before the damage): a right answer, or the error.
        let (code, out, err) = xs_in(&dir, &max_only);
        assert!(
            code == DAMAGED || (code == 0 && out == pristine_max),
            "{layout} max: {code} {out}\n{err}"
        );
        // check names the file and the damaged unit's times, and changes nothing.
        let before = fs::read(&file).unwrap();
        let (code, out, err) = xs_in(&dir, &["check"]);
        assert_eq!(code, DAMAGED, "{layout} check: {out}\n{err}");
        assert!(
            out.contains(&format!("damaged: {}", file.display())) && out.contains("times 2024-01-01T00:16"),
            "{layout}: {out}"
        );
        assert!(err.contains("restore"), "{layout}: {err}");
        let (code, json, _) = xs_in(&dir, &["check", "--json"]);
        assert_eq!(code, DAMAGED);
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(json["damaged_units"], 1, "{layout}: {json}");
        assert_eq!(fs::read(&file).unwrap(), before, "check changes nothing");
        // defrag refuses, and rewrites nothing.
        let (code, out, err) = xs_in(&dir, &["defrag", "--min-extents", "0"]);
        assert_eq!(code, DAMAGED, "{layout} defrag: {out}\n{err}");
        assert!(err.contains("nothing was rewritten"), "{layout}: {err}");
        assert_eq!(
            fs::read(&file).unwrap(),
            before,
            "{layout}: defrag left the file alone"
        );
        // Repair: delete the damaged minute, import it again.
        ok_in(&dir, &["delete", "2024-01-01T00:16:00Z", "2024-01-01T00:17:00Z"]);
        ok_in(&dir, &["check"]);
        let minute: String = some_rows()
            .lines()
            .filter(|l| l.starts_with("time") || l.starts_with("2024-01-01T00:16:"))
            .map(|l| format!("{l}\n"))
            .collect();
        import(&dir, "minute.csv", &minute);
        assert_eq!(range_all(&dir), (0, pristine.clone(), String::new()), "{layout}");
    }
}

#[test]
fn a_clean_database_checks_clean_and_defrag_still_works() {
    for layout in LAYOUTS {
        let (_tmp, dir) = create(layout);
        import(&dir, "rows.csv", &some_rows());
        let out = ok_in(&dir, &["check"]);
        assert!(
            out.contains("2024-01-01: 720 rows verified, ok"),
            "{layout}: {out}"
        );
        let pristine = range_all(&dir).1;
        ok_in(&dir, &["defrag", "--min-extents", "0"]);
        assert_eq!(range_all(&dir).1, pristine, "{layout}");
        ok_in(&dir, &["check"]);
    }
}

#[test]
fn a_zeroed_directory_block_is_an_error_not_fewer_rows() {
    let (_tmp, dir) = create("bucket");
    // 720 rows in 120 one-minute buckets: entries 0..120 fill the directory's first two blocks.
    import(&dir, "rows.csv", &some_rows());
    let pristine = range_all(&dir).1;
    let directory = dir.join("2024-01-01.xs");
    patch(&directory, 8192, &[0u8; 4096]);
    let before = fs::read(&directory).unwrap();
    let (code, out, err) = range_all(&dir);
    assert_eq!(code, DAMAGED, "range: {err}");
    assert_no_wrong_rows(&out, &pristine, "range");
    assert!(
        err.contains("directory block") && err.contains("byte offset 8192"),
        "{err}"
    );
    // Entries 64..128 (4096 + 64 × 64 = 8192): from minute 64 on.
    assert!(err.contains("2024-01-01T01:04:00Z"), "{err}");
    let (code, _, err) = export_all(&dir);
    assert_eq!(code, DAMAGED, "export: {err}");
    let (code, out, err) = xs_in(&dir, &["get", "2024-01-01T01:10:00Z"]);
    // A point read locates its entry by arithmetic: an all-zero entry is an empty bucket
    // unless its block is known to be damaged, so get reads the block's allocation too.
    assert_eq!(code, DAMAGED, "get: {out}\n{err}");
    // Short reads take the directory's bytes without seeking first: a stretch of a bucket or
    // two inside the zeroed block, or across its first edge, is still found damaged.
    for (from, to) in [
        ("2024-01-01T01:10:00Z", "2024-01-01T01:12:00Z"),
        ("2024-01-01T01:03:00Z", "2024-01-01T01:05:00Z"),
    ] {
        let (code, out, err) = xs_in(&dir, &["range", from, to]);
        assert_eq!(code, DAMAGED, "range {from} {to}: {out}\n{err}");
        let (code, out, err) = xs_in(&dir, &["range", from, to, "--every", "1m", "--agg", "count"]);
        assert_eq!(code, DAMAGED, "agg {from} {to}: {out}\n{err}");
    }
    let (code, out, err) = xs_in(&dir, &["get", "--asof", "2024-01-01T01:10:30Z"]);
    assert_eq!(code, DAMAGED, "get --asof: {out}\n{err}");
    let (code, out, _) = xs_in(&dir, &["check"]);
    assert_eq!(code, DAMAGED, "{out}");
    assert!(
        out.contains("directory block") && out.contains("at byte offset 8192"),
        "{out}"
    );
    // stat does not call the orphaned records garbage (nor advise defrag).
    let (code, out, err) = xs_in(&dir, &["stat"]);
    assert_eq!(code, DAMAGED, "stat: {out}\n{err}");
    assert!(
        !out.contains("garbage") && !err.contains("defrag"),
        "{out}\n{err}"
    );
    let (code, _, err) = xs_in(&dir, &["defrag", "--min-extents", "0"]);
    assert_eq!(code, DAMAGED, "defrag: {err}");
    assert_eq!(fs::read(&directory).unwrap(), before);
    // Repair: delete the block's minutes (01:04 to 02:08), import them again.
    ok_in(&dir, &["delete", "2024-01-01T01:04:00Z", "2024-01-01T02:08:00Z"]);
    ok_in(&dir, &["check"]);
    let lost: String = some_rows()
        .lines()
        .filter(|l| l.starts_with("time") || l.as_bytes()[11..16] >= *b"01:04".as_slice())
        .map(|l| format!("{l}\n"))
        .collect();
    import(&dir, "lost.csv", &lost);
    assert_eq!(range_all(&dir).1, pristine);
    ok_in(&dir, &["check"]);
}

#[test]
fn a_torn_write_of_an_unfinished_import_is_reported_and_its_rerun_repairs_it() {
    for layout in LAYOUTS {
        let (_tmp, dir) = create(layout);
        import(&dir, "rows.csv", &some_rows());
        // The unit of 01:00:00: slot 3600 (rows and check), or the entry of bucket 60.
        let file = dir.join("2024-01-01.xs");
        // A version-1 grid slot (an xs before checksums) has no check after its row.
        let version = u32::from_le_bytes(read_at(&file, 8, 4).try_into().unwrap());
        let check_len = if version == 3 { 4 } else { 0 };
        let (at, len) = match layout {
            "grid" => (4096 + 3600 * (ROW_LEN + check_len), ROW_LEN + check_len),
            _ => (4096 + 60 * ENTRY_LEN, ENTRY_LEN),
        };
        let old = read_at(&file, at, len as usize);
        let new_csv = "time,v,n\n2024-01-01T01:00:00Z,-7.37,42\n";
        let input = import(&dir, "new.csv", new_csv);
        let new = read_at(&file, at, len as usize);
        assert_ne!(old, new);
        // The import is cut after the first half of the unit's new bytes.
        let half = (len / 2) as usize;
        let mut torn = new[..half].to_vec();
        torn.extend_from_slice(&old[half..]);
        patch(&file, at, &torn);
        let rerun = format!("xs -d {} import {}", dir.display(), input.display());
        fs::write(dir.join(".import-unfinished"), format!("{rerun}\n")).unwrap();

        let (code, out, err) = xs_in(&dir, &["get", "2024-01-01T01:00:00Z"]);
        assert_eq!(code, DAMAGED, "{layout} get: {out}\n{err}");
        assert!(out.is_empty(), "{layout}: a torn row was served: {out}");
        assert!(
            err.contains("torn") && err.contains(&rerun) && err.contains(&format!("byte offset {at}")),
            "{layout}: {err}"
        );
        let (code, _, err) = range_all(&dir);
        assert_eq!(code, DAMAGED, "{layout} range: {err}");
        let (code, out, err) = xs_in(&dir, &["check"]);
        assert_eq!(code, DAMAGED, "{layout} check: {out}\n{err}");
        assert!(out.contains(&format!("at byte offset {at}")), "{layout}: {out}");
        assert!(err.contains("torn") && err.contains(&rerun), "{layout}: {err}");

        // The re-run rewrites the unit.
        ok_in(&dir, &["import", s(&input)]);
        assert!(!dir.join(".import-unfinished").exists());
        assert_eq!(
            ok_in(&dir, &["get", "2024-01-01T01:00:00Z"]),
            "time,v,n\n2024-01-01T01:00:00Z,-7.37,42\n",
            "{layout}"
        );
        ok_in(&dir, &["check"]);
    }
}

/// Databases written by an older xs (fixtures: a version-1 grid and a version-2 bucket
/// database) read as a fresh database of the same config reads the same input, take writes in
/// their own version, and check clean (their rows carry no checksums).
#[test]
fn partitions_of_the_older_versions_still_read_and_take_writes() {
    for (fixture, version) in [("v1-grid", 1u32), ("v2-bucket", 2)] {
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(fixture);
        let old = TestDb::copy_of(&source);
        let _ = fs::remove_file(old.path.join("input.csv"));
        let fresh = TestDb::copy_of(&source);
        for name in [
            "2024-01-01.xs",
            "2024-01-02.xs",
            "2024-01-01.xs.data",
            "2024-01-02.xs.data",
        ] {
            let _ = fs::remove_file(fresh.path.join(name));
        }
        ok_in(&fresh.path, &["import", s(&fresh.path.join("input.csv"))]);
        let header_version =
            |db: &TestDb| u32::from_le_bytes(read_at(&db.file("2024-01-01.xs"), 8, 4).try_into().unwrap());
        assert_eq!(header_version(&old), version, "{fixture}");
        assert_eq!(
            header_version(&fresh),
            3,
            "{fixture}: new partitions carry checksums"
        );
        assert_eq!(range_all(&old.path).1, range_all(&fresh.path).1, "{fixture}");
        for db in [&old, &fresh] {
            import(
                &db.path,
                "more.csv",
                "time,v,n,s\n2024-01-01T00:00:00Z,5,5,m\n2024-01-02T23:59:00Z,6,6,n\n",
            );
            ok_in(&db.path, &["put", "2024-01-01T12:00:00Z", "v=1", "n=2", "s=p"]);
        }
        assert_eq!(
            header_version(&old),
            version,
            "{fixture}: written in its own version"
        );
        assert_eq!(range_all(&old.path).1, range_all(&fresh.path).1, "{fixture}");
        let out = ok_in(&old.path, &["check"]);
        assert!(out.contains("rows carry no checksums"), "{fixture}: {out}");
    }
}

/// A copy of the database of `fixtures/NAME` and, beside it, a fresh one of its `input.csv`
/// (bucket layout, 1h buckets, 1s granularity, day partitions, and `create_args`): the
/// fixture's old files and what this xs writes of the same rows.
fn fixture_beside_fresh(name: &str, create_args: &[&str]) -> (TestDb, PathBuf) {
    let old = TestDb::copy_of(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name));
    let input = old.path.parent().unwrap().join("input.csv");
    fs::rename(old.path.join("input.csv"), &input).unwrap();
    let fresh = old.path.parent().unwrap().join("fresh");
    xs().arg("create")
        .arg(&fresh)
        .args(["--layout", "bucket", "--bucket", "1h", "--granularity", "1s"])
        .args(["--partition", "day"])
        .args(create_args)
        .assert()
        .success();
    ok_in(&fresh, &["import", s(&input), "--time-unit", "s"]);
    (old, fresh)
}

/// A bucket database written by xs before columnar records (fixture: partition version 3, raw
/// records with checks, format 3 with a `sym` column) reads as a fresh one of the same input,
/// takes writes in its own version, and `defrag --codec columnar` converts it (version 5,
/// format 4) and `--codec raw` back, every row unchanged and every check passing.
#[test]
fn a_version_3_bucket_database_reads_and_defrag_converts_it_between_codecs() {
    let (old, fresh) = fixture_beside_fresh(
        "v3-bucket",
        &["--columns", "sym:sym,price:dec(2),qty:i64,flag:bool,note:str(6)"],
    );
    let version =
        |db: &Path, name: &str| u32::from_le_bytes(read_at(&db.join(name), 8, 4).try_into().unwrap());
    let config = |db: &Path| fs::read_to_string(db.join("xs.toml")).unwrap();
    let all = |db: &Path| ok_in(db, &["range", "2024-01-01", "2025-01-01"]);
    let pristine = all(&fresh);
    assert_eq!(pristine.lines().count(), 1401);
    assert_eq!(all(&old.path), pristine);
    for db in [&old.path, &fresh] {
        ok_in(
            db,
            &[
                "put",
                "2024-01-01T23:00:00Z",
                "sym=XRP",
                "price=1.25",
                "qty=7",
                "flag=true",
                "note=new",
            ],
        );
    }
    assert_eq!(
        version(&old.path, "2024-01-01.xs"),
        3,
        "written in its own version"
    );
    let written = all(&fresh);
    assert_eq!(all(&old.path), written);

    let out = ok_in(&old.path, &["defrag", "--codec", "columnar"]);
    assert!(
        out.contains("columnar records added (partition version 3 → 5)"),
        "{out}"
    );
    for name in [
        "2024-01-01.xs",
        "2024-01-01.xs.data",
        "2024-01-02.xs",
        "2024-01-02.xs.data",
    ] {
        assert_eq!(version(&old.path, name), 5, "{name}");
    }
    assert!(
        config(&old.path).contains("format = 4\n"),
        "{}",
        config(&old.path)
    );
    assert!(config(&old.path).contains("codec = \"columnar\"\n"));
    assert_eq!(all(&old.path), written);
    let stat = ok_in(&old.path, &["stat"]);
    assert!(stat.contains("columnar records: "), "{stat}");
    // `--fast` reads no record, so it has no per-column bytes to show.
    let fast = ok_in(&old.path, &["stat", "--fast"]);
    assert!(!fast.contains("columnar records: "), "{fast}");
    let check = ok_in(&old.path, &["check"]);
    assert!(!check.contains("no checksums"), "{check}");
    // Writes into the converted partitions, and a partition created after the conversion.
    for db in [&old.path, &fresh] {
        ok_in(
            db,
            &["put", "2024-01-01T23:30:00Z", "sym=BTC", "price=2", "qty=8"],
        );
        ok_in(
            db,
            &["put", "2024-01-05T00:00:00Z", "sym=ETH", "price=3", "qty=9"],
        );
    }
    assert_eq!(version(&old.path, "2024-01-05.xs"), 5);
    let written = all(&fresh);
    assert_eq!(all(&old.path), written);

    let out = ok_in(&old.path, &["defrag", "--codec", "raw"]);
    assert!(
        out.contains("raw records added (partition version 5 → 3)"),
        "{out}"
    );
    assert_eq!(version(&old.path, "2024-01-05.xs.data"), 3);
    assert!(
        config(&old.path).contains("format = 3\n"),
        "{}",
        config(&old.path)
    );
    assert!(!config(&old.path).contains("codec"));
    assert_eq!(all(&old.path), written);
    ok_in(&old.path, &["check"]);
}

/// A columnar database written by xs before paged streams (fixture: partition version 4, a
/// bucket of 2,000 rows with repeated seconds, nulls in most types) reads, gets and checks as a
/// fresh import of the same input (version 5), takes writes as version 4, and `defrag` pages
/// it (version 5), every row unchanged.
#[test]
fn a_version_4_columnar_database_reads_takes_writes_and_defrag_pages_it() {
    let (old, fresh) = fixture_beside_fresh(
        "v4-bucket",
        &[
            "--codec",
            "columnar",
            "--columns",
            "sym:sym,price:dec(2),qty:i64,flag:bool,note:str(6),temp:f64",
        ],
    );
    let version =
        |db: &Path, name: &str| u32::from_le_bytes(read_at(&db.join(name), 8, 4).try_into().unwrap());
    for name in ["2024-01-01.xs", "2024-01-01.xs.data", "2024-01-02.xs.data"] {
        assert_eq!(version(&old.path, name), 4, "{name}");
        assert_eq!(version(&fresh, name), 5, "{name}");
    }
    let all = |db: &Path| ok_in(db, &["range", "2024-01-01", "2025-01-01"]);
    // A second stored twice, the last row of the first page, lone rows, two seconds without
    // rows (exit 1), in a bucket with rows and in one without, and a row of the second day
    // (its time offsets a progression in version 5) and a second between two of its rows.
    let gets = |db: &Path| {
        [
            "2024-01-01T00:00:04Z",
            "2024-01-01T00:08:31Z",
            "2024-01-01T00:20:00Z",
            "2024-01-01T02:10:00Z",
            "2024-01-01T02:05:00Z",
            "2024-01-01T05:00:00Z",
            "2024-01-02T05:00:03Z",
            "2024-01-02T05:00:04Z",
        ]
        .map(|t| {
            let out = xs().arg("-d").arg(db).args(["get", t]).output().unwrap();
            (out.status.code(), String::from_utf8(out.stdout).unwrap())
        })
    };
    let pristine = all(&fresh);
    assert_eq!(pristine.lines().count(), 2306);
    assert_eq!(all(&old.path), pristine);
    let got = gets(&fresh);
    let rows = got.clone().map(|(code, out)| (code, out.lines().count()));
    assert_eq!(
        rows,
        [
            (Some(0), 3),
            (Some(0), 2),
            (Some(0), 2),
            (Some(0), 2),
            (Some(1), 1),
            (Some(1), 1),
            (Some(0), 2),
            (Some(1), 1)
        ],
        "{got:?}"
    );
    assert_eq!(gets(&old.path), got);
    ok_in(&old.path, &["check"]);

    for db in [&old.path, &fresh] {
        ok_in(
            db,
            &[
                "put",
                "2024-01-01T00:10:00Z",
                "sym=XRP",
                "price=1.25",
                "qty=7",
                "flag=true",
            ],
        );
    }
    assert_eq!(
        version(&old.path, "2024-01-01.xs.data"),
        4,
        "written in its own version"
    );
    let written = all(&fresh);
    assert_ne!(written, pristine);
    assert_eq!(all(&old.path), written);
    ok_in(&old.path, &["check"]);

    let out = ok_in(&old.path, &["defrag"]);
    assert!(
        out.contains("paged columnar streams added (partition version 4 → 5)"),
        "{out}"
    );
    for name in ["2024-01-01.xs", "2024-01-01.xs.data", "2024-01-02.xs.data"] {
        assert_eq!(version(&old.path, name), 5, "{name}");
    }
    assert_eq!(all(&old.path), written);
    assert_eq!(gets(&old.path), gets(&fresh));
    ok_in(&old.path, &["check"]);
}

#[test]
fn corruption_loop_serves_no_wrong_row_with_exit_0() {
    let flips: u64 = common::env_number("XS_CORRUPTIONS", 60);
    let seed: u64 = common::env_number("XS_CORRUPTION_SEED", 19);
    for layout in LAYOUTS {
        let (_tmp, dir) = create(layout);
        // Two partitions; depth-1 grid, bucket records of several rows.
        let mut csv = some_rows();
        csv += "2024-01-02T00:00:00Z,1,1\n2024-01-02T00:00:01Z,2,2\n";
        import(&dir, "rows.csv", &csv);
        let times = [
            "2024-01-01T00:00:00Z",
            "2024-01-01T00:16:40Z",
            "2024-01-01T01:59:50Z",
            "2024-01-02T00:00:01Z",
        ];
        let mut get_args = vec!["get"];
        get_args.extend(times);
        let pristine = (
            range_all(&dir).1,
            export_all(&dir).1,
            ok_in(&dir, &get_args),
            aggregates(&dir).1,
            arrow_all(&dir).1,
        );
        let files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let name = p.file_name().unwrap().to_str().unwrap();
                name.ends_with(".xs") || name.ends_with(".xs.data")
            })
            .collect();
        let mut rng = Rng(seed.wrapping_add(layout.len() as u64) | 1);
        let (mut detected, mut harmless) = (0u64, 0u64);
        for i in 0..flips {
            let file = &files[rng.below(files.len() as u64) as usize];
            let runs = common::data_runs(file);
            let total: u64 = runs.iter().map(|(a, b)| b - a).sum();
            let mut pick = rng.below(total);
            let mut at = 0;
            for (a, b) in &runs {
                if pick < b - a {
                    at = a + pick;
                    break;
                }
                pick -= b - a;
            }
            let original = read_at(file, at, 1)[0];
            let mask = (rng.below(255) + 1) as u8;
            patch(file, at, &[original ^ mask]);
            let what = format!(
                "{layout} flip {i}: byte {at} of {} ^= {mask:#04x}",
                file.display()
            );
            let results = [
                ("range", range_all(&dir), &pristine.0),
                ("export", export_all(&dir), &pristine.1),
                ("get", xs_in(&dir, &get_args), &pristine.2),
                ("aggregates", aggregates(&dir), &pristine.3),
                ("arrow", arrow_all(&dir), &pristine.4),
            ];
            let mut all_clean = true;
            for (name, (code, out, err), want) in &results {
                assert!(
                    [0, 3, DAMAGED].contains(code) && !err.contains("panicked"),
                    "{what}: {name} exit {code}: {err}"
                );
                if *code == 0 {
                    // The first line that differs, not two whole outputs.
                    let wrong = out.lines().zip(want.lines()).find(|(a, b)| a != b);
                    assert!(
                        out == *want,
                        "{what}: {name} served wrong rows with exit 0: {wrong:?} ({} lines, want {})",
                        out.lines().count(),
                        want.lines().count()
                    );
                } else {
                    all_clean = false;
                }
            }
            let (code, out, err) = xs_in(&dir, &["check"]);
            assert!(
                [0, 3, DAMAGED].contains(&code),
                "{what}: check exit {code}: {err}"
            );
            if !all_clean {
                assert_ne!(code, 0, "{what}: reads failed but check found nothing: {out}");
                detected += 1;
            } else {
                harmless += u64::from(code == 0);
                detected += u64::from(code != 0);
            }
            patch(file, at, &[original]);
        }
        eprintln!("{layout}: {flips} flips, {detected} detected, {harmless} harmless, 0 wrong rows served");
    }
}

#[test]
fn a_damaged_partition_header_is_damage_that_check_reports() {
    for layout in LAYOUTS {
        let (_tmp, dir) = create(layout);
        let mut csv = some_rows();
        csv += "2024-01-02T00:00:00Z,1,1\n";
        import(&dir, "rows.csv", &csv);
        // A field inside the header's checksum (the partition start) of the first partition.
        let file = dir.join("2024-01-01.xs");
        patch(&file, 20, &[read_at(&file, 20, 1)[0] ^ 1]);
        let (code, out, err) = xs_in(&dir, &["get", "2024-01-02T00:00:00Z"]);
        assert_eq!(code, DAMAGED, "{layout}: {out}\n{err}");
        assert!(
            err.contains("partition header at byte offset 0") && !err.contains("move it out"),
            "{layout}: {err}"
        );
        let (code, out, err) = xs_in(&dir, &["check"]);
        assert_eq!(code, DAMAGED, "{layout}: {out}\n{err}");
        assert!(
            out.contains("2024-01-01: 0 rows verified, DAMAGED")
                && out.contains("1 partition header")
                && out.contains("2024-01-02: 1 rows verified, ok"),
            "{layout}: {out}"
        );
    }
}

/// A bucket data file cut inside its header block is damage (a truncated copy), said as
/// such by reads and listed by `check` (exit 6), not taken for another database's file.
#[test]
fn a_data_file_cut_inside_its_header_is_damage() {
    for layout in ["bucket", "columnar"] {
        let (_tmp, dir) = create(layout);
        import(&dir, "rows.csv", &some_rows());
        let data = row_file(&dir, layout);
        fs::OpenOptions::new()
            .write(true)
            .open(&data)
            .unwrap()
            .set_len(2000)
            .unwrap();
        let (code, _, err) = range_all(&dir);
        assert_eq!(code, 3, "{layout}: {err}");
        assert!(
            err.contains("shorter than its 4096-byte header: the file was cut short"),
            "{layout}: {err}"
        );
        assert!(!err.contains("does not belong"), "{layout}: {err}");
        let (code, out, err) = xs_in(&dir, &["check"]);
        assert_eq!(code, 6, "{layout}: {out}{err}");
        assert!(
            out.contains("2024-01-01: 0 rows verified, DAMAGED") && out.contains("cut short"),
            "{out}"
        );
    }
}

/// A data file cut short after its header: count, min and max, which the directory's
/// summaries answer without reading a record, refuse the buckets whose records were cut off,
/// as every other read does. Before, they answered the figures of the lost rows with exit 0.
#[test]
fn summaries_of_records_cut_off_the_data_file_are_not_answered() {
    for layout in ["bucket", "columnar"] {
        let (_tmp, dir) = create(layout);
        import(&dir, "rows.csv", &some_rows());
        let data = row_file(&dir, layout);
        let aggs = [
            "range",
            "2024-01-01",
            "2024-01-03",
            "--agg",
            "count,min(v),max(n)",
        ];
        let (code, out, err) = xs_in(&dir, &aggs);
        assert_eq!(
            (code, out.as_str()),
            (0, "time,count,min_v,max_n\n2024-01-01T00:00:00Z,720,1000.0,719\n"),
            "{err}"
        );
        let len = fs::metadata(&data).unwrap().len();
        fs::OpenOptions::new()
            .write(true)
            .open(&data)
            .unwrap()
            .set_len(len - 100)
            .unwrap();
        let (code, out, err) = xs_in(&dir, &aggs);
        assert_eq!(code, 3, "{layout}: {out}{err}");
        assert!(
            err.contains("of a") && err.contains("-byte data file (corrupt)"),
            "{layout}: {err}"
        );
        // A window whose records are all whole still answers.
        let (code, out, err) = xs_in(
            &dir,
            &[
                "range",
                "2024-01-01T00:00:00Z",
                "2024-01-01T00:30:00Z",
                "--agg",
                "count",
            ],
        );
        assert_eq!(
            (code, out.as_str()),
            (0, "time,count\n2024-01-01T00:00:00Z,180\n"),
            "{layout}: {err}"
        );
    }
}

/// `check` lists a bucket partition whose data file is gone as damage with the others (exit 6),
/// in a plain database and in a series database, where it stopped at it (exit 3); reads
/// still refuse it, naming the file.
#[test]
fn a_missing_data_file_is_listed_by_check() {
    let (_tmp, dir) = create("columnar");
    import(&dir, "rows.csv", &some_rows());
    fs::remove_file(row_file(&dir, "columnar")).unwrap();
    let (code, out, err) = xs_in(&dir, &["check"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(
        out.contains("2024-01-01: 0 rows verified, DAMAGED") && out.contains(".xs.data is missing"),
        "{out}"
    );
    let (code, _, err) = range_all(&dir);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("2024-01-01.xs.data is missing"), "{err}");

    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s");
    let csv = tmp.path().join("s.csv");
    fs::write(
        &csv,
        "time,sym,v\n2024-01-01T00:00:00Z,A,1\n2024-01-01T00:00:00Z,B,2\n",
    )
    .unwrap();
    xs().args(["import", s(&csv), "-d", s(&db), "--series-by", "sym", "-q"])
        .assert()
        .success();
    fs::remove_file(db.join("series/A/2024.xs.data")).unwrap();
    let (code, out, err) = xs_in(&db, &["check"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(
        out.contains("A/2024: 0 rows verified, DAMAGED") && out.contains("B/2024: 1 rows verified, ok"),
        "{out}"
    );
}
