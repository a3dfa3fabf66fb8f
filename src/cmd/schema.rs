//! `xs schema`: what a database holds and how it is laid out, from its `xs.toml`, as text or
//! JSON (keys documented in README.md, "Schema"; stable).

use serde_json::{json, Value};
use xs::db::config::{Config, DayMonth, Layout};
use xs::db::summary::SummaryLayout;
use xs::db::time::format_duration;

use super::{Context, Output};
use crate::exit::CliResult;

const EXAMPLES: &str = "Examples:
  xs -d trades schema
  xs -d trades schema --json | jq -r '.columns[] | \"\\(.name) \\(.type)\"'";

/// Print the columns with their types, the time column and zone, layout, granularity, depth or
/// bucket width, series and unique keys, partition period and format version.
///
/// Reads only xs.toml: no data, no lock. Columns marked `summarized` keep a min and max per
/// storage bucket in the directory (bucket layout), which `--agg count,min,max` answers from
/// and `--where` skips buckets by. Every column is nullable.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let db = ctx.open_read()?;
    let config = db.config();
    let mut out = Output::new();
    if args.json {
        let text = serde_json::to_string_pretty(&to_json(config)).unwrap_or_default();
        out.buf.extend_from_slice(text.as_bytes());
        out.buf.push(b'\n');
    } else {
        out.buf.extend_from_slice(to_text(config).as_bytes());
    }
    out.flush()
}

/// What is special about column `col`: key membership, summaries.
fn roles(config: &Config, summaries: &SummaryLayout, col: usize) -> Vec<&'static str> {
    let name = &config.schema.columns()[col].name;
    let mut roles = Vec::new();
    if config.keys.series.contains(name) {
        roles.push("series key");
    }
    if config.keys.unique.contains(name) {
        roles.push("unique key");
    }
    if config.may_summarize() && summaries.slot_of(col).is_some() {
        roles.push("summarized");
    }
    roles
}

fn to_text(config: &Config) -> String {
    let summaries = SummaryLayout::new(&config.schema);
    let mut t = String::new();
    let mut line = |k: &str, v: String| t.push_str(&format!("{k:<12} {v}\n"));
    line("format", config.format_version().to_string());
    line(
        "layout",
        match config.layout {
            Layout::Grid => format!("grid, depth {} (rows per timestamp)", config.depth),
            Layout::Bucket => format!(
                "bucket, {} buckets, {} records",
                format_duration(config.bucket_ns),
                config.codec.name()
            ),
        },
    );
    line("granularity", config.granularity.to_string());
    line("partition", format!("one file per {}", config.period.name()));
    line("time column", config.time_column.clone());
    line(
        "time zone",
        format!(
            "{} (imports and time arguments read times written without a zone in it)",
            config.timezone.describe()
        ),
    );
    if let Some(order) = config.date_order {
        let example = match order {
            DayMonth::DayFirst => "01/02/2024 is 1 February",
            DayMonth::MonthFirst => "01/02/2024 is 2 January",
        };
        line("date order", format!("{} (imports read {example})", order.name()));
    }
    if config.decimal_comma {
        line(
            "decimal mark",
            "comma (imports read 1.500 as 1500 in files whose numbers do not show their mark)".into(),
        );
    }
    let keys = |k: &[String]| {
        if k.is_empty() {
            "none".to_string()
        } else {
            k.join(",")
        }
    };
    line("series key", keys(&config.keys.series));
    line("unique key", keys(&config.keys.unique));
    line("row", format!("{} bytes", config.schema.row_len()));
    let cols = config.schema.columns();
    line("columns", cols.len().to_string());
    let name_w = cols.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let ty_w = cols.iter().map(|c| c.ty.to_string().len()).max().unwrap_or(0);
    for (i, c) in cols.iter().enumerate() {
        let roles = roles(config, &summaries, i).join(", ");
        let row = format!("  {:<name_w$}  {:<ty_w$}  {roles}", c.name, c.ty.to_string());
        t.push_str(row.trim_end());
        t.push('\n');
    }
    t
}

fn to_json(config: &Config) -> Value {
    let summaries = SummaryLayout::new(&config.schema);
    let bucket = config.layout == Layout::Bucket;
    let columns: Vec<Value> = config
        .schema
        .columns()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let roles = roles(config, &summaries, i);
            json!({
                "name": c.name,
                "type": c.ty.to_string(),
                "width_bytes": c.ty.width_bytes(),
                "nullable": true,
                "series_key": roles.contains(&"series key"),
                "unique_key": roles.contains(&"unique key"),
                "summarized": roles.contains(&"summarized"),
            })
        })
        .collect();
    json!({
        "xs_schema_version": 1,
        "format": config.format_version(),
        "layout": config.layout.name(),
        "granularity": config.granularity.to_string(),
        "granularity_ns": config.granularity.ns(),
        "depth": (!bucket).then_some(config.depth),
        "bucket": bucket.then(|| format_duration(config.bucket_ns)),
        "bucket_ns": bucket.then_some(config.bucket_ns),
        "codec": bucket.then(|| config.codec.name()),
        "partition": config.period.name(),
        "time_column": config.time_column,
        "timezone": config.timezone.spelling(),
        "date_order": config.date_order.map(|o| o.name()),
        "decimal_mark": if config.decimal_comma { "comma" } else { "point" },
        "series_by": config.keys.series,
        "unique_by": config.keys.unique,
        "row_len_bytes": config.schema.row_len(),
        "columns": columns,
    })
}
