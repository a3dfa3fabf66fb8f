//! The import pipeline: CSV streams in, rows upserted by timestamp.
//!
//! A reader thread cuts each input into chunks that end at record ends. Batches of chunks are
//! parsed in parallel (rayon) into encoded rows grouped by partition; each partition's rows are
//! sorted by slot (stably, so rows sharing a timestamp keep their input order) and written by
//! its `db::write::PartWriter`, whatever the layout, partitions in parallel, while the next
//! batch is parsed. A per-partition bitmap of the slots this import has touched gives upsert
//! semantics whatever the input order or batch boundaries: the first touch of a timestamp
//! replaces its rows, later touches append after them. Rejected rows go to a rejects file
//! with their file, line, byte offset, reason and text.
//!
//! Memory: about 3 batches of `BATCH_CHUNKS × CHUNK_BYTES` input (one being read, one parsed,
//! one written) plus their encoded rows, plus the touched bitmaps (at most 1 bit per slot of
//! a touched partition, about 2 bytes per distinct timestamp for sparse data), plus at most
//! 32 MiB of bucket rows held back for the next batch (`db::write::spill`). A record longer than
//! `MAX_RECORD_BYTES` is rejected without being held in memory.

pub mod columnar_in;
mod columnar_rows;
pub mod dialect;
pub mod encode;
pub mod flextime;
pub mod infer;
pub mod input;
mod midnight;
pub mod sample;
pub mod scan;
pub use crate::db::write::HOLD_BYTES;
pub use crate::db::DEFER_SYNC_AFTER_SERIES;
pub mod syms;
pub mod timeparse;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::db::config::Config;
use crate::db::schema::Schema;
use crate::db::syms::FnvBuild;
use crate::db::time::PartitionKey;
use crate::db::write::{
    open_partitions_budget, Entry, ParsedRows, PartWriter, Spill, Unique, WriteHooks, Written,
};
use crate::db::{files, marker, Database};
use crate::error::{Error, Result};
use crate::io::timefmt::{format_iso, format_iso_exact};
use input::{Chunk, ChunkReader, Oversized, Source};
use midnight::{Crossing, MidnightWatch};
use sample::SampleRows;
use scan::{is_blank, split_record, Field, PlainSplitter, RecordSpan};
use timeparse::{TimeError, TimeFormat, TimeSpec};

/// Target size of one chunk of input, in bytes.
pub const CHUNK_BYTES: usize = 1 << 20;
/// Chunks parsed together as one batch (fixed, so batches do not depend on the thread count).
pub const BATCH_CHUNKS: usize = 8;
/// Longest record accepted; longer ones are rejected and skipped in a streaming way.
pub const MAX_RECORD_BYTES: usize = 1 << 20;
/// Records the inference sample holds at most from a stream (only its head can be read).
pub const SAMPLE_ROWS: usize = 10_000;

/// How the CSV text is laid out. `prepare` fills in what `sniff` asks it to detect.
#[derive(Clone, Debug)]
pub struct CsvOptions {
    pub delimiter: u8,
    /// The first record of every input (after `skip_lines`) is a header.
    pub has_header: bool,
    /// Physical lines skipped at the start of every input (a preamble before the header).
    pub skip_lines: usize,
    /// The first input starts with Excel's `sep=X` line: one at the start of any input is
    /// skipped.
    pub sep_line: bool,
    /// The first input has units or descriptions under its header (a logger's TOA5 file):
    /// each input's are found and skipped (`dialect::unit_lines`).
    pub unit_lines: bool,
    /// Input column names: with `has_header`, they replace the header's names.
    pub column_names: Option<Vec<String>>,
    /// Numbers are written with a decimal comma (`2,6`).
    pub decimal_comma: bool,
    /// The mark that groups thousands in numbers, when it is not the point under a decimal
    /// comma (`,` in `1,234.5`, a space in `1 234,5`, `'` in `1'234.5`): removed from numbers.
    pub thousands: Option<Vec<u8>>,
    /// Field values read as null besides the empty field (and, in numeric columns, the
    /// default tokens `NA`, `null`…).
    pub nulls: Vec<Vec<u8>>,
    /// Target chunk size in bytes (`CHUNK_BYTES`; tests make it tiny to cross boundaries).
    pub chunk_bytes: usize,
    /// What `prepare` should detect from the first input instead of taking as given.
    pub sniff: Sniff,
    /// The Parquet and Arrow inputs, opened (`columnar_in::open_inputs`): their record
    /// batches go to the pipeline in place of text.
    pub columnar: Vec<Arc<columnar_in::Input>>,
    /// The pipes among the inputs that `columnar_in::open_inputs` opened and found to be text.
    pub pipes: Vec<(PathBuf, input::PipeSlot)>,
    /// `--encoding`: the text encoding of every input, when not UTF-8 (`None`: UTF-8, or
    /// UTF-16 where a byte-order mark says so).
    pub encoding: Option<&'static encoding_rs::Encoding>,
    /// The first fields of the comment lines (`#…`) the input starts with, when detected: a
    /// later record that starts with one of them is a comment too (InfluxDB repeats its
    /// `#group`, `#datatype`, `#default` lines before each table). Other records that start
    /// with `#` are data (a `#1` or a hashtag in a first column).
    pub comments: Vec<Vec<u8>>,
}

/// Settings of `CsvOptions` to detect from the first input.
#[derive(Clone, Debug, Default)]
pub struct Sniff {
    pub delimiter: bool,
    pub header: bool,
    pub preamble: bool,
    pub decimal_comma: bool,
    /// Detect the mark that groups thousands (`1,234.5`, `1 234,5`, `1'234.5`).
    pub thousands: bool,
    /// With `decimal_comma`: the database records that its imports read decimal commas, so
    /// numbers that do not show their mark (`-2.000`, `1.500`) are read with one.
    pub recorded_decimal_comma: bool,
    /// Column names of an existing database (its time column first): with them, the first
    /// line is a header when it names one of them, whatever its values look like.
    pub known_names: Vec<String>,
}

/// Records of the first input, for inference and time-format detection.
#[derive(Clone, Debug, Default)]
pub struct Sample {
    /// Input column names (from the header, made usable, or the options); empty without either.
    pub names: Vec<String>,
    /// The header text of each column (empty without a header).
    pub header_text: Vec<String>,
    /// Fields of the sampled records (decimal commas already made points).
    pub rows: SampleRows,
    /// Bytes of text those records take.
    pub bytes: u64,
    /// Size of the first input on disk (0 for stdin), and whether it is compressed.
    pub source_len_bytes: u64,
    pub compressed: bool,
    /// Name of the first input.
    pub source_name: String,
    /// What was detected about the text (delimiter, header, preamble, names), to print.
    pub notes: Vec<String>,
    /// What the text leaves in doubt and the user may have to settle: printed even with -q
    /// when the import creates the database.
    pub warnings: Vec<String>,
    /// Only the head of the input was sampled (a stream, or a compressed file).
    pub head_only: bool,
    /// Besides the head, records from across the rest of the file were sampled.
    pub spread: bool,
    /// Indices in `rows` where a stretch read from another place in the file starts (the
    /// head is the stretch from 0): times are contiguous only inside a stretch.
    pub segment_starts: Vec<usize>,
    /// A zone the lines skipped before the header name (Open-Meteo's `Europe/Berlin`): times
    /// without a zone, read as UTC, may be local to it.
    pub preamble_zone: Option<crate::db::time::Zone>,
}

impl Sample {
    /// The index of the column called `name`, by its name or its header text.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.names
            .iter()
            .position(|n| n == name)
            .or_else(|| self.header_text.iter().position(|n| n == name))
    }
}

/// Inputs opened, with the first chunk of the first one read ahead for the sample.
pub struct Prepared {
    sources: Vec<Source>,
    first: Option<(ChunkReader, Option<Chunk>)>,
    raw_bytes: Arc<AtomicU64>,
    pub sample: Sample,
    /// The CSV options with everything detected filled in.
    pub csv: CsvOptions,
    /// The options as given, when `prepare` detected some of the first input's dialect: each
    /// later input's is detected from them on its own (the next day's file may lack a
    /// preamble, or come from a program that writes `;` and decimal commas).
    each_input: Option<Arc<CsvOptions>>,
}

impl Prepared {
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Bytes taken so far from the input files or pipe (compressed bytes for compressed input).
    pub fn raw_bytes(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.raw_bytes)
    }
}

/// Index just past the first `n` line ends of `data` (its end if it has fewer).
fn skip_lines(data: &[u8], n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    memchr::memchr_iter(b'\n', data)
        .nth(n - 1)
        .map_or(data.len(), |p| p + 1)
}

/// Rest of a file read whole into the sample when it is at most this long; longer files
/// contribute `SPREAD_WINDOWS` windows of `WINDOW_BYTES`, evenly spaced.
const WHOLE_REST_BYTES: u64 = 4 << 20;
const SPREAD_WINDOWS: u64 = 32;
const WINDOW_BYTES: u64 = 64 << 10;
/// Records the whole sample holds at most.
const MAX_SAMPLE_ROWS: usize = 60_000;

/// Adds records from the rest of a seekable file (after its first chunk) to the sample, so that
/// later duplicates, wider values and a changing step are seen: the whole rest when it is short,
/// else evenly spaced windows, each starting after its first line end. Returns whether every
/// record of the file is now in the sample.
fn sample_across(
    path: &Path,
    (from, len): (u64, u64),
    csv: &CsvOptions,
    sample: &mut Sample,
    mut reordered: bool,
) -> Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let (head_rows, head_bytes, head_segments) =
        (sample.rows.len(), sample.bytes, sample.segment_starts.len());
    let mut file = File::open(path).map_err(|e| Error::io("open", path, e))?;
    let rest = len.saturating_sub(from);
    // Rows the rest holds, at the head's bytes per row: read whole only if they fit the budget.
    let per_row = (sample.bytes / sample.rows.len().max(1) as u64).max(1);
    let fits = (sample.rows.len() as u64).saturating_add(rest / per_row) <= MAX_SAMPLE_ROWS as u64;
    let whole = rest <= WHOLE_REST_BYTES && fits;
    let windows: Vec<(u64, u64, bool)> = if whole {
        vec![(from, rest, false)]
    } else {
        // Windows no larger than their share of the rows still allowed; the first starts right
        // after the head, the last one ends at the end of the file.
        let share_rows = MAX_SAMPLE_ROWS.saturating_sub(sample.rows.len()) as u64 / SPREAD_WINDOWS;
        let want = WINDOW_BYTES.min(share_rows * per_row).max(per_row * 4);
        let span = rest.saturating_sub(want);
        (0..SPREAD_WINDOWS)
            .map(|k| (from + span * k / (SPREAD_WINDOWS - 1), want, k > 0))
            .collect()
    };
    let width = sample.names.len();
    let mut buf = Vec::new();
    let count = windows.len();
    for (k, (offset, want, mid_record)) in windows.into_iter().enumerate() {
        // Every window gets its share of the rows still allowed.
        let budget = (MAX_SAMPLE_ROWS.saturating_sub(sample.rows.len()) / (count - k)).max(8);
        let cap = sample.rows.len() + budget;
        buf.clear();
        file.seek(SeekFrom::Start(offset))
            .map_err(|e| Error::io("read", path, e))?;
        (&mut file)
            .take(want)
            .read_to_end(&mut buf)
            .map_err(|e| Error::io("read", path, e))?;
        let at = if mid_record {
            match memchr::memchr(b'\n', &buf) {
                Some(p) => p + 1,
                None => continue,
            }
        } else {
            0
        };
        // A window that stops inside a record ends at its last line end.
        let end = if offset + (buf.len() as u64) < len {
            memchr::memrchr(b'\n', &buf).map_or(0, |p| p + 1)
        } else {
            buf.len()
        };
        let data = &buf[..end.max(at)];
        if mid_record {
            sample.segment_starts.push(sample.rows.len());
        }
        let (stop, seen) = sample_records(data, at, csv, (width, &sample.header_text), cap, &mut sample.rows);
        sample.bytes += (stop - at) as u64;
        reordered |= seen;
    }
    if reordered {
        // A header in another order somewhere: which order a window's first rows are in is
        // not known, so only the head, read from the start, stays in the sample.
        sample.rows.truncate(head_rows);
        sample.bytes = head_bytes;
        sample.segment_starts.truncate(head_segments);
        return Ok(false);
    }
    Ok(whole && sample.rows.len() < MAX_SAMPLE_ROWS)
}

/// Adds the records of `data` from `at` to `rows` until it holds `cap`, skipping blank records,
/// records that repeat the `header` text, and, when `width` is not 0, records of another
/// width; decimal commas become points; past a header in another order, fields are taken in
/// the first header's order. Returns where it stopped (the end of `data` or the start of the
/// first record not taken) and whether such a header was met.
fn sample_records(
    data: &[u8],
    mut at: usize,
    csv: &CsvOptions,
    (width, header): (usize, &[String]),
    cap: usize,
    rows: &mut SampleRows,
) -> (usize, bool) {
    let mut fields = Vec::new();
    let mut scratch = Vec::new();
    let mut number = Vec::new();
    // Most files quote nothing: the same fast splitter as the import then.
    let mut plain = memchr::memchr(b'"', &data[at.min(data.len())..])
        .is_none()
        .then(|| PlainSplitter::new(data, at, csv.delimiter));
    // Past a header that names the columns in another order (files joined with `cat`): where
    // each of the first header's columns is in the records.
    let mut reordered: Option<Vec<usize>> = None;
    let mut seen = false;
    while at < data.len() && rows.len() < cap {
        let span = match plain.as_mut() {
            Some(splitter) => splitter.next_record(at, &mut fields),
            None => split_record(data, at, csv.delimiter, &mut fields, &mut scratch),
        };
        let record_start = at;
        at = span.next;
        if is_blank(&fields, data, &scratch)
            || fields.last().is_some_and(|f| f.unclosed)
            || (width > 0 && fields.len() != width)
            || repeats_comment(&csv.comments, fields.first().map(|f| f.bytes(data, &scratch)))
        {
            continue;
        }
        if repeats_header(header, &fields, data, &scratch) {
            // Back in the first header's order.
            reordered = None;
            continue;
        }
        if reorders_header(header, &fields, data, &scratch) {
            let texts: Vec<&[u8]> = (0..fields.len())
                .map(|i| header_field(i, fields[i].bytes(data, &scratch)))
                .collect();
            reordered = header
                .iter()
                .map(|h| texts.iter().position(|t| *t == h.as_bytes()))
                .collect();
            seen = true;
            continue;
        }
        let pushed = if let Some(order) = &reordered {
            rows.push(order.iter().map(|&i| fields[i].bytes(data, &scratch)))
        } else if fields.iter().any(|f| f.quoted) {
            rows.push(fields.iter().map(|f| f.bytes(data, &scratch)))
        } else {
            // Unquoted fields lie in the record's text: one copy for the whole record.
            let base = span.start;
            rows.push_spans(
                &data[base..span.end],
                fields
                    .iter()
                    .map(|f| (f.start as usize - base, f.end as usize - base)),
            )
        };
        if !pushed {
            return (record_start, seen);
        }
        if csv.decimal_comma || csv.thousands.is_some() {
            // As the import reads numbers (`1.234,5` → `1234.5`), so that the types seen here
            // are the ones the rows get; a column that is not numeric keeps its text there.
            let record = rows.len() - 1;
            let group = csv.thousands.as_deref();
            for i in 0..fields.len() {
                if rows.field_of(record, i).is_some_and(|v| {
                    dialect::plain_number(v.trim_ascii(), csv.decimal_comma, group, &mut number)
                }) {
                    rows.shorten_field(record, i, &number);
                }
            }
        }
    }
    (at, seen)
}

/// Preamble lines: leading records whose width differs from the rows', before a header of
/// the rows' width. At most this many are skipped without `--skip-lines`.
const MAX_PREAMBLE_RECORDS: usize = 20;

/// Opens the inputs, detects the CSV dialect asked for and reads the sample from the first one.
pub fn prepare(inputs: &[PathBuf], csv: &CsvOptions) -> Result<Prepared> {
    let mut sources = input::sources(inputs)?;
    for source in &mut sources {
        source.columnar = csv.columnar.iter().find(|c| c.path == source.path).cloned();
        source.pipe = (csv.pipes.iter())
            .find(|(path, _)| Some(path) == source.path.as_ref())
            .map(|(_, slot)| slot.clone());
    }
    let Some(first_source) = sources.first() else {
        return Err(Error::Invalid("no input given".into()));
    };
    let mut csv = csv.clone();
    let raw_bytes = Arc::new(AtomicU64::new(0));
    if let Some(columnar) = &first_source.columnar {
        // Columns named by the schema; later CSV inputs have a header and commas unless told.
        let sample = columnar_in::sample(columnar)?;
        let each_input = each_input(&csv, true, &sample);
        csv.has_header = true;
        csv.sniff = Sniff::default();
        return Ok(Prepared {
            sources,
            first: None,
            raw_bytes,
            sample,
            csv,
            each_input,
        });
    }
    let asked = csv.clone();
    let opened = input::open(first_source, Arc::clone(&raw_bytes), csv.encoding)?;
    let (compression, decoding, cr_line_ends) = (opened.compression, opened.decoding, opened.cr_line_ends);
    let mut reader = ChunkReader::new(
        opened.stream,
        &first_source.name,
        csv.chunk_bytes,
        MAX_RECORD_BYTES,
        csv.delimiter,
    )
    .counting_into(opened.uncounted);
    let chunk = reader.next_chunk()?;
    let mut sample = Sample {
        source_len_bytes: first_source.len_bytes,
        compressed: compression != input::Compression::None,
        source_name: first_source.name.clone(),
        ..Sample::default()
    };
    if let Some(chunk) = &chunk {
        if chunk.data.is_empty() && chunk.oversized.is_some() && csv.has_header {
            return Err(Error::Invalid(format!(
                "{}: the header is longer than {MAX_RECORD_BYTES} bytes; is this a CSV file?",
                first_source.name
            )));
        }
        if let Some(decoding) = decoding {
            sample.notes.push(decoding.describe());
        }
        if cr_line_ends {
            sample
                .notes
                .push("lines end in a carriage return alone (classic Mac OS), read as line feeds".into());
        }
        detect_dialect(
            &chunk.data,
            &first_source.name,
            &mut csv,
            &mut sample.notes,
            &mut sample.warnings,
        )?;
        reader.set_delimiter(csv.delimiter);
        sample.preamble_zone = chunk.data[..skip_lines(&chunk.data, csv.skip_lines)]
            .split(|&b| b == b'\n')
            .find_map(|line| crate::db::time::Zone::in_header(&String::from_utf8_lossy(line)));
        let header = header_names(&chunk.data, &csv)?;
        for (text, name) in &header.renamed {
            sample
                .notes
                .push(format!("column \"{}\" is called `{name}`", text.escape_debug()));
        }
        sample.notes.extend(header.note.clone());
        sample.names = header.names;
        sample.header_text = header.text;
        let start = header.data_start;
        // A file can be sampled across; a stream only at its head (so can a file decoded from
        // another encoding: its byte offsets are not the decoded text's).
        // A pipe or FIFO named by its path (`<(cat f.csv)`) is a stream too.
        let seekable = first_source.path.as_deref().is_some_and(Path::is_file)
            && compression == input::Compression::None
            && decoding.is_none()
            && !cr_line_ends;
        let limit = if seekable { MAX_SAMPLE_ROWS } else { SAMPLE_ROWS };
        let (at, reordered) = sample_records(
            &chunk.data,
            start,
            &csv,
            (0, &sample.header_text),
            limit,
            &mut sample.rows,
        );
        sample.bytes = (at - start) as u64;
        let rest_from = chunk.offset + chunk.data.len() as u64;
        let covered = at >= chunk.data.len()
            && if seekable {
                rest_from >= first_source.len_bytes
            } else {
                reader.at_end()
            };
        sample.head_only = !covered;
        if let (Some(path), true, false) = (&first_source.path, seekable, covered) {
            let whole = sample_across(
                path,
                (rest_from, first_source.len_bytes),
                &csv,
                &mut sample,
                reordered,
            )?;
            sample.head_only = false;
            sample.spread = !whole;
        }
    }
    let each_input = each_input(&asked, csv.has_header, &sample);
    csv.sniff = Sniff::default();
    Ok(Prepared {
        sources,
        first: Some((reader, chunk)),
        raw_bytes,
        sample,
        csv,
        each_input,
    })
}

/// `Prepared::each_input`: the options as `asked`, when they leave some of the dialect to
/// detect; the first input (`sample`) `has_header`.
fn each_input(asked: &CsvOptions, has_header: bool, sample: &Sample) -> Option<Arc<CsvOptions>> {
    let sniff = &asked.sniff;
    (sniff.delimiter || sniff.header || sniff.preamble || sniff.decimal_comma || sniff.thousands).then(|| {
        let mut asked = asked.clone();
        if asked.sniff.known_names.is_empty() && has_header {
            // A later input's first line is its header when it names the first input's columns.
            asked.sniff.known_names = sample.names.clone();
        }
        Arc::new(asked)
    })
}

/// The delimiter an Excel `sep=X` line at the start of `data` names (one byte, the whole line).
fn excel_sep_line(data: &[u8]) -> Option<u8> {
    let line = data.strip_prefix(b"sep=")?;
    let end = memchr::memchr(b'\n', line).unwrap_or(line.len());
    match &line[..end] {
        [d] | [d, b'\r'] if *d != b'"' && *d != b'\r' => Some(*d),
        _ => None,
    }
}

/// Fills in the delimiter, the preamble, the header and the decimal comma that `csv.sniff`
/// asks for, from the first chunk of an input, and says what it found. Returns whether its
/// numbers told the decimal mark (`false`: none showed one, and a point is assumed).
fn detect_dialect(
    data: &[u8],
    name: &str,
    csv: &mut CsvOptions,
    notes: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<bool> {
    let mut mark_told = false;
    let sniff = csv.sniff.clone();
    let mut at = skip_lines(data, csv.skip_lines);
    // Excel's `sep=;` first line names the delimiter and is no record. (Only without
    // --skip-lines: it is the file's first line.)
    let mut sep_line = false;
    if let Some(d) = excel_sep_line(data).filter(|_| sniff.preamble) {
        sep_line = true;
        csv.sep_line = true;
        at = skip_lines(data, 1);
        if sniff.delimiter {
            csv.delimiter = d;
        }
        notes.push(format!(
            "skipped the first line `sep={}`: it names the delimiter, as Excel writes it",
            dialect::delimiter_name(d).trim_matches('`')
        ));
    }
    if sniff.delimiter && !sep_line {
        csv.delimiter = dialect::sniff_delimiter(data, at);
        if csv.delimiter != b',' {
            notes.push(format!(
                "delimiter {} (detected; pass --delimiter to choose)",
                dialect::delimiter_name(csv.delimiter)
            ));
        }
    }
    let head = dialect::records(data, at, csv.delimiter, 1000);
    // A number grouped by a mark that is never a decimal one (`1 234,5`, `12'345.6`) tells
    // that mark; the decimal mark is then told from the numbers without it.
    let mut cells: Vec<Cow<[u8]>> = head
        .iter()
        .skip(1)
        .flat_map(|(_, r)| r.iter().map(|v| Cow::Borrowed(v.trim_ascii())))
        .collect();
    let by = |g: &[u8], v: &[u8]| dialect::grouped_by(v, g, b'.') || dialect::grouped_by(v, g, b',');
    if sniff.thousands {
        let mark = dialect::GROUP_MARKS
            .iter()
            .map(|g| g.as_bytes())
            .filter(|g| *g != [csv.delimiter])
            .find(|g| cells.iter().any(|v| by(g, v)));
        if let Some(g) = mark {
            csv.thousands = Some(g.to_vec());
            notes.push(format!(
                "numbers with thousands grouped by {} (detected; pass --thousands to choose)",
                dialect::group_mark_name(g)
            ));
        }
    }
    if let Some(g) = csv.thousands.as_deref().filter(|g| *g != b",") {
        for v in cells.iter_mut().filter(|v| by(g, v)) {
            *v = Cow::Owned(dialect::without_mark(v, g));
        }
    }
    let values = || cells.iter().map(|v| v.as_ref());
    // Whether `v` has `sep` as a decimal mark: a comma or a point followed by other than three
    // digits (`2,6`, `129.41`); three (`143,301`) may group thousands, unless what comes before
    // cannot start a group (`0,123`, `1234,567`).
    let decimal = |v: &[u8], sep: u8| {
        let v = v.strip_prefix(b"-").unwrap_or(v);
        v.iter().position(|&c| c == sep).is_some_and(|p| {
            let (int, frac) = (&v[..p], &v[p + 1..]);
            !int.is_empty()
                && !frac.is_empty()
                && (frac.len() != 3 || int == b"0" || int.len() > 3)
                && int.iter().chain(frac).all(u8::is_ascii_digit)
        })
    };
    if sniff.decimal_comma && csv.delimiter != b',' {
        // A comma so placed is a decimal comma; a dot so placed is a decimal point, and then
        // the commas group thousands. A number with both (`1.234,56`, `1,234.56`) tells which
        // is which.
        let commas = values().any(|v| {
            (dialect::is_decimal_comma(v) && decimal(v, b',')) || dialect::grouped_decimal(v, b'.', b',')
        });
        let dots = values().any(|v| decimal(v, b'.') || dialect::grouped_decimal(v, b',', b'.'));
        if commas && !dots {
            csv.decimal_comma = true;
            notes.push("numbers with a decimal comma (detected; pass --decimal-comma to force it)".into());
        }
        mark_told = commas || dots;
        if !mark_told && sniff.recorded_decimal_comma {
            // A German export's next file whose numbers all look like `1.500`: the points
            // group thousands, as the database's first file showed.
            csv.decimal_comma = true;
            mark_told = true;
            notes.push(
                "numbers read with a decimal comma, as the database records (`decimal_comma` in \
                 xs.toml); pass --decimal-point if this file's points are decimal points"
                    .into(),
            );
        }
        // `1.736` beside `736` and no number that tells the mark: a point grouping thousands,
        // as software writing `;` and decimal commas does, reads the same as a decimal point.
        let dot_grouped = |v: &&[u8]| dialect::is_grouped(v.strip_prefix(b"-").unwrap_or(v), b'.');
        let shown: Vec<String> = values()
            .filter(dot_grouped)
            .take(3)
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect();
        if let (false, Some(first)) = (mark_told, shown.first()) {
            warnings.push(format!(
                "{name}: numbers such as `{}` are read as decimals ({first}), but nothing in the \
                 first {} records tells whether the point groups thousands instead ({}), as \
                 software that writes {} often does; if it does, pass --decimal-comma",
                shown.join("`, `"),
                head.len().saturating_sub(1),
                first.replace('.', ""),
                dialect::delimiter_name(csv.delimiter)
            ));
        }
    }
    // Commas group thousands where a number shows it (`1,234.56`, `1,234,567`), or where one is
    // so grouped (`143,301`) and others show a decimal point (quoted, in a comma-separated file).
    if sniff.thousands && csv.thousands.is_none() && !csv.decimal_comma {
        let grouped = |v: &[u8]| dialect::grouped_by(v, b",", b'.');
        let told = values().any(|v| {
            dialect::grouped_decimal(v, b',', b'.')
                || (grouped(v) && v.iter().filter(|&&c| c == b',').count() > 1)
        }) || (values().any(grouped) && values().any(|v| decimal(v, b'.')));
        if told {
            csv.thousands = Some(b",".to_vec());
            notes.push(format!(
                "numbers with thousands grouped by {} (detected; pass --thousands to choose)",
                dialect::group_mark_name(b",")
            ));
        }
    }
    let (width, _) = dialect::modal_width(&head);
    let mut first = 0;
    if sniff.preamble {
        // Comment and annotation lines (`# exported by …`, InfluxDB's `#datatype,…`) come
        // first whatever their width: the header is the first record of the rows' width
        // after them. A lone `#` is a column name (a row number's), not a comment.
        let leading = head.iter().take_while(|(_, r)| is_comment(r.first())).count();
        let leading_firsts: Vec<Vec<u8>> = head[..leading]
            .iter()
            .filter_map(|(_, r)| r.first().cloned())
            .collect();
        // A logger pads its preamble to the rows' width (`Serial:,10234567,,`): records at
        // least half empty are passed over too, when a header follows them.
        let padded = |r: &[Vec<u8>]| r.iter().filter(|f| f.trim_ascii().is_empty()).count() * 2 >= r.len();
        let header_at = |comments: usize| {
            let h = head
                .iter()
                .skip(comments)
                .position(|(_, r)| r.len() == width && !padded(r))?
                + comments;
            // After leading comments, later ones (and repeated headers) are not rows either.
            let below: Vec<&[Vec<u8>]> = head[h + 1..]
                .iter()
                .map(|(_, r)| r.as_slice())
                .filter(|r| {
                    comments == 0
                        || (!repeats_comment(&leading_firsts, r.first()) && *r != head[h].1.as_slice())
                })
                .collect();
            dialect::looks_like_header(&head[h].1, &below, csv.decimal_comma).then_some(h)
        };
        // A header may itself start with `#` (`#time,value` under `# exported by …`): when the
        // record after the `#` lines is no header, they are not all comments.
        let (comments, found) = match header_at(leading) {
            Some(h) => (leading, Some(h)),
            None => (0, header_at(0)),
        };
        if let Some(h) = found {
            csv.comments = if comments > 0 {
                leading_firsts.clone()
            } else {
                Vec::new()
            };
            if h > 0 && h <= MAX_PREAMBLE_RECORDS {
                let lines = memchr::memchr_iter(b'\n', &data[at..head[h].0]).count();
                if let Some((t, n)) = table_in_preamble(&head[comments..h], csv.decimal_comma) {
                    let line_of = |k: usize| memchr::memchr_iter(b'\n', &data[..head[k].0]).count() + 1;
                    let table = &head[comments + t].1;
                    let header_line = line_of(h);
                    return Err(Error::Invalid(format!(
                        "{name}: lines {}-{} look like a table of their own, a header (`{}`) and {n} \
                         row(s) with times, {} fields each, above the header on line {} whose rows \
                         have {width}; skipped as a preamble, those rows would be lost. If the file \
                         joins tables with different columns, split it at line {header_line} and \
                         import each part; if the lines are a preamble, pass --skip-lines {lines}",
                        line_of(comments + t),
                        line_of(comments + t + n),
                        String::from_utf8_lossy(&table.join(&b","[..])),
                        table.len(),
                        header_line,
                    )));
                }
                csv.skip_lines += lines;
                first = h;
                let why = if comments == 0 {
                    "mostly empty, or their field count differs from the rows'"
                } else if comments == h {
                    "comments (`#`)"
                } else {
                    "comments (`#`) and lines whose field count differs from the rows'"
                };
                notes.push(format!(
                    "skipped {lines} line(s) before the header: {why} (pass --skip-lines to choose)"
                ));
            }
        }
    }
    // The records under the first one, and how many of them are more header (units).
    let below: Vec<&[Vec<u8>]> = head
        .iter()
        .skip(first + 1)
        .map(|(_, r)| r.as_slice())
        .filter(|r| {
            csv.comments.is_empty()
                || (!repeats_comment(&csv.comments, r.first())
                    && head.get(first).is_none_or(|(_, h)| h.as_slice() != *r))
        })
        .collect();
    let units = dialect::unit_lines(&below, csv.decimal_comma);
    if sniff.header {
        csv.has_header = match head.get(first) {
            Some((_, r)) if !sniff.known_names.is_empty() => {
                // Into an existing database: a header names some of its columns; a first row
                // with an odd value is still data.
                let text: Vec<String> = r
                    .iter()
                    .map(|v| String::from_utf8_lossy(v).trim().to_string())
                    .collect();
                let (names, _) = dialect::column_names(&text);
                // An empty field's name (`column_3`) is made up, not read: a headerless first
                // row with an empty value names no column of a database made from such a file.
                let known = |n: &str| sniff.known_names.iter().any(|k| k.eq_ignore_ascii_case(n));
                names
                    .iter()
                    .zip(&text)
                    .any(|(n, t)| !t.is_empty() && (known(n) || known(t)))
            }
            Some((_, r)) => dialect::looks_like_header(r, &below[units..], csv.decimal_comma),
            None => true,
        };
        if !csv.has_header {
            notes.push(if sniff.known_names.is_empty() {
                "no header: the first line types like the rows below it (pass --header to read it as one)".into()
            } else {
                "no header: the first line names none of the database's columns (pass --header to read it as one)"
                    .into()
            });
        }
    }
    if csv.has_header && units > 0 {
        csv.unit_lines = true;
        notes.push(format!(
            "skipped {units} line(s) after the header: units or descriptions (text where the rows \
             below hold numbers or times)"
        ));
    }
    Ok(mark_told)
}

/// A header with rows of times under it among the records taken for a preamble (`pre`, with
/// their byte offsets): a table of other columns, as where files of different columns were
/// joined, whose rows a skip would lose: two rows or more with times in one column and values
/// in another. Returns its header's index in `pre` and its rows' count. Key/value lines
/// (`Station,XYZ`, `Latitude,55.3`, `Created,2024-03-05`) hold no column of times.
fn table_in_preamble(pre: &[(usize, Vec<Vec<u8>>)], decimal_comma: bool) -> Option<(usize, usize)> {
    let mut i = 0;
    while i < pre.len() {
        let width = pre[i].1.len();
        let n = pre[i + 1..].iter().take_while(|(_, r)| r.len() == width).count();
        if width >= 2 && n >= 2 && !is_comment(pre[i].1.first()) {
            let rows: Vec<&[Vec<u8>]> = pre[i + 1..=i + n].iter().map(|(_, r)| r.as_slice()).collect();
            let all = |j: usize, kind: &dyn Fn(dialect::Kind) -> bool| {
                rows.iter().all(|r| kind(dialect::kind(&r[j], decimal_comma)))
            };
            // A column of times beside one of values (numbers, flags, more times): rows. Keys
            // beside times (`Start,2024-03-05 00:00` / `End,…`) are a logger's preamble.
            let timed = (0..width).any(|j| {
                all(j, &|k| k == dialect::Kind::Time)
                    && (0..width).any(|k| k != j && all(k, &|k| k != dialect::Kind::Text))
            });
            if timed && dialect::looks_like_header(&pre[i].1, &rows, decimal_comma) {
                return Some((i, n));
            }
        }
        i += n + 1;
    }
    None
}

/// An input's column names and where its data starts in its first chunk.
struct Header {
    /// Usable names (header text as it is when valid, else an alias; or given, or generated).
    names: Vec<String>,
    /// The header text per column; empty strings without a header.
    text: Vec<String>,
    /// (header text, name) for the names that differ from their text.
    renamed: Vec<(String, String)>,
    /// What was done when the header and the rows differ in width.
    note: Option<String>,
    data_start: usize,
}

/// The column names of an input and where its data starts in its first chunk.
fn header_names(data: &[u8], csv: &CsvOptions) -> Result<Header> {
    // An Excel `sep=` line comes first, before any preamble `skip_lines` counts.
    let sep = if csv.sep_line && excel_sep_line(data).is_some() {
        skip_lines(data, 1)
    } else {
        0
    };
    let mut at = sep + skip_lines(&data[sep..], csv.skip_lines);
    let mut text = Vec::new();
    let mut fields = Vec::new();
    let mut scratch = Vec::new();
    if csv.has_header {
        // Skip blank lines before the header.
        while at < data.len() {
            let span = split_record(data, at, csv.delimiter, &mut fields, &mut scratch);
            at = span.next;
            if !is_blank(&fields, data, &scratch) {
                text = fields
                    .iter()
                    .map(|f| {
                        String::from_utf8_lossy(f.bytes(data, &scratch))
                            .trim()
                            .to_string()
                    })
                    .collect();
                break;
            }
        }
        if csv.unit_lines {
            // Found in each input on its own: the next day's file may have none.
            let below = dialect::records(data, at, csv.delimiter, 64);
            let rows: Vec<&[Vec<u8>]> = below
                .iter()
                .map(|(_, r)| r.as_slice())
                .filter(|r| csv.comments.is_empty() || !repeats_comment(&csv.comments, r.first()))
                .collect();
            let units = dialect::unit_lines(&rows, csv.decimal_comma);
            if units > 0 {
                let first_row = rows[units];
                at = below
                    .iter()
                    .find(|(_, r)| std::ptr::eq(r.as_slice(), first_row))
                    .map_or(at, |(start, _)| *start);
            }
        }
    }
    let (mut names, mut renamed) = dialect::column_names(&text);
    let mut note = None;
    // The first data records, for their width and what fills it.
    let first_rows: Vec<Vec<Vec<u8>>> = dialect::records(data, at, csv.delimiter, 20)
        .into_iter()
        .map(|(_, r)| r)
        .collect();
    if let Some(given) = &csv.column_names {
        names = given.clone();
    } else if csv.has_header {
        note = dialect::fit_header(&mut names, &mut text, &first_rows).map_err(Error::Invalid)?;
        // A dropped empty name is no rename to report.
        renamed.retain(|(_, name)| names.contains(name));
    }
    text.resize(names.len(), String::new());
    Ok(Header {
        names,
        text,
        renamed,
        note,
        data_start: at,
    })
}

/// Where times of day (a time column without a date) get their date.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DateSource {
    /// The times carry their date.
    #[default]
    None,
    /// `--date`: ns of that midnight.
    Given(i64),
    /// From each input's file name.
    FileName,
}

/// How rows are read and stored.
#[derive(Clone, Debug)]
pub struct Options {
    pub csv: CsvOptions,
    /// The input column(s) holding the time, joined with a space when several; default: the
    /// database's time column.
    pub time_columns: Vec<String>,
    pub time: TimeSpec,
    /// Where times of day get their date.
    pub date: DateSource,
    /// Input columns the database lacks are skipped instead of refused.
    pub ignore_unknown_columns: bool,
    /// `--update-columns`: an input may lack database columns; its rows change only the
    /// columns it has in the stored rows they meet (by unique key, or the one row of a time).
    pub update_columns: bool,
    /// Round misaligned times down to the granularity instead of rejecting them.
    pub floor_time: bool,
    /// Where rejected rows go (created only when a row is rejected).
    pub rejects_path: PathBuf,
    /// Fsync the touched partitions and the directory at the end.
    pub sync: bool,
    /// Worker threads; `None`: one per core.
    pub threads: Option<usize>,
    /// The command recorded in the unfinished-import marker.
    pub rerun_command: String,
    /// Test hook: SIGKILL the process once an undo journal is committed, before its slots
    /// are written (to test the roll-back of a torn slot).
    pub kill_after_journal: bool,
    /// Bytes of bucket rows held back for the next batch that stay in memory; past them they
    /// spill to a scratch file (`HOLD_BYTES` by default).
    pub hold_bytes: u64,
    /// New series an import into a series database syncs one by one; it builds the others
    /// aside and makes them durable at once (`DEFER_SYNC_AFTER_SERIES` by default).
    pub defer_sync_after_series: usize,
}

/// Progress so far, for a progress bar.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Bytes taken from the input files or pipe.
    pub raw_bytes: u64,
    pub rows_read: u64,
}

/// What an import did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub files: usize,
    /// Data records read (blank lines and headers excluded): stored + rejected.
    pub rows_read: u64,
    pub rows_stored: u64,
    pub rows_rejected: u64,
    /// Partitions written, in time order.
    pub partitions: Vec<PartitionKey>,
    /// Uncompressed bytes read.
    pub bytes_read: u64,
    pub elapsed: Duration,
    /// Some times had no zone and were read in the import's zone (`Options::time`).
    pub naive_times: bool,
    /// Fields read as null because they held a null token (`NA`, `--null` values…).
    pub null_tokens: u64,
    /// Some times were rounded down to the granularity (`floor_time`).
    pub floored_times: u64,
    /// Stored rows replaced by rows of this import.
    pub rows_replaced: u64,
    /// Stored rows removed without a replacement (a timestamp's rows replaced by fewer).
    pub rows_removed: u64,
    /// Per input (by its place in the command), the first and last time of its rows stored or
    /// placed: inputs that cover the same times are told of where no series key parts them.
    pub file_spans: Vec<Option<(i64, i64)>>,
    /// Series written (0 without a series key).
    pub series: usize,
    /// Records past the first line that repeat the header (files joined with `cat`), skipped.
    pub header_lines: u64,
    /// Comment lines (`#…`) past the header, skipped (in inputs that start with comments).
    pub comment_lines: u64,
    /// What was read differently in a later input than in the first (its own dialect, its
    /// dates in the other order), one line each, starting with the input's name.
    pub notes: Vec<String>,
    pub rejects_path: Option<PathBuf>,
}

/// An input column's destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// The time, or the k-th of the time columns joined.
    Time(u8),
    Column(usize),
    Skip,
    /// A field the header leaves unnamed and the database has no column for (`a;b;;`: lines
    /// that end in delimiters): skipped when empty, and a row with a value there is rejected,
    /// never stored without it.
    Unnamed,
}

/// How one input's fields map to the database.
#[derive(Debug)]
struct Plan {
    file: usize,
    targets: Vec<Target>,
    time_name: String,
    /// How many input columns make the time (joined with a space in the order given).
    time_parts: usize,
    /// Ns of the midnight that times of day fall on.
    date_ns: Option<i64>,
    /// The database columns this input gives, in schema order (what `--update-columns`
    /// changes).
    given: Vec<usize>,
    /// The input's header text per column (empty without a header): a record that repeats it
    /// (files joined with `cat`) is not data.
    header: Vec<String>,
    /// How this input's text is laid out (the first input's, or its own when detected).
    csv: Arc<CsvOptions>,
    /// How its times are read, when not as the import's (`Options::time`): its own, when they
    /// are written otherwise (`later_time_format`).
    time: Option<TimeSpec>,
}

/// Time columns joined at most.
const MAX_TIME_PARTS: usize = 4;

/// The input columns that make the time: the names given, else the database's time column,
/// else two adjacent columns whose names joined with `_` make it (`Date`,`Time` → `Date_Time`).
pub fn time_sources(
    names: &[String],
    text: &[String],
    given: &[String],
    db_time: &str,
) -> Option<Vec<usize>> {
    let find = |name: &str| {
        names
            .iter()
            .position(|n| n == name)
            .or_else(|| text.iter().position(|n| n == name))
    };
    if !given.is_empty() {
        return given.iter().map(|g| find(g)).collect();
    }
    if let Some(i) = find(db_time) {
        return Some(vec![i]);
    }
    // A date and a time of day joined (`Date_Time`): side by side, or apart in either order.
    let joins = |i: usize, j: usize| i != j && format!("{}_{}", names[i], names[j]) == db_time;
    let n = names.len();
    (0..n.saturating_sub(1))
        .find(|&i| joins(i, i + 1))
        .map(|i| vec![i, i + 1])
        .or_else(|| {
            (0..n)
                .flat_map(|i| (0..n).map(move |j| (i, j)))
                .find(|&(i, j)| joins(i, j))
                .map(|(i, j)| vec![i, j])
        })
}

/// The input's names, each written as the database writes it when it differs only in case
/// (`Time,Symbol,Ask,Bid` for `time,symbol,bid,ask`: other tools write names in their own
/// case), where that is one database name the input does not also give as it is.
fn same_names_as(names: &[String], config: &Config) -> Vec<String> {
    let db_names: Vec<&str> = std::iter::once(config.time_column.as_str())
        .chain(config.schema.columns().iter().map(|c| c.name.as_str()))
        .collect();
    names
        .iter()
        .map(|n| {
            if db_names.contains(&n.as_str()) {
                return n.clone();
            }
            let mut like = db_names.iter().filter(|d| d.eq_ignore_ascii_case(n));
            match (like.next(), like.next()) {
                (Some(&d), None) if !names.iter().any(|m| m == d) => d.to_string(),
                _ => n.clone(),
            }
        })
        .collect()
}

/// The columns of a headerless input into the database: those of the headerless input that
/// created it, when all its names are the ones xs gives such columns (`column_1` …
/// `column_N`, the time possibly two of them joined: `column_1_column_2`, MetaTrader's date
/// and time), which `xs range`'s order would not line up with; else that order (the time
/// first, then the values).
pub fn headerless_names(config: &Config) -> Vec<String> {
    generated_names(config).unwrap_or_else(|| {
        std::iter::once(config.time_column.clone())
            .chain(config.schema.columns().iter().map(|c| c.name.clone()))
            .collect()
    })
}

/// The names of a headerless input's columns when its times are not first, as the database
/// reads them: the rest of a split file whose first part (`symbol,time,price`) created the
/// database holds its time in the same field, the other columns in the database's order. `None`
/// when the first field holds the times (or nothing is sampled), when no single other field
/// holds them, or when the database's names are generated ones (`column_N`).
pub fn continuation_names(config: &Config, sample: &Sample) -> Option<(usize, Vec<String>)> {
    let columns = config.schema.columns();
    let width = columns.len() + 1;
    let rows = &sample.rows;
    if generated_names(config).is_some() || rows.is_empty() || rows.max_width() != width {
        return None;
    }
    let timed = |i: usize| {
        let values: Vec<&[u8]> = rows
            .column(i)
            .map(<[u8]>::trim_ascii)
            .filter(|v| !v.is_empty())
            .collect();
        let times = values.iter().filter(|v| dialect::is_time_like(v)).count();
        !values.is_empty() && times * 10 >= values.len() * 9
    };
    if timed(0) {
        return None;
    }
    let mut at = (1..width).filter(|&i| timed(i));
    let k = at.next()?;
    if at.next().is_some() {
        return None;
    }
    let mut names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    names.insert(k, config.time_column.clone());
    Some((k, names))
}

/// `column_1` … `column_N` when every name of the database is one of them (see
/// `headerless_names`).
fn generated_names(config: &Config) -> Option<Vec<String>> {
    let index = |name: &str| {
        name.strip_prefix("column_")
            .and_then(|k| k.parse::<usize>().ok())
            .filter(|&k| (1..=crate::db::config::MAX_COLUMNS).contains(&k))
    };
    let time = &config.time_column;
    let mut used: Vec<usize> = match time.split_once("_column_") {
        Some((date, clock)) => {
            let a = index(date)?;
            (clock.parse::<usize>().ok()? == a + 1).then_some(vec![a, a + 1])?
        }
        None => vec![index(time)?],
    };
    for column in config.schema.columns() {
        used.push(index(&column.name)?);
    }
    let n = *used.iter().max()?;
    Some((1..=n).map(|k| format!("column_{k}")).collect())
}

/// Matches an input's column names to the database by name.
fn plan_for(
    file: usize,
    source: &Source,
    header: &Header,
    csv: Arc<CsvOptions>,
    config: &Config,
    opts: &Options,
) -> Result<Plan> {
    let schema = &config.schema;
    let names: Vec<String> = if header.names.is_empty() {
        headerless_names(config)
    } else {
        same_names_as(&header.names, config)
    };
    let time_name = if opts.time_columns.is_empty() {
        config.time_column.clone()
    } else {
        opts.time_columns.join(",")
    };
    let Some(time_idx) = time_sources(&names, &header.text, &opts.time_columns, &config.time_column) else {
        return Err(Error::Invalid(format!(
            "{}: the input has no time column `{time_name}` (its columns: {}); name the input column \
             that holds the time with --time-column",
            source.name,
            names.join(",")
        )));
    };
    if time_idx.len() > MAX_TIME_PARTS {
        return Err(Error::Invalid(format!(
            "--time-column joins at most {MAX_TIME_PARTS} columns"
        )));
    }
    let mut targets = Vec::with_capacity(names.len());
    let mut unknown = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if names[..i].contains(name) {
            return Err(Error::Invalid(format!(
                "{}: column `{name}` appears twice in the input header",
                source.name
            )));
        }
        let target = if let Some(k) = time_idx.iter().position(|&t| t == i) {
            Target::Time(k as u8)
        } else if let Some(col) = schema.column_index(name) {
            Target::Column(col)
        } else if opts.ignore_unknown_columns {
            Target::Skip
        } else if header.text.get(i).is_some_and(String::is_empty)
            && header.text.iter().any(|t| !t.is_empty())
        {
            Target::Unnamed
        } else {
            unknown.push(name.as_str());
            Target::Skip
        };
        targets.push(target);
    }
    if !unknown.is_empty() && !opts.ignore_unknown_columns {
        let db_columns: Vec<&str> = schema.columns().iter().map(|c| c.name.as_str()).collect();
        return Err(Error::Invalid(format!(
            "{}: input column(s) {} are not in the database (its columns: {}, time column `{}`); \
             pass --ignore-columns to skip them",
            source.name,
            unknown.join(", "),
            db_columns.join(","),
            config.time_column
        )));
    }
    let given: Vec<usize> = (0..schema.columns().len())
        .filter(|c| targets.contains(&Target::Column(*c)))
        .collect();
    let lacking = |columns: &[usize]| -> Vec<&str> {
        columns
            .iter()
            .filter(|c| !given.contains(c))
            .map(|&c| schema.columns()[c].name.as_str())
            .collect()
    };
    if opts.update_columns {
        // The keys say which stored row an input row updates: they cannot be left out.
        let keys: Vec<usize> = config
            .series_columns()
            .into_iter()
            .chain(config.unique_columns())
            .collect();
        let missing = lacking(&keys);
        if !missing.is_empty() {
            return Err(Error::Invalid(format!(
                "{}: the input lacks the key column(s) {} (its columns: {}); --update-columns \
                 finds the stored row to update by the series and unique keys, so the input must \
                 give them",
                source.name,
                missing.join(", "),
                names.join(",")
            )));
        }
    } else {
        // Every column must be given: a row stored without one would silently null it.
        let missing = lacking(&(0..schema.columns().len()).collect::<Vec<_>>());
        if !missing.is_empty() {
            return Err(Error::Invalid(format!(
                "{}: the input lacks the database column(s) {} (its columns: {}); an import \
                 replaces whole rows, so these would be stored as null. Add the columns to the \
                 input, or pass --update-columns to change only the columns it has",
                source.name,
                missing.join(", "),
                names.join(",")
            )));
        }
    }
    let date_ns = match &opts.date {
        DateSource::None => None,
        DateSource::Given(ns) => Some(*ns),
        DateSource::FileName => match dialect::date_in_name(&source.name) {
            Some((days, _)) => Some(days * crate::db::time::NS_PER_DAY),
            None => {
                return Err(Error::Invalid(format!(
                    "{}: the times are times of day and this file name holds no date; pass --date \
                     YYYY-MM-DD (the day they fall on)",
                    source.name
                )))
            }
        },
    };
    Ok(Plan {
        file,
        targets,
        time_name: time_idx
            .iter()
            .map(|&i| names[i].as_str())
            .collect::<Vec<_>>()
            .join("`+`"),
        time_parts: time_idx.len(),
        date_ns,
        given,
        header: header.text.clone(),
        csv,
        time: None,
    })
}

/// One chunk on its way through the pipeline.
struct Work {
    plan: Arc<Plan>,
    chunk: Chunk,
    /// Where data starts in the chunk (after the header in a file's first chunk).
    start: usize,
    /// Line number of the chunk's first byte (1-based, per file).
    first_line: u64,
    /// The chunk starts at a header that names the input's columns in another order (files
    /// joined with `cat`): its rows are read in that order (`follow_reordered_headers`).
    reordered: bool,
    /// Its input's times of day went back over midnight before this chunk, or at `at` in it:
    /// the rows from there on are rejected (`reject_past_midnight`).
    past_midnight: Option<Crossing>,
    /// The times of day of its input's chunks before it, when a series of this chunk went
    /// back over midnight since: parsed again to find where (`reject_past_midnight`).
    earlier: Option<Arc<EarlierTimes>>,
}

impl Work {
    /// The same chunk (taken from `self`) to parse again, with rows past `crossing` rejected.
    fn again(&mut self, crossing: Option<Crossing>, earlier: Option<Arc<EarlierTimes>>) -> Work {
        Work {
            plan: Arc::clone(&self.plan),
            chunk: std::mem::take(&mut self.chunk),
            start: self.start,
            first_line: self.first_line,
            reordered: self.reordered,
            past_midnight: crossing,
            earlier,
        }
    }
}

/// The times of day of an input's chunks so far: each series' last, and the last of all.
#[derive(Clone, Debug, Default)]
struct EarlierTimes {
    last: HashMap<String, i64>,
    prev: Option<i64>,
}

/// Whether a series of chunk `p` starts more than half a day before its last time in the
/// input's chunks before it: a crossing of midnight somewhere in `p`.
fn went_back_since(p: &Parsed, earlier: &EarlierTimes) -> bool {
    p.tod.iter().zip(&p.series).any(|(tod, name)| {
        tod.zip(earlier.last.get(name))
            .is_some_and(|((first, _), &last)| infer::went_back_over_midnight(last, first))
    })
}

/// How a later input's detected dialect differs from the first input's, said in a few words
/// (`None`: it does not).
fn dialect_difference(first: &CsvOptions, own: &CsvOptions) -> Option<String> {
    let mut parts = Vec::new();
    if own.delimiter != first.delimiter {
        parts.push(format!("delimiter {}", dialect::delimiter_name(own.delimiter)));
    }
    // (the first's, this one's, words for this one's when true, when false)
    for (theirs, ours, yes, no) in [
        (
            first.decimal_comma,
            own.decimal_comma,
            "decimal commas",
            "decimal points",
        ),
        (first.has_header, own.has_header, "a header", "no header"),
        (
            first.unit_lines,
            own.unit_lines,
            "unit lines under the header",
            "no unit lines",
        ),
        (
            !first.comments.is_empty(),
            !own.comments.is_empty(),
            "leading comments",
            "no leading comments",
        ),
    ] {
        if theirs != ours {
            parts.push(if ours { yes } else { no }.to_string());
        }
    }
    if own.skip_lines != first.skip_lines || own.sep_line != first.sep_line {
        parts.push(format!(
            "{} line(s) before the header",
            own.skip_lines + usize::from(own.sep_line)
        ));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "read with {} (detected in each input; the options that set them apply to every input)",
            parts.join(", ")
        )
    })
}

/// Records of a later input's first chunk looked at for how its times are written.
const LATER_TIME_RECORDS: usize = 1000;

/// The time values (joined when the time is several columns) of the first records of `data`.
fn first_time_values(plan: &Plan, data: &[u8]) -> Vec<Vec<u8>> {
    let mut time_at = vec![usize::MAX; plan.time_parts];
    for (i, t) in plan.targets.iter().enumerate() {
        if let Target::Time(k) = *t {
            time_at[usize::from(k)] = i;
        }
    }
    dialect::records(data, 0, plan.csv.delimiter, LATER_TIME_RECORDS)
        .into_iter()
        .filter(|(_, record)| record.len() == plan.targets.len())
        .map(|(_, record)| {
            let mut value = Vec::new();
            for (k, &i) in time_at.iter().enumerate() {
                if k > 0 {
                    value.push(b' ');
                }
                value.extend_from_slice(record[i].trim_ascii());
            }
            value
        })
        .collect()
}

/// How a later input's times are read when not as the import's, which were detected in the
/// first input (`spec.format_detected`): the next file may come from another program. Its
/// dates in the other order, when its first records hold dates that read only that way and
/// none that read only the import's; or, when fewer than 9 in 10 of them read at all, the
/// format they show (ISO times after a Parquet input's epoch numbers, epoch numbers after
/// dates). Times of day there are dated by `--date`, else by the input's file name (`name`).
/// `None` keeps the import's; rows that do not read are rejected.
fn later_time_format(
    spec: &TimeSpec,
    plan: &Plan,
    data: &[u8],
    name: &str,
) -> Option<(TimeSpec, Option<i64>, String)> {
    use flextime::DateOrder;
    if !spec.format_detected {
        return None;
    }
    let values = first_time_values(plan, data);
    let order = match spec.format {
        TimeFormat::Flex(DateOrder::Dmy) => Some((DateOrder::Dmy, DateOrder::Mdy)),
        TimeFormat::Flex(DateOrder::Mdy) => Some((DateOrder::Mdy, DateOrder::Dmy)),
        _ => None,
    };
    if let Some((ours, other)) = order {
        let (mut only_ours, mut only_other) = (0usize, 0usize);
        for value in &values {
            match (
                flextime::parse(value, ours).is_some(),
                flextime::parse(value, other).is_some(),
            ) {
                (true, false) => only_ours += 1,
                (false, true) => only_other += 1,
                _ => {}
            }
        }
        if only_other > 0 && only_ours == 0 {
            let note = format!(
                "dates read as {}, not {} as in the first input: only that order reads its \
                 first rows (pass --time-format to read every input one way)",
                other.describe(),
                ours.describe()
            );
            let format = TimeFormat::Flex(other);
            // Whether its naive times are refused is the input's own (decided by the caller).
            return Some((
                TimeSpec {
                    format,
                    refuse_naive: false,
                    ..spec.clone()
                },
                plan.date_ns,
                note,
            ));
        }
    }
    let reading = |spec: &TimeSpec, date_ns: Option<i64>| {
        let mut parser = timeparse::TimeParser::new(spec, date_ns);
        values.iter().filter(|v| parser.parse(v).is_ok()).count()
    };
    let mostly = |n: usize| n * 10 >= values.len() * 9;
    if values.is_empty() || mostly(reading(spec, plan.date_ns)) {
        return None;
    }
    let refs: Vec<&[u8]> = values.iter().map(Vec::as_slice).collect();
    let unit = match spec.format {
        TimeFormat::Epoch(unit) if !spec.unit_by_magnitude => Some(unit),
        _ => None,
    };
    let Ok(Some((format, how))) = infer::detect_time_format(&refs, unit, None) else {
        return None;
    };
    // Times of day take the input's date: `--date`, else one in its name. Without one they
    // would be placed on 1970-01-01: left rejected.
    let (date_ns, dated) = if format.is_time_of_day() {
        match (plan.date_ns, dialect::date_in_name(name)) {
            (Some(ns), _) => (Some(ns), String::new()),
            (None, Some((days, text))) => (
                Some(days * crate::db::time::NS_PER_DAY),
                format!(" on {text}, the date in its name"),
            ),
            (None, None) => return None,
        }
    } else {
        (plan.date_ns, String::new())
    };
    let own = TimeSpec {
        format,
        refuse_naive: false,
        ..spec.clone()
    };
    (own.format != spec.format && mostly(reading(&own, date_ns))).then(|| {
        let note = format!(
            "times read as {how}{dated}, unlike the first input's: too few of its first rows \
             read that way (pass --time-format to read every input one way)"
        );
        (own, date_ns, note)
    })
}

/// A rejected record, before its line number is known.
struct PendingReject {
    rec_start: u32,
    rec_end: u32,
    reason: String,
}

/// Where a group of a chunk's rows goes: a series (an index into `Parsed::series`) and a
/// partition of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Group {
    series: u32,
    key: PartitionKey,
}

/// A parsed chunk.
struct Parsed {
    work: Work,
    /// Encoded rows, `row_len` bytes each.
    rows: Vec<u8>,
    /// Per row: where its record starts in the chunk.
    rec_starts: Vec<u32>,
    /// The (series, partition) groups of this chunk's rows, in the order first met.
    groups: Vec<Group>,
    /// Per row (as `rec_starts`): the index of its group in `groups` and its slot there. Flat
    /// rather than a list per group: a chunk of a many-series file has a group for most rows.
    row_groups: Vec<u32>,
    slots: Vec<u64>,
    /// The series of this chunk's rows by directory name; one empty name without a series key.
    series: Vec<String>,
    rejects: Vec<PendingReject>,
    /// Texts of `sym` columns new to the dictionary, by chunk-local code (`syms::resolve`).
    syms: Vec<String>,
    records: u64,
    newlines: u64,
    naive: bool,
    floored: u64,
    nulls: u64,
    /// Records that repeat the header, skipped (not counted in `records`).
    headers: u64,
    /// Comment records (`#…`, after leading comments), skipped (not counted in `records`).
    comments: u64,
    /// (start, end) of a record that names the header's columns in another order: parsing
    /// stopped there, and the rest is parsed again under it (`follow_reordered_headers`).
    reordered_header: Option<(usize, usize)>,
    /// Times of day: the first and last time placed of each series (by its number in
    /// `series`), the last of all, and where they went back over midnight, for
    /// `reject_past_midnight`.
    tod: Vec<Option<(i64, i64)>>,
    last_time: Option<i64>,
    midnight: Option<Crossing>,
    /// The first and last time of the rows placed, for `Summary::file_spans`.
    span: Option<(i64, i64)>,
}

impl Parsed {
    /// Records a placed row: its record's start in the chunk, its group and slot.
    fn push_row(&mut self, rec_start: u32, group: usize, slot: u64, t: i64) {
        let span = self.span.get_or_insert((t, t));
        *span = (span.0.min(t), span.1.max(t));
        self.rec_starts.push(rec_start);
        self.row_groups.push(group as u32);
        self.slots.push(slot);
    }

    /// Its rows as the partition writers take them.
    fn rows_view(&self) -> ParsedRows<'_> {
        ParsedRows {
            rows: &self.rows,
            given: &self.work.plan.given,
        }
    }

    /// The entries of this chunk's rows (chunk `chunk` of its batch) sorted by group, rows
    /// in chunk order within each, and each group's range of them: a counting sort.
    fn entries_by_group(&self, chunk: u32) -> (Vec<Entry>, Vec<(Group, Range<usize>)>) {
        let entry = |row: usize| Entry {
            slot: self.slots[row],
            chunk,
            row: row as u32,
        };
        if self.groups.len() <= 1 {
            let entries: Vec<Entry> = (0..self.slots.len()).map(entry).collect();
            let ranges = self.groups.iter().map(|&g| (g, 0..entries.len())).collect();
            return (entries, ranges);
        }
        let mut starts = vec![0usize; self.groups.len() + 1];
        for &g in &self.row_groups {
            starts[g as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let ranges = self
            .groups
            .iter()
            .enumerate()
            .map(|(i, &g)| (g, starts[i]..starts[i + 1]))
            .collect();
        let mut entries = vec![entry(0); self.slots.len()];
        for (row, &g) in self.row_groups.iter().enumerate() {
            entries[starts[g as usize]] = entry(row);
            starts[g as usize] += 1;
        }
        (entries, ranges)
    }
}

/// What stays fixed while parsing.
struct ParseCtx<'a> {
    config: &'a Config,
    opts: &'a Options,
    encoder: encode::Encoder,
    /// The series key's columns (empty: one series).
    series: Vec<usize>,
    /// The unique key's columns (empty: none).
    unique: Vec<usize>,
    /// Per column: whether it is `sym`.
    is_sym: Vec<bool>,
    /// Per column: whether it is in the series key (its values are read without the spaces
    /// around them: ` USDJPY` after a `, ` delimiter is the series `USDJPY`).
    is_series: Vec<bool>,
    /// Per column: whether it holds numbers (a decimal comma is read only there).
    is_numeric: Vec<bool>,
    /// The `--null` tokens that are numbers: in a numeric column they match the same number
    /// written another way (`-200.0`, `-200,0` for `--null -200`).
    null_numbers: Vec<dialect::DecimalValue>,
}

impl ParseCtx<'_> {
    /// Whether `bytes`, a field of column `col` with its decimal comma read, is a `--null`
    /// number written as that column writes it. Only imports given `--null` pay for it:
    /// inlined, the others test one length per field instead of making a call.
    #[inline]
    fn is_null_number(&self, col: usize, bytes: &[u8]) -> bool {
        !self.null_numbers.is_empty() && self.is_numeric[col] && self.names_a_null_number(bytes)
    }

    #[inline(never)]
    fn names_a_null_number(&self, bytes: &[u8]) -> bool {
        dialect::DecimalValue::parse(bytes).is_some_and(|v| self.null_numbers.contains(&v))
    }
}

/// Where each parsed row goes: its time on the granularity, its series (by the key columns'
/// bytes) and its (series, partition) group and slot. The CSV parser and the Arrow/Parquet
/// converter share it, so both place and refuse rows alike.
struct RowPlacer<'a> {
    ctx: &'a ParseCtx<'a>,
    granularity_ns: i64,
    /// Per series of the chunk (by its number): the partition start and end and the group of
    /// its latest row, so that interleaved series each keep theirs (an empty range: none yet).
    by_series: Vec<(i64, i64, usize)>,
    /// The chunk's series by their key columns' bytes (and null flags). FNV, as the `sym`
    /// dictionary: the keys are a few bytes, looked up once per row.
    series_index: HashMap<Vec<u8>, u32, FnvBuild>,
    series_bytes: Vec<u8>,
    /// Whether the key's null flags and bytes fit in a u64 (one `sym` or integer column):
    /// then `packed_index` finds the series without building a key of bytes.
    key_fits: bool,
    packed_index: HashMap<u64, u32, FnvBuild>,
    /// With a key of one `sym` column: the series of each code the chunk met, by dictionary
    /// code and by chunk-local code (`NO_SERIES`: not met yet). Within a chunk a text has one
    /// code, so a code is a series, found without hashing.
    sym_key: Option<usize>,
    series_by_code: [Vec<u32>; 2],
    group_index: HashMap<(u32, i64), usize, FnvBuild>,
}

/// An empty entry of `RowPlacer::series_by_code`.
const NO_SERIES: u32 = u32::MAX;
/// Codes at or past this are looked up by hashing instead: the tables are per chunk.
const SERIES_BY_CODE_LIMIT: usize = 1 << 16;

impl<'a> RowPlacer<'a> {
    /// Also gives `p` its one unnamed series when there is no series key.
    fn new(ctx: &'a ParseCtx<'a>, p: &mut Parsed) -> RowPlacer<'a> {
        if ctx.series.is_empty() {
            p.series.push(String::new());
        }
        let schema = &ctx.config.schema;
        let key_len: usize = ctx.series.iter().map(|&c| 1 + schema.field_at(c).width).sum();
        RowPlacer {
            ctx,
            granularity_ns: ctx.config.granularity.ns(),
            by_series: Vec::new(),
            series_index: HashMap::default(),
            series_bytes: Vec::new(),
            key_fits: key_len <= 8,
            packed_index: HashMap::default(),
            sym_key: match ctx.series[..] {
                [c] if ctx.is_sym[c] => Some(c),
                _ => None,
            },
            series_by_code: [Vec::new(), Vec::new()],
            group_index: HashMap::default(),
        }
    }

    /// `t` on the granularity: rounded down with --floor-time (counted in `p`), else refused.
    fn on_grid(&self, t: i64, p: &mut Parsed) -> Result<i64, String> {
        let rem = t.rem_euclid(self.granularity_ns);
        if rem == 0 {
            Ok(t)
        } else if self.ctx.opts.floor_time {
            p.floored += 1;
            Ok(t - rem)
        } else {
            Err(format!(
                "time {} is not a multiple of the granularity {}; pass --floor-time to round it down",
                format_iso_exact(t),
                self.ctx.config.granularity
            ))
        }
    }

    /// The group and slot of the row `p.rows[row_at..]` at time `t` (on the granularity);
    /// refused when its series key makes no valid series name.
    fn place(
        &mut self,
        p: &mut Parsed,
        row_at: usize,
        t: i64,
        chunk_syms: Option<&syms::ChunkSyms>,
    ) -> Result<(usize, u64), String> {
        self.check_unique_key(p, row_at)?;
        let series = self.series_of(p, row_at, chunk_syms)?;
        Ok(self.place_in(p, t, series))
    }

    /// A row without its unique key cannot be told from the others at its time: two such rows
    /// replaced each other, and the summary counted both stored.
    #[inline]
    fn check_unique_key(&self, p: &Parsed, row_at: usize) -> Result<(), String> {
        if self.ctx.unique.is_empty() {
            return Ok(());
        }
        let schema = &self.ctx.config.schema;
        let row = &p.rows[row_at..row_at + schema.row_len()];
        match self.ctx.unique.iter().find(|&&c| schema.is_null(row, c)) {
            Some(&c) => Err(format!(
                "column `{}` of the unique key is empty: a row without its key cannot be told \
                 from the other rows at its time; give it a value, or import into a database \
                 without a unique key",
                schema.columns()[c].name
            )),
            None => Ok(()),
        }
    }

    /// The chunk's number of the row's series (`p.series` names it), numbered as first met.
    #[inline]
    fn series_of(
        &mut self,
        p: &mut Parsed,
        row_at: usize,
        chunk_syms: Option<&syms::ChunkSyms>,
    ) -> Result<u32, String> {
        let ctx = self.ctx;
        if ctx.series.is_empty() {
            return Ok(0);
        }
        let schema = &ctx.config.schema;
        let row = &p.rows[row_at..row_at + schema.row_len()];
        let by_code = self.sym_key.filter(|&c| !schema.is_null(row, c)).and_then(|c| {
            let code = u32::from_le_bytes(crate::db::schema::le(schema.field_bytes(row, c)));
            let (table, i) = (
                usize::from(code & syms::LOCAL != 0),
                (code & !syms::LOCAL) as usize,
            );
            (i < SERIES_BY_CODE_LIMIT).then_some((table, i))
        });
        if let Some((table, i)) = by_code {
            match self.series_by_code[table].get(i) {
                Some(&s) if s != NO_SERIES => return Ok(s),
                _ => {}
            }
        }
        let s = self.series_by_key(p, row_at, chunk_syms)?;
        if let Some((table, i)) = by_code {
            let table = &mut self.series_by_code[table];
            if table.len() <= i {
                table.resize(i + 1, NO_SERIES);
            }
            table[i] = s;
        }
        Ok(s)
    }

    /// `series_of` by the key's bytes.
    fn series_by_key(
        &mut self,
        p: &mut Parsed,
        row_at: usize,
        chunk_syms: Option<&syms::ChunkSyms>,
    ) -> Result<u32, String> {
        let ctx = self.ctx;
        let schema = &ctx.config.schema;
        let row = &p.rows[row_at..row_at + schema.row_len()];
        let mut packed = 0u64;
        if self.key_fits {
            let mut shift = 0;
            for &c in &ctx.series {
                packed |= u64::from(schema.is_null(row, c)) << shift;
                for &b in schema.field_bytes(row, c) {
                    shift += 8;
                    packed |= u64::from(b) << shift;
                }
                shift += 8;
            }
            if let Some(&s) = self.packed_index.get(&packed) {
                return Ok(s);
            }
        } else {
            self.series_bytes.clear();
            for &c in &ctx.series {
                self.series_bytes.push(u8::from(schema.is_null(row, c)));
                self.series_bytes.extend_from_slice(schema.field_bytes(row, c));
            }
            if let Some(&s) = self.series_index.get(self.series_bytes.as_slice()) {
                return Ok(s);
            }
        }
        // Only a stored code can be lost; a parsed row's codes are this import's.
        let name = series_name(schema, &ctx.series, row, chunk_syms)
            .map_err(|e| e.to_string())
            .and_then(|name| crate::db::series::check_name(&name).map(|()| name))?;
        let s = p.series.len() as u32;
        p.series.push(name);
        if self.key_fits {
            self.packed_index.insert(packed, s);
        } else {
            self.series_index.insert(self.series_bytes.clone(), s);
        }
        Ok(s)
    }

    /// The group and slot of a row of `series` at `t` (on the grid).
    fn place_in(&mut self, p: &mut Parsed, t: i64, series: u32) -> (usize, u64) {
        let ctx = self.ctx;
        let at = series as usize;
        let (start_ns, group) = match self.by_series.get(at) {
            Some(&(start, end, g)) if t >= start && t < end => (start, g),
            _ => {
                let key = PartitionKey::of(ctx.config.period, t);
                let g = *self
                    .group_index
                    .entry((series, key.start_ns()))
                    .or_insert_with(|| {
                        p.groups.push(Group { series, key });
                        p.groups.len() - 1
                    });
                if self.by_series.len() <= at {
                    self.by_series.resize(at + 1, (0, 0, 0));
                }
                self.by_series[at] = (key.start_ns(), key.end_ns(), g);
                (key.start_ns(), g)
            }
        };
        // t lies in the partition, so the difference is non-negative and below its slot count.
        (group, ((t - start_ns) / self.granularity_ns) as u64)
    }
}

/// What becomes of a row of times of day.
enum TimesOfDay {
    Keep,
    /// Past a crossing of midnight: rejected.
    Reject(Crossing),
    /// It shows a crossing before rows already placed: the chunk is parsed again.
    Again(Crossing),
}

/// A chunk's times of day, followed per series (`MidnightWatch`) from the input's earlier
/// chunks (when given) until they cross midnight.
struct ChunkTimesOfDay<'e> {
    /// Given: the rows from its `at` on are past midnight.
    past: Option<Crossing>,
    /// Found in this chunk.
    crossed: Option<Crossing>,
    watch: MidnightWatch,
    earlier: Option<&'e EarlierTimes>,
    /// Series of the chunk (numbered as in `Parsed::series`) given their earlier time.
    seeded: usize,
}

impl<'e> ChunkTimesOfDay<'e> {
    fn new(past: Option<Crossing>, earlier: Option<&'e EarlierTimes>) -> Self {
        let mut watch = MidnightWatch::default();
        watch.seed_prev(earlier.and_then(|e| e.prev));
        ChunkTimesOfDay {
            past,
            crossed: None,
            watch,
            earlier,
            seeded: 0,
        }
    }

    /// Follows a row of `series` at time of day `t`, its record at `at` in the chunk; a row
    /// kept is counted in `p`'s times. Out of line: only imports of times of day call it.
    #[inline(never)]
    fn see(&mut self, p: &mut Parsed, series: u32, t: i64, at: usize) -> TimesOfDay {
        if self.past.is_none() && self.crossed.is_none() {
            if let Some(earlier) = self.earlier {
                for (s, name) in p.series.iter().enumerate().skip(self.seeded) {
                    if let Some(&last) = earlier.last.get(name) {
                        self.watch.seed(s, last);
                    }
                }
                self.seeded = p.series.len();
            }
            if let Some(c) = self.watch.see(series as usize, t, at) {
                if c.at < at {
                    return TimesOfDay::Again(c);
                }
                self.crossed = Some(c);
                p.midnight = Some(c);
            }
        }
        if let Some(c) = self.past.filter(|c| at >= c.at).or(self.crossed) {
            return TimesOfDay::Reject(c);
        }
        let s = series as usize;
        if p.tod.len() <= s {
            p.tod.resize(s + 1, None);
        }
        p.tod[s].get_or_insert((t, t)).1 = t;
        p.last_time = Some(t);
        TimesOfDay::Keep
    }
}

/// Why a row of times of day after a crossing of midnight is rejected.
fn past_midnight_reason(from: i64, to: i64) -> String {
    format!(
        "the times of day went back from {} to {} at this row or before it: {}",
        infer::clock_of_day(from),
        infer::clock_of_day(to),
        infer::PAST_MIDNIGHT
    )
}

/// A field as messages show it: its first 40 characters, control characters escaped, then `…`
/// when there is more.
pub fn show(bytes: &[u8]) -> String {
    const MAX_CHARS: usize = 40;
    // Enough bytes for MAX_CHARS characters of up to 4 bytes and one more: a character the cut
    // splits lies past what is shown.
    let head = &bytes[..bytes.len().min(4 * MAX_CHARS + 4)];
    escaped(
        &String::from_utf8_lossy(head),
        MAX_CHARS,
        head.len() < bytes.len(),
    )
}

/// Characters of a value shown in a message about text that may not be text.
pub const SHOWN_CHARS: usize = 60;

/// The start of `text` for a message: `SHOWN_CHARS` characters at most (then `…`), control
/// characters escaped, so that a binary file's bytes cannot garble the terminal.
pub fn printable(text: &str) -> String {
    escaped(text, SHOWN_CHARS, false)
}

/// The first `max` characters of `text`, control characters escaped (`\n`, `\u{1b}`), then `…`
/// when `text` has more or `cut` says it was cut from more.
fn escaped(text: &str, max: usize, cut: bool) -> String {
    let mut shown: String = text
        .chars()
        .take(max)
        .map(|c| match c.is_control() {
            true => c.escape_default().to_string(),
            false => c.to_string(),
        })
        .collect();
    if cut || text.chars().nth(max).is_some() {
        shown.push('…');
    }
    shown
}

/// Whether a record is a comment line: its first field starts with `#` and is more than a
/// lone `#` (which names a column).
fn is_comment<T: AsRef<[u8]>>(first_field: Option<T>) -> bool {
    first_field.is_some_and(|f| {
        let f = f.as_ref();
        f.len() > 1 && f[0] == b'#'
    })
}

/// Whether a record starts as one of the input's leading comment lines did (`firsts`: their
/// first fields), so is one again.
fn repeats_comment<T: AsRef<[u8]>>(firsts: &[Vec<u8>], first_field: Option<T>) -> bool {
    !firsts.is_empty() && first_field.is_some_and(|f| firsts.iter().any(|c| c.as_slice() == f.as_ref()))
}

/// Whether a record's fields are the header's text (files joined with `cat` repeat it). Cheap
/// for data: the first field that differs ends it.
fn repeats_header(header: &[String], fields: &[Field], data: &[u8], scratch: &[u8]) -> bool {
    // Without a header the names are empty: a record of blanks repeats nothing.
    header.iter().any(|t| !t.is_empty())
        && header.len() == fields.len()
        && header
            .iter()
            .zip(fields)
            .enumerate()
            .all(|(i, (text, f))| header_field(i, f.bytes(data, scratch)) == text.as_bytes())
}

/// Whether a record names the header's columns in another order (files joined with `cat`,
/// each part with its own header). Cheap for data: a field that is no name ends it.
fn reorders_header(header: &[String], fields: &[Field], data: &[u8], scratch: &[u8]) -> bool {
    let text = |i: usize| header_field(i, fields[i].bytes(data, scratch));
    let is_name = |t: &[u8]| header.iter().any(|h| h.as_bytes() == t);
    header.len() == fields.len()
        && header.iter().any(|t| !t.is_empty())
        && (0..fields.len()).all(|i| is_name(text(i)))
        && header
            .iter()
            .all(|h| (0..fields.len()).any(|i| text(i) == h.as_bytes()))
        && (0..fields.len()).any(|i| text(i) != header[i].as_bytes())
}

/// A field of a record read as a header's name: trimmed, without the byte-order mark a file
/// joined with `cat` starts with (Excel writes one).
fn header_field(i: usize, bytes: &[u8]) -> &[u8] {
    match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        // Behind the mark, a quote did not open a quoted field (PowerShell quotes every name).
        Some(rest) if i == 0 => {
            let rest = rest.trim_ascii();
            match rest {
                [b'"', name @ .., b'"'] if !name.contains(&b'"') => name,
                _ => rest,
            }
        }
        _ => bytes.trim_ascii(),
    }
}

fn parse_chunk(ctx: &ParseCtx, work: Work) -> Parsed {
    let (mut p, again) = parse_chunk_once(ctx, work);
    if let Some(crossing) = again {
        let earlier = p.work.earlier.clone();
        p = parse_chunk_once(ctx, p.work.again(Some(crossing), earlier)).0;
    }
    p
}

/// Parses a chunk; with times of day that went back over midnight at rows already placed (a
/// new series after a fall, `MidnightWatch`), stops and returns where, to be parsed again.
fn parse_chunk_once(ctx: &ParseCtx, work: Work) -> (Parsed, Option<Crossing>) {
    let schema: &Schema = &ctx.config.schema;
    let row_len = schema.row_len();
    let floor = ctx.opts.floor_time;
    let plan = Arc::clone(&work.plan);
    let delimiter = plan.csv.delimiter;
    let data = &work.chunk.data;
    let newlines = memchr::memchr_iter(b'\n', data).count();
    let mut p = Parsed {
        // A row per line at most (and the last line may lack its end): sized once, where half
        // the chunk's bytes grew a sensor chunk's rows twice, copying them.
        rows: Vec::with_capacity((newlines + 1) * row_len),
        rec_starts: Vec::new(),
        groups: Vec::new(),
        row_groups: Vec::new(),
        slots: Vec::new(),
        series: Vec::new(),
        rejects: Vec::new(),
        syms: Vec::new(),
        records: 0,
        newlines: newlines as u64,
        naive: false,
        floored: 0,
        nulls: 0,
        headers: 0,
        comments: 0,
        work: Work {
            plan: Arc::clone(&plan),
            chunk: Chunk::default(),
            start: work.start,
            first_line: work.first_line,
            reordered: work.reordered,
            past_midnight: work.past_midnight,
            earlier: work.earlier.clone(),
        },
        reordered_header: None,
        tod: Vec::new(),
        last_time: None,
        midnight: work.past_midnight,
        span: None,
    };
    let mut fields = Vec::with_capacity(plan.targets.len());
    let mut scratch = Vec::new();
    let mut at = work.start.min(data.len());
    let mut placer = RowPlacer::new(ctx, &mut p);
    let mut plain = memchr::memchr(b'"', &data[at..])
        .is_none()
        .then(|| PlainSplitter::new(data, at, delimiter));
    let mut times = timeparse::TimeParser::new(plan.time.as_ref().unwrap_or(&ctx.opts.time), plan.date_ns);
    let nulls = &ctx.opts.csv.nulls;
    let decimal_comma = plan.csv.decimal_comma;
    let thousands = plan.csv.thousands.as_deref();
    let rewrite_numbers = decimal_comma || thousands.is_some();
    let comments = &plan.csv.comments;
    let joined_time = plan.time_parts > 1;
    let mut parts: [Option<usize>; MAX_TIME_PARTS] = [None; MAX_TIME_PARTS];
    let mut joined: Vec<u8> = Vec::new();
    let mut number: Vec<u8> = Vec::new();
    let mut chunk_syms = schema.syms().map(|d| syms::ChunkSyms::new(d));
    // Times of day take one date for the whole input: one that goes back over midnight
    // (`reject_past_midnight`) is rejected with every row after it.
    let times_of_day = plan
        .time
        .as_ref()
        .unwrap_or(&ctx.opts.time)
        .format
        .is_time_of_day();
    let past_midnight = work.past_midnight;
    let mut tods = ChunkTimesOfDay::new(past_midnight, work.earlier.as_deref());
    while at < data.len() {
        let span: RecordSpan = match plain.as_mut() {
            Some(splitter) => splitter.next_record(at, &mut fields),
            None => split_record(data, at, delimiter, &mut fields, &mut scratch),
        };
        at = span.next;
        if is_blank(&fields, data, &scratch) {
            continue;
        }
        p.records += 1;
        let reject = |p: &mut Parsed, reason: String| {
            p.rejects.push(PendingReject {
                rec_start: span.start as u32,
                rec_end: span.end as u32,
                reason,
            })
        };
        if fields.last().is_some_and(|f| f.unclosed) {
            let lines = data[span.start..span.end]
                .split(|&c| c == b'\n')
                .skip(1)
                .filter(|l| !l.trim_ascii().is_empty())
                .count();
            reject(
                &mut p,
                format!(
                    "a quote in field {} is never closed: the {lines} line(s) after it, to the end \
                     of the input, would be one field of this row; close the quote, or remove it \
                     if it is part of the text",
                    fields.len()
                ),
            );
            continue;
        }
        // Empty fields past the header's width (`…;5;6;` under `a;b;c`, as spreadsheets end
        // their lines) hold nothing: dropped, not the whole row.
        if fields.len() > plan.targets.len()
            && fields[plan.targets.len()..]
                .iter()
                .all(|f| f.bytes(data, &scratch).trim_ascii().is_empty())
        {
            fields.truncate(plan.targets.len());
        }
        if fields.len() != plan.targets.len() {
            if repeats_comment(comments, fields.first().map(|f| f.bytes(data, &scratch))) {
                p.records -= 1;
                p.comments += 1;
                continue;
            }
            let record = &data[span.start..span.end];
            let spaced_quote = record
                .windows(3)
                .any(|w| w[0] == delimiter && w[1] == b' ' && w[2] == b'"');
            reject(
                &mut p,
                format!(
                    "expected {} fields, found {}{}",
                    plan.targets.len(),
                    fields.len(),
                    if spaced_quote && fields.len() > plan.targets.len() {
                        " (a quote after a space is text, not the start of a quoted field: a \
                         delimiter inside it splits the field; write the quote right after the \
                         delimiter)"
                    } else {
                        ""
                    }
                ),
            );
            continue;
        }
        let row_at = p.rows.len();
        p.rows.extend_from_slice(ctx.encoder.template());
        let row = &mut p.rows[row_at..];
        let mut t_ns = None;
        let mut failure = None;
        for (i, (field, target)) in fields.iter().zip(&plan.targets).enumerate() {
            let mut bytes = field.bytes(data, &scratch);
            match *target {
                Target::Skip => {}
                Target::Unnamed => {
                    if !bytes.trim_ascii().is_empty() {
                        failure = Some(format!(
                            "field {} has no name in the header and no column in the database, so \
                             `{}` would be lost; name the column in the header (and add it with \
                             `xs alter --add`), or pass --ignore-columns to leave it out",
                            i + 1,
                            show(bytes)
                        ));
                        break;
                    }
                }
                Target::Time(k) if joined_time => parts[usize::from(k)] = Some(i),
                Target::Time(_) => match times.parse_padded(bytes) {
                    Ok((t, naive)) => {
                        p.naive |= naive;
                        t_ns = Some(t);
                    }
                    // Digits below a nanosecond: off the grid, like a time between two slots.
                    Err(TimeError::BelowNanosecond { floored_ns, naive }) if floor => {
                        p.floored += 1;
                        p.naive |= naive;
                        t_ns = Some(floored_ns);
                    }
                    Err(e) => {
                        // A null token in the time: say it is missing (checked only on failure).
                        let missing = bytes.is_empty()
                            || dialect::is_default_null(bytes)
                            || nulls.iter().any(|n| n == bytes);
                        failure = Some(if missing {
                            format!(
                                "column `{}`: the time is missing: `{}`",
                                plan.time_name,
                                show(bytes)
                            )
                        } else {
                            format!("column `{}`: {e}: `{}`", plan.time_name, show(bytes))
                        });
                        break;
                    }
                },
                Target::Column(col) => {
                    if !nulls.is_empty() && nulls.iter().any(|n| n == bytes) {
                        p.nulls += 1;
                        continue;
                    }
                    if ctx.is_series[col] {
                        bytes = bytes.trim_ascii();
                    }
                    if ctx.is_sym[col] {
                        // `\N`: a database dump's null (PostgreSQL's COPY, MySQL), in text too.
                        if bytes.is_empty() || bytes == b"\\N" {
                            continue;
                        }
                        let Some(cs) = chunk_syms.as_mut() else { continue };
                        match cs.code(bytes) {
                            Ok(code) => ctx.encoder.set_code(row, col, code),
                            Err(e) => {
                                failure = Some(format!(
                                    "column `{}`: {e}: `{}`",
                                    schema.columns()[col].name,
                                    show(bytes)
                                ));
                                break;
                            }
                        }
                        continue;
                    }
                    // Numbers only: a text column keeps its commas.
                    if rewrite_numbers
                        && ctx.is_numeric[col]
                        && dialect::plain_number(bytes.trim_ascii(), decimal_comma, thousands, &mut number)
                    {
                        bytes = &number;
                    }
                    if ctx.is_null_number(col, bytes) {
                        p.nulls += 1;
                        continue;
                    }
                    if let Err(e) = ctx.encoder.set(schema, row, col, bytes) {
                        // Spaces around a number or a boolean (`1, 2.5`): read without them;
                        // only a failed field pays for the second try.
                        let trimmed = bytes.trim_ascii();
                        if trimmed.len() != bytes.len()
                            && ctx.encoder.is_nullable_token_column(col)
                            && ctx.encoder.set(schema, row, col, trimmed).is_ok()
                        {
                            continue;
                        }
                        let bytes = trimmed;
                        if (bytes.is_empty() || dialect::is_default_null(bytes))
                            && ctx.encoder.is_nullable_token_column(col)
                        {
                            ctx.encoder.set_null(row, col);
                            p.nulls += 1;
                            continue;
                        }
                        let name = &schema.columns()[col].name;
                        failure = Some(match grouped_number_hint(ctx.is_numeric[col], bytes) {
                            // `1,200` where nothing told the import that commas group
                            // thousands: say so rather than offer a wider type.
                            Some(hint) => format!("column `{name}`: `{}` {hint}", show(bytes)),
                            None => format!("column `{name}`: {}: `{}`", e.for_column(name), show(bytes)),
                        });
                        break;
                    }
                }
            }
        }
        if joined_time && failure.is_none() {
            joined.clear();
            for (k, part) in parts[..plan.time_parts].iter_mut().enumerate() {
                if k > 0 {
                    joined.push(b' ');
                }
                if let Some(i) = part.take() {
                    joined.extend_from_slice(fields[i].bytes(data, &scratch).trim_ascii());
                }
            }
            match times.parse(&joined) {
                Ok((t, naive)) => {
                    p.naive |= naive;
                    t_ns = Some(t);
                }
                Err(TimeError::BelowNanosecond { floored_ns, naive }) if floor => {
                    p.floored += 1;
                    p.naive |= naive;
                    t_ns = Some(floored_ns);
                }
                Err(e) => failure = Some(format!("columns `{}`: {e}: `{}`", plan.time_name, show(&joined))),
            }
        }
        let t = match (failure, t_ns) {
            (Some(_), _) if repeats_header(&plan.header, &fields, data, &scratch) => {
                p.rows.truncate(row_at);
                p.records -= 1;
                p.headers += 1;
                continue;
            }
            // Past midnight every row is rejected, a header in another order too: parsing
            // goes on, as `reject_past_midnight` runs after `follow_reordered_headers`.
            (Some(_), _)
                if past_midnight.is_none_or(|c| span.start < c.at)
                    && reorders_header(&plan.header, &fields, data, &scratch) =>
            {
                p.rows.truncate(row_at);
                p.records -= 1;
                p.reordered_header = Some((span.start, span.next));
                p.newlines = memchr::memchr_iter(b'\n', &data[..span.start]).count() as u64;
                break;
            }
            (Some(_), _) if repeats_comment(comments, fields.first().map(|f| f.bytes(data, &scratch))) => {
                p.rows.truncate(row_at);
                p.records -= 1;
                p.comments += 1;
                continue;
            }
            (Some(reason), _) => {
                p.rows.truncate(row_at);
                reject(&mut p, reason);
                continue;
            }
            (None, None) => {
                p.rows.truncate(row_at);
                reject(&mut p, "no time".into());
                continue;
            }
            (None, Some(t)) => t,
        };
        let series = match ctx.series.is_empty() {
            true => 0,
            false => match placer.series_of(&mut p, row_at, chunk_syms.as_ref()) {
                Ok(series) => series,
                Err(reason) => {
                    p.rows.truncate(row_at);
                    reject(&mut p, reason);
                    continue;
                }
            },
        };
        if times_of_day {
            match tods.see(&mut p, series, t, span.start) {
                TimesOfDay::Keep => {}
                TimesOfDay::Reject(c) => {
                    p.rows.truncate(row_at);
                    reject(&mut p, past_midnight_reason(c.from, c.to));
                    continue;
                }
                // Rows placed already are past midnight: parse the chunk again.
                TimesOfDay::Again(c) => {
                    p.work.chunk = work.chunk;
                    return (p, Some(c));
                }
            }
        }
        let placed = placer.on_grid(t, &mut p).and_then(|t| {
            placer.check_unique_key(&p, row_at)?;
            Ok(placer.place_in(&mut p, t, series))
        });
        let (group, slot) = match placed {
            Ok(placed) => placed,
            Err(reason) => {
                p.rows.truncate(row_at);
                reject(&mut p, reason);
                continue;
            }
        };
        p.push_row(span.start as u32, group, slot, t);
    }
    p.work.chunk = work.chunk;
    if let Some(cs) = chunk_syms {
        p.syms = cs.texts;
    }
    (p, None)
}

/// The series name of a parsed row, whose `sym` codes may be chunk-local. Called for each
/// series a chunk meets first: with many series, for most of its rows, so a `sym` key's text
/// goes into the name without a `Value` made of it.
fn series_name(
    schema: &Schema,
    columns: &[usize],
    row: &[u8],
    syms: Option<&syms::ChunkSyms>,
) -> Result<String> {
    let mut name = String::with_capacity(32);
    for (i, &c) in columns.iter().enumerate() {
        match syms {
            Some(cs)
                if schema.columns()[c].ty == crate::db::schema::ColumnType::Sym
                    && !schema.is_null(row, c) =>
            {
                let code = u32::from_le_bytes(crate::db::schema::le(schema.field_bytes(row, c)));
                crate::db::series::push_part(&mut name, i, Some(cs.text(code)));
            }
            _ => {
                let text = crate::db::series::value_text(&schema.value(row, c)?);
                crate::db::series::push_part(&mut name, i, text.as_deref());
            }
        }
    }
    Ok(name)
}

/// A partition of a series: the series' directory name (empty without a series key) and
/// the partition.
type PartId = (String, PartitionKey);

/// The import's partitions' states (thousands with many series: a fast hash).
/// Boxed: a batch moves every writer it touches out of the map and back, and a map, its job
/// list and its results of 30,000 writers by value were 45 MB at the peak of a 30,000-series
/// import.
type PartStates = HashMap<PartId, Box<PartWriter>, FnvBuild>;

/// What a partition wrote, with its series' name (empty without a series key).
type WrittenIn = (String, Written);

/// Appends rejected records to the rejects file, creating it on first use.
struct Rejects {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    sources: Vec<String>,
}

impl Rejects {
    /// Writes one rejected record; `offset` is `None` for a row of a Parquet or Arrow input.
    fn write(
        &mut self,
        file: usize,
        line: u64,
        offset: Option<u64>,
        reason: &str,
        text: &[u8],
    ) -> Result<()> {
        if self.out.is_none() {
            // Not through a link: the default path is inside the database.
            let f = crate::db::files::open(&self.path, crate::db::files::Mode::Replace, "create")?;
            let mut w = BufWriter::new(f);
            w.write_all(b"file,line,byte_offset,reason,record\n")
                .map_err(|e| Error::io("write", &self.path, e))?;
            self.out = Some(w);
        }
        let Some(w) = self.out.as_mut() else {
            return Ok(());
        };
        let mut rec = Vec::with_capacity(text.len() + 64);
        quote(&mut rec, self.sources[file].as_bytes());
        match offset {
            Some(offset) => write!(rec, ",{line},{offset},"),
            None => write!(rec, ",{line},,"),
        }
        .map_err(|e| Error::io("write", &self.path, e))?;
        quote(&mut rec, reason.as_bytes());
        rec.push(b',');
        quote(&mut rec, text);
        rec.push(b'\n');
        w.write_all(&rec).map_err(|e| Error::io("write", &self.path, e))
    }

    fn finish(&mut self) -> Result<Option<PathBuf>> {
        match self.out.take() {
            Some(mut w) => {
                w.flush().map_err(|e| Error::io("write", &self.path, e))?;
                Ok(Some(self.path.clone()))
            }
            None => Ok(None),
        }
    }
}

fn quote(out: &mut Vec<u8>, text: &[u8]) {
    out.push(b'"');
    for &b in text {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// A chunk of input `usize`; the first chunk of a later input carries the dialect detected in
/// it, when `Prepared::each_input` asks for one.
type ChunkMsg = Result<(usize, Chunk, Option<Arc<CsvOptions>>)>;

/// For a numeric field that did not read as a number: when its thousands are grouped
/// (`1,200`, `12 345`), the words that say so and name `--thousands`.
fn grouped_number_hint(numeric: bool, v: &[u8]) -> Option<String> {
    // A number as written (`1.005` into a dec(2) column) keeps the reason the column gives.
    let plain = std::str::from_utf8(v)
        .ok()
        .is_some_and(|s| s.parse::<f64>().is_ok());
    if !numeric || plain {
        return None;
    }
    std::iter::once(",")
        .chain(dialect::GROUP_MARKS)
        .chain(std::iter::once("."))
        .find(|g| dialect::grouped_by(v, g.as_bytes(), b'.') || dialect::grouped_by(v, g.as_bytes(), b','))
        .map(|g| {
            let flag = match g {
                "." => "--decimal-comma".to_string(),
                " " => "--thousands space".to_string(),
                "\u{a0}" | "\u{202f}" => "--thousands nbsp".to_string(),
                other => format!("--thousands '{other}'"),
            };
            format!(
                "reads as a number whose thousands are grouped by {}, but the file's first \
                 records did not show that mark; if it is one, pass {flag}",
                dialect::group_mark_name(g.as_bytes())
            )
        })
}

/// A later input's own dialect: what `asked` leaves to detection, found in the bytes its first
/// chunk is cut from; the rest as for the first input (`first`, whose columns are
/// `first_names`).
fn later_input_csv(
    peeked: &[u8],
    name: &str,
    asked: &CsvOptions,
    first: &CsvOptions,
    first_names: &[String],
) -> Result<CsvOptions> {
    let mut csv = asked.clone();
    let mark_told = detect_dialect(peeked, name, &mut csv, &mut Vec::new(), &mut Vec::new())?;
    if asked.sniff.decimal_comma && !mark_told && csv.delimiter != b',' {
        // Numbers that do not tell (`1.500`, or none in the first records) are read as the
        // first input's: the next part of a German export groups thousands with dots.
        csv.decimal_comma = first.decimal_comma;
    }
    if asked.sniff.thousands && csv.thousands.is_none() && (csv.decimal_comma == first.decimal_comma) {
        // The next part of a file whose first numbers grouped their thousands, in the same
        // decimal mark: its numbers are grouped the same way where they are.
        csv.thousands = first.thousands.clone();
    }
    csv.sniff = Sniff::default();
    if csv.column_names.is_none() {
        csv.column_names = if first.column_names.is_some() {
            // The names made for a headerless first input name this input's columns too.
            first.column_names.clone()
        } else if !csv.has_header && !first_names.is_empty() {
            // A headerless input after one with a header: the rest of a split file, its
            // fields in the first input's order.
            Some(first_names.to_vec())
        } else {
            None
        };
    }
    Ok(csv)
}

/// Reads chunks of every source in order, on its own thread; decompression happens there too.
fn spawn_reader(
    sources: Vec<Source>,
    first: Option<(ChunkReader, Option<Chunk>)>,
    raw_bytes: Arc<AtomicU64>,
    csv: &CsvOptions,
    (each_input, first_names): (Option<Arc<CsvOptions>>, Vec<String>),
    spare: Receiver<Vec<u8>>,
) -> (Receiver<ChunkMsg>, std::thread::JoinHandle<()>) {
    let (tx, rx) = sync_channel::<ChunkMsg>(BATCH_CHUNKS);
    let (delimiter, chunk_bytes, encoding) = (csv.delimiter, csv.chunk_bytes, csv.encoding);
    let first_csv = csv.clone();
    let handle = std::thread::spawn(move || {
        let mut first = first;
        let mut spare = Some(spare);
        for (i, source) in sources.iter().enumerate() {
            if let Some(columnar) = &source.columnar {
                if !send_batches(i, columnar, &raw_bytes, &tx) {
                    return;
                }
                continue;
            }
            let (mut reader, pending) = match first.take() {
                Some(opened) if i == 0 => opened,
                _ => match input::open(source, Arc::clone(&raw_bytes), encoding) {
                    Ok(opened) => (
                        ChunkReader::new(
                            opened.stream,
                            &source.name,
                            chunk_bytes,
                            MAX_RECORD_BYTES,
                            delimiter,
                        )
                        .counting_into(opened.uncounted),
                        None,
                    ),
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                },
            };
            reader.recycle_from(spare.take());
            let mut dialect = None;
            if let (Some(asked), true) = (&each_input, i > 0) {
                match reader.peek() {
                    Ok(peeked) => {
                        let own = match later_input_csv(peeked, &source.name, asked, &first_csv, &first_names)
                        {
                            Ok(own) => own,
                            Err(e) => {
                                let _ = tx.send(Err(e));
                                return;
                            }
                        };
                        reader.set_delimiter(own.delimiter);
                        dialect = Some(Arc::new(own));
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
            if let Some(chunk) = pending {
                if tx.send(Ok((i, chunk, None))).is_err() {
                    return;
                }
            }
            loop {
                match reader.next_chunk() {
                    Ok(Some(chunk)) => {
                        if tx.send(Ok((i, chunk, dialect.take()))).is_err() {
                            return;
                        }
                    }
                    Ok(None) => {
                        spare = reader.take_recycler();
                        break;
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
        }
    });
    (rx, handle)
}

/// Sends the record batches of a columnar input, each as a `Chunk` holding it; false when
/// the import stopped taking them or the input failed (the error sent).
fn send_batches(
    file: usize,
    input: &columnar_in::Input,
    raw_bytes: &AtomicU64,
    tx: &std::sync::mpsc::SyncSender<ChunkMsg>,
) -> bool {
    let batches = match input.batches(None, None) {
        Ok(batches) => batches,
        Err(e) => {
            let _ = tx.send(Err(e));
            return false;
        }
    };
    let share =
        |rows: u64| (u128::from(input.len_bytes) * u128::from(rows) / u128::from(input.rows.max(1))) as u64;
    let mut first_row = 0u64;
    for batch in batches {
        let batch = match batch {
            Ok(batch) => batch,
            Err(e) => {
                let _ = tx.send(Err(e));
                return false;
            }
        };
        // An Arrow batch can be of any size: pieces of at most `BATCH_ROWS` (slices, no copy)
        // keep the work of a batch parallel and its memory bounded.
        let mut at = 0;
        while at < batch.num_rows() {
            let rows = (batch.num_rows() - at).min(columnar_in::BATCH_ROWS);
            let end = first_row + rows as u64;
            let bytes = share(end) - share(first_row);
            raw_bytes.fetch_add(bytes, Ordering::Relaxed);
            let chunk = Chunk {
                piece: Some(columnar_in::Piece {
                    batch: batch.slice(at, rows),
                    first_row,
                    bytes,
                }),
                ..Chunk::default()
            };
            first_row = end;
            at += rows;
            if tx.send(Ok((file, chunk, None))).is_err() {
                return false;
            }
        }
    }
    true
}

/// Runs the import into `db` (opened for writing). `progress` is called after every batch.
pub fn run(
    db: &Database,
    prepared: Prepared,
    opts: &Options,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Summary> {
    if !db.is_series_root() {
        return run_pipeline(db, prepared, opts, progress);
    }
    // Past a few, new series are built aside, fsynced as one, and put in place at the end.
    db.defer_new_series(opts.defer_sync_after_series);
    let summary = run_pipeline(db, prepared, opts, progress);
    if summary.is_err() {
        // The error is the one to report. What this fails to remove, the next writer's open
        // does (the import's marker stays until the end).
        let _ = db.discard_new_series();
    }
    summary
}

fn run_pipeline(
    db: &Database,
    prepared: Prepared,
    opts: &Options,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<Summary> {
    let started = Instant::now();
    let config = db.config().clone();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start worker threads: {e}")))?;
    let raw_bytes = prepared.raw_bytes();
    // The sample has served its purpose; its memory is not kept through the import.
    let Prepared {
        sources: prepared_sources,
        first,
        sample,
        each_input,
        ..
    } = prepared;
    let first_names = sample.names.clone();
    drop(sample);
    let sources = prepared_sources.clone();
    let (spare_tx, spare_rx) = sync_channel::<Vec<u8>>(2 * BATCH_CHUNKS);
    let (rx, reader) = spawn_reader(
        prepared_sources,
        first,
        Arc::clone(&raw_bytes),
        &opts.csv,
        (each_input, first_names),
        spare_rx,
    );
    let mut pipeline = Pipeline {
        db,
        config: &config,
        opts,
        sources: &sources,
        states: HashMap::default(),
        rejects: Rejects {
            path: opts.rejects_path.clone(),
            out: None,
            sources: sources.iter().map(|s| s.name.clone()).collect(),
        },
        summary: Summary {
            files: sources.len(),
            ..Summary::default()
        },
        current_file: None,
        plan: None,
        first_csv: Arc::new(opts.csv.clone()),
        line: (usize::MAX, 1),
        midnight: (usize::MAX, EarlierTimes::default(), None),
        spill: None,
        hold_budget: opts.hold_bytes,
    };
    let series = config.series_columns();
    let ctx = ParseCtx {
        config: &config,
        opts,
        encoder: encode::Encoder::new(&config.schema),
        is_series: (0..config.schema.columns().len())
            .map(|c| series.contains(&c))
            .collect(),
        series,
        unique: config.unique_columns(),
        is_sym: config
            .schema
            .columns()
            .iter()
            .map(|c| c.ty == crate::db::schema::ColumnType::Sym)
            .collect(),
        is_numeric: config
            .schema
            .columns()
            .iter()
            .map(|c| !c.ty.is_text() && c.ty != crate::db::schema::ColumnType::Bool)
            .collect(),
        null_numbers: opts
            .csv
            .nulls
            .iter()
            .filter_map(|t| dialect::DecimalValue::parse(t))
            .collect(),
    };
    let sym_cols: Vec<usize> = (0..ctx.is_sym.len()).filter(|&c| ctx.is_sym[c]).collect();
    let hooks = WriteHooks {
        sync: opts.sync,
        kill_after_journal: opts.kill_after_journal,
        resuming: marker::unfinished_import(db.dir()).is_some(),
    };
    let mut pending: Option<Vec<Parsed>> = None;
    let mut marked = false;
    loop {
        let works = pipeline.collect(&rx)?;
        if works.is_empty() && pending.is_none() {
            break;
        }
        let to_write = pending.take();
        if to_write.is_some() && !marked {
            // Before the first write, so that a refused input leaves no marker behind.
            marker::mark_import_started(db.dir(), &opts.rerun_command)?;
            marked = true;
        }
        // The batch's new sym values are committed before any of its rows is written.
        if to_write.is_some() {
            db.persist_syms()?;
        }
        // No batch follows this write: the rows it holds back are written next, by
        // `write_carries`, so moving them to the scratch file would only read them back.
        let input_ended = works.is_empty();
        let states = &mut pipeline.states;
        let spill = pipeline.spill.as_ref();
        let (written, mut parsed) = pool.install(|| {
            rayon::join(
                || {
                    to_write.map(|batch| {
                        write_batch(db, &config, states, spill, batch, hooks, opts.update_columns)
                    })
                },
                || {
                    use rayon::prelude::*;
                    works
                        .into_par_iter()
                        .map(|w| {
                            if w.chunk.piece.is_some() {
                                columnar_rows::parse_batch(&ctx, w)
                            } else {
                                parse_chunk(&ctx, w)
                            }
                        })
                        .collect::<Vec<_>>()
                },
            )
        });
        if let Some(result) = written {
            let (batch, written) = result?;
            if !input_ended {
                pool.install(|| pipeline.bound_held_rows())?;
            }
            pipeline.account(&batch, &written)?;
            for p in batch {
                // Hand the chunk buffers back to the reader; if it has enough, drop them.
                let _ = spare_tx.try_send(p.work.chunk.data);
            }
            progress(Progress {
                raw_bytes: raw_bytes.load(Ordering::Relaxed),
                rows_read: pipeline.summary.rows_read,
            });
        }
        pipeline.follow_reordered_headers(&ctx, &mut parsed)?;
        pipeline.reject_past_midnight(&ctx, &mut parsed);
        pipeline.number_lines(&mut parsed);
        for p in &mut parsed {
            let texts = std::mem::take(&mut p.syms);
            syms::resolve(&config.schema, &sym_cols, &texts, &mut p.rows)?;
        }
        pending = (!parsed.is_empty()).then_some(parsed);
    }
    drop(rx);
    let _ = reader.join();
    let mut ids: Vec<PartId> = pipeline.states.keys().cloned().collect();
    ids.sort();
    pipeline.summary.rows_replaced +=
        pool.install(|| write_carries(db, &config, &mut pipeline.states, pipeline.spill.as_ref(), hooks))?;
    // Bucket partitions: make the last records durable, then point the directory at them
    // (each partition on its own: thousands of series flush side by side).
    pool.install(|| {
        use rayon::prelude::*;
        pipeline
            .states
            .par_iter_mut()
            .try_for_each(|(_, state)| state.flush(opts.sync))
    })?;
    for state in pipeline.states.values() {
        let (replaced, removed) = state.replaced_and_removed();
        pipeline.summary.rows_replaced += replaced;
        pipeline.summary.rows_removed += removed;
    }
    remove_journals(&mut pipeline.states, opts.sync)?;
    let mut series: Vec<&str> = ids.iter().map(|(s, _)| s.as_str()).collect();
    series.dedup();
    let fs_synced = opts.sync && sync_written(db, &ids, series.len())?;
    if db.is_series_root() {
        db.publish_new_series(opts.sync, fs_synced)?;
    }
    let mut keys: Vec<PartitionKey> = ids.iter().map(|(_, k)| *k).collect();
    keys.sort();
    keys.dedup();
    marker::clear_import_marker(db.dir())?;
    let mut summary = pipeline.summary;
    summary.rejects_path = pipeline.rejects.finish()?;
    summary.partitions = keys;
    summary.series = if db.is_series_root() { series.len() } else { 0 };
    summary.elapsed = started.elapsed();
    debug_assert_eq!(summary.rows_read, summary.rows_stored + summary.rows_rejected);
    Ok(summary)
}

/// Series written past which the end of an import makes its writes durable with one
/// `syncfs` of the file system instead of an `fsync` per file.
const SYNCFS_SERIES: usize = 32;

/// Makes the partitions `ids` (sorted) durable, with the directories that name them.
/// Returns whether it did so by syncing the whole file system.
fn sync_written(db: &Database, ids: &[PartId], series: usize) -> Result<bool> {
    if !db.is_series_root() {
        let keys: Vec<PartitionKey> = ids.iter().map(|(_, k)| *k).collect();
        db.sync_partitions(&keys)?;
        return Ok(false);
    }
    if series > SYNCFS_SERIES {
        // One journal commit for thousands of small files, instead of one per file.
        files::sync_file_system(db.dir())?;
        return Ok(true);
    }
    let mut i = 0;
    while i < ids.len() {
        let name = &ids[i].0;
        let mut j = i;
        while j < ids.len() && ids[j].0 == *name {
            j += 1;
        }
        let keys: Vec<PartitionKey> = ids[i..j].iter().map(|(_, k)| *k).collect();
        with_target(db, name, |target| target.sync_partitions(&keys))?;
        i = j;
    }
    db.sync()?;
    Ok(false)
}

/// State of the import between batches.
struct Pipeline<'a> {
    db: &'a Database,
    config: &'a Config,
    opts: &'a Options,
    sources: &'a [Source],
    states: PartStates,
    rejects: Rejects,
    summary: Summary,
    current_file: Option<usize>,
    plan: Option<Arc<Plan>>,
    /// How the first input is laid out (and every other one whose dialect is not detected).
    first_csv: Arc<CsvOptions>,
    /// (file, next line number) for numbering chunks in order.
    line: (usize, u64),
    /// (file, its times of day so far, where they went back over midnight), in file order
    /// (`reject_past_midnight`).
    midnight: (usize, EarlierTimes, Option<Crossing>),
    /// Where held-back bucket rows go past `hold_budget` bytes (made when first needed).
    spill: Option<Spill>,
    hold_budget: u64,
}

impl Pipeline<'_> {
    /// Moves the rows bucket partitions hold back to the scratch file when they take more
    /// than the memory budget (many series, each holding a bucket).
    fn bound_held_rows(&mut self) -> Result<()> {
        use rayon::prelude::*;
        let held: u64 = self.states.values().map(|s| s.held_memory()).sum();
        if held <= self.hold_budget {
            return Ok(());
        }
        let spill: &Spill = match self.spill {
            Some(ref spill) => spill,
            None => self.spill.insert(Spill::create(self.db.dir())?),
        };
        self.states
            .par_iter_mut()
            .try_for_each(|(_, state)| state.spill_held(spill))?;
        // The held rows were tens of thousands of small allocations in every thread's arena:
        // give the pages they freed back, or the process keeps them as if still held.
        // SAFETY: malloc_trim only releases free memory of the allocator.
        unsafe {
            libc::malloc_trim(0);
        }
        Ok(())
    }

    /// Takes up to `BATCH_CHUNKS` chunks from the reader; empty at the end of the input.
    fn collect(&mut self, rx: &Receiver<ChunkMsg>) -> Result<Vec<Work>> {
        let mut works = Vec::with_capacity(BATCH_CHUNKS);
        while works.len() < BATCH_CHUNKS {
            let Ok(message) = rx.recv() else {
                break;
            };
            let (file, chunk, dialect) = message?;
            let mut start = 0;
            if self.current_file != Some(file) || self.plan.is_none() {
                let source = &self.sources[file];
                let csv = match dialect {
                    Some(own) => {
                        if let Some(note) = dialect_difference(&self.first_csv, &own) {
                            self.summary.notes.push(format!("{}: {note}", source.name));
                        }
                        own
                    }
                    None => Arc::clone(&self.first_csv),
                };
                if chunk.data.is_empty() && chunk.oversized.is_some() && csv.has_header {
                    return Err(Error::Invalid(format!(
                        "{}: the header is longer than {MAX_RECORD_BYTES} bytes; is this a CSV file?",
                        source.name
                    )));
                }
                let header = match (&chunk.piece, &source.columnar) {
                    (Some(_), Some(input)) => Header {
                        names: input.names.clone(),
                        text: input.text.clone(),
                        renamed: Vec::new(),
                        note: None,
                        data_start: 0,
                    },
                    _ => header_names(&chunk.data, &csv)?,
                };
                start = header.data_start;
                let mut plan = plan_for(file, source, &header, csv, self.config, self.opts)?;
                if file > 0 && chunk.piece.is_none() {
                    if let Some((time, date_ns, note)) =
                        later_time_format(&self.opts.time, &plan, &chunk.data[start..], &source.name)
                    {
                        plan.time = Some(time);
                        plan.date_ns = date_ns;
                        self.summary.notes.push(format!("{}: {note}", source.name));
                    }
                    // Naive times are refused where times with offsets surround them: in this
                    // input, not because the first input's had offsets.
                    if self.opts.time.refuse_naive {
                        let spec = plan.time.clone().unwrap_or_else(|| self.opts.time.clone());
                        let values = first_time_values(&plan, &chunk.data[start..]);
                        let zoned = values
                            .iter()
                            .any(|v| matches!(spec.format.parse(v), Ok((_, false))));
                        if spec.refuse_naive != zoned {
                            plan.time = Some(TimeSpec {
                                refuse_naive: zoned,
                                ..spec
                            });
                        }
                    }
                }
                self.plan = Some(Arc::new(plan));
                self.current_file = Some(file);
            }
            let Some(plan) = self.plan.clone() else {
                break;
            };
            works.push(Work {
                plan,
                chunk,
                start,
                first_line: 0,
                reordered: false,
                past_midnight: None,
                earlier: None,
            });
        }
        Ok(works)
    }

    /// Reads the rows after a header that names the input's columns in another order (files
    /// joined with `cat`) in that order: the chunk that met it stopped there; its rest and the
    /// input's later chunks of the batch are parsed again under a plan for the new order, which
    /// the input's next chunks keep.
    fn follow_reordered_headers(&mut self, ctx: &ParseCtx, parsed: &mut Vec<Parsed>) -> Result<()> {
        while let Some(i) = parsed.iter().position(|p| p.reordered_header.is_some()) {
            let Some((start, end)) = parsed[i].reordered_header.take() else {
                break;
            };
            let old = Arc::clone(&parsed[i].work.plan);
            let chunk = &mut parsed[i].work.chunk;
            let mut fields = Vec::new();
            let mut scratch = Vec::new();
            split_record(&chunk.data, start, old.csv.delimiter, &mut fields, &mut scratch);
            let text: Vec<String> = fields
                .iter()
                .enumerate()
                .map(|(k, f)| {
                    String::from_utf8_lossy(header_field(k, f.bytes(&chunk.data, &scratch))).into_owned()
                })
                .collect();
            let (names, renamed) = dialect::column_names(&text);
            let header = Header {
                names,
                text,
                renamed,
                note: None,
                data_start: end - start,
            };
            let source = &self.sources[old.file];
            let mut plan = plan_for(
                old.file,
                source,
                &header,
                Arc::clone(&old.csv),
                self.config,
                self.opts,
            )?;
            plan.time = old.time.clone();
            let plan = Arc::new(plan);
            let rest = Chunk {
                data: chunk.data[start..].to_vec(),
                offset: chunk.offset + start as u64,
                oversized: chunk.oversized.take(),
                piece: None,
            };
            chunk.data.truncate(start);
            let mut works = vec![Work {
                plan: Arc::clone(&plan),
                chunk: rest,
                start: end - start,
                first_line: 0,
                reordered: true,
                past_midnight: None,
                earlier: None,
            }];
            for p in parsed.drain(i + 1..) {
                let mut work = p.work;
                if Arc::ptr_eq(&work.plan, &old) {
                    work.plan = Arc::clone(&plan);
                }
                works.push(work);
            }
            if self.plan.as_ref().is_some_and(|p| Arc::ptr_eq(p, &old)) {
                self.plan = Some(Arc::clone(&plan));
            }
            parsed.extend(works.into_iter().map(|work| {
                if work.chunk.piece.is_some() {
                    columnar_rows::parse_batch(ctx, work)
                } else {
                    parse_chunk(ctx, work)
                }
            }));
        }
        Ok(())
    }

    /// Times of day are dated by one date per input, so an input whose times go back by more
    /// than half a day crosses midnight: its rows after that would be stored a day early.
    /// `parse_chunk` rejects them within a chunk; here, in file order, a chunk that starts
    /// past a crossing in an earlier chunk (or at one) is parsed again with every row rejected.
    /// (The sample finds most crossings before the import; this finds the rest, and those of
    /// later inputs.)
    fn reject_past_midnight(&mut self, ctx: &ParseCtx, parsed: &mut [Parsed]) {
        for p in parsed.iter_mut() {
            let file = p.work.plan.file;
            if self.midnight.0 != file {
                self.midnight = (file, EarlierTimes::default(), None);
            }
            let (_, earlier, crossed) = &mut self.midnight;
            if p.work.chunk.piece.is_none() {
                if let Some(c) = *crossed {
                    if p.work.past_midnight.is_none_or(|own| own.at > 0) {
                        *p = parse_chunk(ctx, p.work.again(Some(Crossing { at: 0, ..c }), None));
                    }
                } else if p.work.earlier.is_none() && went_back_since(p, earlier) {
                    let earlier = Some(Arc::new(earlier.clone()));
                    *p = parse_chunk(ctx, p.work.again(None, earlier));
                }
            }
            *crossed = crossed.or(p.midnight);
            for (s, tod) in p.tod.iter().enumerate() {
                if let Some((_, last)) = *tod {
                    earlier.last.insert(p.series[s].clone(), last);
                }
            }
            earlier.prev = p.last_time.or(earlier.prev);
        }
    }

    /// Gives each parsed chunk the line number of its first byte (lines restart per file).
    fn number_lines(&mut self, parsed: &mut [Parsed]) {
        for p in parsed {
            let file = p.work.plan.file;
            if self.line.0 != file {
                self.line = (file, 1);
            }
            p.work.first_line = self.line.1;
            if p.work.reordered {
                self.summary.notes.push(format!(
                    "{}: line {} is a header again, naming the columns in another order than the \
                     header before it ({}); the rows below it were read in that order",
                    self.sources[file].name,
                    self.line.1,
                    p.work.plan.header.join(",")
                ));
            }
            self.line.1 += p.newlines;
            if let Some(o) = &p.work.chunk.oversized {
                self.line.1 += o.newlines;
            }
        }
    }

    /// Counts a written batch and writes its rejects, in input order.
    fn account(&mut self, batch: &[Parsed], written: &[WrittenIn]) -> Result<()> {
        let depth = self.config.depth;
        let mut overflow: Vec<Vec<(u32, String)>> = vec![Vec::new(); batch.len()];
        for (series, w) in written {
            // Which series, when there are several: each has its own depth at a time.
            let of_series = if series.is_empty() {
                String::new()
            } else {
                format!(" in series `{}`", crate::db::series::text_of(series))
            };
            self.summary.rows_stored += w.stored;
            self.summary.rows_replaced += w.replaced;
            for &(chunk, row, slot, present) in &w.overflow {
                let p = &batch[chunk as usize];
                let t = self.db.time_of(w.key, slot);
                let already = if present > 0 {
                    format!(" ({present} stored there earlier in this import)")
                } else {
                    String::new()
                };
                overflow[chunk as usize].push((
                    p.rec_starts[row as usize],
                    format!(
                        "more rows at {}{of_series} than the database depth {depth}{already}; \
                         create the database with a larger --depth",
                        format_iso(t, self.config.granularity.fraction_digits())
                    ),
                ));
            }
            for &(chunk, row, slot, stored) in &w.ambiguous {
                let p = &batch[chunk as usize];
                let t = self.db.time_of(w.key, slot);
                overflow[chunk as usize].push((
                    p.rec_starts[row as usize],
                    format!(
                        "{stored} rows are stored at {}{of_series} and the database has no unique key, so \
                         --update-columns cannot tell which to update; import whole rows instead, \
                         or keep such data in a database created with --unique-by",
                        format_iso(t, self.config.granularity.fraction_digits())
                    ),
                ));
            }
        }
        for (i, p) in batch.iter().enumerate() {
            let delimiter = p.work.plan.csv.delimiter;
            self.summary.rows_read += p.records;
            self.summary.header_lines += p.headers;
            self.summary.comment_lines += p.comments;
            self.summary.naive_times |= p.naive;
            if let Some((first, last)) = p.span {
                let file = p.work.plan.file;
                if self.summary.file_spans.len() <= file {
                    self.summary.file_spans.resize(file + 1, None);
                }
                let span = self.summary.file_spans[file].get_or_insert((first, last));
                *span = (span.0.min(first), span.1.max(last));
            }
            self.summary.null_tokens += p.nulls;
            self.summary.floored_times += p.floored;
            if let Some(piece) = &p.work.chunk.piece {
                // A record batch: rows by number, row k (from 1) on line k + 1 (the header is
                // line 1); no byte offset, the input is not text.
                let mut all: Vec<(u32, &str)> = p
                    .rejects
                    .iter()
                    .map(|r| (r.rec_start, r.reason.as_str()))
                    .chain(overflow[i].iter().map(|(row, reason)| (*row, reason.as_str())))
                    .collect();
                all.sort_by_key(|r| r.0);
                self.summary.rows_rejected += all.len() as u64;
                for (row, reason) in all {
                    let text = columnar_in::row_csv(&piece.batch, row as usize);
                    self.rejects.write(
                        p.work.plan.file,
                        piece.first_row + u64::from(row) + 2,
                        None,
                        reason,
                        &text,
                    )?;
                }
                self.summary.bytes_read += piece.bytes;
                continue;
            }
            let data = &p.work.chunk.data;
            let mut all: Vec<(u32, u32, &str)> = p
                .rejects
                .iter()
                .map(|r| (r.rec_start, r.rec_end, r.reason.as_str()))
                .collect();
            let mut fields = Vec::new();
            let mut scratch = Vec::new();
            for (start, reason) in &overflow[i] {
                let span = split_record(data, *start as usize, delimiter, &mut fields, &mut scratch);
                all.push((*start, span.end as u32, reason.as_str()));
            }
            all.sort_by_key(|r| r.0);
            self.summary.rows_rejected += all.len() as u64;
            let mut line = p.work.first_line;
            let mut counted_to = 0usize;
            for (start, end, reason) in all {
                let start = start as usize;
                line += memchr::memchr_iter(b'\n', &data[counted_to..start]).count() as u64;
                counted_to = start;
                self.rejects.write(
                    p.work.plan.file,
                    line,
                    Some(p.work.chunk.offset + start as u64),
                    reason,
                    &data[start..end as usize],
                )?;
            }
            self.summary.bytes_read += data.len() as u64;
            if let Some(o) = &p.work.chunk.oversized {
                self.write_oversized(p.work.plan.file, p.work.first_line + p.newlines, o)?;
            }
        }
        Ok(())
    }

    fn write_oversized(&mut self, file: usize, line: u64, o: &Oversized) -> Result<()> {
        self.summary.rows_read += 1;
        self.summary.rows_rejected += 1;
        self.summary.bytes_read += o.len_bytes;
        let mut text = o.preview.clone();
        text.extend_from_slice(
            format!(
                "…[{} more bytes not kept]",
                o.len_bytes.saturating_sub(o.preview.len() as u64)
            )
            .as_bytes(),
        );
        self.rejects.write(
            file,
            line,
            Some(o.offset),
            &format!(
                "record longer than {MAX_RECORD_BYTES} bytes ({} bytes)",
                o.len_bytes
            ),
            &text,
        )
    }
}

/// Writes one parsed batch: rows grouped by series and partition, partitions in parallel.
fn write_batch(
    db: &Database,
    config: &Config,
    states: &mut PartStates,
    spill: Option<&Spill>,
    batch: Vec<Parsed>,
    hooks: WriteHooks,
    update: bool,
) -> Result<(Vec<Parsed>, Vec<WrittenIn>)> {
    use rayon::prelude::*;
    let sync = hooks.sync;
    // Each partition's entries, chunk after chunk. Keyed by borrowed names: a chunk of many
    // series names most of them, and a batch's chunks name them again; each partition's name
    // is copied once below. Counted first, so that each list is allocated once.
    let by_group: Vec<_> = (batch.iter().enumerate())
        .map(|(chunk, p)| p.entries_by_group(chunk as u32))
        .collect();
    let mut index: HashMap<(&str, PartitionKey), usize, FnvBuild> = HashMap::default();
    let mut parts: Vec<((&str, PartitionKey), Vec<Entry>)> = Vec::new();
    let mut lens: Vec<usize> = Vec::new();
    let mut part_of_group: Vec<Vec<usize>> = Vec::with_capacity(batch.len());
    for (p, (_, groups)) in batch.iter().zip(&by_group) {
        let mut of_group = Vec::with_capacity(groups.len());
        for (group, range) in groups {
            let id = (p.series[group.series as usize].as_str(), group.key);
            let k = *index.entry(id).or_insert_with(|| {
                parts.push((id, Vec::new()));
                lens.push(0);
                parts.len() - 1
            });
            lens[k] += range.len();
            of_group.push(k);
        }
        part_of_group.push(of_group);
    }
    for (part, &len) in parts.iter_mut().zip(&lens) {
        part.1.reserve_exact(len);
    }
    for ((entries, groups), of_group) in by_group.iter().zip(&part_of_group) {
        for ((_, range), &k) in groups.iter().zip(of_group) {
            parts[k].1.extend_from_slice(&entries[range.clone()]);
        }
    }
    // In series and partition order, as the writes have always gone.
    parts.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut jobs = Vec::with_capacity(parts.len());
    for ((name, key), entries) in parts {
        let id: PartId = (name.to_string(), key);
        let state = match states.remove(&id) {
            Some(state) => state,
            None => {
                let fresh = with_target(db, &id.0, |target| {
                    Ok(!files::exists(&target.dir().join(id.1.file_name()))?)
                })?;
                Box::new(PartWriter::new(config, fresh))
            }
        };
        jobs.push((id, state, entries));
    }
    // Open files stay within the budget: partitions of earlier batches are closed first, then
    // the partitions of this batch past the budget are opened only while they are written.
    let budget = open_partitions_budget(config);
    if states.values().filter(|s| s.is_open()).count() + jobs.len().min(budget) > budget {
        close_partitions(db, states, sync)?;
    }
    let unique = Unique::of(config, update);
    let chunks: Vec<ParsedRows> = batch.iter().map(Parsed::rows_view).collect();
    let results: Vec<(PartId, Box<PartWriter>, Result<Written>)> = jobs
        .into_par_iter()
        .enumerate()
        .map(|(k, (id, mut state, entries))| {
            let key = id.1;
            if let Some(w) = state.hold_back(key, &entries, &chunks, &unique) {
                return (id, state, Ok(w));
            }
            let r = (|| {
                state.restore_held(spill)?;
                if !state.is_open() {
                    with_target(db, &id.0, |target| state.open(target, key, hooks.resuming))?;
                }
                let w = state.write(key, entries, &chunks, &unique, hooks)?;
                if k >= budget {
                    close_partition(db, &id, &mut state, sync)?;
                }
                Ok(w)
            })();
            (id, state, r)
        })
        .collect();
    drop(chunks);
    let mut written = Vec::with_capacity(results.len());
    let mut failure = None;
    for (id, state, result) in results {
        match result {
            Ok(w) => written.push((id.0.clone(), w)),
            Err(e) => failure = failure.or(Some(e)),
        }
        states.insert(id, state);
    }
    if let Some(e) = failure {
        return Err(e);
    }
    Ok((batch, written))
}

/// Writes the rows bucket partitions held back for a next batch (the input has ended), the
/// partitions in parallel; a partition closed to stay within the open-file limit is opened
/// for it and closed again. Returns the rows replaced (with a unique key).
fn write_carries(
    db: &Database,
    config: &Config,
    states: &mut PartStates,
    spill: Option<&Spill>,
    hooks: WriteHooks,
) -> Result<u64> {
    use rayon::prelude::*;
    let sync = hooks.sync;
    // `--update-columns` holds nothing back (each batch writes all its buckets).
    let unique = Unique::of(config, false);
    states
        .par_iter_mut()
        .filter(|(_, state)| state.holds_rows())
        .map(|(id, state)| {
            state.restore_held(spill)?;
            let was_open = state.is_open();
            if !was_open {
                with_target(db, &id.0, |target| state.open(target, id.1, hooks.resuming))?;
            }
            let replaced = state.write_held(id.1, &unique, sync)?;
            if !was_open {
                close_partition(db, id, state, sync)?;
            }
            Ok(replaced)
        })
        .sum()
}

/// Runs `f` on the database a series' rows go to: the series' own (made when missing) in a
/// series database, else the database itself.
fn with_target<T>(db: &Database, series: &str, f: impl FnOnce(&Database) -> Result<T>) -> Result<T> {
    if !db.is_series_root() {
        return f(db);
    }
    let target = db
        .series_db(series, true)?
        .ok_or_else(|| Error::Invalid(format!("series {series} could not be created")))?;
    f(&target)
}

/// Closes every open partition (their state is kept): an import that touches more series'
/// partitions than it may hold open goes on by opening them again as they come.
fn close_partitions(db: &Database, states: &mut PartStates, sync: bool) -> Result<()> {
    for (id, state) in states.iter_mut() {
        close_partition(db, id, state, sync)?;
    }
    Ok(())
}

/// Removes the undo journals of the import (their partitions made durable first, with
/// `sync`); the directories are synced after, with the partitions (`sync_written`), before the
/// marker goes.
fn remove_journals(states: &mut PartStates, sync: bool) -> Result<()> {
    for state in states.values_mut() {
        state.remove_journal(sync)?;
    }
    Ok(())
}

/// Closes the partition `id`: its pending directory entries are written first, and the
/// database's cached handle is dropped with the import's, so the file is closed now.
fn close_partition(db: &Database, id: &PartId, state: &mut PartWriter, sync: bool) -> Result<()> {
    if !state.close(sync)? {
        return Ok(());
    }
    with_target(db, &id.0, |target| {
        target.forget_partition(id.1);
        Ok(())
    })
}

/// The default rejects file: `DB/rejects-YYYYMMDDTHHMMSSZ.csv`.
/// A second import in the same second gets `-2`, `-3`… rather than overwriting.
pub fn default_rejects_path(dir: &Path) -> PathBuf {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
    let mut path = dir.join(format!("rejects-{stamp}.csv"));
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("rejects-{stamp}-{n}.csv"));
        n += 1;
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shown_field_is_short_printable_and_never_splits_a_character() {
        assert_eq!(show(b"12.5"), "12.5");
        // A terminal never sees the field's control bytes, only their escapes.
        assert_eq!(show(b"a\nb\x1b[2J"), "a\\nb\\u{1b}[2J");
        // Forty characters of two bytes each, then more: cut between characters.
        let long = "é".repeat(100);
        assert_eq!(show(long.as_bytes()), format!("{}…", "é".repeat(40)));
        // Cut inside the bytes read, past what is shown: still marked as cut.
        let wide = "€".repeat(60);
        assert_eq!(show(wide.as_bytes()), format!("{}…", "€".repeat(40)));
        // Bytes that are not UTF-8 show as replacement characters.
        assert_eq!(show(b"ab\xff"), "ab\u{fffd}");
        assert_eq!(printable("x\ty"), "x\\ty");
    }
}
