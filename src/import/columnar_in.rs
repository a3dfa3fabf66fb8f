//! Parquet files and Arrow IPC files or streams as import input. Each is read with arrow-rs
//! and its record batches go straight into the import pipeline, where `columnar_rows` encodes
//! them column by column into stored rows, with the semantics of the CSV path (upsert, keys,
//! rejects): a value the typed fast path cannot store is turned into the text the CSV path
//! would have read and goes through the CSV path's encoder, so the stored bytes and the
//! reasons of rejects are the same. The Arrow schema's types become the column types of a new
//! database; the inference sample is the text of rows picked across the input.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
    UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchReader};
use arrow_schema::{DataType, SchemaRef, TimeUnit};

use crate::db::schema::{ColumnType, MAX_STR_LEN};
use crate::error::{Error, Result};
use crate::import::input::{OpenedPipe, PipeSlot};
use crate::import::{dialect, infer, sample::SampleRows, Sample};
use crate::io::output::write_csv_str;
use crate::io::timefmt::EpochUnit;

/// What an input holds, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Parquet,
    /// An Arrow IPC file (`ARROW1` magic).
    ArrowFile,
    /// An Arrow IPC stream (starts with the continuation marker).
    ArrowStream,
}

impl Kind {
    /// The kind of an input starting with `head`, if columnar.
    pub fn sniff(head: &[u8]) -> Option<Kind> {
        if head.starts_with(b"PAR1") {
            Some(Kind::Parquet)
        } else if head.starts_with(b"ARROW1") {
            Some(Kind::ArrowFile)
        } else if head.starts_with(&[0xff, 0xff, 0xff, 0xff]) {
            Some(Kind::ArrowStream)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Parquet => "Parquet",
            Kind::ArrowFile => "Arrow IPC file",
            Kind::ArrowStream => "Arrow IPC stream",
        }
    }
}

/// A Parquet or Arrow input, opened: its schema, and how to read its record batches.
pub struct Input {
    /// What to call it in messages and the rejects file: the path, or `-` for stdin.
    pub name: String,
    /// `None` for stdin.
    pub path: Option<PathBuf>,
    kind: Kind,
    /// A Parquet input read from stdin, held in memory.
    bytes: Option<bytes::Bytes>,
    /// An Arrow input, read whole (its batches are its buffers, decoding costs nothing).
    batches: Option<Vec<RecordBatch>>,
    /// Rows the input holds.
    pub rows: u64,
    /// Size in bytes (on disk, or read from stdin).
    pub len_bytes: u64,
    /// The column names (the schema's, made usable as a CSV header's are) and the names as
    /// written.
    pub names: Vec<String>,
    pub text: Vec<String>,
    /// (name as written, name) of the names that differ.
    pub renamed: Vec<(String, String)>,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} input {} ({} rows)", self.kind.name(), self.name, self.rows)
    }
}

/// Record batches of an input, in order.
pub type Batches = Box<dyn Iterator<Item = Result<RecordBatch>> + Send>;

/// Rows per record batch read from Parquet for the import, and at most per piece of an Arrow
/// batch (fixed, so batches do not depend on the thread count); large enough that the
/// per-batch work is small beside the rows'.
pub const BATCH_ROWS: usize = 32 * 1024;

impl Input {
    fn fail(&self, e: &dyn std::fmt::Display) -> Error {
        Error::Invalid(format!("{}: not a readable {}: {e}", self.name, self.kind.name()))
    }

    /// The input's record batches: `rows` (ranges of row numbers) only, when given, and the
    /// columns `columns` only (in schema order), when given.
    pub fn batches(&self, rows: Option<&[(u64, u64)]>, columns: Option<&[usize]>) -> Result<Batches> {
        if let Some(batches) = &self.batches {
            let mut all = batches.clone();
            if let Some(columns) = columns {
                all = all
                    .iter()
                    .map(|b| b.project(columns))
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(|e| self.fail(&e))?;
            }
            let Some(ranges) = rows else {
                return Ok(Box::new(all.into_iter().map(Ok)));
            };
            // Slices of the batches that the ranges cover.
            let mut out = Vec::new();
            let mut first = 0u64;
            for b in all {
                let end = first + b.num_rows() as u64;
                for &(from, to) in ranges {
                    let (a, z) = (from.max(first), to.min(end));
                    if a < z {
                        out.push(Ok(b.slice((a - first) as usize, (z - a) as usize)));
                    }
                }
                first = end;
            }
            return Ok(Box::new(out.into_iter()));
        }
        use parquet::arrow::arrow_reader::{ParquetRecordBatchReaderBuilder, RowSelection};
        fn build<T: parquet::file::reader::ChunkReader + 'static>(
            builder: ParquetRecordBatchReaderBuilder<T>,
            rows: Option<&[(u64, u64)]>,
            columns: Option<&[usize]>,
            total: u64,
        ) -> parquet::errors::Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader> {
            let builder = builder.with_batch_size(BATCH_ROWS);
            let builder = match columns {
                Some(columns) => {
                    let mask = parquet::arrow::ProjectionMask::roots(
                        builder.parquet_schema(),
                        columns.iter().copied(),
                    );
                    builder.with_projection(mask)
                }
                None => builder,
            };
            let builder = match rows {
                Some(ranges) => builder.with_row_selection(RowSelection::from_consecutive_ranges(
                    ranges.iter().map(|&(a, z)| a as usize..z as usize),
                    total as usize,
                )),
                None => builder,
            };
            builder.build()
        }
        let name = self.name.clone();
        let damaged = move |e: arrow_schema::ArrowError| {
            Error::Invalid(format!("{name}: a damaged Parquet record batch: {e}"))
        };
        match (&self.bytes, &self.path) {
            (Some(bytes), _) => {
                let reader = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
                    .and_then(|b| build(b, rows, columns, self.rows))
                    .map_err(|e| self.fail(&e))?;
                Ok(Box::new(reader.map(move |b| b.map_err(&damaged))))
            }
            (None, Some(path)) => {
                let file = File::open(path).map_err(|e| Error::io("open", path, e))?;
                let reader = ParquetRecordBatchReaderBuilder::try_new(file)
                    .and_then(|b| build(b, rows, columns, self.rows))
                    .map_err(|e| self.fail(&e))?;
                Ok(Box::new(reader.map(move |b| b.map_err(&damaged))))
            }
            (None, None) => Err(Error::Invalid(format!("{}: nothing to read", self.name))),
        }
    }
}

/// Record batches of a columnar input on their way through the import pipeline (in a
/// `Chunk` in place of text).
#[derive(Clone, Debug)]
pub struct Piece {
    pub batch: RecordBatch,
    /// The row number of its first row in the input (from 0).
    pub first_row: u64,
    /// Its share of the input's bytes, for the summary.
    pub bytes: u64,
}

/// The columnar inputs of an import.
#[derive(Debug, Default)]
pub struct Columnar {
    /// The Parquet and Arrow inputs, opened.
    pub inputs: Vec<Arc<Input>>,
    /// The column types the inputs' schemas give (for a new database).
    pub types: Vec<(String, ColumnType)>,
    /// The time column (the first timestamp column) and the unit its epoch numbers are in.
    pub time: Option<(String, EpochUnit)>,
    /// What was read, for the report: one line per columnar input.
    pub notes: Vec<String>,
    /// The inputs that are pipes named by their paths and hold text: opened, their first
    /// bytes read (the CSV reader goes on from them).
    pub pipes: Vec<(PathBuf, PipeSlot)>,
}

/// Opens every Parquet or Arrow input of `inputs` (stdin too); `time_column` names the time
/// column when the caller knows it. With `new_db`, the text columns are read through once for
/// their longest value and whether their values repeat (the types of a new database).
pub fn open_inputs(inputs: &[PathBuf], time_column: Option<&str>, new_db: bool) -> Result<Columnar> {
    let mut out = Columnar::default();
    let is_pipe =
        |p: &PathBuf| p.as_os_str() != "-" && !p.is_file() && std::fs::metadata(p).is_ok_and(|m| !m.is_dir());
    // A pipe's head is read only when it is the one pipe: opening a second while the first is
    // held unread would wait on a writer that feeds them in turn (`cat a > f1; cat b > f2`).
    let one_pipe = inputs.iter().filter(|p| is_pipe(p)).count() == 1;
    if let Some(pipe) = inputs.iter().find(|p| is_pipe(p)) {
        // `-` and `/dev/stdin` are one stream: read twice, each would get part of it.
        if inputs.iter().any(|p| p.as_os_str() == "-") && same_stream(pipe, Path::new("/dev/stdin")) {
            return Err(Error::Invalid(format!(
                "- and {} are the same input (standard input); name it once",
                pipe.display()
            )));
        }
    }
    for input in inputs {
        let (kind, bytes) = if input.as_os_str() == "-" {
            let stdin = io::stdin();
            let mut lock = stdin.lock();
            let head = lock.fill_buf().map_err(|e| Error::io("read", "stdin", e))?;
            match Kind::sniff(head) {
                Some(kind) => {
                    let mut all = Vec::new();
                    lock.read_to_end(&mut all)
                        .map_err(|e| Error::io("read", "stdin", e))?;
                    (kind, Some(all))
                }
                None => continue,
            }
        } else if input.is_file() {
            let mut head = [0u8; 8];
            let n = match File::open(input) {
                Ok(mut f) => read_head(&mut f, &mut head).map_err(|e| Error::io("read", input, e))?,
                Err(_) => 0,
            };
            match Kind::sniff(&head[..n]) {
                Some(kind) => (kind, None),
                None => continue,
            }
        } else if one_pipe && is_pipe(input) {
            // A pipe named by its path (`<(cat f.parquet)`, a FIFO) is read once: a columnar
            // one whole (Parquet needs to seek), a text one goes on from its first bytes in
            // the CSV reader, which takes the pipe as it is open.
            let mut file = File::open(input).map_err(|e| Error::io("open", input, e))?;
            let mut head = vec![0u8; 8];
            let n = read_head(&mut file, &mut head).map_err(|e| Error::io("read", input, e))?;
            head.truncate(n);
            match Kind::sniff(&head) {
                Some(kind) => {
                    file.read_to_end(&mut head)
                        .map_err(|e| Error::io("read", input, e))?;
                    (kind, Some(head))
                }
                None => {
                    let pipe = OpenedPipe { head, file };
                    out.pipes.push((input.clone(), Arc::new(Mutex::new(Some(pipe)))));
                    continue;
                }
            }
        } else {
            continue;
        };
        let (name, path) = if input.as_os_str() == "-" {
            ("-".to_string(), None)
        } else {
            (input.display().to_string(), Some(input.clone()))
        };
        let fail = |e: &dyn std::fmt::Display| {
            Error::Invalid(format!("{name}: not a readable {}: {e}", kind.name()))
        };
        let open = || File::open(input).map_err(|e| Error::io("open", input, e));
        let len_bytes = match &bytes {
            Some(b) => b.len() as u64,
            None => std::fs::metadata(input).map(|m| m.len()).unwrap_or(0),
        };
        let damaged = |e: arrow_schema::ArrowError| {
            Error::Invalid(format!("{name}: a damaged {} record batch: {e}", kind.name()))
        };
        let (schema, rows, bytes, batches) = match kind {
            Kind::Parquet => {
                use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
                let (schema, rows, bytes) = match bytes {
                    Some(b) => {
                        let b = bytes::Bytes::from(b);
                        let builder =
                            ParquetRecordBatchReaderBuilder::try_new(b.clone()).map_err(|e| fail(&e))?;
                        (
                            builder.schema().clone(),
                            builder.metadata().file_metadata().num_rows(),
                            Some(b),
                        )
                    }
                    None => {
                        let builder =
                            ParquetRecordBatchReaderBuilder::try_new(open()?).map_err(|e| fail(&e))?;
                        (
                            builder.schema().clone(),
                            builder.metadata().file_metadata().num_rows(),
                            None,
                        )
                    }
                };
                (schema, rows.max(0) as u64, bytes, None)
            }
            Kind::ArrowFile | Kind::ArrowStream => {
                let reader: Box<dyn RecordBatchReader> = match (kind, bytes) {
                    (Kind::ArrowFile, bytes) => {
                        let source: Box<dyn ReadSeek> = match bytes {
                            Some(bytes) => Box::new(io::Cursor::new(bytes)),
                            None => Box::new(open()?),
                        };
                        Box::new(arrow_ipc::reader::FileReader::try_new(source, None).map_err(|e| fail(&e))?)
                    }
                    (_, bytes) => {
                        let source: Box<dyn Read> = match bytes {
                            Some(bytes) => Box::new(io::Cursor::new(bytes)),
                            None => Box::new(io::BufReader::new(open()?)),
                        };
                        Box::new(
                            arrow_ipc::reader::StreamReader::try_new(source, None).map_err(|e| fail(&e))?,
                        )
                    }
                };
                let schema = reader.schema();
                let batches = reader.map(|b| b.map_err(damaged)).collect::<Result<Vec<_>>>()?;
                let rows = batches.iter().map(|b| b.num_rows() as u64).sum();
                (schema, rows, None, Some(batches))
            }
        };
        let plan = plan_columns(&name, &schema, time_column)?;
        let text: Vec<String> = schema
            .fields()
            .iter()
            .map(|f| f.name().trim().to_string())
            .collect();
        let (names, renamed) = dialect::column_names(&text);
        let opened = Input {
            name: name.clone(),
            path,
            kind,
            bytes,
            batches,
            rows,
            len_bytes,
            names,
            text,
            renamed,
        };
        // The text columns' longest value and repetition, for the types of a new database.
        let width = plan.columns.len();
        let (longest, repeated) = if new_db && plan.columns.iter().any(|c| c.ty.is_none() && !c.is_time) {
            text_stats(&opened, &plan)?
        } else {
            (vec![0; width], vec![false; width])
        };
        out.notes.push(format!(
            "{name}: {} of {rows} row(s); its schema gives the column types{}",
            kind.name(),
            match &plan.time {
                Some((time, unit)) =>
                    format!(" and the time column `{time}` (a timestamp in {})", unit.name()),
                None => String::new(),
            }
        ));
        merge_types(&mut out.types, &name, &plan, &longest, &repeated)?;
        if let (None, Some(time)) = (&out.time, plan.time.clone()) {
            out.time = Some(time);
        }
        out.inputs.push(Arc::new(opened));
    }
    Ok(out)
}

/// Whether two paths open the same file or pipe.
fn same_stream(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

trait ReadSeek: Read + io::Seek {}
impl<T: Read + io::Seek> ReadSeek for T {}

fn read_head(file: &mut File, head: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// How one Arrow column is written and what xs type it gives.
struct Column {
    name: String,
    /// `None` for string columns until their longest value is known.
    ty: Option<ColumnType>,
    is_time: bool,
}

struct Plan {
    columns: Vec<Column>,
    time: Option<(String, EpochUnit)>,
}

fn unit_of(unit: &TimeUnit) -> EpochUnit {
    match unit {
        TimeUnit::Second => EpochUnit::S,
        TimeUnit::Millisecond => EpochUnit::Ms,
        TimeUnit::Microsecond => EpochUnit::Us,
        TimeUnit::Nanosecond => EpochUnit::Ns,
    }
}

/// The xs type of each column, and the time column: `time_column` if named, else the first
/// timestamp column. A type xs cannot store is refused, naming the column.
fn plan_columns(what: &str, schema: &SchemaRef, time_column: Option<&str>) -> Result<Plan> {
    let time_at = match time_column {
        Some(name) => schema.fields().iter().position(|f| f.name() == name),
        None => schema
            .fields()
            .iter()
            .position(|f| matches!(f.data_type(), DataType::Timestamp(..))),
    };
    let mut time = None;
    let mut columns = Vec::new();
    for (k, field) in schema.fields().iter().enumerate() {
        let is_time = Some(k) == time_at;
        let ty = match field.data_type() {
            DataType::Timestamp(unit, _) => {
                if is_time {
                    time = Some((field.name().clone(), unit_of(unit)));
                }
                Some(ColumnType::I64)
            }
            DataType::Int8 => Some(ColumnType::I8),
            DataType::Int16 => Some(ColumnType::I16),
            DataType::Int32 => Some(ColumnType::I32),
            DataType::Int64 => Some(ColumnType::I64),
            DataType::UInt8 => Some(ColumnType::U8),
            DataType::UInt16 => Some(ColumnType::U16),
            DataType::UInt32 => Some(ColumnType::U32),
            DataType::UInt64 => Some(ColumnType::U64),
            DataType::Float16 | DataType::Float32 => Some(ColumnType::F32),
            DataType::Float64 => Some(ColumnType::F64),
            DataType::Boolean => Some(ColumnType::Bool),
            DataType::Decimal128(_, scale)
            | DataType::Decimal64(_, scale)
            | DataType::Decimal32(_, scale)
                if (0..=18).contains(scale) =>
            {
                Some(ColumnType::Dec(*scale as u8))
            }
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Date32 => None,
            DataType::Dictionary(_, value) if matches!(**value, DataType::Utf8 | DataType::LargeUtf8) => None,
            other => {
                return Err(Error::Invalid(format!(
                    "{what}: column `{}` is {other}, which xs cannot store (it stores integers, \
                     floats, decimals of scale 0-18, booleans, text and one timestamp column); \
                     cast or drop it before the import",
                    field.name()
                )))
            }
        };
        columns.push(Column {
            name: field.name().clone(),
            ty,
            is_time,
        });
    }
    Ok(Plan { columns, time })
}

/// Reads the text columns of `input` through once: the longest value of each column in bytes,
/// and whether its values repeat as `infer` asks of a `sym` column. Batches are read
/// `PAR_BATCHES` at a time and looked at in parallel.
fn text_stats(input: &Input, plan: &Plan) -> Result<(Vec<usize>, Vec<bool>)> {
    use rayon::prelude::*;
    let width = plan.columns.len();
    let text_cols: Vec<usize> = (0..width)
        .filter(|&k| plan.columns[k].ty.is_none() && !plan.columns[k].is_time)
        .collect();
    let mut longest = vec![0usize; width];
    let mut distinct: Vec<Option<Distinct>> = (0..width)
        .map(|k| text_cols.contains(&k).then(Distinct::default))
        .collect();
    let mut texts = vec![0usize; width];
    let mut batches = input.batches(None, Some(&text_cols))?.peekable();
    while batches.peek().is_some() {
        let group: Vec<RecordBatch> = batches.by_ref().take(PAR_BATCHES).collect::<Result<Vec<_>>>()?;
        let track: Vec<bool> = distinct.iter().map(Option::is_some).collect();
        let done: Vec<Vec<(usize, ColumnText)>> = group
            .par_iter()
            .map(|b| {
                text_cols
                    .iter()
                    .enumerate()
                    .map(|(j, &k)| (k, column_text(b.column(j), track[k])))
                    .collect()
            })
            .collect();
        for columns in done {
            for (k, t) in columns {
                longest[k] = longest[k].max(t.longest);
                texts[k] += t.texts;
                if let (Some(seen), Some(new)) = (distinct[k].as_mut(), t.distinct) {
                    seen.extend(new);
                }
                if distinct[k].as_ref().is_some_and(|s| s.len() > MAX_DISTINCT) || t.many {
                    distinct[k] = None;
                }
            }
        }
    }
    let repeated = distinct
        .iter()
        .zip(&texts)
        .map(|(seen, &n)| seen.as_ref().is_some_and(|s| infer::is_repeated(s.len(), n)))
        .collect();
    Ok((longest, repeated))
}

/// Record batches looked at together, in parallel.
const PAR_BATCHES: usize = 8;

/// Distinct values counted per text column; past them it is not `sym`.
const MAX_DISTINCT: usize = 1 << 16;

/// Records of the inference sample, as the CSV path takes them from a file: the head (its
/// first `HEAD_BYTES` of text), then the whole rest when the sample can hold it, else
/// `WINDOWS` evenly spaced stretches of rows, the last ending at the last row.
const HEAD_BYTES: usize = 1 << 20;
const WINDOWS: u64 = 32;
const WINDOW_BYTES: u64 = 64 << 10;
const WHOLE_REST_BYTES: u64 = 4 << 20;
const MAX_SAMPLE_ROWS: usize = 60_000;

/// The inference sample of `input`: its rows as the text the CSV path would read.
pub fn sample(input: &Input) -> Result<Sample> {
    let mut sample = Sample {
        names: input.names.clone(),
        header_text: input.text.clone(),
        source_name: input.name.clone(),
        ..Sample::default()
    };
    for (text, name) in &input.renamed {
        sample
            .notes
            .push(format!("column \"{}\" is called `{name}`", text.escape_debug()));
    }
    let total = input.rows;
    let head_rows = total.min(MAX_SAMPLE_ROWS as u64);
    let mut bytes = 0usize;
    let mut taken = 0u64;
    let head = if head_rows > 0 {
        input.batches(Some(&[(0, head_rows)]), None)?
    } else {
        Box::new(std::iter::empty())
    };
    for batch in head {
        let batch = batch?;
        let (n, b) = sample_rows(&batch, &mut sample.rows, Some(HEAD_BYTES.saturating_sub(bytes)));
        taken += n as u64;
        bytes += b;
        if n < batch.num_rows() || bytes >= HEAD_BYTES {
            break;
        }
    }
    let per_row = (bytes as u64 / taken.max(1)).max(1);
    let rest = total - taken;
    let whole = rest * per_row <= WHOLE_REST_BYTES && taken + rest <= MAX_SAMPLE_ROWS as u64;
    let ranges: Vec<(u64, u64)> = if rest == 0 {
        Vec::new()
    } else if whole {
        vec![(taken, total)]
    } else {
        let share = (MAX_SAMPLE_ROWS as u64).saturating_sub(taken) / WINDOWS;
        let want = (WINDOW_BYTES / per_row).min(share).max(4).min(rest);
        let span = rest - want;
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for k in 0..WINDOWS {
            let from = taken + span * k / (WINDOWS - 1);
            match ranges.last_mut() {
                Some(last) if last.1 >= from => last.1 = last.1.max(from + want),
                _ => ranges.push((from, from + want)),
            }
        }
        ranges
    };
    for &range in &ranges {
        if !whole {
            // A stretch read from elsewhere in the input: times are contiguous only inside one.
            sample.segment_starts.push(sample.rows.len());
        }
        for batch in input.batches(Some(&[range]), None)? {
            bytes += sample_rows(&batch?, &mut sample.rows, None).1;
        }
    }
    sample.spread = !ranges.is_empty() && !whole;
    sample.bytes = bytes as u64;
    // As if the input were this text: the row estimates the inference makes come out exact.
    sample.source_len_bytes = per_row * total;
    Ok(sample)
}

/// Appends the rows of `batch` to `rows` as the text of their fields, until `budget` bytes of
/// text (when given); returns the rows and bytes taken.
fn sample_rows(batch: &RecordBatch, rows: &mut SampleRows, budget: Option<usize>) -> (usize, usize) {
    let columns: Vec<ColumnText> = batch.columns().iter().map(|a| column_text(a, false)).collect();
    let mut from = vec![0usize; columns.len()];
    let mut bytes = 0;
    for r in 0..batch.num_rows() {
        if budget.is_some_and(|b| bytes >= b) {
            return (r, bytes);
        }
        let fields: Vec<&[u8]> = columns
            .iter()
            .zip(from.iter_mut())
            .map(|(c, from)| {
                let end = c.ends[r] as usize;
                let field = &c.bytes[*from..end];
                *from = end;
                field
            })
            .collect();
        bytes += fields.iter().map(|f| f.len() + 1).sum::<usize>();
        if fields.iter().all(|f| f.is_empty()) {
            // As a blank CSV line is no sample record (the import rejects the row: no time).
            continue;
        }
        if !rows.push(fields) {
            return (r, bytes);
        }
    }
    (batch.num_rows(), bytes)
}

/// Row `r` of `batch` as the CSV line the CSV path would have read (for the rejects file).
pub fn row_csv(batch: &RecordBatch, r: usize) -> Vec<u8> {
    let mut line = Vec::new();
    let mut field = Vec::new();
    for (k, array) in batch.columns().iter().enumerate() {
        if k > 0 {
            line.push(b',');
        }
        field.clear();
        cell_text(array, r, &mut field);
        write_csv_str(&mut line, &field, b',');
    }
    line
}

/// The text of row `r` of `array` (empty for a null), as `column_text` writes it.
pub fn cell_text(array: &ArrayRef, r: usize, out: &mut Vec<u8>) {
    let one = array.slice(r, 1);
    let t = column_text(&one, false);
    out.extend_from_slice(&t.bytes);
}

/// One column's values as text: `ends[r]` is where value `r` ends in `bytes` (a null is
/// empty).
pub struct ColumnText {
    pub bytes: Vec<u8>,
    pub ends: Vec<u32>,
    /// Length in bytes of the longest text value (0 for other types).
    longest: usize,
    texts: usize,
    distinct: Option<Distinct>,
    /// The first few distinct values, checked before `distinct`.
    first: Vec<Box<[u8]>>,
    many: bool,
}

/// Distinct values of a column compared before they are hashed.
const FIRST_TEXTS: usize = 8;

/// Distinct texts of a column (FNV: short texts, hashed once per value).
type Distinct = HashSet<Vec<u8>, crate::db::syms::FnvBuild>;

impl ColumnText {
    /// Value `r`.
    #[inline]
    pub fn get(&self, r: usize) -> &[u8] {
        let start = if r == 0 { 0 } else { self.ends[r - 1] as usize };
        &self.bytes[start..self.ends[r] as usize]
    }
}

/// The values of `array` as text, one typed loop per column: what the CSV path reads of
/// them (integers as they are, floats in their shortest round-trip form, decimals at their
/// scale, dates as `YYYY-MM-DD`, text as it is).
pub fn column_text(array: &ArrayRef, track: bool) -> ColumnText {
    let n = array.len();
    let mut c = ColumnText {
        bytes: Vec::with_capacity(n * 8),
        ends: Vec::with_capacity(n),
        longest: 0,
        texts: 0,
        distinct: track.then(Distinct::default),
        first: Vec::new(),
        many: false,
    };
    let nulls = array.logical_nulls();
    let valid = |r: usize| nulls.as_ref().is_none_or(|b| b.is_valid(r));
    macro_rules! ints {
        ($t:ty) => {{
            let a = array.as_primitive::<$t>();
            let mut buf = itoa::Buffer::new();
            for (r, &v) in a.values().iter().enumerate() {
                if valid(r) {
                    c.bytes.extend_from_slice(buf.format(v).as_bytes());
                }
                c.ends.push(c.bytes.len() as u32);
            }
        }};
    }
    macro_rules! floats {
        ($t:ty) => {{
            let a = array.as_primitive::<$t>();
            for (r, v) in a.values().iter().enumerate() {
                if valid(r) {
                    // Display: the shortest text that reads back as the same value.
                    let _ = write!(c.bytes, "{v}");
                }
                c.ends.push(c.bytes.len() as u32);
            }
        }};
    }
    macro_rules! decimals {
        ($t:ty, $scale:expr) => {{
            let a = array.as_primitive::<$t>();
            for (r, &v) in a.values().iter().enumerate() {
                if valid(r) {
                    write_scaled(&mut c.bytes, i128::from(v), $scale);
                }
                c.ends.push(c.bytes.len() as u32);
            }
        }};
    }
    macro_rules! strings {
        ($a:expr) => {{
            let a = $a;
            for r in 0..n {
                if valid(r) {
                    let s = a.value(r).as_bytes();
                    c.text(s);
                }
                c.ends.push(c.bytes.len() as u32);
            }
        }};
    }
    match array.data_type() {
        DataType::Int8 => ints!(Int8Type),
        DataType::Int16 => ints!(Int16Type),
        DataType::Int32 => ints!(Int32Type),
        DataType::Int64 => ints!(Int64Type),
        DataType::UInt8 => ints!(UInt8Type),
        DataType::UInt16 => ints!(UInt16Type),
        DataType::UInt32 => ints!(UInt32Type),
        DataType::UInt64 => ints!(UInt64Type),
        DataType::Timestamp(TimeUnit::Second, _) => ints!(TimestampSecondType),
        DataType::Timestamp(TimeUnit::Millisecond, _) => ints!(TimestampMillisecondType),
        DataType::Timestamp(TimeUnit::Microsecond, _) => ints!(TimestampMicrosecondType),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => ints!(TimestampNanosecondType),
        DataType::Float16 => floats!(Float16Type),
        DataType::Float32 => floats!(Float32Type),
        DataType::Float64 => floats!(Float64Type),
        DataType::Boolean => {
            let a = array.as_boolean();
            for r in 0..n {
                if valid(r) {
                    c.bytes
                        .extend_from_slice(if a.value(r) { b"true" } else { b"false" });
                }
                c.ends.push(c.bytes.len() as u32);
            }
        }
        DataType::Decimal128(_, scale) => decimals!(arrow_array::types::Decimal128Type, *scale),
        DataType::Decimal64(_, scale) => decimals!(arrow_array::types::Decimal64Type, *scale),
        DataType::Decimal32(_, scale) => decimals!(arrow_array::types::Decimal32Type, *scale),
        DataType::Date32 => {
            let a = array.as_primitive::<arrow_array::types::Date32Type>();
            for (r, &days) in a.values().iter().enumerate() {
                if valid(r) {
                    let at = c.bytes.len();
                    match chrono::NaiveDate::from_num_days_from_ce_opt(days + 719_163) {
                        Some(d) => {
                            let _ = write!(c.bytes, "{}", d.format("%Y-%m-%d"));
                        }
                        None => {
                            let _ = write!(c.bytes, "{days}");
                        }
                    }
                    c.longest = c.longest.max(10);
                    c.count(at);
                }
                c.ends.push(c.bytes.len() as u32);
            }
        }
        DataType::Utf8 => strings!(array.as_string::<i32>()),
        DataType::LargeUtf8 => strings!(array.as_string::<i64>()),
        DataType::Utf8View => strings!(array.as_string_view()),
        DataType::Dictionary(..) => {
            // The dictionary's values once, then each key picks its text.
            let dict = array.as_any_dictionary();
            let values = column_text(dict.values(), false);
            let keys = dict.normalized_keys();
            for (r, &key) in keys.iter().enumerate() {
                if valid(r) {
                    let start = if key == 0 {
                        0
                    } else {
                        values.ends[key - 1] as usize
                    };
                    let end = values.ends[key] as usize;
                    let text = &values.bytes[start..end];
                    let at = c.bytes.len();
                    c.bytes.extend_from_slice(text);
                    c.longest = c.longest.max(text.len());
                    c.count(at);
                }
                c.ends.push(c.bytes.len() as u32);
            }
        }
        // `plan_columns` refused every other type.
        _ => c.ends.resize(n, 0),
    }
    c
}

impl ColumnText {
    /// Appends a text value and counts it.
    #[inline]
    fn text(&mut self, s: &[u8]) {
        let at = self.bytes.len();
        self.bytes.extend_from_slice(s);
        self.longest = self.longest.max(s.len());
        self.count(at);
    }

    /// Counts the non-empty value written from `at` towards the column's distinct values.
    #[inline]
    fn count(&mut self, at: usize) {
        let field = &self.bytes[at..];
        if field.is_empty() {
            return;
        }
        self.texts += 1;
        if let Some(seen) = self.distinct.as_mut() {
            // A text column that repeats repeats a few values: compared, not hashed.
            if self.first.iter().any(|t| **t == *field) {
                return;
            }
            if !seen.contains(field) {
                seen.insert(field.to_vec());
                if self.first.len() < FIRST_TEXTS {
                    self.first.push(field.into());
                }
                if seen.len() > MAX_DISTINCT {
                    self.distinct = None;
                    self.many = true;
                }
            }
        }
    }
}

/// `v / 10^scale` with exactly `scale` decimals.
fn write_scaled(out: &mut Vec<u8>, v: i128, scale: i8) {
    let scale = scale.max(0) as u32;
    if v < 0 {
        out.push(b'-');
    }
    let m = v.unsigned_abs();
    let p = 10u128.pow(scale);
    let _ = write!(out, "{}", m / p);
    if scale > 0 {
        let _ = write!(out, ".{:0width$}", m % p, width = scale as usize);
    }
}

/// Adds the types of `plan` to `types`; the same column typed differently by two inputs is
/// refused.
fn merge_types(
    types: &mut Vec<(String, ColumnType)>,
    what: &str,
    plan: &Plan,
    longest: &[usize],
    repeated: &[bool],
) -> Result<()> {
    for (k, c) in plan.columns.iter().enumerate() {
        if c.is_time {
            continue;
        }
        let ty = match c.ty {
            Some(ty) => ty,
            // Repeated text: as the CSV inference types it.
            None if repeated.get(k).copied().unwrap_or(false) => ColumnType::Sym,
            None => {
                // Text: room for the longest value.
                let n = longest
                    .get(k)
                    .copied()
                    .unwrap_or(0)
                    .clamp(1, usize::from(MAX_STR_LEN));
                ColumnType::Str(n as u16)
            }
        };
        match types.iter_mut().find(|(name, _)| *name == c.name) {
            None => types.push((c.name.clone(), ty)),
            Some((_, ColumnType::Str(n))) if matches!(ty, ColumnType::Str(_)) => {
                if let ColumnType::Str(m) = ty {
                    *n = (*n).max(m);
                }
            }
            // Text repeated in one input is text of any length in all.
            Some((_, known)) if known.is_text() && ty.is_text() => *known = ColumnType::Sym,
            Some((_, known)) if *known == ty => {}
            Some((_, known)) => {
                return Err(Error::Invalid(format!(
                "{what}: column `{}` is {ty} here but {known} in an earlier input; import them separately",
                c.name
            )))
            }
        }
    }
    Ok(())
}
