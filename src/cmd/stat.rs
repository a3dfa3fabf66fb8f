//! `xs stat`: the storage-footprint audit, as an aligned table or as JSON (docs/STAT.md).

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use xs::db::bucket::CodecBytes;
use xs::db::config::human_bytes;
use xs::db::stat::{self, Footprint, RowCount, StatOptions};
use xs::io::timefmt::format_iso;
use xs::Database;

use super::series_args::SeriesArgs;
use super::{stat_many, Context, Output};
use crate::exit::{CliResult, Failure};

const EXAMPLES: &str = "Examples:
  xs stat                                   # every partition, then the total
  xs stat 2023 2024 --bytes                 # two partitions, exact byte counts
  xs stat --json | jq '.total.physical_bytes'
  xs stat --fast --json                     # sizes and extents only: reads no row data
  xs stat ticks/btc ticks/eth               # several databases: a line each, and the totals
  xs stat --recursive /data/xs --fast       # every database under a directory";

/// Audit the storage footprint: sizes, rows, fill, extents, data segments and fragmentation.
///
/// Logical size is the file length, holes included; physical size is what is allocated on
/// the device (st_blocks × 512). Fill is row bytes / physical bytes. Extents come from the
/// FIEMAP ioctl, data segments from SEEK_DATA/SEEK_HOLE; extents beyond one per data segment
/// are counted as fragmented (`xs defrag` rewrites them). Rows are counted by
/// reading the data segments only, never the holes; --fast skips that.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Partitions to show, as named in the table (2024, 2024-03 or 2024.xs; AAPL/2024 in a
    /// series database); default: all.
    /// Or database directories (holding xs.toml) to audit together: a line each, and totals.
    #[arg(value_name = "PARTITION|DB")]
    pub partitions: Vec<String>,

    /// Audit every database found under the directories given (default: the current one):
    /// a line each, and totals. Symbolic links are not followed.
    #[arg(short = 'r', long)]
    pub recursive: bool,

    /// Print JSON (schema in docs/STAT.md) instead of a table.
    #[arg(long)]
    pub json: bool,

    /// Print sizes as exact byte counts instead of KiB/MiB/GiB.
    #[arg(long)]
    pub bytes: bool,

    /// Grid layout: skip counting rows (no row data is read; rows, row bytes, fill, first and
    /// last are omitted). Bucket layout: no effect, its rows are counted from the bucket
    /// directory, which stat reads anyway (never the data file).
    #[arg(long)]
    pub fast: bool,

    #[command(flatten)]
    pub series: SeriesArgs,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let named_dbs = args
        .partitions
        .iter()
        .filter(|p| stat_many::is_database(Path::new(p)))
        .count();
    if args.recursive || named_dbs > 0 {
        if !args.series.series.is_empty() {
            return Err(Failure::usage(
                "--series reads one database; audit several without it, or pass one database with -d",
            ));
        }
        let dirs = if args.recursive {
            let roots: Vec<PathBuf> = match (&args.partitions[..], &ctx.db) {
                ([], Some(db)) => vec![db.clone()],
                ([], None) => vec![PathBuf::from(".")],
                (roots, _) => roots.iter().map(PathBuf::from).collect(),
            };
            let mut dirs = Vec::new();
            for root in &roots {
                if !root.is_dir() {
                    return Err(Failure::usage(format!(
                        "--recursive: {} is not a directory",
                        root.display()
                    )));
                }
                dirs.extend(stat_many::find_databases(root)?);
            }
            dirs
        } else if named_dbs == args.partitions.len() {
            args.partitions.iter().map(PathBuf::from).collect()
        } else {
            let strays: Vec<&str> = args
                .partitions
                .iter()
                .filter(|p| !stat_many::is_database(Path::new(p)))
                .map(String::as_str)
                .collect();
            return Err(Failure::usage(format!(
                "{} named with databases, but not a database directory (no xs.toml in it): to \
                 audit several databases name only databases; to show partitions, name one \
                 database with -d",
                strays.join(", ")
            )));
        };
        return stat_many::run(&dirs, args.json, args.bytes, !args.fast);
    }
    let mut db = ctx.open_read()?;
    args.series.apply(&mut db)?;
    let partitions = stat::select_series_partitions(&mut db, &args.partitions)?;
    let keys = stat::select_partitions(&db, &partitions)?;
    let report = stat::stat(
        &db,
        &keys,
        StatOptions {
            count_rows: !args.fast,
        },
    )?;
    let mut out = Output::new();
    if args.json {
        let text = serde_json::to_string_pretty(&to_json(&db, &report)).unwrap_or_default();
        out.buf.extend_from_slice(text.as_bytes());
        out.buf.push(b'\n');
    } else {
        out.buf
            .extend_from_slice(table(&db, &report, args.bytes).as_bytes());
    }
    out.flush()
}

/// Digits of second fractions for timestamps of this database.
fn time_digits(db: &Database) -> u32 {
    db.config().granularity.fraction_digits()
}

fn figures_json(
    db: &Database,
    footprint: &Footprint,
    rows: Option<&RowCount>,
) -> serde_json::Map<String, Value> {
    let digits = time_digits(db);
    let time = |t: Option<i64>| t.map(|t| format_iso(t, digits));
    let mut m = serde_json::Map::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    put("logical_bytes", json!(footprint.logical_bytes));
    put("physical_bytes", json!(footprint.physical_bytes));
    put("data_bytes", json!(footprint.data_bytes));
    put("data_segments", json!(footprint.data_segments));
    put("extents", json!(footprint.extents));
    put("fragmented_extents", json!(footprint.fragmented_extents()));
    put(
        "fragmentation_pct",
        json!(footprint.fragmentation_pct().map(round2)),
    );
    put("mean_extent_bytes", json!(footprint.mean_extent_bytes()));
    put("rows", json!(rows.map(|r| r.rows)));
    put("row_bytes", json!(rows.map(|r| r.row_bytes)));
    put("fill", json!(stat::fill(rows, footprint).map(round6)));
    put("first_time", json!(time(rows.and_then(|r| r.first_ns))));
    put("last_time", json!(time(rows.and_then(|r| r.last_ns))));
    put("first_ns", json!(rows.and_then(|r| r.first_ns)));
    put("last_ns", json!(rows.and_then(|r| r.last_ns)));
    m
}

/// A columnar partition's (or the total's) records and bytes per stream.
fn codec_json(db: &Database, c: &CodecBytes) -> Value {
    let streams: Vec<Value> = stream_names(db)
        .into_iter()
        .zip(&c.stored)
        .zip(&c.plain)
        .map(|((name, stored), decoded)| json!({"name": name, "stored_bytes": stored, "decoded_bytes": decoded}))
        .collect();
    json!({
        "columnar_records": c.columnar_records,
        "raw_records": c.raw_records,
        "stored_bytes": c.stored.iter().sum::<u64>(),
        "decoded_bytes": c.plain.iter().sum::<u64>(),
        "streams": streams,
    })
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn to_json(db: &Database, report: &stat::DatabaseStat) -> Value {
    let partitions: Vec<Value> = report
        .partitions
        .iter()
        .map(|p| {
            let mut m = serde_json::Map::new();
            m.insert("partition".into(), json!(p.key.to_string()));
            if let Some(series) = series_of(report, p) {
                m.insert("series".into(), json!(series));
            }
            m.insert("file".into(), json!(p.key.file_name()));
            m.extend(figures_json(db, &p.footprint, p.rows.as_ref()));
            if let Some(b) = &p.bucket {
                m.insert(
                    "bucket".into(),
                    json!({
                        "buckets": b.buckets,
                        "live_bytes": b.live_bytes,
                        "garbage_bytes": b.garbage_bytes,
                        "out_of_order_buckets": b.out_of_order,
                    }),
                );
                if let Some(c) = &b.codec {
                    m.insert("columnar".into(), codec_json(db, c));
                }
            }
            Value::Object(m)
        })
        .collect();
    let mut total = serde_json::Map::new();
    total.insert("partitions".into(), json!(report.partitions.len()));
    if db.is_series_root() {
        total.insert("series".into(), json!(report.series));
    }
    total.extend(figures_json(db, &report.total, report.total_rows.as_ref()));
    if let Some(c) = codec_bytes(report) {
        total.insert("columnar".into(), codec_json(db, &c));
    }
    let leftovers: Vec<Value> = report
        .defrag_leftovers
        .iter()
        .map(|(path, physical)| {
            json!({
                "file": path.file_name().map(|n| n.to_string_lossy().into_owned()),
                "physical_bytes": physical,
            })
        })
        .collect();
    let config = db.config();
    json!({
        "xs_stat_version": 1,
        "database": db.dir().display().to_string(),
        "granularity": config.granularity.to_string(),
        "partition_period": config.period.name(),
        "row_len_bytes": config.schema.row_len(),
        "depth": config.depth,
        "layout": config.layout.name(),
        "codec": config.codec.name(),
        "bucket": (config.layout == xs::db::config::Layout::Bucket)
            .then(|| xs::db::time::format_duration(config.bucket_ns)),
        "rows_counted": report.total_rows.is_some(),
        "fiemap_supported": report.fiemap_supported,
        "unfinished_import": report.unfinished_import,
        "unfinished_deletes": report.unfinished_deletes,
        "defrag_leftovers": leftovers,
        "partitions": partitions,
        "total": Value::Object(total),
    })
}

const HEADINGS: [&str; 11] = [
    "partition",
    "logical",
    "physical",
    "rows",
    "row bytes",
    "fill",
    "extents",
    "segments",
    "fragmented",
    "first",
    "last",
];

/// A partition's name in the report: with series, the series' directory name before it.
fn partition_label(report: &stat::DatabaseStat, p: &stat::PartitionStat) -> String {
    match series_of(report, p) {
        Some(series) => format!("{series}/{}", p.key),
        None => p.key.to_string(),
    }
}

/// The series (directory name) a partition belongs to, in a series database.
fn series_of(report: &stat::DatabaseStat, p: &stat::PartitionStat) -> Option<String> {
    (report.series > 0).then(|| {
        p.path
            .parent()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    })
}

fn table(db: &Database, report: &stat::DatabaseStat, exact: bool) -> String {
    let size = |n: u64| if exact { n.to_string() } else { human_bytes(n) };
    let digits = time_digits(db);
    let dash = || "-".to_string();
    let row = |name: String, f: &Footprint, rows: Option<&RowCount>| -> Vec<String> {
        let time = |t: Option<i64>| t.map(|t| format_iso(t, digits)).unwrap_or_else(dash);
        vec![
            name,
            size(f.logical_bytes),
            size(f.physical_bytes),
            rows.map(|r| r.rows.to_string()).unwrap_or_else(dash),
            rows.map(|r| size(r.row_bytes)).unwrap_or_else(dash),
            stat::fill(rows, f)
                .map(|x| format!("{:.1}%", x * 100.0))
                .unwrap_or_else(dash),
            f.extents.map(|e| e.to_string()).unwrap_or_else(dash),
            f.data_segments.to_string(),
            match (f.fragmented_extents(), f.fragmentation_pct()) {
                (Some(n), Some(pct)) => format!("{n} ({pct:.1}%)"),
                _ => dash(),
            },
            time(rows.and_then(|r| r.first_ns)),
            time(rows.and_then(|r| r.last_ns)),
        ]
    };
    let mut cells: Vec<Vec<String>> = vec![HEADINGS.iter().map(|h| h.to_string()).collect()];
    for p in &report.partitions {
        cells.push(row(partition_label(report, p), &p.footprint, p.rows.as_ref()));
    }
    cells.push(row("total".into(), &report.total, report.total_rows.as_ref()));
    // Names and timestamps read left to right; numbers align on the right.
    let mut text = aligned(&cells, |i| i == 0 || i >= 9);
    if report.partitions.is_empty() {
        text.push_str("no partitions yet: the database holds no rows\n");
    }
    if db.is_series_root() {
        text.push_str(&format!(
            "series: {} (key {}); partitions are named SERIES/PARTITION\n",
            report.series,
            db.config().keys.series.join(",")
        ));
    }
    for p in &report.partitions {
        if let Some(b) = &p.bucket {
            text.push_str(&format!(
                "{}: {} buckets, {} live, {} garbage, {} out of time order{}\n",
                partition_label(report, p),
                b.buckets,
                size(b.live_bytes),
                size(b.garbage_bytes),
                b.out_of_order,
                if b.garbage_bytes > 0 || b.out_of_order > 0 {
                    "; `xs defrag` rewrites the data in time order without garbage"
                } else {
                    ""
                }
            ));
        }
    }
    if let Some(c) = codec_bytes(report) {
        text.push_str(&codec_table(db, &c, &size));
    }
    if !report.fiemap_supported && !report.partitions.is_empty() {
        text.push_str(
            "extents: not reported: this file system does not support FIEMAP (tmpfs, some network \
             file systems); fragmentation is unknown\n",
        );
    }
    if report.total_rows.is_none() {
        text.push_str("rows: not counted (--fast)\n");
    }
    for (path, physical) in &report.defrag_leftovers {
        text.push_str(&format!(
            "leftover of an interrupted defrag: {} ({}); the next `xs defrag` removes it\n",
            path.display(),
            size(*physical)
        ));
    }
    if let Some(rerun) = &report.unfinished_import {
        text.push_str(&format!(
            "unfinished import: the data may be partial; complete it by running again: {rerun}\n"
        ));
    }
    for rerun in &report.unfinished_deletes {
        text.push_str(&format!(
            "unfinished delete: its window may be partly deleted; complete it by running again: {rerun}\n"
        ));
    }
    text
}

/// The columnar partitions' bytes per stream, summed (`None` when no partition is columnar).
fn codec_bytes(report: &stat::DatabaseStat) -> Option<CodecBytes> {
    let mut all: Option<CodecBytes> = None;
    for c in report
        .partitions
        .iter()
        .filter_map(|p| p.bucket.as_ref()?.codec.as_ref())
    {
        all.get_or_insert_with(CodecBytes::default).add(c);
    }
    all
}

/// The names of a columnar record's streams: the time offsets, the row flags, each column.
fn stream_names(db: &Database) -> Vec<String> {
    let config = db.config();
    [config.time_column.clone(), "(row flags)".to_string()]
        .into_iter()
        .chain(config.schema.columns().iter().map(|c| c.name.clone()))
        .collect()
}

/// Stored against decoded bytes, column by column, under a line of totals.
fn codec_table(db: &Database, c: &CodecBytes, size: &dyn Fn(u64) -> String) -> String {
    let ratio = |stored: u64, plain: u64| match plain {
        0 => "-".to_string(),
        _ => format!("{:.3}", stored as f64 / plain as f64),
    };
    let (stored, plain): (u64, u64) = (c.stored.iter().sum(), c.plain.iter().sum());
    let mut text = format!(
        "columnar records: {} ({} kept raw, smaller so); {} stored for {} decoded ({})\n",
        c.columnar_records + c.raw_records,
        c.raw_records,
        size(stored),
        size(plain),
        ratio(stored, plain)
    );
    let mut cells = vec![vec![
        "column".to_string(),
        "stored".to_string(),
        "decoded".to_string(),
        "ratio".to_string(),
    ]];
    for ((name, &s), &p) in stream_names(db).into_iter().zip(&c.stored).zip(&c.plain) {
        cells.push(vec![name, size(s), size(p), ratio(s, p)]);
    }
    text.push_str(&aligned(&cells, |i| i == 0));
    text
}

/// `cells` as a table: each column as wide as its widest cell, two spaces apart, left-aligned
/// where `left(column)` says, else right-aligned; no trailing blanks.
pub fn aligned(cells: &[Vec<String>], left: impl Fn(usize) -> bool) -> String {
    let mut widths: Vec<usize> = Vec::new();
    for line in cells {
        widths.resize(widths.len().max(line.len()), 0);
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for line in cells {
        let parts: Vec<String> = line
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, &w))| {
                if left(i) {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        text.push_str(parts.join("  ").trim_end());
        text.push('\n');
    }
    text
}
