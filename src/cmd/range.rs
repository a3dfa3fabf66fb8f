//! `xs range`: every row in a time window, in time order, as CSV, TSV or NDJSON; or, with
//! `--every`, one aggregated row per time bucket (bars, VWAP).

use xs::db::time::{END_TIME_NS, MIN_TIME_NS};
use xs::io::output::Format;
use xs::io::timefmt::format_iso_exact;
use xs::query::agg::{ohlcv, parse_aggs, write_buckets, Plan};
use xs::query::filter::Filter;

use super::output_args::{FormatArgs, OutputFileArgs, Source, To};
use super::series_args::SeriesArgs;
use super::{parse_time, place, Context, Output};
use crate::exit::{CliResult, Failure};
use xs::io::timefmt::TimeArg;

const EXAMPLES: &str = "Examples:
  xs range 2024-08-08 2024-08-09 > day.csv
  xs range 2024-08-08                       # from then to the last row
  xs range ..2024-08-08                     # from the first row to then
  xs range --last 15m --agg count           # the 15 minutes before now, and anything later
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
    /// Start, inclusive (ISO-8601, without a zone in the database's time zone; epoch with a
    /// unit; or `now`); `FROM..TO` and `..TO` give the whole window in one word, `..TO` from the
    /// first row.
    #[arg(value_parser = parse_window, allow_hyphen_values = true)]
    pub from: Option<Window>,

    /// End, exclusive; default: after the last row.
    #[arg(value_parser = parse_time, allow_hyphen_values = true)]
    pub to: Option<TimeArg>,

    /// The window from DUR before now (15m, 1h, 1d) onwards, instead of FROM and TO.
    #[arg(long, value_name = "DUR", value_parser = parse_every, conflicts_with_all = ["from", "to"])]
    pub last: Option<i64>,

    /// Stop after N rows (N buckets with --every).
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,

    /// Aggregate into buckets of DUR (1s, 1m, 5m, 1h, 1d, 1w; a multiple of the granularity),
    /// aligned on the epoch (weeks on Mondays), or of calendar months (1M, 3M, 12M; UTC); each
    /// row's time is its bucket's start. Needs --agg or --ohlcv.
    #[arg(long, value_name = "DUR", value_parser = parse_bucket)]
    pub every: Option<Every>,

    /// Aggregates per bucket (without --every: one row for the whole window, timed FROM):
    /// count, first(c), last(c), min(c), max(c), sum(c), mean(c), stddev(c), vwap(price,qty),
    /// median(c), quantile(c,q) (0 ≤ q ≤ 1, interpolated; these two read every row).
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

/// FROM as given: a time, or a window `A..B`, `..B` or `A..` (an open end is `None`).
#[derive(Clone, Copy, Debug)]
pub struct Window {
    from: Option<TimeArg>,
    to: Option<TimeArg>,
}

fn parse_window(text: &str) -> Result<Window, String> {
    let bound = |t: &str| (!t.is_empty()).then(|| parse_time(t)).transpose();
    match text.split_once("..") {
        Some((from, to)) => Ok(Window {
            from: bound(from)?,
            to: bound(to)?,
        }),
        None => Ok(Window {
            from: Some(parse_time(text)?),
            to: None,
        }),
    }
}

/// The window to read: FROM and TO, a `..` window, or `--last`; an open start is the start of
/// the first partition (so a whole-window aggregate is timed by something stored), an open end
/// the end of the last.
fn window(args: &Args, db: &xs::Database) -> CliResult<(i64, i64)> {
    let (from, to) = match (args.last, args.from, args.to) {
        (Some(last), _, _) => {
            let now = parse_time("now").map_err(Failure::usage)?.utc();
            (Some(now.saturating_sub(last)), None)
        }
        (None, Some(w), Some(_)) if w.to.is_some() => {
            return Err(Failure::usage(
                "the window is given twice: FROM..TO and TO; give one of them",
            ))
        }
        (None, Some(w), to) => {
            let at = |t: Option<TimeArg>| t.map(|t| place(db, t)).transpose();
            (at(w.from)?, at(w.to.or(to))?)
        }
        (None, None, _) => {
            return Err(Failure::usage(
                "give the window: FROM [TO] (`..` for every row, `2024-08-08..` from a time on), \
                 or --last DUR",
            ))
        }
    };
    if let (Some(from), Some(to)) = (from, to) {
        return Ok((from, to));
    }
    // Only an open end lists the partitions (of the selected series: a closed window of one
    // series must not open the others).
    let keys = db.partition_keys()?;
    let from = from.unwrap_or_else(|| keys.first().map_or(MIN_TIME_NS, |k| k.start_ns()));
    // No row lies past the last partition (and `--fill` stops there).
    let to = to.unwrap_or_else(|| keys.last().map_or(END_TIME_NS, |k| k.end_ns()).max(from));
    Ok((from, to))
}

/// `--every`: a fixed width, or calendar months (`1M`, `3M`, `12M`).
#[derive(Clone, Copy, Debug)]
pub enum Every {
    Fixed(i64),
    Months(u32),
}

fn parse_bucket(text: &str) -> Result<Every, String> {
    match text.trim().strip_suffix('M') {
        Some(n) => n
            .parse::<u32>()
            .ok()
            .filter(|&n| n > 0)
            .map(Every::Months)
            .ok_or_else(|| format!("bad --every `{text}`: calendar months are 1M, 3M, 12M…")),
        None => parse_every(text).map(Every::Fixed),
    }
}

fn parse_every(text: &str) -> Result<i64, String> {
    xs::db::time::parse_duration(text)
        .filter(|&ns| ns > 0)
        .ok_or_else(|| {
            xs::db::time::duration_refusal(text).unwrap_or_else(|| {
                format!("bad duration `{text}`: use a number and a unit, e.g. 1s, 1m, 5m, 1h, 1d")
            })
        })
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let mut db = ctx.open_read()?;
    // The series first: an open window ends with the selected series' data.
    args.series.apply(&mut db)?;
    let (from, to) = window(&args, &db)?;
    if from > to {
        return Err(Failure::usage(format!(
            "FROM ({}) is after TO ({}); give the window as FROM TO",
            format_iso_exact(from),
            format_iso_exact(to)
        )));
    }
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
        let mut plan = match args.every {
            None => Plan::new(db.config(), aggs, None, filter),
            Some(Every::Fixed(ns)) => Plan::new(db.config(), aggs, Some(ns), filter),
            Some(Every::Months(n)) => {
                // A day is a multiple of every granularity: the width check passes.
                Plan::new(db.config(), aggs, Some(86_400_000_000_000), filter)
                    .and_then(|plan| plan.calendar_months(n))
            }
        }
        .map_err(Failure::usage)?;
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
        // Per series (GROUP BY series, bucket), the plan writes each series' buckets in turn.
        write_buckets(
            &db,
            &plan,
            from,
            to,
            args.fill,
            &formatter,
            limit,
            &mut |bytes: &[u8]| out.write_block(bytes),
        )?;
        return out.flush();
    }
    let output = args.file.output.as_deref();
    let to_file = output.map_or(To::Stdout, To::File);
    let writer = args.output.writer(db.config(), to_file, None, 6, 3)?;
    let source = Source::Range {
        db: &db,
        from_ns: from,
        to_ns: to,
        filter: filter.as_ref(),
        limit,
    };
    writer.write(db.config(), source, output)?;
    Ok(())
}
