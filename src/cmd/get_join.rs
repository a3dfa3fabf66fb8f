//! `xs get --asof --join FILE` (or `get --asof -`): the as-of join of an input's rows with the
//! database, in the sense of pandas `merge_asof` and DuckDB `ASOF JOIN`. Every input row is
//! printed once, in input order, with the columns of its match appended (prefixed with the
//! database's name), empty when nothing matched.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use xs::db::series::name_from_parts;
use xs::import::timeparse::{epoch_magnitude, is_epoch_number, parse_epoch_bytes, unit_by_magnitude};
use xs::io::output::{write_csv_str, write_tsv_str, Format, RowFormatter};
use xs::io::timefmt::EpochUnit;
use xs::query::asof_join::{asof_join, Matches, Strategy};
use xs::Database;

use super::Output;
use crate::exit::{CliResult, Failure};

/// What the join needs besides the database.
pub struct JoinArgs<'a> {
    /// The input: a path, or `-` for stdin.
    pub input: &'a str,
    /// The input column holding the probe times.
    pub on: Option<&'a str>,
    /// Unit of bare epoch numbers in the input (default: by their magnitude).
    pub time_unit: Option<EpochUnit>,
    pub within_ns: Option<i64>,
    /// Prefix of the appended column names (default: the database directory's name).
    pub prefix: Option<&'a str>,
    /// The one series every row is looked up in (`--series X`), when the input has no series
    /// column.
    pub series: Option<&'a str>,
}

/// Names a time column is commonly given, for an input whose time column is not named.
const TIME_NAMES: [&str; 6] = ["time", "timestamp", "ts", "datetime", "date", "t"];

/// The input, parsed: its header (or `None`) and records.
struct Input {
    header: Option<Vec<String>>,
    records: Vec<csv::StringRecord>,
}

fn read_input(input: &str) -> CliResult<Input> {
    let mut data = Vec::new();
    let what = if input == "-" {
        "stdin".to_string()
    } else {
        input.to_string()
    };
    let read = if input == "-" {
        std::io::stdin().lock().read_to_end(&mut data)
    } else {
        std::fs::File::open(Path::new(input)).and_then(|mut f| f.read_to_end(&mut data))
    };
    read.map_err(|e| xs::Error::io("read", &what, e))?;
    // The delimiter the first line uses most: `,`, tab, `;` or `|`.
    let first = data.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let delimiter = [b',', b'\t', b';', b'|']
        .into_iter()
        .max_by_key(|d| (first.iter().filter(|b| *b == d).count(), *d == b','))
        .unwrap_or(b',');
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(data.as_slice());
    let mut records = Vec::new();
    for (i, r) in reader.records().enumerate() {
        let r = r.map_err(|e| Failure::usage(format!("{what}: record {}: {e}", i + 1)))?;
        if r.len() == 1 && r[0].trim().is_empty() {
            continue;
        }
        records.push(r);
    }
    Ok(Input {
        header: None,
        records,
    })
}

/// Whether `text` reads as a time (an ISO time, or an epoch number with or without a unit).
fn looks_like_time(text: &str) -> bool {
    let text = text.trim();
    is_epoch_number(text.as_bytes()) || xs::io::timefmt::parse_time_arg(text).is_ok()
}

pub fn run(db: &Database, formatter: &RowFormatter, args: &JoinArgs) -> CliResult {
    let format = formatter.format();
    if format == Format::Ndjson {
        return Err(Failure::usage(
            "an as-of join prints csv or tsv (the input's rows with the matches appended); use -f csv or -f tsv",
        ));
    }
    let mut input = read_input(args.input)?;
    let what = if args.input == "-" { "stdin" } else { args.input };
    // A header unless the first record's time field reads as a time.
    let config = db.config();
    if let Some(first) = input.records.first() {
        let names: Vec<String> = first.iter().map(|f| f.trim().to_string()).collect();
        let header_time = time_index(&names, args.on, &config.time_column);
        let is_data = match (args.on, header_time) {
            (Some(_), Some(_)) => false,
            _ => looks_like_time(&first[0]),
        };
        if !is_data {
            input.header = Some(names);
            input.records.remove(0);
        }
    }
    let time_at = match &input.header {
        Some(names) => time_index(names, args.on, &config.time_column).ok_or_else(|| {
            Failure::usage(format!(
                "{what}: no time column{} among {}; name it with --on",
                args.on.map(|n| format!(" `{n}`")).unwrap_or_default(),
                names.join(",")
            ))
        })?,
        None if args.on.is_some() => {
            return Err(Failure::usage(format!(
                "{what} has no header, so --on cannot name a column; its first column is the time"
            )))
        }
        None => 0,
    };

    // The probe times, in input order.
    let mut bare_max = 0u64;
    for r in &input.records {
        let text = r.get(time_at).unwrap_or("").trim();
        if is_epoch_number(text.as_bytes()) {
            bare_max = bare_max.max(epoch_magnitude(text.as_bytes()));
        }
    }
    let unit = args.time_unit.unwrap_or_else(|| unit_by_magnitude(bare_max));
    let first_line = 1 + usize::from(input.header.is_some());
    let mut times = Vec::with_capacity(input.records.len());
    for (i, r) in input.records.iter().enumerate() {
        let text = r.get(time_at).unwrap_or("").trim();
        let t = if is_epoch_number(text.as_bytes()) {
            parse_epoch_bytes(text.as_bytes(), unit).map_err(|e| e.to_string())
        } else {
            xs::io::timefmt::parse_time_arg(text)
        };
        let t = t.map_err(|e| {
            Failure::usage(format!(
                "{what}, record {}: cannot read the time `{text}`: {e}",
                i + first_line
            ))
        })?;
        times.push(t);
    }

    // The store each row is looked up in: the database, or the series its key columns name.
    let mut by_store: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    if db.is_series_root() {
        let keys = config.series_columns();
        let key_at: Option<Vec<usize>> = input.header.as_ref().and_then(|names| {
            keys.iter()
                .map(|&c| names.iter().position(|n| *n == config.schema.columns()[c].name))
                .collect()
        });
        match (key_at, args.series) {
            (_, Some(series)) => {
                let name =
                    xs::db::series::name_from_text(&config.schema, &keys, series).map_err(Failure::usage)?;
                by_store.insert(name, (0..times.len()).collect());
            }
            (Some(key_at), None) => {
                for (i, r) in input.records.iter().enumerate() {
                    let parts: Vec<&str> = key_at.iter().map(|&k| r.get(k).unwrap_or("")).collect();
                    let name = name_from_parts(&config.schema, &keys, &parts)
                        .map_err(|e| Failure::usage(format!("{what}, record {}: {e}", i + first_line)))?;
                    by_store.entry(name).or_default().push(i);
                }
            }
            (None, None) => {
                return Err(Failure::usage(format!(
                    "{what} has no series column `{}`; name each row's series in such a column, or \
                     pass --series VALUE to look every row up in one series",
                    config.keys.series.join("`,`")
                )))
            }
        }
    } else {
        by_store.insert(String::new(), (0..times.len()).collect());
    }

    let mut matches = Matches::new(config.schema.row_len());
    let mut found: Vec<Option<u32>> = vec![None; times.len()];
    let many = by_store.len() > 1;
    for (name, mut rows) in by_store {
        let series;
        let store: &Database = if db.is_series_root() {
            match db.series_db(&name, false)? {
                Some(s) => {
                    series = s;
                    &series
                }
                None => continue,
            }
        } else {
            db
        };
        rows.sort_by_key(|&i| times[i]);
        let probes: Vec<i64> = rows.iter().map(|&i| times[i]).collect();
        let hits = asof_join(store, &probes, args.within_ns, Strategy::Auto, &mut matches)?;
        for (i, hit) in rows.into_iter().zip(hits) {
            found[i] = hit;
        }
        if many {
            store.forget_partitions();
        }
    }

    // Out: the input's fields, then the match's.
    let delimiter = if format == Format::Tsv { b'\t' } else { b',' };
    let write_field = |out: &mut Vec<u8>, text: &str| {
        if format == Format::Tsv {
            write_tsv_str(out, text.as_bytes())
        } else {
            write_csv_str(out, text.as_bytes(), delimiter)
        }
    };
    let prefix = match args.prefix {
        Some(p) => p.to_string(),
        None => db
            .dir()
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "db".into()),
    };
    let mut out = Output::new();
    let width = input.header.as_ref().map_or_else(
        || input.records.iter().map(|r| r.len()).max().unwrap_or(1),
        Vec::len,
    );
    if formatter.has_header() {
        let names: Vec<String> = match &input.header {
            Some(names) => names.clone(),
            None if width == 1 => vec!["time".into()],
            None => (1..=width).map(|k| format!("column_{k}")).collect(),
        };
        for (k, name) in names.iter().enumerate() {
            if k > 0 {
                out.buf.push(delimiter);
            }
            write_field(&mut out.buf, name);
        }
        for name in formatter.names() {
            out.buf.push(delimiter);
            write_field(&mut out.buf, &format!("{prefix}.{name}"));
        }
        out.buf.push(b'\n');
    }
    let empty: Vec<u8> = vec![delimiter; formatter.names().len()];
    for (r, hit) in input.records.iter().zip(&found) {
        for k in 0..width {
            if k > 0 {
                out.buf.push(delimiter);
            }
            write_field(&mut out.buf, r.get(k).unwrap_or(""));
        }
        match hit {
            Some(k) => {
                let (t, row) = matches.get(*k);
                out.buf.push(delimiter);
                formatter.row(&mut out.buf, t, row);
                out.buf.pop(); // its newline
            }
            None => out.buf.extend_from_slice(&empty),
        }
        out.buf.push(b'\n');
        out.maybe_flush()?;
    }
    out.flush()?;
    Ok(())
}

/// The input column holding the time: `on`, else the database's time column, else a column
/// named like a time.
fn time_index(names: &[String], on: Option<&str>, db_time: &str) -> Option<usize> {
    match on {
        Some(on) => names.iter().position(|n| n == on),
        None => names.iter().position(|n| n == db_time).or_else(|| {
            names
                .iter()
                .position(|n| TIME_NAMES.contains(&n.to_ascii_lowercase().as_str()))
        }),
    }
}
