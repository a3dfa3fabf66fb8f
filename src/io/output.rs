//! Row output: stored rows formatted as CSV, TSV or NDJSON straight from their bytes, without
//! decoding into intermediate values. Floats print shortest-round-trip (so a re-import stores the
//! same bits) and always with a `.` or an exponent (`52.0`, `1e16`: a float column reads as
//! floats in DuckDB or pandas), nulls as empty fields (CSV, TSV) or `null` (NDJSON), times as ISO-8601 UTC with
//! the granularity's precision, as epoch numbers, or through a strftime pattern.

use std::io::Write;
use std::sync::Arc;

use chrono::format::{Item, StrftimeItems};
use chrono::DateTime;

use crate::db::config::Config;
use crate::db::schema::{le, ColumnType, FieldAt};
use crate::db::time::{civil_from_days, NS_PER_DAY, NS_PER_SEC};
use crate::db::{Batch, BatchShape};
use crate::error::Result;
use crate::io::timefmt::EpochUnit;

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// RFC 4180 CSV: a header line, `,` between fields, text quoted only when it must be.
    Csv,
    /// Tab-separated: a header line; tab, newline, carriage return and backslash inside text are
    /// escaped as `\t`, `\n`, `\r`, `\\`.
    Tsv,
    /// One JSON object per line (JSON Lines); NaN and infinities print as `null`.
    Ndjson,
}

impl Format {
    pub const NAMES: &'static str = "csv, tsv, ndjson";

    pub fn parse(text: &str) -> Option<Format> {
        match text {
            "csv" => Some(Format::Csv),
            "tsv" => Some(Format::Tsv),
            "ndjson" | "jsonl" => Some(Format::Ndjson),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Tsv => "tsv",
            Format::Ndjson => "ndjson",
        }
    }

    /// The format a file name asks for by its extension (`.csv`, `.tsv`, `.ndjson`, `.jsonl`),
    /// ignoring a trailing `.zst`.
    pub fn from_file_name(name: &str) -> Option<Format> {
        let name = name.strip_suffix(".zst").unwrap_or(name);
        let (_, ext) = name.rsplit_once('.')?;
        Format::parse(&ext.to_ascii_lowercase())
    }
}

/// How timestamps are printed.
#[derive(Clone, Debug)]
pub enum TimeFormat {
    /// ISO-8601 UTC with exactly as many fraction digits as the granularity needs.
    Iso,
    /// A number of seconds/ms/µs/ns since 1970-01-01T00:00:00Z; it carries decimals only when
    /// the granularity is finer than the unit (`epoch-s` of a 1 ms series: `1504224060.493`).
    Epoch(EpochUnit),
    /// A chrono strftime pattern, e.g. `%Y-%m-%d %H:%M:%S%.3f`, applied in UTC.
    Strftime(Vec<Item<'static>>),
}

impl TimeFormat {
    pub fn parse(text: &str) -> Result<TimeFormat, String> {
        match text {
            "iso" => return Ok(TimeFormat::Iso),
            "epoch-s" => return Ok(TimeFormat::Epoch(EpochUnit::S)),
            "epoch-ms" => return Ok(TimeFormat::Epoch(EpochUnit::Ms)),
            "epoch-us" => return Ok(TimeFormat::Epoch(EpochUnit::Us)),
            "epoch-ns" => return Ok(TimeFormat::Epoch(EpochUnit::Ns)),
            _ => {}
        }
        if text.contains('%') {
            return StrftimeItems::new(text)
                .parse_to_owned()
                .map(TimeFormat::Strftime)
                .map_err(|_| format!("bad strftime pattern `{text}`: see https://docs.rs/chrono/latest/chrono/format/strftime/"));
        }
        Err(format!(
            "unknown time format `{text}`: use iso, epoch-s, epoch-ms, epoch-us, epoch-ns, \
             or a strftime pattern such as '%Y-%m-%d %H:%M:%S'"
        ))
    }
}

/// What to print and how.
#[derive(Clone, Debug)]
pub struct OutputOptions {
    pub format: Format,
    pub time_format: TimeFormat,
    /// Output columns by name, in order (the time column by its name); `None`: time, then all.
    pub columns: Option<Vec<String>>,
    /// Print a header line (CSV and TSV).
    pub header: bool,
}

impl Default for OutputOptions {
    fn default() -> OutputOptions {
        OutputOptions {
            format: Format::Csv,
            time_format: TimeFormat::Iso,
            columns: None,
            header: true,
        }
    }
}

/// One output field: the row's time or a stored column.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Field {
    Time,
    Column(FieldAt),
}

#[derive(Clone, Debug)]
enum TimeWriter {
    Iso {
        frac_digits: u32,
    },
    /// Exact multiples of the unit.
    EpochInt {
        unit_ns: i64,
    },
    /// `digits` decimals of the unit; one decimal step is `step_ns`.
    EpochFrac {
        digits: u32,
        step_ns: i64,
    },
    Strftime(Vec<Item<'static>>),
}

/// Formats rows of one database into byte buffers. Cheap to share between threads.
#[derive(Clone, Debug)]
pub struct RowFormatter {
    format: Format,
    header: bool,
    names: Vec<String>,
    fields: Vec<Field>,
    /// NDJSON: `{"time":`, then `,"price":` … one per field.
    json_keys: Vec<Vec<u8>>,
    time: TimeWriter,
    /// How the scan batches it formats are laid out.
    shape: BatchShape,
    /// For `sym` columns: the schema, whose dictionary gives their text, and the entries
    /// loaded when the formatter was made (a code past them reads the dictionary again).
    syms: Option<(crate::db::schema::Schema, crate::db::syms::Texts)>,
}

/// What one `RowFormatter::batch` call remembers from row to row: the `YYYY-MM-DDT` of the last day printed (each
/// date is computed once), and per float field the fraction digits its last value needed (a
/// column's values mostly share them).
struct DayCache {
    day: i64,
    prefix: [u8; 11],
    float_digits: [u8; 64],
    syms: SymFields,
}

impl DayCache {
    fn new() -> DayCache {
        DayCache {
            day: i64::MIN,
            prefix: [0; 11],
            float_digits: [0; 64],
            syms: SymFields::default(),
        }
    }
}

/// What `RowFormatter::row_cached` keeps from row to row: the date last printed, the float
/// digits, the `sym` fields (as a batch does). It belongs to one formatter: another database's
/// `sym` codes name other texts.
pub struct RowCache(DayCache);

impl Default for RowCache {
    fn default() -> RowCache {
        RowCache(DayCache::new())
    }
}

/// The text fields (as written: quoted or escaped) of `sym` values written, one slot per code
/// mod 16, the last code written in each (one dictionary serves every `sym` column, so a code
/// is one text in any of them). A `sym` column holds few distinct values, and looking one up
/// in the dictionary and checking it for quoting cost several times the copy of its field.
#[derive(Default)]
struct SymFields {
    slots: [SymField; 16],
}

/// One `SymFields` entry: a field of at most `SymField::MAX` bytes.
#[derive(Clone, Copy, Default)]
struct SymField {
    /// The code + 1; 0 for an empty slot.
    key: u64,
    len: u8,
    text: [u8; SymField::MAX],
}

impl SymField {
    const MAX: usize = 23;
}

impl SymFields {
    /// Appends the field of `code` if it is held; says whether it was.
    #[inline]
    fn write(&self, out: &mut Vec<u8>, code: u32) -> bool {
        let field = &self.slots[code as usize % 16];
        if field.key != u64::from(code) + 1 {
            return false;
        }
        // A fixed-size copy, then the rest cut: no `memcpy` call for a few bytes.
        let at = out.len();
        out.extend_from_slice(&field.text);
        out.truncate(at + usize::from(field.len));
        true
    }

    /// Holds `text`, the field just written for `code`, if it is short.
    #[inline]
    fn keep(&mut self, code: u32, text: &[u8]) {
        if text.len() > SymField::MAX {
            return;
        }
        let field = &mut self.slots[code as usize % 16];
        field.key = u64::from(code) + 1;
        field.len = text.len() as u8;
        field.text[..text.len()].copy_from_slice(text);
    }
}

impl RowFormatter {
    /// Checks the options against the database's columns; `Err` names an unknown column.
    pub fn new(config: &Config, options: &OutputOptions) -> Result<RowFormatter, String> {
        let schema = &config.schema;
        let (names, fields) = resolve_columns(config, options.columns.as_deref())?;
        let prints_sym = any_sym(&fields);
        let json_keys = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mut key = Vec::with_capacity(name.len() + 4);
                key.push(if i == 0 { b'{' } else { b',' });
                write_json_str(&mut key, name.as_bytes());
                key.push(b':');
                key
            })
            .collect();
        let granularity_ns = config.granularity.ns();
        let time = match &options.time_format {
            TimeFormat::Iso => TimeWriter::Iso {
                frac_digits: config.granularity.fraction_digits(),
            },
            TimeFormat::Epoch(unit) => {
                let unit_ns = unit.ns();
                if granularity_ns % unit_ns == 0 {
                    TimeWriter::EpochInt { unit_ns }
                } else {
                    // Fewest decimals of the unit that show every multiple of the granularity.
                    let mut digits = 1;
                    let mut step_ns = unit_ns / 10;
                    while step_ns > 1 && granularity_ns % step_ns != 0 {
                        digits += 1;
                        step_ns /= 10;
                    }
                    TimeWriter::EpochFrac {
                        digits,
                        step_ns: step_ns.max(1),
                    }
                }
            }
            TimeFormat::Strftime(items) => TimeWriter::Strftime(items.clone()),
        };
        Ok(RowFormatter {
            format: options.format,
            header: options.header,
            names,
            fields,
            json_keys,
            time,
            shape: BatchShape::of(config),
            // The dictionary is read only when a printed column needs it; a code the snapshot
            // lacks (or a dictionary that cannot be read) is looked up again and said.
            syms: schema
                .syms()
                .filter(|_| prints_sym)
                .map(|d| (schema.clone(), d.texts_or_empty())),
        })
    }

    /// Writes the text of a `sym` field's code with `write`: from the snapshot (no
    /// allocation), or else from the dictionary read again; a code it lost is the damage,
    /// naming column `col` and the row's time.
    #[inline]
    fn sym(&self, bytes: &[u8], col: usize, t_ns: i64, write: impl FnOnce(&[u8])) -> Result<()> {
        let code = u32::from_le_bytes(le(bytes));
        if let Some(text) = self.syms.as_ref().and_then(|(_, snap)| snap.text(code)) {
            write(text.as_bytes());
            return Ok(());
        }
        write(self.sym_reloaded(code, col, t_ns)?.as_bytes());
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn sym_reloaded(&self, code: u32, col: usize, t_ns: i64) -> Result<Arc<str>> {
        match &self.syms {
            Some((schema, _)) => schema.sym_text_at(code, col, Some(t_ns)),
            None => Err(crate::db::schema::no_sym_dict(code, "a row")),
        }
    }

    pub fn format(&self) -> Format {
        self.format
    }

    /// The output columns' names, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether a header line is printed (CSV, TSV).
    pub fn has_header(&self) -> bool {
        self.header && self.format != Format::Ndjson
    }

    /// Appends the header line (CSV, TSV, unless turned off); NDJSON has none.
    pub fn header(&self, out: &mut Vec<u8>) {
        let delimiter = match self.format {
            Format::Csv => b',',
            Format::Tsv => b'\t',
            Format::Ndjson => return,
        };
        if !self.header {
            return;
        }
        for (i, name) in self.names.iter().enumerate() {
            if i > 0 {
                out.push(delimiter);
            }
            // Column names are letters, digits, `_`, `-`, `.`: nothing to quote or escape.
            out.extend_from_slice(name.as_bytes());
        }
        out.push(b'\n');
    }

    /// Appends one row stored at `t_ns`. Fails only on damage (a `sym` code its dictionary
    /// lost); `out` then holds part of the row, which must not be written.
    pub fn row(&self, out: &mut Vec<u8>, t_ns: i64, row: &[u8]) -> Result<()> {
        self.write_row(out, t_ns, row, &mut DayCache::new())
    }

    /// `row` for callers that format rows one at a time: `cache` keeps what one row's
    /// formatting learnt for the next (use one cache per formatter).
    pub fn row_cached(&self, out: &mut Vec<u8>, t_ns: i64, row: &[u8], cache: &mut RowCache) -> Result<()> {
        self.write_row(out, t_ns, row, &mut cache.0)
    }

    /// Appends the rows of a scan batch, at most `max_rows`. Returns the rows written; fails
    /// as `row` does.
    pub fn batch(&self, out: &mut Vec<u8>, batch: Batch<'_>, max_rows: u64) -> Result<u64> {
        let mut cache = DayCache::new();
        let mut n = 0u64;
        for (t_ns, row) in self.shape.rows(batch) {
            if n == max_rows {
                break;
            }
            self.write_row(out, t_ns, row, &mut cache)?;
            n += 1;
        }
        Ok(n)
    }

    #[inline]
    fn write_row(&self, out: &mut Vec<u8>, t_ns: i64, row: &[u8], cache: &mut DayCache) -> Result<()> {
        match self.format {
            Format::Csv | Format::Tsv => {
                let delimiter = if self.format == Format::Csv { b',' } else { b'\t' };
                let start = out.len();
                for (i, field) in self.fields.iter().enumerate() {
                    if i > 0 {
                        out.push(delimiter);
                    }
                    self.write_text_field(out, i, field, t_ns, row, cache)?;
                }
                if out.len() == start && self.format == Format::Csv {
                    // A lone null field: `""` keeps the row from reading as a blank line.
                    out.extend_from_slice(b"\"\"");
                }
                out.push(b'\n');
            }
            Format::Ndjson => {
                for (i, (key, field)) in self.json_keys.iter().zip(&self.fields).enumerate() {
                    out.extend_from_slice(key);
                    self.write_json_field(out, i, field, t_ns, row, cache)?;
                }
                out.extend_from_slice(b"}\n");
            }
        }
        Ok(())
    }

    #[inline]
    fn write_text_field(
        &self,
        out: &mut Vec<u8>,
        index: usize,
        field: &Field,
        t_ns: i64,
        row: &[u8],
        cache: &mut DayCache,
    ) -> Result<()> {
        match *field {
            Field::Time => {
                if let TimeWriter::Strftime(items) = &self.time {
                    let mut text = Vec::with_capacity(32);
                    write_strftime(&mut text, t_ns, items);
                    self.write_text(out, &text);
                } else {
                    self.write_time(out, t_ns, cache);
                }
            }
            Field::Column(f) => {
                if f.is_null(row) {
                    return Ok(());
                }
                let bytes = f.bytes(row);
                match f.ty {
                    ColumnType::F32 => {
                        let v = f32::from_le_bytes(le(bytes));
                        if v.is_finite() {
                            write_f32(out, v, &mut cache.float_digits[index % 64]);
                        } else {
                            write_special(out, f64::from(v));
                        }
                    }
                    ColumnType::F64 => {
                        let v = f64::from_le_bytes(le(bytes));
                        if v.is_finite() {
                            write_f64(out, v, &mut cache.float_digits[index % 64]);
                        } else {
                            write_special(out, v);
                        }
                    }
                    ColumnType::Str(_) => self.write_text(out, str_bytes(bytes)),
                    ColumnType::Sym => {
                        let code = u32::from_le_bytes(le(bytes));
                        if cache.syms.write(out, code) {
                            return Ok(());
                        }
                        let at = out.len();
                        self.sym(bytes, f.col, t_ns, |text| self.write_text(out, text))?;
                        cache.syms.keep(code, &out[at..]);
                        return Ok(());
                    }
                    _ => write_scalar(out, f.ty, bytes),
                }
            }
        }
        Ok(())
    }

    #[inline]
    fn write_json_field(
        &self,
        out: &mut Vec<u8>,
        index: usize,
        field: &Field,
        t_ns: i64,
        row: &[u8],
        cache: &mut DayCache,
    ) -> Result<()> {
        match *field {
            Field::Time => match &self.time {
                TimeWriter::EpochInt { .. } | TimeWriter::EpochFrac { .. } => {
                    self.write_time(out, t_ns, cache)
                }
                TimeWriter::Iso { .. } => {
                    out.push(b'"');
                    self.write_time(out, t_ns, cache);
                    out.push(b'"');
                }
                TimeWriter::Strftime(items) => {
                    let mut text = Vec::with_capacity(32);
                    write_strftime(&mut text, t_ns, items);
                    write_json_str(out, &text);
                }
            },
            Field::Column(f) => {
                if f.is_null(row) {
                    out.extend_from_slice(b"null");
                    return Ok(());
                }
                let bytes = f.bytes(row);
                match f.ty {
                    ColumnType::F32 => {
                        let v = f32::from_le_bytes(le(bytes));
                        if v.is_finite() {
                            write_f32(out, v, &mut cache.float_digits[index % 64]);
                        } else {
                            out.extend_from_slice(b"null");
                        }
                    }
                    ColumnType::F64 => {
                        let v = f64::from_le_bytes(le(bytes));
                        if v.is_finite() {
                            write_f64(out, v, &mut cache.float_digits[index % 64]);
                        } else {
                            out.extend_from_slice(b"null");
                        }
                    }
                    ColumnType::Str(_) => {
                        let text = str_bytes(bytes);
                        match std::str::from_utf8(text) {
                            Ok(_) => write_json_str(out, text),
                            // A damaged file: JSON must stay valid UTF-8.
                            Err(_) => write_json_str(out, String::from_utf8_lossy(text).as_bytes()),
                        }
                    }
                    // Dictionary entries are checked UTF-8.
                    ColumnType::Sym => return self.sym(bytes, f.col, t_ns, |text| write_json_str(out, text)),
                    _ => write_scalar(out, f.ty, bytes),
                }
            }
        }
        Ok(())
    }

    /// Text field in CSV (quoted when needed) or TSV (escaped).
    #[inline]
    fn write_text(&self, out: &mut Vec<u8>, text: &[u8]) {
        match self.format {
            Format::Tsv => write_tsv_str(out, text),
            _ => write_csv_str(out, text, b','),
        }
    }

    /// ISO or epoch time (never needs quoting).
    #[inline]
    fn write_time(&self, out: &mut Vec<u8>, t_ns: i64, cache: &mut DayCache) {
        match &self.time {
            TimeWriter::Iso { frac_digits } => write_iso_cached(out, t_ns, *frac_digits, cache),
            TimeWriter::EpochInt { unit_ns } => {
                let v = t_ns / unit_ns;
                write_decimal(out, v < 0, v.unsigned_abs(), 0, false);
            }
            TimeWriter::EpochFrac { digits, step_ns } => {
                // `digits` decimals of the unit: the count of steps, with the point shifted.
                let steps = t_ns.unsigned_abs() / step_ns.unsigned_abs();
                write_decimal(out, t_ns < 0, steps, *digits as usize, false);
            }
            TimeWriter::Strftime(items) => write_strftime(out, t_ns, items),
        }
    }
}

/// The output columns `--columns` asks for (`None`: time, then every column): their names and
/// where each sits in a row. Shared by the text formats and the columnar ones (`io::columnar`).
/// Whether any of `fields` is a `sym` column: only then is the dictionary read.
pub(crate) fn any_sym(fields: &[Field]) -> bool {
    fields
        .iter()
        .any(|f| matches!(f, Field::Column(c) if c.ty == ColumnType::Sym))
}

pub(crate) fn resolve_columns(
    config: &Config,
    columns: Option<&[String]>,
) -> Result<(Vec<String>, Vec<Field>), String> {
    let schema = &config.schema;
    let all_names = || {
        let mut names = vec![config.time_column.clone()];
        names.extend(schema.columns().iter().map(|c| c.name.clone()));
        names
    };
    let names = match columns {
        None => all_names(),
        Some(list) => {
            if list.is_empty() {
                return Err("--columns needs at least one column name".into());
            }
            list.to_vec()
        }
    };
    let mut fields = Vec::with_capacity(names.len());
    for name in &names {
        // Header text (`Adj Close`) names the column it was aliased to.
        let stored = crate::query::stored_name(name, |n| {
            n == config.time_column || schema.column_index(n).is_some()
        })
        .map_err(|e| format!("--columns: {e}"))?;
        let name: &str = stored.as_ref();
        if name == config.time_column {
            fields.push(Field::Time);
            continue;
        }
        let Some(col) = schema.column_index(name) else {
            return Err(format!(
                "unknown column `{name}`; this database has {}",
                all_names().join(",")
            ));
        };
        fields.push(Field::Column(schema.field_at(col)));
    }
    Ok((names, fields))
}

/// The string bytes of a `str(N)` field: up to the first NUL.
#[inline]
pub(crate) fn str_bytes(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// Integers and bools, the same in every format.
#[inline]
fn write_scalar(out: &mut Vec<u8>, ty: ColumnType, bytes: &[u8]) {
    let signed = |out: &mut Vec<u8>, v: i64| write_decimal(out, v < 0, v.unsigned_abs(), 0, false);
    match ty {
        ColumnType::I8 => signed(out, i64::from(i8::from_le_bytes(le(bytes)))),
        ColumnType::I16 => signed(out, i64::from(i16::from_le_bytes(le(bytes)))),
        ColumnType::I32 => signed(out, i64::from(i32::from_le_bytes(le(bytes)))),
        ColumnType::I64 => signed(out, i64::from_le_bytes(le(bytes))),
        ColumnType::U8 => write_decimal(out, false, u64::from(bytes[0]), 0, false),
        ColumnType::U16 => write_decimal(out, false, u64::from(u16::from_le_bytes(le(bytes))), 0, false),
        ColumnType::U32 => write_decimal(out, false, u64::from(u32::from_le_bytes(le(bytes))), 0, false),
        ColumnType::U64 => write_decimal(out, false, u64::from_le_bytes(le(bytes)), 0, false),
        ColumnType::Bool => out.extend_from_slice(if bytes[0] != 0 { b"true" } else { b"false" }),
        // Exactly S decimals, as stored: `61837.63000000`.
        ColumnType::Dec(s) => {
            let v = i64::from_le_bytes(le(bytes));
            write_decimal(out, v < 0, v.unsigned_abs(), usize::from(s), false)
        }
        // Floats and strings are written by the callers.
        ColumnType::F32 | ColumnType::F64 | ColumnType::Str(_) | ColumnType::Sym => {}
    }
}

/// Appends a finite f64 so that it parses back to the same bits. Short decimals (prices,
/// readings: the common case) take a fast path: the fewest fraction digits `k` (up to 9) for
/// which `m / 10^k`, with `m = round(v × 10^k)`, is `v` again. Both are exact in f64 and IEEE
/// division rounds correctly, so `v` is the double nearest the decimal `m·10^-k`, which is what
/// a correct parser returns. Everything else goes to ryu (shortest round trip). Either way the
/// style is ryu's: `1.0`, `15.68`, `1e-7`, `1e16`. A float always carries a `.` or an exponent,
/// so that readers that guess types from text (DuckDB, pandas) see a float column even when
/// every value is whole.
#[inline]
fn write_f64(out: &mut Vec<u8>, v: f64, hint: &mut u8) {
    if (1e-5..1e15).contains(&v.abs()) {
        // The hint first: if it works and its last digit is not 0, no smaller k can work
        // (a smaller k would make m at this k a multiple of 10), so it is the fewest digits.
        let k = usize::from(*hint);
        if let Some(m) = scaled_f64(v, k) {
            if k == 0 || m % 10 != 0 {
                write_decimal(out, m < 0, m.unsigned_abs(), k, true);
                return;
            }
        }
        for k in 0..=9usize {
            if let Some(m) = scaled_f64(v, k) {
                *hint = k as u8;
                write_decimal(out, m < 0, m.unsigned_abs(), k, true);
                return;
            }
        }
    }
    // ryu's text always has a `.` or an exponent (`1.0`, `1e16`), as the fast path's does.
    let mut buf = ryu::Buffer::new();
    out.extend_from_slice(buf.format_finite(v).as_bytes());
}

/// `Some(m)` when the decimal `m · 10^-k` reads back as exactly `v` (see `write_f64`).
#[inline]
fn scaled_f64(v: f64, k: usize) -> Option<i64> {
    const POW10: [f64; 10] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
    let scale = POW10[k.min(9)];
    let scaled = v * scale;
    if scaled.abs() >= 9_007_199_254_740_992.0 {
        return None;
    }
    // |scaled| below 2^53: truncation is exact; round half away from zero by hand
    // (the libm call for `round` is slow without SSE4.1).
    let mut m = scaled as i64;
    let rest = scaled - m as f64;
    if rest >= 0.5 {
        m += 1;
    } else if rest <= -0.5 {
        m -= 1;
    }
    // A cheap necessary condition first: `scaled` must be within a few ulps of `m`; only then
    // pay for the division that decides.
    let near = (scaled - m as f64).abs() <= (m as f64).abs() * 1e-15;
    (near && m != 0 && m as f64 / scale == v).then_some(m)
}

/// `write_f64` for f32 values: the same argument in f32 arithmetic (10^k exact for k <= 10,
/// integers exact below 2^24).
#[inline]
fn write_f32(out: &mut Vec<u8>, v: f32, hint: &mut u8) {
    if (1e-5..1e7).contains(&v.abs()) {
        // The hint first: if it works and its last digit is not 0, no smaller k can work
        // (a smaller k would make m at this k a multiple of 10), so it is the fewest digits.
        let k = usize::from(*hint);
        if let Some(m) = scaled_f32(v, k) {
            if k == 0 || m % 10 != 0 {
                write_decimal(out, m < 0, m.unsigned_abs(), k, true);
                return;
            }
        }
        for k in 0..=9usize {
            if let Some(m) = scaled_f32(v, k) {
                *hint = k as u8;
                write_decimal(out, m < 0, m.unsigned_abs(), k, true);
                return;
            }
        }
    }
    // ryu's text always has a `.` or an exponent (`1.0`, `1e16`), as the fast path's does.
    let mut buf = ryu::Buffer::new();
    out.extend_from_slice(buf.format_finite(v).as_bytes());
}

/// `Some(m)` when the decimal `m · 10^-k` reads back as exactly `v` (see `write_f64`).
#[inline]
fn scaled_f32(v: f32, k: usize) -> Option<i64> {
    const POW10: [f32; 10] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
    let scale = POW10[k.min(9)];
    let scaled = v * scale;
    if scaled.abs() >= 16_777_216.0 {
        return None;
    }
    // |scaled| below 2^24: truncation is exact; round half away from zero by hand
    // (the libm call for `round` is slow without SSE4.1).
    let mut m = scaled as i64;
    let rest = scaled - m as f32;
    if rest >= 0.5 {
        m += 1;
    } else if rest <= -0.5 {
        m -= 1;
    }
    // A cheap necessary condition first: `scaled` must be within a few ulps of `m`; only then
    // pay for the division that decides.
    let near = (scaled - m as f32).abs() <= (m as f32).abs() * 1e-6;
    (near && m != 0 && m as f32 / scale == v).then_some(m)
}

/// Appends `[-]n · 10^-frac_digits` in plain decimal notation; with `frac_digits == 0`,
/// `dot_zero` adds `.0` (a float that is an integer). Numbers below 10^16 with at most 15
/// fraction digits (prices, quantities, ids, counts: nearly every value) take their digits
/// from `eight_digits`, whole words at a time, with no loop and no branch on their length
/// (one word below 10^8, two in a `u128` above); others go to `write_long_decimal`.
#[inline]
fn write_decimal(out: &mut Vec<u8>, negative: bool, n: u64, frac_digits: usize, dot_zero: bool) {
    if n < 100_000_000 && frac_digits < 8 {
        place_digits(out, negative, eight_digits(n as u32), frac_digits, dot_zero);
    } else if n < 10_000_000_000_000_000 && frac_digits < 16 {
        place_digits(out, negative, sixteen_digits(n), frac_digits, dot_zero);
    } else {
        write_long_decimal(out, negative, n, frac_digits, dot_zero);
    }
}

/// A word of ASCII digits, leading zeros included, the first digit in its low byte (so a
/// little-endian store writes them in reading order).
trait DigitWord: Copy {
    /// Digits it holds.
    const DIGITS: usize;
    /// Leading '0' digits (all of them for zero).
    fn leading_zeros(self) -> usize;
    /// The word without its first `k` digits (`k < DIGITS`), zero bytes coming in after.
    fn skip(self, k: usize) -> Self;
    /// Stores the word's bytes at `buf[at..]`.
    fn store(self, buf: &mut [u8; 40], at: usize);
}

/// `DigitWord` for an unsigned integer of `$digits` bytes.
macro_rules! digit_word {
    ($word:ty, $digits:expr) => {
        impl DigitWord for $word {
            const DIGITS: usize = $digits;
            #[inline]
            fn leading_zeros(self) -> usize {
                // Each leading '0' is 8 zero bits once the ASCII offset is gone.
                ((self - <$word>::from_le_bytes([b'0'; $digits])).trailing_zeros() / 8) as usize
            }
            #[inline]
            fn skip(self, k: usize) -> Self {
                self >> (8 * k)
            }
            #[inline]
            fn store(self, buf: &mut [u8; 40], at: usize) {
                if let Some(dst) = buf.get_mut(at..at + $digits) {
                    dst.copy_from_slice(&self.to_le_bytes());
                }
            }
        }
    };
}

digit_word!(u64, 8);
digit_word!(u128, 16);

/// `write_decimal` of the number whose digits are `all` (`frac_digits < W::DIGITS`).
#[inline]
fn place_digits<W: DigitWord>(out: &mut Vec<u8>, negative: bool, all: W, frac_digits: usize, dot_zero: bool) {
    let digits = (W::DIGITS - all.leading_zeros()).max(frac_digits + 1);
    let sign = usize::from(negative);
    // Built in place in 40 reserved bytes with whole-word stores: the digits (and the bytes
    // after them, which are cut or overwritten), then, with a fraction, its digits again one
    // byte further on, after the point.
    let at = out.len();
    out.extend_from_slice(&[b'-'; 40]);
    let Some(buf) = out.last_chunk_mut::<40>() else {
        return;
    };
    all.skip(W::DIGITS - digits).store(buf, sign);
    let len = if frac_digits > 0 {
        let point = sign + digits - frac_digits;
        buf[point] = b'.';
        all.skip(W::DIGITS - frac_digits).store(buf, point + 1);
        sign + digits + 1
    } else if dot_zero {
        buf[sign + digits] = b'.';
        buf[sign + digits + 1] = b'0';
        sign + digits + 2
    } else {
        sign + digits
    };
    out.truncate(at + len);
}

/// The 16 decimal digits of `n < 10^16` as a `DigitWord`.
#[inline]
fn sixteen_digits(n: u64) -> u128 {
    debug_assert!(n < 10_000_000_000_000_000);
    const EIGHT_ZEROS: u64 = 0x3030_3030_3030_3030;
    // The first eight digits are zeros for any number below 10^8: no division then.
    let high = if n >= 100_000_000 {
        eight_digits((n / 100_000_000) as u32)
    } else {
        EIGHT_ZEROS
    };
    u128::from(high) | (u128::from(eight_digits((n % 100_000_000) as u32)) << 64)
}

/// The 8 decimal digits of `n < 10^8` as a `DigitWord`. SWAR: the
/// number is split into lanes of one word, and every lane divided at once by multiplying
/// with a scaled reciprocal (exact for the lanes' ranges, and no lane's product reaches the
/// next lane).
#[inline]
fn eight_digits(n: u32) -> u64 {
    debug_assert!(n < 100_000_000);
    // Two 32-bit lanes of four digits: the first four in the low lane.
    let x = u64::from(n / 10_000) | (u64::from(n % 10_000) << 32);
    // Per lane, x / 100 for x < 10^4 is (x * 10486) >> 20 (the product stays below 2^27).
    let hundreds = ((x * 10_486) >> 20) & 0x0000_007f_0000_007f;
    // Four 16-bit lanes of two digits, in reading order.
    let y = hundreds | ((x - hundreds * 100) << 16);
    // Per lane, y / 10 for y < 100 is (y * 103) >> 10 (the product stays below 2^14).
    let tens = ((y * 103) >> 10) & 0x000f_000f_000f_000f;
    // Eight 8-bit lanes, the tens digit of each pair first.
    (tens | ((y - tens * 10) << 8)) + 0x3030_3030_3030_3030
}

/// `write_decimal` for any u64 and fraction length: two digits per step from the right.
fn write_long_decimal(out: &mut Vec<u8>, negative: bool, mut n: u64, frac_digits: usize, dot_zero: bool) {
    let count = n.checked_ilog10().unwrap_or(0) as usize + 1;
    let digits = count.max(frac_digits + 1);
    let suffix = if frac_digits > 0 {
        1
    } else if dot_zero {
        2
    } else {
        0
    };
    let len = usize::from(negative) + digits + suffix;
    // At most 1 + 20 + 2 bytes (u64 digits), or 1 + 16 + 1 for floats: within 32. The digits
    // are written in place into 32 reserved bytes (one wide store, no copy from a stack buffer,
    // whose byte-wise stores would stall the wide load of the copy), then the rest is cut.
    let at = out.len();
    out.extend_from_slice(&[b'0'; 32]);
    let Some(buf) = out.last_chunk_mut::<32>() else {
        return;
    };
    let mut i = len;
    if frac_digits == 0 && dot_zero {
        buf[len - 2] = b'.';
        i = len - 2;
    }
    let pair = |buf: &mut [u8; 32], i: &mut usize, v: u64| {
        let d = (v as usize) * 2;
        *i -= 2;
        buf[*i] = DIGITS2[d];
        buf[*i + 1] = DIGITS2[d + 1];
    };
    let mut frac = frac_digits;
    while frac >= 2 {
        pair(buf, &mut i, n % 100);
        n /= 100;
        frac -= 2;
    }
    if frac == 1 {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    if frac_digits > 0 {
        i -= 1;
        buf[i] = b'.';
    }
    while n >= 100 {
        pair(buf, &mut i, n % 100);
        n /= 100;
    }
    if n >= 10 {
        pair(buf, &mut i, n);
    } else {
        i -= 1;
        buf[i] = b'0' + n as u8;
    }
    debug_assert_eq!(i, usize::from(negative));
    if negative {
        buf[0] = b'-';
    }
    out.truncate(at + len);
}

/// NaN, inf, -inf: the spellings the importer (Rust's float parser) reads back.
fn write_special(out: &mut Vec<u8>, v: f64) {
    out.extend_from_slice(if v.is_nan() {
        b"NaN"
    } else if v > 0.0 {
        b"inf"
    } else {
        b"-inf"
    });
}

/// Appends `text` as a CSV field, quoted when it holds the delimiter, a quote or a line break.
pub fn write_csv_str(out: &mut Vec<u8>, text: &[u8], delimiter: u8) {
    let needs_quotes = text
        .iter()
        .any(|&b| b == delimiter || b == b'"' || b == b'\n' || b == b'\r');
    if !needs_quotes {
        out.extend_from_slice(text);
        return;
    }
    out.push(b'"');
    for &b in text {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}

/// Appends `text` as a TSV field with `\t`, `\n`, `\r`, `\\` escaped.
pub fn write_tsv_str(out: &mut Vec<u8>, text: &[u8]) {
    for &b in text {
        match b {
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\\' => out.extend_from_slice(b"\\\\"),
            _ => out.push(b),
        }
    }
}

/// Appends `text` (valid UTF-8) as a JSON string.
pub fn write_json_str(out: &mut Vec<u8>, text: &[u8]) {
    out.push(b'"');
    for &b in text {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0..=0x1f => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 15)]);
            }
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

fn write_strftime(out: &mut Vec<u8>, t_ns: i64, items: &[Item<'static>]) {
    let dt = DateTime::from_timestamp_nanos(t_ns);
    // Writes into a Vec<u8> cannot fail; a pattern item chrono cannot render was refused when
    // the pattern was parsed.
    let _ = write!(out, "{}", dt.format_with_items(items.iter()));
}

/// Two ASCII digits for each of 0..100.
const DIGITS2: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

#[inline]
fn push2(out: &mut Vec<u8>, v: u64) {
    let i = (v as usize % 100) * 2;
    out.extend_from_slice(&DIGITS2[i..i + 2]);
}

/// Appends `value` zero-padded to `width` digits (`value` < 10^width).
#[inline]
fn push_padded(out: &mut Vec<u8>, value: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut v = value;
    let width = width.min(20);
    for i in (20 - width..20).rev() {
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    out.extend_from_slice(&buf[20 - width..]);
}

/// `write_iso` with the date part cached across calls on the same day.
#[inline]
fn write_iso_cached(out: &mut Vec<u8>, t_ns: i64, frac_digits: u32, cache: &mut DayCache) {
    let day = t_ns.div_euclid(NS_PER_DAY);
    if day != cache.day {
        let (year, month, day_of_month) = civil_from_days(day);
        let mut p = Vec::with_capacity(11);
        // Years of storable times are 1678..=2261: four digits.
        push_padded(&mut p, year.unsigned_abs(), 4);
        p.push(b'-');
        push2(&mut p, u64::from(month));
        p.push(b'-');
        push2(&mut p, u64::from(day_of_month));
        p.push(b'T');
        if p.len() == 11 {
            cache.prefix.copy_from_slice(&p);
            cache.day = day;
        } else {
            // Out of the four-digit range: take the general path.
            crate::io::timefmt::write_iso(out, t_ns, frac_digits);
            return;
        }
    }
    // `YYYY-MM-DDTHH:MM:SS.fffffffffZ` is at most 30 bytes: written in place into 32 reserved
    // bytes (as in `write_decimal`), then the rest is cut.
    let at = out.len();
    out.extend_from_slice(&[0u8; 32]);
    let Some(buf) = out.last_chunk_mut::<32>() else {
        return;
    };
    buf[..11].copy_from_slice(&cache.prefix);
    let ns_of_day = t_ns.rem_euclid(NS_PER_DAY) as u64;
    let secs = ns_of_day / NS_PER_SEC as u64;
    let two = |buf: &mut [u8; 32], at: usize, v: u64| {
        let i = (v as usize % 100) * 2;
        buf[at] = DIGITS2[i];
        buf[at + 1] = DIGITS2[i + 1];
    };
    two(buf, 11, secs / 3600);
    buf[13] = b':';
    two(buf, 14, secs / 60 % 60);
    buf[16] = b':';
    two(buf, 17, secs % 60);
    let mut len = 19;
    if frac_digits > 0 {
        // All nine digits of the nanoseconds (the first, then eight in one word), of which
        // the `Z` and the cut keep the first `frac_digits`.
        let ns = ns_of_day % NS_PER_SEC as u64;
        buf[19] = b'.';
        buf[20] = b'0' + (ns / 100_000_000) as u8;
        buf[21..29].copy_from_slice(&eight_digits((ns % 100_000_000) as u32).to_le_bytes());
        len = 20 + frac_digits.min(9) as usize;
    }
    buf[len] = b'Z';
    out.truncate(at + len + 1);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::config::Config;
    use crate::io::timefmt::format_iso;

    fn config(spec: &str, granularity: &str) -> Config {
        Config {
            layout: crate::db::config::Layout::Grid,
            bucket_ns: 0,
            granularity: crate::db::time::Granularity::from_ns(
                crate::db::time::parse_duration(granularity).unwrap(),
            )
            .unwrap(),
            period: crate::db::time::Period::Year,
            depth: 2,
            time_column: "time".into(),
            schema: crate::db::schema::Schema::parse_spec(spec).unwrap(),
            keys: Default::default(),
            codec: Default::default(),
            timezone: Default::default(),
            date_order: None,
            decimal_comma: false,
        }
    }

    fn render(config: &Config, options: &OutputOptions, t_ns: i64, fields: &[&str]) -> String {
        let f = RowFormatter::new(config, options).unwrap();
        let mut row = config.schema.new_row();
        for (i, text) in fields.iter().enumerate() {
            config.schema.set_field(&mut row, i, text).unwrap();
        }
        let mut out = Vec::new();
        f.header(&mut out);
        f.row(&mut out, t_ns, &row).unwrap();
        String::from_utf8(out).unwrap()
    }

    const T: i64 = 1_504_224_060_493_000_000; // 2017-09-01T00:01:00.493Z

    #[test]
    fn csv_prints_shortest_floats_nulls_and_quotes() {
        let c = config("a:f64,b:f32,c:str(8),d:i16,e:bool,f:u64", "1ms");
        let out = render(
            &c,
            &OutputOptions::default(),
            T,
            &["0.1", "0.1", "a,\"b\"", "-7", "", "18446744073709551615"],
        );
        assert_eq!(
            out,
            "time,a,b,c,d,e,f\n2017-09-01T00:01:00.493Z,0.1,0.1,\"a,\"\"b\"\"\",-7,,18446744073709551615\n"
        );
        let out = render(
            &c,
            &OutputOptions::default(),
            T,
            &["NaN", "-inf", "", "", "1", ""],
        );
        assert!(out.ends_with(",NaN,-inf,,,true,\n"), "{out}");
    }

    #[test]
    fn ndjson_uses_null_for_nulls_and_non_finite() {
        let c = config("a:f64,b:str(8),c:i8", "1s");
        let options = OutputOptions {
            format: Format::Ndjson,
            ..OutputOptions::default()
        };
        let out = render(&c, &options, 0, &["inf", "q\"\n", ""]);
        assert_eq!(
            out,
            "{\"time\":\"1970-01-01T00:00:00Z\",\"a\":null,\"b\":\"q\\\"\\n\",\"c\":null}\n"
        );
    }

    #[test]
    fn tsv_escapes_and_projection_orders() {
        let c = config("a:f64,b:str(8)", "1s");
        let options = OutputOptions {
            format: Format::Tsv,
            columns: Some(vec!["b".into(), "time".into()]),
            ..OutputOptions::default()
        };
        assert_eq!(
            render(&c, &options, 0, &["1", "x\ty"]),
            "b\ttime\nx\\ty\t1970-01-01T00:00:00Z\n"
        );
        let bad = OutputOptions {
            columns: Some(vec!["nope".into()]),
            ..OutputOptions::default()
        };
        assert!(RowFormatter::new(&c, &bad)
            .unwrap_err()
            .contains("unknown column `nope`"));
    }

    #[test]
    fn time_formats() {
        let c = config("a:i8", "1ms");
        let with = |tf: &str| OutputOptions {
            time_format: TimeFormat::parse(tf).unwrap(),
            header: false,
            ..OutputOptions::default()
        };
        assert_eq!(render(&c, &with("epoch-ms"), T, &["1"]), "1504224060493,1\n");
        assert_eq!(
            render(&c, &with("epoch-ns"), T, &["1"]),
            "1504224060493000000,1\n"
        );
        assert_eq!(render(&c, &with("epoch-s"), T, &["1"]), "1504224060.493,1\n");
        assert_eq!(render(&c, &with("epoch-s"), -1_000_000, &["1"]), "-0.001,1\n");
        assert_eq!(
            render(&c, &with("%Y/%m/%d %H:%M"), T, &["1"]),
            "2017/09/01 00:01,1\n"
        );
        assert_eq!(render(&c, &with("%d,%m"), T, &["1"]), "\"01,09\",1\n");
        assert!(TimeFormat::parse("%Q").is_err());
        assert!(TimeFormat::parse("seconds").is_err());
    }

    #[test]
    fn cached_iso_matches_the_general_one() {
        let mut cache = DayCache::new();
        let mut times = vec![
            -3_000_000_000_000_000_007i64,
            -1,
            0,
            1,
            T,
            T + 123_456_789,
            T + 999_999_999,
            7_000_000_000_000_000_003,
        ];
        // Random times of a few days (the cached date reused and replaced), every fraction.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            times.push(T + (state % (3 * NS_PER_DAY as u64)) as i64);
        }
        for t in times {
            for digits in 0..=9 {
                let mut out = Vec::new();
                write_iso_cached(&mut out, t, digits, &mut cache);
                assert_eq!(String::from_utf8(out).unwrap(), format_iso(t, digits));
            }
        }
    }

    #[test]
    fn floats_print_short_and_round_trip() {
        let cases: &[(f64, &str)] = &[
            (15.68, "15.68"),
            (-1013.25, "-1013.25"),
            (1.0, "1.0"),
            (52.0, "52.0"),
            (-3.0, "-3.0"),
            (1e14, "100000000000000.0"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e16"),
            (0.001669, "0.001669"),
            (30000.07, "30000.07"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e-7, "1e-7"),
            (1e300, "1e300"),
            (-0.0, "-0.0"),
            (5e-324, "5e-324"),
            (123456789.123, "123456789.123"),
        ];
        for &(v, text) in cases {
            let mut out = Vec::new();
            write_f64(&mut out, v, &mut 0);
            assert_eq!(String::from_utf8(out).unwrap(), text);
        }
        // Every value prints to text that parses back to the same bits.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for i in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = match i % 4 {
                0 => f64::from_bits(x),
                1 => (x % 10_000_000) as f64 / 100.0,
                2 => (x % 1_000_000_000) as f64 / 1e6 - 500.0,
                _ => f64::from(f32::from_bits(x as u32)),
            };
            if !v.is_finite() {
                continue;
            }
            let mut out = Vec::new();
            write_f64(&mut out, v, &mut 0);
            let text = String::from_utf8(out).unwrap();
            assert_eq!(text.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{text}");
            // A float reads as a float: a `.` or an exponent, always.
            let floaty = |t: &str| t.contains(['.', 'e']);
            assert!(floaty(&text), "{text}");
            let w = f32::from_bits(x as u32);
            if w.is_finite() {
                let mut out = Vec::new();
                write_f32(&mut out, w, &mut 3);
                let text = String::from_utf8(out).unwrap();
                assert_eq!(text.parse::<f32>().unwrap().to_bits(), w.to_bits(), "{text}");
                assert!(floaty(&text), "{text}");
            }
            let y = (x % 100_000) as f32 / 100.0;
            let mut out = Vec::new();
            write_f32(&mut out, y, &mut 1);
            let text = String::from_utf8(out).unwrap();
            assert_eq!(text.parse::<f32>().unwrap().to_bits(), y.to_bits(), "{text}");
            assert!(floaty(&text), "{text}");
        }
    }

    #[test]
    fn a_lone_null_csv_field_is_quoted() {
        let c = config("a:f64,b:i8", "1s");
        let options = OutputOptions {
            columns: Some(vec!["b".into()]),
            ..OutputOptions::default()
        };
        assert_eq!(render(&c, &options, 0, &["1", ""]), "b\n\"\"\n");
    }

    /// `write_decimal`'s text after an `x`: what it appends, and nothing before it touched.
    fn text(negative: bool, n: u64, k: usize, dot_zero: bool) -> String {
        let mut out = b"x".to_vec();
        write_decimal(&mut out, negative, n, k, dot_zero);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn decimals_print_every_integer() {
        assert_eq!(text(false, 0, 0, false), "x0");
        assert_eq!(text(false, u64::MAX, 0, false), "x18446744073709551615");
        assert_eq!(
            text(true, i64::MIN.unsigned_abs(), 0, false),
            "x-9223372036854775808"
        );
        assert_eq!(text(true, 5, 3, false), "x-0.005");
        assert_eq!(text(false, 1568, 2, true), "x15.68");
        assert_eq!(text(false, 7, 0, true), "x7.0");
        assert_eq!(text(false, 7, 0, false), "x7");
        assert_eq!(text(false, 9_007_199_254_740_991, 9, true), "x9007199.254740991");
    }

    /// `write_decimal` as `format!` spells it.
    fn reference_decimal(negative: bool, n: u64, k: usize, dot_zero: bool) -> String {
        let digits = format!("{n:0>width$}", width = k + 1);
        let (int, frac) = digits.split_at(digits.len() - k);
        let sign = if negative { "-" } else { "" };
        match (k, dot_zero) {
            (0, true) => format!("{sign}{int}.0"),
            (0, false) => format!("{sign}{int}"),
            _ => format!("{sign}{int}.{frac}"),
        }
    }

    #[test]
    fn decimals_match_the_reference_at_every_length() {
        let check = |n: u64, k: usize| {
            for (negative, dot_zero) in [(false, false), (true, false), (false, true), (true, true)] {
                assert_eq!(
                    text(negative, n, k, dot_zero),
                    format!("x{}", reference_decimal(negative, n, k, dot_zero)),
                    "n {n} k {k}"
                );
            }
        };
        // Every length's edges (10^j - 1, 10^j, 10^j + 1), both sides of the fast path's
        // bounds (10^8: one word of digits or two; 10^16 and 15 fraction digits: the long way).
        let mut edges = vec![0, 1, u64::MAX, u64::MAX - 1];
        for j in 0..20 {
            let p = 10u64.pow(j);
            edges.extend([p - 1, p, p + 1, p / 10 * 9 + 5]);
        }
        for &n in &edges {
            for k in 0..=19 {
                check(n, k);
            }
        }
        // Random numbers of every magnitude.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let n = state >> (state % 64);
            check(n, (state >> 8) as usize % 19);
        }
    }

    #[test]
    fn file_names_pick_formats() {
        assert_eq!(Format::from_file_name("a.tsv.zst"), Some(Format::Tsv));
        assert_eq!(Format::from_file_name("a.jsonl"), Some(Format::Ndjson));
        assert_eq!(Format::from_file_name("a.CSV"), Some(Format::Csv));
        assert_eq!(Format::from_file_name("a"), None);
    }
}
