//! Parquet files and Arrow IPC files or streams as import input. Each is read with arrow-rs and
//! written out once as CSV text that reads back exactly — integers as they are, floats in their
//! shortest round-trip form, decimals at their scale, the time column as epoch numbers in its
//! own unit — into a temporary file that the CSV import then loads with all its semantics
//! (upsert, keys, rejects). The Arrow schema's types become the column types of a new database,
//! so nothing is left to guessing but the layout.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

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
use crate::import::infer;
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

/// The columnar inputs of an import, each written out as CSV.
#[derive(Debug, Default)]
pub struct Transcoded {
    /// The inputs to import: CSV inputs as given, columnar ones replaced by their CSV copies.
    pub files: Vec<PathBuf>,
    /// Each CSV copy and the input it came from, for messages and the rejects file.
    pub names: Vec<(PathBuf, String)>,
    /// The column types the inputs' schemas give (for a new database).
    pub types: Vec<(String, ColumnType)>,
    /// The time column (the first timestamp column) and the unit its epoch numbers are in.
    pub time: Option<(String, EpochUnit)>,
    /// What was read, for the report: one line per columnar input.
    pub notes: Vec<String>,
    /// The directory of the copies, removed with this value.
    dir: Option<PathBuf>,
}

impl Drop for Transcoded {
    fn drop(&mut self) {
        if let Some(dir) = &self.dir {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

/// Writes every Parquet or Arrow input of `inputs` (stdin too) out as CSV in a temporary
/// directory; `time_column` names the time column when the caller knows it.
pub fn transcode_inputs(inputs: &[PathBuf], time_column: Option<&str>) -> Result<Transcoded> {
    let mut out = Transcoded::default();
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
                None => {
                    out.files.push(input.clone());
                    continue;
                }
            }
        } else {
            let mut head = [0u8; 8];
            let n = match File::open(input) {
                Ok(mut f) if !input.is_dir() => {
                    read_head(&mut f, &mut head).map_err(|e| Error::io("read", input, e))?
                }
                _ => 0,
            };
            match Kind::sniff(&head[..n]) {
                Some(kind) => (kind, None),
                None => {
                    out.files.push(input.clone());
                    continue;
                }
            }
        };
        let dir = match &out.dir {
            Some(dir) => dir.clone(),
            None => {
                let dir = temp_dir()?;
                out.dir = Some(dir.clone());
                dir
            }
        };
        let name = if input.as_os_str() == "-" {
            "-".to_string()
        } else {
            input.display().to_string()
        };
        let copy = dir.join(format!("{}.csv", out.files.len()));
        let fail = |e: &dyn std::fmt::Display| {
            Error::Invalid(format!("{name}: not a readable {}: {e}", kind.name()))
        };
        let open = || File::open(input).map_err(|e| Error::io("open", input, e));
        let reader: Box<dyn RecordBatchReader> = match (kind, bytes) {
            (Kind::Parquet, Some(bytes)) => {
                Box::new(parquet_reader(bytes::Bytes::from(bytes)).map_err(|e| fail(&e))?)
            }
            (Kind::Parquet, None) => Box::new(parquet_reader(open()?).map_err(|e| fail(&e))?),
            (Kind::ArrowFile, bytes) => {
                let source: Box<dyn ReadSeek> = match bytes {
                    Some(bytes) => Box::new(io::Cursor::new(bytes)),
                    None => Box::new(open()?),
                };
                Box::new(arrow_ipc::reader::FileReader::try_new(source, None).map_err(|e| fail(&e))?)
            }
            (Kind::ArrowStream, bytes) => {
                let source: Box<dyn Read> = match bytes {
                    Some(bytes) => Box::new(io::Cursor::new(bytes)),
                    None => Box::new(io::BufReader::new(open()?)),
                };
                Box::new(arrow_ipc::reader::StreamReader::try_new(source, None).map_err(|e| fail(&e))?)
            }
        };
        let schema = reader.schema();
        let damaged = name.clone();
        let batches = Box::new(reader.map(move |b| {
            b.map_err(|e| Error::Invalid(format!("{damaged}: a damaged {} record batch: {e}", kind.name())))
        }));
        let plan = plan_columns(&name, &schema, time_column)?;
        let (rows, longest, repeated) = write_csv(&copy, &plan, batches)?;
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
        out.names.push((copy.clone(), name));
        out.files.push(copy);
    }
    Ok(out)
}

fn parquet_reader<T: parquet::file::reader::ChunkReader + 'static>(
    source: T,
) -> parquet::errors::Result<parquet::arrow::arrow_reader::ParquetRecordBatchReader> {
    parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(source)?
        .with_batch_size(8192)
        .build()
}

trait ReadSeek: Read + io::Seek {}
impl<T: Read + io::Seek> ReadSeek for T {}

fn read_head(file: &mut File, head: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < head.len() {
        match file.read(&mut head[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// A fresh private directory for the CSV copies.
fn temp_dir() -> Result<PathBuf> {
    let base = std::env::temp_dir();
    for k in 0..1000u32 {
        let dir = base.join(format!("xs-import-{}-{k}", std::process::id()));
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Error::io("create", &dir, e)),
        }
    }
    Err(Error::Invalid(format!(
        "cannot make a temporary directory in {}; set TMPDIR to a writable directory",
        base.display()
    )))
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

/// Writes the header and every batch as CSV into `path`; returns the rows written and the
/// longest text of each column in bytes, and whether each text column's values repeat as
/// `infer` asks of a `sym` column. Batches are turned into text column by column (one typed
/// loop per column, no per-value dispatch), `PAR_BATCHES` at a time in parallel, and written
/// in input order.
fn write_csv(
    path: &Path,
    plan: &Plan,
    batches: Box<dyn Iterator<Item = Result<RecordBatch>>>,
) -> Result<(u64, Vec<usize>, Vec<bool>)> {
    use rayon::prelude::*;
    let file = File::create(path).map_err(|e| Error::io("create", path, e))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let mut line = Vec::with_capacity(1 << 16);
    for (k, c) in plan.columns.iter().enumerate() {
        if k > 0 {
            line.push(b',');
        }
        write_csv_str(&mut line, c.name.as_bytes(), b',');
    }
    line.push(b'\n');
    out.write_all(&line).map_err(|e| Error::io("write", path, e))?;
    let width = plan.columns.len();
    let mut longest = vec![0usize; width];
    // Per text column: its distinct values, until there are too many to repeat.
    let mut distinct: Vec<Option<HashSet<Vec<u8>>>> = plan
        .columns
        .iter()
        .map(|c| (c.ty.is_none() && !c.is_time).then(HashSet::new))
        .collect();
    let mut texts = vec![0usize; width];
    let mut rows = 0u64;
    let mut batches = batches.peekable();
    while batches.peek().is_some() {
        let group: Vec<RecordBatch> = batches.by_ref().take(PAR_BATCHES).collect::<Result<Vec<_>>>()?;
        let track: Vec<bool> = distinct.iter().map(Option::is_some).collect();
        let done: Vec<BatchText> = group.par_iter().map(|b| batch_text(b, &track)).collect();
        for t in done {
            out.write_all(&t.csv).map_err(|e| Error::io("write", path, e))?;
            rows += t.rows as u64;
            for k in 0..width {
                longest[k] = longest[k].max(t.longest[k]);
                texts[k] += t.texts[k];
                if let (Some(seen), Some(new)) = (distinct[k].as_mut(), t.distinct[k].as_ref()) {
                    seen.extend(new.iter().cloned());
                }
                if distinct[k].as_ref().is_some_and(|s| s.len() > MAX_DISTINCT) || t.many[k] {
                    distinct[k] = None;
                }
            }
        }
    }
    out.flush().map_err(|e| Error::io("write", path, e))?;
    let repeated = distinct
        .iter()
        .zip(&texts)
        .map(|(seen, &n)| seen.as_ref().is_some_and(|s| infer::is_repeated(s.len(), n)))
        .collect();
    Ok((rows, longest, repeated))
}

/// Record batches turned into text at a time, in parallel.
const PAR_BATCHES: usize = 8;

/// Distinct values counted per text column; past them it is not `sym`.
const MAX_DISTINCT: usize = 1 << 16;

/// One batch as CSV lines, and what its text columns hold.
struct BatchText {
    csv: Vec<u8>,
    rows: usize,
    longest: Vec<usize>,
    /// Non-null text values per column.
    texts: Vec<usize>,
    distinct: Vec<Option<HashSet<Vec<u8>>>>,
    /// More than `MAX_DISTINCT` distinct values in this batch alone.
    many: Vec<bool>,
}

/// One column's values as CSV fields: `ends[r]` is where value `r` ends in `bytes` (a null is
/// an empty field).
struct ColumnText {
    bytes: Vec<u8>,
    ends: Vec<u32>,
    /// Length in bytes of the longest text value (0 for other types).
    longest: usize,
    texts: usize,
    distinct: Option<HashSet<Vec<u8>>>,
    many: bool,
}

/// `batch` as CSV lines; `track[k]`: count column k's distinct values.
fn batch_text(batch: &RecordBatch, track: &[bool]) -> BatchText {
    let n = batch.num_rows();
    let columns: Vec<ColumnText> = batch
        .columns()
        .iter()
        .zip(track)
        .map(|(array, &track)| column_text(array, track))
        .collect();
    let total: usize = columns.iter().map(|c| c.bytes.len()).sum::<usize>() + n * columns.len();
    let mut csv = Vec::with_capacity(total);
    let mut from = vec![0usize; columns.len()];
    for r in 0..n {
        for (k, c) in columns.iter().enumerate() {
            if k > 0 {
                csv.push(b',');
            }
            let end = c.ends[r] as usize;
            csv.extend_from_slice(&c.bytes[from[k]..end]);
            from[k] = end;
        }
        csv.push(b'\n');
    }
    BatchText {
        csv,
        rows: n,
        longest: columns.iter().map(|c| c.longest).collect(),
        texts: columns.iter().map(|c| c.texts).collect(),
        many: columns.iter().map(|c| c.many).collect(),
        distinct: columns.into_iter().map(|c| c.distinct).collect(),
    }
}

/// The values of `array` as CSV fields, one typed loop per column.
fn column_text(array: &ArrayRef, track: bool) -> ColumnText {
    let n = array.len();
    let mut c = ColumnText {
        bytes: Vec::with_capacity(n * 8),
        ends: Vec::with_capacity(n),
        longest: 0,
        texts: 0,
        distinct: track.then(HashSet::new),
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
        DataType::Decimal128(_, scale) => {
            let a = array.as_primitive::<arrow_array::types::Decimal128Type>();
            for (r, &v) in a.values().iter().enumerate() {
                if valid(r) {
                    write_scaled(&mut c.bytes, v, *scale);
                }
                c.ends.push(c.bytes.len() as u32);
            }
        }
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
                    c.longest = c.longest.max(ColumnText::raw_len(text));
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
    /// Appends a text value as a CSV field and counts it.
    #[inline]
    fn text(&mut self, s: &[u8]) {
        let at = self.bytes.len();
        write_csv_str(&mut self.bytes, s, b',');
        self.longest = self.longest.max(s.len());
        self.count(at);
    }

    /// Counts the non-empty field written from `at` towards the column's distinct values.
    #[inline]
    fn count(&mut self, at: usize) {
        let field = &self.bytes[at..];
        if field.is_empty() {
            return;
        }
        self.texts += 1;
        if let Some(seen) = self.distinct.as_mut() {
            if !seen.contains(field) {
                seen.insert(field.to_vec());
                if seen.len() > MAX_DISTINCT {
                    self.distinct = None;
                    self.many = true;
                }
            }
        }
    }

    /// The length of the text a field (as written, perhaps quoted) holds.
    fn raw_len(field: &[u8]) -> usize {
        if field.first() == Some(&b'"') {
            // Quotes around it, and each inner quote doubled.
            let inner = &field[1..field.len() - 1];
            inner.len() - memchr::memchr_iter(b'"', inner).count() / 2
        } else {
            field.len()
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
