//! Row output: stored rows formatted as delimited text. Floats print shortest-round-trip, so a
//! re-import stores the same bits; nulls print as empty fields.

use std::io::Write;

use crate::db::config::Config;
use crate::db::schema::{decode_field, Schema, Value};
use crate::io::timefmt::write_iso;

/// Formats rows of one database as CSV (or another single-byte delimiter) into a byte buffer.
pub struct CsvFormatter<'a> {
    schema: &'a Schema,
    time_column: &'a str,
    frac_digits: u32,
    delimiter: u8,
}

impl<'a> CsvFormatter<'a> {
    pub fn new(config: &'a Config) -> CsvFormatter<'a> {
        CsvFormatter {
            schema: &config.schema,
            time_column: &config.time_column,
            frac_digits: config.granularity.fraction_digits(),
            delimiter: b',',
        }
    }

    pub fn header(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.time_column.as_bytes());
        for c in self.schema.columns() {
            out.push(self.delimiter);
            out.extend_from_slice(c.name.as_bytes());
        }
        out.push(b'\n');
    }

    /// Appends one row, time first, then every column, then a newline.
    pub fn row(&self, out: &mut Vec<u8>, t_ns: i64, row: &[u8]) {
        write_iso(out, t_ns, self.frac_digits);
        for (col, c) in self.schema.columns().iter().enumerate() {
            out.push(self.delimiter);
            if self.schema.is_null(row, col) {
                continue;
            }
            write_value(
                out,
                &decode_field(c.ty, self.schema.field_bytes(row, col)),
                self.delimiter,
            );
        }
        out.push(b'\n');
    }
}

/// Appends one value as a CSV field; text is quoted when it holds the delimiter, a quote or a
/// line break.
pub fn write_value(out: &mut Vec<u8>, value: &Value, delimiter: u8) {
    // Writes into a Vec<u8> cannot fail.
    match value {
        Value::Null => {}
        Value::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Value::UInt(v) => {
            let _ = write!(out, "{v}");
        }
        Value::Float(v) => write_float(out, *v),
        Value::Bool(v) => out.extend_from_slice(if *v { b"true" } else { b"false" }),
        Value::Str(s) => {
            let needs_quotes = s
                .bytes()
                .any(|b| b == delimiter || b == b'"' || b == b'\n' || b == b'\r');
            if needs_quotes {
                out.push(b'"');
                for b in s.bytes() {
                    if b == b'"' {
                        out.push(b'"');
                    }
                    out.push(b);
                }
                out.push(b'"');
            } else {
                out.extend_from_slice(s.as_bytes());
            }
        }
    }
}

/// Shortest text that parses back to the same f64 (`NaN`, `inf`, `-inf` for the specials).
pub fn write_float(out: &mut Vec<u8>, v: f64) {
    if v.is_nan() {
        out.extend_from_slice(b"NaN");
    } else if v.is_infinite() {
        out.extend_from_slice(if v > 0.0 { b"inf" } else { b"-inf" });
    } else {
        let _ = write!(out, "{v}");
    }
}
