//! `xs delete`: remove rows and give their blocks back to the file system.

use xs::io::timefmt::format_iso_exact;

use super::series_args::SeriesArgs;
use super::{parse_time, place, Context};
use crate::exit::{CliResult, Failure};
use xs::io::timefmt::TimeArg;

const EXAMPLES: &str = "Examples:
  xs delete 2024-08-08T23:54:15.342Z                   # the rows at one timestamp
  xs delete 2024-08-01 2024-09-01                      # a month
  xs delete 1723161255342ms 1723161255343ms
  xs delete 2024-08-01 2024-09-01 --series ETHUSDT     # one series' month";

/// Delete the rows at FROM, or every row with FROM <= time < TO.
///
/// Blocks that become empty are punched out of the file, so the physical size shrinks.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub wait: super::WaitArg,

    /// Start, inclusive (or the one timestamp to delete when TO is absent); ISO-8601 (without a
    /// zone: in the database's time zone) or epoch with a unit.
    #[arg(value_parser = parse_time, allow_hyphen_values = true)]
    pub from: TimeArg,

    /// End, exclusive.
    #[arg(value_parser = parse_time, allow_hyphen_values = true)]
    pub to: Option<TimeArg>,

    #[command(flatten)]
    pub series: SeriesArgs,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let mut db = ctx.open_write()?;
    let from = place(&db, args.from)?;
    let to = args.to.map(|to| place(&db, to)).transpose()?;
    // Refused as `range` refuses it: swapped bounds would delete nothing, silently.
    if let Some(to) = to.filter(|&to| from > to) {
        return Err(Failure::usage(format!(
            "FROM ({}) is after TO ({}); give the window as FROM TO",
            format_iso_exact(from),
            format_iso_exact(to)
        )));
    }
    args.series.apply(&mut db)?;
    let to = match to {
        Some(to) => to,
        None => {
            db.check_time(from)?;
            from + db.config().granularity.ns()
        }
    };
    let deleted = db.delete(from, to)?;
    db.sync()?;
    eprintln!("deleted {deleted} rows");
    Ok(())
}
