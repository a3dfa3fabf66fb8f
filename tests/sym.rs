//! `sym` columns: dictionary-encoded text of any length, one dictionary (`sym.dict`) per
//! database, through import, put, range, get, the aggregates, `--where`, series and unique keys;
//! the dictionary's crash-safety rules (an uncommitted tail is ignored, damage before the commit
//! is an error); Parquet output. tests/sym_bucket.rs runs the same suite on the bucket layout.

mod common;

use std::fs;
use std::path::Path;

use common::{assert_no_panic, run, xs, TestDb};

const DAY: &str = "2024-08-08";

fn csv(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    fs::write(&path, text).expect("write csv");
    path.to_str().expect("utf-8").to_string()
}

fn range(db: &TestDb, extra: &[&str]) -> String {
    let mut args = vec!["range", "2024-08-01", "2024-09-01"];
    args.extend_from_slice(extra);
    db.ok(&args)
}

fn bucket_args() -> Vec<&'static str> {
    if common::layout() == "bucket" {
        vec!["--bucket", "1s"]
    } else {
        vec![]
    }
}

fn trades_db(extra: &[&str]) -> TestDb {
    let mut args = bucket_args();
    args.extend_from_slice(extra);
    TestDb::create("1s", "symbol:sym,side:sym,price:f64", &args)
}

/// `xs put` of one buy at price 1 for each (time of `DAY`, symbol).
fn put_buys(db: &TestDb, trades: &[(&str, &str)]) {
    for (t, sym) in trades {
        db.ok(&[
            "put",
            &format!("{DAY}T{t}Z"),
            &format!("symbol={sym}"),
            "side=buy",
            "price=1",
        ]);
    }
}

#[test]
fn a_sym_column_takes_values_longer_than_any_seen_before() {
    let db = trades_db(&["--depth", "4"]);
    let tmp = tempfile::tempdir().unwrap();
    let night1 = csv(
        tmp.path(),
        "n1.csv",
        &format!(
            "time,symbol,side,price\n{DAY}T00:00:00Z,BTCUSDT,buy,1.5\n{DAY}T00:00:01Z,BTCUSDT,sell,2.5\n"
        ),
    );
    db.ok(&["import", &night1, "-q"]);
    let long = "L".repeat(100);
    let night2 = csv(
        tmp.path(),
        "n2.csv",
        &format!("time,symbol,side,price\n{DAY}T00:00:02Z,DOGEUSDT,buy,0.1\n{DAY}T00:00:03Z,{long},sell,7\n"),
    );
    db.ok(&["import", &night2, "-q"]);
    assert_eq!(
        range(&db, &[]),
        format!(
            "time,symbol,side,price\n{DAY}T00:00:00Z,BTCUSDT,buy,1.5\n{DAY}T00:00:01Z,BTCUSDT,sell,2.5\n\
             {DAY}T00:00:02Z,DOGEUSDT,buy,0.1\n{DAY}T00:00:03Z,{long},sell,7.0\n"
        )
    );
    // Four distinct texts (two symbols, two sides, one long): one entry each, shared by both
    // columns, in the order first seen.
    let dict = fs::read(db.file("sym.dict")).unwrap();
    assert_eq!(&dict[0..8], b"XSSYMDIC");
    assert_eq!(u32::from_le_bytes(dict[12..16].try_into().unwrap()), 5);
    let config = fs::read_to_string(db.file("xs.toml")).unwrap();
    assert!(
        config.contains("format = 3") && config.contains("type = \"sym\""),
        "{config}"
    );
    let nd = range(&db, &["--format", "ndjson", "--where", "symbol=DOGEUSDT"]);
    assert_eq!(
        nd,
        format!("{{\"time\":\"{DAY}T00:00:02Z\",\"symbol\":\"DOGEUSDT\",\"side\":\"buy\",\"price\":0.1}}\n")
    );
}

/// Text formats keep each written `sym` field for the next row with that code (a cache of
/// 16 slots by code, per batch): many values, more than it holds, in two columns, quoted or
/// escaped, longer than it keeps and short, must print as they were imported, in CSV and in
/// TSV. The rows share one bucket, so they are one batch in the bucket layout too.
#[test]
fn many_sym_values_print_as_imported_in_csv_and_tsv() {
    let one_bucket = if common::layout() == "bucket" {
        vec!["--bucket", "1h"]
    } else {
        vec![]
    };
    let db = TestDb::create("1s", "symbol:sym,side:sym,price:f64", &one_bucket);
    let tmp = tempfile::tempdir().unwrap();
    let symbol = |i: usize| match i % 5 {
        0 => format!("S{i}"),
        1 => format!("a,b {i}"),
        2 => format!("say \"{i}\""),
        3 => format!("a symbol name longer than twenty-three bytes {i}"),
        _ => format!("s{i}\\"),
    };
    let quoted = |text: &str| {
        if text.contains(',') || text.contains('"') {
            format!("\"{}\"", text.replace('"', "\"\""))
        } else {
            text.to_string()
        }
    };
    let (mut input, mut want_csv, mut want_tsv) = (
        String::from("time,symbol,side,price\n"),
        String::from("time,symbol,side,price\n"),
        String::from("time\tsymbol\tside\tprice\n"),
    );
    for row in 0..600usize {
        // Values come back in a scrambled order, and the side's codes are the symbol's.
        let (sym, side) = (symbol(row * 7 % 41), symbol(row * 3 % 7));
        let t = format!("{DAY}T{:02}:{:02}:{:02}Z", row / 3600, row / 60 % 60, row % 60);
        input += &format!("{t},{},{},1.5\n", quoted(&sym), quoted(&side));
        want_csv += &format!("{t},{},{},1.5\n", quoted(&sym), quoted(&side));
        let tsv = |text: &str| text.replace('\\', "\\\\");
        want_tsv += &format!("{t}\t{}\t{}\t1.5\n", tsv(&sym), tsv(&side));
    }
    db.ok(&["import", "-q", &csv(tmp.path(), "many.csv", &input)]);
    assert_eq!(range(&db, &[]), want_csv);
    assert_eq!(range(&db, &["--format", "tsv"]), want_tsv);
}

#[test]
fn put_get_filters_and_aggregates_read_the_text() {
    let db = trades_db(&["--depth", "4"]);
    db.ok(&[
        "put",
        &format!("{DAY}T00:00:00Z"),
        "symbol=ETHUSDT",
        "side=buy",
        "price=1",
    ]);
    db.ok(&[
        "put",
        &format!("{DAY}T00:00:01Z"),
        "symbol=BTCUSDT",
        "side=sell",
        "price=2",
    ]);
    db.ok(&[
        "put",
        &format!("{DAY}T00:00:02Z"),
        "symbol=ADAUSDT",
        "side=buy",
        "price=3",
    ]);
    db.ok(&["put", &format!("{DAY}T00:00:03Z"), "side=sell", "price=4"]);
    assert_eq!(
        db.ok(&["get", &format!("{DAY}T00:00:01Z")]),
        format!("time,symbol,side,price\n{DAY}T00:00:01Z,BTCUSDT,sell,2.0\n")
    );
    assert_eq!(
        db.ok(&["get", "--asof", &format!("{DAY}T00:00:02.500Z")]),
        format!("time,symbol,side,price\n{DAY}T00:00:02Z,ADAUSDT,buy,3.0\n")
    );
    let col = |out: String| -> Vec<String> {
        out.lines()
            .skip(1)
            .map(|l| l.split(',').nth(1).unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(
        col(range(&db, &["--where", "symbol!=ETHUSDT"])),
        ["BTCUSDT", "ADAUSDT"]
    );
    assert_eq!(
        col(range(&db, &["--where", "symbol in (ADAUSDT,ETHUSDT,nope)"])),
        ["ETHUSDT", "ADAUSDT"]
    );
    // Ordered by the text, not by the code (ETHUSDT has code 0).
    assert_eq!(
        col(range(&db, &["--where", "symbol<CAT"])),
        ["BTCUSDT", "ADAUSDT"]
    );
    assert_eq!(
        col(range(&db, &["--where", "symbol>=BTCUSDT"])),
        ["ETHUSDT", "BTCUSDT"]
    );
    assert_eq!(col(range(&db, &["--where", "symbol=nope"])), Vec::<String>::new());
    assert_eq!(col(range(&db, &["--where", "symbol="])), [""]);
    assert_eq!(
        range(&db, &["--agg", "count,first(symbol),last(side)"])
            .lines()
            .nth(1)
            .unwrap_or(""),
        format!("2024-08-01T00:00:00Z,4,ETHUSDT,sell")
    );
    let (code, _, err) = run(db.xs(&["range", "2024-08-01", "2024-09-01", "--agg", "sum(symbol)"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`symbol` is sym, not a number"), "{err}");
    // Export writes the text too.
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("x.csv");
    db.ok(&["export", "-o", file.to_str().unwrap()]);
    assert!(fs::read_to_string(&file).unwrap().contains(",ADAUSDT,buy,3.0"));
    db.ok(&["delete", &format!("{DAY}T00:00:00Z"), &format!("{DAY}T00:00:01Z")]);
    assert_eq!(col(range(&db, &[])), ["BTCUSDT", "ADAUSDT", ""]);
}

/// A sym series key and unique key: series directories are named by the text, and rows at one
/// time are in unique-key order by text, whatever order the texts got their codes in.
#[test]
fn series_and_unique_keys_on_sym_columns_order_by_text() {
    let a = "time,symbol,side,price\n\
             2024-08-08T00:00:00Z,BTC,sell,1\n2024-08-08T00:00:00Z,ETH,buy,2\n\
             2024-08-08T00:00:00Z,BTC,buy,3\n2024-08-08T00:00:01Z,ETH,sell,4\n";
    let b = "time,symbol,side,price\n\
             2024-08-08T00:00:00Z,ETH,sell,5\n2024-08-08T00:00:00Z,BTC,buy,6\n";
    let tmp = tempfile::tempdir().unwrap();
    let (fa, fb) = (csv(tmp.path(), "a.csv", a), csv(tmp.path(), "b.csv", b));
    let keys = ["--depth", "4", "--series-by", "symbol", "--unique-by", "side"];
    let one = trades_db(&keys);
    one.ok(&["import", &fa, "-q"]);
    one.ok(&["import", &fb, "-q"]);
    let other = trades_db(&keys);
    other.ok(&["import", &fb, "-q"]);
    other.ok(&["import", &fa, "-q"]);
    other.ok(&["import", &fb, "-q"]);
    let want = "time,symbol,side,price\n\
                2024-08-08T00:00:00Z,BTC,buy,6.0\n2024-08-08T00:00:00Z,BTC,sell,1.0\n\
                2024-08-08T00:00:00Z,ETH,buy,2.0\n2024-08-08T00:00:00Z,ETH,sell,5.0\n\
                2024-08-08T00:00:01Z,ETH,sell,4.0\n";
    assert_eq!(range(&one, &[]), want);
    // `other` saw b first: different codes, same rows. (Its ETH,sell at 00:00:00 is b's 5.)
    assert_eq!(range(&other, &[]), want);
    assert!(one.file("series/BTC").is_dir() && one.file("series/ETH").is_dir());
    assert_eq!(
        range(&one, &["--series", "ETH", "--agg", "count,last(side)"]),
        "time,symbol,count,last_side\n2024-08-01T00:00:00Z,ETH,3,sell\n"
    );
    // A series value that was never stored is an empty answer, not an error.
    assert_eq!(range(&one, &["--series", "DOGE"]), "time,symbol,side,price\n");
    one.ok(&["check"]);
}

/// The same imports in the same order give byte-identical dictionaries and partitions, however
/// many threads parse them.
#[test]
fn codes_do_not_depend_on_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = String::from("time,symbol,side,price\n");
    let mut rng = common::Rng(7);
    for i in 0..60_000u64 {
        let sym = format!("S{}", rng.below(3000));
        let side = if rng.below(2) == 0 { "buy" } else { "sell" };
        let (h, m, sec) = (i / 3600, i / 60 % 60, i % 60);
        text.push_str(&format!(
            "{DAY}T{h:02}:{m:02}:{sec:02}Z,{sym},{side},{}\n",
            i % 97
        ));
    }
    let input = csv(tmp.path(), "t.csv", &text);
    let mut dicts = Vec::new();
    for threads in ["1", "2", "4"] {
        let db = trades_db(&[]);
        db.ok(&["import", &input, "-q", "--threads", threads]);
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        for e in fs::read_dir(&db.path).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".xs") || name.ends_with(".data") || name == "sym.dict" {
                files.push((name, fs::read(&p).unwrap()));
            }
        }
        files.sort();
        dicts.push(files);
    }
    assert!(dicts[0].iter().any(|(n, _)| n == "sym.dict"));
    assert!(
        dicts[0] == dicts[1] && dicts[1] == dicts[2],
        "files differ between thread counts"
    );
}

#[test]
fn the_dictionary_survives_reopening_and_ignores_an_uncommitted_tail() {
    let db = trades_db(&[]);
    db.ok(&[
        "put",
        &format!("{DAY}T00:00:00Z"),
        "symbol=BTCUSDT",
        "side=buy",
        "price=1",
    ]);
    let dict = db.file("sym.dict");
    let committed = fs::read(&dict).unwrap();
    // What an append cut by a crash before its commit leaves: entry bytes past the commit.
    let mut torn = committed.clone();
    torn.extend_from_slice(&[9, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, b'D', b'O']);
    fs::write(&dict, &torn).unwrap();
    assert_eq!(
        range(&db, &[]),
        format!("time,symbol,side,price\n{DAY}T00:00:00Z,BTCUSDT,buy,1.0\n")
    );
    // The next writer appends over the tail.
    db.ok(&[
        "put",
        &format!("{DAY}T00:00:01Z"),
        "symbol=DOGEUSDT",
        "side=sell",
        "price=2",
    ]);
    assert_eq!(
        range(&db, &[]),
        format!(
            "time,symbol,side,price\n{DAY}T00:00:00Z,BTCUSDT,buy,1.0\n{DAY}T00:00:01Z,DOGEUSDT,sell,2.0\n"
        )
    );
    let after = fs::read(&dict).unwrap();
    assert_eq!(&after[..committed.len()][32..], &committed[32..]);
    assert_eq!(u32::from_le_bytes(after[12..16].try_into().unwrap()), 4);
    db.ok(&["check"]);
}

#[test]
fn a_damaged_entry_or_a_lost_dictionary_is_a_clear_error() {
    let db = trades_db(&[]);
    db.ok(&[
        "put",
        &format!("{DAY}T00:00:00Z"),
        "symbol=BTCUSDT",
        "side=buy",
        "price=1",
    ]);
    let dict = db.file("sym.dict");
    let good = fs::read(&dict).unwrap();
    let mut bad = good.clone();
    bad[32 + 8 + 2] ^= 0x20; // a byte of BTCUSDT, the first entry
    fs::write(&dict, &bad).unwrap();
    for args in [
        vec!["range", "2024-08-01", "2024-09-01"],
        vec!["put", "2024-08-08T00:00:05Z", "symbol=X"],
        vec!["check"],
    ] {
        let (code, out, err) = run(db.xs(&args));
        assert_eq!(code, 3, "{args:?}: {out}{err}");
        assert!(
            err.contains("sym.dict") && err.contains("entry 0 at byte offset 32") && err.contains("checksum"),
            "{args:?}: {err}"
        );
        assert_no_panic(&err);
    }
    // A read that prints no sym column does not read the dictionary (a series database of
    // 30,000 hosts would read half a megabyte for it): its values are whole, and it succeeds.
    for columns in ["time,price", "price"] {
        let out = db.ok(&["range", "2024-08-01", "2024-09-01", "--columns", columns]);
        assert!(out.ends_with("1.0\n") && !out.contains("BTCUSDT"), "{out}");
    }
    assert!(db
        .ok(&["get", &format!("{DAY}T00:00:00Z"), "--columns", "price"])
        .contains("1.0"));
    // A filter on a sym column needs it, and says so.
    let (code, out, err) = run(db.xs(&[
        "range",
        "2024-08-01",
        "2024-09-01",
        "--columns",
        "price",
        "--where",
        "symbol = BTCUSDT",
    ]));
    assert_eq!(code, 3, "{out}{err}");
    assert!(err.contains("sym.dict") && err.contains("checksum"), "{err}");
    // A dictionary removed: the rows' codes have no text; said, never printed wrong.
    fs::remove_file(&dict).unwrap();
    let (code, out, err) = run(db.xs(&["range", "2024-08-01", "2024-09-01"]));
    assert_eq!(code, 3, "{out}{err}");
    assert!(err.contains("symbol code") && err.contains("sym.dict"), "{err}");
    assert!(!out.contains("BTCUSDT"));
    assert_no_panic(&err);
    // `check` finds the rows whose text is lost.
    let (code, out, err) = run(db.xs(&["check"]));
    assert_eq!(code, 6, "{out}{err}");
    assert!(
        out.contains("refer to symbol codes") && out.contains("sym.dict holds 0 entries"),
        "{out}"
    );
}

/// A read checks the dictionary entries it uses, not all of them (a read of one host of 30,000
/// checks one entry): an entry damaged elsewhere leaves the rows that do not use it readable,
/// and every read that meets it, by printing, filtering or aggregating, stops naming it.
#[test]
fn a_read_checks_the_entries_it_uses() {
    let db = trades_db(&[]);
    put_buys(&db, &[("00:00:00", "BTCUSDT"), ("00:00:01", "DOGEUSDT")]);
    let dict = db.file("sym.dict");
    let mut bad = fs::read(&dict).unwrap();
    // Entries: BTCUSDT (0), buy (1), DOGEUSDT (2) at 32 + 15 + 11 = 58; flip a byte of its text.
    assert_eq!(&bad[58 + 8..58 + 16], b"DOGEUSDT");
    bad[58 + 8 + 1] ^= 0x20;
    fs::write(&dict, &bad).unwrap();
    let first = db.ok(&["range", &format!("{DAY}T00:00:00Z"), &format!("{DAY}T00:00:01Z")]);
    assert_eq!(
        first,
        format!("time,symbol,side,price\n{DAY}T00:00:00Z,BTCUSDT,buy,1.0\n")
    );
    for args in [
        vec!["range", "2024-08-01", "2024-09-01"],
        vec!["range", "2024-08-01", "2024-09-01", "--where", "symbol = BTCUSDT"],
        vec!["range", "2024-08-01", "2024-09-01", "--where", "symbol > A"],
        vec![
            "range",
            "2024-08-01",
            "2024-09-01",
            "--format",
            "parquet",
            "-o",
            "x.parquet",
        ],
        vec!["check"],
    ] {
        let (code, out, err) = run(db.xs(&args));
        assert_eq!(code, 3, "{args:?}: {out}{err}");
        assert!(
            err.contains("sym.dict") && err.contains("entry 2 at byte offset 58") && err.contains("checksum"),
            "{args:?}: {err}"
        );
        assert!(
            !out.contains("DOGEUSDT") && !out.contains("DoGEUSDT"),
            "{args:?}: {out}"
        );
        assert_no_panic(&err);
    }
}

/// A read of one series finds its texts through `sym.idx` (docs/FORMAT.md, "Symbol index"):
/// it reads the entries it prints, not the whole dictionary, so damage to another series'
/// entry, even to its length, does not stop it; a read that needs that entry, `xs check` and
/// writers still stop. Without the index the dictionary is read whole, and the next writer
/// writes the index again.
#[test]
fn a_read_of_one_series_reads_its_entries_through_the_index() {
    let db = trades_db(&["--series-by", "symbol"]);
    put_buys(
        &db,
        &[
            ("00:00:00", "BTCUSDT"),
            ("00:00:01", "DOGEUSDT"),
            ("00:00:02", "ETHUSDT"),
        ],
    );
    // A long text too: a reader reads a small dictionary whole, index or not.
    for (t, pad) in [("00:00:03", "L"), ("00:00:04", "M")] {
        let long = pad.repeat(40_000);
        db.ok(&[
            "put",
            &format!("{DAY}T{t}Z"),
            "symbol=PAD",
            &format!("side={long}"),
            "price=0",
        ]);
    }
    let (dict, index) = (db.file("sym.dict"), db.file("sym.idx"));
    let good = fs::read(&dict).unwrap();
    // Entries: BTCUSDT (0) at 32, buy (1) at 47, DOGEUSDT (2) at 58, ETHUSDT (3) at 74, PAD, L…, M….
    assert_eq!(&good[58 + 8..58 + 16], b"DOGEUSDT");
    assert_eq!(fs::read(&index).unwrap().len(), 16 + 7 * 16);
    let mut bad = good.clone();
    bad[58] = 200; // DOGEUSDT's length: the entries after it cannot be found by walking
    fs::write(&dict, &bad).unwrap();
    let btc = format!("time,symbol,side,price\n{DAY}T00:00:00Z,BTCUSDT,buy,1.0\n");
    assert_eq!(range(&db, &["--series", "BTCUSDT"]), btc);
    assert_eq!(
        range(&db, &["--series", "ETHUSDT"]),
        format!("time,symbol,side,price\n{DAY}T00:00:02Z,ETHUSDT,buy,1.0\n")
    );
    for args in [
        vec!["range", "2024-08-01", "2024-09-01", "--series", "DOGEUSDT"],
        vec!["check"],
        vec!["put", "2024-08-08T00:00:05Z", "symbol=XRPUSDT"],
    ] {
        let (code, out, err) = run(db.xs(&args));
        assert_eq!(code, 3, "{args:?}: {out}{err}");
        // The walk over the lengths goes astray at entry 2 and stops where it lands.
        assert!(
            err.contains("sym.dict") && err.contains("has a bad length"),
            "{args:?}: {err}"
        );
        assert!(!out.contains("DOGEUSDT"), "{args:?}: {out}");
        assert_no_panic(&err);
    }
    // Without the index, the dictionary is read whole: its damage stops the read.
    fs::remove_file(&index).unwrap();
    let (code, _, err) = run(db.xs(&["range", "2024-08-01", "2024-09-01", "--series", "BTCUSDT"]));
    assert_eq!(code, 3, "{err}");
    // Repaired, the next writer writes the index again, and check finds nothing amiss.
    fs::write(&dict, &good).unwrap();
    db.ok(&[
        "put",
        "2024-08-08T00:00:05Z",
        "symbol=BTCUSDT",
        "side=sell",
        "price=2",
    ]);
    assert_eq!(fs::read(&index).unwrap().len(), 16 + 8 * 16);
    let (code, _, err) = run(db.xs(&["check"]));
    assert_eq!((code, err.contains("warning")), (0, false), "{err}");
    // A record that disagrees is never believed, and check says so.
    let mut records = fs::read(&index).unwrap();
    records[16 + 16 * 3 + 12] ^= 1; // ETHUSDT's CRC in its record
    fs::write(&index, &records).unwrap();
    assert!(range(&db, &["--series", "ETHUSDT"]).contains("ETHUSDT"));
    let (code, _, err) = run(db.xs(&["check"]));
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("sym.idx") && err.contains("symbol code 3"), "{err}");
}

/// An aggregate of one series prints its name from the code its rows store, checked through
/// `sym.idx`: finding the code of the name instead read the whole dictionary (half a
/// megabyte at 30,000 hosts), so damage to another series' entry stopped it.
#[test]
fn an_aggregate_of_one_series_takes_its_code_from_its_rows() {
    let db = trades_db(&["--series-by", "symbol"]);
    put_buys(
        &db,
        &[
            ("00:00:00", "BTCUSDT"),
            ("00:00:01", "DOGEUSDT"),
            ("00:00:02", "ETHUSDT"),
        ],
    );
    db.ok(&[
        "put",
        &format!("{DAY}T00:00:05Z"),
        "symbol=BTCUSDT",
        "side=sell",
        "price=3",
    ]);
    // Long texts, so the dictionary is too large to be read whole by a reader.
    for (t, pad) in [("00:00:06", "L"), ("00:00:07", "M")] {
        db.ok(&[
            "put",
            &format!("{DAY}T{t}Z"),
            "symbol=PAD",
            &format!("side={}", pad.repeat(40_000)),
        ]);
    }
    let dict = db.file("sym.dict");
    let good = fs::read(&dict).unwrap();
    assert_eq!(&good[58 + 8..58 + 16], b"DOGEUSDT");
    let mut bad = good.clone();
    bad[58] = 200; // DOGEUSDT's length: the entries after it cannot be found by walking
    fs::write(&dict, &bad).unwrap();
    let agg = |series: &str| {
        range(
            &db,
            &["--series", series, "--every", "1d", "--agg", "count,max(price)"],
        )
    };
    assert_eq!(
        agg("BTCUSDT"),
        format!("time,symbol,count,max_price\n{DAY}T00:00:00Z,BTCUSDT,2,3.0\n")
    );
    assert_eq!(
        agg("ETHUSDT"),
        format!("time,symbol,count,max_price\n{DAY}T00:00:00Z,ETHUSDT,1,1.0\n")
    );
    // Series with no rows in the window print nothing, and need no code.
    let (code, out, err) = run(db.xs(&[
        "range",
        "2024-08-09",
        "2024-08-10",
        "--series",
        "BTCUSDT,ETHUSDT",
        "--every",
        "1h",
        "--agg",
        "count",
    ]));
    assert_eq!((code, out.as_str()), (0, "time,symbol,count\n"), "{err}");
    // The damaged entry's own series still stops with the damage (exit 3), never a wrong name.
    let (code, out, err) = run(db.xs(&[
        "range",
        "2024-08-01",
        "2024-09-01",
        "--series",
        "DOGEUSDT",
        "--every",
        "1d",
        "--agg",
        "count",
    ]));
    assert_eq!(code, 3, "{out}{err}");
    assert!(!out.contains("DOGEUSDT"), "{out}");
    assert!(err.contains("sym.dict"), "{err}");
    assert_no_panic(&err);
    // Undamaged, every series at once (the dictionary read once) says the same; an empty
    // series directory (left by hand) is a series without rows, not an unknown value.
    fs::write(&dict, &good).unwrap();
    fs::create_dir(db.file("series/ZZZ")).unwrap();
    let all = range(&db, &["--every", "1d", "--agg", "count"]);
    assert_eq!(
        all,
        format!(
            "time,symbol,count\n{DAY}T00:00:00Z,BTCUSDT,2\n{DAY}T00:00:00Z,DOGEUSDT,1\n\
             {DAY}T00:00:00Z,ETHUSDT,1\n{DAY}T00:00:00Z,PAD,2\n"
        )
    );
}

/// A dictionary put back from an older copy lacks the codes of later rows: every read path
/// (text, Parquet, Arrow, `get`, `--where` by code and by text order, aggregates) stops with the
/// damage (exit 3), naming sym.dict, the code, the column and the row's time; it never panics,
/// never prints a wrong or empty value for them, and never reads a lost code as "no match".
#[test]
fn a_code_the_dictionary_lost_is_exit_3_on_every_read_path() {
    let db = trades_db(&[]);
    db.ok(&[
        "put",
        &format!("{DAY}T00:00:00Z"),
        "symbol=BTCUSDT",
        "side=buy",
        "price=1",
    ]);
    let dict = db.file("sym.dict");
    let older = fs::read(&dict).unwrap();
    // Codes 2 (ETHUSDT) and 3 (sell): past the older copy's 2 entries.
    db.ok(&[
        "put",
        &format!("{DAY}T00:00:01Z"),
        "symbol=ETHUSDT",
        "side=sell",
        "price=2",
    ]);
    fs::write(&dict, &older).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let pq = tmp.path().join("out.parquet");
    let all = ["2024-08-01", "2024-09-01"];
    let cases: Vec<Vec<&str>> = vec![
        vec!["range", all[0], all[1]],
        vec!["range", all[0], all[1], "--format", "ndjson"],
        vec!["range", all[0], all[1], "--format", "parquet"],
        vec!["range", all[0], all[1], "--format", "arrow"],
        vec![
            "range",
            all[0],
            all[1],
            "--format",
            "arrow",
            "--columns",
            "time,symbol",
        ],
        vec!["get", "2024-08-08T00:00:01Z"],
        vec!["get", "2024-08-08T00:00:01Z", "--format", "arrow"],
        vec!["export", "-o", pq.to_str().unwrap()],
        vec!["range", all[0], all[1], "--where", "side=sell"],
        vec!["range", all[0], all[1], "--where", "side=buy"],
        vec!["range", all[0], all[1], "--where", "side in (sell, buy)"],
        vec!["range", all[0], all[1], "--where", "side>a"],
        vec!["range", all[0], all[1], "--where", "side=sell", "--agg", "count"],
    ];
    for args in &cases {
        let (code, out, err) = run(db.xs(args));
        assert_no_panic(&err);
        assert_eq!(code, 3, "{args:?}: exit {code}\n{out}{err}");
        // A filter meets `side` (code 3) first, the output `symbol` (code 2).
        let (column, lost) = if args.contains(&"--where") {
            ("column `side`", "symbol code 3")
        } else {
            ("column `symbol`", "symbol code 2")
        };
        assert!(
            err.contains("sym.dict")
                && err.contains(lost)
                && err.contains(column)
                && err.contains("2024-08-08T00:00:01Z")
                && err.contains("backup"),
            "{args:?}: {err}"
        );
        assert!(
            !out.contains("00:00:01"),
            "{args:?}: printed the damaged row: {out}"
        );
    }
    assert!(!pq.exists(), "export left a file behind");
    // What the older dictionary holds still reads, and a filter that rules the damaged row
    // out by another column does not need its text.
    let out = range(&db, &["--where", "price<2"]);
    assert!(out.contains("BTCUSDT,buy"), "{out}");
}

#[test]
fn bad_sym_values_are_rejected_with_reasons() {
    let db = trades_db(&[]);
    let tmp = tempfile::tempdir().unwrap();
    let huge = "x".repeat(70_000);
    let f = csv(
        tmp.path(),
        "bad.csv",
        &format!("time,symbol,side,price\n{DAY}T00:00:00Z,{huge},buy,1\n{DAY}T00:00:01Z,ok,buy,2\n"),
    );
    let (code, out, err) = run(db.xs(&["import", &f]));
    assert_eq!(code, 4, "{out}{err}");
    assert!(format!("{out}{err}").contains("1 rejected"), "{out}{err}");
    assert_no_panic(&err);
    assert_eq!(
        range(&db, &[]),
        format!("time,symbol,side,price\n{DAY}T00:00:01Z,ok,buy,2.0\n")
    );
}

/// The dictionary is searched by a value's bytes before any UTF-8 check: a value that is not
/// UTF-8 is still rejected with its reason when the dictionary holds texts, and the rows around
/// it keep their codes.
#[test]
fn a_sym_value_not_in_utf8_is_rejected_beside_texts_the_dictionary_holds() {
    let db = trades_db(&[]);
    let tmp = tempfile::tempdir().unwrap();
    let first = csv(
        tmp.path(),
        "a.csv",
        &format!("time,symbol,side,price\n{DAY}T00:00:00Z,BTC,buy,1\n"),
    );
    db.ok(&["import", &first, "-q"]);
    let second = tmp.path().join("b.csv");
    let mut bytes =
        format!("time,symbol,side,price\n{DAY}T00:00:01Z,BTC,sell,2\n{DAY}T00:00:02Z,B").into_bytes();
    bytes.extend_from_slice(b"\xffC,buy,3\n");
    bytes.extend_from_slice(format!("{DAY}T00:00:03Z,ETH,buy,4\n").as_bytes());
    fs::write(&second, bytes).unwrap();
    let (code, out, err) = run(db.xs(&["import", second.to_str().unwrap()]));
    assert_eq!(code, 4, "{out}{err}");
    assert!(format!("{out}{err}").contains("1 rejected"), "{out}{err}");
    assert_no_panic(&err);
    let rejects = fs::read_dir(db.file(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("rejects-"))
        .expect("a rejects file");
    // The record is listed as it was read, its byte included.
    let listed = String::from_utf8_lossy(&fs::read(rejects).unwrap()).into_owned();
    assert!(listed.contains("the text is not UTF-8"), "{listed}");
    assert_eq!(
        range(&db, &[]),
        format!(
            "time,symbol,side,price\n{DAY}T00:00:00Z,BTC,buy,1.0\n{DAY}T00:00:01Z,BTC,sell,2.0\n\
             {DAY}T00:00:03Z,ETH,buy,4.0\n"
        )
    );
}

#[test]
fn parquet_and_arrow_carry_sym_as_dictionary_strings_and_duckdb_reads_varchar() {
    let db = trades_db(&[]);
    db.ok(&[
        "put",
        &format!("{DAY}T00:00:00Z"),
        "symbol=BTCUSDT",
        "side=buy",
        "price=1",
    ]);
    db.ok(&["put", &format!("{DAY}T00:00:01Z"), "side=sell", "price=2"]);
    let tmp = tempfile::tempdir().unwrap();
    let pq = tmp.path().join("o.parquet");
    let csvf = tmp.path().join("o.csv");
    fs::write(
        &pq,
        db.xs(&["range", "2024-08-01", "2024-09-01", "--format", "parquet"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    fs::write(&csvf, range(&db, &[])).unwrap();
    let script = format!(
        "import duckdb\n\
         for src in ['{pq}', '{csv}']:\n\
         \x20   r = duckdb.sql(f\"select * from '{{src}}'\")\n\
         \x20   row = duckdb.sql(f\"select symbol, side from '{{src}}'\").fetchall()[0]\n\
         \x20   print(dict(zip(r.columns, [str(t) for t in r.types])), row)\n",
        pq = pq.display(),
        csv = csvf.display()
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text.lines() {
        assert!(
            line.contains("'symbol': 'VARCHAR'") && line.contains("'side': 'VARCHAR'"),
            "{text}"
        );
        assert!(line.contains("('BTCUSDT', 'buy')"), "{text}");
    }
    // The Parquet column is dictionary-encoded text in Arrow terms.
    let script = format!(
        "import pyarrow.parquet as pq\nprint(pq.read_schema('{}').field('symbol').type)",
        pq.display()
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "dictionary<values=string, indices=int32, ordered=0>"
    );
}

#[test]
fn sym_is_named_in_create_and_schema() {
    let db = trades_db(&[]);
    let out = db.ok(&["schema", "--json"]);
    assert!(out.contains("\"sym\""), "{out}");
    let mut cmd = xs();
    cmd.args([
        "create",
        "/nonexistent/x",
        "--granularity",
        "1s",
        "--columns",
        "a:sym(4)",
    ]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 2);
    assert!(err.contains("sym"), "{err}");
}

/// The same damage in a columnar bucket record, which Arrow output reads as columns: a code
/// first met in the middle of a batch, past the dictionary put back, stops the read with the
/// row's time; never a panic, a null or a wrong text.
#[test]
fn a_code_the_dictionary_lost_in_a_columnar_record_stops_arrow_output() {
    if common::layout() != "bucket" {
        return;
    }
    let db = TestDb::create(
        "1s",
        "symbol:sym,price:f64",
        &["--bucket", "1h", "--codec", "columnar"],
    );
    let tmp = tempfile::tempdir().unwrap();
    let rows = |from: u32, symbol: &dyn Fn(u32) -> &'static str| {
        let mut text = String::from("time,symbol,price\n");
        for s in from..from + 40 {
            text.push_str(&format!(
                "{DAY}T00:{:02}:{:02}Z,{},{s}\n",
                s / 60,
                s % 60,
                symbol(s)
            ));
        }
        text
    };
    let first = csv(
        tmp.path(),
        "a.csv",
        &rows(0, &|s| if s % 2 == 0 { "AAA" } else { "BBB" }),
    );
    db.ok(&["import", &first]);
    let dict = db.file("sym.dict");
    let older = fs::read(&dict).unwrap();
    // Rows 40.. of the same hour: the bucket is written again, with CCC's code past `older`.
    let second = csv(
        tmp.path(),
        "b.csv",
        &rows(40, &|s| if s % 3 == 0 { "CCC" } else { "AAA" }),
    );
    db.ok(&["import", &second]);
    let whole = range(&db, &[]);
    assert!(whole.contains("2024-08-08T00:00:42Z,CCC,42"), "{whole}");
    fs::write(&dict, &older).unwrap();
    for columns in [None, Some("time,symbol"), Some("symbol,price")] {
        let mut args = vec!["range", "2024-08-01", "2024-09-01", "--format", "arrow"];
        args.extend(columns.iter().flat_map(|c| ["--columns", c]));
        let (code, _, err) = run(db.xs(&args));
        assert_no_panic(&err);
        assert_eq!(code, 3, "{args:?}: {err}");
        // Row 42 is the first CCC.
        assert!(
            err.contains("column `symbol`")
                && err.contains("2024-08-08T00:00:42Z")
                && err.contains("sym.dict"),
            "{args:?}: {err}"
        );
    }
}
