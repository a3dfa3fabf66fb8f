//! `xs get --asof --join FILE` (or `get --asof -`): the as-of join of an input's rows with the
//! database, in the sense of pandas `merge_asof` and DuckDB `ASOF JOIN`. Every input row is
//! printed once, in input order, with the columns of its match appended (prefixed with the
//! database's name), empty when nothing matched.

use std::collections::HashMap;
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
    /// `--where`: only rows it passes are matched.
    pub filter: Option<&'a xs::query::filter::Filter>,
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

/// The input, read: its bytes, and per data record where it is and what it asks.
struct Input {
    /// `stdin` or the input's path, for messages.
    what: String,
    data: Vec<u8>,
    delimiter: u8,
    header: Option<Vec<String>>,
    /// Whether the header names every series key column.
    has_keys: bool,
    /// (byte range, field count) of each data record, in input order.
    records: Vec<(std::ops::Range<usize>, u32)>,
    /// Field k: the time field of record k, trimmed (a ByteRecord is one buffer of fields).
    times: csv::ByteRecord,
    /// Field k: the series key fields of record k, trimmed and joined by a 0 byte.
    keys: csv::ByteRecord,
}

impl Input {
    /// Takes the record `rec` (at `span` of the input): its time field `time_at` and its key
    /// fields `key_at`, joined in `key` (a buffer reused across records).
    fn push(
        &mut self,
        rec: &csv::ByteRecord,
        span: std::ops::Range<usize>,
        time_at: usize,
        key_at: Option<&[usize]>,
        key: &mut Vec<u8>,
    ) {
        self.records.push((span, rec.len() as u32));
        self.times
            .push_field(rec.get(time_at).unwrap_or(b"").trim_ascii());
        key.clear();
        for (i, &k) in key_at.unwrap_or(&[]).iter().enumerate() {
            if i > 0 {
                key.push(0);
            }
            key.extend_from_slice(rec.get(k).unwrap_or(b"").trim_ascii());
        }
        self.keys.push_field(key);
    }

    /// The number messages give the first data record (a header is record 1).
    fn first_line(&self) -> usize {
        1 + usize::from(self.header.is_some())
    }
}

/// Whether `text` reads as a time (an ISO time, or an epoch number with or without a unit).
fn looks_like_time(text: &str) -> bool {
    let text = text.trim();
    is_epoch_number(text.as_bytes()) || xs::io::timefmt::parse_time_arg(text).is_ok()
}

/// Reads the input: detects its delimiter and header, and takes from each record the time
/// field and the series key fields (`key_names`, when the header has them all).
fn read_input(args: &JoinArgs, db_time: &str, key_names: &[String]) -> CliResult<Input> {
    let what = if args.input == "-" { "stdin" } else { args.input };
    let mut data = Vec::new();
    let read = if args.input == "-" {
        std::io::stdin().lock().read_to_end(&mut data)
    } else {
        std::fs::File::open(Path::new(args.input)).and_then(|mut f| f.read_to_end(&mut data))
    };
    read.map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            Failure::usage(format!("{what}: no such file or directory; check the path"))
        }
        _ => xs::Error::io("read", what, e).into(),
    })?;
    // The delimiter the first line uses most outside quotes: `,`, tab, `;` or `|`.
    let first = data.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let mut quoted = false;
    let unquoted: Vec<u8> = first
        .iter()
        .copied()
        .filter(|&b| {
            quoted ^= b == b'"';
            !quoted && b != b'"'
        })
        .collect();
    let delimiter = [b',', b'\t', b';', b'|']
        .into_iter()
        .max_by_key(|d| (unquoted.iter().filter(|b| *b == d).count(), *d == b','))
        .unwrap_or(b',');
    let mut input = Input {
        what: what.to_string(),
        data: Vec::new(),
        delimiter,
        header: None,
        has_keys: false,
        records: Vec::new(),
        times: csv::ByteRecord::new(),
        keys: csv::ByteRecord::new(),
    };
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(data.as_slice());
    let mut rec = csv::ByteRecord::new();
    let mut key = Vec::new();
    // Where the time and the key fields are, once the first record has said.
    let mut time_at: Option<usize> = None;
    let mut key_at: Option<Vec<usize>> = None;
    let mut n = 0usize;
    loop {
        let more = reader
            .read_byte_record(&mut rec)
            .map_err(|e| Failure::usage(format!("{what}: record {}: {e}", n + 1)))?;
        if !more {
            break;
        }
        n += 1;
        let start = rec.position().map_or(0, |p| p.byte() as usize);
        let end = reader.position().byte() as usize;
        if rec.len() == 1 && rec[0].trim_ascii().is_empty() {
            continue;
        }
        let Some(at) = time_at else {
            // The first record: a header unless its time field reads as a time.
            let names: Vec<String> = rec
                .iter()
                .map(|f| String::from_utf8_lossy(f).trim().to_string())
                .collect();
            let named = time_index(&names, args.on, db_time);
            let is_data = match (args.on, named) {
                (Some(_), Some(_)) => false,
                _ => looks_like_time(&names[0]),
            };
            if !is_data {
                let at = named.ok_or_else(|| {
                    Failure::usage(format!(
                        "{what}: no time column{} among {}; name it with --on",
                        args.on.map(|n| format!(" `{n}`")).unwrap_or_default(),
                        names.join(",")
                    ))
                })?;
                time_at = Some(at);
                key_at = key_names
                    .iter()
                    .map(|k| names.iter().position(|n| n == k))
                    .collect();
                input.header = Some(names);
                continue;
            }
            if args.on.is_some() {
                return Err(Failure::usage(format!(
                    "{what} has no header, so --on cannot name a column; its first column is the time"
                )));
            }
            time_at = Some(0);
            input.push(&rec, start..end, 0, None, &mut key);
            continue;
        };
        input.push(&rec, start..end, at, key_at.as_deref(), &mut key);
    }
    input.data = data;
    input.has_keys = key_at.is_some();
    Ok(input)
}

pub fn run(db: &Database, formatter: &RowFormatter, args: &JoinArgs) -> CliResult {
    if formatter.format() == Format::Ndjson {
        return Err(Failure::usage(
            "an as-of join prints csv or tsv (the input's rows with the matches appended); use -f csv or -f tsv",
        ));
    }
    let config = db.config();
    if args.series.is_some() && !db.is_series_root() {
        return Err(Failure::usage(format!(
            "--series: {} has no series key",
            db.dir().display()
        )));
    }
    let keys = if db.is_series_root() {
        config.series_columns()
    } else {
        Vec::new()
    };
    let key_names: Vec<String> = keys
        .iter()
        .map(|&c| config.schema.columns()[c].name.clone())
        .collect();
    let input = read_input(args, &config.time_column, &key_names)?;
    let times = probe_times(&input, args.time_unit)?;
    let (stores, store_of) = series_of_rows(db, &input, &keys, &key_names, args.series)?;
    let mut matches = Matches::new(config.schema.row_len());
    let found = match_in_stores(db, args, &stores, &store_of, &times, &mut matches)?;
    write_joined(db, formatter, args.prefix, &input, &found, &matches)
}

/// The probe time of each record, in input order; `None` for a record without one (it is
/// printed without a match, as a null key joins nothing). Bare epoch numbers are in `unit`,
/// else in the unit their largest magnitude says.
fn probe_times(input: &Input, unit: Option<EpochUnit>) -> CliResult<Vec<Option<i64>>> {
    let unit = unit.unwrap_or_else(|| {
        let bare_max = input
            .times
            .iter()
            .filter(|text| is_epoch_number(text))
            .map(epoch_magnitude)
            .max()
            .unwrap_or(0);
        unit_by_magnitude(bare_max)
    });
    input
        .times
        .iter()
        .enumerate()
        .map(|(k, text)| {
            if text.is_empty() {
                return Ok(None);
            }
            let t = if is_epoch_number(text) {
                parse_epoch_bytes(text, unit).map_err(|e| e.to_string())
            } else {
                xs::io::timefmt::parse_time_arg(&String::from_utf8_lossy(text))
            };
            t.map(Some).map_err(|e| {
                Failure::usage(format!(
                    "{}, record {}: cannot read the time `{}`: {e}",
                    input.what,
                    k + input.first_line(),
                    String::from_utf8_lossy(text)
                ))
            })
        })
        .collect()
}

/// The stores the rows are looked up in (the database, `--series`, or the series each row's
/// key fields name, each distinct key's name worked out once) and the store of each row.
fn series_of_rows(
    db: &Database,
    input: &Input,
    keys: &[usize],
    key_names: &[String],
    series: Option<&str>,
) -> CliResult<(Vec<String>, Vec<u32>)> {
    let rows = input.records.len();
    let schema = &db.config().schema;
    if !db.is_series_root() {
        return Ok((vec![String::new()], vec![0; rows]));
    }
    if let Some(series) = series {
        let name = xs::db::series::name_from_text(schema, keys, series).map_err(Failure::usage)?;
        return Ok((vec![name], vec![0; rows]));
    }
    if !input.has_keys {
        return Err(Failure::usage(format!(
            "{} has no series column `{}`; name each row's series in such a column, or \
             pass --series VALUE to look every row up in one series",
            input.what,
            key_names.join("`,`")
        )));
    }
    let mut stores: Vec<String> = Vec::new();
    let mut known: HashMap<&[u8], u32> = HashMap::new();
    let store_of = (0..rows)
        .map(|k| {
            let key = &input.keys[k];
            if let Some(&s) = known.get(key) {
                return Ok(s);
            }
            let text = String::from_utf8_lossy(key);
            let parts: Vec<&str> = text.split('\0').collect();
            let name = name_from_parts(schema, keys, &parts).map_err(|e| {
                Failure::usage(format!("{}, record {}: {e}", input.what, k + input.first_line()))
            })?;
            stores.push(name);
            let s = (stores.len() - 1) as u32;
            known.insert(key, s);
            Ok(s)
        })
        .collect::<CliResult<Vec<u32>>>()?;
    Ok((stores, store_of))
}

/// The as-of match of each row (an index into `matches`), looked up store by store: each
/// store's rows in time order, ties in input order.
fn match_in_stores(
    db: &Database,
    args: &JoinArgs,
    stores: &[String],
    store_of: &[u32],
    times: &[Option<i64>],
    matches: &mut Matches,
) -> CliResult<Vec<Option<u32>>> {
    let mut order: Vec<(u32, i64, u32)> = times
        .iter()
        .enumerate()
        .filter_map(|(k, t)| t.map(|t| (store_of[k], t, k as u32)))
        .collect();
    let no_time = times.len() - order.len();
    if no_time > 0 {
        eprintln!("xs: warning: {no_time} input row(s) have no time; they are printed without a match");
    }
    order.sort_unstable();

    let mut found: Vec<Option<u32>> = vec![None; times.len()];
    for group in order.chunk_by(|a, b| a.0 == b.0) {
        let name = &stores[group[0].0 as usize];
        let series;
        let store: &Database = if db.is_series_root() {
            match db.series_db(name, false)? {
                Some(s) => {
                    series = s;
                    &series
                }
                None => {
                    if let Some(given) = args.series {
                        eprintln!(
                            "xs: warning: {} holds no series `{given}`; no row matched",
                            db.dir().display()
                        );
                    }
                    continue;
                }
            }
        } else {
            db
        };
        let probes: Vec<i64> = group.iter().map(|p| p.1).collect();
        let hits = asof_join(
            store,
            &probes,
            args.within_ns,
            Strategy::Auto,
            args.filter,
            matches,
        )?;
        for (p, hit) in group.iter().zip(hits) {
            found[p.2 as usize] = hit;
        }
        if stores.len() > 1 {
            store.forget_partitions();
        }
    }
    Ok(found)
}

/// The prefix of the appended column names: `--prefix`, else the database directory's name.
fn column_prefix(db: &Database, prefix: Option<&str>) -> String {
    match prefix {
        Some(p) => p.to_string(),
        None => db
            .dir()
            .canonicalize()
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "db".into()),
    }
}

/// Prints each record with the columns of its match appended (empty without one). A
/// comma-separated input goes out as CSV as it came; any other is split and written again.
fn write_joined(
    db: &Database,
    formatter: &RowFormatter,
    prefix: Option<&str>,
    input: &Input,
    found: &[Option<u32>],
    matches: &Matches,
) -> CliResult {
    let format = formatter.format();
    let what = &input.what;
    let delimiter = if format == Format::Tsv { b'\t' } else { b',' };
    let write_field = |out: &mut Vec<u8>, text: &[u8]| {
        if format == Format::Tsv {
            write_tsv_str(out, text)
        } else {
            write_csv_str(out, text, delimiter)
        }
    };
    let prefix = column_prefix(db, prefix);
    let mut out = Output::new();
    let width = input.header.as_ref().map_or_else(
        || input.records.iter().map(|r| r.1 as usize).max().unwrap_or(1),
        Vec::len,
    );
    // A record wider than the header would put its match under the wrong names.
    if let Some(k) = input.records.iter().position(|r| r.1 as usize > width) {
        return Err(Failure::usage(format!(
            "{what}, record {}: {} fields, but the header names {width}; fix the record or the header",
            k + input.first_line(),
            input.records[k].1
        )));
    }
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
            write_field(&mut out.buf, name.as_bytes());
        }
        for name in formatter.names() {
            out.buf.push(delimiter);
            write_field(&mut out.buf, format!("{prefix}.{name}").as_bytes());
        }
        out.buf.push(b'\n');
    }
    let verbatim = input.delimiter == b',' && format == Format::Csv;
    let mut fields = csv::ByteRecord::new();
    let empty: Vec<u8> = vec![delimiter; formatter.names().len()];
    for ((span, count), hit) in input.records.iter().zip(found) {
        let mut raw = &input.data[span.clone()];
        // Without the line ends around it (a blank line before it counts in its span).
        while let [b'\n' | b'\r', rest @ ..] = raw {
            raw = rest;
        }
        while let [rest @ .., b'\n' | b'\r'] = raw {
            raw = rest;
        }
        if verbatim {
            out.buf.extend_from_slice(raw);
            for _ in *count as usize..width {
                out.buf.push(delimiter);
            }
        } else {
            csv::ReaderBuilder::new()
                .has_headers(false)
                .flexible(true)
                .delimiter(input.delimiter)
                .from_reader(raw)
                .read_byte_record(&mut fields)
                .map_err(|e| Failure::usage(format!("{what}: {e}")))?;
            for k in 0..width {
                if k > 0 {
                    out.buf.push(delimiter);
                }
                write_field(&mut out.buf, fields.get(k).unwrap_or(b""));
            }
        }
        match hit {
            Some(k) => {
                let (t, row) = matches.get(*k);
                out.buf.push(delimiter);
                formatter.row(&mut out.buf, t, row)?;
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
