//! `xs schema`: the columns and settings of a database, as text and as JSON with stable keys.

mod common;

use common::{layout, run, TestDb};

#[test]
fn text_and_json_show_columns_types_keys_and_layout() {
    let db = TestDb::create(
        "1ms",
        "symbol:str(8),trade_id:u64,price:f64,qty:f32,side:str(4),ok:bool",
        &["--depth", "3", "--series-by", "symbol", "--unique-by", "trade_id"],
    );
    let bucket = layout() == "bucket";
    let text = db.ok(&["schema"]);
    for needle in [
        "format       2\n",
        "granularity  1ms\n",
        "partition    one file per year\n",
        "time column  time\n",
        "series key   symbol\n",
        "unique key   trade_id\n",
        "columns      6\n",
        "  symbol    str(8)  series key\n",
        "  side      str(4)\n",
        "  ok        bool\n",
    ] {
        assert!(text.contains(needle), "{needle:?} not in\n{text}");
    }
    if bucket {
        assert!(
            text.contains("layout       bucket, 1s buckets, raw records\n"),
            "{text}"
        );
        assert!(
            text.contains("  trade_id  u64     unique key, summarized\n"),
            "{text}"
        );
        assert!(text.contains("  price     f64     summarized\n"), "{text}");
    } else {
        assert!(
            text.contains("layout       grid, depth 3 (rows per timestamp)\n"),
            "{text}"
        );
        assert!(text.contains("  trade_id  u64     unique key\n"), "{text}");
        assert!(text.contains("  price     f64\n"), "{text}");
    }

    let json: serde_json::Value = serde_json::from_str(&db.ok(&["schema", "--json"])).unwrap();
    assert_eq!(json["xs_schema_version"], 1);
    assert_eq!(json["format"], 2);
    assert_eq!(json["layout"], layout());
    assert_eq!(json["granularity"], "1ms");
    assert_eq!(json["granularity_ns"], 1_000_000);
    assert_eq!(json["partition"], "year");
    assert_eq!(json["time_column"], "time");
    assert_eq!(json["series_by"], serde_json::json!(["symbol"]));
    assert_eq!(json["unique_by"], serde_json::json!(["trade_id"]));
    if bucket {
        assert_eq!(json["depth"], serde_json::Value::Null);
        assert_eq!(json["bucket"], "1s");
        assert_eq!(json["bucket_ns"], 1_000_000_000i64);
        assert_eq!(json["codec"], "raw");
    } else {
        assert_eq!(json["depth"], 3);
        assert_eq!(json["bucket"], serde_json::Value::Null);
        assert_eq!(json["codec"], serde_json::Value::Null);
    }
    let cols = json["columns"].as_array().unwrap();
    let names: Vec<&str> = cols.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["symbol", "trade_id", "price", "qty", "side", "ok"]);
    let types: Vec<&str> = cols.iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["str(8)", "u64", "f64", "f32", "str(4)", "bool"]);
    assert_eq!(cols[0]["series_key"], true);
    assert_eq!(cols[1]["unique_key"], true);
    assert_eq!(cols[1]["width_bytes"], 8);
    assert_eq!(cols[5]["nullable"], true);
    let summarized: Vec<bool> = cols.iter().map(|c| c["summarized"].as_bool().unwrap()).collect();
    let want = if bucket {
        [false, true, true, true, false, false]
    } else {
        [false; 6]
    };
    assert_eq!(summarized, want);
    // The row length is the one `create` reports: 1 + 6 flag bits → 1 byte header.
    assert_eq!(json["row_len_bytes"], 1 + 8 + 8 + 8 + 4 + 4 + 1);
}

#[test]
fn a_plain_database_has_format_1_and_no_keys() {
    let db = TestDb::create("1s", "v:f64", &[]);
    let json: serde_json::Value = serde_json::from_str(&db.ok(&["schema", "--json"])).unwrap();
    assert_eq!(json["format"], 1);
    assert_eq!(json["series_by"], serde_json::json!([]));
    let text = db.ok(&["schema"]);
    assert!(text.contains("series key   none\n"), "{text}");
}

#[test]
fn no_database_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = common::xs();
    cmd.current_dir(tmp.path()).arg("schema");
    let (code, _, stderr) = run(cmd);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no database given"), "{stderr}");
    let mut cmd = common::xs();
    cmd.args(["-d"]).arg(tmp.path().join("nope")).arg("schema");
    let (code, _, stderr) = run(cmd);
    assert_ne!(code, 0, "{stderr}");
    common::assert_no_panic(&stderr);
    assert!(!stderr.contains("os error"), "{stderr}");
}
