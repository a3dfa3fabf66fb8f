//! `xs range`: every row in a time window, in time order, as CSV, TSV or NDJSON.

use xs::io::output::Format;
use xs::io::stream::{write_range, Compression};
use xs::io::timefmt::format_iso_exact;

use super::output_args::FormatArgs;
use super::{parse_time, Context, Output};
use crate::exit::{CliResult, Failure};

const EXAMPLES: &str = "Examples:
  xs range 2024-08-08 2024-08-09 > day.csv
  xs range 2024-08-08T23:55:00Z 2024-08-08T23:56:00Z --columns time,price | head
  xs range 2024-08-08 2024-08-09 -f ndjson --time-format epoch-ms | jq -c 'select(.qty > 1)'
  xs range 1723161300000ms 1723161360000ms --no-header | awk -F, '{s+=$3} END {print s}'";

/// Print every row with FROM <= time < TO, in time order (CSV with a header by default).
///
/// Only the data is read: holes in the sparse files are skipped, never read. Big ranges are
/// formatted in parallel and written in order.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Start, inclusive (ISO-8601 or epoch with a unit).
    #[arg(value_parser = parse_time, allow_hyphen_values = true)]
    pub from: i64,

    /// End, exclusive.
    #[arg(value_parser = parse_time, allow_hyphen_values = true)]
    pub to: i64,

    /// Stop after N rows.
    #[arg(long, value_name = "N")]
    pub limit: Option<u64>,

    #[command(flatten)]
    pub output: FormatArgs,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    if args.from > args.to {
        return Err(Failure::usage(format!(
            "FROM ({}) is after TO ({}); give the window as FROM TO",
            format_iso_exact(args.from),
            format_iso_exact(args.to)
        )));
    }
    let db = ctx.open_read()?;
    let formatter = args.output.formatter(db.config(), Format::Csv)?;
    let mut out = Output::new();
    formatter.header(&mut out.buf);
    let limit = args.limit.unwrap_or(u64::MAX);
    write_range(
        &db,
        args.from,
        args.to,
        &formatter,
        limit,
        Compression::None,
        &mut |bytes: &[u8]| out.write_block(bytes),
    )?;
    out.flush()
}
