//! `xs get --asof --join FILE` (or `get --asof -`): the as-of join of an input's rows with the
//! database, in the sense of pandas `merge_asof` and DuckDB `ASOF JOIN`. Every input row is
//! printed once, in input order, with the columns of its match appended (prefixed with the
//! database's name), empty when nothing matched.
//!
//! The work is spread over the cores in three steps: the input is cut at line ends and the
//! pieces read side by side (an input without quotes; a quoted one is read in one pass), the
//! series are matched side by side (each match formatted once, however many rows share it), and
//! blocks of output rows are put together side by side and written in input order.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use xs::db::series::name_from_parts;
use xs::io::output::{write_csv_str, write_tsv_str, Format, RowCache, RowFormatter};
use xs::io::timefmt::EpochUnit;
use xs::query::asof_join::{asof_join, MatchSink, Strategy};
use xs::Database;

use super::join_input::{probe_times, read_input, Input, Record, BLOCK_RECORDS, NO_TIME};
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

/// A record without a match.
const NO_MATCH: u64 = u64::MAX;

/// A record's match: store `s`, match `m` in it, in one number.
fn packed_match(s: usize, m: u32) -> u64 {
    (s as u64) << 32 | u64::from(m)
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
    let mut input = read_input(args.input, args.on, &config.time_column, &key_names)?;
    let times = probe_times(&mut input, args.time_unit, &config.timezone)?;
    let (stores, store_of_key) = series_of_keys(db, &input, &keys, &key_names, args.series)?;
    let joined = match_in_stores(db, formatter, args, &input, &stores, &store_of_key, &times)?;
    write_joined(db, formatter, args.prefix, &input, &joined)
}

/// The stores the rows are looked up in (the database, `--series`, or the series each
/// distinct key names, each worked out once) and the store of each key.
fn series_of_keys(
    db: &Database,
    input: &Input,
    keys: &[usize],
    key_names: &[String],
    series: Option<&str>,
) -> CliResult<(Vec<String>, Vec<u32>)> {
    let distinct = input.keys.texts.len().max(1);
    let schema = &db.config().schema;
    if !db.is_series_root() {
        return Ok((vec![String::new()], vec![0; distinct]));
    }
    if let Some(series) = series {
        let name = xs::db::series::name_from_text(schema, keys, series).map_err(Failure::usage)?;
        return Ok((vec![name], vec![0; distinct]));
    }
    if !input.has_keys {
        return Err(Failure::usage(format!(
            "{} has no series column `{}`; name each row's series in such a column, or \
             pass --series VALUE to look every row up in one series",
            input.what,
            key_names.join("`,`")
        )));
    }
    // Keys are numbered in the order first met, so the first that names no series is the
    // earliest record's.
    let mut stores: Vec<String> = Vec::new();
    let mut store_by_name: HashMap<String, u32> = HashMap::new();
    let store_of_key = input
        .keys
        .texts
        .iter()
        .zip(&input.keys.first)
        .map(|(key, &first)| {
            let text = String::from_utf8_lossy(key);
            let parts: Vec<&str> = text.split('\0').collect();
            let name = name_from_parts(schema, keys, &parts).map_err(|e| {
                Failure::usage(format!(
                    "{}, record {}: {e}",
                    input.what,
                    first + input.first_line()
                ))
            })?;
            let next = stores.len() as u32;
            let store = *store_by_name.entry(name.clone()).or_insert(next);
            if store == next {
                stores.push(name);
            }
            Ok(store)
        })
        .collect::<CliResult<Vec<u32>>>()?;
    Ok((stores, store_of_key))
}

/// What the join found in one store: the formatted columns of each match (`ends[m]` is
/// where match `m`'s text ends in `text`).
#[derive(Default)]
struct StoreMatches {
    text: Vec<u8>,
    ends: Vec<usize>,
}

impl StoreMatches {
    fn get(&self, m: u32) -> &[u8] {
        let m = m as usize;
        let start = if m == 0 { 0 } else { self.ends[m - 1] };
        &self.text[start..self.ends[m]]
    }

    /// Asks the CPU to bring match `m`'s text into its cache: the output takes the matches of
    /// a thousand series in turn, too many streams for the hardware to foresee.
    fn prefetch(&self, m: u32) {
        let start = if m == 0 { 0 } else { self.ends[m as usize - 1] };
        #[cfg(target_arch = "x86_64")]
        if let Some(byte) = self.text.get(start) {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: SSE is part of x86_64; a prefetch reads nothing and changes nothing.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(byte).cast()) };
        }
    }
}

/// Records ahead of the one being written whose match is prefetched.
const PREFETCH_AHEAD: usize = 16;

/// What the join found: the matches of every store, and for each record its
/// (store, match in the store) as `packed_match` gives it, or `NO_MATCH` (atomic so that the
/// stores, matched side by side, each fill in their records).
struct Joined {
    matches: Vec<StoreMatches>,
    found: Vec<AtomicU64>,
}

/// The matches of every store, and for each record its (store, match), or `NO_MATCH`. The
/// stores are matched side by side; within a store the probes go in time order, ties in
/// input order.
fn match_in_stores(
    db: &Database,
    formatter: &RowFormatter,
    args: &JoinArgs,
    input: &Input,
    stores: &[String],
    store_of_key: &[u32],
    times: &[i64],
) -> CliResult<Joined> {
    let store_of = |k: usize| store_of_key[input.key_of[k] as usize] as usize;
    // The records of each store, in input order: a counting sort by store, in pieces side by
    // side (each piece counts its records of each store, then places them after those of the
    // pieces before). The pieces' count tables together are no larger than the input.
    let n = times.len();
    let pieces = (n / BLOCK_RECORDS)
        .min(n / stores.len().max(1))
        .clamp(1, rayon::current_num_threads() * 4);
    let piece_len = n.div_ceil(pieces).max(1);
    let counted: Vec<(Vec<usize>, usize)> = times
        .par_chunks(piece_len)
        .enumerate()
        .map(|(piece, piece_times)| {
            let mut counts = vec![0usize; stores.len()];
            let mut no_time = 0;
            for (k, &t) in (piece * piece_len..).zip(piece_times) {
                if t == NO_TIME {
                    no_time += 1;
                } else {
                    counts[store_of(k)] += 1;
                }
            }
            (counts, no_time)
        })
        .collect();
    let no_time: usize = counted.iter().map(|(_, n)| n).sum();
    if no_time > 0 {
        eprintln!("xs: warning: {no_time} input row(s) have no time; they are printed without a match");
    }
    let mut places: Vec<Vec<usize>> = counted.into_iter().map(|(counts, _)| counts).collect();
    let mut starts = vec![0usize; stores.len() + 1];
    let mut next = 0;
    for s in 0..stores.len() {
        starts[s] = next;
        for place in &mut places {
            let count = place[s];
            place[s] = next;
            next += count;
        }
    }
    starts[stores.len()] = next;
    let mut order = xs::io::big::with_capacity(next);
    order.par_extend((0..next).into_par_iter().map(|_| AtomicU32::new(0)));
    let pieces = places.into_par_iter().zip(times.par_chunks(piece_len));
    pieces.enumerate().for_each(|(piece, (mut place, piece_times))| {
        for (k, &t) in (piece * piece_len..).zip(piece_times) {
            if t != NO_TIME {
                let s = store_of(k);
                order[place[s]].store(k as u32, Ordering::Relaxed);
                place[s] += 1;
            }
        }
    });
    let mut order: Vec<u32> = order.into_par_iter().map(AtomicU32::into_inner).collect();
    // Each store's records, sorted by time (stable: ties stay in input order) and matched,
    // side by side.
    let mut groups = Vec::with_capacity(stores.len());
    let mut rest = order.as_mut_slice();
    for s in 0..stores.len() {
        let (group, after) = rest.split_at_mut(starts[s + 1] - starts[s]);
        groups.push(group);
        rest = after;
    }
    let mut found = xs::io::big::with_capacity(times.len());
    found.par_extend((0..times.len()).into_par_iter().map(|_| AtomicU64::new(NO_MATCH)));
    let all = groups
        .par_iter_mut()
        .enumerate()
        .map(|(s, group)| {
            let by_time = |&k: &u32| times[k as usize];
            if !group.is_sorted_by_key(by_time) {
                group.sort_by_key(by_time);
            }
            let (store_matches, hits) =
                match_store(db, formatter, args, &stores[s], group, times, stores.len() > 1)?;
            for (&k, hit) in group.iter().zip(hits) {
                if let Some(m) = hit {
                    found[k as usize].store(packed_match(s, m), Ordering::Relaxed);
                }
            }
            Ok(store_matches)
        })
        .collect::<CliResult<Vec<StoreMatches>>>()?;
    Ok(Joined { matches: all, found })
}

/// The matches in the store named `name` of the probes `group` (record numbers, in time
/// order), each match's columns formatted once.
fn match_store(
    db: &Database,
    formatter: &RowFormatter,
    args: &JoinArgs,
    name: &str,
    group: &[u32],
    times: &[i64],
    many_stores: bool,
) -> CliResult<(StoreMatches, Vec<Option<u32>>)> {
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
                return Ok((StoreMatches::default(), vec![None; group.len()]));
            }
        }
    } else {
        db
    };
    let probes: Vec<i64> = group.iter().map(|&k| times[k as usize]).collect();
    // Each match is formatted as it is found (the rows are never copied), with room for one
    // per probe at most.
    let mut formatted = Formatted {
        formatter,
        cache: RowCache::default(),
        matches: StoreMatches {
            text: Vec::with_capacity(probes.len().min(1 << 16) * 48),
            ends: Vec::with_capacity(probes.len()),
        },
    };
    let hits = asof_join(
        store,
        &probes,
        args.within_ns,
        Strategy::Auto,
        args.filter,
        &mut formatted,
    )?;
    if many_stores {
        // Thousands of series: their files are closed as each is done with.
        store.forget_partitions();
    }
    Ok((formatted.matches, hits))
}

/// The matches of one store, each formatted as the join finds it.
struct Formatted<'a> {
    formatter: &'a RowFormatter,
    cache: RowCache,
    matches: StoreMatches,
}

impl MatchSink for Formatted<'_> {
    fn push(&mut self, t: i64, row: &[u8]) -> xs::Result<u32> {
        let text = &mut self.matches.text;
        self.formatter.row_cached(text, t, row, &mut self.cache)?;
        text.pop(); // its newline
        self.matches.ends.push(text.len());
        Ok((self.matches.ends.len() - 1) as u32)
    }
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
/// Blocks of records are put together side by side and written in input order.
fn write_joined(
    db: &Database,
    formatter: &RowFormatter,
    prefix: Option<&str>,
    input: &Input,
    joined: &Joined,
) -> CliResult {
    let Joined { matches, found } = joined;
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
        || input.records.iter().map(|r| r.fields as usize).max().unwrap_or(1),
        Vec::len,
    );
    // A record wider than the header would put its match under the wrong names.
    if let Some(k) = input.records.iter().position(|r| r.fields as usize > width) {
        return Err(Failure::usage(format!(
            "{what}, record {}: {} fields, but the header names {width}; fix the record or the header",
            k + input.first_line(),
            input.records[k].fields
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
    let empty: Vec<u8> = vec![delimiter; formatter.names().len()];
    let block = |buf: &mut Vec<u8>, records: &[Record], found: &[AtomicU64]| -> CliResult {
        buf.clear();
        let mut fields = csv::ByteRecord::new();
        for (i, (r, hit)) in records.iter().zip(found).enumerate() {
            if let Some(ahead) = found.get(i + PREFETCH_AHEAD) {
                let ahead = ahead.load(Ordering::Relaxed);
                if ahead != NO_MATCH {
                    matches[(ahead >> 32) as usize].prefetch(ahead as u32);
                }
            }
            let raw = input.line(r);
            if verbatim {
                buf.extend_from_slice(raw);
                for _ in r.fields as usize..width {
                    buf.push(delimiter);
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
                        buf.push(delimiter);
                    }
                    write_field(buf, fields.get(k).unwrap_or(b""));
                }
            }
            let hit = hit.load(Ordering::Relaxed);
            if hit == NO_MATCH {
                buf.extend_from_slice(&empty);
            } else {
                buf.push(delimiter);
                buf.extend_from_slice(matches[(hit >> 32) as usize].get(hit as u32));
            }
            buf.push(b'\n');
        }
        Ok(())
    };
    // A few blocks per thread at a time, into buffers used again for each batch of blocks:
    // the output is never held whole, and its pages are faulted in once.
    let at_once = rayon::current_num_threads().max(1) * 2;
    let mut bufs: Vec<Vec<u8>> = (0..at_once).map(|_| Vec::new()).collect();
    let records = input
        .records
        .chunks(BLOCK_RECORDS)
        .zip(found.chunks(BLOCK_RECORDS));
    let blocks: Vec<_> = records.collect();
    for batch in blocks.chunks(at_once) {
        bufs.par_iter_mut()
            .zip(batch)
            .map(|(buf, (records, found))| block(buf, records, found))
            .collect::<CliResult<()>>()?;
        for buf in &bufs[..batch.len()] {
            out.write_block(buf)?;
        }
    }
    out.flush()?;
    Ok(())
}
