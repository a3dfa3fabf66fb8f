//! Columnar output: stored rows gathered into Arrow record batches, written as Parquet or as an
//! Arrow IPC file or stream (docs/OUTPUT.md). Types survive exactly: time is a UTC timestamp at
//! the granularity's precision, integers keep their width, floats their bits, nulls are nulls.
//!
//! Arrow output of a range is gathered in time slices by one worker a thread, column by column
//! from the rows each scan batch holds, and written in time order (`write_range`).
//!
//! Memory is bounded whatever the range: Arrow output holds at most `BATCHES_AHEAD` batches of
//! each of `threads + 1` slices, a batch of at most `BATCH_ROWS` rows and `BATCH_BYTES`;
//! Parquet holds at most `threads + 2` row groups of at most
//! `ROW_GROUP_ROWS` rows and `ROW_GROUP_BYTES` (plus their encoded column chunks, which are
//! smaller): the pool encodes up to `threads + 1` of them while the calling thread gathers the
//! next, and each is appended to the file in order as it comes back.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;

use arrow_array::builder::NullBufferBuilder;
use arrow_array::builder::{BooleanBuilder, Int32Builder, StringBuilder};
use arrow_array::types::{
    Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
    UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{ArrayRef, ArrowPrimitiveType, PrimitiveArray, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field as ArrowField, Schema as ArrowSchema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk, ArrowRowGroupWriterFactory};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;

use crate::db::config::Config;
use crate::db::schema::{le, ColumnType, FieldAt, Schema};
use crate::db::{Batch, BatchShape, Columns, Database, FlatRows, Scanned};
use crate::io::output::{any_sym, resolve_columns, str_bytes, Field};
use crate::io::stream::scan_where;
use crate::query::filter::Filter;

/// Rows per Arrow record batch (IPC output): 64 Ki rows, a few MB for typical rows.
pub const BATCH_ROWS: usize = 65_536;

/// Rows per Parquet row group: 256 Ki rows (Polars' default; DuckDB writes 122,880). Small
/// enough that row-group statistics prune a day of ticks finely and that a few groups fit in
/// memory while they are encoded in parallel, large enough that each column chunk compresses
/// well and a reader's per-group overhead stays small.
pub const ROW_GROUP_ROWS: usize = 262_144;

/// Most bytes of Arrow data in one batch (wide rows get fewer rows a batch).
pub const BATCH_BYTES: usize = 16 << 20;

/// Most bytes of Arrow data in one row group before it is encoded (wide rows, fewer rows).
pub const ROW_GROUP_BYTES: usize = 32 << 20;

/// zstd level of Parquet column chunks: level 1 is as fast as snappy here and smaller
/// (docs/BENCHMARKS.md, "Parquet compression").
const PARQUET_ZSTD_LEVEL: i32 = 1;

/// What the rows are written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    Parquet,
    /// The Arrow IPC file format (`.arrow`, Feather v2): a stream plus a footer.
    ArrowFile,
    /// The Arrow IPC stream format: what goes to a pipe, and `.arrows` files.
    ArrowStream,
}

/// A failed columnar write: the sink's I/O error (kept whole, so the caller can name the
/// file, or pass over a closed pipe), an encoder's complaint, or damage met in a row (a `sym`
/// code its dictionary lost).
#[derive(Debug)]
pub enum WriteError {
    Io(io::Error),
    Encode(String),
    Read(crate::error::Error),
}

/// The coarsest of s, ms, µs, ns that shows every multiple of `granularity_ns` exactly.
/// Parquet has no seconds: there, a whole-second granularity is written in ms.
fn time_unit(granularity_ns: i64, container: Container) -> (TimeUnit, i64) {
    if granularity_ns % 1_000_000_000 == 0 && container != Container::Parquet {
        (TimeUnit::Second, 1_000_000_000)
    } else if granularity_ns % 1_000_000 == 0 {
        (TimeUnit::Millisecond, 1_000_000)
    } else if granularity_ns % 1_000 == 0 {
        (TimeUnit::Microsecond, 1_000)
    } else {
        (TimeUnit::Nanosecond, 1)
    }
}

/// One output column's values while a batch fills.
enum Column {
    /// Times in the output unit.
    Time(Vec<i64>),
    I8(Prim<Int8Type>),
    I16(Prim<Int16Type>),
    I32(Prim<Int32Type>),
    I64(Prim<Int64Type>),
    U8(Prim<UInt8Type>),
    U16(Prim<UInt16Type>),
    U32(Prim<UInt32Type>),
    U64(Prim<UInt64Type>),
    F32(Prim<Float32Type>),
    F64(Prim<Float64Type>),
    Bool(BooleanBuilder),
    Str(StringBuilder),
    /// `dec(S)`: the stored i64 as a 128-bit decimal of precision 18 and scale S.
    Dec(Prim<Decimal128Type>, u8),
    /// `sym`: dictionary-encoded text (Int32 keys into Utf8 values).
    Sym(SymKeys),
    /// `sym` in an Arrow IPC file: plain text. A file holds one dictionary per field for all
    /// its batches, while each batch here builds its own (readers refuse a replacement).
    SymText(StringBuilder),
}

/// The Arrow type of a stored column and an empty builder for it: the one place that maps
/// xs's column types to Arrow's.
fn column_of(ty: ColumnType, capacity: usize) -> (DataType, Column) {
    match ty {
        // An i64 scaled by 10^S: exactly a Decimal128 of 18 digits (an i64 holds 18 in full).
        ColumnType::Dec(scale) => (
            DataType::Decimal128(18, scale as i8),
            Column::Dec(Prim::with_capacity(capacity), scale),
        ),
        ColumnType::I8 => (DataType::Int8, Column::I8(Prim::with_capacity(capacity))),
        ColumnType::I16 => (DataType::Int16, Column::I16(Prim::with_capacity(capacity))),
        ColumnType::I32 => (DataType::Int32, Column::I32(Prim::with_capacity(capacity))),
        ColumnType::I64 => (DataType::Int64, Column::I64(Prim::with_capacity(capacity))),
        ColumnType::U8 => (DataType::UInt8, Column::U8(Prim::with_capacity(capacity))),
        ColumnType::U16 => (DataType::UInt16, Column::U16(Prim::with_capacity(capacity))),
        ColumnType::U32 => (DataType::UInt32, Column::U32(Prim::with_capacity(capacity))),
        ColumnType::U64 => (DataType::UInt64, Column::U64(Prim::with_capacity(capacity))),
        ColumnType::F32 => (DataType::Float32, Column::F32(Prim::with_capacity(capacity))),
        ColumnType::F64 => (DataType::Float64, Column::F64(Prim::with_capacity(capacity))),
        ColumnType::Bool => (
            DataType::Boolean,
            Column::Bool(BooleanBuilder::with_capacity(capacity)),
        ),
        ColumnType::Sym => (
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            Column::Sym(SymKeys::default()),
        ),
        ColumnType::Str(n) => {
            // Text is mostly shorter than its N; start at a quarter and let it grow.
            let bytes = capacity * (usize::from(n) / 4).max(1);
            (
                DataType::Utf8,
                Column::Str(StringBuilder::with_capacity(capacity, bytes)),
            )
        }
    }
}

/// Gathers rows of one database into Arrow record batches of the asked-for columns.
pub struct BatchBuilder {
    schema: SchemaRef,
    fields: Vec<Field>,
    columns: Vec<Column>,
    unit: TimeUnit,
    unit_ns: i64,
    rows: usize,
    capacity: usize,
    row_len: usize,
    /// How the scan batches it takes are laid out.
    shape: BatchShape,
    /// For `sym` columns: the schema, whose dictionary gives their text.
    syms: Option<(crate::db::schema::Schema, Arc<crate::db::syms::Snapshot>)>,
    /// Rows a batch does not hold back to back, gathered before they are appended
    /// (`BatchShape::flat`).
    scratch: FlatRows,
}

impl BatchBuilder {
    /// Batches of `columns` (`None`: time, then every column) as `container` stores them;
    /// `Err` names an unknown column.
    pub fn new(
        config: &Config,
        columns: Option<&[String]>,
        container: Container,
        capacity: usize,
    ) -> Result<BatchBuilder, String> {
        let (names, fields) = resolve_columns(config, columns)?;
        let prints_sym = any_sym(&fields);
        let (unit, unit_ns) = time_unit(config.granularity.ns(), container);
        let mut arrow_fields = Vec::with_capacity(fields.len());
        let mut builders = Vec::with_capacity(fields.len());
        for (name, field) in names.iter().zip(&fields) {
            let (ty, column, nullable) = match field {
                Field::Time => (
                    DataType::Timestamp(unit, Some("UTC".into())),
                    Column::Time(Vec::with_capacity(capacity)),
                    false,
                ),
                Field::Column(f) if f.ty == ColumnType::Sym && container == Container::ArrowFile => (
                    DataType::Utf8,
                    Column::SymText(StringBuilder::with_capacity(capacity, capacity * 8)),
                    true,
                ),
                Field::Column(f) => {
                    let (ty, column) = column_of(f.ty, capacity);
                    (ty, column, true)
                }
            };
            if arrow_fields.iter().any(|f: &ArrowField| f.name() == name) {
                return Err(format!(
                    "--columns names `{name}` twice; Parquet and Arrow need distinct column names"
                ));
            }
            arrow_fields.push(ArrowField::new(name, ty, nullable));
            builders.push(column);
        }
        Ok(BatchBuilder {
            schema: Arc::new(ArrowSchema::new(arrow_fields)),
            fields,
            columns: builders,
            unit,
            unit_ns,
            rows: 0,
            capacity,
            row_len: config.schema.row_len(),
            shape: BatchShape::of(config),
            // Read only when a column needs it (see `RowFormatter::new`).
            syms: config
                .schema
                .syms()
                .filter(|_| prints_sym)
                .map(|d| (config.schema.clone(), d.snapshot_or_empty())),
            scratch: FlatRows::default(),
        })
    }

    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// Rows gathered since the last `finish`.
    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Whether the batch has its planned size.
    pub fn is_full(&self) -> bool {
        self.rows >= self.capacity
    }

    /// Adds one row stored at `t_ns`. A `sym` code its dictionary lost is an error; the row is
    /// still added whole (that field null), so the batch stays rectangular, but it must not be
    /// written: the caller stops.
    pub fn push(&mut self, t_ns: i64, row: &[u8]) -> Result<(), WriteError> {
        self.append(&[t_ns], Source::Rows(row))
    }

    /// Adds rows (one per time of `times`) column by column from `source`: each column's
    /// values are gathered in one tight loop and appended as a slice, where a builder call per
    /// value cost most of the time of Arrow output. Errors as `push`.
    fn append(&mut self, times: &[i64], source: Source<'_>) -> Result<(), WriteError> {
        let row_len = self.row_len;
        let mut lost = None;
        for (field, column) in self.fields.iter().zip(self.columns.iter_mut()) {
            let f = match field {
                Field::Time => {
                    if let Column::Time(out) = column {
                        // A division by a constant is a multiply; by a variable, ~30 cycles a row.
                        macro_rules! by {
                            ($unit:literal) => {
                                out.extend(times.iter().map(|t| t.div_euclid($unit)))
                            };
                        }
                        match self.unit_ns {
                            1 => out.extend_from_slice(times),
                            1_000 => by!(1_000),
                            1_000_000 => by!(1_000_000),
                            _ => by!(1_000_000_000),
                        }
                    }
                    continue;
                }
                Field::Column(f) => f,
            };
            let (values, heads) = source.of(f, row_len);
            // The text of a `sym` code, into a dictionary or a plain text builder.
            macro_rules! put_sym {
                ($builder:expr) => {{
                    let c = $builder;
                    for ((v, head), &t_ns) in values.iter().zip(heads.iter()).zip(times) {
                        if f.is_null(head) {
                            c.append_null();
                            continue;
                        }
                        let code = u32::from_le_bytes(le(v));
                        match self.syms.as_ref().and_then(|(_, snap)| snap.text(code)) {
                            Some(text) => c.append_value(text),
                            None => match sym_reloaded(self.syms.as_ref(), code, f.col, t_ns) {
                                Ok(text) => c.append_value(&*text),
                                Err(e) => {
                                    c.append_null();
                                    lost.get_or_insert(e);
                                }
                            },
                        }
                    }
                }};
            }
            match column {
                Column::Time(_) => {}
                Column::I8(c) => c.gather(f, values, heads, i8::from_le_bytes),
                Column::I16(c) => c.gather(f, values, heads, i16::from_le_bytes),
                Column::I32(c) => c.gather(f, values, heads, i32::from_le_bytes),
                Column::I64(c) => c.gather(f, values, heads, i64::from_le_bytes),
                Column::U8(c) => c.gather(f, values, heads, |[b]: [u8; 1]| b),
                Column::U16(c) => c.gather(f, values, heads, u16::from_le_bytes),
                Column::U32(c) => c.gather(f, values, heads, u32::from_le_bytes),
                Column::U64(c) => c.gather(f, values, heads, u64::from_le_bytes),
                Column::F32(c) => c.gather(f, values, heads, f32::from_le_bytes),
                Column::F64(c) => c.gather(f, values, heads, f64::from_le_bytes),
                Column::Dec(c, _) => c.gather(f, values, heads, |b| i128::from(i64::from_le_bytes(b))),
                Column::Bool(c) => {
                    let mut bools = Vec::with_capacity(times.len());
                    values.extend_into(&mut bools, |[b]: [u8; 1]| b != 0);
                    match validity(f, heads) {
                        None => c.append_slice(&bools),
                        Some(valid) => c.append_values(&bools, &valid).map_err(encode)?,
                    }
                }
                Column::Sym(c) => {
                    let mut valid = validity(f, heads);
                    // First each code's key if this batch met it already (-1 if not), in a
                    // loop with no branch; then the few rows left: a code met for the first
                    // time, a lost one, or a null row's.
                    let mut keys = std::mem::take(&mut c.scratch);
                    keys.clear();
                    values.extend_into(&mut keys, |v: [u8; 4]| c.met_key(u32::from_le_bytes(v)));
                    for (i, key) in keys.iter_mut().enumerate() {
                        if *key >= 0 {
                            continue;
                        }
                        *key = 0;
                        if valid.as_ref().is_some_and(|v| !v[i]) {
                            continue;
                        }
                        let code = u32::from_le_bytes(le(values.at(i)));
                        match c.key(code, self.syms.as_ref(), f.col, times[i]) {
                            Ok(k) => *key = k,
                            Err(e) => {
                                valid.get_or_insert_with(|| vec![true; times.len()])[i] = false;
                                lost.get_or_insert(e);
                            }
                        }
                    }
                    match &valid {
                        None => c.keys.append_slice(&keys),
                        Some(valid) => c.keys.append_values(&keys, valid),
                    }
                    c.scratch = keys;
                }
                Column::SymText(c) => put_sym!(c),
                Column::Str(c) => {
                    for (v, head) in values.iter().zip(heads.iter()) {
                        let text = str_bytes(v);
                        // xs stores an empty string as null (docs/FORMAT.md).
                        if f.is_null(head) || text.is_empty() {
                            c.append_null();
                        } else {
                            match std::str::from_utf8(text) {
                                Ok(s) => c.append_value(s),
                                // A damaged file: Arrow text must stay valid UTF-8.
                                Err(_) => c.append_value(String::from_utf8_lossy(text)),
                            }
                        }
                    }
                }
            }
        }
        self.rows += times.len();
        lost.map_or(Ok(()), |e| Err(WriteError::Read(e)))
    }

    /// Adds the rows of a scan piece from its row `skip` on, at most `max_rows` and no more
    /// than fill the batch; returns how many it took: the caller flushes a full batch and
    /// hands the rest again. A columnar record's columns are taken as they are.
    pub fn push_piece(
        &mut self,
        piece: &Scanned<'_>,
        skip: usize,
        max_rows: u64,
    ) -> Result<usize, WriteError> {
        match piece {
            Scanned::Batch(batch) => self.push_batch(batch, skip, max_rows),
            Scanned::Columns(columns) => {
                let room = (self.capacity.saturating_sub(self.rows) as u64).min(max_rows) as usize;
                let times = columns.times;
                let from = skip.min(times.len());
                let to = from + room.min(times.len() - from);
                self.append(&times[from..to], Source::Columns(columns, from..to))?;
                Ok(to - from)
            }
            // The scans this builder reads hand out no summaries: a summary holds no rows.
            Scanned::Summary(_) => Ok(0),
        }
    }

    /// The value columns (by schema index) the batches show, for `db::with_columns`: `None`
    /// when they show every column.
    fn columns_read(&self, columns: usize) -> Option<Vec<bool>> {
        let mut read = vec![false; columns];
        for field in &self.fields {
            if let Field::Column(f) = field {
                read[f.col] = true;
            }
        }
        (!read.iter().all(|&r| r)).then_some(read)
    }

    /// Adds the rows of a scan batch from its row `skip` on, at most `max_rows` and no more
    /// than fill the batch; returns how many it took: the caller flushes a full batch and
    /// hands the rest again.
    pub fn push_batch(&mut self, batch: &Batch<'_>, skip: usize, max_rows: u64) -> Result<usize, WriteError> {
        let room = (self.capacity.saturating_sub(self.rows) as u64).min(max_rows) as usize;
        let mut scratch = std::mem::take(&mut self.scratch);
        let (times, rows) = self.shape.flat(*batch, skip, room, &mut scratch);
        let taken = times.len();
        let result = self.append(times, Source::Rows(rows));
        self.scratch = scratch;
        result.map(|()| taken)
    }

    /// The rows gathered so far as a record batch; the builder starts a new one.
    pub fn finish(&mut self) -> Result<RecordBatch, WriteError> {
        let rows = std::mem::take(&mut self.rows);
        let cap = self.capacity;
        let arrays: Vec<ArrayRef> = self
            .columns
            .iter_mut()
            .map(|column| -> ArrayRef {
                match column {
                    Column::Time(times) => {
                        let times = std::mem::replace(times, Vec::with_capacity(rows));
                        match self.unit {
                            TimeUnit::Second => Arc::new(
                                PrimitiveArray::<TimestampSecondType>::from(times).with_timezone("UTC"),
                            ),
                            TimeUnit::Millisecond => Arc::new(
                                PrimitiveArray::<TimestampMillisecondType>::from(times).with_timezone("UTC"),
                            ),
                            TimeUnit::Microsecond => Arc::new(
                                PrimitiveArray::<TimestampMicrosecondType>::from(times).with_timezone("UTC"),
                            ),
                            TimeUnit::Nanosecond => Arc::new(
                                PrimitiveArray::<TimestampNanosecondType>::from(times).with_timezone("UTC"),
                            ),
                        }
                    }
                    Column::I8(c) => Arc::new(c.finish(cap)),
                    Column::I16(c) => Arc::new(c.finish(cap)),
                    Column::I32(c) => Arc::new(c.finish(cap)),
                    Column::I64(c) => Arc::new(c.finish(cap)),
                    Column::U8(c) => Arc::new(c.finish(cap)),
                    Column::U16(c) => Arc::new(c.finish(cap)),
                    Column::U32(c) => Arc::new(c.finish(cap)),
                    Column::U64(c) => Arc::new(c.finish(cap)),
                    Column::F32(c) => Arc::new(c.finish(cap)),
                    Column::F64(c) => Arc::new(c.finish(cap)),
                    Column::Bool(c) => Arc::new(renew(c, BooleanBuilder::with_capacity(cap)).finish()),
                    Column::Str(c) => Arc::new(c.finish()),
                    Column::Sym(c) => Arc::new(c.finish(cap)),
                    Column::SymText(c) => {
                        Arc::new(renew(c, StringBuilder::with_capacity(cap, cap * 8)).finish())
                    }
                    Column::Dec(c, scale) => Arc::new(
                        c.finish(cap)
                            .with_precision_and_scale(18, *scale as i8)
                            .expect("precision 18 holds every scale 0..=18"),
                    ),
                }
            })
            .collect();
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(self.schema(), arrays, &options).map_err(encode)
    }
}

/// The builder a batch filled, `fresh` (sized for a whole batch) left in its place: a finished
/// builder starts empty and would grow by doubling, copying and faulting in new pages each time.
fn renew<B>(builder: &mut B, fresh: B) -> B {
    std::mem::replace(builder, fresh)
}

/// A batch's `sym` column as dictionary keys: each code met gets the next key and its text
/// one entry in the batch's dictionary, so a row costs a lookup by code, not a hash of its text.
#[derive(Default)]
struct SymKeys {
    keys: Int32Builder,
    values: StringBuilder,
    /// Key + 1 of each code of the dictionary snapshot met in this batch (0: not met yet).
    key_of: Vec<i32>,
    /// The codes `key_of` holds, to clear it for the next batch.
    met: Vec<u32>,
    /// Codes past the snapshot (added while this read ran), with their keys: a few at most.
    late: Vec<(u32, i32)>,
    /// The keys of the rows being appended.
    scratch: Vec<i32>,
}

impl SymKeys {
    /// The key of `code` if this batch met it already, else -1.
    #[inline]
    fn met_key(&self, code: u32) -> i32 {
        self.key_of.get(code as usize).copied().unwrap_or(0) - 1
    }

    /// The key of `code` in this batch, its text added to the dictionary the first time; a
    /// code the dictionary lost is an error naming the column and the row's time.
    fn key(
        &mut self,
        code: u32,
        syms: Option<&(Schema, Arc<crate::db::syms::Snapshot>)>,
        col: usize,
        t_ns: i64,
    ) -> crate::error::Result<i32> {
        if let Some(&key) = self.key_of.get(code as usize).filter(|&&k| k > 0) {
            return Ok(key - 1);
        }
        let next = i32::try_from(arrow_array::builder::ArrayBuilder::len(&self.values)).unwrap_or(i32::MAX);
        if let Some((_, snap)) = syms {
            if let Some(text) = snap.text(code) {
                if self.key_of.len() < snap.len() {
                    self.key_of.resize(snap.len(), 0);
                }
                self.values.append_value(text);
                self.met.push(code);
                self.key_of[code as usize] = next + 1;
                return Ok(next);
            }
        }
        if let Some(&(_, key)) = self.late.iter().find(|(c, _)| *c == code) {
            return Ok(key);
        }
        let text = sym_reloaded(syms, code, col, t_ns)?;
        self.values.append_value(&*text);
        self.late.push((code, next));
        Ok(next)
    }

    /// The batch's keys and dictionary as one array; the next batch starts a dictionary anew.
    fn finish(&mut self, capacity: usize) -> arrow_array::DictionaryArray<Int32Type> {
        for code in self.met.drain(..) {
            self.key_of[code as usize] = 0;
        }
        self.late.clear();
        let keys = renew(&mut self.keys, Int32Builder::with_capacity(capacity)).finish();
        let values = Arc::new(self.values.finish());
        arrow_array::DictionaryArray::try_new(keys, values).expect("every key indexes the batch's dictionary")
    }
}

/// A primitive column while a batch fills: its values go straight into the buffer the array
/// takes over, with no builder to copy them through.
struct Prim<T: ArrowPrimitiveType> {
    values: Vec<T::Native>,
    nulls: NullBufferBuilder,
}

impl<T: ArrowPrimitiveType> Prim<T> {
    fn with_capacity(capacity: usize) -> Prim<T> {
        Prim {
            values: Vec::with_capacity(capacity),
            nulls: NullBufferBuilder::new(capacity),
        }
    }

    /// Appends field `f`'s `values`, `value` reading one from its bytes, nulls from `heads`.
    #[inline]
    fn gather<const W: usize>(
        &mut self,
        f: &FieldAt,
        values: Strided<'_>,
        heads: Strided<'_>,
        value: impl Fn([u8; W]) -> T::Native,
    ) {
        let n = values.len();
        values.extend_into(&mut self.values, value);
        match validity(f, heads) {
            None => self.nulls.append_n_non_nulls(n),
            Some(valid) => self.nulls.append_slice(&valid),
        }
    }

    /// The array of the values gathered; the next batch starts with room for `capacity`.
    fn finish(&mut self, capacity: usize) -> PrimitiveArray<T> {
        let values = std::mem::replace(&mut self.values, Vec::with_capacity(capacity));
        PrimitiveArray::new(values.into(), self.nulls.finish())
    }
}

/// Which rows have field `f` set, by their headers; `None` when all do (the common case: no
/// bitmap).
fn validity(f: &FieldAt, heads: Strided<'_>) -> Option<Vec<bool>> {
    let heads = heads.bytes.chunks_exact(heads.stride);
    heads
        .clone()
        .any(|h| f.is_null(h))
        .then(|| heads.map(|h| !f.is_null(h)).collect())
}

/// Where the rows a builder appends hold their values.
#[derive(Clone)]
enum Source<'a> {
    /// Rows back to back, `row_len` bytes each.
    Rows(&'a [u8]),
    /// Rows `range` of a columnar record's decoded columns.
    Columns(&'a Columns<'a>, std::ops::Range<usize>),
}

impl<'a> Source<'a> {
    /// Field `f`'s values, and the row headers that hold its null bit.
    fn of(&self, f: &FieldAt, row_len: usize) -> (Strided<'a>, Strided<'a>) {
        match self {
            Source::Rows(rows) => (
                Strided {
                    bytes: rows,
                    stride: row_len,
                    offset: f.offset,
                    width: f.width,
                },
                Strided {
                    bytes: rows,
                    stride: row_len,
                    offset: 0,
                    width: row_len,
                },
            ),
            Source::Columns(columns, range) => {
                let part = |bytes: &'a [u8], width: usize| Strided {
                    bytes: bytes.get(range.start * width..range.end * width).unwrap_or(&[]),
                    stride: width,
                    offset: 0,
                    width,
                };
                (
                    part(columns.values(f.col), f.width),
                    part(columns.headers(), columns.header_len()),
                )
            }
        }
    }
}

/// Values `width` bytes long, one every `stride` bytes from `offset`: a field of rows, or
/// (stride = width) a column.
#[derive(Clone, Copy)]
struct Strided<'a> {
    bytes: &'a [u8],
    stride: usize,
    offset: usize,
    width: usize,
}

impl<'a> Strided<'a> {
    fn len(&self) -> usize {
        self.bytes.len() / self.stride
    }

    /// Value `i`.
    fn at(&self, i: usize) -> &'a [u8] {
        let start = i * self.stride + self.offset;
        &self.bytes[start..start + self.width]
    }

    fn iter(self) -> impl Iterator<Item = &'a [u8]> {
        let (offset, width) = (self.offset, self.width);
        self.bytes
            .chunks_exact(self.stride)
            .map(move |v| &v[offset..offset + width])
    }

    /// Appends `value` of each (`W` = `width` bytes) to `out`. A column's loop reads arrays
    /// of a width known when compiled, with no offset: plain loads, vectorized where `value`
    /// allows.
    #[inline]
    fn extend_into<const W: usize, T>(self, out: &mut Vec<T>, value: impl Fn([u8; W]) -> T) {
        debug_assert_eq!(self.width, W);
        if self.stride == W && self.offset == 0 {
            let (values, _) = self.bytes.as_chunks::<W>();
            out.extend(values.iter().map(|&v| value(v)));
        } else {
            out.extend(self.iter().map(|v| value(le(v))));
        }
    }
}

/// The most bytes one row of `fields` takes in Arrow arrays: values at their full width (text
/// at its N), a 4-byte offset per text value, and a validity bit per column rounded up.
fn arrow_row_bytes(fields: &[Field]) -> usize {
    let values: usize = fields
        .iter()
        .map(|f| match f {
            Field::Time => 8,
            Field::Column(f) => match f.ty {
                ColumnType::Str(n) => usize::from(n) + 4,
                ty => ty.width_bytes(),
            },
        })
        .sum();
    values + fields.len().div_ceil(8) + 1
}

/// The text of a `sym` code past the dictionary snapshot: read the dictionary again, or the
/// damage, naming the column and the row's time.
#[cold]
#[inline(never)]
fn sym_reloaded(
    syms: Option<&(Schema, Arc<crate::db::syms::Snapshot>)>,
    code: u32,
    col: usize,
    t_ns: i64,
) -> crate::error::Result<Arc<str>> {
    match syms {
        Some((schema, _)) => schema.sym_text_at(code, col, Some(t_ns)),
        None => Err(crate::db::schema::no_sym_dict(code, "a row")),
    }
}

fn encode(e: impl std::fmt::Display) -> WriteError {
    WriteError::Encode(e.to_string())
}

/// An Arrow IPC writer's error, its I/O error kept whole.
fn arrow_failed(e: ArrowError) -> WriteError {
    match e {
        ArrowError::IoError(_, io) => WriteError::Io(io),
        other => encode(other),
    }
}

/// A sink that keeps the first I/O error it met, so that an encoder's wrapped error can be
/// reported as what it was (a full disk, a closed pipe) rather than as the encoder's text.
struct Tracked<W: Write> {
    inner: W,
    error: Option<io::Error>,
}

impl<W: Write> Write for Tracked<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).inspect_err(|e| self.remember(e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).inspect_err(|e| self.remember(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().inspect_err(|e| self.remember(e))
    }
}

impl<W: Write> Tracked<W> {
    fn remember(&mut self, e: &io::Error) {
        if self.error.is_none() {
            self.error = Some(io::Error::new(e.kind(), e.to_string()));
        }
    }
}

/// Where a failed write went wrong: the sink's own I/O error when there was one.
fn failed<W: Write>(sink: Option<&mut Tracked<W>>, e: impl std::fmt::Display) -> WriteError {
    match sink.and_then(|s| s.error.take()) {
        Some(io) => WriteError::Io(io),
        None => encode(e),
    }
}

enum Encoder<W: Write + Send> {
    Parquet {
        file: SerializedFileWriter<Tracked<W>>,
        factory: Arc<ArrowRowGroupWriterFactory>,
        /// Row groups being encoded on the pool, oldest first: each is appended to the file
        /// in turn as it comes back, while the calling thread gathers the next ones.
        in_flight: VecDeque<Receiver<EncodedGroup>>,
        groups: usize,
    },
    ArrowFile(arrow_ipc::writer::FileWriter<Tracked<W>>),
    ArrowStream(arrow_ipc::writer::StreamWriter<Tracked<W>>),
}

impl<W: Write + Send> Encoder<W> {
    /// Writes one record batch: an IPC message, or a row group encoded on the pool.
    fn write(&mut self, batch: RecordBatch) -> Result<(), WriteError> {
        match self {
            Encoder::Parquet {
                factory,
                in_flight,
                groups,
                ..
            } => {
                let index = *groups;
                *groups += 1;
                let (done, result) = mpsc::sync_channel(1);
                if rayon::current_thread_index().is_some() {
                    // Already on the pool (`export --split`): waiting there for a job queued
                    // behind this one could deadlock, so encode here; the files run in parallel.
                    let _ = done.send(encode_group(factory, index, &batch));
                } else {
                    let factory = Arc::clone(factory);
                    rayon::spawn(move || {
                        let _ = done.send(encode_group(&factory, index, &batch));
                    });
                }
                in_flight.push_back(result);
                let busy = in_flight.len();
                for _ in rayon::current_num_threads()..busy {
                    self.append_next()?;
                }
                Ok(())
            }
            Encoder::ArrowFile(w) => w.write(&batch).map_err(|e| failed(Some(w.get_mut()), e)),
            Encoder::ArrowStream(w) => w.write(&batch).map_err(|e| failed(Some(w.get_mut()), e)),
        }
    }

    /// Waits for the oldest row group in flight and appends it to the file.
    fn append_next(&mut self) -> Result<(), WriteError> {
        let Encoder::Parquet { file, in_flight, .. } = self else {
            return Ok(());
        };
        let Some(next) = in_flight.pop_front() else {
            return Ok(());
        };
        let chunks = next
            .recv()
            .map_err(|_| encode("a Parquet encoder thread stopped without a result"))?
            .map_err(encode)?;
        let appended = (|| -> Result<(), ParquetError> {
            let mut row_group = file.next_row_group()?;
            for chunk in chunks {
                chunk.append_to_row_group(&mut row_group)?;
            }
            row_group.close()?;
            Ok(())
        })();
        // The sink's own error (a full disk) says more than the encoder's wrapping of it.
        if let Some(io) = file.inner_mut().error.take() {
            return Err(WriteError::Io(io));
        }
        appended.map_err(encode)
    }

    /// Appends every row group still in flight.
    fn append_all(&mut self) -> Result<(), WriteError> {
        while matches!(self, Encoder::Parquet { in_flight, .. } if !in_flight.is_empty()) {
            self.append_next()?;
        }
        Ok(())
    }
}

/// Writes rows to `W` as `container` says, batch by batch.
pub struct ColumnarWriter<W: Write + Send> {
    builder: BatchBuilder,
    encoder: Encoder<W>,
    rows: u64,
    /// What the builder was made of, for the builders of a parallel read (`write_range`).
    columns: Option<Vec<String>>,
    container: Container,
}

/// One row group's column chunks, encoded.
type EncodedGroup = Result<Vec<ArrowColumnChunk>, ParquetError>;

/// Encodes `batch` as row group `index` of the file.
fn encode_group(factory: &ArrowRowGroupWriterFactory, index: usize, batch: &RecordBatch) -> EncodedGroup {
    let mut writers = factory.create_column_writers(index)?;
    let mut next = writers.iter_mut();
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        for leaf in compute_leaves(field, column)? {
            if let Some(writer) = next.next() {
                writer.write(&leaf)?;
            }
        }
    }
    writers.into_iter().map(|w| w.close()).collect()
}

/// Parquet writer settings: zstd, row-group statistics, time delta-encoded.
fn parquet_properties(schema: &ArrowSchema) -> Result<WriterProperties, WriteError> {
    let level = ZstdLevel::try_new(PARQUET_ZSTD_LEVEL).map_err(encode)?;
    let mut props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(level))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        // `created_by` stays the library's ("parquet-rs version …"): readers trust or work
        // around a writer's statistics by that name (pyarrow ignores float min/max otherwise).
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS));
    for field in schema.fields() {
        if matches!(field.data_type(), DataType::Timestamp(..)) {
            // Ascending times delta-encode to a few bits a row; a dictionary of them would not pay.
            let path = ColumnPath::from(field.name().as_str());
            props = props
                .set_column_dictionary_enabled(path.clone(), false)
                .set_column_encoding(path, Encoding::DELTA_BINARY_PACKED);
        }
    }
    Ok(props.build())
}

/// The first slices of a parallel read span 16 stored pieces (buckets or slots), and at least
/// 4096 slots, before the rows they hold size the next ones.
const FIRST_SLICE_UNITS: i64 = 16;
const FIRST_SLICE_SLOTS: i64 = 4096;

/// Adds the rows of `piece` to `builder`, at most `max_rows`, handing each record batch it
/// fills to `full`; returns the rows taken.
fn fill_from(
    builder: &mut BatchBuilder,
    piece: &Scanned<'_>,
    max_rows: u64,
    mut full: impl FnMut(RecordBatch) -> Result<(), WriteError>,
) -> Result<u64, WriteError> {
    let mut taken = 0u64;
    loop {
        taken += builder.push_piece(piece, taken as usize, max_rows - taken)? as u64;
        if !builder.is_full() {
            return Ok(taken);
        }
        full(builder.finish()?)?;
        if taken == max_rows {
            return Ok(taken);
        }
    }
}

/// The scan pieces of `[from, to)` that pass `filter`, in time order. With no filter, a
/// columnar record comes as its columns, only those `wanted` marks decoded (`None`: all);
/// with one, the rows that pass (`scan_where`), which it reads whole.
fn scan_pieces(
    db: &Database,
    (from_ns, to_ns): (i64, i64),
    filter: Option<&Filter>,
    wanted: Option<Vec<bool>>,
    mut visit: impl FnMut(Scanned<'_>) -> Result<bool, WriteError>,
) -> Result<(), WriteError> {
    match filter {
        Some(_) => scan_where(db, from_ns, to_ns, filter, |batch| visit(Scanned::Batch(batch))),
        None => crate::db::with_columns(wanted, || db.scan_columns(from_ns, to_ns, visit)),
    }
}

/// Hands `send` the record batches of the rows of `[from, to)` that pass `filter`, at most
/// `max_rows`, as each fills.
fn gather_slice(
    db: &Database,
    (from_ns, to_ns): (i64, i64),
    filter: Option<&Filter>,
    max_rows: u64,
    mut builder: BatchBuilder,
    send: &mut dyn FnMut(RecordBatch) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    let mut left = max_rows;
    let wanted = builder.columns_read(db.schema().columns().len());
    scan_pieces(
        db,
        (from_ns, to_ns),
        filter,
        wanted,
        |piece| -> Result<bool, WriteError> {
            left -= fill_from(&mut builder, &piece, left, &mut *send)?;
            Ok(left > 0)
        },
    )?;
    if !builder.is_empty() {
        send(builder.finish()?)?;
    }
    Ok(())
}

/// Record batches a slice's worker may have written ahead of the writer before it waits:
/// with one slice per thread and one more in flight, at most `(threads + 1) × 2` batches are
/// held, however dense the data.
const BATCHES_AHEAD: usize = 2;

impl From<crate::error::Error> for WriteError {
    fn from(e: crate::error::Error) -> WriteError {
        WriteError::Read(e)
    }
}

impl<W: Write + Send> ColumnarWriter<W> {
    pub fn new(
        config: &Config,
        columns: Option<&[String]>,
        container: Container,
        sink: W,
    ) -> Result<ColumnarWriter<W>, WriteError> {
        let (rows, bytes) = match container {
            Container::Parquet => (ROW_GROUP_ROWS, ROW_GROUP_BYTES),
            Container::ArrowFile | Container::ArrowStream => (BATCH_ROWS, BATCH_BYTES),
        };
        let (_, fields) = resolve_columns(config, columns).map_err(WriteError::Encode)?;
        let capacity = rows.min(bytes / arrow_row_bytes(&fields)).max(1);
        ColumnarWriter::with_batch_rows(config, columns, container, sink, capacity)
    }

    /// `new`, with record batches (Parquet: row groups) of at most `capacity` rows: tests
    /// use a few rows, to cut a small database into many batches and parallel slices.
    pub fn with_batch_rows(
        config: &Config,
        columns: Option<&[String]>,
        container: Container,
        sink: W,
        capacity: usize,
    ) -> Result<ColumnarWriter<W>, WriteError> {
        let capacity = capacity.max(1);
        let builder = BatchBuilder::new(config, columns, container, capacity).map_err(WriteError::Encode)?;
        let schema = builder.schema();
        let sink = Tracked {
            inner: sink,
            error: None,
        };
        let encoder = match container {
            Container::Parquet => {
                let props = parquet_properties(&schema)?;
                let writer = ArrowWriter::try_new(sink, Arc::clone(&schema), Some(props))
                    .map_err(|e: ParquetError| encode(e))?;
                let (file, factory) = writer.into_serialized_writer().map_err(encode)?;
                Encoder::Parquet {
                    file,
                    factory: Arc::new(factory),
                    in_flight: VecDeque::new(),
                    groups: 0,
                }
            }
            Container::ArrowFile => Encoder::ArrowFile(
                arrow_ipc::writer::FileWriter::try_new(sink, &schema).map_err(arrow_failed)?,
            ),
            Container::ArrowStream => Encoder::ArrowStream(
                arrow_ipc::writer::StreamWriter::try_new(sink, &schema).map_err(arrow_failed)?,
            ),
        };
        Ok(ColumnarWriter {
            builder,
            encoder,
            rows: 0,
            columns: columns.map(<[String]>::to_vec),
            container,
        })
    }

    /// Writes the rows of `[from, to)` of `db` that pass `filter`, at most `limit`. Arrow
    /// output is gathered in time slices by `threads` workers (one slice queued beyond them)
    /// and written in time order; the slices are sized from the rows the last ones held.
    /// Parquet is gathered on this thread (its row groups are encoded on the pool), and so is
    /// a read already running on the pool (`export --split`).
    pub fn write_range(
        &mut self,
        db: &Database,
        (from_ns, to_ns): (i64, i64),
        filter: Option<&Filter>,
        limit: u64,
    ) -> Result<(), WriteError> {
        let threads = rayon::current_num_threads();
        let config = db.config();
        let (columns, container, capacity) = (self.columns.clone(), self.container, self.builder.capacity);
        let make =
            || BatchBuilder::new(config, columns.as_deref(), container, capacity).map_err(WriteError::Encode);
        let parallel = self.container != Container::Parquet
            && threads > 1
            && rayon::current_thread_index().is_none()
            && self.builder.is_empty()
            && make()?.schema() == self.builder.schema();
        let mut left = limit;
        if !parallel {
            if left > 0 {
                let wanted = self.builder.columns_read(db.schema().columns().len());
                scan_pieces(
                    db,
                    (from_ns, to_ns),
                    filter,
                    wanted,
                    |piece| -> Result<bool, WriteError> {
                        left -= self.push_piece(&piece, left)?;
                        Ok(left > 0)
                    },
                )?;
            }
            return Ok(());
        }
        // Only the partitions that exist hold data.
        let keys = db.partition_keys()?;
        let (mut at, end) = match (keys.first(), keys.last()) {
            (Some(first), Some(last)) => (from_ns.max(first.start_ns()), to_ns.min(last.end_ns())),
            _ => return Ok(()),
        };
        let g = config.granularity.ns();
        let mut slice_ns = db
            .storage_unit_ns()
            .saturating_mul(FIRST_SLICE_UNITS)
            .max(g.saturating_mul(FIRST_SLICE_SLOTS));
        // A slice's batches come through its own bounded channel, so the writer takes them in
        // time order and a worker runs at most `BATCHES_AHEAD` batches ahead of it.
        type Slice = ((i64, i64), u64, mpsc::SyncSender<Result<RecordBatch, WriteError>>);
        let (job_tx, job_rx) = mpsc::channel::<Slice>();
        let job_rx = std::sync::Mutex::new(job_rx);
        std::thread::scope(|scope| -> Result<(), WriteError> {
            for _ in 0..threads {
                let (job_rx, make) = (&job_rx, &make);
                scope.spawn(move || loop {
                    let job = job_rx
                        .lock()
                        .map_err(|_| ())
                        .and_then(|rx| rx.recv().map_err(|_| ()));
                    let Ok((slice, max_rows, out)) = job else {
                        return;
                    };
                    // A panic must reach the writer as an error: it waits on this slice.
                    let gathered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        make().and_then(|builder| {
                            gather_slice(db, slice, filter, max_rows, builder, &mut |batch| {
                                // The writer stopped (an error, or the limit reached): so do we.
                                out.send(Ok(batch)).map_err(|_| encode("the writer stopped"))
                            })
                        })
                    }))
                    .unwrap_or_else(|_| Err(encode("an Arrow worker thread panicked")));
                    if let Err(e) = gathered {
                        let _ = out.send(Err(e));
                    }
                });
            }
            let mut in_flight: VecDeque<(i128, mpsc::Receiver<Result<RecordBatch, WriteError>>)> =
                VecDeque::new();
            let result = (|| -> Result<(), WriteError> {
                loop {
                    while in_flight.len() < threads + 1 && at < end && left > 0 {
                        // Stretches with no data are jumped over, not cut into empty slices.
                        match db.next_data_time(&keys, at)? {
                            Some(t) if t < end => at = at.max(t),
                            _ => {
                                at = end;
                                break;
                            }
                        }
                        let stop = at.saturating_add(slice_ns).min(end);
                        let (out, batches) = mpsc::sync_channel(BATCHES_AHEAD);
                        if job_tx.send(((at, stop), left, out)).is_err() {
                            return Err(encode("the Arrow worker threads stopped"));
                        }
                        in_flight.push_back((i128::from(stop) - i128::from(at), batches));
                        at = stop;
                    }
                    // With the limit reached, the slices in flight are dropped unread.
                    let Some((span, batches)) = in_flight.pop_front().filter(|_| left > 0) else {
                        return Ok(());
                    };
                    let mut seen: i128 = 0;
                    // The channel closes when the slice is done.
                    for batch in batches {
                        let batch = batch?;
                        seen += batch.num_rows() as i128;
                        if left > 0 {
                            let n = (batch.num_rows() as u64).min(left);
                            self.write_batch(batch.slice(0, n as usize))?;
                            left -= n;
                        }
                        if left == 0 {
                            break;
                        }
                    }
                    // Later slices hold about a batch of rows at the density just seen (work
                    // long enough for a thread), growing at most 8-fold at a time (a sparse
                    // stretch says little of the next).
                    let most = i128::from(slice_ns) * 8;
                    let wanted = if seen == 0 {
                        most
                    } else {
                        (span * capacity as i128 / seen).min(most)
                    };
                    slice_ns = i64::try_from(wanted.div_euclid(i128::from(g)).max(1) * i128::from(g))
                        .unwrap_or(i64::MAX);
                }
            })();
            // Dropped, the channels stop the workers: their next send or receive fails.
            drop(in_flight);
            drop(job_tx);
            result
        })
    }

    /// Writes a record batch gathered elsewhere (a slice of a parallel read).
    fn write_batch(&mut self, batch: RecordBatch) -> Result<(), WriteError> {
        self.rows += batch.num_rows() as u64;
        self.encoder.write(batch)
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Adds one row stored at `t_ns`.
    pub fn push(&mut self, t_ns: i64, row: &[u8]) -> Result<(), WriteError> {
        self.builder.push(t_ns, row)?;
        self.rows += 1;
        if self.builder.is_full() {
            self.flush_batch()?;
        }
        Ok(())
    }

    /// Adds the rows of a scan piece, at most `max_rows`; returns how many it took.
    pub fn push_piece(&mut self, piece: &Scanned<'_>, max_rows: u64) -> Result<u64, WriteError> {
        let encoder = &mut self.encoder;
        let taken = fill_from(&mut self.builder, piece, max_rows, |b| encoder.write(b))?;
        self.rows += taken;
        Ok(taken)
    }

    fn flush_batch(&mut self) -> Result<(), WriteError> {
        if self.builder.is_empty() {
            return Ok(());
        }
        let batch = self.builder.finish()?;
        self.encoder.write(batch)
    }

    /// Writes what is left and the file's footer, and flushes the sink; returns the rows.
    pub fn finish(mut self) -> Result<u64, WriteError> {
        self.flush_batch()?;
        self.encoder.append_all()?;
        let sink = match &mut self.encoder {
            Encoder::Parquet { file, .. } => match file.finish() {
                Ok(_) => file.inner_mut(),
                Err(e) => return Err(failed(Some(file.inner_mut()), e)),
            },
            Encoder::ArrowFile(w) => match w.finish() {
                Ok(()) => w.get_mut(),
                Err(e) => return Err(failed(Some(w.get_mut()), e)),
            },
            Encoder::ArrowStream(w) => match w.finish() {
                Ok(()) => w.get_mut(),
                Err(e) => return Err(failed(Some(w.get_mut()), e)),
            },
        };
        sink.flush().map_err(WriteError::Io)?;
        Ok(self.rows)
    }
}
