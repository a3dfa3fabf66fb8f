//! `xs get`: the rows at given timestamps, as CSV, TSV or NDJSON.

use std::io::BufRead;

use rayon::prelude::*;

use xs::io::output::Format;
use xs::query::filter::Filter;

use super::output_args::{FormatArgs, OutputFileArgs, Source, To};
use super::series_args::SeriesArgs;
use super::{parse_time, place, Context};
use crate::exit::{CliResult, Failure, NOT_FOUND};

const EXAMPLES: &str = "Examples:
  xs get 2024-08-08T23:54:15.342Z
  xs get -f ndjson 1723161255342ms 1723161255619ms
  cut -d, -f1 times.csv | xs get -       # batch: one timestamp a line on stdin
  xs get --asof --within 1h 2024-08-08T14:03:07Z   # the last trade at or before 14:03:07
  xs get --asof --where side=sell 2024-08-08T14:03:07Z   # the last sell at or before it
  xs get --asof --series ETHUSDT 2024-08-08T14:03:07Z   # per series, in a series database
  xs -d quotes get --asof --join trades.csv --within 1s   # as-of join: each trade with the quote before it
  printf '2024-08-08T14:03:07Z\n2024-08-08T14:03:08Z\n' | xs get --asof -   # one output row per line";

/// Print the rows stored at each TIME, in time order (CSV with a header by default).
///
/// With --asof, print instead the rows of the latest timestamp at or before each TIME (all rows
/// stored at that timestamp), searching back over holes and partitions, at most --within. In a
/// series database each series is looked up on its own.
///
/// With --asof and --join FILE (or `-` as the only TIME), an as-of join like pandas
/// `merge_asof` or DuckDB `ASOF JOIN`: FILE is a CSV (a header is detected; `,` tab `;` `|`)
/// or a list of times. Every input row is printed once, in input order, followed by the columns
/// of the last row stored at the latest timestamp at or before its time (prefixed with
/// --prefix, default the database's directory name: `quotes.bid`), empty where none is found
/// (or none within --within). In a series database each row is looked up in the series its
/// series-key columns name (or in --series). The join always exits 0.
///
/// Exit status 1 when no row was found at any TIME.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Timestamps (ISO-8601, without a zone in the database's time zone, or epoch with a unit),
    /// or `-` to read one a line from stdin (with --asof: an as-of join of stdin, as --join -).
    /// Negative epochs go after `--`: xs get -- -5ms
    #[arg(required_unless_present = "join")]
    pub times: Vec<String>,

    /// With --asof: join the rows of FILE (`-`: stdin) with their as-of matches.
    #[arg(long, value_name = "FILE", requires = "asof", conflicts_with = "times")]
    pub join: Option<String>,

    /// With --join: the input column holding the times (default: the database's time column,
    /// else one named time, timestamp, ts, datetime, date or t, else the first).
    #[arg(long, value_name = "COLUMN")]
    pub on: Option<String>,

    /// With --join: the unit of epoch numbers without one in the input: s, ms, us or ns
    /// (default: from their magnitude).
    #[arg(long, value_name = "UNIT", value_parser = parse_unit)]
    pub time_unit: Option<xs::io::timefmt::EpochUnit>,

    /// With --join: the prefix of the appended column names (default: the database's name).
    #[arg(long, value_name = "NAME")]
    pub prefix: Option<String>,

    /// Stop after N rows.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,

    /// For each TIME, the rows of the latest timestamp at or before it (an as-of lookup).
    #[arg(long)]
    pub asof: bool,

    /// With --asof: look back at most DUR before each TIME (default: to the first partition).
    #[arg(long, value_name = "DUR", requires = "asof", value_parser = parse_within)]
    pub within: Option<i64>,

    /// Only rows that meet CONDITION (as `xs range --where`): COL OP VALUE with OP one of
    /// = != < <= > >=, or COL in (A,B); repeat or join with `and`, all must hold. With --asof,
    /// the latest timestamp that holds a row that passes.
    #[arg(long = "where", value_name = "CONDITION")]
    pub filter: Vec<String>,

    #[command(flatten)]
    pub series: SeriesArgs,

    #[command(flatten)]
    pub output: FormatArgs,

    #[command(flatten)]
    pub file: OutputFileArgs,
}

fn parse_unit(text: &str) -> Result<xs::io::timefmt::EpochUnit, String> {
    xs::io::timefmt::EpochUnit::parse(text).ok_or_else(|| format!("bad unit `{text}`: s, ms, us or ns"))
}

fn parse_within(text: &str) -> Result<i64, String> {
    xs::db::time::parse_duration(text).ok_or_else(|| {
        xs::db::time::duration_refusal(text).unwrap_or_else(|| {
            format!("bad duration `{text}`: use a number and a unit, e.g. 500ms, 1m, 1h, 7d")
        })
    })
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let mut db = ctx.open_read()?;
    let join = match &args.join {
        Some(file) => Some(file.as_str()),
        None if args.asof && args.times == ["-"] => Some("-"),
        None => None,
    };
    if let Some(input) = join {
        let formatter = args.output.formatter(db.config(), Format::Csv)?;
        if args.file.output.is_some() {
            return Err(Failure::usage(
                "-o goes with rows; an as-of join prints to stdout: redirect it (> joined.csv)",
            ));
        }
        if args.limit.is_some() {
            return Err(Failure::usage(
                "--limit does not go with an as-of join, which prints every input row",
            ));
        }
        if args.series.series.len() > 1 {
            return Err(Failure::usage(
                "an as-of join looks each row up in the series it names, or in the one --series given",
            ));
        }
        let filter = Filter::parse(db.config(), &args.filter).map_err(Failure::usage)?;
        let join = super::get_join::JoinArgs {
            input,
            filter: filter.as_ref(),
            on: args.on.as_deref(),
            time_unit: args.time_unit,
            within_ns: args.within,
            prefix: args.prefix.as_deref(),
            series: args.series.series.first().map(String::as_str),
        };
        return super::get_join::run(&db, &formatter, &join);
    }
    if args.on.is_some() || args.time_unit.is_some() || args.prefix.is_some() {
        return Err(Failure::usage(
            "--on, --time-unit and --prefix go with an as-of join (--asof --join FILE)",
        ));
    }
    args.series.apply(&mut db)?;
    let output = args.file.output.as_deref();
    let to = output.map_or(To::Stdout, To::File);
    let writer = args.output.writer(db.config(), to, None, 6, 3)?;
    let filter = Filter::parse(db.config(), &args.filter).map_err(Failure::usage)?;
    let passes = |t: i64, row: &[u8]| filter.as_ref().map_or(Ok(true), |f| f.matches(t, row));
    let times = if args.times == ["-"] {
        read_times_from_stdin(&db)?
    } else {
        parse_times(&db, &args.times)?
    };
    let limit = args.limit.unwrap_or(u64::MAX);
    let mut wanted = times.clone();
    wanted.sort_unstable();
    wanted.dedup();
    let row_len = db.schema().row_len();
    // Appends the rows of the wanted times in one store (a series, `k` in series order, or
    // the one store without a series key) to `rows`, and (time, k, row index) to `found`.
    let find = |k: usize, store: &xs::Database, found: &mut Found| -> CliResult {
        let mut slab = Vec::new();
        let mut keep = |t: i64, rows: &[u8]| -> CliResult<bool> {
            let mut kept = false;
            for row in rows.chunks_exact(row_len) {
                if passes(t, row)? {
                    found.at.push((t, k, found.rows.len() / row_len));
                    found.rows.extend_from_slice(row);
                    kept = true;
                }
            }
            Ok(kept)
        };
        if args.asof {
            return asof_rows(store, &wanted, args.within, &mut slab, |t, rows| keep(t, rows));
        }
        // `wanted` is sorted: the reads are grouped by partition and walk each file forward.
        for &t in &wanted {
            store.check_time(t)?;
            let count = store.get_into(t, &mut slab)?;
            keep(t, &slab[..count * row_len])?;
        }
        Ok(())
    };
    let mut parts: Vec<Found> = Vec::new();
    if db.is_series_root() {
        // Series are read in parallel, a block at a time, in runs of consecutive series, each
        // run into one buffer; each series' files are closed after it, and each block's
        // handles dropped. So 30,000 series stay within the open-file limit, and neither
        // handles nor rows kept one by one hold the memory the reads freed among them (600
        // MB for 30,000 hosts). The first failure in series order is reported.
        let threads = rayon::current_num_threads().max(1);
        let run_len = GET_BLOCK.div_ceil(4 * threads);
        let mut stores = db.selected_series()?.into_iter().enumerate();
        loop {
            let block: Vec<_> = stores.by_ref().take(GET_BLOCK).collect();
            if block.is_empty() {
                break;
            }
            let found: Vec<CliResult<Found>> = block
                .par_chunks(run_len)
                .map(|run| {
                    let mut found = Found::default();
                    for (k, (_, store)) in run {
                        let read = find(*k, store, &mut found);
                        store.forget_partitions();
                        read?;
                    }
                    Ok(found)
                })
                .collect();
            for part in found {
                parts.push(part?);
            }
        }
    } else {
        let mut found = Found::default();
        find(0, &db, &mut found)?;
        parts.push(found);
    }
    // In time order, ties in series order (then stored order: stable).
    let mut order: Vec<(i64, usize, usize, usize)> = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        order.extend(part.at.iter().map(|&(t, k, r)| (t, k, p, r)));
    }
    order.sort_by_key(|&(t, k, _, _)| (t, k));
    let mut rows = order
        .iter()
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .map(|&(t, _, p, r)| (t, &parts[p].rows[r * row_len..(r + 1) * row_len]));
    let found = writer.write(db.config(), Source::Rows(&mut rows), output)?;
    if found == 0 {
        return Err(Failure::quiet(NOT_FOUND));
    }
    Ok(())
}

/// Series a `get` reads before it drops their handles.
const GET_BLOCK: usize = 256;

/// Rows a `get` found: (time, series index, row index in `rows`), and the rows.
#[derive(Default)]
struct Found {
    at: Vec<(i64, usize, usize)>,
    rows: Vec<u8>,
}

/// For each time of `times` (sorted), the rows of the latest stored timestamp at or before it
/// (within `within_ns`) handed to `keep`, which keeps those that pass the filter and says
/// whether it kept any: when none, the search goes on before that timestamp. Each timestamp's
/// rows are handed over once, however many times find it (the hits follow the times' order).
fn asof_rows(
    db: &xs::Database,
    times: &[i64],
    within_ns: Option<i64>,
    slab: &mut Vec<u8>,
    mut keep: impl FnMut(i64, &[u8]) -> CliResult<bool>,
) -> CliResult {
    let row_len = db.schema().row_len();
    let asof = xs::db::asof::AsOf::new(db)?;
    let mut last_hit = None;
    for &t in times {
        let not_before = within_ns.map_or(i64::MIN, |w| t.saturating_sub(w));
        let mut at = t;
        while let Some((hit, count)) = asof.latest_rows(at, not_before, slab)? {
            if last_hit == Some(hit) || keep(hit, &slab[..count * row_len])? {
                last_hit = Some(hit);
                break;
            }
            match hit.checked_sub(1) {
                Some(before) => at = before,
                None => break,
            }
        }
    }
    Ok(())
}

fn parse_times(db: &xs::Database, texts: &[String]) -> CliResult<Vec<i64>> {
    texts
        .iter()
        .map(|t| place(db, parse_time(t).map_err(Failure::usage)?))
        .collect()
}

fn read_times_from_stdin(db: &xs::Database) -> CliResult<Vec<i64>> {
    let zone = &db.config().timezone;
    let mut times = Vec::new();
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.map_err(|e| Failure::usage(format!("cannot read stdin: {e}")))?;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let t = parse_time(text).and_then(|t| t.in_zone(zone));
        times.push(t.map_err(|e| Failure::usage(format!("stdin line {}: {e}", i + 1)))?);
    }
    Ok(times)
}
