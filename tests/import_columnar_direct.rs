//! The direct Arrow → row encoder of `xs import FILE.parquet` (issue 17): a Parquet file and
//! a CSV file of the same rows, imported into databases created alike, leave the same files
//! byte for byte (rows, `sym` codes and dictionary), the same summary and the same rejects
//! (line, reason, record): for every pairing of Arrow and column types the encoder stores
//! directly, those it sends through the text path (a float or a rescaled decimal into
//! `dec(S)`, an f32 into an f64 column…), and every reason a row is rejected for.

mod common;

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Decimal128Array, DictionaryArray, Float32Array, Float64Array, Int32Array,
    Int64Array, RecordBatch, StringArray, TimestampMillisecondArray, UInt64Array,
};
use arrow_schema::{Field, Schema};
use common::{assert_no_panic, ok_in, run, s, sparse_data, xs};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

/// Writes `columns` as one Parquet file with row groups of `group_rows` rows.
fn write_parquet(path: &Path, columns: Vec<(&str, ArrayRef)>, group_rows: usize) {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(name, a)| Field::new(*name, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_new(schema.clone(), columns.into_iter().map(|(_, a)| a).collect()).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group_rows))
        .build();
    let mut writer = ArrowWriter::try_new(File::create(path).unwrap(), schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// Writes `columns` as an Arrow IPC file of one record batch.
fn write_arrow(path: &Path, columns: Vec<(&str, ArrayRef)>) {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(name, a)| Field::new(*name, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_new(schema.clone(), columns.into_iter().map(|(_, a)| a).collect()).unwrap();
    let mut writer = arrow_ipc::writer::FileWriter::try_new(File::create(path).unwrap(), &schema).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
}

fn create(db: &Path, columns: &str, extra: &[&str]) {
    let mut cmd = xs();
    cmd.arg("create").arg(db).args([
        "--granularity",
        "1s",
        "--columns",
        columns,
        "--time-column",
        "time",
        "--layout",
        "grid",
        "--depth",
        "2",
    ]);
    cmd.args(extra);
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{out}{err}");
}

/// Imports `input` into `db`; returns the summary line and the rejects as (line, reason,
/// record), the input's name made `INPUT`.
fn import(db: &Path, input: &Path, extra: &[&str]) -> (String, Vec<String>) {
    let rejects = db.with_extension("rejects.csv");
    let mut cmd = xs();
    cmd.arg("-d").arg(db).arg("import").arg(input).args([
        "--max-rejects",
        "100000",
        "--rejects",
        s(&rejects),
        "--no-sync",
    ]);
    cmd.args(extra);
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{out}\n{err}");
    assert_no_panic(&err);
    let summary = err
        .lines()
        .find(|l| l.starts_with("imported"))
        .map(|l| {
            l.split(';')
                .next()
                .unwrap()
                .replace(s(input), "INPUT")
                .replace(s(db), "DB")
        })
        .unwrap_or_default();
    let text = std::fs::read_to_string(&rejects).unwrap_or_default();
    let mut reader = csv_records(&text);
    if !reader.is_empty() {
        assert_eq!(
            reader.remove(0),
            ["file", "line", "byte_offset", "reason", "record"]
        );
    }
    let rows = reader
        .into_iter()
        .map(|r| {
            assert_eq!(r[0], s(input), "the rejects name the input");
            format!("{} | {} | {}", r[1], r[3], r[4])
        })
        .collect();
    (summary, rows)
}

/// The records of a CSV text (RFC 4180 quotes).
fn csv_records(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                out.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    out
}

/// Every file of a database (but the rejects), by path, with its bytes.
fn files(db: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_dir() {
                walk(root, &path, out);
            } else if !name.starts_with("rejects") && name != ".lock" {
                out.insert(name, sparse_data(&path));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(db, db, &mut out);
    out
}

/// A CSV field as xs quotes one.
fn quote(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// `v / 10^scale` with `scale` decimals.
fn scaled(v: i128, scale: u32) -> String {
    let p = 10i128.pow(scale);
    let sign = if v < 0 { "-" } else { "" };
    let m = v.abs();
    if scale == 0 {
        format!("{sign}{m}")
    } else {
        format!("{sign}{}.{:0w$}", m / p, m % p, w = scale as usize)
    }
}

/// Rows that meet every path of the encoder, as Arrow columns and as the CSV text the same
/// values are written as (integers as they are, floats in their shortest form, decimals at
/// their scale, text quoted where needed, the time as epoch milliseconds).
fn rows(n: usize) -> (Vec<(&'static str, ArrayRef)>, String) {
    let t0 = 1_723_075_200_000i64; // 2024-08-08T00:00:00Z
    let sides = ["buy", "sell", "", "x,y", "new side", "short"];
    // More than a chunk keeps at hand, some sharing their first bytes.
    let venues = [
        "XNAS", "ARCX", "BATS", "IEX", "XNYS", "ARCA", "BATY", "EDGX", "EDGA", "MEMX", "XNAS2",
    ];
    let notes = ["ok", "", "a\"b", "tab\there", "long text", " pad "];
    let time: Vec<Option<i64>> = (0..n)
        .map(|i| match i % 97 {
            13 => None,                                 // the time is missing
            29 => Some(t0 + i as i64 * 1000 + 500),     // not on the granularity
            31 => Some(10_000_000_000_000_000),         // beyond 2261
            41 => Some(t0 + (i as i64 / 2 - 1) * 1000), // a third row at a second (depth 2)
            _ => Some(t0 + (i as i64 / 2) * 1000),      // two rows a second (depth 2)
        })
        .collect();
    let int64: Vec<Option<i64>> = (0..n)
        .map(|i| match i % 89 {
            0 => None,
            5 => Some(200),  // past i8
            6 => Some(-129), // past i8
            _ => Some((i as i64 % 255) - 127),
        })
        .collect();
    let uint64: Vec<Option<u64>> = (0..n)
        .map(|i| match i % 83 {
            0 => None,
            7 => Some(u64::MAX), // past u32
            _ => Some(u64::from(u32::MAX) - i as u64),
        })
        .collect();
    let int32: Vec<Option<i32>> = (0..n)
        .map(|i| match i % 79 {
            3 => Some(-1), // below u16
            _ => Some(i as i32 * 7 % 65_536),
        })
        .collect();
    let f64s: Vec<Option<f64>> = (0..n)
        .map(|i| match i % 71 {
            0 => None,
            1 => Some(f64::NAN),
            2 => Some(f64::INFINITY),
            3 => Some(-0.0),
            4 => Some(5e-324),
            5 => Some(1e300),
            _ => Some((i as f64).sqrt() * 1e-3 - 7.0),
        })
        .collect();
    let f32s: Vec<Option<f32>> = (0..n)
        .map(|i| (i % 67 != 0).then_some(i as f32 / 3.0 + 0.1))
        .collect();
    // Decimal(18, 2): into dec(2) as it is, into dec(4) rescaled (the text path).
    let dec2: Vec<Option<i128>> = (0..n)
        .map(|i| match i % 61 {
            0 => None,
            1 => Some(i128::from(i64::MAX) + 1), // past i64 once stored
            _ => Some(i as i128 * 101 - 99_999),
        })
        .collect();
    // Decimal(18, 4) into dec(2): exact with trailing zeros, else too many decimals.
    let dec4: Vec<Option<i128>> = (0..n)
        .map(|i| {
            (i % 59 != 0).then_some(if i % 11 != 4 {
                i as i128 * 100
            } else {
                i as i128 * 7 + 1
            })
        })
        .collect();
    // Floats into dec(3): 0.125 fits, 0.1 + 0.2 does not (too many decimals).
    let fdec: Vec<Option<f64>> = (0..n)
        .map(|i| match i % 37 {
            0 => None,
            1 => Some(0.1 + 0.2),
            2 => Some(-1.5),
            3 => Some(f64::NAN),
            _ => Some(i as f64 / 8.0),
        })
        .collect();
    let bools: Vec<Option<bool>> = (0..n).map(|i| (i % 5 != 0).then_some(i % 2 == 0)).collect();
    let side: Vec<Option<&str>> = (0..n)
        .map(|i| (i % 43 != 0).then_some(sides[(i / 3) % sides.len()]))
        .collect();
    let venue: Vec<Option<&str>> = (0..n).map(|i| Some(venues[(i * 7 / 5) % venues.len()])).collect();
    let note: Vec<Option<String>> = (0..n)
        .map(|i| match i % 41 {
            0 => None,
            1 => Some("toolong".to_string()), // past str(6)
            2 => Some("nul\0".to_string()),
            _ => Some(notes[i % notes.len()].to_string()),
        })
        .collect();
    let fmt_f64 = |v: f64| format!("{v}");
    let fmt_f32 = |v: f32| format!("{v}");
    let mut csv = String::from("time,a,b,c,p,q,pq,d2,d4,d24,fd,ok,side,venue,note\n");
    for i in 0..n {
        let cell = |v: Option<String>| v.unwrap_or_default();
        let fields = [
            cell(time[i].map(|t| t.to_string())),
            cell(int64[i].map(|v| v.to_string())),
            cell(uint64[i].map(|v| v.to_string())),
            cell(int32[i].map(|v| v.to_string())),
            cell(f64s[i].map(fmt_f64)),
            cell(f32s[i].map(fmt_f32)),
            cell(f32s[i].map(fmt_f32)),
            cell(dec2[i].map(|v| scaled(v, 2))),
            cell(dec2[i].map(|v| scaled(v, 2))),
            cell(dec4[i].map(|v| scaled(v, 4))),
            cell(fdec[i].map(fmt_f64)),
            cell(bools[i].map(|v| v.to_string())),
            cell(side[i].map(quote)),
            cell(venue[i].map(quote)),
            cell(note[i].as_deref().map(quote)),
        ];
        csv.push_str(&fields.join(","));
        csv.push('\n');
    }
    let decimal = |v: &[Option<i128>], scale: i8| -> ArrayRef {
        Arc::new(
            Decimal128Array::from(v.to_vec())
                .with_precision_and_scale(38, scale)
                .unwrap(),
        )
    };
    let venue_dict: DictionaryArray<arrow_array::types::Int32Type> = venue.iter().copied().collect();
    let columns: Vec<(&'static str, ArrayRef)> = vec![
        ("time", Arc::new(TimestampMillisecondArray::from(time))),
        ("a", Arc::new(Int64Array::from(int64))),
        ("b", Arc::new(UInt64Array::from(uint64))),
        ("c", Arc::new(Int32Array::from(int32))),
        ("p", Arc::new(Float64Array::from(f64s))),
        ("q", Arc::new(Float32Array::from(f32s.clone()))),
        ("pq", Arc::new(Float32Array::from(f32s))),
        ("d2", decimal(&dec2, 2)),
        ("d4", decimal(&dec2, 2)),
        ("d24", decimal(&dec4, 4)),
        ("fd", Arc::new(Float64Array::from(fdec))),
        ("ok", Arc::new(BooleanArray::from(bools))),
        ("side", Arc::new(StringArray::from(side))),
        ("venue", Arc::new(venue_dict)),
        ("note", Arc::new(StringArray::from(note))),
    ];
    (columns, csv)
}

/// Into existing databases of every column type (grid layout, so the files of equal imports
/// are equal byte for byte): the Parquet import stores what the CSV import of the same rows
/// stores, `sym` codes included, and rejects the same rows for the same reasons.
#[test]
fn parquet_rows_store_and_reject_as_the_same_rows_through_csv() {
    let n = 40_000; // more than one record batch
    let (columns, csv) = rows(n);
    let tmp = tempfile::tempdir().unwrap();
    let parquet = tmp.path().join("in.parquet");
    write_parquet(&parquet, columns.clone(), 7_000);
    // One Arrow batch of all the rows, imported in pieces.
    let arrow = tmp.path().join("in.arrow");
    write_arrow(&arrow, columns);
    let csv_file = tmp.path().join("in.csv");
    std::fs::write(&csv_file, &csv).unwrap();
    let spec = "a:i8,b:u32,c:u16,p:f64,q:f32,pq:f64,d2:dec(2),d4:dec(4),d24:dec(2),fd:dec(3),ok:bool,\
                side:sym,venue:sym,note:str(6)";
    let (from_pq, from_csv) = (tmp.path().join("pq"), tmp.path().join("csv"));
    create(&from_pq, spec, &[]);
    create(&from_csv, spec, &[]);
    let (pq_summary, pq_rejects) = import(&from_pq, &parquet, &[]);
    let (csv_summary, csv_rejects) = import(&from_csv, &csv_file, &["--time-unit", "ms"]);
    assert!(pq_summary.contains("rows read"), "{pq_summary}");
    assert_eq!(pq_summary, csv_summary, "the summaries differ");
    assert!(
        pq_rejects.len() > 1000,
        "the rows meet every reject: {}",
        pq_rejects.len()
    );
    for (k, (a, b)) in pq_rejects.iter().zip(&csv_rejects).enumerate() {
        assert_eq!(a, b, "reject {k} differs");
    }
    assert_eq!(pq_rejects.len(), csv_rejects.len());
    // Every reason the rows were built to meet.
    for reason in [
        "the time is missing",
        "is not a multiple of the granularity",
        "outside the storable range",
        "column `a`:",
        "column `b`:",
        "column `c`:",
        "column `d2`:",
        "column `d24`:",
        "column `fd`:",
        "column `note`:",
        "more rows at",
    ] {
        assert!(
            pq_rejects.iter().any(|r| r.contains(reason)),
            "no reject says {reason}: {:?}",
            &pq_rejects[..5]
        );
    }
    let range = |db: &Path| ok_in(db, &["range", "1970-01-01", "2100-01-01"]);
    let want = range(&from_csv);
    assert!(want.lines().count() > n / 2, "most rows are stored");
    assert_eq!(range(&from_pq), want, "range output differs");
    let (a, b) = (files(&from_pq), files(&from_csv));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(
            bytes == &b[name],
            "{name} differs between the Parquet and the CSV import"
        );
    }
    // The same rows as one Arrow batch: the same rejects, the same files.
    let from_arrow = tmp.path().join("arrow");
    create(&from_arrow, spec, &[]);
    let (arrow_summary, arrow_rejects) = import(&from_arrow, &arrow, &[]);
    assert_eq!(arrow_summary, csv_summary);
    assert!(arrow_rejects == csv_rejects, "the Arrow file's rejects differ");
    assert!(files(&from_arrow) == b, "the Arrow import's files differ");
}

/// `--null` tokens and `--decimal-comma` are matters of text: with them, every column takes
/// the text path, and the result is still the CSV import's.
#[test]
fn null_tokens_apply_to_parquet_values_as_to_csv_fields() {
    let n = 3_000;
    let (columns, csv) = rows(n);
    let tmp = tempfile::tempdir().unwrap();
    let parquet = tmp.path().join("in.parquet");
    write_parquet(&parquet, columns, 1_000);
    let csv_file = tmp.path().join("in.csv");
    std::fs::write(&csv_file, &csv).unwrap();
    let spec = "a:i8,b:u32,c:u16,p:f64,q:f32,pq:f64,d2:dec(2),d4:dec(4),d24:dec(2),fd:dec(3),ok:bool,\
                side:sym,venue:sym,note:str(6)";
    let (from_pq, from_csv) = (tmp.path().join("pq"), tmp.path().join("csv"));
    create(&from_pq, spec, &[]);
    create(&from_csv, spec, &[]);
    let nulls = ["--null", "buy,-127,ok"];
    let (pq_summary, pq_rejects) = import(&from_pq, &parquet, &nulls);
    let (csv_summary, csv_rejects) = import(
        &from_csv,
        &csv_file,
        &[&nulls[..], &["--time-unit", "ms"]].concat(),
    );
    assert_eq!(pq_summary, csv_summary);
    assert_eq!(pq_rejects, csv_rejects);
    let range = |db: &Path| ok_in(db, &["range", "1970-01-01", "2100-01-01"]);
    let want = range(&from_csv);
    assert!(!want.contains(",buy,"), "the token is null");
    assert_eq!(range(&from_pq), want);
    assert_eq!(files(&from_pq), files(&from_csv));
}

/// Into a new database, a repeated text column (here dictionary-encoded) becomes `sym` and
/// one that does not repeat `str(N)`; the values read back as written.
#[test]
fn new_database_types_text_from_the_values() {
    let n = 5_000;
    let (columns, _) = rows(n);
    let tmp = tempfile::tempdir().unwrap();
    let parquet = tmp.path().join("in.parquet");
    write_parquet(&parquet, columns, 1_000);
    let db = tmp.path().join("new");
    let mut cmd = xs();
    cmd.arg("import").arg(&parquet).arg("-d").arg(&db).args([
        "--max-rejects",
        "100000",
        "--granularity",
        "1s",
        "-q",
    ]);
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{out}{err}");
    let schema = ok_in(&db, &["schema"]);
    for (name, ty) in [("venue", "sym"), ("side", "sym"), ("d2", "dec(2)"), ("b", "u64")] {
        assert!(
            schema
                .lines()
                .any(|l| l.split_whitespace().take(2).eq([name, ty])),
            "{name} is {ty}:\n{schema}"
        );
    }
    let out = ok_in(
        &db,
        &[
            "range",
            "2024-08-08T00:00:02",
            "2024-08-08T00:00:03",
            "--columns",
            "venue,side,d2",
        ],
    );
    // Rows 4 and 5 (two a second): venues[(i*7/5)%11], sides[(i/3)%6], i*101-99999 at scale 2;
    // in the series (`note`, inferred) order.
    let mut lines: Vec<&str> = out.lines().collect();
    lines[1..].sort();
    assert_eq!(
        lines,
        ["venue,side,d2", "ARCA,sell,-995.95", "EDGX,sell,-994.94"],
        "{schema}"
    );
}
