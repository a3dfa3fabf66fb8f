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
/// `infer` asks of a `sym` column.
fn write_csv(
    path: &Path,
    plan: &Plan,
    batches: Box<dyn Iterator<Item = Result<RecordBatch>>>,
) -> Result<(u64, Vec<usize>, Vec<bool>)> {
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
    let mut longest = vec![0usize; plan.columns.len()];
    // Per text column: its distinct values (as written), until there are too many to repeat.
    let mut distinct: Vec<Option<HashSet<Vec<u8>>>> = plan
        .columns
        .iter()
        .map(|c| (c.ty.is_none() && !c.is_time).then(HashSet::new))
        .collect();
    let mut texts = vec![0usize; plan.columns.len()];
    let mut rows = 0u64;
    for batch in batches {
        let batch = batch?;
        let arrays: Vec<&ArrayRef> = batch.columns().iter().collect();
        for r in 0..batch.num_rows() {
            for (k, array) in arrays.iter().enumerate() {
                if k > 0 {
                    line.push(b',');
                }
                let at = line.len();
                let text = write_value(&mut line, array, r);
                longest[k] = longest[k].max(text);
                if let Some(seen) = distinct[k].as_mut().filter(|_| text > 0) {
                    texts[k] += 1;
                    if !seen.contains(&line[at..]) {
                        seen.insert(line[at..].to_vec());
                    }
                    if seen.len() > MAX_DISTINCT {
                        distinct[k] = None;
                    }
                }
            }
            line.push(b'\n');
            if line.len() >= 1 << 16 {
                out.write_all(&line).map_err(|e| Error::io("write", path, e))?;
                line.clear();
            }
            rows += 1;
        }
    }
    out.write_all(&line).map_err(|e| Error::io("write", path, e))?;
    out.flush().map_err(|e| Error::io("write", path, e))?;
    let repeated = distinct
        .iter()
        .zip(&texts)
        .map(|(seen, &n)| seen.as_ref().is_some_and(|s| infer::is_repeated(s.len(), n)))
        .collect();
    Ok((rows, longest, repeated))
}

/// Distinct values counted per text column; past them it is not `sym`.
const MAX_DISTINCT: usize = 1 << 16;

/// Appends value `r` of `array` as CSV text (a null is an empty field); returns the length in
/// bytes of a text value (0 for others), which sizes its `str(N)`.
fn write_value(out: &mut Vec<u8>, array: &ArrayRef, r: usize) -> usize {
    if array.is_null(r) {
        return 0;
    }
    let text = |out: &mut Vec<u8>, s: &str| {
        write_csv_str(out, s.as_bytes(), b',');
        s.len()
    };
    macro_rules! number {
        ($t:ty) => {{
            let v = array.as_primitive::<$t>().value(r);
            let _ = write!(out, "{v}");
        }};
    }
    match array.data_type() {
        DataType::Int8 => number!(Int8Type),
        DataType::Int16 => number!(Int16Type),
        DataType::Int32 => number!(Int32Type),
        DataType::Int64 => number!(Int64Type),
        DataType::UInt8 => number!(UInt8Type),
        DataType::UInt16 => number!(UInt16Type),
        DataType::UInt32 => number!(UInt32Type),
        DataType::UInt64 => number!(UInt64Type),
        DataType::Float16 => number!(Float16Type),
        DataType::Float32 => number!(Float32Type),
        DataType::Float64 => number!(Float64Type),
        DataType::Timestamp(TimeUnit::Second, _) => number!(TimestampSecondType),
        DataType::Timestamp(TimeUnit::Millisecond, _) => number!(TimestampMillisecondType),
        DataType::Timestamp(TimeUnit::Microsecond, _) => number!(TimestampMicrosecondType),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => number!(TimestampNanosecondType),
        DataType::Boolean => out.extend_from_slice(if array.as_boolean().value(r) {
            b"true"
        } else {
            b"false"
        }),
        DataType::Decimal128(_, scale) => write_scaled(
            out,
            array
                .as_primitive::<arrow_array::types::Decimal128Type>()
                .value(r),
            *scale,
        ),
        DataType::Decimal64(_, scale) => write_scaled(
            out,
            i128::from(array.as_primitive::<arrow_array::types::Decimal64Type>().value(r)),
            *scale,
        ),
        DataType::Decimal32(_, scale) => write_scaled(
            out,
            i128::from(array.as_primitive::<arrow_array::types::Decimal32Type>().value(r)),
            *scale,
        ),
        DataType::Date32 => {
            let days = array.as_primitive::<arrow_array::types::Date32Type>().value(r);
            match chrono::NaiveDate::from_num_days_from_ce_opt(days + 719_163) {
                Some(d) => {
                    let _ = write!(out, "{}", d.format("%Y-%m-%d"));
                }
                None => {
                    let _ = write!(out, "{days}");
                }
            }
            return 10;
        }
        DataType::Utf8 => return text(out, array.as_string::<i32>().value(r)),
        DataType::LargeUtf8 => return text(out, array.as_string::<i64>().value(r)),
        DataType::Utf8View => return text(out, array.as_string_view().value(r)),
        DataType::Dictionary(..) => {
            let dict = array.as_any_dictionary();
            let key = dict.normalized_keys()[r];
            return write_value(out, dict.values(), key);
        }
        _ => {}
    }
    0
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
