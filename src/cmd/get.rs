//! `xs get`: the rows at given timestamps, as CSV, TSV or NDJSON.

use std::io::BufRead;

use xs::io::output::Format;

use super::output_args::FormatArgs;
use super::{parse_time, Context, Output};
use crate::exit::{CliResult, Failure, NOT_FOUND};

const EXAMPLES: &str = "Examples:
  xs get 2024-08-08T23:54:15.342Z
  xs get -f ndjson 1723161255342ms 1723161255619ms
  cut -d, -f1 times.csv | xs get -       # batch: one timestamp a line on stdin
  xs get --asof --within 1h 2024-08-08T14:03:07Z   # the last trade at or before 14:03:07";

/// Print the rows stored at each TIME, in time order (CSV with a header by default).
///
/// With --asof, print instead the rows of the latest timestamp at or before each TIME (all rows
/// stored at that timestamp), searching back over holes and partitions, at most --within.
///
/// Exit status 1 when no row was found at any TIME.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Timestamps (ISO-8601 or epoch with a unit), or `-` to read one a line from stdin.
    /// Negative epochs go after `--`: xs get -- -5ms
    #[arg(required = true)]
    pub times: Vec<String>,

    /// Stop after N rows.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,

    /// For each TIME, the rows of the latest timestamp at or before it (an as-of lookup).
    #[arg(long)]
    pub asof: bool,

    /// With --asof: look back at most DUR before each TIME (default: to the first partition).
    #[arg(long, value_name = "DUR", requires = "asof", value_parser = parse_within)]
    pub within: Option<i64>,

    #[command(flatten)]
    pub output: FormatArgs,
}

fn parse_within(text: &str) -> Result<i64, String> {
    xs::db::time::parse_duration(text)
        .ok_or_else(|| format!("bad duration `{text}`: use a number and a unit, e.g. 500ms, 1m, 1h, 7d"))
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let db = ctx.open_read()?;
    let formatter = args.output.formatter(db.config(), Format::Csv)?;
    let mut times = if args.times == ["-"] {
        read_times_from_stdin()?
    } else {
        parse_times(&args.times)?
    };
    if args.asof {
        times = asof_times(&db, &times, args.within)?;
    }
    // Sorting groups the reads by partition and walks each file forward.
    times.sort_unstable();
    times.dedup();
    let mut out = Output::new();
    formatter.header(&mut out.buf);
    let mut left = args.limit.unwrap_or(u64::MAX);
    let mut found = 0usize;
    'times: for t in times {
        for row in db.get(t)? {
            if left == 0 {
                break 'times;
            }
            formatter.row(&mut out.buf, t, &row);
            found += 1;
            left -= 1;
        }
        out.maybe_flush()?;
    }
    out.flush()?;
    if found == 0 {
        return Err(Failure::quiet(NOT_FOUND));
    }
    Ok(())
}

/// The latest stored timestamp at or before each time (within `within_ns`), where there is one.
fn asof_times(db: &xs::Database, times: &[i64], within_ns: Option<i64>) -> CliResult<Vec<i64>> {
    let mut found = Vec::with_capacity(times.len());
    let asof = xs::query::asof::AsOf::new(db)?;
    for &t in times {
        let not_before = within_ns.map_or(i64::MIN, |w| t.saturating_sub(w));
        if let Some(hit) = asof.latest(t, not_before)? {
            found.push(hit);
        }
    }
    Ok(found)
}

fn parse_times(texts: &[String]) -> CliResult<Vec<i64>> {
    texts
        .iter()
        .map(|t| parse_time(t).map_err(Failure::usage))
        .collect()
}

fn read_times_from_stdin() -> CliResult<Vec<i64>> {
    let mut times = Vec::new();
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.map_err(|e| Failure::usage(format!("cannot read stdin: {e}")))?;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        times.push(parse_time(text).map_err(|e| Failure::usage(format!("stdin line {}: {e}", i + 1)))?);
    }
    Ok(times)
}
