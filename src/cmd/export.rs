//! `xs export`: the whole database or a window, to a file (CSV, TSV or NDJSON, zstd-compressed
//! when the name ends in `.zst`), to stdout, or one file per year/month/day into a directory.

use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use xs::db::time::{PartitionKey, Period, END_TIME_NS, MIN_TIME_NS};
use xs::io::stream::Compression;
use xs::io::timefmt::format_iso_exact;
use xs::query::filter::Filter;
use xs::{Database, Error};

use super::output_args::{FormatArgs, Source, To, Writer};
use super::series_args::SeriesArgs;
use super::{parse_time, place, Context};
use crate::exit::{CliResult, Failure};
use xs::io::timefmt::TimeArg;

const EXAMPLES: &str = "Examples:
  xs export -o backup.csv.zst                                  # everything, zstd-compressed
  xs export --from 2024-08-01 --to 2024-09-01 -o august.csv
  xs export --split year --compress zstd -o dump/   # dump/2023.csv.zst …
  xs export --from 2024-08-08 -o - -f ndjson | gzip > day.ndjson.gz
  xs export --where 'side=sell and qty >= 10' -o big-sells.csv";

/// Write the whole database, or FROM <= time < TO, to a file, stdout, or one file per year.
///
/// The format follows the file name (.csv, .tsv, .ndjson, .jsonl; csv otherwise) unless --format
/// is given; a name ending in .zst is compressed with zstd. CSV output re-imports to the same
/// stored bytes. Files are written under a temporary name and renamed when complete.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Start, inclusive (ISO-8601 or epoch with a unit; without a zone, in the database's time
    /// zone); default: the first row.
    #[arg(long, value_parser = parse_time, allow_hyphen_values = true, value_name = "TIME")]
    pub from: Option<TimeArg>,

    /// End, exclusive; default: after the last row.
    #[arg(long, value_parser = parse_time, allow_hyphen_values = true, value_name = "TIME")]
    pub to: Option<TimeArg>,

    /// Output file, `-` for stdout, or with --split a directory (created if missing).
    #[arg(short, long, value_name = "PATH")]
    pub output: PathBuf,

    /// Compression of text output: zstd, gzip or none; default: from the file name's .zst or
    /// .gz. (Parquet compresses its column chunks with zstd itself.)
    #[arg(long, value_name = "zstd|gzip|none", value_parser = ["zstd", "gzip", "none"])]
    pub compress: Option<String>,

    /// Compression level: zstd 1 fast … 19 small (default 3; negative levels are faster
    /// still), gzip 0 … 9 (default 6).
    #[arg(long, allow_hyphen_values = true, value_name = "N")]
    pub level: Option<i32>,

    /// One file per year (or month, day), named after it: 2024.csv, 2024.csv.zst…, written in
    /// parallel into the --output directory. Periods without rows get no file.
    #[arg(long, value_name = "year|month|day", value_parser = ["year", "month", "day"])]
    pub split: Option<String>,

    /// Only rows that meet CONDITION (as `xs range --where`): COL OP VALUE with OP one of
    /// = != < <= > >=, or COL in (A,B); repeat or join with `and`, all must hold.
    #[arg(long = "where", value_name = "CONDITION")]
    pub filter: Vec<String>,

    #[command(flatten)]
    pub series: SeriesArgs,

    #[command(flatten)]
    pub format: FormatArgs,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let mut db = ctx.open_read()?;
    let from_ns = args.from.map_or(Ok(MIN_TIME_NS), |t| place(&db, t))?;
    let to_ns = args.to.map_or(Ok(END_TIME_NS), |t| place(&db, t))?;
    if from_ns > to_ns {
        return Err(Failure::usage(format!(
            "--from ({}) is after --to ({})",
            format_iso_exact(from_ns),
            format_iso_exact(to_ns)
        )));
    }
    let to_stdout = args.output.as_os_str() == "-";
    let (zstd_level, gzip_level) = levels(&args)?;
    let compression = match args.compress.as_deref() {
        Some("zstd") => Some(Compression::Zstd { level: zstd_level }),
        Some("gzip") => Some(Compression::Gzip { level: gzip_level }),
        Some(_) => Some(Compression::None),
        None => None,
    };
    let to = if to_stdout {
        To::Stdout
    } else if args.split.is_some() {
        To::Directory
    } else {
        To::File(&args.output)
    };
    args.series.apply(&mut db)?;
    let writer = args
        .format
        .writer(db.config(), to, compression, gzip_level, zstd_level)?;
    let filter = Filter::parse(db.config(), &args.filter).map_err(Failure::usage)?;
    let filter = filter.as_ref();

    if let Some(split) = &args.split {
        if to_stdout {
            return Err(Failure::usage(
                "--split writes one file per period into a directory: give -o DIR, not -o -",
            ));
        }
        let period = Period::parse(split).unwrap_or(Period::Year);
        return export_split(&db, &writer, filter, period, from_ns, to_ns, &args.output);
    }
    let source = Source::Range {
        db: &db,
        from_ns,
        to_ns,
        filter,
        limit: u64::MAX,
    };
    if to_stdout {
        writer.to_stdout(db.config(), source)?;
        return Ok(());
    }
    let rows = writer.to_file(db.config(), source, &args.output, true)?;
    eprintln!("exported {rows} rows to {}", args.output.display());
    Ok(())
}

/// The zstd and gzip levels: --level checked against the codec it applies to.
fn levels(args: &Args) -> CliResult<(i32, u32)> {
    let name = args.output.to_string_lossy();
    let gzip = args.compress.as_deref() == Some("gzip") || (args.compress.is_none() && name.ends_with(".gz"));
    let Some(level) = args.level else {
        return Ok((3, 6));
    };
    if gzip {
        return match u32::try_from(level) {
            Ok(l) if l <= 9 => Ok((3, l)),
            _ => Err(Failure::usage(format!(
                "gzip --level {level} is out of range: use 0 to 9"
            ))),
        };
    }
    let range = zstd::compression_level_range();
    if !range.contains(&level) {
        return Err(Failure::usage(format!(
            "zstd --level {} is out of range: use {} to {}",
            level,
            range.start(),
            range.end()
        )));
    }
    Ok((level, 6))
}

/// One file per `period` that holds rows in `[from, to)`, written in parallel into `dir`: text
/// as `dir/2024-08.csv`, Parquet and Arrow as a Hive-partitioned dataset,
/// `dir/[series=NAME/]year=2024/month=08/part-0.parquet` (NAME escaped as the series directory is).
fn export_split(
    db: &Database,
    writer: &Writer,
    filter: Option<&Filter>,
    period: Period,
    from_ns: i64,
    to_ns: i64,
    dir: &Path,
) -> CliResult {
    fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
    let from_ns = from_ns.max(MIN_TIME_NS);
    let to_ns = to_ns.min(END_TIME_NS);
    let hive = !writer.is_text();
    if let Writer::Columnar { columns, .. } = writer {
        refuse_hive_clash(db, columns.as_deref(), period)?;
    }
    // Each series on its own under a Hive `series=` level; the whole database otherwise.
    let stores: Vec<(Option<String>, std::sync::Arc<Database>)> = if hive && db.is_series_root() {
        db.selected_series()?
            .into_iter()
            .map(|(name, series)| (Some(name), series))
            .collect()
    } else {
        Vec::new()
    };
    let mut jobs: Vec<(Option<&str>, &Database, PartitionKey)> = Vec::new();
    for k in 0..stores.len().max(1) {
        let (series, store) = match stores.get(k) {
            Some((name, store)) => (name.as_deref(), store.as_ref()),
            None => (None, db),
        };
        let mut units: Vec<PartitionKey> = Vec::new();
        for key in store.partition_keys()? {
            let start = key.start_ns().max(from_ns);
            let end = key.end_ns().min(to_ns);
            if start >= end {
                continue;
            }
            let mut unit = PartitionKey::of(period, start);
            while unit.start_ns() < end {
                units.push(unit);
                unit = unit.next();
            }
        }
        units.sort();
        units.dedup();
        jobs.extend(units.into_iter().map(|unit| (series, store, unit)));
    }
    let extension = writer.extension();
    let results: Vec<CliResult<u64>> = jobs
        .par_iter()
        .map(|&(series, store, unit)| {
            let source = Source::Range {
                db: store,
                from_ns: unit.start_ns().max(from_ns),
                to_ns: unit.end_ns().min(to_ns),
                filter,
                limit: u64::MAX,
            };
            if !hive {
                let path = dir.join(format!("{unit}.{extension}"));
                return writer.to_file(db.config(), source, &path, false);
            }
            let leaf = dir.join(hive_path(series, period, unit));
            fs::create_dir_all(&leaf).map_err(|e| Error::io("create directory", &leaf, e))?;
            let rows = writer.to_file(
                db.config(),
                source,
                &leaf.join(format!("part-0.{extension}")),
                false,
            )?;
            if rows == 0 {
                // Best effort: a period without rows leaves no directory of its own behind.
                let _ = fs::remove_dir(&leaf);
            }
            Ok(rows)
        })
        .collect();
    let mut rows = 0u64;
    let mut files = 0usize;
    for result in results {
        let n = result?;
        rows += n;
        files += usize::from(n > 0);
    }
    eprintln!("exported {rows} rows to {files} files in {}", dir.display());
    Ok(())
}

/// Refuses a Hive layout whose directory names (`series=`, `year=`, `month=`, `day=`) a
/// written column shares: DuckDB and Polars read the directory's value in place of the
/// column's (a `year` of 2023 came back as 2024), without a word.
fn refuse_hive_clash(db: &Database, columns: Option<&[String]>, period: Period) -> CliResult {
    let mut levels = vec!["year"];
    if matches!(period, Period::Month | Period::Day) {
        levels.push("month");
    }
    if period == Period::Day {
        levels.push("day");
    }
    if db.is_series_root() {
        levels.push("series");
    }
    let written: Vec<&str> = match columns {
        Some(names) => names.iter().map(String::as_str).collect(),
        None => std::iter::once(db.config().time_column.as_str())
            .chain(db.schema().columns().iter().map(|c| c.name.as_str()))
            .collect(),
    };
    if let Some(name) = written
        .iter()
        .find(|n| levels.iter().any(|l| l.eq_ignore_ascii_case(n)))
    {
        return Err(Failure::usage(format!(
            "--split writes directories named {}=…, and column `{name}` has that name: DuckDB and \
             Polars would read the directory's value in place of the column's. Leave the column \
             out with --columns, rename it (xs alter --rename {name}=NEW), or export without --split",
            name.to_ascii_lowercase()
        )));
    }
    Ok(())
}

/// `[series=NAME/]year=2024[/month=08[/day=08]]`, the directories of a Hive-partitioned dataset.
fn hive_path(series: Option<&str>, period: Period, unit: PartitionKey) -> PathBuf {
    let mut path = PathBuf::new();
    if let Some(name) = series {
        path.push(format!("series={name}"));
    }
    path.push(format!("year={:04}", unit.year));
    if matches!(period, Period::Month | Period::Day) {
        path.push(format!("month={:02}", unit.month));
    }
    if period == Period::Day {
        path.push(format!("day={:02}", unit.day));
    }
    path
}
