//! Series names. A database with a series key keeps each series (each distinct value of the
//! key's columns) in a directory of its own, `series/NAME/`, of ordinary partition files: a
//! series is found by computing its directory name from its values, so reading or writing one
//! series costs what it costs in a single-series database, whatever the number of others.
//!
//! NAME is each key value's text (as `xs range` prints it), escaped, joined by `,`: bytes other
//! than ASCII letters, digits, `_` and `-` (and `.` after a part's first byte) are written
//! `%XX`; a null value is `%00` (a value never holds a NUL byte). See docs/FORMAT.md.

use std::cmp::Ordering;

use super::schema::{ColumnType, Schema, Value};

/// The directory under a series database that holds one directory per series.
pub const SERIES_DIR: &str = "series";

/// Longest series directory name accepted (file systems allow 255 bytes).
pub const MAX_NAME_BYTES: usize = 240;

/// The escaped text of a null value.
const NULL_PART: &str = "%00";

/// The text a value is named by: as `xs range` prints it (floats in their shortest form).
pub fn value_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::Int(v) => Some(v.to_string()),
        Value::UInt(v) => Some(v.to_string()),
        Value::Float(v) => Some(format!("{v:?}")),
        Value::Bool(v) => Some(v.to_string()),
        Value::Str(s) if s.is_empty() => None,
        Value::Str(s) => Some(s.clone()),
        Value::Dec(v, s) => Some(super::decimal::to_string(i128::from(*v), *s)),
    }
}

/// The directory name of the series whose key values are `values`.
pub fn name_of(values: &[Value]) -> String {
    let mut name = String::new();
    for (i, value) in values.iter().enumerate() {
        push_part(&mut name, i, value_text(value).as_deref());
    }
    name
}

/// Appends part `i` of a series name, the text of one key value (`None` for a null one): the
/// parts of `name_of`, for callers that have the texts without making `Value`s.
pub fn push_part(name: &mut String, i: usize, text: Option<&str>) {
    if i > 0 {
        name.push(',');
    }
    match text {
        None | Some("") => name.push_str(NULL_PART),
        Some(text) => escape_into(text, name),
    }
}

/// Refuses a series name too long for a directory (a `sym` key value can be any length).
pub fn check_name(name: &str) -> Result<(), String> {
    if name.len() > MAX_NAME_BYTES {
        return Err(format!(
            "the series key's values make a directory name of {} bytes, past the \
             {MAX_NAME_BYTES} bytes a name may have (each byte other than letters, digits, `_`, `-`, `.` takes 3)",
            name.len()
        ));
    }
    Ok(())
}

/// The series name of a stored row: its key columns' values (a `sym` code its dictionary
/// lost is an error).
pub fn name_of_row(schema: &Schema, columns: &[usize], row: &[u8]) -> crate::error::Result<String> {
    let values = columns
        .iter()
        .map(|&c| schema.value(row, c))
        .collect::<crate::error::Result<Vec<Value>>>()?;
    Ok(name_of(&values))
}

fn escape_into(text: &str, out: &mut String) {
    for (i, &b) in text.as_bytes().iter().enumerate() {
        let plain = b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (b == b'.' && i > 0);
        if plain {
            out.push(char::from(b));
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
}

/// The key values' texts of a series directory name (`None` for a null value); `None` when
/// `name` is not one this module writes (a foreign directory).
pub fn parts_of(name: &str) -> Option<Vec<Option<String>>> {
    if name.is_empty() || name.len() > MAX_NAME_BYTES {
        return None;
    }
    let mut parts = Vec::new();
    for part in name.split(',') {
        if part == NULL_PART {
            parts.push(None);
            continue;
        }
        let bytes = part.as_bytes();
        let mut text = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                let b = u8::from_str_radix(hex, 16).ok()?;
                if b == 0 || hex.bytes().any(|h| h.is_ascii_lowercase()) {
                    return None;
                }
                text.push(b);
                i += 3;
            } else {
                text.push(bytes[i]);
                i += 1;
            }
        }
        let text = String::from_utf8(text).ok()?;
        // Only the canonical spelling names a series: one directory per series.
        let mut again = String::new();
        escape_into(&text, &mut again);
        if again != part || text.is_empty() {
            return None;
        }
        parts.push(Some(text));
    }
    Some(parts)
}

/// The series `name` as `--series` takes it: its values' text, joined by `:` (a null is empty).
pub fn text_of(name: &str) -> String {
    parts_of(name)
        .map(|parts| {
            let texts: Vec<String> = parts.into_iter().map(Option::unwrap_or_default).collect();
            texts.join(":")
        })
        .unwrap_or_else(|| name.to_string())
}

/// The longest directory name a series key of these column types can produce.
pub fn longest_name(types: &[ColumnType]) -> usize {
    let part = |ty: &ColumnType| match ty {
        ColumnType::Str(n) => 3 * usize::from(*n),
        // Digits and a sign (escaped: `-` is plain, a leading `.` never occurs).
        ColumnType::I8 | ColumnType::I16 | ColumnType::I32 | ColumnType::I64 => 20,
        ColumnType::U8 | ColumnType::U16 | ColumnType::U32 | ColumnType::U64 => 20,
        // Floats are refused as series keys (`Config::check_keys`): no bound.
        ColumnType::F32 | ColumnType::F64 => MAX_NAME_BYTES + 1,
        ColumnType::Bool => 5,
        // Digits, a sign and the point.
        ColumnType::Dec(_) => 21,
        // Unbounded: each value's name is checked as it is stored (`check_name`).
        ColumnType::Sym => 0,
    };
    types.iter().map(part).sum::<usize>() + types.len().saturating_sub(1)
}

/// Orders series by their key values, column by column: nulls first, numbers by value, text
/// by bytes. `a` and `b` are the parts of `parts_of`, parsed with the columns' types.
pub fn compare_values(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = compare_value(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

fn compare_value(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Bool(_) => 1,
            Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::Dec(..) => 2,
            Value::Str(_) => 3,
        }
    }
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::UInt(x), Value::UInt(y)) => x.cmp(y),
        (Value::Int(x), Value::UInt(y)) => i128::from(*x).cmp(&i128::from(*y)),
        (Value::UInt(x), Value::Int(y)) => i128::from(*x).cmp(&i128::from(*y)),
        (Value::Float(x), Value::Float(y)) => x.total_cmp(y),
        // One column, so one scale.
        (Value::Dec(x, _), Value::Dec(y, _)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Str(x), Value::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (x, y) if rank(x) == 2 && rank(y) == 2 => as_f64(x).total_cmp(&as_f64(y)),
        (x, y) => rank(x).cmp(&rank(y)),
    }
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(x) => *x as f64,
        Value::UInt(x) => *x as f64,
        Value::Float(x) => *x,
        Value::Dec(x, s) => super::decimal::to_f64(*x, *s),
        _ => 0.0,
    }
}

/// Parses the key values of a series as a user gives them (`--series AAPL`; a key of several
/// columns joins its values with `:`) into the series' name, with the values' canonical text
/// (`007` in an integer column names the series `7`).
pub fn name_from_text(schema: &Schema, columns: &[usize], text: &str) -> Result<String, String> {
    let parts: Vec<&str> = if columns.len() == 1 {
        vec![text]
    } else {
        text.split(':').collect()
    };
    if parts.len() != columns.len() {
        let names: Vec<&str> = columns
            .iter()
            .map(|&c| schema.columns()[c].name.as_str())
            .collect();
        return Err(format!(
            "--series `{text}`: the series key has {} columns ({}); give their values joined by `:`",
            columns.len(),
            names.join(",")
        ));
    }
    name_from_parts(schema, columns, &parts).map_err(|e| format!("--series `{text}`: {e}"))
}

/// The name of the series whose key columns hold `parts` (as text, one per key column).
pub fn name_from_parts(schema: &Schema, columns: &[usize], parts: &[&str]) -> Result<String, String> {
    debug_assert_eq!(parts.len(), columns.len());
    let mut row = schema.new_row();
    let mut values = Vec::with_capacity(columns.len());
    for (&col, part) in columns.iter().zip(parts) {
        // A sym value is its text: the dictionary need not hold it (a series never stored).
        if schema.columns()[col].ty == ColumnType::Sym {
            super::syms::check_text(part).map_err(|e| {
                format!(
                    "`{part}` is not a value of column `{}`: {}",
                    schema.columns()[col].name,
                    super::schema::FieldError::Sym(e)
                )
            })?;
            values.push(if part.is_empty() {
                Value::Null
            } else {
                Value::Str(part.to_string())
            });
            continue;
        }
        schema.set_field(&mut row, col, part).map_err(|e| {
            format!(
                "`{part}` is not a value of column `{}`: {e}",
                schema.columns()[col].name
            )
        })?;
        // Not sym (above): decoding what `set_field` encoded cannot fail.
        values.push(schema.value(&row, col).map_err(|e| e.to_string())?);
    }
    Ok(name_of(&values))
}

/// The key values of the series `name` as typed values (`None` if `name` is not a series of
/// this key).
pub fn values_of(schema: &Schema, columns: &[usize], name: &str) -> Option<Vec<Value>> {
    let parts = parts_of(name)?;
    if parts.len() != columns.len() {
        return None;
    }
    let mut row = schema.new_row();
    let mut values = Vec::with_capacity(columns.len());
    for (&col, part) in columns.iter().zip(parts) {
        match part {
            None => values.push(Value::Null),
            Some(text) if schema.columns()[col].ty == ColumnType::Sym => {
                super::syms::check_text(&text).ok()?;
                values.push(Value::Str(text));
            }
            Some(text) => {
                schema.set_field(&mut row, col, &text).ok()?;
                values.push(schema.value(&row, col).ok()?);
            }
        }
    }
    // A name that parses but is not canonical (`+7` for 7) is not a series this xs wrote.
    (name_of(&values) == name).then_some(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_escape() {
        let schema = Schema::parse_spec("sym:str(16),n:i32,x:f64").unwrap();
        let cols = [0, 1];
        for (text, name) in [
            ("AAPL:7", "AAPL,7"),
            ("BTC/USDT:-3", "BTC%2FUSDT,-3"),
            (".hidden:0", "%2Ehidden,0"),
            ("a,b:1", "a%2Cb,1"),
            ("é:1", "%C3%A9,1"),
        ] {
            let got = name_from_text(&schema, &cols, text).unwrap();
            assert_eq!(got, name, "{text}");
            let values = values_of(&schema, &cols, &got).unwrap();
            assert_eq!(name_of(&values), got);
        }
        assert_eq!(name_from_text(&schema, &[1], "007").unwrap(), "7");
        assert!(name_from_text(&schema, &cols, "AAPL").is_err());
        assert!(name_from_text(&schema, &[1], "x").is_err());
        assert_eq!(name_of(&[Value::Null, Value::Str(String::new())]), "%00,%00");
        assert_eq!(parts_of("%00").unwrap(), vec![None]);
        for foreign in ["", ".", "..", "a%2f", "%2", "a%00b", "+7"] {
            assert!(values_of(&schema, &[1], foreign).is_none(), "{foreign}");
        }
    }

    #[test]
    fn order_is_by_value() {
        let mut v = vec![
            vec![Value::Int(10)],
            vec![Value::Int(-2)],
            vec![Value::Null],
            vec![Value::Int(9)],
        ];
        v.sort_by(|a, b| compare_values(a, b));
        assert_eq!(
            v,
            vec![
                vec![Value::Null],
                vec![Value::Int(-2)],
                vec![Value::Int(9)],
                vec![Value::Int(10)]
            ]
        );
    }

    #[test]
    fn longest_name_bounds_real_names() {
        let schema = Schema::parse_spec("s:str(4),i:i64,b:bool").unwrap();
        let mut row = schema.new_row();
        schema.set_field(&mut row, 0, "%%%%").unwrap();
        schema.set_field(&mut row, 1, "-9223372036854775808").unwrap();
        schema.set_field(&mut row, 2, "false").unwrap();
        let name = name_of_row(&schema, &[0, 1, 2], &row).unwrap();
        let types = [ColumnType::Str(4), ColumnType::I64, ColumnType::Bool];
        assert!(name.len() <= longest_name(&types), "{name}");
    }
}
