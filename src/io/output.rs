//! Row output: stored rows formatted as CSV, TSV or NDJSON straight from their bytes, without
//! decoding into intermediate values. Floats print shortest-round-trip (so a re-import stores the
//! same bits), nulls as empty fields (CSV, TSV) or `null` (NDJSON), times as ISO-8601 UTC with
//! the granularity's precision, as epoch numbers, or through a strftime pattern.

use std::io::Write;

use chrono::format::{Item, StrftimeItems};
use chrono::DateTime;

use crate::db::config::Config;
use crate::db::schema::ColumnType;
use crate::db::time::{civil_from_days, NS_PER_DAY, NS_PER_SEC};
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
enum Field {
    Time,
    Column {
        ty: ColumnType,
        /// Byte offset of the value in the row.
        offset: usize,
        width: usize,
        /// Byte and mask of the column's null bit in the row header.
        null_byte: usize,
        null_mask: u8,
    },
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
        unit_ns: i64,
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
    row_len: usize,
    slab_len: usize,
    granularity_ns: i64,
}

/// The `YYYY-MM-DDT` of the last day printed, so a chunk computes each date once.
struct DayCache {
    day: i64,
    prefix: [u8; 11],
}

impl DayCache {
    fn new() -> DayCache {
        DayCache {
            day: i64::MIN,
            prefix: [0; 11],
        }
    }
}

impl RowFormatter {
    /// Checks the options against the database's columns; `Err` names an unknown column.
    pub fn new(config: &Config, options: &OutputOptions) -> Result<RowFormatter, String> {
        let schema = &config.schema;
        let all_names = || {
            let mut names = vec![config.time_column.clone()];
            names.extend(schema.columns().iter().map(|c| c.name.clone()));
            names
        };
        let names = match &options.columns {
            None => all_names(),
            Some(list) => {
                if list.is_empty() {
                    return Err("--columns needs at least one column name".into());
                }
                list.clone()
            }
        };
        let mut fields = Vec::with_capacity(names.len());
        for name in &names {
            if *name == config.time_column {
                fields.push(Field::Time);
                continue;
            }
            let Some(col) = schema.column_index(name) else {
                return Err(format!(
                    "unknown column `{name}`; this database has {}",
                    all_names().join(",")
                ));
            };
            let ty = schema.columns()[col].ty;
            let offset = schema.field_offset(col);
            let null_bit = 1 + col;
            fields.push(Field::Column {
                ty,
                offset,
                width: ty.width_bytes(),
                null_byte: null_bit / 8,
                null_mask: 1 << (null_bit % 8),
            });
        }
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
                        unit_ns,
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
            row_len: schema.row_len(),
            slab_len: usize::try_from(config.slab_len()).map_err(|_| "slot too large".to_string())?,
            granularity_ns,
        })
    }

    pub fn format(&self) -> Format {
        self.format
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

    /// Appends one row stored at `t_ns`.
    pub fn row(&self, out: &mut Vec<u8>, t_ns: i64, row: &[u8]) {
        self.write_row(out, t_ns, row, &mut DayCache::new());
    }

    /// Appends the present rows of `bytes`, whole slots from the one at `start_ns` on (as
    /// `Database::scan_chunks` hands them out), at most `max_rows`. Returns the rows written.
    pub fn chunk(&self, out: &mut Vec<u8>, start_ns: i64, bytes: &[u8], max_rows: u64) -> u64 {
        let mut cache = DayCache::new();
        let mut rows = 0u64;
        let mut t_ns = start_ns;
        for slab in bytes.chunks_exact(self.slab_len) {
            // The first row of a slot tells whether the slot holds anything.
            if slab[0] & 1 != 0 {
                for row in slab.chunks_exact(self.row_len) {
                    if row[0] & 1 == 0 {
                        break;
                    }
                    if rows == max_rows {
                        return rows;
                    }
                    self.write_row(out, t_ns, row, &mut cache);
                    rows += 1;
                }
            }
            t_ns += self.granularity_ns;
        }
        rows
    }

    #[inline]
    fn write_row(&self, out: &mut Vec<u8>, t_ns: i64, row: &[u8], cache: &mut DayCache) {
        match self.format {
            Format::Csv | Format::Tsv => {
                let delimiter = if self.format == Format::Csv { b',' } else { b'\t' };
                for (i, field) in self.fields.iter().enumerate() {
                    if i > 0 {
                        out.push(delimiter);
                    }
                    self.write_text_field(out, field, t_ns, row, cache);
                }
                out.push(b'\n');
            }
            Format::Ndjson => {
                for (key, field) in self.json_keys.iter().zip(&self.fields) {
                    out.extend_from_slice(key);
                    self.write_json_field(out, field, t_ns, row, cache);
                }
                out.extend_from_slice(b"}\n");
            }
        }
    }

    #[inline]
    fn write_text_field(
        &self,
        out: &mut Vec<u8>,
        field: &Field,
        t_ns: i64,
        row: &[u8],
        cache: &mut DayCache,
    ) {
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
            Field::Column {
                ty,
                offset,
                width,
                null_byte,
                null_mask,
            } => {
                if row[null_byte] & null_mask != 0 {
                    return;
                }
                let bytes = &row[offset..offset + width];
                match ty {
                    ColumnType::F32 => {
                        let v = f32::from_le_bytes(le(bytes));
                        if v.is_finite() {
                            out.extend_from_slice(ryu::Buffer::new().format_finite(v).as_bytes());
                        } else {
                            write_special(out, f64::from(v));
                        }
                    }
                    ColumnType::F64 => {
                        let v = f64::from_le_bytes(le(bytes));
                        if v.is_finite() {
                            out.extend_from_slice(ryu::Buffer::new().format_finite(v).as_bytes());
                        } else {
                            write_special(out, v);
                        }
                    }
                    ColumnType::Str(_) => self.write_text(out, str_bytes(bytes)),
                    _ => write_scalar(out, ty, bytes),
                }
            }
        }
    }

    #[inline]
    fn write_json_field(
        &self,
        out: &mut Vec<u8>,
        field: &Field,
        t_ns: i64,
        row: &[u8],
        cache: &mut DayCache,
    ) {
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
            Field::Column {
                ty,
                offset,
                width,
                null_byte,
                null_mask,
            } => {
                if row[null_byte] & null_mask != 0 {
                    out.extend_from_slice(b"null");
                    return;
                }
                let bytes = &row[offset..offset + width];
                match ty {
                    ColumnType::F32 => {
                        let v = f32::from_le_bytes(le(bytes));
                        if v.is_finite() {
                            out.extend_from_slice(ryu::Buffer::new().format_finite(v).as_bytes());
                        } else {
                            out.extend_from_slice(b"null");
                        }
                    }
                    ColumnType::F64 => {
                        let v = f64::from_le_bytes(le(bytes));
                        if v.is_finite() {
                            out.extend_from_slice(ryu::Buffer::new().format_finite(v).as_bytes());
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
                    _ => write_scalar(out, ty, bytes),
                }
            }
        }
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
                out.extend_from_slice(itoa::Buffer::new().format(t_ns / unit_ns).as_bytes());
            }
            TimeWriter::EpochFrac {
                unit_ns,
                digits,
                step_ns,
            } => {
                if t_ns < 0 {
                    out.push(b'-');
                }
                let abs = t_ns.unsigned_abs();
                let unit = unit_ns.unsigned_abs();
                out.extend_from_slice(itoa::Buffer::new().format(abs / unit).as_bytes());
                out.push(b'.');
                push_padded(out, (abs % unit) / step_ns.unsigned_abs(), *digits as usize);
            }
            TimeWriter::Strftime(items) => write_strftime(out, t_ns, items),
        }
    }
}

/// The string bytes of a `str(N)` field: up to the first NUL.
#[inline]
fn str_bytes(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// Integers and bools, the same in every format.
#[inline]
fn write_scalar(out: &mut Vec<u8>, ty: ColumnType, bytes: &[u8]) {
    let mut buf = itoa::Buffer::new();
    let text = match ty {
        ColumnType::I8 => buf.format(i8::from_le_bytes(le(bytes))),
        ColumnType::I16 => buf.format(i16::from_le_bytes(le(bytes))),
        ColumnType::I32 => buf.format(i32::from_le_bytes(le(bytes))),
        ColumnType::I64 => buf.format(i64::from_le_bytes(le(bytes))),
        ColumnType::U8 => buf.format(bytes[0]),
        ColumnType::U16 => buf.format(u16::from_le_bytes(le(bytes))),
        ColumnType::U32 => buf.format(u32::from_le_bytes(le(bytes))),
        ColumnType::U64 => buf.format(u64::from_le_bytes(le(bytes))),
        ColumnType::Bool => {
            if bytes[0] != 0 {
                "true"
            } else {
                "false"
            }
        }
        // Floats and strings are written by the callers.
        ColumnType::F32 | ColumnType::F64 | ColumnType::Str(_) => "",
    };
    out.extend_from_slice(text.as_bytes());
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

/// Reads a little-endian array out of a field whose width matches by construction.
#[inline]
fn le<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&bytes[..N]);
    out
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
    out.extend_from_slice(&cache.prefix);
    let ns_of_day = t_ns.rem_euclid(NS_PER_DAY) as u64;
    let secs = ns_of_day / NS_PER_SEC as u64;
    push2(out, secs / 3600);
    out.push(b':');
    push2(out, secs / 60 % 60);
    out.push(b':');
    push2(out, secs % 60);
    if frac_digits > 0 {
        let digits = frac_digits.min(9);
        out.push(b'.');
        push_padded(
            out,
            ns_of_day % NS_PER_SEC as u64 / 10u64.pow(9 - digits),
            digits as usize,
        );
    }
    out.push(b'Z');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::config::Config;
    use crate::io::timefmt::format_iso;

    fn config(spec: &str, granularity: &str) -> Config {
        Config {
            layout: crate::db::config::Layout::Grid,
            granularity: crate::db::time::Granularity::from_ns(
                crate::db::time::parse_duration(granularity).unwrap(),
            )
            .unwrap(),
            period: crate::db::time::Period::Year,
            depth: 2,
            time_column: "time".into(),
            schema: crate::db::schema::Schema::parse_spec(spec).unwrap(),
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
        f.row(&mut out, t_ns, &row);
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
        for t in [
            -3_000_000_000_000_000_007i64,
            -1,
            0,
            1,
            T,
            7_000_000_000_000_000_003,
        ] {
            for digits in [0, 3, 9] {
                let mut out = Vec::new();
                write_iso_cached(&mut out, t, digits, &mut cache);
                assert_eq!(String::from_utf8(out).unwrap(), format_iso(t, digits));
            }
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
