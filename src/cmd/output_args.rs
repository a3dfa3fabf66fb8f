//! Output options shared by `get`, `range` and `export`: format, projection, time format, header.

use xs::db::config::Config;
use xs::io::output::{Format, OutputOptions, RowFormatter, TimeFormat};

use crate::exit::{CliResult, Failure};

#[derive(clap::Args, Debug)]
pub struct FormatArgs {
    /// Output format: csv, tsv, ndjson (one JSON object a line; NaN and inf print as null).
    #[arg(short = 'f', long, value_name = "FORMAT", value_parser = parse_format)]
    pub format: Option<Format>,

    /// Columns to print, in this order, e.g. time,price (name the time column to keep it).
    #[arg(long, value_name = "A,B,…", value_delimiter = ',')]
    pub columns: Option<Vec<String>>,

    /// iso (default: ISO-8601 UTC at the granularity's precision), epoch-s, epoch-ms, epoch-us,
    /// epoch-ns, or a strftime pattern such as '%Y-%m-%d %H:%M:%S%.3f' (UTC).
    #[arg(long, value_name = "FMT", value_parser = TimeFormat::parse)]
    pub time_format: Option<TimeFormat>,

    /// Leave out the header line (csv, tsv).
    #[arg(long)]
    pub no_header: bool,
}

fn parse_format(text: &str) -> Result<Format, String> {
    Format::parse(text).ok_or_else(|| format!("unknown format `{text}`: use one of {}", Format::NAMES))
}

impl FormatArgs {
    /// The formatter these options ask for; `default_format` when no --format was given.
    pub fn formatter(&self, config: &Config, default_format: Format) -> CliResult<RowFormatter> {
        let options = OutputOptions {
            format: self.format.unwrap_or(default_format),
            time_format: self.time_format.clone().unwrap_or(TimeFormat::Iso),
            columns: self.columns.clone(),
            header: !self.no_header,
        };
        RowFormatter::new(config, &options).map_err(Failure::usage)
    }
}
