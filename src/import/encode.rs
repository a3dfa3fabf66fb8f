//! The import's row encoder: the fast path of `Schema::set_field` for the common cases (plain
//! integers, plain decimals, booleans, short text), falling back to `set_field` itself for
//! anything unusual, so the stored bytes and the errors are exactly `set_field`'s.

use crate::db::schema::{ColumnType, FieldError, Schema};

/// Encodes text fields into rows of one schema without allocating.
#[derive(Clone, Debug)]
pub struct Encoder {
    /// Per column: type, byte offset in the row, width.
    columns: Vec<(ColumnType, usize, usize)>,
    /// A fresh row: present, every column null.
    template: Vec<u8>,
}

impl Encoder {
    pub fn new(schema: &Schema) -> Encoder {
        // Columns follow the flags header in schema order, unpadded (see docs/FORMAT.md).
        let mut at = schema.header_len();
        let columns = schema
            .columns()
            .iter()
            .map(|c| {
                let w = c.ty.width_bytes();
                let col = (c.ty, at, w);
                at += w;
                col
            })
            .collect();
        Encoder {
            columns,
            template: schema.new_row(),
        }
    }

    /// A fresh row: present, every column null.
    #[inline]
    pub fn template(&self) -> &[u8] {
        &self.template
    }

    /// Resets `row` to present with every column null.
    #[inline]
    pub fn init_row(&self, row: &mut [u8]) {
        row.copy_from_slice(&self.template);
    }

    /// Makes column `col` of `row` null again (after a failed `set`).
    pub fn set_null(&self, row: &mut [u8], col: usize) {
        let (_, at, width) = self.columns[col];
        row[at..at + width].copy_from_slice(&self.template[at..at + width]);
        let bit = 1 + col;
        row[bit / 8] |= 1u8 << (bit % 8);
    }

    /// Stores a `sym` code in column `col` of `row` and clears its null flag.
    #[inline]
    pub fn set_code(&self, row: &mut [u8], col: usize, code: u32) {
        let (_, at, _) = self.columns[col];
        row[at..at + 4].copy_from_slice(&code.to_le_bytes());
        clear_null_bit(row, col);
    }

    /// Column `col`'s type, byte offset in the row and width (for encoders that store values
    /// themselves, `columnar_rows`).
    #[inline]
    pub fn slot(&self, col: usize) -> (ColumnType, usize, usize) {
        self.columns[col]
    }

    /// Clears column `col`'s null flag in `row` (after storing its value).
    #[inline]
    pub fn clear_null(&self, row: &mut [u8], col: usize) {
        clear_null_bit(row, col);
    }

    /// Whether null tokens (`NA`, `null`…) read as null in column `col`: every type but text,
    /// where they are text.
    pub fn is_nullable_token_column(&self, col: usize) -> bool {
        !self.columns[col].0.is_text()
    }

    /// Stores `text` in column `col` of a row fresh from `init_row` (each column set once).
    // Always inlined: the import's per-field loop calls it again on its rare retry paths, and
    // with three call sites the compiler stopped inlining the hot one (a third more CPU per row).
    #[inline(always)]
    pub fn set(&self, schema: &Schema, row: &mut [u8], col: usize, text: &[u8]) -> Result<(), FieldError> {
        if text.is_empty() {
            return Ok(()); // already null
        }
        let (ty, at, width) = self.columns[col];
        let done = {
            let dst = &mut row[at..at + width];
            match ty {
                ColumnType::I64 => parse_i64(text).map(|v| dst.copy_from_slice(&v.to_le_bytes())),
                ColumnType::I32 => parse_i64(text)
                    .and_then(|v| i32::try_from(v).ok())
                    .map(|v| dst.copy_from_slice(&v.to_le_bytes())),
                ColumnType::I16 => parse_i64(text)
                    .and_then(|v| i16::try_from(v).ok())
                    .map(|v| dst.copy_from_slice(&v.to_le_bytes())),
                ColumnType::I8 => parse_i64(text)
                    .and_then(|v| i8::try_from(v).ok())
                    .map(|v| dst.copy_from_slice(&v.to_le_bytes())),
                ColumnType::U64 => parse_i64(text)
                    .and_then(|v| u64::try_from(v).ok())
                    .map(|v| dst.copy_from_slice(&v.to_le_bytes())),
                ColumnType::U32 => parse_i64(text)
                    .and_then(|v| u32::try_from(v).ok())
                    .map(|v| dst.copy_from_slice(&v.to_le_bytes())),
                ColumnType::U16 => parse_i64(text)
                    .and_then(|v| u16::try_from(v).ok())
                    .map(|v| dst.copy_from_slice(&v.to_le_bytes())),
                ColumnType::U8 => parse_i64(text)
                    .and_then(|v| u8::try_from(v).ok())
                    .map(|v| dst.copy_from_slice(&v.to_le_bytes())),
                ColumnType::F64 => parse_f64(text).map(|v| dst.copy_from_slice(&v.to_le_bytes())),
                ColumnType::F32 => None,
                // Exact or an error: the error path parses again for its reason.
                ColumnType::Dec(scale) => crate::db::decimal::parse(text, scale)
                    .ok()
                    .map(|v| dst.copy_from_slice(&v.to_le_bytes())),
                ColumnType::Bool => {
                    let value = match text {
                        b"true" | b"TRUE" | b"True" | b"1" => Some(1),
                        b"false" | b"FALSE" | b"False" | b"0" => Some(0),
                        _ => None,
                    };
                    value.map(|v| dst[0] = v)
                }
                // Needs a dictionary: the import encodes it itself (`import::syms`).
                ColumnType::Sym => None,
                // `\N` is a database dump's null (PostgreSQL's COPY, MySQL), in text too.
                ColumnType::Str(_) if text == b"\\N" => return Ok(()),
                ColumnType::Str(_) => {
                    if text.len() <= width && !text.contains(&0) && std::str::from_utf8(text).is_ok() {
                        dst[..text.len()].copy_from_slice(text);
                        Some(())
                    } else {
                        None
                    }
                }
            }
        };
        if done.is_some() {
            clear_null_bit(row, col);
            return Ok(());
        }
        let text = std::str::from_utf8(text).map_err(|_| FieldError::NotUtf8 { ty })?;
        schema.set_field(row, col, text)
    }
}

/// Clears column `col`'s null flag: flag bit `1 + col` of the row header.
#[inline]
fn clear_null_bit(row: &mut [u8], col: usize) {
    let bit = 1 + col;
    row[bit / 8] &= !(1u8 << (bit % 8));
}

/// `[-]d{1,18}` exactly; anything else (signs, spaces, longer numbers) is left to the slow path.
#[inline]
fn parse_i64(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + i64::from(d);
    }
    Some(if negative { -v } else { v })
}

const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// `[-]digits[.digits]` with at most 15 significant digits: the mantissa and the power of ten
/// are both exact doubles, so one IEEE division rounds correctly (Clinger's fast path) and
/// gives the bits `str::parse` gives. Anything else is left to the slow path.
#[inline(always)]
fn parse_f64(text: &[u8]) -> Option<f64> {
    let (negative, body) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        _ => (false, text),
    };
    let mut mantissa: u64 = 0;
    let mut digits = 0usize;
    let mut frac_digits = 0usize;
    let mut seen_dot = false;
    for &c in body {
        if c == b'.' {
            if seen_dot {
                return None;
            }
            seen_dot = true;
            continue;
        }
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        mantissa = mantissa * 10 + u64::from(d);
        digits += 1;
        if seen_dot {
            frac_digits += 1;
        }
        if digits > 15 {
            return None;
        }
    }
    if digits == 0 {
        return None;
    }
    // `digits <= 15`, so the mantissa is below 10^15 < 2^53: exact as f64.
    let v = mantissa as f64 / POW10[frac_digits];
    Some(if negative { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path must store exactly what `Schema::set_field` stores, or fail as it does.
    #[test]
    fn matches_set_field_exactly() {
        let schema =
            Schema::parse_spec("a:i8,b:u16,c:i32,d:u64,e:i64,f:f64,g:f32,h:bool,i:str(5),j:u8").unwrap();
        let enc = Encoder::new(&schema);
        let samples = [
            "0",
            "-0",
            "1",
            "-1",
            "127",
            "128",
            "-128",
            "-129",
            "255",
            "256",
            "65535",
            "65536",
            "+5",
            " 5",
            "5 ",
            "1.5",
            "1.",
            ".5",
            "-.5",
            "0.1",
            "15.68",
            "1013.26",
            "-0.0",
            "123456789012345",
            "1234567890123456",
            "0.000000000000001",
            "99999999999999999999",
            "9223372036854775807",
            "-9223372036854775808",
            "18446744073709551615",
            "1e5",
            "inf",
            "NaN",
            "true",
            "True",
            "false",
            "t",
            "yes",
            "abc",
            "abcdef",
            "héé",
            "é",
            "x\0",
            "--1",
            "1-",
            "..",
            "-",
            "",
        ];
        for text in samples {
            for col in 0..schema.columns().len() {
                let mut fast = schema.new_row();
                let mut slow = schema.new_row();
                enc.init_row(&mut fast);
                let rf = enc.set(&schema, &mut fast, col, text.as_bytes());
                let rs = schema.set_field(&mut slow, col, text);
                assert_eq!(rf, rs, "column {col} text {text:?}");
                if rs.is_ok() {
                    assert_eq!(fast, slow, "column {col} text {text:?}");
                }
            }
        }
    }
}
