//! `xs create`: a new, empty database directory.

use std::path::PathBuf;

use xs::db::config::{
    choose_period, human_bytes, Config, Layout, RecordCodec, MAX_DEPTH, MAX_PARTITION_BYTES,
};
use xs::db::schema::Schema;
use xs::db::time::{parse_duration, Granularity, Period, Zone};
use xs::Database;

use super::Context;
use crate::exit::{CliResult, Failure};

const EXAMPLES: &str = "Examples:
  xs create trades --granularity 1ms --columns 'price:f64,qty:f64,side:str(4),trade_id:u64' --depth 8
  xs create sensors --granularity 1s --columns 'temp:f32,humidity:f32,status:u8'
  xs create quotes --granularity 1us --columns 'bid:f64,ask:f64' --partition day
  xs create ticks --layout bucket --bucket 1s --granularity 1ms --columns 'price:f64,qty:f64,side:str(4)'
  xs create archive --layout bucket --bucket 1m --codec columnar --granularity 1ms --columns 'price:dec(2),qty:dec(6)'
  xs create trades --layout bucket --granularity 1ms --columns 'symbol:sym,price:f64,qty:f64,trade_id:u64' \\
      --series-by symbol --unique-by trade_id
  xs create nyse --layout bucket --granularity 1ms --columns 'price:dec(2),qty:u32' --timezone America/New_York";

/// Create an empty database directory.
///
/// Types: i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 bool str(N) (UTF-8, at most N bytes) dec(S)
/// (an exact decimal with S digits after the point, 0..18) sym (repeated text of any length,
/// kept once in the database's dictionary).
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Directory to create (default: the global --db).
    #[arg(value_name = "DB")]
    pub dir: Option<PathBuf>,

    /// Time step between slots; must divide one day: 1ns 1us 1ms 10ms 1s 1m 1h 1d …
    #[arg(short, long, value_name = "DUR")]
    pub granularity: String,

    /// Columns as name:type, comma-separated, e.g. 'price:f64,qty:f64,side:str(4)'.
    #[arg(short, long, value_name = "SPEC")]
    pub columns: String,

    /// Rows one timestamp can hold (e.g. several trades in one millisecond).
    #[arg(long, default_value_t = 1, value_name = "K")]
    pub depth: u32,

    /// Time covered by one file; default: year, or month/day when a year file would be too large.
    #[arg(long, value_name = "year|month|day", value_parser = ["year", "month", "day"])]
    pub partition: Option<String>,

    /// Name of the time column in input and output headers.
    #[arg(long, default_value = "time", value_name = "NAME")]
    pub time_column: String,

    /// Storage layout: grid (a slot per granularity step; regular series) or bucket (rows
    /// with exact times in fixed time buckets; bursty ticks, any number of rows per time).
    #[arg(
        long,
        env = "XS_LAYOUT",
        default_value = "grid",
        value_name = "grid|bucket",
        value_parser = ["grid", "bucket"]
    )]
    pub layout: String,

    /// Bucket width for --layout bucket: a multiple of the granularity that divides one day.
    #[arg(long, value_name = "DUR")]
    pub bucket: Option<String>,

    /// How --layout bucket stores a bucket's rows: raw (as they are; the fastest reads) or
    /// columnar (each column compressed: a few bytes a row; use wide buckets, e.g. 1m).
    #[arg(long, default_value = "raw", value_name = "raw|columnar", value_parser = ["raw", "columnar"])]
    pub codec: String,

    /// Columns whose values tell series apart (symbol, host): each series is stored on its
    /// own, rows are identified by (series, time), and reads take --series.
    #[arg(long, value_name = "COLS")]
    pub series_by: Option<String>,

    /// Columns that identify a row among one series' rows at one time (trade_id): an imported
    /// row with a stored key replaces it, a new key is added.
    #[arg(long, value_name = "COLS")]
    pub unique_by: Option<String>,

    /// Time zone that imports read times written without one in: an IANA name
    /// (`America/New_York`) or an offset (`-05:00`) (default: UTC). Recorded in the
    /// database, so every later import of such files places them alike; an import's own
    /// --timezone, or a header that states a zone, decides for that import.
    #[arg(long, value_name = "ZONE", allow_hyphen_values = true)]
    pub timezone: Option<String>,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let dir = match args.dir.clone().or_else(|| ctx.db.clone()) {
        Some(dir) => dir,
        None => {
            return Err(Failure::usage(
                "give the directory to create: xs create DB --granularity … --columns …",
            ))
        }
    };
    let config = config_from_args(&args)?;
    Database::create(&dir, &config)?;
    let partition_bytes = config.max_partition_bytes(config.period).unwrap_or(0);
    if config.layout == Layout::Bucket {
        eprintln!(
            "created {}: {} columns, rows of {} bytes, bucket layout with {} {} buckets, {} granularity, {} partitions (directory {} logical each, sparse; data append-only)",
            dir.display(),
            config.schema.columns().len(),
            config.schema.row_len(),
            xs::db::time::format_duration(config.bucket_ns),
            config.codec.name(),
            config.granularity,
            config.period,
            human_bytes(partition_bytes)
        );
        return Ok(());
    }
    eprintln!(
        "created {}: {} columns, rows of {} bytes, depth {}, {} granularity, {} partitions of {} logical each (sparse)",
        dir.display(),
        config.schema.columns().len(),
        config.schema.row_len(),
        config.depth,
        config.granularity,
        config.period,
        human_bytes(partition_bytes)
    );
    Ok(())
}

/// A `--timezone` value, or the usage error that says what one looks like.
pub fn parse_zone(text: &str) -> CliResult<Zone> {
    Zone::parse(text).ok_or_else(|| {
        Failure::usage(format!(
            "bad --timezone `{text}`: an IANA zone name such as America/New_York, or an offset such as -05:00"
        ))
    })
}

/// Validates the arguments into a config, choosing the partition period when not given.
pub fn config_from_args(args: &Args) -> CliResult<Config> {
    let granularity = parse_duration(&args.granularity).ok_or_else(|| {
        Failure::usage(format!(
            "bad granularity `{}`: write e.g. 1ms, 10ms, 1s, 1m",
            args.granularity
        ))
    })?;
    let granularity = Granularity::from_ns(granularity).ok_or_else(|| {
        Failure::usage(format!(
            "granularity {} does not divide one day evenly; pick one that does (1ms, 5s, 1m, 15m …)",
            args.granularity
        ))
    })?;
    let schema = Schema::parse_spec(&args.columns).map_err(|e| Failure::usage(format!("--columns: {e}")))?;
    if !(1..=MAX_DEPTH).contains(&args.depth) {
        return Err(Failure::usage(format!("--depth must be 1..={MAX_DEPTH}")));
    }
    if schema.column_index(&args.time_column).is_some() {
        return Err(Failure::usage(format!(
            "`{}` is the time column; do not list it in --columns",
            args.time_column
        )));
    }
    if !xs::db::schema::valid_column_name(&args.time_column) {
        return Err(Failure::usage(format!(
            "bad --time-column `{}`",
            args.time_column
        )));
    }
    let layout = match args.layout.as_str() {
        "grid" => Layout::Grid,
        "bucket" => Layout::Bucket,
        other => {
            return Err(Failure::usage(format!(
                "bad --layout `{other}`: grid (regular series) or bucket (ticks)"
            )))
        }
    };
    let bucket_ns = match (layout, &args.bucket) {
        (Layout::Grid, Some(_)) => return Err(Failure::usage("--bucket needs --layout bucket")),
        (Layout::Grid, None) => 0,
        (Layout::Bucket, text) => {
            // Default: 1 s, or one granularity step when that is coarser.
            let ns = match text {
                Some(text) => parse_duration(text).ok_or_else(|| {
                    Failure::usage(format!("bad --bucket `{text}`: write e.g. 100ms, 1s, 1m"))
                })?,
                None => granularity.ns().max(1_000_000_000),
            };
            xs::db::config::check_bucket_width(ns, granularity.ns())
                .map_err(|e| Failure::usage(format!("--bucket: {e}")))?;
            ns
        }
    };
    let codec = RecordCodec::parse(&args.codec)
        .ok_or_else(|| Failure::usage(format!("bad --codec `{}`: raw or columnar", args.codec)))?;
    codec
        .check_layout(layout)
        .map_err(|e| Failure::usage(format!("--codec: {e}; pass --layout bucket too")))?;
    let mut config = Config {
        layout,
        bucket_ns,
        granularity,
        period: Period::Year,
        depth: args.depth,
        time_column: args.time_column.clone(),
        schema,
        keys: xs::db::config::Keys {
            series: key_list(args.series_by.as_deref()),
            unique: key_list(args.unique_by.as_deref()),
        },
        codec,
        timezone: match &args.timezone {
            Some(text) => parse_zone(text)?,
            None => Zone::Utc,
        },
        date_order: None,
        decimal_comma: false,
    };
    config.check_keys().map_err(Failure::usage)?;
    let slab_len = config.slab_len();
    let wanted = match &args.partition {
        Some(name) => Some(
            Period::parse(name)
                .ok_or_else(|| Failure::usage(format!("bad --partition `{name}`: year, month or day")))?,
        ),
        None => None,
    };
    config.period = match layout {
        // Without a wish, the longest period whose partitions fit with their slot checks
        // (version 3); else one that fits without them (its partitions stay version 1).
        Layout::Grid => wanted
            .is_none()
            .then(|| choose_period(granularity, slab_len + xs::db::partition::SLOT_CHECK_LEN, None))
            .flatten()
            .or_else(|| choose_period(granularity, slab_len, wanted))
            .ok_or_else(|| Failure::usage(too_large(&config, wanted.unwrap_or(Period::Day))))?,
        Layout::Bucket => {
            // The directory holds one entry per bucket (32 + 16 per summarized column); the
            // data file only what is written.
            let period = wanted.unwrap_or(Period::Year);
            if config
                .max_partition_bytes(period)
                .is_none_or(|b| b > MAX_PARTITION_BYTES)
            {
                return Err(Failure::usage(format!(
                    "a {period} of {} buckets makes a directory file past the safe size of {}; use a wider --bucket",
                    xs::db::time::format_duration(bucket_ns),
                    human_bytes(MAX_PARTITION_BYTES)
                )));
            }
            period
        }
    };
    if wanted.is_none() && config.period != Period::Year {
        eprintln!(
            "xs: a year file would be {} logical, past the safe {}; using {} partitions",
            human_bytes(config.max_partition_bytes(Period::Year).unwrap_or(u64::MAX)),
            human_bytes(MAX_PARTITION_BYTES),
            config.period
        );
    }
    Ok(config)
}

/// The arithmetic of why a partition of `period` would be too large.
fn too_large(config: &Config, period: Period) -> String {
    let slots = period.max_len_ns() / config.granularity.ns();
    let total = i128::from(slots) * i128::from(config.slab_len());
    format!(
        "a {period} at {} granularity is {slots} slots × {} rows × {} bytes = {total} bytes, past the safe \
         file size of {MAX_PARTITION_BYTES} bytes ({}); use a coarser --granularity, a smaller --depth, \
         or a shorter --partition",
        config.granularity,
        config.depth,
        config.schema.row_len(),
        human_bytes(MAX_PARTITION_BYTES)
    )
}

/// A `--series-by`/`--unique-by` list; `none` (or empty) is no key.
pub fn key_list(text: Option<&str>) -> Vec<String> {
    match text.map(str::trim) {
        None | Some("") | Some("none") => Vec::new(),
        Some(list) => list
            .split(',')
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect(),
    }
}
