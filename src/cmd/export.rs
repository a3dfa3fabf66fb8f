//! `xs export`: the whole database or a window, to a file (CSV, TSV or NDJSON, zstd-compressed
//! when the name ends in `.zst`), to stdout, or one file per year/month/day into a directory.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use xs::db::time::{PartitionKey, Period, END_TIME_NS, MIN_TIME_NS};
use xs::io::output::{Format, RowFormatter};
use xs::io::stream::{write_range_where, Compression};
use xs::io::timefmt::format_iso_exact;
use xs::query::filter::Filter;
use xs::{Database, Error};

use super::output_args::FormatArgs;
use super::series_args::SeriesArgs;
use super::{parse_time, Context, Output};
use crate::exit::{CliResult, Failure};

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
    /// Start, inclusive (ISO-8601 or epoch with a unit); default: the first row.
    #[arg(long, value_parser = parse_time, allow_hyphen_values = true, value_name = "TIME")]
    pub from: Option<i64>,

    /// End, exclusive; default: after the last row.
    #[arg(long, value_parser = parse_time, allow_hyphen_values = true, value_name = "TIME")]
    pub to: Option<i64>,

    /// Output file, `-` for stdout, or with --split a directory (created if missing).
    #[arg(short, long, value_name = "PATH")]
    pub output: PathBuf,

    /// Compression: zstd or none; default: zstd when the file name ends in .zst.
    #[arg(long, value_name = "zstd|none", value_parser = ["zstd", "none"])]
    pub compress: Option<String>,

    /// zstd level (1 fast … 19 small; negative levels are faster still).
    #[arg(long, default_value_t = 3, allow_hyphen_values = true, value_name = "N")]
    pub level: i32,

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
    let from_ns = args.from.unwrap_or(MIN_TIME_NS);
    let to_ns = args.to.unwrap_or(END_TIME_NS);
    if from_ns > to_ns {
        return Err(Failure::usage(format!(
            "--from ({}) is after --to ({})",
            format_iso_exact(from_ns),
            format_iso_exact(to_ns)
        )));
    }
    let to_stdout = args.output.as_os_str() == "-";
    let name = args.output.to_string_lossy().into_owned();
    let zstd = match args.compress.as_deref() {
        Some("zstd") => true,
        Some(_) => false,
        None => !to_stdout && args.split.is_none() && name.ends_with(".zst"),
    };
    let range = zstd::compression_level_range();
    if !range.contains(&args.level) {
        return Err(Failure::usage(format!(
            "zstd --level {} is out of range: use {} to {}",
            args.level,
            range.start(),
            range.end()
        )));
    }
    let compression = if zstd {
        Compression::Zstd { level: args.level }
    } else {
        Compression::None
    };
    let default_format = if to_stdout || args.split.is_some() {
        Format::Csv
    } else {
        Format::from_file_name(&name).unwrap_or(Format::Csv)
    };
    let mut db = ctx.open_read()?;
    args.series.apply(&mut db)?;
    let formatter = args.format.formatter(db.config(), default_format)?;
    let filter = Filter::parse(db.config(), &args.filter).map_err(Failure::usage)?;
    let filter = filter.as_ref();

    if let Some(split) = &args.split {
        if to_stdout {
            return Err(Failure::usage(
                "--split writes one file per period into a directory: give -o DIR, not -o -",
            ));
        }
        let period = Period::parse(split).unwrap_or(Period::Year);
        let unit = Unit {
            formatter: &formatter,
            filter,
            compression,
        };
        return export_split(&db, &unit, period, from_ns, to_ns, &args.output);
    }
    if to_stdout {
        let mut out = Output::new();
        let mut header = Vec::new();
        formatter.header(&mut header);
        out.write_block(&compression.encode(&header)?)?;
        write_range_where(
            &db,
            from_ns,
            to_ns,
            filter,
            &formatter,
            u64::MAX,
            compression,
            &mut |bytes: &[u8]| out.write_block(bytes),
        )?;
        return out.flush();
    }
    let unit = Unit {
        formatter: &formatter,
        filter,
        compression,
    };
    let rows = export_file(&db, &unit, from_ns, to_ns, &args.output, true)?;
    eprintln!("exported {rows} rows to {}", args.output.display());
    Ok(())
}

/// How every exported file is written: its format, the rows kept, its compression.
#[derive(Clone, Copy)]
struct Unit<'a> {
    formatter: &'a RowFormatter,
    filter: Option<&'a Filter>,
    compression: Compression,
}

/// Writes `[from, to)` to `path` through a temporary file renamed into place when complete.
/// With `keep_empty` false, nothing is left behind when there are no rows. Returns the rows.
fn export_file(
    db: &Database,
    unit: &Unit,
    from_ns: i64,
    to_ns: i64,
    path: &Path,
    keep_empty: bool,
) -> Result<u64, Error> {
    let file_name = path
        .file_name()
        .ok_or_else(|| Error::Invalid(format!("-o {}: give a file name", path.display())))?;
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(Error::Invalid(format!(
            "cannot write {}: directory {} does not exist; create it or choose another -o",
            path.display(),
            parent.display()
        )));
    }
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        file_name.to_string_lossy(),
        std::process::id()
    ));
    let result = write_file(db, unit, from_ns, to_ns, &tmp);
    match result {
        Ok(rows) if rows > 0 || keep_empty => {
            fs::rename(&tmp, path).map_err(|e| Error::io("rename into", path, e))?;
            Ok(rows)
        }
        other => {
            // Best effort: the temporary file is ours and incomplete (or empty).
            let _ = fs::remove_file(&tmp);
            other
        }
    }
}

fn write_file(db: &Database, unit: &Unit, from_ns: i64, to_ns: i64, path: &Path) -> Result<u64, Error> {
    let Unit {
        formatter,
        filter,
        compression,
    } = *unit;
    let mut file = File::create(path).map_err(|e| Error::io("create", path, e))?;
    let mut header = Vec::new();
    formatter.header(&mut header);
    file.write_all(&compression.encode(&header)?)
        .map_err(|e| Error::io("write", path, e))?;
    let rows = write_range_where(
        db,
        from_ns,
        to_ns,
        filter,
        formatter,
        u64::MAX,
        compression,
        &mut |bytes: &[u8]| file.write_all(bytes).map_err(|e| Error::io("write", path, e)),
    )?;
    // A finished export survives a crash once it has its real name.
    file.sync_all().map_err(|e| Error::io("sync", path, e))?;
    Ok(rows)
}

/// One file per `period` that holds rows in `[from, to)`, written in parallel into `dir`.
fn export_split(
    db: &Database,
    how: &Unit,
    period: Period,
    from_ns: i64,
    to_ns: i64,
    dir: &Path,
) -> CliResult {
    fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
    let from_ns = from_ns.max(MIN_TIME_NS);
    let to_ns = to_ns.min(END_TIME_NS);
    let mut units: Vec<PartitionKey> = Vec::new();
    for key in db.partition_keys()? {
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
    let extension = match how.compression {
        Compression::None => how.formatter.format().name().to_string(),
        Compression::Zstd { .. } => format!("{}.zst", how.formatter.format().name()),
    };
    let results: Vec<Result<u64, Error>> = units
        .par_iter()
        .map(|unit| {
            let path = dir.join(format!("{unit}.{extension}"));
            let start = unit.start_ns().max(from_ns);
            let end = unit.end_ns().min(to_ns);
            export_file(db, how, start, end, &path, false)
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
