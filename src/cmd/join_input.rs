//! The input of an as-of join (`xs get --asof --join FILE`): a CSV (any common delimiter,
//! with or without a header) or a list of times, read into its records, each record's probe
//! time and series key.
//!
//! An input without quotes (the common case, and the large one: a day of trades) is cut at
//! line ends and its pieces are read side by side, each into its own stretch of the record
//! arrays. A quoted input is read in one csv pass. Both give the same records, times and keys
//! (tests/series.rs checks one against the other).

use std::collections::HashMap;
use std::io::{Read, Seek};
use std::ops::Range;
use std::path::Path;

use rayon::prelude::*;

use xs::db::syms::FnvBuild;
use xs::db::time::Zone;
use xs::import::timeparse::{epoch_magnitude, is_epoch_number, parse_epoch_bytes, unit_by_magnitude};
use xs::io::timefmt::EpochUnit;

use crate::exit::{CliResult, Failure};

/// Names a time column is commonly given, for an input whose time column is not named.
const TIME_NAMES: [&str; 6] = ["time", "timestamp", "ts", "datetime", "date", "t"];

/// Input bytes below which a piece is not cut further (cutting costs more than it saves).
const PIECE_MIN_BYTES: usize = 64 * 1024;
/// Input bytes above which a piece is cut (pieces of a few MiB balance well on any core count).
const PIECE_MAX_BYTES: usize = 4 << 20;
/// Records per block handled by one thread (times read, output rows put together).
pub(super) const BLOCK_RECORDS: usize = 1 << 16;
/// A probe without a time (an empty time field): printed without a match.
pub(super) const NO_TIME: i64 = i64::MIN;

/// One data record of the input.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Record {
    /// Where the record's text (without its line end) starts in `Input::data`, and its length.
    at: usize,
    len: u32,
    /// Its number of fields.
    pub(super) fields: u32,
}

/// A probe time that is not a plain run of digits (an ISO time, a fraction, a sign): read
/// from its text once the unit of bare numbers is known. Its text is kept in `PieceInfo::slow`.
const SLOW_TIME: i64 = i64::MIN + 1;

/// What reading one stretch of the input gives besides its records, times and keys.
#[derive(Default)]
struct PieceInfo {
    /// The records read (the stretch's lines, less the blank ones).
    filled: usize,
    /// The records with `SLOW_TIME`: (record in the piece, its time text in `slow_texts`).
    slow: Vec<(usize, Range<usize>)>,
    slow_texts: Vec<u8>,
    /// The largest plain number among the times.
    max_plain: i64,
    /// The series keys met, numbered in the piece.
    keys: KeyIds,
}

impl PieceInfo {
    /// Record `k`'s time, from its time field (trimmed): a plain run of digits as its number
    /// (a count of units not yet known), `NO_TIME`, or `SLOW_TIME` (its text kept).
    fn time(&mut self, k: usize, text: &[u8]) -> i64 {
        if text.is_empty() {
            NO_TIME
        } else if let Some(n) = plain_digits(text) {
            self.max_plain = self.max_plain.max(n);
            n
        } else {
            let at = self.slow_texts.len();
            self.slow_texts.extend_from_slice(text);
            self.slow.push((k, at..self.slow_texts.len()));
            SLOW_TIME
        }
    }
}

/// Series key texts (the key fields, trimmed, joined by a 0 byte), each given an index in the
/// order first met, with the record that first had it.
#[derive(Default)]
pub(super) struct KeyIds {
    /// Keys of up to 15 bytes (a symbol, a host name: most keys), packed with their length
    /// into one number, which is cheaper to hash and compare than a byte string.
    short: HashMap<u128, u32, std::hash::BuildHasherDefault<PackedHash>>,
    long: HashMap<Vec<u8>, u32, FnvBuild>,
    pub(super) texts: Vec<Vec<u8>>,
    pub(super) first: Vec<usize>,
}

impl KeyIds {
    #[inline]
    fn id(&mut self, key: &[u8], record: usize) -> u32 {
        let next = self.texts.len() as u32;
        let id = match packed(key) {
            Some(packed) => *self.short.entry(packed).or_insert(next),
            None => match self.long.get(key) {
                Some(&id) => id,
                None => {
                    self.long.insert(key.to_vec(), next);
                    next
                }
            },
        };
        if id == next {
            self.texts.push(key.to_vec());
            self.first.push(record);
        }
        id
    }
}

/// `key` and its length in one number, when it has at most 15 bytes.
#[inline]
fn packed(key: &[u8]) -> Option<u128> {
    if key.len() > 15 {
        return None;
    }
    let mut bytes = [0u8; 16];
    bytes[..key.len()].copy_from_slice(key);
    bytes[15] = key.len() as u8;
    Some(u128::from_le_bytes(bytes))
}

/// A multiplicative hash of a packed key (its halves folded, then one multiply; the rotation
/// brings the well-mixed high bits down to where the table takes its index).
#[derive(Default)]
struct PackedHash(u64);

impl std::hash::Hasher for PackedHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    #[inline]
    fn write_u128(&mut self, v: u128) {
        let folded = (v as u64) ^ ((v >> 64) as u64).rotate_left(29);
        self.0 = folded.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(32);
    }
}

/// Where the fields the join needs are in a record.
struct FieldsAt<'a> {
    time: usize,
    /// The series key columns, when the header names them all.
    keys: Option<&'a [usize]>,
}

/// The input, read: its bytes, and per data record where it is and what it asks.
pub(super) struct Input {
    /// `stdin` or the input's path, for messages.
    pub(super) what: String,
    data: Vec<u8>,
    pub(super) delimiter: u8,
    pub(super) header: Option<Vec<String>>,
    /// Whether the header names every series key column.
    pub(super) has_keys: bool,
    pub(super) records: Vec<Record>,
    /// Per record, its series key: an index into `keys`.
    pub(super) key_of: Vec<u32>,
    /// Per record, its time as read (see `PieceInfo::time`).
    times: Vec<i64>,
    /// The records whose time is `SLOW_TIME`, with their time texts in `slow_texts`.
    slow: Vec<(usize, Range<usize>)>,
    slow_texts: Vec<u8>,
    max_plain: i64,
    /// The distinct series keys, in the order first met.
    pub(super) keys: KeyIds,
}

impl Input {
    /// The number messages give the first data record (a header is record 1).
    pub(super) fn first_line(&self) -> usize {
        1 + usize::from(self.header.is_some())
    }

    pub(super) fn line(&self, r: &Record) -> &[u8] {
        &self.data[r.at..r.at + r.len as usize]
    }
}

/// Whether `text` reads as a time (an ISO time, or an epoch number with or without a unit).
fn looks_like_time(text: &str) -> bool {
    let text = text.trim();
    is_epoch_number(text.as_bytes()) || xs::io::timefmt::parse_time_arg(text).is_ok()
}

/// `span` without the line ends around it (a blank line before a record counts in its span).
fn without_line_ends(data: &[u8], mut span: Range<usize>) -> Range<usize> {
    while span.start < span.end && matches!(data[span.start], b'\n' | b'\r') {
        span.start += 1;
    }
    while span.end > span.start && matches!(data[span.end - 1], b'\n' | b'\r') {
        span.end -= 1;
    }
    span
}

/// A record's length; `place` says where the record is, for the error.
fn u32_len(len: usize, place: impl Fn() -> String) -> CliResult<u32> {
    u32::try_from(len)
        .map_err(|_| Failure::usage(format!("{}: a record of 4 GiB or more; split the input", place())))
}

/// Reads the first `size` bytes of `file` into `data` in pieces side by side: the page faults
/// of a buffer of hundreds of MiB cost more than the copying, and are shared out so.
/// A file that shrank meanwhile is read as far as it goes.
fn read_sides(file: &std::fs::File, size: usize, data: &mut Vec<u8>) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    const PIECE: usize = 8 << 20;
    let mut buf = xs::io::big::zeroed_bytes(size);
    let got: Vec<std::io::Result<usize>> = buf
        .par_chunks_mut(PIECE)
        .enumerate()
        .map(|(i, piece)| {
            let mut done = 0;
            while done < piece.len() {
                match file.read_at(&mut piece[done..], (i * PIECE + done) as u64) {
                    Ok(0) => break,
                    Ok(n) => done += n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(done)
        })
        .collect();
    // Up to the first piece that came back short.
    let mut len = 0;
    for (i, n) in got.into_iter().enumerate() {
        let n = n?;
        len = i * PIECE + n;
        if n < PIECE.min(size - i * PIECE) {
            break;
        }
    }
    buf.truncate(len);
    *data = buf;
    Ok(())
}

/// Reads the whole input (a file, or stdin for `-`).
fn read_bytes(input: &str, what: &str) -> CliResult<Vec<u8>> {
    let mut data = Vec::new();
    let read = if input == "-" {
        std::io::stdin().lock().read_to_end(&mut data)
    } else {
        std::fs::File::open(Path::new(input)).and_then(|mut f| {
            let size = f.metadata().map_or(0, |m| m.len() as usize);
            read_sides(&f, size, &mut data)?;
            // Whatever the file gained since its size was taken.
            f.seek(std::io::SeekFrom::Start(data.len() as u64))?;
            f.read_to_end(&mut data)
        })
    };
    read.map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            Failure::usage(format!("{what}: no such file or directory; check the path"))
        }
        _ => xs::Error::io("read", what, e).into(),
    })?;
    Ok(data)
}

/// The delimiter the first line uses most outside quotes: `,`, tab, `;` or `|`.
fn sniff_delimiter(data: &[u8]) -> u8 {
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
    [b',', b'\t', b';', b'|']
        .into_iter()
        .max_by_key(|d| (unquoted.iter().filter(|b| *b == d).count(), *d == b','))
        .unwrap_or(b',')
}

/// Reads the input: detects its delimiter and header, and takes from each record the time
/// field and the series key fields (`key_names`, when the header has them all).
/// `path` is the input (`-`: stdin); `on`, the time column `--on` names.
pub(super) fn read_input(
    path: &str,
    on: Option<&str>,
    db_time: &str,
    key_names: &[String],
) -> CliResult<Input> {
    let what = if path == "-" { "stdin" } else { path };
    let data = read_bytes(path, what)?;
    let delimiter = sniff_delimiter(&data);
    // The first record: a header unless its time field reads as a time.
    let mut first = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(&data[..]);
    let mut rec = csv::ByteRecord::new();
    let mut header = None;
    let mut fields_at: (usize, Option<Vec<usize>>) = (0, None);
    let mut body = 0;
    // Records the csv reader gave before the body (blank ones and the header), for the csv
    // pass's record numbers.
    let mut before_body = 0;
    if next_record(&mut first, &mut rec, what, &mut before_body)? {
        let names: Vec<String> = rec
            .iter()
            .map(|f| String::from_utf8_lossy(f).trim().to_string())
            .collect();
        let named = time_index(&names, on, db_time);
        let is_data = match (on, named) {
            (Some(_), Some(_)) => false,
            _ => looks_like_time(&names[0]),
        };
        if is_data {
            if on.is_some() {
                return Err(Failure::usage(format!(
                    "{what} has no header, so --on cannot name a column; its first column is the time"
                )));
            }
            // The body is read from the start again, blank lines and all.
            before_body = 0;
        } else {
            let at = named.ok_or_else(|| {
                Failure::usage(format!(
                    "{what}: no time column{} among {}; name it with --on",
                    on.map(|n| format!(" `{n}`")).unwrap_or_default(),
                    names.join(",")
                ))
            })?;
            let keys = key_names
                .iter()
                .map(|k| names.iter().position(|n| n == k))
                .collect();
            fields_at = (at, keys);
            header = Some(names);
            body = first.position().byte() as usize;
        }
    }
    let (time_at, key_at) = fields_at;
    let at = FieldsAt {
        time: time_at,
        keys: key_at.as_deref(),
    };
    let rest = &data[body..];
    // Without quotes and lone carriage returns, records are lines and fields are split at the
    // delimiter: the pieces can be read apart. Otherwise one csv pass reads them.
    let lone_cr = memchr::memchr_iter(b'\r', rest).any(|i| rest.get(i + 1) != Some(&b'\n'));
    let quoted = memchr::memchr(b'"', rest).is_some() || lone_cr;
    let mut input = Input {
        what: what.to_string(),
        data: Vec::new(),
        delimiter,
        header,
        has_keys: key_at.is_some(),
        records: Vec::new(),
        key_of: Vec::new(),
        times: Vec::new(),
        slow: Vec::new(),
        slow_texts: Vec::new(),
        max_plain: 0,
        keys: KeyIds::default(),
    };
    if quoted {
        read_quoted(&mut input, &data, body, before_body, &at)?;
    } else {
        read_plain(&mut input, &data, body, &at)?;
    }
    input.data = data;
    Ok(input)
}

/// Reads the records of an input without quotes from `body` on: pieces of whole lines side
/// by side, each into its own stretch of the record arrays (sized by counting lines first).
fn read_plain(input: &mut Input, data: &[u8], body: usize, at: &FieldsAt) -> CliResult {
    let pieces = cut_at_lines(data, body);
    let lines: Vec<usize> = pieces
        .par_iter()
        .map(|p| {
            memchr::memchr_iter(b'\n', &data[p.clone()]).count()
                + usize::from(!data[p.clone()].ends_with(b"\n"))
        })
        .collect();
    let total: usize = lines.iter().sum();
    let mut records = xs::io::big::filled(total, Record::default());
    let mut times = xs::io::big::filled(total, 0i64);
    let mut key_of = xs::io::big::filled(total, 0u32);
    let mut stretches = Vec::with_capacity(pieces.len());
    let (mut r, mut t, mut k) = (
        records.as_mut_slice(),
        times.as_mut_slice(),
        key_of.as_mut_slice(),
    );
    for &n in &lines {
        let (r1, r2) = r.split_at_mut(n);
        let (t1, t2) = t.split_at_mut(n);
        let (k1, k2) = k.split_at_mut(n);
        stretches.push((r1, t1, k1));
        (r, t, k) = (r2, t2, k2);
    }
    let infos = pieces
        .into_par_iter()
        .zip(stretches)
        .map(|(piece, (records, times, keys))| {
            read_piece(
                &input.what,
                data,
                piece,
                input.delimiter,
                at,
                records,
                times,
                keys,
            )
        })
        .collect::<CliResult<Vec<PieceInfo>>>()?;
    // The pieces' keys, numbered again in input order; blank lines' places closed up.
    let mut at_line = 0;
    let mut filled = 0;
    let mut renumbered = Vec::with_capacity(infos.len());
    for (info, &n) in infos.iter().zip(&lines) {
        let ids: Vec<u32> = info
            .keys
            .texts
            .iter()
            .zip(&info.keys.first)
            .map(|(text, &first)| input.keys.id(text, filled + first))
            .collect();
        renumbered.push(ids);
        for (k, range) in &info.slow {
            let at = input.slow_texts.len();
            input
                .slow_texts
                .extend_from_slice(&info.slow_texts[range.clone()]);
            input.slow.push((filled + k, at..input.slow_texts.len()));
        }
        input.max_plain = input.max_plain.max(info.max_plain);
        if filled < at_line {
            records.copy_within(at_line..at_line + info.filled, filled);
            times.copy_within(at_line..at_line + info.filled, filled);
            key_of.copy_within(at_line..at_line + info.filled, filled);
        }
        filled += info.filled;
        at_line += n;
    }
    records.truncate(filled);
    times.truncate(filled);
    key_of.truncate(filled);
    // Each piece's keys renumbered in place, side by side.
    let mut rest = key_of.as_mut_slice();
    let mut places = Vec::with_capacity(infos.len());
    for info in &infos {
        let (mine, after) = rest.split_at_mut(info.filled);
        places.push(mine);
        rest = after;
    }
    places.into_par_iter().zip(&renumbered).for_each(|(keys, ids)| {
        for key in keys {
            *key = ids[*key as usize];
        }
    });
    input.records = records;
    input.times = times;
    input.key_of = key_of;
    Ok(())
}

/// `data[body..]` cut into pieces that end at line ends.
fn cut_at_lines(data: &[u8], body: usize) -> Vec<Range<usize>> {
    let len = data.len() - body;
    let threads = rayon::current_num_threads().max(1);
    let pieces = (len / PIECE_MIN_BYTES).clamp(1, (threads * 8).max(len / PIECE_MAX_BYTES));
    let size = len.div_ceil(pieces).max(1);
    let mut cuts = Vec::with_capacity(pieces);
    let mut start = body;
    while start < data.len() {
        let end = match memchr::memchr(b'\n', &data[(start + size).min(data.len())..]) {
            Some(i) => (start + size + i + 1).min(data.len()),
            None => data.len(),
        };
        cuts.push(start..end);
        start = end;
    }
    cuts
}

/// Reads the records of one piece (whole lines, no quotes) into `records`, `times` and
/// `keys` (as long as the piece has lines), its keys numbered in the piece.
#[allow(clippy::too_many_arguments)]
fn read_piece(
    what: &str,
    data: &[u8],
    piece: Range<usize>,
    delimiter: u8,
    at: &FieldsAt,
    records: &mut [Record],
    times: &mut [i64],
    keys: &mut [u32],
) -> CliResult<PieceInfo> {
    let mut info = PieceInfo::default();
    let mut key = Vec::new();
    let key_cols = at.keys.unwrap_or(&[]);
    let mut key_parts: Vec<Range<usize>> = vec![0..0; key_cols.len()];
    let last_needed = key_cols.iter().copied().fold(at.time, usize::max);
    // One pass over the piece for both line ends and delimiters: each delimiter closes a
    // field, each line end closes the last field and the record.
    let mut k = 0;
    let mut line_start = piece.start;
    let mut field_start = piece.start;
    let mut fields = 0usize;
    let mut time = 0..0;
    let take = |n: usize, field: Range<usize>, time: &mut Range<usize>, parts: &mut [Range<usize>]| {
        if n > last_needed {
            return;
        }
        if n == at.time {
            *time = field.clone();
        }
        for (part, &col) in parts.iter_mut().zip(key_cols) {
            if col == n {
                *part = field.clone();
            }
        }
    };
    let ends = memchr::memchr2_iter(b'\n', delimiter, &data[piece.clone()])
        .map(|i| piece.start + i)
        .chain((data[piece.end - 1] != b'\n').then_some(piece.end));
    for end in ends {
        if end < piece.end && data[end] == delimiter {
            take(fields, field_start..end, &mut time, &mut key_parts);
            fields += 1;
            field_start = end + 1;
            continue;
        }
        // A line end (or the piece's end): the record is the line without its `\r`.
        let line_at = line_start;
        let line_end = if end > line_start && data[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        line_start = end + 1;
        let blank = fields == 0 && data[line_at..line_end].trim_ascii().is_empty();
        if !blank {
            take(
                fields,
                field_start.min(line_end)..line_end,
                &mut time,
                &mut key_parts,
            );
            times[k] = info.time(k, data[time.clone()].trim_ascii());
            keys[k] = match key_parts.as_slice() {
                [] => 0,
                [one] => info.keys.id(data[one.clone()].trim_ascii(), k),
                parts => {
                    key.clear();
                    for (i, part) in parts.iter().enumerate() {
                        if i > 0 {
                            key.push(0);
                        }
                        key.extend_from_slice(data[part.clone()].trim_ascii());
                    }
                    info.keys.id(&key, k)
                }
            };
            records[k] = Record {
                at: line_at,
                len: u32_len(line_end - line_at, || format!("{what}, byte {line_at}"))?,
                fields: fields as u32 + 1,
            };
            k += 1;
        }
        field_start = line_start;
        fields = 0;
        time = 0..0;
        key_parts.iter_mut().for_each(|p| *p = 0..0);
    }
    if key_cols.is_empty() {
        info.keys.id(b"", 0);
    }
    info.filled = k;
    Ok(info)
}

/// Reads the next record that is not blank into `rec`; `n` counts every record read (blank
/// ones too), which is how the csv reader's messages number them.
fn next_record(
    reader: &mut csv::Reader<&[u8]>,
    rec: &mut csv::ByteRecord,
    what: &str,
    n: &mut usize,
) -> CliResult<bool> {
    loop {
        let more = reader
            .read_byte_record(rec)
            .map_err(|e| Failure::usage(format!("{what}: record {}: {e}", *n + 1)))?;
        if !more {
            return Ok(false);
        }
        *n += 1;
        if !(rec.len() == 1 && rec[0].trim_ascii().is_empty()) {
            return Ok(true);
        }
    }
}

/// Reads the records of a quoted input from `body` on, in one csv pass; `before` records
/// (blank ones and the header) came before.
fn read_quoted(input: &mut Input, data: &[u8], body: usize, before: usize, at: &FieldsAt) -> CliResult {
    let what = input.what.clone();
    let mut info = PieceInfo::default();
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(input.delimiter)
        .from_reader(&data[body..]);
    let mut rec = csv::ByteRecord::new();
    let mut key = Vec::new();
    let mut n = before;
    while next_record(&mut reader, &mut rec, &what, &mut n)? {
        let start = body + rec.position().map_or(0, |p| p.byte() as usize);
        let end = body + reader.position().byte() as usize;
        let span = without_line_ends(data, start..end);
        let k = input.records.len();
        input
            .times
            .push(info.time(k, rec.get(at.time).unwrap_or(b"").trim_ascii()));
        key.clear();
        for (i, &col) in at.keys.unwrap_or(&[]).iter().enumerate() {
            if i > 0 {
                key.push(0);
            }
            key.extend_from_slice(rec.get(col).unwrap_or(b"").trim_ascii());
        }
        input.key_of.push(input.keys.id(&key, k));
        input.records.push(Record {
            at: span.start,
            len: u32_len(span.len(), || format!("{what}, record {n}"))?,
            fields: rec.len() as u32,
        });
    }
    input.slow = info.slow;
    input.slow_texts = info.slow_texts;
    input.max_plain = info.max_plain;
    Ok(())
}

/// The probe time of each record, in input order; `NO_TIME` for a record without one (it is
/// printed without a match, as a null key joins nothing). Bare epoch numbers are in `unit`,
/// else in the unit their largest magnitude says; ISO times without a zone are read in `zone`
/// (the database's), as its imports read them.
pub(super) fn probe_times(input: &mut Input, unit: Option<EpochUnit>, zone: &Zone) -> CliResult<Vec<i64>> {
    let unit = unit.unwrap_or_else(|| {
        let slow_max = input
            .slow
            .iter()
            .map(|(_, text)| &input.slow_texts[text.clone()])
            .filter(|text| is_epoch_number(text))
            .map(epoch_magnitude)
            .max()
            .unwrap_or(0);
        unit_by_magnitude(slow_max.max(input.max_plain as u64))
    });
    let what = &input.what;
    let first_line = input.first_line();
    let fail = |k: usize, text: &[u8], e: String| {
        Failure::usage(format!(
            "{what}, record {}: cannot read the time `{}`: {e}",
            k + first_line,
            String::from_utf8_lossy(text)
        ))
    };
    let mut times = std::mem::take(&mut input.times);
    // Plain numbers scaled to the unit, side by side; the first failure in input order is told.
    let unit_ns = unit.ns();
    let failed = times
        .par_chunks_mut(BLOCK_RECORDS)
        .enumerate()
        .map(|(b, block)| {
            for (i, t) in block.iter_mut().enumerate() {
                if *t >= 0 {
                    let Some(ns) = t.checked_mul(unit_ns) else {
                        return Some(b * BLOCK_RECORDS + i);
                    };
                    *t = ns;
                }
            }
            None
        })
        .collect::<Vec<Option<usize>>>();
    let overflow = failed.into_iter().flatten().next();
    let slow = input
        .slow
        .par_iter()
        .map(|(k, text)| {
            let text = &input.slow_texts[text.clone()];
            let t = if is_epoch_number(text) {
                parse_epoch_bytes(text, unit).map_err(|e| e.to_string())
            } else {
                xs::io::timefmt::parse_time_arg(&String::from_utf8_lossy(text)).and_then(|t| t.in_zone(zone))
            };
            t.map(|t| (*k, t)).map_err(|e| (*k, fail(*k, text, e)))
        })
        .collect::<Vec<Result<(usize, i64), (usize, Failure)>>>();
    let mut first_error: Option<(usize, Failure)> = overflow.map(|k| {
        let digits = times[k].to_string();
        let e = parse_epoch_bytes(digits.as_bytes(), unit).map_or_else(|e| e.to_string(), |_| String::new());
        (k, fail(k, digits.as_bytes(), e))
    });
    for result in slow {
        match result {
            Ok((k, t)) => times[k] = t,
            Err((k, e)) => {
                if first_error.as_ref().is_none_or(|(j, _)| k < *j) {
                    first_error = Some((k, e));
                }
            }
        }
    }
    match first_error {
        Some((_, e)) => Err(e),
        None => Ok(times),
    }
}

/// A run of at most 18 digits (the common probe time: epoch milliseconds), as its number.
fn plain_digits(text: &[u8]) -> Option<i64> {
    if text.is_empty() || text.len() > 18 {
        return None;
    }
    let mut n = 0i64;
    for &c in text {
        let digit = c.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        n = n * 10 + i64::from(digit);
    }
    Some(n)
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
