//! `xs import` of Parquet files and Arrow IPC streams and files (issue 17): xs → Parquet → xs
//! and xs → Arrow → xs leave identical `range` output on both layouts; a Parquet file written
//! the way DuckDB writes one (Snappy pages, a microsecond UTC timestamp, DECIMAL(18,2), text,
//! nulls) imports with its types and values; re-imports upsert; what xs cannot store, and a
//! damaged file, are refused with a message.

mod common;

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Decimal128Array, Float64Array, Int32Array, ListArray, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use common::{assert_no_panic, ok_in, run, s, xs, xs_in};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

fn fixture(name: &str) -> String {
    format!("{}/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn all_rows(db: &Path) -> String {
    ok_in(db, &["range", "1970-01-01", "2100-01-01"])
}

/// Imports `input` into a new database `db` with `extra` flags; returns stderr.
fn import_new(input: &str, db: &Path, extra: &[&str]) -> String {
    let mut cmd = xs();
    cmd.arg("import").arg(input).arg("-d").arg(db).args(extra);
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "import {input}: {out}\n{err}");
    assert_no_panic(&err);
    err
}

/// A database from a CSV fixture, then the same rows through `format` and back.
fn round_trip(csv: &str, flags: &[&str], format: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    import_new(&fixture(csv), &a, flags);
    let want = all_rows(&a);
    assert!(want.lines().count() > 1000, "the fixture has rows");
    let b = tmp.path().join("b");
    match format {
        "parquet" => {
            let file = tmp.path().join("a.parquet");
            ok_in(&a, &["export", "-o", s(&file)]);
            import_new(s(&file), &b, &["-q"]);
        }
        "arrow" => {
            // An Arrow IPC stream on stdin.
            let stream = {
                let mut cmd = xs();
                cmd.arg("-d")
                    .arg(&a)
                    .args(["range", "1970-01-01", "2100-01-01", "--format", "arrow"]);
                cmd.output().unwrap().stdout
            };
            let mut cmd = xs();
            cmd.arg("-d")
                .arg(&b)
                .args(["import", "-", "-q"])
                .write_stdin(stream);
            let (code, out, err) = run(cmd);
            assert_eq!(code, 0, "{out}\n{err}");
        }
        _ => unreachable!(),
    }
    assert_eq!(all_rows(&b), want, "{csv} through {format}: range output differs");
    assert_eq!(
        ok_in(&a, &["schema"]).replace("/a", ""),
        ok_in(&b, &["schema"]).replace("/b", ""),
        "the schema survives"
    );
}

#[test]
fn parquet_round_trip_keeps_range_output_bucket() {
    round_trip(
        "btcusdt-trades-20240808.csv",
        &["--time-column", "trade_time_ms", "-q"],
        "parquet",
    );
}

#[test]
fn parquet_round_trip_keeps_range_output_grid() {
    round_trip("sensor.csv", &["-q"], "parquet");
}

#[test]
fn arrow_stream_round_trip_keeps_range_output_bucket() {
    round_trip(
        "btcusdt-trades-20240808.csv",
        &["--time-column", "trade_time_ms", "-q"],
        "arrow",
    );
}

#[test]
fn arrow_stream_round_trip_keeps_range_output_grid() {
    round_trip("sensor.csv", &["-q"], "arrow");
}

/// 1,000 rows as DuckDB's `COPY … TO 'x.parquet'` writes them: Snappy, TIMESTAMPTZ as a
/// microsecond UTC timestamp, DECIMAL(18,2), VARCHAR, DOUBLE, BOOLEAN, INTEGER, nulls.
fn write_duckdb_like(path: &Path, rows: i64) {
    let schema = Arc::new(Schema::new(vec![
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new("sym", DataType::Utf8, true),
        Field::new("px", DataType::Decimal128(18, 2), true),
        Field::new("q", DataType::Float64, true),
        Field::new("b", DataType::Boolean, true),
        Field::new("n", DataType::Int32, true),
    ]));
    let start = 1_723_075_200_000_000i64; // 2024-08-08T00:00:00Z in µs
    let ts: Vec<i64> = (0..rows).map(|i| start + i * 250_000).collect();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(TimestampMicrosecondArray::from(ts).with_timezone("UTC")),
        Arc::new(StringArray::from_iter(
            (0..rows).map(|i| Some(format!("S{}", i % 3))),
        )),
        Arc::new(
            Decimal128Array::from_iter((0..rows).map(|i| {
                if i % 7 == 0 {
                    None
                } else {
                    Some(10_000 + i as i128)
                }
            }))
            .with_precision_and_scale(18, 2)
            .unwrap(),
        ),
        Arc::new(Float64Array::from_iter_values((0..rows).map(|i| i as f64 * 0.5))),
        Arc::new(BooleanArray::from_iter((0..rows).map(|i| Some(i % 2 == 0)))),
        Arc::new(Int32Array::from_iter_values((0..rows).map(|i| i as i32))),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let mut writer = ArrowWriter::try_new(File::create(path).unwrap(), schema, Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

/// A timestamp without a time zone (pandas' naive datetimes, DuckDB's TIMESTAMP) is wall-clock
/// time: with `--timezone` it is placed in that zone, as the same times in a CSV are. It was
/// stored as UTC while the report said the zone was applied. One with a zone is an instant.
#[test]
fn naive_parquet_timestamps_are_placed_in_the_timezone() {
    let tmp = tempfile::tempdir().unwrap();
    let write = |name: &str, tz: Option<&str>| {
        let field = Field::new(
            "time",
            DataType::Timestamp(TimeUnit::Millisecond, tz.map(Into::into)),
            true,
        );
        let schema = Arc::new(Schema::new(vec![field, Field::new("v", DataType::Int32, true)]));
        // 2024-03-01T09:30:00 and 2024-03-10T02:30:00 (a New York time that does not exist).
        let times =
            arrow_array::TimestampMillisecondArray::from(vec![1_709_285_400_000i64, 1_710_037_800_000]);
        let times = match tz {
            Some(tz) => times.with_timezone(tz),
            None => times,
        };
        let columns: Vec<ArrayRef> = vec![Arc::new(times), Arc::new(Int32Array::from(vec![1, 2]))];
        let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
        let path = tmp.path().join(name);
        let mut writer = ArrowWriter::try_new(File::create(&path).unwrap(), schema, None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        path
    };
    let naive = write("naive.parquet", None);
    let db = tmp.path().join("n");
    let mut cmd = xs();
    cmd.arg("import")
        .arg(&naive)
        .arg("-d")
        .arg(&db)
        .args(["--timezone", "America/New_York"]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 4, "{err}");
    assert!(err.contains("2 rows read, 1 stored, 1 rejected"), "{err}");
    assert_eq!(all_rows(&db), "time,v\n2024-03-01T14:30:00.000Z,1\n");
    let aware = write("aware.parquet", Some("UTC"));
    let db = tmp.path().join("a");
    import_new(s(&aware), &db, &["--timezone", "America/New_York"]);
    assert!(all_rows(&db).starts_with("time,v\n2024-03-01T09:30:00.000Z,1\n"));
}

#[test]
fn a_duckdb_shaped_parquet_file_imports_with_its_types_and_values() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("duck.parquet");
    write_duckdb_like(&file, 1000);
    let db = tmp.path().join("d");
    let said = import_new(s(&file), &db, &[]);
    assert!(said.contains("duck.parquet: Parquet of 1000 row(s)"), "{said}");
    // The time column and its unit come from the schema: not "as given" by flags never passed.
    assert!(
        said.contains("time column `ts` (the file's schema has it)"),
        "{said}"
    );
    assert!(!said.contains("as given"), "{said}");
    let schema = ok_in(&db, &["schema"]);
    for (name, ty) in [
        ("px", "dec(2)"),
        ("q", "f64"),
        ("b", "bool"),
        ("n", "i32"),
        // Three values repeated: `sym`, as the CSV inference types repeated text.
        ("sym", "sym"),
    ] {
        assert!(
            schema
                .lines()
                .any(|l| l.split_whitespace().take(2).eq([name, ty])),
            "{name} is {ty}:\n{schema}"
        );
    }
    assert!(schema.contains("time column  ts"), "{schema}");
    // Reference sums computed here from the same generator.
    let px: i128 = (0..1000i128).filter(|i| i % 7 != 0).map(|i| 10_000 + i).sum();
    let q: f64 = (0..1000).map(|i| i as f64 * 0.5).sum();
    let agg = ok_in(
        &db,
        &[
            "range",
            "2024-08-08",
            "2024-08-09",
            "--all-series",
            "--agg",
            "count,sum(px),sum(q),min(n),max(n)",
        ],
    );
    let row: Vec<&str> = agg.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(row[1], "1000", "{agg}");
    assert_eq!(row[2], format!("{}.{:02}", px / 100, px % 100), "{agg}");
    assert_eq!(row[3].parse::<f64>().unwrap(), q, "{agg}");
    assert_eq!((row[4], row[5]), ("0", "999"), "{agg}");
    // A null decimal stays null; the first and last rows are where they belong.
    let first = ok_in(&db, &["get", "2024-08-08T00:00:00Z", "--series", "S0"]);
    assert_eq!(
        first.lines().nth(1),
        Some("2024-08-08T00:00:00.00Z,S0,,0.0,true,0"),
        "{first}"
    );
    let last = ok_in(&db, &["get", "2024-08-08T00:04:09.75Z", "--series", "S0"]);
    assert_eq!(
        last.lines().nth(1),
        Some("2024-08-08T00:04:09.75Z,S0,109.99,499.5,false,999"),
        "{last}"
    );

    // Importing it again upserts: every row is replaced by itself, none doubled.
    let again = import_new(s(&file), &db, &[]);
    assert!(again.contains("1000 stored row(s) replaced"), "{again}");
    let agg2 = ok_in(
        &db,
        &[
            "range",
            "2024-08-08",
            "2024-08-09",
            "--all-series",
            "--agg",
            "count",
        ],
    );
    assert_eq!(agg2.lines().nth(1).unwrap().split(',').nth(1), Some("1000"));
}

#[test]
fn a_column_xs_cannot_store_is_refused_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("list.parquet");
    let schema = Arc::new(Schema::new(vec![
        Field::new("ts", DataType::Timestamp(TimeUnit::Microsecond, None), false),
        Field::new(
            "tags",
            DataType::List(Arc::new(Field::new("item", DataType::Int32, true))),
            true,
        ),
    ]));
    let tags =
        ListArray::from_iter_primitive::<arrow_array::types::Int32Type, _, _>(vec![Some(vec![Some(1)])]);
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(TimestampMicrosecondArray::from(vec![1_723_075_200_000_000])),
            Arc::new(tags),
        ],
    )
    .unwrap();
    let mut writer = ArrowWriter::try_new(File::create(&file).unwrap(), schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let db = tmp.path().join("l");
    let mut cmd = xs();
    cmd.arg("import").arg(&file).arg("-d").arg(&db);
    let (code, _, err) = run(cmd);
    assert_ne!(code, 0);
    assert_no_panic(&err);
    assert!(
        err.contains("column `tags`") && err.contains("cast or drop it"),
        "{err}"
    );
    assert!(!db.exists(), "nothing created");
}

#[test]
fn no_header_is_refused_for_a_parquet_input() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("duck.parquet");
    write_duckdb_like(&file, 10);
    let (code, _, err) = xs_in(&tmp.path().join("n"), &["import", s(&file), "--no-header"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--no-header is for CSV"), "{err}");
}

#[test]
fn a_truncated_parquet_file_is_refused_with_a_message() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("cut.parquet");
    write_duckdb_like(&file, 100);
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    let (code, _, err) = xs_in(&tmp.path().join("c"), &["import", s(&file)]);
    assert_eq!(code, 2, "{err}");
    assert_no_panic(&err);
    assert!(err.contains("cut.parquet: not a readable Parquet"), "{err}");
}

#[test]
fn rejected_rows_of_a_parquet_input_name_it() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("duck.parquet");
    write_duckdb_like(&file, 10);
    // A database whose px holds one decimal: 100.01 cannot be stored exactly.
    let db = tmp.path().join("narrow");
    let mut cmd = xs();
    cmd.arg("create").arg(&db).args([
        "--granularity",
        "250ms",
        "--columns",
        "sym:str(2),px:dec(1),q:f64,b:bool,n:i32",
        "--time-column",
        "ts",
        "--layout",
        "bucket",
    ]);
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = xs_in(&db, &["import", s(&file), "--max-rejects", "100"]);
    assert_eq!(code, 0, "{err}");
    let rejects = std::fs::read_dir(&db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("rejects-"))
        .expect("a rejects file");
    let text = std::fs::read_to_string(rejects).unwrap();
    assert!(text.lines().skip(1).all(|l| l.contains("duck.parquet")), "{text}");
    assert!(
        !text.contains("xs-import-"),
        "the temporary copy is not named: {text}"
    );
}

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

/// Every type xs stores, each with nulls, in a file of several row groups (more batches than
/// are turned into text at once): its `range` output is the CSV import's of the same rows.
#[test]
fn every_type_with_nulls_reads_as_the_same_rows_through_csv() {
    use arrow_array::{
        Float32Array, Int16Array, Int64Array, Int8Array, UInt16Array, UInt32Array, UInt64Array, UInt8Array,
    };
    let rows = 70_000usize;
    let null = |i: usize, k: usize| i % 11 == k;
    let t0 = 1_723_075_200_000i64; // 2024-08-08T00:00:00Z in ms
    let texts = [
        "",
        "plain",
        "with,comma",
        "with \"quotes\"",
        "line\nbreak",
        "émoji ✓",
    ];
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "time",
            Arc::new(arrow_array::TimestampMillisecondArray::from_iter_values(
                (0..rows).map(|i| t0 + i as i64),
            )),
        ),
        (
            "a",
            Arc::new(Int8Array::from_iter(
                (0..rows).map(|i| (!null(i, 0)).then_some((i % 256) as u8 as i8)),
            )),
        ),
        (
            "b",
            Arc::new(Int16Array::from_iter(
                (0..rows).map(|i| (!null(i, 1)).then_some(i as i16 ^ 0x5555)),
            )),
        ),
        (
            "c",
            Arc::new(Int32Array::from_iter(
                (0..rows).map(|i| (!null(i, 2)).then_some(-(i as i32) * 30_011)),
            )),
        ),
        (
            "d",
            Arc::new(Int64Array::from_iter(
                (0..rows).map(|i| (!null(i, 3)).then_some(i64::MIN + i as i64 * 7)),
            )),
        ),
        (
            "e",
            Arc::new(UInt8Array::from_iter(
                (0..rows).map(|i| (!null(i, 4)).then_some(255 - (i % 256) as u8)),
            )),
        ),
        (
            "f",
            Arc::new(UInt16Array::from_iter(
                (0..rows).map(|i| (!null(i, 5)).then_some(u16::MAX - i as u16)),
            )),
        ),
        (
            "g",
            Arc::new(UInt32Array::from_iter(
                (0..rows).map(|i| (!null(i, 6)).then_some(u32::MAX - i as u32)),
            )),
        ),
        (
            "h",
            Arc::new(UInt64Array::from_iter(
                (0..rows).map(|i| (!null(i, 7)).then_some(u64::MAX - i as u64)),
            )),
        ),
        (
            "p",
            Arc::new(Float32Array::from_iter(
                (0..rows).map(|i| (!null(i, 8)).then_some(i as f32 / 3.0 - 1e3)),
            )),
        ),
        (
            "q",
            Arc::new(Float64Array::from_iter(
                (0..rows).map(|i| (!null(i, 9)).then_some((i as f64).sqrt() * 1e-7)),
            )),
        ),
        (
            "r",
            Arc::new(BooleanArray::from_iter(
                (0..rows).map(|i| (!null(i, 10)).then_some(i % 3 == 0)),
            )),
        ),
        (
            "x",
            Arc::new(
                Decimal128Array::from_iter(
                    (0..rows).map(|i| (i % 13 != 0).then_some(i as i128 * 1001 - 5_000_000)),
                )
                .with_precision_and_scale(18, 3)
                .unwrap(),
            ),
        ),
        (
            "s",
            Arc::new(StringArray::from_iter(
                (0..rows).map(|i| (i % 17 != 0).then(|| texts[i % texts.len()])),
            )),
        ),
        (
            "y",
            Arc::new(StringArray::from_iter(
                (0..rows).map(|i| (i % 19 != 0).then(|| format!("row {i}"))),
            )),
        ),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("all.parquet");
    write_parquet(&file, columns, 9_000);
    let pq = tmp.path().join("pq");
    import_new(s(&file), &pq, &["-q"]);
    let schema = ok_in(&pq, &["schema"]);
    for (name, ty) in [
        ("a", "i8"),
        ("h", "u64"),
        ("p", "f32"),
        ("x", "dec(3)"),
        ("s", "sym"),
        ("y", "str(9)"),
    ] {
        assert!(
            schema
                .lines()
                .any(|l| l.split_whitespace().take(2).eq([name, ty])),
            "{name} is {ty}:\n{schema}"
        );
    }
    let want = all_rows(&pq);
    let count = ok_in(&pq, &["range", "2024-08-08", "2024-08-09", "--agg", "count"]);
    assert_eq!(
        count.lines().nth(1).unwrap().split(',').nth(1),
        Some("70000"),
        "{count}"
    );
    // The same rows as CSV (xs's own output), into a database of the same settings.
    let csv = tmp.path().join("all.csv");
    std::fs::write(&csv, &want).unwrap();
    let spec: Vec<String> = schema
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let (name, ty) = (w.next()?, w.next()?);
            (name.len() == 1 && ty != "column").then(|| format!("{name}:{ty}"))
        })
        .collect();
    let from_csv = tmp.path().join("csv");
    import_new(
        s(&csv),
        &from_csv,
        &["-q", "--columns", &spec.join(","), "--granularity", "1ms"],
    );
    assert_eq!(all_rows(&from_csv), want, "Parquet and CSV imports differ");
    // Spot checks against the values written: a null in every column, then a full row.
    let row_of = |i: usize| {
        let at = format!(
            "2024-08-08T00:{:02}:{:02}.{:03}Z",
            i / 60_000,
            i / 1000 % 60,
            i % 1000
        );
        ok_in(&pq, &["get", &at]).lines().nth(1).unwrap().to_string()
    };
    assert_eq!(
        row_of(0),
        "2024-08-08T00:00:00.000Z,,21845,0,-9223372036854775808,255,65535,4294967295,\
         18446744073709551615,-1000.0,0.0,true,,,"
    );
    assert!(
        row_of(11).starts_with("2024-08-08T00:00:00.011Z,,"),
        "{}",
        row_of(11)
    );
    assert!(
        row_of(rows - 1).contains(&format!(",{},", u64::MAX - (rows as u64 - 1))),
        "{}",
        row_of(rows - 1)
    );
}

/// Into an existing database: text at its `str(N)` limit is stored, one byte over is rejected;
/// an unsigned value too large for a narrower column is rejected; each reject names the file
/// and the row (line k + 1 for row k).
#[test]
fn values_that_do_not_fit_are_rejected_with_file_and_row() {
    use arrow_array::UInt64Array;
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("narrow");
    let mut cmd = xs();
    cmd.arg("create").arg(&db).args([
        "--granularity",
        "1s",
        "--columns",
        "n:u8,w:u64,t:str(4)",
        "--time-column",
        "time",
    ]);
    let (code, out, err) = run(cmd);
    assert_eq!(code, 0, "{out}{err}");
    let file = tmp.path().join("wide.parquet");
    let t0 = 1_723_075_200i64;
    write_parquet(
        &file,
        vec![
            (
                "time",
                Arc::new(arrow_array::TimestampSecondArray::from_iter_values(
                    (0..4).map(|i| t0 + i),
                )),
            ),
            ("n", Arc::new(UInt64Array::from(vec![255, 256, 0, u64::MAX]))),
            ("w", Arc::new(UInt64Array::from(vec![u64::MAX, 1, 2, 3]))),
            ("t", Arc::new(StringArray::from(vec!["abcd", "ab", "abcde", "é"]))),
        ],
        2,
    );
    let (code, _, err) = xs_in(
        &db,
        &[
            "import",
            s(&file),
            "--max-rejects",
            "10",
            "--rejects",
            s(&tmp.path().join("r.csv")),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        ok_in(&db, &["range", "2024-08-08", "2024-08-09"]),
        "time,n,w,t\n2024-08-08T00:00:00Z,255,18446744073709551615,abcd\n",
        "only the rows that fit"
    );
    let rejects = std::fs::read_to_string(tmp.path().join("r.csv")).unwrap();
    let lines: Vec<&str> = rejects.lines().collect();
    assert_eq!(lines.len(), 4, "{rejects}");
    assert!(
        lines[1].contains("wide.parquet") && lines[1].contains(",3,") && lines[1].contains("column `n`"),
        "{rejects}"
    );
    assert!(
        lines[2].contains(",4,") && lines[2].contains("column `t`") && lines[2].contains("abcde"),
        "{rejects}"
    );
    assert!(
        lines[3].contains(",5,") && lines[3].contains("column `n`"),
        "{rejects}"
    );
}

/// A timestamp time column in each unit lands on the same instants.
#[test]
fn time_units_s_ms_us_ns_read_as_the_same_instants() {
    use arrow_array::{
        TimestampMicrosecondArray as Us, TimestampMillisecondArray as Ms, TimestampNanosecondArray as Ns,
        TimestampSecondArray as S,
    };
    let tmp = tempfile::tempdir().unwrap();
    let t0 = 1_723_075_200i64;
    let secs: Vec<i64> = (0..5).map(|i| t0 + i * 3600).collect();
    let ids = || -> ArrayRef { Arc::new(Int32Array::from_iter_values(0..5)) };
    let times: Vec<(&str, ArrayRef)> = vec![
        ("s", Arc::new(S::from(secs.clone()))),
        (
            "ms",
            Arc::new(Ms::from(secs.iter().map(|t| t * 1_000).collect::<Vec<_>>())),
        ),
        (
            "us",
            Arc::new(Us::from(secs.iter().map(|t| t * 1_000_000).collect::<Vec<_>>())),
        ),
        (
            "ns",
            Arc::new(Ns::from(
                secs.iter().map(|t| t * 1_000_000_000).collect::<Vec<_>>(),
            )),
        ),
    ];
    let mut outputs = Vec::new();
    for (unit, time) in times {
        let file = tmp.path().join(format!("{unit}.parquet"));
        write_parquet(&file, vec![("time", time), ("id", ids())], 1000);
        let db = tmp.path().join(unit);
        import_new(s(&file), &db, &["-q", "--granularity", "1s"]);
        outputs.push((unit, ok_in(&db, &["range", "2024-08-08", "2024-08-09"])));
    }
    let want = "time,id\n2024-08-08T00:00:00Z,0\n2024-08-08T01:00:00Z,1\n2024-08-08T02:00:00Z,2\n\
                2024-08-08T03:00:00Z,3\n2024-08-08T04:00:00Z,4\n";
    for (unit, out) in outputs {
        assert_eq!(out, want, "unit {unit}");
    }
}

/// A Parquet or Arrow input named by a pipe's path (`xs import <(cat f.parquet)`,
/// `/dev/stdin`, a FIFO) was read as CSV: its binary head was refused as a header in an
/// unknown encoding. A pipe is now read once: whole when its first bytes say Parquet or
/// Arrow, else on from those bytes as text.
#[test]
fn parquet_and_arrow_through_a_pipe_named_by_its_path_are_read_as_such() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    import_new(&fixture("sensor.csv"), &a, &["-q"]);
    let want = all_rows(&a);
    for (format, name) in [("parquet", "a.parquet"), ("arrow", "a.arrow")] {
        let file = tmp.path().join(name);
        ok_in(&a, &["export", "--format", format, "-o", s(&file)]);
        let bytes = std::fs::read(&file).unwrap();
        // `/dev/stdin` names the pipe assert_cmd writes.
        let b = tmp.path().join(format!("stdin-{format}"));
        let mut cmd = xs();
        cmd.arg("-d")
            .arg(&b)
            .args(["import", "-q", "/dev/stdin"])
            .write_stdin(bytes.clone());
        let (code, out, err) = run(cmd);
        assert_eq!(code, 0, "{format} on /dev/stdin: {out}\n{err}");
        assert_eq!(all_rows(&b), want, "{format} on /dev/stdin");
        // A FIFO, written by another thread.
        let fifo = tmp.path().join(format!("feed-{format}"));
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(fifo, bytes))
        };
        let c = tmp.path().join(format!("fifo-{format}"));
        let mut cmd = xs();
        cmd.arg("-d")
            .arg(&c)
            .args(["import", "-q"])
            .arg(&fifo)
            .timeout(std::time::Duration::from_secs(60));
        let (code, out, err) = run(cmd);
        writer.join().unwrap().unwrap();
        assert_eq!(code, 0, "{format} through a FIFO: {out}\n{err}");
        assert_eq!(all_rows(&c), want, "{format} through a FIFO");
    }
}
