//! Parquet and Arrow output (issue 17), read back with independent readers: the `parquet`
//! crate's reader and `arrow-ipc`'s, never xs's own code. Types, values, nulls, order, row
//! groups and statistics, on the grid and bucket layouts (tests/columnar_bucket.rs) and on a
//! series database.

mod common;

use std::fs::File;
use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int64Type, Int8Type, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use common::{run, xs, TestDb};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;

fn read_parquet(path: &Path) -> Vec<RecordBatch> {
    let file = File::open(path).expect("parquet file");
    ParquetRecordBatchReaderBuilder::try_new(file)
        .expect("a Parquet file")
        .build()
        .expect("reader")
        .map(|b| b.expect("batch"))
        .collect()
}

fn read_arrow_file(path: &Path) -> Vec<RecordBatch> {
    let file = File::open(path).expect("arrow file");
    arrow_ipc::reader::FileReader::try_new(file, None)
        .expect("an Arrow IPC file")
        .map(|b| b.expect("batch"))
        .collect()
}

fn read_arrow_stream(bytes: &[u8]) -> Vec<RecordBatch> {
    arrow_ipc::reader::StreamReader::try_new(bytes, None)
        .expect("an Arrow IPC stream")
        .map(|b| b.expect("batch"))
        .collect()
}

/// The rows of a small output as one batch: a Parquet file holds one row group of them, and
/// Arrow output a batch per time slice of its parallel read.
fn concat(batches: &[RecordBatch]) -> RecordBatch {
    assert!(!batches.is_empty(), "expected rows");
    arrow_select::concat::concat_batches(&batches[0].schema(), batches).expect("batches of one schema")
}

fn rows(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::num_rows).sum()
}

/// Every type, nulls, extremes, two rows at one timestamp.
const ALL_TYPES: &str = "a:i8,b:i16,c:i64,d:u64,e:f32,f:f64,g:bool,s:str(8)";
const ALL_ROWS: &str = "time,a,b,c,d,e,f,g,s
2024-08-08T00:00:00.001Z,-128,-32768,-9223372036854775808,18446744073709551615,1.5,52.0,true,buy
2024-08-08T00:00:00.001Z,,,,,,,,
2024-08-09T12:00:00.250Z,127,32767,9223372036854775807,0,-0.25,0.30000000000000004,false,séll
";

fn all_types_db() -> TestDb {
    let db = TestDb::create("1ms", ALL_TYPES, &["--depth", "2"]);
    let input = db.path.parent().expect("tmp").join("in.csv");
    std::fs::write(&input, ALL_ROWS).expect("write input");
    db.ok(&["import", input.to_str().expect("utf-8 path")]);
    db
}

fn check_all_types(batch: &RecordBatch, unit_ms: bool) {
    let schema = batch.schema();
    let types: Vec<&DataType> = schema.fields().iter().map(|f| f.data_type()).collect();
    let unit = if unit_ms {
        TimeUnit::Millisecond
    } else {
        TimeUnit::Second
    };
    assert_eq!(
        types,
        [
            &DataType::Timestamp(unit, Some("UTC".into())),
            &DataType::Int8,
            &DataType::Int16,
            &DataType::Int64,
            &DataType::UInt64,
            &DataType::Float32,
            &DataType::Float64,
            &DataType::Boolean,
            &DataType::Utf8,
        ]
    );
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["time", "a", "b", "c", "d", "e", "f", "g", "s"]);
    assert_eq!(batch.num_rows(), 3);
    let time = batch.column(0).as_primitive::<TimestampMillisecondType>();
    assert_eq!(time.values(), &[1723075200001, 1723075200001, 1723204800250]);
    assert_eq!(time.null_count(), 0);
    assert_eq!(batch.column(1).as_primitive::<Int8Type>().value(0), -128);
    assert_eq!(batch.column(2).as_primitive::<Int16Type>().value(2), 32767);
    assert_eq!(batch.column(3).as_primitive::<Int64Type>().value(0), i64::MIN);
    assert_eq!(batch.column(3).as_primitive::<Int64Type>().value(2), i64::MAX);
    assert_eq!(batch.column(4).as_primitive::<UInt64Type>().value(0), u64::MAX);
    assert_eq!(batch.column(5).as_primitive::<Float32Type>().value(2), -0.25);
    let f = batch.column(6).as_primitive::<Float64Type>();
    assert_eq!(f.value(0).to_bits(), 52.0f64.to_bits());
    assert_eq!(f.value(2).to_bits(), (0.1f64 + 0.2).to_bits());
    let g = batch.column(7).as_boolean();
    assert!(g.value(0) && !g.value(2));
    let s = batch.column(8).as_string::<i32>();
    assert_eq!((s.value(0), s.value(2)), ("buy", "séll"));
    // The second row is null in every column but time.
    for c in 1..batch.num_columns() {
        let column = batch.column(c);
        assert!(column.is_null(1), "column {c}");
        assert!(column.is_valid(0) && column.is_valid(2), "column {c}");
    }
}

#[test]
fn parquet_and_arrow_keep_every_type_value_and_null() {
    let db = all_types_db();
    let dir = db.path.parent().expect("tmp");
    let parquet = dir.join("all.parquet");
    let arrow = dir.join("all.arrow");
    db.ok(&["export", "-o", parquet.to_str().unwrap()]);
    db.ok(&["export", "-o", arrow.to_str().unwrap()]);
    check_all_types(&concat(&read_parquet(&parquet)), true);
    check_all_types(&concat(&read_arrow_file(&arrow)), true);
    // `range --format arrow` to a pipe: an IPC stream.
    let out = db
        .xs(&["range", "2024-01-01", "2025-01-01", "--format", "arrow"])
        .output()
        .expect("xs runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    check_all_types(&concat(&read_arrow_stream(&out.stdout)), true);
    // `get` writes the rows at one time, through the same writer.
    let got = dir.join("got.parquet");
    db.ok(&["get", "2024-08-09T12:00:00.250Z", "-o", got.to_str().unwrap()]);
    let batch = concat(&read_parquet(&got));
    assert_eq!(batch.num_rows(), 1);
    assert_eq!(batch.column(8).as_string::<i32>().value(0), "séll");
}

#[test]
fn time_keeps_the_granularity_precision() {
    // 100 ns: nanoseconds; 1 s: seconds in Arrow, milliseconds in Parquet (no seconds there).
    let db = TestDb::create("100ns", "v:i64", &["--partition", "day"]);
    db.ok(&["put", "2024-08-08T00:00:00.1234567Z", "v=1"]);
    let dir = db.path.parent().unwrap();
    let p = dir.join("ns.parquet");
    db.ok(&["export", "-o", p.to_str().unwrap()]);
    let batch = concat(&read_parquet(&p));
    assert_eq!(
        batch.schema().field(0).data_type(),
        &DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()))
    );
    let t = batch.column(0).as_primitive::<TimestampNanosecondType>().value(0);
    assert_eq!(t, 1_723_075_200_123_456_700);

    let db = TestDb::create("1s", "v:i64", &[]);
    db.ok(&["put", "1969-12-31T23:59:59Z", "v=1"]);
    let dir = db.path.parent().unwrap();
    let a = dir.join("s.arrow");
    let p = dir.join("s.parquet");
    db.ok(&["export", "-o", a.to_str().unwrap()]);
    db.ok(&["export", "-o", p.to_str().unwrap()]);
    let batch = concat(&read_arrow_file(&a));
    assert_eq!(batch.column(0).as_primitive::<TimestampSecondType>().value(0), -1);
    let batch = concat(&read_parquet(&p));
    assert_eq!(
        batch.schema().field(0).data_type(),
        &DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
    );
    assert_eq!(
        batch
            .column(0)
            .as_primitive::<TimestampMillisecondType>()
            .value(0),
        -1000
    );
}

/// 700,001 rows: three row groups (of 262,144 rows) encoded in parallel, appended in order.
#[test]
fn big_exports_come_in_row_groups_in_order_with_statistics() {
    let db = TestDb::create("1ms", "q:i64,p:f64", &[]);
    let dir = db.path.parent().unwrap();
    let n: i64 = 700_001;
    let mut text = String::with_capacity(40 * n as usize);
    text.push_str("time,q,p\n");
    for i in 0..n {
        let q = if i % 1000 == 7 {
            String::new()
        } else {
            i.to_string()
        };
        text.push_str(&format!("{},{q},{}.5\n", 1_700_000_000_000 + 3 * i, i % 97));
    }
    let input = dir.join("big.csv");
    std::fs::write(&input, text).unwrap();
    db.ok(&["import", input.to_str().unwrap(), "--time-unit", "ms"]);
    let p = dir.join("big.parquet");
    db.ok(&["export", "-o", p.to_str().unwrap()]);

    let reader = SerializedFileReader::new(File::open(&p).unwrap()).unwrap();
    let meta = reader.metadata();
    assert_eq!(meta.file_metadata().num_rows(), n);
    let groups: Vec<i64> = meta.row_groups().iter().map(|g| g.num_rows()).collect();
    assert_eq!(groups, [262_144, 262_144, 175_713]);
    // Row-group statistics: the time column's min and max follow the groups in order.
    let mut last_max = i64::MIN;
    for (g, group) in meta.row_groups().iter().enumerate() {
        let stats = group.column(0).statistics().expect("time statistics");
        let (min, max) = match stats {
            parquet::file::statistics::Statistics::Int64(s) => (*s.min_opt().unwrap(), *s.max_opt().unwrap()),
            other => panic!("time statistics of type {other:?}"),
        };
        let first = 1_700_000_000_000 + 3 * 262_144 * g as i64;
        assert_eq!(min, first, "group {g}");
        assert!(min > last_max && max >= min, "group {g}");
        last_max = max;
        let q = group.column(1).statistics().expect("q statistics");
        assert!(q.null_count_opt().unwrap() > 0, "group {g}: nulls counted");
    }

    let batches = read_parquet(&p);
    assert_eq!(rows(&batches), n as usize);
    let (mut sum, mut nulls, mut at) = (0i64, 0usize, 0i64);
    for batch in &batches {
        let t = batch.column(0).as_primitive::<TimestampMillisecondType>();
        let q = batch.column(1).as_primitive::<Int64Type>();
        for i in 0..batch.num_rows() {
            assert_eq!(t.value(i), 1_700_000_000_000 + 3 * at, "row {at}");
            if q.is_null(i) {
                nulls += 1;
            } else {
                assert_eq!(q.value(i), at);
                sum += q.value(i);
            }
            at += 1;
        }
    }
    let expected_nulls = (0..n).filter(|i| i % 1000 == 7).count();
    let expected_sum: i64 = (0..n).filter(|i| i % 1000 != 7).sum();
    assert_eq!((nulls, sum), (expected_nulls, expected_sum));

    // --limit and --where go through the same writer: Arrow, in batches of 65,536 rows.
    let out = db
        .xs(&[
            "range",
            "2023-01-01",
            "2025-01-01",
            "-f",
            "arrow",
            "--limit",
            "100000",
        ])
        .output()
        .unwrap();
    let batches = read_arrow_stream(&out.stdout);
    assert_eq!(rows(&batches), 100_000);
    assert!(
        batches.iter().all(|b| b.num_rows() <= 65_536),
        "batches of 65,536 rows at most"
    );
    let out = db
        .xs(&[
            "range",
            "2023-01-01",
            "2025-01-01",
            "-f",
            "arrow",
            "--where",
            "q < 10",
        ])
        .output()
        .unwrap();
    let batches = read_arrow_stream(&out.stdout);
    assert_eq!(rows(&batches), 9, "q = 7 is null");
}

#[test]
fn a_series_database_keeps_its_key_columns_and_time_order() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let input = tmp.path().join("ticks.csv");
    let mut text = String::from("time,symbol,venue,price\n");
    for i in 0..30 {
        for (sym, venue) in [("BTC", 1), ("ETH", 2), ("SOL", 3)] {
            text.push_str(&format!("2024-08-08T00:00:{i:02}Z,{sym},{venue},{i}.25\n"));
        }
    }
    std::fs::write(&input, text).unwrap();
    let mut cmd = xs();
    cmd.arg("-d").arg(&db).arg("import").arg(&input);
    cmd.args([
        "--series-by",
        "symbol",
        "--columns",
        "symbol:str(8),venue:u8,price:f64",
    ]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    let p = tmp.path().join("ticks.parquet");
    let mut cmd = xs();
    cmd.arg("-d").arg(&db).args(["export", "-o"]).arg(&p);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    let batch = concat(&read_parquet(&p));
    assert_eq!(batch.num_rows(), 90);
    assert_eq!(batch.schema().field(1).data_type(), &DataType::Utf8);
    assert_eq!(batch.schema().field(2).data_type(), &DataType::UInt8);
    let sym = batch.column(1).as_string::<i32>();
    let venue = batch.column(2).as_primitive::<arrow_array::types::UInt8Type>();
    // Time order, ties in series order.
    assert_eq!((sym.value(0), sym.value(1), sym.value(2)), ("BTC", "ETH", "SOL"));
    assert_eq!((sym.value(89), venue.value(89)), ("SOL", 3));
    // One series alone.
    let mut cmd = xs();
    cmd.arg("-d").arg(&db).args([
        "range",
        "2024-01-01",
        "2025-01-01",
        "--series",
        "ETH",
        "-f",
        "arrow",
    ]);
    let out = cmd.output().unwrap();
    let batch = concat(&read_arrow_stream(&out.stdout));
    assert_eq!(batch.num_rows(), 30);
    let sym = batch.column(1).as_string::<i32>();
    assert!((0..30).all(|i| sym.value(i) == "ETH"));
    assert_eq!(batch.column(3).as_primitive::<Float64Type>().value(29), 29.25);
}

#[test]
fn the_format_follows_the_extension_and_an_unknown_one_is_an_error() {
    let db = all_types_db();
    let dir = db.path.parent().unwrap();
    for name in ["all.txt", "all", "all.parquet.zst"] {
        let path = dir.join(name);
        let (code, _, err) = run(db.xs(&["export", "-o", path.to_str().unwrap()]));
        assert_eq!(code, 2, "{name}: {err}");
        assert!(!path.exists(), "{name}");
        common::assert_no_panic(&err);
        if name != "all.parquet.zst" {
            assert!(err.contains(".parquet") && err.contains("--format"), "{err}");
        }
    }
    // --format overrides the extension.
    let path = dir.join("all.txt");
    db.ok(&["export", "-o", path.to_str().unwrap(), "--format", "parquet"]);
    check_all_types(&concat(&read_parquet(&path)), true);
    // .csv.gz is gzip, .ndjson is NDJSON.
    let gz = dir.join("all.csv.gz");
    db.ok(&["export", "-o", gz.to_str().unwrap()]);
    let mut text = String::new();
    use std::io::Read;
    flate2::read::MultiGzDecoder::new(File::open(&gz).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let csv = db.ok(&["range", "2024-01-01", "2025-01-01"]);
    assert_eq!(text, csv);
    let nd = dir.join("all.ndjson");
    db.ok(&["range", "2024-01-01", "2025-01-01", "-o", nd.to_str().unwrap()]);
    let nd = std::fs::read_to_string(&nd).unwrap();
    assert!(
        nd.starts_with("{\"time\":\"2024-08-08T00:00:00.001Z\",\"a\":-128"),
        "{nd}"
    );
    // Text options that make no sense for Parquet are refused, not ignored.
    let (code, _, err) = run(db.xs(&[
        "range",
        "2024-01-01",
        "2025-01-01",
        "-f",
        "parquet",
        "--time-format",
        "epoch-ms",
    ]));
    assert_eq!(code, 2, "{err}");
    // An unknown column: nothing is left behind, not even the temporary file.
    let path = dir.join("cols.parquet");
    let (code, _, err) = run(db.xs(&["export", "-o", path.to_str().unwrap(), "--columns", "time,nope"]));
    assert_eq!(code, 2, "{err}");
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("cols"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // --columns projects and orders.
    db.ok(&["export", "-o", path.to_str().unwrap(), "--columns", "s,time"]);
    let batch = concat(&read_parquet(&path));
    let names: Vec<&str> = batch
        .schema_ref()
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(names, ["s", "time"]);
}

#[test]
fn split_parquet_is_a_hive_dataset_per_series_and_period() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("db");
    let input = tmp.path().join("ticks.csv");
    // Two series over three months; August has no ETH rows.
    let mut text = String::from("time,symbol,qty\n");
    for (day, sym, qty) in [
        ("2024-06-30", "BTC", 1),
        ("2024-06-30", "ETH", 2),
        ("2024-07-01", "BTC", 3),
        ("2024-07-15", "ETH", 4),
        ("2024-08-01", "BTC", 5),
    ] {
        text.push_str(&format!("{day}T12:00:00Z,{sym},{qty}\n"));
    }
    std::fs::write(&input, text).unwrap();
    let mut cmd = xs();
    cmd.arg("-d").arg(&db).arg("import").arg(&input);
    cmd.args(["--series-by", "symbol", "--columns", "symbol:str(8),qty:i32"]);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    let out = tmp.path().join("ds");
    let mut cmd = xs();
    cmd.arg("-d")
        .arg(&db)
        .args(["export", "--split", "month", "--format", "parquet", "-o"])
        .arg(&out);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    let mut found = Vec::new();
    for (part, sym, qty) in [
        ("series=BTC/year=2024/month=06", "BTC", vec![1]),
        ("series=BTC/year=2024/month=07", "BTC", vec![3]),
        ("series=BTC/year=2024/month=08", "BTC", vec![5]),
        ("series=ETH/year=2024/month=06", "ETH", vec![2]),
        ("series=ETH/year=2024/month=07", "ETH", vec![4]),
    ] {
        let batch = concat(&read_parquet(&out.join(part).join("part-0.parquet")));
        let syms = batch.column(1).as_string::<i32>();
        let q = batch.column(2).as_primitive::<arrow_array::types::Int32Type>();
        assert!((0..batch.num_rows()).all(|i| syms.value(i) == sym), "{part}");
        assert_eq!(q.values().to_vec(), qty, "{part}");
        found.push(part);
    }
    // A period without rows gets no directory.
    assert!(!out.join("series=ETH/year=2024/month=08").exists());
    // Text splits keep their flat names.
    let flat = tmp.path().join("flat");
    let mut cmd = xs();
    cmd.arg("-d")
        .arg(&db)
        .args(["export", "--split", "year", "-o"])
        .arg(&flat);
    let (code, _, err) = run(cmd);
    assert_eq!(code, 0, "{err}");
    assert!(flat.join("2024.csv").is_file());
}

#[test]
fn a_full_disk_is_a_clear_error_for_parquet_and_arrow() {
    let db = all_types_db();
    for format in ["parquet", "arrow"] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        // std's Command: assert_cmd's cannot hand the child a file as stdout.
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("xs"))
            .arg("-d")
            .arg(&db.path)
            .args(["range", "2024-01-01", "2025-01-01", "--format", format])
            .env_remove("XS_DB")
            .stdout(full)
            .output()
            .expect("xs runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{format}: {stderr}");
        assert!(
            stderr.starts_with("xs: cannot write to standard output: No space left on device"),
            "{format}: {stderr}"
        );
        assert!(!stderr.contains("os error"), "{stderr}");
        common::assert_no_panic(&stderr);
    }
}

/// A `sym` column in an Arrow IPC file over several batches: a file allows one dictionary per
/// field for all its batches, and each batch builds its own, so the file writer failed at the
/// second batch that met a new text ("Dictionary replacement detected", exit 3). The file
/// carries `sym` as plain text; the stream, which allows a new dictionary per batch, keeps it
/// dictionary-encoded.
#[test]
fn a_sym_column_reaches_an_arrow_file_over_many_batches() {
    let db = TestDb::create("1ms", "side:sym,q:i64", &[]);
    let dir = db.path.parent().unwrap();
    // The first batch (65,536 rows) meets only `buy`; the second starts with `sell`.
    let n: usize = 70_000;
    let side = |i: usize| {
        if i < 65_536 || i.is_multiple_of(3) {
            "buy"
        } else {
            "sell"
        }
    };
    let mut text = String::from("time,side,q\n");
    for i in 0..n {
        text.push_str(&format!("{},{},{i}\n", 1_700_000_000_000 + i, side(i)));
    }
    let input = dir.join("sides.csv");
    std::fs::write(&input, text).unwrap();
    db.ok(&["import", input.to_str().unwrap(), "--time-unit", "ms"]);

    let p = dir.join("sides.arrow");
    db.ok(&["export", "-o", p.to_str().unwrap()]);
    let batches = read_arrow_file(&p);
    assert!(batches.len() > 1, "the test needs several batches");
    assert_eq!(rows(&batches), n);
    let mut i = 0;
    for b in &batches {
        let sides = b.column(1).as_string::<i32>();
        let qs = b.column(2).as_primitive::<Int64Type>();
        for k in 0..b.num_rows() {
            assert_eq!((sides.value(k), qs.value(k)), (side(i), i as i64), "row {i}");
            i += 1;
        }
    }

    let out = db
        .xs(&["range", "2000-01-01", "2100-01-01", "--format", "arrow"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let streamed = read_arrow_stream(&out.stdout);
    assert_eq!(rows(&streamed), n);
    assert!(matches!(
        streamed[0].schema().field(1).data_type(),
        DataType::Dictionary(..)
    ));
}
