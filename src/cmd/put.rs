//! `xs put`: store one row at one timestamp (an upsert).

use xs::db::schema::Schema;
use xs::PutMode;

use super::{parse_time, place, Context};
use crate::exit::{CliResult, Failure};
use xs::io::timefmt::TimeArg;

const EXAMPLES: &str = "Examples:
  xs put 2024-08-08T23:54:15.342Z price=61837.63 qty=0.02 side=buy
  xs put 1723161255342ms 61837.63 0.02 buy            # values in schema order
  xs put --append 2024-08-08T23:54:15.342Z price=61837.64 qty=0.5 side=sell";

/// Store one row at TIME, replacing the rows there (or adding after them with --append).
///
/// Values go by name (price=1.5; unnamed columns are null) or all in schema order.
/// An empty value is null.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub wait: super::WaitArg,

    /// Timestamp: ISO-8601 or epoch with a unit (1723161255342ms); written without a zone, in
    /// the database's time zone (UTC unless it was created with --timezone).
    #[arg(value_parser = parse_time, allow_hyphen_values = true)]
    pub time: TimeArg,

    /// Values: name=value pairs, or one value per column in schema order (`-1.5` and `-inf`
    /// are values; `--append` and `--wait` after them are still the options).
    #[arg(required = true, allow_hyphen_values = true)]
    pub values: Vec<String>,

    /// Add the row after the rows already at TIME (needs --depth > 1) instead of replacing them.
    #[arg(long)]
    pub append: bool,
}

pub fn run(ctx: &Context, mut args: Args) -> CliResult {
    // The values take anything that starts with a hyphen (negative numbers, `-inf`), so an
    // `--append` or `--wait` written after them arrives among them (`--wait` is taken by
    // `cmd::run`).
    let before = args.values.len();
    args.values.retain(|v| v != "--append");
    args.append |= args.values.len() != before;
    args.values.retain(|v| v != "--wait");
    let db = ctx.open_write()?;
    let schema = db.schema();
    let row = encode_values(schema, &args.values)?;
    let mode = if args.append {
        PutMode::Append
    } else {
        PutMode::Replace
    };
    db.put(place(&db, args.time)?, &row, mode)?;
    Ok(db.sync()?)
}

/// Builds a row from `name=value` pairs or from positional values.
fn encode_values(schema: &Schema, values: &[String]) -> CliResult<Vec<u8>> {
    let mut row = schema.new_row();
    let named = values
        .iter()
        .filter_map(|v| {
            v.split_once('=')
                .filter(|(name, _)| schema.column_index(name).is_some())
        })
        .count();
    let set = |row: &mut Vec<u8>, col: usize, text: &str| {
        let name = &schema.columns()[col].name;
        schema.set_field(row, col, text).map_err(|e| {
            // A long value is shown by its start, as import's rejects show it.
            let shown = xs::import::show(text.as_bytes());
            Failure::usage(format!("column `{name}`: `{shown}`: {}", e.for_column(name)))
        })
    };
    if named == values.len() {
        let mut given = vec![false; schema.columns().len()];
        for pair in values {
            // Every value was checked above to be name=value with a known name.
            let (name, text) = pair.split_once('=').unwrap_or_default();
            let col = schema.column_index(name).unwrap_or_default();
            // Two values for one column: which one was meant is the user's to say.
            if std::mem::replace(&mut given[col], true) {
                return Err(Failure::usage(format!(
                    "column `{name}` is given twice; give each column once"
                )));
            }
            set(&mut row, col, text)?;
        }
    } else if named == 0 && !values.iter().all(|v| looks_named(v)) {
        let columns = schema.columns();
        if values.len() != columns.len() {
            let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
            return Err(Failure::usage(format!(
                "expected {} values ({}), got {}; or name them, e.g. {}=…",
                columns.len(),
                names.join(","),
                values.len(),
                names[0]
            )));
        }
        for (col, text) in values.iter().enumerate() {
            set(&mut row, col, text)?;
        }
    } else {
        let unknown: Vec<&str> = values
            .iter()
            .filter(|v| {
                v.split_once('=')
                    .is_none_or(|(name, _)| schema.column_index(name).is_none())
            })
            .map(String::as_str)
            .collect();
        return Err(Failure::usage(format!(
            "mixed named and positional values, or unknown column names: {}; columns are {}",
            unknown.join(" "),
            schema.spec()
        )));
    }
    Ok(row)
}

/// `name=value` with a name that could be a column (so `zz=1` is an unknown column, not a value).
fn looks_named(value: &str) -> bool {
    value
        .split_once('=')
        .is_some_and(|(name, _)| xs::db::schema::valid_column_name(name))
}
