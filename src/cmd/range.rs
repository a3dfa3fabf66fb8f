//! `xs range`: every row in a time window, in time order, as CSV.

use xs::io::output::CsvFormatter;

use super::{parse_time, Context, Output};
use crate::exit::{CliResult, Failure};

const EXAMPLES: &str = "Examples:
  xs range 2024-08-08 2024-08-09 > day.csv
  xs range 2024-08-08T23:55:00Z 2024-08-08T23:56:00Z | head
  xs range 1723161300000ms 1723161360000ms | awk -F, 'NR>1 {s+=$3} END {print s}'";

/// Print every row with FROM <= time < TO as CSV with a header, in time order.
///
/// Only the data is read: holes in the sparse files are skipped, never read.
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
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let db = ctx.open_read()?;
    let formatter = CsvFormatter::new(db.config());
    let mut out = Output::new();
    formatter.header(&mut out.buf);
    let mut left = args.limit.unwrap_or(u64::MAX);
    db.scan(args.from, args.to, |t, row| -> Result<bool, Failure> {
        if left == 0 {
            return Ok(false);
        }
        left -= 1;
        formatter.row(&mut out.buf, t, row);
        out.maybe_flush()?;
        Ok(true)
    })?;
    out.flush()
}
