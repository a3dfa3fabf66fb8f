//! Columnar output: stored rows gathered into Arrow record batches, written as Parquet or as an
//! Arrow IPC file or stream (docs/OUTPUT.md). Types survive exactly: time is a UTC timestamp at
//! the granularity's precision, integers keep their width, floats their bits, nulls are nulls.
//!
//! Memory is bounded whatever the range: Arrow output holds one batch of at most `BATCH_ROWS`
//! rows and `BATCH_BYTES`; Parquet holds at most `threads + 2` row groups of at most
//! `ROW_GROUP_ROWS` rows and `ROW_GROUP_BYTES` (plus their encoded column chunks, which are
//! smaller): the pool encodes up to `threads + 1` of them while the calling thread gathers the
//! next, and each is appended to the file in order as it comes back.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Decimal128Builder, Float32Builder, Float64Builder, Int16Builder, Int32Builder,
    Int64Builder, Int8Builder, StringBuilder, StringDictionaryBuilder, UInt16Builder, UInt32Builder,
    UInt64Builder, UInt8Builder,
};
use arrow_array::types::{
    Int32Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{ArrayRef, PrimitiveArray, RecordBatch};
use arrow_schema::{ArrowError, DataType, Field as ArrowField, Schema as ArrowSchema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_writer::{compute_leaves, ArrowColumnChunk, ArrowRowGroupWriterFactory};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::errors::ParquetError;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;

use crate::db::config::Config;
use crate::db::schema::{le, ColumnType, Schema};
use crate::db::Batch;
use crate::io::output::{resolve_columns, str_bytes, Field};

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
    I8(Int8Builder),
    I16(Int16Builder),
    I32(Int32Builder),
    I64(Int64Builder),
    U8(UInt8Builder),
    U16(UInt16Builder),
    U32(UInt32Builder),
    U64(UInt64Builder),
    F32(Float32Builder),
    F64(Float64Builder),
    Bool(BooleanBuilder),
    Str(StringBuilder),
    /// `dec(S)`: the stored i64 as a 128-bit decimal of precision 18 and scale S.
    Dec(Decimal128Builder, u8),
    /// `sym`: dictionary-encoded text (Int32 keys into Utf8 values).
    Sym(StringDictionaryBuilder<Int32Type>),
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
            Column::Dec(Decimal128Builder::with_capacity(capacity), scale),
        ),
        ColumnType::I8 => (DataType::Int8, Column::I8(Int8Builder::with_capacity(capacity))),
        ColumnType::I16 => (
            DataType::Int16,
            Column::I16(Int16Builder::with_capacity(capacity)),
        ),
        ColumnType::I32 => (
            DataType::Int32,
            Column::I32(Int32Builder::with_capacity(capacity)),
        ),
        ColumnType::I64 => (
            DataType::Int64,
            Column::I64(Int64Builder::with_capacity(capacity)),
        ),
        ColumnType::U8 => (DataType::UInt8, Column::U8(UInt8Builder::with_capacity(capacity))),
        ColumnType::U16 => (
            DataType::UInt16,
            Column::U16(UInt16Builder::with_capacity(capacity)),
        ),
        ColumnType::U32 => (
            DataType::UInt32,
            Column::U32(UInt32Builder::with_capacity(capacity)),
        ),
        ColumnType::U64 => (
            DataType::UInt64,
            Column::U64(UInt64Builder::with_capacity(capacity)),
        ),
        ColumnType::F32 => (
            DataType::Float32,
            Column::F32(Float32Builder::with_capacity(capacity)),
        ),
        ColumnType::F64 => (
            DataType::Float64,
            Column::F64(Float64Builder::with_capacity(capacity)),
        ),
        ColumnType::Bool => (
            DataType::Boolean,
            Column::Bool(BooleanBuilder::with_capacity(capacity)),
        ),
        ColumnType::Sym => (
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            Column::Sym(StringDictionaryBuilder::new()),
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
    slab_len: usize,
    granularity_ns: i64,
    /// For `sym` columns: the schema, whose dictionary gives their text.
    syms: Option<(crate::db::schema::Schema, Arc<crate::db::syms::Snapshot>)>,
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
            slab_len: usize::try_from(config.slab_len()).map_err(|_| "slot too large".to_string())?,
            granularity_ns: config.granularity.ns(),
            syms: config
                .schema
                .syms()
                .map(|d| (config.schema.clone(), d.snapshot())),
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
    #[inline]
    pub fn push(&mut self, t_ns: i64, row: &[u8]) -> Result<(), WriteError> {
        let mut lost = None;
        for (field, column) in self.fields.iter().zip(self.columns.iter_mut()) {
            let f = match field {
                Field::Time => {
                    if let Column::Time(times) = column {
                        times.push(t_ns.div_euclid(self.unit_ns));
                    }
                    continue;
                }
                Field::Column(f) => f,
            };
            let null = f.is_null(row);
            let b = f.bytes(row);
            macro_rules! put {
                ($builder:expr, $conv:expr) => {
                    if null {
                        $builder.append_null()
                    } else {
                        $builder.append_value($conv)
                    }
                };
            }
            // The text of a `sym` code, into a dictionary or a plain text builder.
            macro_rules! put_sym {
                ($builder:expr) => {{
                    let c = $builder;
                    if null {
                        c.append_null();
                    } else {
                        let code = u32::from_le_bytes(le(b));
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
                Column::I8(c) => put!(c, i8::from_le_bytes(le(b))),
                Column::I16(c) => put!(c, i16::from_le_bytes(le(b))),
                Column::I32(c) => put!(c, i32::from_le_bytes(le(b))),
                Column::I64(c) => put!(c, i64::from_le_bytes(le(b))),
                Column::U8(c) => put!(c, u8::from_le_bytes(le(b))),
                Column::U16(c) => put!(c, u16::from_le_bytes(le(b))),
                Column::U32(c) => put!(c, u32::from_le_bytes(le(b))),
                Column::U64(c) => put!(c, u64::from_le_bytes(le(b))),
                Column::F32(c) => put!(c, f32::from_le_bytes(le(b))),
                Column::F64(c) => put!(c, f64::from_le_bytes(le(b))),
                Column::Bool(c) => put!(c, b[0] != 0),
                Column::Dec(c, _) => put!(c, i128::from(i64::from_le_bytes(le(b)))),
                Column::Sym(c) => put_sym!(c),
                Column::SymText(c) => put_sym!(c),
                Column::Str(c) => {
                    let text = str_bytes(b);
                    // xs stores an empty string as null (docs/FORMAT.md).
                    if null || text.is_empty() {
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
        self.rows += 1;
        lost.map_or(Ok(()), |e| Err(WriteError::Read(e)))
    }

    /// Adds the rows of a scan batch, at most `max_rows` and no more than fill the batch;
    /// returns how many it took: the caller flushes a full batch and hands the rest again.
    pub fn push_batch(&mut self, batch: &Batch<'_>, skip: usize, max_rows: u64) -> Result<usize, WriteError> {
        let room = (self.capacity.saturating_sub(self.rows) as u64).min(max_rows) as usize;
        let mut taken = 0usize;
        let mut seen = 0usize;
        match *batch {
            Batch::Slots { start_ns, bytes } => {
                let mut t_ns = start_ns;
                'slots: for slab in bytes.chunks_exact(self.slab_len) {
                    // The first row of a slot tells whether the slot holds anything.
                    if Schema::is_present(slab) {
                        for row in slab.chunks_exact(self.row_len) {
                            if !Schema::is_present(row) {
                                break;
                            }
                            if seen >= skip {
                                if taken == room {
                                    break 'slots;
                                }
                                self.push(t_ns, row)?;
                                taken += 1;
                            }
                            seen += 1;
                        }
                    }
                    t_ns += self.granularity_ns;
                }
            }
            Batch::Rows { times, rows } => {
                for (&t_ns, row) in times.iter().zip(rows.chunks_exact(self.row_len)).skip(skip) {
                    if taken == room {
                        break;
                    }
                    self.push(t_ns, row)?;
                    taken += 1;
                }
            }
        }
        Ok(taken)
    }

    /// The rows gathered so far as a record batch; the builder starts a new one.
    pub fn finish(&mut self) -> Result<RecordBatch, WriteError> {
        let rows = std::mem::take(&mut self.rows);
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
                    Column::I8(c) => Arc::new(c.finish()),
                    Column::I16(c) => Arc::new(c.finish()),
                    Column::I32(c) => Arc::new(c.finish()),
                    Column::I64(c) => Arc::new(c.finish()),
                    Column::U8(c) => Arc::new(c.finish()),
                    Column::U16(c) => Arc::new(c.finish()),
                    Column::U32(c) => Arc::new(c.finish()),
                    Column::U64(c) => Arc::new(c.finish()),
                    Column::F32(c) => Arc::new(c.finish()),
                    Column::F64(c) => Arc::new(c.finish()),
                    Column::Bool(c) => Arc::new(c.finish()),
                    Column::Str(c) => Arc::new(c.finish()),
                    Column::Sym(c) => Arc::new(c.finish()),
                    Column::SymText(c) => Arc::new(c.finish()),
                    Column::Dec(c, scale) => Arc::new(
                        c.finish()
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

/// Writes rows to `W` as `container` says, batch by batch.
pub struct ColumnarWriter<W: Write + Send> {
    builder: BatchBuilder,
    encoder: Encoder<W>,
    rows: u64,
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
        })
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

    /// Adds the rows of a scan batch, at most `max_rows`; returns how many it took.
    pub fn push_batch(&mut self, batch: &Batch<'_>, max_rows: u64) -> Result<u64, WriteError> {
        let mut taken = 0usize;
        loop {
            let n = self.builder.push_batch(batch, taken, max_rows - taken as u64)?;
            taken += n;
            self.rows += n as u64;
            if !self.builder.is_full() || taken as u64 == max_rows {
                if self.builder.is_full() {
                    self.flush_batch()?;
                }
                return Ok(taken as u64);
            }
            self.flush_batch()?;
        }
    }

    fn flush_batch(&mut self) -> Result<(), WriteError> {
        if self.builder.is_empty() {
            return Ok(());
        }
        let batch = self.builder.finish()?;
        match &mut self.encoder {
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
        let Encoder::Parquet { file, in_flight, .. } = &mut self.encoder else {
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
        while matches!(&self.encoder, Encoder::Parquet { in_flight, .. } if !in_flight.is_empty()) {
            self.append_next()?;
        }
        Ok(())
    }

    /// Writes what is left and the file's footer, and flushes the sink; returns the rows.
    pub fn finish(mut self) -> Result<u64, WriteError> {
        self.flush_batch()?;
        self.append_all()?;
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
