//! `xs import`: load CSV files (plain, gzip, zstd, stdin, directories) into a database,
//! creating it with an inferred schema when it does not exist. The pipeline is `xs::import`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use xs::db::config::{human_bytes, Layout, RecordCodec, CONFIG_FILE};
use xs::db::lock::LockWait;
use xs::db::schema::ColumnType;
use xs::db::time::{parse_duration, Granularity, Period};
use xs::db::Creation;
use xs::import::infer::{self, shell_word, Overrides};
use xs::import::timeparse::{Dst, TimeSpec, Zone};
use xs::import::{CsvOptions, DateSource, Options, Progress, Sniff, Summary};
use xs::io::timefmt::EpochUnit;
use xs::{Access, Database};

use super::Context;
use crate::exit::{CliResult, Failure, REJECTED};

const EXAMPLES: &str = "Examples:
  xs import trades.csv                      # creates ./trades with an inferred schema
  xs -d trades import 2024/ --threads 2     # every .csv/.csv.gz/.csv.zst in 2024/, into trades
  zcat day.csv.gz | xs -d trades import - --max-rejects 10
  xs import AirQualityUCI.csv --null -200     # ';', decimal commas, Date+Time joined, -200 = null
  xs -d fx import quotes_20140501.csv --timezone -05:00   # times of day: the date is in the name
  xs import trades.parquet                  # Parquet (or Arrow IPC): the schema gives the types
  xs -d other range 2024-08-08 --format arrow | xs -d copy import -   # an Arrow stream on stdin";

/// Import CSV, Parquet or Arrow rows into a database: an upsert by timestamp.
///
/// For every timestamp the input contains, the rows stored there afterwards are exactly the
/// input's rows at that timestamp, in input order; other timestamps are untouched. So re-running
/// an import changes nothing, and an interrupted import is completed by running it again.
/// Rows that cannot be stored go to a rejects file; the exit status is 4 when there are more
/// than --max-rejects of them.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub wait: super::WaitArg,

    /// Input files: `-` for stdin, .csv, .csv.gz, .csv.zst, Parquet, Arrow IPC streams and files
    /// (detected by content), or directories (of CSV files).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Field delimiter: one character, or `tab` (default: detected among `,` `;` tab `|`).
    #[arg(long, value_name = "CHAR")]
    pub delimiter: Option<String>,

    /// The first line is a header (default: detected — a first line that does not type like
    /// the rows below it is a header; into an existing database, one that names its columns).
    #[arg(long, conflicts_with = "no_header")]
    pub header: bool,

    /// The input has no header line; name its columns with --columns (default for an existing
    /// database: the time column, then its columns in order; for a new one: column_1, column_2…).
    #[arg(long)]
    pub no_header: bool,

    /// Skip N lines (a preamble) at the start of every input before the header (default: lines
    /// before a header whose field count differs from the rows' are skipped).
    #[arg(long, value_name = "N")]
    pub skip_lines: Option<usize>,

    /// Numbers are written with a decimal comma (`2,6`) (default: detected in files not
    /// separated by commas; a database created from such a file records it, and reads later
    /// files whose numbers do not show their mark, such as `1.500`, with a decimal comma).
    #[arg(long)]
    pub decimal_comma: bool,

    /// The mark that groups thousands in numbers: `,` (`1,234.5`), `'` (`1'234.5`), `space`
    /// (`1 234,5`), `nbsp` (a no-break space), or `none` (default: detected from the first
    /// records; under a decimal comma, points group thousands anyway).
    #[arg(long, value_name = "MARK", value_parser = parse_thousands)]
    pub thousands: Option<Thousands>,

    /// Numbers are written with a decimal point (`2.6`, `1.500` is one and a half): the default,
    /// unless the file's numbers show a decimal comma or the database records one.
    #[arg(long, conflicts_with = "decimal_comma")]
    pub decimal_point: bool,

    /// More values to read as null, comma-separated (`--null -200,-999`); in numeric columns a
    /// number also matches however it is written (`-200.0`, `-2e2`, `-200,0`). Empty fields, and in
    /// numeric and boolean columns `NA`, `N/A`, `null`, `NULL`, `None`, `#N/A`, `\N`, `n/e`, a lone
    /// `.`, `-` or `?`, are null anyway
    /// (a row whose time is null is rejected).
    #[arg(long, value_name = "TOKENS", allow_hyphen_values = true)]
    pub null: Vec<String>,

    /// Without a header: the input's column names in order, each optionally with a type for a
    /// new database (`time,price:f64,side:str(4)`). With a header: types for a new database
    /// that replace the guessed ones (`symbol:str(8),qty:f32`).
    #[arg(long, value_name = "LIST")]
    pub columns: Option<String>,

    /// Skip input columns the database does not have (default: refuse them).
    #[arg(long)]
    pub ignore_columns: bool,

    /// Change only the columns the input has in the stored rows it meets: the row with the
    /// same unique key, or the one row stored at that time and series (default: an input must
    /// have every column, and its rows replace the stored rows of their times). Rows that were
    /// not stored are added with the other columns null.
    #[arg(long)]
    pub update_columns: bool,

    /// The input column holding the time, or several joined with a space in the order given
    /// (`Date,Time`) (default: the database's time column, or a guess). Header text or its alias.
    #[arg(long, value_name = "NAME[,NAME]")]
    pub time_column: Option<String>,

    /// The date of times that carry none (`09:30:00`, or a number since midnight with
    /// --time-unit) (default: a date in the file name, such as `20131007_…`).
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub date: Option<String>,

    /// Time zone of times written without one: an IANA name (`America/New_York`) or an offset
    /// (`-05:00`) (default: UTC).
    #[arg(long, value_name = "ZONE", allow_hyphen_values = true)]
    pub timezone: Option<String>,

    /// With --timezone: place local times that a daylight-saving change makes ambiguous or
    /// skips at the earlier or the later instant (default: reject them).
    #[arg(long, value_name = "earlier|later", value_parser = ["earlier", "later"])]
    pub dst: Option<String>,

    /// Unit of epoch-number times: s, ms, us, ns (default: guessed from their magnitude).
    #[arg(long, value_name = "UNIT", value_parser = ["s", "ms", "us", "µs", "ns"])]
    pub time_unit: Option<String>,

    /// strftime pattern of the times, e.g. '%d/%m/%Y %H:%M:%S' (without a date it reads times of
    /// day), or `dmy`, `mdy`, `ymd`: the detected shapes with the date in that order, or
    /// `hhmmss`, `hhmmssmmm` (or `hhmmss` and 6 or 9 `f`): times of day as clock digits (`93000`
    /// is 09:30:00), `hhmm`: clock digits without seconds (`930` is 09:30), `quarter` (`1990Q1`, `Q1 1990`), or `excel`: a spreadsheet's serial days
    /// (`44197.75` is 2021-01-01 18:00, to the millisecond). A pattern without the day (`%Y-%m`,
    /// `%Y`) stores each month or year at its first day (default: detected — ISO-8601, epoch
    /// numbers, dates in year-month-day, day/month/year or month/day/year order with a time,
    /// compact YYYYMMDDHHMM…, clock digits, months `YYYY-MM` or `Jan 2021`, ISO weeks,
    /// quarters, years in a `Year` column).
    #[arg(long, value_name = "PATTERN")]
    pub time_format: Option<String>,

    /// Text encoding of the inputs when not UTF-8: utf-16le, utf-16be, windows-1252 (latin1),
    /// iso-8859-15, shift_jis… (default: UTF-8, or UTF-16 where a byte-order mark says so).
    #[arg(long, value_name = "NAME")]
    pub encoding: Option<String>,

    /// Round times down to the granularity instead of rejecting misaligned ones.
    #[arg(long)]
    pub floor_time: bool,

    /// New database only: time step between slots (default: inferred).
    #[arg(long, value_name = "DUR")]
    pub granularity: Option<String>,

    /// New database only: rows one timestamp can hold (default: inferred).
    #[arg(long, value_name = "K")]
    pub depth: Option<u32>,

    /// New database only: storage layout, grid or bucket (default: inferred — grid for
    /// regular series, bucket for irregular or bursty ticks).
    #[arg(long, env = "XS_LAYOUT", value_name = "grid|bucket", value_parser = ["grid", "bucket"])]
    pub layout: Option<String>,

    /// New database only: bucket width for the bucket layout (default: inferred).
    #[arg(long, value_name = "DUR")]
    pub bucket: Option<String>,

    /// New database only: how the bucket layout stores rows: columnar (each column compressed;
    /// the default) or raw (as they are; the fastest point reads).
    #[arg(long, value_name = "raw|columnar", value_parser = ["raw", "columnar"])]
    pub codec: Option<String>,

    /// New database only: year, month or day (default: the longest that fits).
    #[arg(long, value_name = "PERIOD", value_parser = ["year", "month", "day"])]
    pub partition: Option<String>,

    /// Where rejected rows go (default: DB/rejects-<time>.csv, written only if needed).
    #[arg(long, value_name = "PATH")]
    pub rejects: Option<PathBuf>,

    /// New database: the columns that tell series apart (symbol, host); each series is stored
    /// on its own and rows are identified by (series, time). Default: inferred; `none`: one series.
    #[arg(long, value_name = "COLS")]
    pub series_by: Option<String>,

    /// New database: the columns that identify a row among a series' rows at one time
    /// (trade_id): a row whose key is stored replaces it. Default: inferred; `none`: no key.
    #[arg(long, value_name = "COLS")]
    pub unique_by: Option<String>,

    /// Rejected rows allowed before exiting with status 4.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub max_rejects: u64,

    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// Print nothing on success: no inference notes, no summary (errors, and warnings that
    /// call for action, still go to stderr).
    #[arg(short, long)]
    pub quiet: bool,

    /// Skip the final fsync of the written files (faster; not durable across a power loss).
    #[arg(long)]
    pub no_sync: bool,

    /// Bytes of input per chunk (testing and tuning; default 1 MiB).
    #[arg(long, hide = true, default_value_t = xs::import::CHUNK_BYTES, value_name = "BYTES")]
    pub chunk_bytes: usize,
}

/// Test hook: `XS_IMPORT_KILL_AT=journaled` makes the process SIGKILL itself once an undo
/// journal is committed, before the slots it covers are written.
const KILL_AT_ENV: &str = "XS_IMPORT_KILL_AT";
/// Test hook: bytes of held-back bucket rows kept in memory (1: every batch spills them).
const HOLD_BYTES_ENV: &str = "XS_IMPORT_HOLD_BYTES";
/// Test hook: new series synced one by one before the others are built aside (0: none).
const DEFER_SYNC_ENV: &str = "XS_IMPORT_DEFER_SYNC_AFTER";

/// `--thousands`: the mark, or none.
#[derive(Clone, Debug)]
pub struct Thousands(Option<Vec<u8>>);

fn parse_thousands(text: &str) -> Result<Thousands, String> {
    let mark: &str = match text {
        "none" => return Ok(Thousands(None)),
        "," | "'" | "\u{2019}" => text,
        "space" | " " => " ",
        "nbsp" | "\u{a0}" => "\u{a0}",
        "nnbsp" | "\u{202f}" => "\u{202f}",
        _ => {
            return Err(format!(
                "bad --thousands `{text}`: `,`, `'`, space, nbsp or none (points group thousands \
                 under --decimal-comma)"
            ))
        }
    };
    Ok(Thousands(Some(mark.as_bytes().to_vec())))
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let delimiter = match &args.delimiter {
        Some(d) => Some(parse_delimiter(d)?),
        None => None,
    };
    let (column_names, column_types) = match &args.columns {
        Some(list) => parse_column_list(list)?,
        None => (None, Vec::new()),
    };
    let time_unit = match &args.time_unit {
        Some(u) => Some(
            EpochUnit::parse(u)
                .ok_or_else(|| Failure::usage(format!("bad --time-unit `{u}`: s, ms, us or ns")))?,
        ),
        None => None,
    };
    if args.threads == Some(0) {
        return Err(Failure::usage("--threads must be at least 1"));
    }
    if !args.no_header && column_types.len() != column_names.as_ref().map_or(0, Vec::len) {
        return Err(Failure::usage(
            "with a header, --columns gives types (name:type) for a new database; to name the \
             columns of a headerless input, add --no-header",
        ));
    }
    let date_ns = match &args.date {
        Some(text) => Some(parse_date(text)?),
        None => None,
    };
    let mut zone = match &args.timezone {
        Some(text) => super::create::parse_zone(text)?,
        None => Zone::Utc,
    };
    let dst = match args.dst.as_deref() {
        None => Dst::Refuse,
        Some("earlier") => Dst::Earlier,
        Some("later") => Dst::Later,
        Some(other) => return Err(Failure::usage(format!("bad --dst `{other}`: earlier or later"))),
    };
    let nulls: Vec<Vec<u8>> = args
        .null
        .iter()
        .flat_map(|list| list.split(','))
        .filter(|t| !t.is_empty())
        .map(|t| t.as_bytes().to_vec())
        .collect();
    let time_columns: Vec<String> = match &args.time_column {
        Some(list) => list.split(',').map(|n| n.trim().to_string()).collect(),
        None => Vec::new(),
    };
    if time_columns.iter().any(String::is_empty) {
        return Err(Failure::usage("--time-column has an empty name"));
    }
    if let Some(pattern) = args.time_format.as_deref().filter(|p| p.contains("%Z")) {
        // chrono reads a zone's name and drops it: the times would be stored as if in UTC.
        return Err(Failure::usage(format!(
            "--time-format `{pattern}`: %Z (a zone's name such as EST or CET) cannot place a time, \
             as each name means different offsets in different places; match the name as text \
             instead (`… EST` in the pattern) and pass --timezone with the zone (America/New_York), \
             or use %z for numeric offsets (+0100)"
        )));
    }
    let dir = database_dir(ctx, &args.files)?;
    let exists = dir.join(CONFIG_FILE).exists();
    if !exists {
        // The nearest path of `dir` that exists must be a directory to create the database in;
        // found now, before the inference report, not as "Not a directory" after it.
        if let Some(file) = dir
            .ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .find_map(|a| std::fs::metadata(a).ok().map(|m| (a, m.is_dir())))
            .and_then(|(a, is_dir)| (!is_dir).then_some(a))
        {
            return Err(Failure::usage(format!(
                "{} is a file, not a directory: the database needs a directory (an existing \
                 database, or a path to create one at)",
                file.display()
            )));
        }
    }
    // Into an existing database, a header is recognised by the names it shares with it, and
    // numbers that do not show their decimal mark are read with the one it records.
    let existing = exists.then(|| xs::db::config::Config::load(&dir).ok()).flatten();
    let known_names: Vec<String> = match &existing {
        Some(config) => std::iter::once(config.time_column.clone())
            .chain(config.schema.columns().iter().map(|c| c.name.clone()))
            .chain(time_columns.iter().cloned())
            .collect(),
        None => Vec::new(),
    };
    let recorded_decimal_comma = existing.as_ref().is_some_and(|c| c.decimal_comma);
    // A path that names nothing is a mistake in the command (exit 2), not a failure.
    if let Some(missing) = args.files.iter().find(|f| {
        f.as_os_str() != "-"
            && std::fs::symlink_metadata(f).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
    }) {
        return Err(Failure::usage(format!(
            "{}: no such file or directory; check the path",
            missing.display()
        )));
    }
    // Parquet and Arrow inputs are opened; their schema gives the types, their batches go to
    // the import as they are.
    let existing_time = if exists {
        xs::db::config::Config::load(&dir).ok().map(|c| c.time_column)
    } else {
        None
    };
    let columnar = xs::import::columnar_in::open_inputs(
        &args.files,
        time_columns
            .first()
            .map(String::as_str)
            .or(existing_time.as_deref()),
        !exists,
    )?;
    if args.no_header && !columnar.inputs.is_empty() {
        return Err(Failure::usage(
            "--no-header is for CSV: a Parquet or Arrow input names its columns in its schema",
        ));
    }
    let all_columnar = columnar.inputs.len() == args.files.len();
    let mut time_columns = time_columns;
    let mut time_unit = time_unit;
    let mut column_types = column_types;
    // Epoch numbers whose unit no one gave are read in the unit their magnitude says: a
    // Parquet timestamp's unit is its own, not a CSV's after it.
    let unit_by_magnitude = time_unit.is_none();
    let (mut time_column_from_schema, mut time_unit_from_schema) = (false, false);
    if let Some((name, unit)) = &columnar.time {
        if time_columns.is_empty() {
            time_columns.push(name.clone());
            time_column_from_schema = true;
        }
        if time_columns.first() == Some(name) && time_unit.is_none() {
            time_unit = Some(*unit);
            time_unit_from_schema = true;
        }
    }
    for (name, ty) in &columnar.types {
        if !column_types.iter().any(|(n, _)| n == name) {
            column_types.push((name.clone(), *ty));
        }
    }
    if !args.quiet {
        for note in &columnar.notes {
            eprintln!("xs: {note}");
        }
    }
    let csv = CsvOptions {
        delimiter: delimiter.unwrap_or(b','),
        has_header: !args.no_header,
        skip_lines: args.skip_lines.unwrap_or(0),
        sep_line: false,
        unit_lines: false,
        column_names: if args.no_header { column_names } else { None },
        decimal_comma: args.decimal_comma,
        thousands: match &args.thousands {
            Some(Thousands(mark)) => mark.clone(),
            None => None,
        },
        nulls: nulls.clone(),
        // Offsets inside a chunk are u32: keep chunks far below 4 GiB.
        chunk_bytes: args.chunk_bytes.clamp(1, 256 << 20),
        sniff: Sniff {
            delimiter: delimiter.is_none(),
            header: !args.header && !args.no_header && !all_columnar,
            preamble: args.skip_lines.is_none() && !args.no_header,
            decimal_comma: !args.decimal_comma && !args.decimal_point,
            thousands: args.thousands.is_none(),
            recorded_decimal_comma,
            known_names,
        },
        columnar: columnar.inputs.clone(),
        pipes: columnar.pipes.clone(),
        comments: Vec::new(),
        encoding: match &args.encoding {
            Some(label) => xs::import::input::encoding_of(label)?,
            None => None,
        },
    };
    let mut prepared = xs::import::prepare(&args.files, &csv)?;
    // Said even with -q: a nightly import of a directory must not pass over a file unsaid.
    let left_out = xs::import::input::left_out_of_directories(&args.files);
    if !left_out.is_empty() {
        let mut names: Vec<String> = left_out
            .iter()
            .take(10)
            .map(|p| p.display().to_string())
            .collect();
        if left_out.len() > names.len() {
            names.push(format!("and {} more", left_out.len() - names.len()));
        }
        eprintln!(
            "xs: warning: {} file(s) in the directories given are not imported, as only .csv and \
             .tsv files (also .gz or .zst) that are not hidden are: {}; name a file to import it \
             whatever its name",
            left_out.len(),
            names.join(", ")
        );
    }

    let mut overrides = Overrides {
        time_columns: time_columns.clone(),
        date_ns,
        zone: zone.clone(),
        dst,
        nulls,
        time_unit,
        time_format: args.time_format.clone(),
        types: column_types,
        series: args
            .series_by
            .as_deref()
            .map(|s| super::create::key_list(Some(s))),
        unique: args
            .unique_by
            .as_deref()
            .map(|s| super::create::key_list(Some(s))),
        time_column_from_schema,
        time_unit_from_schema,
        ..Overrides::default()
    };
    // Whether naive times are read in the zone the database records (said in the summary).
    let mut zone_from_db = false;
    let (db, time_format, time_columns, date) = if exists {
        for (given, name) in [
            (args.granularity.is_some(), "--granularity"),
            (args.depth.is_some(), "--depth"),
            (args.partition.is_some(), "--partition"),
            (args.bucket.is_some(), "--bucket"),
            (args.layout.is_some(), "--layout"),
            (args.codec.is_some(), "--codec"),
        ] {
            if given {
                eprintln!(
                    "xs: warning: {name} is ignored: {} exists and keeps its settings",
                    dir.display()
                );
            }
        }
        let db = open_write(ctx, &dir)?;
        check_keys_match(db.config(), &overrides)?;
        if prepared.sample.names.is_empty() && time_columns.is_empty() {
            if let Some((k, names)) = xs::import::continuation_names(db.config(), &prepared.sample) {
                // The rest of a split file: read in its own order, not the database's.
                if !args.quiet {
                    eprintln!(
                        "xs: no header, and the times are in field {} of each line, not the first: \
                         the fields are read as {} (pass --no-header --columns to name them)",
                        k + 1,
                        names.join(",")
                    );
                }
                prepared.sample.header_text = vec![String::new(); names.len()];
                prepared.sample.names = names.clone();
                prepared.csv.column_names = Some(names);
            }
        }
        let (format, date, from_db) = existing_time_plan(
            db.config(),
            &prepared,
            &time_columns,
            (&mut zone, &mut overrides),
            &args,
        )?;
        zone_from_db = from_db;
        (db, format, time_columns, date)
    } else {
        if prepared.sample.names.is_empty() {
            // A headerless input without names: column_1, column_2…, used by the import too.
            let width = prepared.sample.rows.max_width();
            let names: Vec<String> = (1..=width).map(|i| format!("column_{i}")).collect();
            prepared.sample.header_text = vec![String::new(); names.len()];
            prepared.sample.names = names.clone();
            prepared.csv.column_names = Some(names);
        }
        overrides.granularity = match &args.granularity {
            Some(text) => Some(parse_granularity(text)?),
            None => None,
        };
        overrides.depth = args.depth;
        overrides.layout = match args.layout.as_deref() {
            None => None,
            Some("grid") => Some(Layout::Grid),
            Some("bucket") => Some(Layout::Bucket),
            Some(other) => {
                return Err(Failure::usage(format!(
                    "bad --layout `{other}`: grid (regular series) or bucket (ticks)"
                )))
            }
        };
        overrides.bucket_ns =
            match &args.bucket {
                Some(text) => Some(parse_duration(text).ok_or_else(|| {
                    Failure::usage(format!("bad --bucket `{text}`: write e.g. 100ms, 1s, 1m"))
                })?),
                None => None,
            };
        overrides.codec = match args.codec.as_deref() {
            None => None,
            Some(text) => Some(
                RecordCodec::parse(text)
                    .ok_or_else(|| Failure::usage(format!("bad --codec `{text}`: raw or columnar")))?,
            ),
        };
        overrides.period = match &args.partition {
            Some(p) => Some(
                Period::parse(p)
                    .ok_or_else(|| Failure::usage(format!("bad --partition `{p}`: year, month or day")))?,
            ),
            None => None,
        };
        if args.encoding.is_none() {
            refuse_other_encodings(&prepared.sample)?;
        }
        let mut inference = infer::infer(&prepared.sample, &overrides)?;
        if args.timezone.is_none() {
            let idx: Vec<usize> = inference
                .time_columns
                .iter()
                .filter_map(|name| prepared.sample.names.iter().position(|n| n == name))
                .collect();
            if let Some((stated, note)) = zone_in_header(&prepared.sample, &idx) {
                // Placed in the zone the header states: inferred again, as the times move.
                overrides.zone = stated.clone();
                zone = stated;
                inference = infer::infer(&prepared.sample, &overrides)?;
                // In place of the report's "times without a zone are read in …": it says why.
                match inference
                    .notes
                    .iter()
                    .position(|n| n.starts_with("times without a zone"))
                {
                    Some(i) => inference.notes[i] = note,
                    None => inference.notes.push(note),
                }
            }
        }
        check_dated(prepared.sources(), &inference.date)?;
        // Recorded, so that the next file's `1.500` reads as this one's numbers did.
        inference.config.decimal_comma = prepared.csv.decimal_comma;
        report_inference(&dir, &prepared.sample, &inference, args.quiet);
        let wait = if ctx.wait { LockWait::Yes } else { LockWait::No };
        match Database::create_or_open(&dir, &inference.config, wait, &mut waiting_on(&dir))? {
            Creation::Created(db) => (db, inference.time_format, inference.time_columns, inference.date),
            Creation::Opened(db) => {
                eprintln!(
                    "xs: {} was created meanwhile (by another import); importing into it with its settings",
                    dir.display()
                );
                warn_unfinished(&dir);
                let (format, date, from_db) = existing_time_plan(
                    db.config(),
                    &prepared,
                    &time_columns,
                    (&mut zone, &mut overrides),
                    &args,
                )?;
                zone_from_db = from_db;
                (db, format, time_columns, date)
            }
        }
    };

    // Times with offsets (`+01:00`) and some without: reading those as UTC would misplace them
    // by the offset. Refused unless a zone is given (a header's or the database's counts).
    let refuse_naive = args.timezone.is_none()
        && zone == Zone::Utc
        && xs::import::time_sources(
            &prepared.sample.names,
            &prepared.sample.header_text,
            &time_columns,
            &db.config().time_column,
        )
        .is_some_and(|idx| sampled_times_carry_zones(&prepared.sample, &idx, &time_format));
    let opts = Options {
        csv: prepared.csv.clone(),
        time_columns,
        time: TimeSpec {
            format: time_format,
            zone,
            dst,
            unit_by_magnitude,
            format_detected: args.time_format.is_none(),
            refuse_naive,
        },
        date,
        ignore_unknown_columns: args.ignore_columns,
        update_columns: args.update_columns,
        floor_time: args.floor_time,
        rejects_path: args
            .rejects
            .clone()
            .unwrap_or_else(|| xs::import::default_rejects_path(&dir)),
        sync: !args.no_sync,
        threads: args.threads,
        rerun_command: rerun_command(&dir),
        kill_after_journal: std::env::var(KILL_AT_ENV).is_ok_and(|v| v == "journaled"),
        hold_bytes: match std::env::var(HOLD_BYTES_ENV) {
            Ok(text) => text
                .parse()
                .map_err(|_| Failure::usage(format!("{HOLD_BYTES_ENV}: not a byte count: `{text}`")))?,
            Err(_) => xs::import::HOLD_BYTES,
        },
        defer_sync_after_series: match std::env::var(DEFER_SYNC_ENV) {
            Ok(text) => text
                .parse()
                .map_err(|_| Failure::usage(format!("{DEFER_SYNC_ENV}: not a count: `{text}`")))?,
            Err(_) => xs::import::DEFER_SYNC_AFTER_SERIES,
        },
    };
    let total_bytes: u64 = prepared.sources().iter().map(|s| s.len_bytes).sum();
    let bar = (!args.quiet && std::io::stderr().is_terminal()).then(|| progress_bar(total_bytes));
    let on_progress = |p: Progress| {
        if let Some(bar) = &bar {
            bar.set_position(p.raw_bytes);
            bar.set_message(format!("{} rows", p.rows_read));
        }
    };
    let preamble_zone = prepared.sample.preamble_zone.clone();
    let input_names: Vec<String> = prepared.sources().iter().map(|s| s.name.clone()).collect();
    let summary = xs::import::run(&db, prepared, &opts, &on_progress)?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if !args.quiet {
        print_summary(&dir, &opts, &db.config().keys.unique, &summary, zone_from_db);
    }
    if summary.rows_removed > 0 {
        let keys = &db.config().keys;
        let unique = if keys.unique.is_empty() {
            "; if this input continues an earlier one (a day split into files), the database needs \
             a unique key: create it with --unique-by COLS (an id column such as trade_id)"
        } else {
            ""
        };
        // Another series' file replaces a series' rows where no key tells them apart.
        let series = if keys.series.is_empty() {
            "; if it holds other series (symbols, hosts, regions) than the rows it replaced, the \
             database needs a series key: create it with --series-by COLS"
        } else {
            ""
        };
        let hint = format!("{unique}{series}");
        eprintln!(
            "xs: warning: this import removed {} stored row(s): it replaced the rows of timestamps it \
             holds with fewer rows of its own (an import replaces each timestamp's rows){hint}",
            summary.rows_removed
        );
    }
    // (With --update-columns, files of other columns at the same times update the same rows.)
    if db.config().keys.series.is_empty() && !args.update_columns {
        warn_overlapping_inputs(
            &summary.file_spans,
            &input_names,
            db.config().granularity.fraction_digits(),
        );
    }
    // Naive times read as UTC by default (not in a zone the header stated).
    if summary.naive_times && args.timezone.is_none() && opts.time.zone == Zone::Utc {
        let column = match opts.time_columns.as_slice() {
            [] => db.config().time_column.clone(),
            named => named.join("+"),
        };
        if let Some(zone) = zone_in_name(&column) {
            eprintln!(
                "xs: warning: times without a zone were read as UTC, but the time column's name \
                 `{column}` says {zone}: if they are local times, import them into a new \
                 database with --timezone ZONE (an IANA name such as Europe/Berlin or \
                 America/New_York); --timezone UTC says they are UTC"
            );
        } else if let Some(zone) = preamble_zone {
            eprintln!(
                "xs: warning: times without a zone were read as UTC, but the lines before the \
                 header name the zone {}: if the times are local to it, import them into a new \
                 database with --timezone {}; --timezone UTC says they are UTC",
                zone.describe(),
                zone.spelling()
            );
        }
    }
    if summary.rows_rejected > args.max_rejects {
        let path = summary
            .rejects_path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        return Err(Failure::new(
            REJECTED,
            format!(
                "{} row(s) rejected (allowed: --max-rejects {}); they are listed in {path}",
                summary.rows_rejected, args.max_rejects
            ),
        ));
    }
    Ok(())
}

/// Two inputs of one command whose rows cover the same times, in a database without a series
/// key: their rows are kept side by side at those times as one series (a day split into files
/// shares at most the one timestamp of the cut). Per-symbol files without a symbol column
/// (MetaTrader's EURUSD.csv and GBPUSD.csv) were mixed so without a word.
fn warn_overlapping_inputs(spans: &[Option<(i64, i64)>], names: &[String], digits: u32) {
    let mut spans: Vec<(usize, (i64, i64))> = spans
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.map(|s| (i, s)))
        .collect();
    // By first time: an input overlaps an earlier-starting one iff it starts before the
    // latest end so far (the one ending there).
    spans.sort_by_key(|&(i, (first, _))| (first, i));
    let mut latest: Option<(usize, (i64, i64))> = None;
    let mut overlap = None;
    for &(j, b) in &spans {
        if let Some((i, a)) = latest.filter(|&(_, a)| b.0 < a.1 && a.0 < b.1) {
            overlap = Some((i.min(j), i.max(j), b.0, a.1.min(b.1)));
            break;
        }
        if latest.is_none_or(|(_, a)| b.1 > a.1) {
            latest = Some((j, b));
        }
    }
    if let Some((i, j, from, to)) = overlap {
        let (Some(a), Some(b)) = (names.get(i), names.get(j)) else {
            return;
        };
        eprintln!(
            "xs: warning: {a} and {b} both hold rows from {} to {}; with no series key, their rows \
             at the same times are stored side by side as one series: if they are different series \
             (symbols, hosts), give each its own database, or add a column that names the series \
             and create the database with --series-by",
            xs::io::timefmt::format_iso(from, digits),
            xs::io::timefmt::format_iso(to, digits)
        );
    }
}

/// Whether some of the sample's times in the columns `idx` that `format` reads carry a zone or
/// an offset: then one without is not known to be UTC.
fn sampled_times_carry_zones(
    sample: &xs::import::Sample,
    idx: &[usize],
    format: &xs::import::timeparse::TimeFormat,
) -> bool {
    use xs::import::timeparse::TimeFormat;
    !matches!(format, TimeFormat::Epoch(_))
        && xs::import::infer::time_values(sample, idx)
            .iter()
            .any(|value| matches!(format.parse(value), Ok((_, false))))
}

/// The local zone a time column's name mentions (`MTU (CET/CEST)`, `Time (EST)`,
/// `local_time`), as its words in capitals (`CET/CEST`, `local time`): such times are likely
/// local, so reading them as UTC needs a word to the user.
fn zone_in_name(name: &str) -> Option<String> {
    const ZONES: [&str; 47] = [
        "cet", "cest", "eet", "eest", "wet", "west", "bst", "msk", "est", "edt", "cst", "cdt", "mst", "mdt",
        "pst", "pdt", "jst", "kst", "aest", "aedt", "mez", "mesz", "hkt", "sgt", "ist", "nzst", "nzdt",
        "wib", "wita", "brt", "art", "hst", "akst", "akdt", "sast", "pkt", "ict", "awst", "acst", "acdt",
        "cat", "eat", "wat", "eastern", "pacific", "mountain", "central",
    ];
    // US tables write the zone without its season (`Time (ET)`, named `time_et`): taken only
    // as the last word after a time word, as `et` is also a word (`Date et heure`).
    const SEASONLESS: [&str; 4] = ["et", "ct", "mt", "pt"];
    const TIME_WORDS: [&str; 5] = ["time", "date", "datetime", "timestamp", "ts"];
    let words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_lowercase)
        .collect();
    if words.iter().any(|w| w == "local") || words.windows(2).any(|w| w[0] == "new" && w[1] == "york") {
        return Some("local time".into());
    }
    let said: Vec<&String> = words.iter().filter(|w| !w.is_empty()).collect();
    if let [.., before, last] = said.as_slice() {
        if SEASONLESS.contains(&last.as_str()) && TIME_WORDS.contains(&before.as_str()) {
            return Some(last.to_ascii_uppercase());
        }
    }
    // An offset the import did not take (two of them, or beside a bare UTC): `UTC+01:00`.
    if words.windows(2).any(|w| {
        (w[0] == "utc" || w[0] == "gmt")
            && w[1].bytes().all(|b| b.is_ascii_digit())
            && w[1].bytes().any(|b| b != b'0')
    }) {
        return Some("an offset from UTC".into());
    }
    let found: Vec<String> = words
        .iter()
        .filter(|w| ZONES.contains(&w.as_str()))
        .map(|w| w.to_ascii_uppercase())
        .collect();
    (!found.is_empty()).then(|| found.join("/"))
}

/// `--series-by`/`--unique-by` into an existing database must say what it has: the keys are
/// fixed when the database is created.
fn check_keys_match(config: &xs::db::config::Config, o: &Overrides) -> CliResult {
    for (given, has, flag) in [
        (&o.series, &config.keys.series, "--series-by"),
        (&o.unique, &config.keys.unique, "--unique-by"),
    ] {
        if let Some(given) = given.as_ref().filter(|g| *g != has) {
            let show = |k: &Vec<String>| {
                if k.is_empty() {
                    "none".to_string()
                } else {
                    k.join(",")
                }
            };
            return Err(Failure::usage(format!(
                "{flag} {}: the database's key is {} and cannot change (export and import into a \
                 new database to change it)",
                show(given),
                show(has)
            )));
        }
    }
    Ok(())
}

/// With times of day dated by file names, every input's name must hold a date: checked before
/// anything is created or written, not at the first input without one.
fn check_dated(sources: &[xs::import::input::Source], date: &DateSource) -> CliResult {
    if *date != DateSource::FileName {
        return Ok(());
    }
    match sources
        .iter()
        .find(|s| xs::import::dialect::date_in_name(&s.name).is_none())
    {
        Some(source) => Err(Failure::usage(format!(
            "{}: the times are times of day and this file name holds no date; pass --date \
             YYYY-MM-DD (the day they fall on), or import it on its own",
            source.name
        ))),
        None => Ok(()),
    }
}

/// `-d`, else the current directory if it is a database, else `./<stem of the first file>`.
fn database_dir(ctx: &Context, files: &[PathBuf]) -> CliResult<PathBuf> {
    if let Some(dir) = &ctx.db {
        return Ok(dir.clone());
    }
    if Path::new(CONFIG_FILE).exists() {
        return Ok(PathBuf::from("."));
    }
    let first = &files[0];
    if first.as_os_str() == "-" {
        return Err(Failure::usage(
            "importing stdin needs a database: pass -d DIR (it is created if it does not exist)",
        ));
    }
    let name = first
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if first.is_dir() {
        // Named after the directory, the database would be the input directory itself.
        return Err(Failure::usage(format!(
            "{} is a directory of input files; name the database to create or add to with -d, \
             e.g. xs -d {name}-db import {}",
            first.display(),
            first.display()
        )));
    }
    let mut stem = name.as_str();
    for ext in [
        ".gz", ".zst", ".csv", ".tsv", ".txt", ".parquet", ".arrow", ".arrows", ".ipc", ".feather",
    ] {
        stem = stem.strip_suffix(ext).unwrap_or(stem);
    }
    if stem.is_empty() || stem == "." || stem == ".." {
        return Err(Failure::usage(format!(
            "cannot name a database after {}; pass -d DIR",
            first.display()
        )));
    }
    Ok(PathBuf::from(stem))
}

/// How the input's times are read into an existing database: the time columns found in the
/// sample, the format detected from it, and where dates come from. Prints the sample's notes.
/// Sets `zone` (and the overrides') for naive times: `--timezone`, else a zone the header
/// states, else the database's; returns with the rest whether the database's zone, not
/// UTC, was taken (the summary says so).
fn existing_time_plan(
    config: &xs::db::config::Config,
    prepared: &xs::import::Prepared,
    time_columns: &[String],
    (zone, overrides): (&mut Zone, &mut Overrides),
    args: &Args,
) -> CliResult<(xs::import::timeparse::TimeFormat, DateSource, bool)> {
    if args.timezone.is_none() {
        *zone = config.timezone.clone();
        overrides.zone = zone.clone();
    }
    let mut sample = prepared.sample.clone();
    if sample.names.is_empty() {
        // Without a header: the columns as the import reads them.
        sample.names = xs::import::headerless_names(config);
        sample.header_text = vec![String::new(); sample.names.len()];
    }
    let idx = xs::import::time_sources(
        &sample.names,
        &sample.header_text,
        time_columns,
        &config.time_column,
    )
    .unwrap_or_default();
    let (format, date, note) = infer::existing_time_format(
        &sample,
        &idx,
        overrides,
        args.time_format.as_deref(),
        config.date_order,
    )?;
    check_dated(prepared.sources(), &date)?;
    let stated = zone_in_header(&sample, &idx).filter(|_| args.timezone.is_none());
    if !args.quiet {
        let zone_note = stated.as_ref().map(|(_, n)| n);
        for n in sample.notes.iter().chain(note.iter()).chain(zone_note) {
            eprintln!("xs: {n}");
        }
        // Said always when the database was created; a nightly -q import is not told again.
        for warning in &sample.warnings {
            eprintln!("xs: warning: {warning}");
        }
    }
    let from_db = args.timezone.is_none() && stated.is_none() && *zone != Zone::Utc;
    if let Some((stated, _)) = stated {
        *zone = stated;
    }
    Ok((format, date, from_db))
}

/// The zone the header of the time column(s) `idx` states (`Timestamp (UTC+01:00)`), with the
/// note that says so: naive times are read in it unless `--timezone` says otherwise.
fn zone_in_header(sample: &xs::import::Sample, idx: &[usize]) -> Option<(Zone, String)> {
    idx.iter().find_map(|&i| {
        let text = sample.header_text.get(i)?;
        let zone = Zone::in_header(text)?;
        let note = format!(
            "times without a zone are read in {}, as the header `{text}` says (pass --timezone to \
             choose)",
            zone.describe()
        );
        Some((zone, note))
    })
}

fn open_write(ctx: &Context, dir: &Path) -> CliResult<Database> {
    let wait = if ctx.wait { LockWait::Yes } else { LockWait::No };
    let db = Database::open(dir, Access::Write(wait), &mut waiting_on(dir))?;
    warn_unfinished(dir);
    Ok(db)
}

/// Says on stderr that this process waits for the writer lock of `dir`.
fn waiting_on(dir: &Path) -> impl FnMut(Option<&str>) + '_ {
    move |holder: Option<&str>| {
        let holder = holder.map(|h| format!(" ({h})")).unwrap_or_default();
        eprintln!("xs: waiting for the writer lock on {}{holder}…", dir.display());
    }
}

fn warn_unfinished(dir: &Path) {
    super::warn_unfinished_deletes(dir);
    if let Some(rerun) = xs::db::marker::unfinished_import(dir) {
        eprintln!(
            "xs: warning: an earlier import into {} did not finish ({rerun}); this import completes \
             it only if it covers the same input",
            dir.display()
        );
    }
}

/// Prints what was inferred (unless `quiet`) and any warning that calls for action (always).
fn report_inference(dir: &Path, sample: &xs::import::Sample, inference: &infer::Inference, quiet: bool) {
    for warning in &sample.warnings {
        eprintln!("xs: warning: {warning}");
    }
    if quiet {
        if let Some(f) = inference
            .footprint
            .as_ref()
            .filter(|_| inference.config.layout == Layout::Grid)
        {
            warn_footprint(f, inference);
        }
        return;
    }
    let from = if sample.head_only {
        format!(
            "the first {} rows (only the head of a stream or a compressed file is sampled)",
            sample.rows.len()
        )
    } else if sample.spread {
        format!("{} rows sampled across the file", sample.rows.len())
    } else {
        format!("all {} rows", sample.rows.len())
    };
    eprintln!(
        "xs: {} does not exist; creating it from {from} of {}:",
        dir.display(),
        sample.source_name
    );
    for note in &sample.notes {
        eprintln!("  {note}");
    }
    for note in &inference.notes {
        eprintln!("  {note}");
    }
    eprintln!(
        "  columns: {} (rows of {} bytes)",
        inference.config.schema.spec(),
        inference.config.schema.row_len()
    );
    if let (Some(f), Layout::Bucket) = (&inference.footprint, inference.config.layout) {
        let total = match (f.est_rows, f.est_disk_bytes) {
            (Some(rows), Some(bytes)) => format!(", about {} on disk for ~{rows} rows", human_bytes(bytes)),
            _ => String::new(),
        };
        eprintln!(
            "  footprint: about {:.0} bytes on disk per row (row, time offset, directory), {:.2}× the input{total}",
            f.disk_bytes_per_row,
            f.ratio()
        );
    } else if let Some(f) = &inference.footprint {
        let total = match (f.est_rows, f.est_disk_bytes) {
            (Some(rows), Some(bytes)) => format!(", about {} on disk for ~{rows} rows", human_bytes(bytes)),
            _ => String::new(),
        };
        eprintln!(
            "  footprint: a 4 KiB block holds up to {:.0} rows; the sample fills it with {:.1} \
             → {:.0} bytes on disk per row, {:.1}× the input{total}",
            f.rows_per_block_max,
            f.rows_per_block_sample,
            f.disk_bytes_per_row,
            f.ratio()
        );
        warn_footprint(f, inference);
    }
    eprintln!(
        "  same as: {}",
        inference.create_command(&dir.display().to_string())
    );
}

/// The warning for a grid that takes many times its input on disk. A coarser granularity is
/// advised only below one day, the coarsest there is.
fn warn_footprint(f: &infer::Footprint, inference: &infer::Inference) {
    if f.ratio() >= 4.0 {
        let coarser = if inference.config.granularity.ns() < xs::db::time::NS_PER_DAY {
            "A coarser --granularity with --floor-time (which rounds the times down) packs them \
             tighter, or --layout bucket"
        } else {
            "1d is the coarsest granularity; --layout bucket"
        };
        eprintln!(
            "xs: warning: this grid will take about {:.0}× the input's size on disk: the rows are \
             sparse on a {} grid. {coarser} stores each row with its exact time",
            f.ratio(),
            inference.config.granularity
        );
    }
}

fn print_summary(dir: &Path, opts: &Options, unique: &[String], s: &Summary, zone_from_db: bool) {
    let secs = s.elapsed.as_secs_f64().max(1e-9);
    let parts: Vec<String> = s.partitions.iter().map(|k| k.to_string()).collect();
    let parts = if parts.len() > 6 {
        format!("{} … {}", parts[0], parts[parts.len() - 1])
    } else {
        parts.join(", ")
    };
    eprintln!(
        "imported {} file(s) into {}: {} rows read, {} stored, {} rejected; {} partition(s) ({parts}); \
         {:.2} s, {:.0} rows/s, {:.1} MB/s",
        s.files,
        dir.display(),
        s.rows_read,
        s.rows_stored,
        s.rows_rejected,
        s.partitions.len(),
        secs,
        s.rows_read as f64 / secs,
        s.bytes_read as f64 / secs / 1e6
    );
    if s.series > 0 {
        eprintln!("  {} series written", s.series);
    }
    if s.rows_replaced > 0 || s.rows_removed > 0 {
        let done = if opts.update_columns {
            "updated"
        } else {
            "replaced"
        };
        let removed = if s.rows_removed > 0 {
            format!(", {} removed", s.rows_removed)
        } else {
            String::new()
        };
        if unique.is_empty() || opts.update_columns {
            eprintln!("  {} stored row(s) {done}{removed}", s.rows_replaced);
        } else {
            // A row of the input may replace an earlier one of the same input, which the rows
            // stored counted too: said, so that "3 stored" over 2 rows in the database adds up.
            eprintln!(
                "  {} row(s) replaced by a later row with the same time and {} (rows stored \
                 before, or earlier rows of this input){removed}",
                s.rows_replaced,
                unique.join(",")
            );
        }
    }
    if s.naive_times {
        let why = match zone_from_db {
            true => " (the database's zone; --timezone decides for one import)",
            false => "",
        };
        eprintln!(
            "  times without a zone were read as {}{why}",
            opts.time.zone.describe()
        );
    }
    if s.null_tokens > 0 {
        eprintln!(
            "  {} field(s) held a null token (NA, null, --null…) and were stored as null",
            s.null_tokens
        );
    }
    if s.comment_lines > 0 {
        eprintln!("  {} comment line(s) (`#`) skipped", s.comment_lines);
    }
    if s.header_lines > 0 {
        eprintln!("  {} line(s) repeating the header skipped", s.header_lines);
    }
    for note in &s.notes {
        eprintln!("  {note}");
    }
    if s.floored_times > 0 {
        eprintln!(
            "  {} time(s) rounded down to the granularity (--floor-time)",
            s.floored_times
        );
    }
    if let Some(path) = &s.rejects_path {
        eprintln!("  rejected rows: {}", path.display());
    }
    if !opts.sync {
        eprintln!("  not synced to disk (--no-sync)");
    }
}

fn progress_bar(total_bytes: u64) -> indicatif::ProgressBar {
    let bar = if total_bytes > 0 {
        indicatif::ProgressBar::new(total_bytes)
    } else {
        indicatif::ProgressBar::new_spinner()
    };
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:30} {bytes}/{total_bytes} {bytes_per_sec} {msg} eta {eta}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// The command that completes this import, recorded in the unfinished-import marker.
fn rerun_command(dir: &Path) -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut words = vec![
        "xs".to_string(),
        "-d".into(),
        shell_word(&dir.display().to_string()),
    ];
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if a == "-d" || a == "--db" {
            i += 2;
            continue;
        }
        if a.starts_with("--db=") || (a.starts_with("-d") && !a.starts_with("--") && a.len() > 2) {
            i += 1;
            continue;
        }
        words.push(shell_word(a));
        i += 1;
    }
    match std::env::current_dir() {
        Ok(cwd) => format!(
            "cd {} && {}",
            shell_word(&cwd.display().to_string()),
            words.join(" ")
        ),
        Err(_) => words.join(" "),
    }
}

fn parse_delimiter(text: &str) -> CliResult<u8> {
    let b = match text {
        "tab" | "\\t" | "\t" => b'\t',
        t if t.len() == 1 && t.is_ascii() => t.as_bytes()[0],
        _ => {
            return Err(Failure::usage(format!(
                "bad --delimiter `{text}`: one ASCII character, or `tab`"
            )))
        }
    };
    if b == b'"' || b == b'\n' || b == b'\r' {
        return Err(Failure::usage("the delimiter cannot be a quote or a line end"));
    }
    Ok(b)
}

/// `YYYY-MM-DD` → ns of that midnight (UTC, or local midnight with --timezone).
fn parse_date(text: &str) -> CliResult<i64> {
    let bad = || Failure::usage(format!("bad --date `{text}`: write it as YYYY-MM-DD"));
    if text.len() != 10 {
        return Err(bad());
    }
    xs::io::timefmt::parse_iso(text.as_bytes()).ok_or_else(bad)
}

fn parse_granularity(text: &str) -> CliResult<Granularity> {
    parse_duration(text)
        .and_then(Granularity::from_ns)
        .ok_or_else(|| {
            Failure::usage(format!(
                "bad --granularity `{text}`: a duration that divides one day, e.g. 1ms, 1s, 1m"
            ))
        })
}

type ColumnList = (Option<Vec<String>>, Vec<(String, ColumnType)>);

/// `a,b:f64,c:str(8)` → names, and the types given.
fn parse_column_list(list: &str) -> CliResult<ColumnList> {
    let mut names = Vec::new();
    let mut types = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut parts = Vec::new();
    for (i, c) in list.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    for part in parts {
        let part = part.trim();
        match part.split_once(':') {
            Some((name, ty)) => {
                let ty =
                    ColumnType::parse(ty).map_err(|e| Failure::usage(format!("--columns: `{name}`: {e}")))?;
                names.push(name.trim().to_string());
                types.push((name.trim().to_string(), ty));
            }
            None => names.push(part.to_string()),
        }
    }
    if names.iter().any(String::is_empty) {
        return Err(Failure::usage("--columns has an empty name"));
    }
    Ok((Some(names), types))
}

/// A new database is not inferred from text that is not UTF-8: its columns would be typed from
/// the other rows, and every row with such text rejected. The file is in another encoding;
/// `--encoding` names it (`--encoding utf-8` imports it as it is, rejecting those rows).
fn refuse_other_encodings(sample: &xs::import::Sample) -> Result<(), Failure> {
    // The header's text was read leniently: a byte that is not UTF-8 became U+FFFD.
    if let Some(text) = sample.header_text.iter().find(|t| t.contains('\u{FFFD}')) {
        let shown = xs::import::printable(text);
        return Err(Failure::usage(format!(
            "{}: the header is not UTF-8 (`{shown}`); is it a text file? Name the file's encoding \
             with --encoding (windows-1252 for most files from Excel or other Windows programs in \
             Western Europe and the Americas), or --encoding utf-8 to import it as UTF-8",
            sample.source_name
        )));
    }
    let Some((column, bytes)) = sample.rows.first_non_utf8() else {
        return Ok(());
    };
    let name = sample.names.get(column).map_or("?", String::as_str);
    let cut = &bytes[..bytes.len().min(xs::import::SHOWN_CHARS)];
    let mut shown: String = cut
        .utf8_chunks()
        .flat_map(|chunk| {
            let bad: String = chunk.invalid().iter().map(|b| format!("\\x{b:02X}")).collect();
            [xs::import::printable(chunk.valid()), bad]
        })
        .collect();
    let (western, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(cut);
    let mut western = xs::import::printable(&western);
    if cut.len() < bytes.len() {
        shown.push('…');
        western.push('…');
    }
    Err(Failure::usage(format!(
        "{}: the text is not UTF-8 (column `{name}` holds `{shown}`, which reads `{western}` in \
         windows-1252); name the file's encoding with --encoding: windows-1252 for most files \
         from Excel or other Windows programs in Western Europe and the Americas, iso-8859-2, \
         shift_jis…; or --encoding utf-8 to import it as UTF-8, rejecting the rows that are not",
        sample.source_name
    )))
}
