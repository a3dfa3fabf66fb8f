//! `xs range`: every row in a time window, in time order, as CSV, TSV or NDJSON; or, with
//! `--every`, one aggregated row per time bucket (bars, VWAP).

use xs::io::output::Format;
use xs::io::timefmt::format_iso_exact;
use xs::query::agg::{ohlcv, parse_aggs, write_buckets, write_buckets_of, Plan};
use xs::query::filter::Filter;

use super::output_args::{FormatArgs, OutputFileArgs, Source, To};
use super::series_args::SeriesArgs;
use super::{parse_time, Context, Output};
use crate::exit::{CliResult, Failure};

const EXAMPLES: &str = "Examples:
  xs range 2024-08-08 2024-08-09 > day.csv
  xs range 2024-08-08T23:55:00Z 2024-08-08T23:56:00Z --columns time,price | head
  xs range 2024-08-08 2024-08-09 --every 1m --agg 'count,sum(qty),vwap(price,qty)'
  xs range 2024-08-01 2024-09-01 --every 1h --ohlcv price,qty --where side=buy -f ndjson
  xs range 2024-08-08 2024-08-09 --where 'price > 62000' --where \"side in ('sell', 'SELL')\"
  xs range 2024-08-08 2024-08-09 --series BTCUSDT,ETHUSDT --every 1m --ohlcv price,qty";

/// Print every row with FROM <= time < TO, in time order (CSV with a header by default); with
/// --agg or --ohlcv, one row of aggregates per --every bucket (or for the whole window).
///
/// Only the data is read: holes in the sparse files are skipped, never read. Big ranges are
/// formatted (or aggregated) in parallel and written in order. Aggregate output columns are
/// named like count, first_price, vwap_price_qty; nulls are skipped, NaN propagates (see
/// docs/QUERIES.md).
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Start, inclusive (ISO-8601 or epoch with a unit).
    #[arg(value_parser = parse_time, allow_hyphen_values = true)]
    pub from: i64,

    /// End, exclusive.
    #[arg(value_parser = parse_time, allow_hyphen_values = true)]
    pub to: i64,

    /// Stop after N rows (N buckets with --every).
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,

    /// Aggregate into buckets of DUR (1s, 1m, 5m, 1h, 1d; a multiple of the granularity),
    /// aligned on the epoch; each row's time is its bucket's start. Needs --agg or --ohlcv.
    #[arg(long, value_name = "DUR", value_parser = parse_every)]
    pub every: Option<i64>,

    /// Aggregates per bucket (without --every: one row for the whole window, timed FROM):
    /// count, first(c), last(c), min(c), max(c), sum(c), mean(c), stddev(c), vwap(price,qty).
    #[arg(long, value_name = "SPEC", conflicts_with = "ohlcv")]
    pub agg: Option<String>,

    /// Bars per bucket from a price and a quantity column: open,high,low,close,volume,count.
    #[arg(long, value_name = "PRICE,QTY")]
    pub ohlcv: Option<String>,

    /// With --every: also print buckets without rows (count 0, other aggregates empty).
    #[arg(long, requires = "every")]
    pub fill: bool,

    /// Only rows that meet CONDITION: COL OP VALUE with OP one of = != < <= > >=, or
    /// COL in (A,B); repeat --where or join with `and` for several, all of which must hold.
    /// Quote text with spaces or commas ('a b'); COL= matches nulls, which no comparison does.
    #[arg(long = "where", value_name = "CONDITION")]
    pub filter: Vec<String>,

    #[command(flatten)]
    pub series: SeriesArgs,

    /// With --agg or --ohlcv in a series database: fold every series together instead of one
    /// output row per series and bucket.
    #[arg(long)]
    pub all_series: bool,

    #[command(flatten)]
    pub output: FormatArgs,

    #[command(flatten)]
    pub file: OutputFileArgs,
}

fn parse_every(text: &str) -> Result<i64, String> {
    xs::db::time::parse_duration(text)
        .filter(|&ns| ns > 0)
        .ok_or_else(|| format!("bad duration `{text}`: use a number and a unit, e.g. 1s, 1m, 5m, 1h, 1d"))
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    if args.from > args.to {
        return Err(Failure::usage(format!(
            "FROM ({}) is after TO ({}); give the window as FROM TO",
            format_iso_exact(args.from),
            format_iso_exact(args.to)
        )));
    }
    let mut db = ctx.open_read()?;
    args.series.apply(&mut db)?;
    let filter = Filter::parse(db.config(), &args.filter).map_err(Failure::usage)?;
    let limit = args.limit.unwrap_or(u64::MAX);
    if args.every.is_some() || args.agg.is_some() || args.ohlcv.is_some() {
        let aggs = match (&args.agg, &args.ohlcv) {
            (Some(spec), _) => parse_aggs(db.schema(), spec),
            (None, Some(cols)) => match cols.split_once(',') {
                Some((price, qty)) => {
                    ohlcv(db.schema(), price.trim(), qty.trim()).map_err(|e| e.replace("--agg", "--ohlcv"))
                }
                None => Err(format!(
                    "--ohlcv `{cols}`: name a price and a quantity column, e.g. --ohlcv price,qty"
                )),
            },
            (None, None) => {
                Err("--every needs aggregates: add --agg 'count,sum(qty)' or --ohlcv price,qty".to_string())
            }
        }
        .map_err(Failure::usage)?;
        if args.file.output.is_some() {
            return Err(Failure::usage(
                "-o goes with rows; aggregates print to stdout: redirect them (> bars.csv)",
            ));
        }
        let mut plan = Plan::new(db.config(), aggs, args.every, filter).map_err(Failure::usage)?;
        let per_series = db.is_series_root() && !args.all_series;
        if per_series {
            plan = plan
                .per_series(db.schema(), &db.config().series_columns())
                .map_err(Failure::usage)?;
        }
        if let Some(columns) = &args.output.columns {
            let mut names = vec![db.config().time_column.as_str()];
            names.extend(plan.column_names());
            if let Some(bad) = columns.iter().find(|c| !names.contains(&c.as_str())) {
                return Err(Failure::usage(format!(
                    "--columns: `{bad}` is not an output column of this aggregation; it has {}",
                    names.join(",")
                )));
            }
        }
        let formatter = args.output.formatter(plan.output_config(), Format::Csv)?;
        let mut out = Output::new();
        formatter.header(&mut out.buf);
        if !per_series {
            write_buckets(
                &db,
                &plan,
                args.from,
                args.to,
                args.fill,
                &formatter,
                limit,
                &mut |bytes: &[u8]| out.write_block(bytes),
            )?;
            return out.flush();
        }
        // GROUP BY series, bucket: each series' buckets in turn, in series order.
        let columns = db.config().series_columns();
        let mut left = limit;
        for (name, series) in db.selected_series()? {
            if left == 0 {
                break;
            }
            let values = xs::db::series::values_of(db.schema(), &columns, &name).unwrap_or_default();
            let group: Vec<Option<String>> = values.iter().map(xs::db::series::value_text).collect();
            left -= write_buckets_of(
                &series,
                &plan,
                &group,
                args.from,
                args.to,
                args.fill,
                &formatter,
                left,
                &mut |bytes: &[u8]| out.write_block(bytes),
            )?;
        }
        return out.flush();
    }
    let output = args.file.output.as_deref();
    let to = output.map_or(To::Stdout, To::File);
    let writer = args.output.writer(db.config(), to, None, 6, 3)?;
    let source = Source::Range {
        db: &db,
        from_ns: args.from,
        to_ns: args.to,
        filter: filter.as_ref(),
        limit,
    };
    writer.write(db.config(), source, output)?;
    Ok(())
}
