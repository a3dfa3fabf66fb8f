//! How a CSV file is written, read off its first records: the delimiter, whether the first line
//! is a header (does it type like the rows below it?), a preamble before the header, a decimal
//! comma, column names that specs can use (aliases for the others), and a date in the file name.

use super::flextime::{self, DateOrder};
use super::scan::{is_blank, split_record};
use super::timeparse::is_epoch_number;
use crate::db::schema::valid_column_name;
use crate::db::time::days_from_civil;
use crate::io::timefmt::parse_iso;

/// Delimiters tried by the sniffer, in order of preference on a tie.
pub const DELIMITERS: [u8; 4] = [b',', b';', b'\t', b'|'];

/// Tokens read as null in numeric and time columns, besides the empty field: also the
/// `WEAK_NULLS`, which no number is.
pub const DEFAULT_NULLS: [&[u8]; 13] = [
    b"NA", b"N/A", b"null", b"NULL", b"None", b"#N/A", b"\\N", b".", b"-", b"--", b"---", b"?", b"n/e",
];

/// The default null tokens that are null only beside numbers or booleans: a lone `.` (FRED's
/// missing value), `-`, `--` or `---` (dashes in an empty cell; Davis WeatherLink writes
/// `---`), `?` (UCI's and Weka's missing value) and
/// `n/e` (ENTSO-E's "not expected"). A column of these alone, or of these and words, is text.
pub const WEAK_NULLS: [&[u8]; 6] = [b".", b"-", b"--", b"---", b"?", b"n/e"];

/// Error values of Excel, LibreOffice and Google Sheets, exported as the cell's text.
const SPREADSHEET_ERRORS: [&[u8]; 8] = [
    b"#DIV/0!", b"#VALUE!", b"#REF!", b"#NAME?", b"#NUM!", b"#NULL!", b"#ERROR!", b"#N/A!",
];

/// Whether `v` is one of the default null tokens.
#[inline]
pub fn is_default_null(v: &[u8]) -> bool {
    // Cheap first test: a lone `.`, `-` or `?`, or a token starting with one of these bytes (a
    // negative number must not pay for the list).
    match v {
        [b'.'] | [b'-'] | [b'-', b'-'] | [b'-', b'-', b'-'] | [b'?'] => true,
        [b'N' | b'n', ..] => DEFAULT_NULLS.contains(&v),
        // Bloomberg's `#N/A N/A`, `#N/A Field Not Applicable`, `#N/A Invalid Security`…, and
        // the error values a spreadsheet writes in a cell it could not compute.
        [b'#', ..] => v == b"#N/A" || v.starts_with(b"#N/A ") || SPREADSHEET_ERRORS.contains(&v),
        // MySQL's and PostgreSQL's `COPY` null.
        [b'\\', b'N'] => true,
        _ => false,
    }
}

/// A number written in decimal (`-200`, `-200.0`, `-2e2`, ` +0.50 `), reduced to its sign,
/// its significant digits and a power of ten, so that ways of writing one number compare
/// equal and no two numbers do: a `--null` sentinel given as a number matches it however a
/// file writes it (`-200,0` once its decimal comma is read), and never a nearby value. Exact,
/// not a float: `-200.00000000000000001` is not `-200`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecimalValue {
    negative: bool,
    /// No leading or trailing zero; empty for zero (whose sign is dropped).
    digits: Vec<u8>,
    exponent: i64,
}

impl DecimalValue {
    /// `v` as a decimal number (spaces around it allowed), or `None` when it is not one.
    pub fn parse(v: &[u8]) -> Option<DecimalValue> {
        let v = v.trim_ascii();
        let (negative, body) = match v {
            [b'-', rest @ ..] => (true, rest),
            [b'+', rest @ ..] => (false, rest),
            _ => (false, v),
        };
        let (mantissa, exp) = match body.iter().position(|&c| c == b'e' || c == b'E') {
            Some(p) => (&body[..p], Some(&body[p + 1..])),
            None => (body, None),
        };
        let (int, frac) = match mantissa.iter().position(|&c| c == b'.') {
            Some(p) => (&mantissa[..p], &mantissa[p + 1..]),
            None => (mantissa, &b""[..]),
        };
        let all_digits = |d: &[u8]| d.iter().all(u8::is_ascii_digit);
        if int.len() + frac.len() == 0 || !all_digits(int) || !all_digits(frac) {
            return None;
        }
        let mut exponent = match exp {
            None => 0,
            Some(e) => {
                let digits = e.strip_prefix(b"-").or(e.strip_prefix(b"+")).unwrap_or(e);
                // Bounded, so the arithmetic below cannot overflow; no number needs more.
                if digits.is_empty() || digits.len() > 9 || !all_digits(digits) {
                    return None;
                }
                let n: i64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
                if e.starts_with(b"-") {
                    -n
                } else {
                    n
                }
            }
        };
        exponent -= frac.len() as i64;
        let mut digits: Vec<u8> = int
            .iter()
            .chain(frac)
            .copied()
            .skip_while(|&c| c == b'0')
            .collect();
        while digits.last() == Some(&b'0') {
            digits.pop();
            exponent += 1;
        }
        if digits.is_empty() {
            return Some(DecimalValue {
                negative: false,
                digits,
                exponent: 0,
            });
        }
        Some(DecimalValue {
            negative,
            digits,
            exponent,
        })
    }
}

/// A printable name for a delimiter.
pub fn delimiter_name(d: u8) -> String {
    match d {
        b'\t' => "tab".into(),
        b' ' => "space".into(),
        d => format!("`{}`", d as char),
    }
}

/// Splits the records of `data` from `at` (at most `max` of them): fields as byte vectors,
/// and each record's start offset. Blank records are skipped.
pub fn records(data: &[u8], mut at: usize, delimiter: u8, max: usize) -> Vec<(usize, Vec<Vec<u8>>)> {
    let mut out = Vec::new();
    let mut fields = Vec::new();
    let mut scratch = Vec::new();
    while at < data.len() && out.len() < max {
        let span = split_record(data, at, delimiter, &mut fields, &mut scratch);
        let start = at;
        at = span.next;
        if is_blank(&fields, data, &scratch) {
            continue;
        }
        out.push((
            start,
            fields.iter().map(|f| f.bytes(data, &scratch).to_vec()).collect(),
        ));
    }
    out
}

/// The most common field count of `rows`, and how many rows have it.
pub fn modal_width<T>(rows: &[(usize, Vec<T>)]) -> (usize, usize) {
    let mut counts: std::collections::BTreeMap<usize, usize> = std::collections::BTreeMap::new();
    for (_, r) in rows {
        *counts.entry(r.len()).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|&(width, n)| (n, width))
        .unwrap_or((0, 0))
}

/// The delimiter whose split of the first records gives the most consistent field count
/// (more than one field); `,` when none does.
pub fn sniff_delimiter(data: &[u8], at: usize) -> u8 {
    let mut best = (b',', 0usize, 0usize);
    for d in DELIMITERS {
        let rows = records(data, at, d, 200);
        let (width, n) = modal_width(&rows);
        if width < 2 {
            continue;
        }
        // Share of consistent rows in thousandths, then more fields.
        let share = n * 1000 / rows.len().max(1);
        if (share, width) > (best.1, best.2) {
            best = (d, share, width);
        }
    }
    best.0
}

/// Whether a value is a number with a decimal comma: `-12,5`, `0,7578`.
pub fn is_decimal_comma(v: &[u8]) -> bool {
    let v = v.strip_prefix(b"-").unwrap_or(v);
    match v.iter().position(|&c| c == b',') {
        Some(p) => {
            p > 0
                && p + 1 < v.len()
                && v[..p].iter().all(u8::is_ascii_digit)
                && v[p + 1..].iter().all(u8::is_ascii_digit)
        }
        None => false,
    }
}

/// Whether `v` is a number whose whole part is grouped by `group` and whose fraction follows
/// `decimal`: `1.234,56` (`.` groups, `,` is the decimal mark) or `-12,345,678.9`. Only such a
/// number tells the two marks apart: `1.234` alone is a thousand or one and a quarter.
pub fn grouped_decimal(v: &[u8], group: u8, decimal: u8) -> bool {
    let v = v.strip_prefix(b"-").unwrap_or(v);
    let Some(p) = v.iter().position(|&c| c == decimal) else {
        return false;
    };
    let (int, frac) = (&v[..p], &v[p + 1..]);
    is_grouped(int, group) && !frac.is_empty() && frac.iter().all(u8::is_ascii_digit)
}

/// Whether `int` is digits grouped in thousands by `group` (`1.234`, `12,345,678`). `0.845`
/// is not: a number written with a point.
pub fn is_grouped(int: &[u8], group: u8) -> bool {
    let groups: Vec<&[u8]> = int.split(|&c| c == group).collect();
    groups.len() > 1
        && (1..=3).contains(&groups[0].len())
        && groups[0][0] != b'0'
        && groups[1..].iter().all(|g| g.len() == 3)
        && groups.iter().all(|g| g.iter().all(u8::is_ascii_digit))
}

/// Marks that group thousands besides the comma and the point: an apostrophe (Swiss), a space,
/// a no-break space and a narrow no-break space (French, ISO 80000). None of them is ever a
/// decimal mark, so a single number grouped by one tells.
pub const GROUP_MARKS: [&str; 4] = ["'", " ", "\u{a0}", "\u{202f}"];

/// Whether `v` is a number whose whole part is grouped in thousands by `group` (`1 234`,
/// `12'345.5`, `-1,234,567`), with `decimal` before its fraction, if any.
pub fn grouped_by(v: &[u8], group: &[u8], decimal: u8) -> bool {
    let v = v.strip_prefix(b"-").unwrap_or(v);
    let (int, frac) = match v.iter().position(|&c| c == decimal) {
        Some(p) => (&v[..p], Some(&v[p + 1..])),
        None => (v, None),
    };
    if frac.is_some_and(|f| f.is_empty() || !f.iter().all(u8::is_ascii_digit)) || group.is_empty() {
        return false;
    }
    let mut groups = 0;
    let mut rest = int;
    loop {
        let end = memchr::memmem::find(rest, group).unwrap_or(rest.len());
        let digits = &rest[..end];
        let width_ok = match groups {
            0 => (1..=3).contains(&digits.len()) && digits[0] != b'0',
            _ => digits.len() == 3,
        };
        if !width_ok || !digits.iter().all(u8::is_ascii_digit) {
            return false;
        }
        groups += 1;
        if end == rest.len() {
            return groups > 1;
        }
        rest = &rest[end + group.len()..];
    }
}

/// `v` without any `mark` (`1 234,5` → `1234,5`).
pub fn without_mark(v: &[u8], mark: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len());
    without_mark_into(v, mark, &mut out);
    out
}

/// `without_mark` into `out` (cleared first): no allocation per field once `out` has grown.
fn without_mark_into(v: &[u8], mark: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let mut rest = v;
    while let Some(p) = memchr::memmem::find(rest, mark) {
        out.extend_from_slice(&rest[..p]);
        rest = &rest[p + mark.len()..];
    }
    out.extend_from_slice(rest);
}

/// A thousands mark in words, for notes: `,`, `'`, a space, a no-break space.
pub fn group_mark_name(mark: &[u8]) -> String {
    match mark {
        b" " => "a space".into(),
        [0xc2, 0xa0] => "a no-break space".into(),
        [0xe2, 0x80, 0xaf] => "a narrow no-break space".into(),
        other => format!("`{}`", String::from_utf8_lossy(other)),
    }
}

/// A number as xs reads numbers, in `out`, from one written with a decimal comma (see
/// `from_decimal_comma`) or with its thousands grouped by `group` (`1,234.5`, `1 234,5` →
/// `1234.5`). False, `out` untouched, for anything else: a number already as xs reads it, or
/// text.
pub fn plain_number(v: &[u8], decimal_comma: bool, group: Option<&[u8]>, out: &mut Vec<u8>) -> bool {
    let decimal = if decimal_comma { b',' } else { b'.' };
    match group.filter(|g| grouped_by(v, g, decimal)) {
        Some(g) => {
            without_mark_into(v, g, out);
            if decimal_comma {
                // Digits and one comma are left: the comma is the point.
                if let Some(c) = out.iter_mut().find(|c| **c == b',') {
                    *c = b'.';
                }
            }
            true
        }
        None => decimal_comma && from_decimal_comma(v, out),
    }
}

/// A number written with a decimal comma, in `out` as xs reads numbers: `12,5` → `12.5`,
/// `1.234,5` and `1.234` → `1234.5` and `1234` (dots group thousands there). False, `out`
/// untouched, for anything else.
pub fn from_decimal_comma(v: &[u8], out: &mut Vec<u8>) -> bool {
    let (sign, body) = match v.strip_prefix(b"-") {
        Some(rest) => (&b"-"[..], rest),
        None => (&b""[..], v),
    };
    let (int, frac) = match body.iter().position(|&c| c == b',') {
        Some(p) => (&body[..p], Some(&body[p + 1..])),
        None => (body, None),
    };
    let grouped = is_grouped(int, b'.');
    let plain = !int.is_empty() && int.iter().all(u8::is_ascii_digit);
    // An exponent after the decimals, as spreadsheets write small and large numbers under a
    // decimal comma (`1,5E-03`); not after digits grouped by dots.
    let (frac, exp) = match frac.and_then(|f| f.iter().position(|&c| c == b'e' || c == b'E')) {
        Some(p) if plain => (frac.map(|f| &f[..p]), frac.map(|f| &f[p..])),
        Some(_) => return false,
        None => (frac, None),
    };
    let exp_ok = exp.is_none_or(|e| {
        let digits = e[1..]
            .strip_prefix(b"-")
            .or(e[1..].strip_prefix(b"+"))
            .unwrap_or(&e[1..]);
        !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
    });
    let frac_ok = frac.is_none_or(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit));
    if !(grouped || (plain && frac.is_some())) || !frac_ok || !exp_ok {
        return false;
    }
    out.clear();
    out.extend_from_slice(sign);
    out.extend(int.iter().copied().filter(|&c| c != b'.'));
    if let Some(f) = frac {
        out.push(b'.');
        out.extend_from_slice(f);
    }
    out.extend_from_slice(exp.unwrap_or_default());
    true
}

/// What a value looks like, for telling a header from data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool,
    Number,
    Time,
    Text,
}

pub fn kind(v: &[u8], decimal_comma: bool) -> Kind {
    let v = trim(v);
    if v.is_empty() || is_default_null(v) {
        return Kind::Null;
    }
    if matches!(v, b"true" | b"false" | b"TRUE" | b"FALSE" | b"True" | b"False") {
        return Kind::Bool;
    }
    if is_epoch_number(v)
        || (decimal_comma && is_decimal_comma(v))
        || std::str::from_utf8(v).is_ok_and(|s| s.parse::<f64>().is_ok())
    {
        return Kind::Number;
    }
    if is_time_like(v) {
        return Kind::Time;
    }
    Kind::Text
}

/// Reads as a date, a date-time or a time of day in some common shape.
pub fn is_time_like(v: &[u8]) -> bool {
    parse_iso(v).is_some()
        || [DateOrder::Ymd, DateOrder::Dmy, DateOrder::Mdy, DateOrder::None]
            .into_iter()
            .any(|o| flextime::parse(v, o).is_some())
}

/// A date only (no time): `2006-01-02`, `10/03/2004`, `02-Jan-2006`, `20060102`.
pub fn is_date_only(v: &[u8]) -> bool {
    let v = trim(v);
    !v.contains(&b':')
        && (!is_epoch_number(v) || v.len() == 8)
        && [DateOrder::Ymd, DateOrder::Dmy, DateOrder::Mdy]
            .into_iter()
            .any(|o| flextime::parse(v, o).is_some_and(|f| f.t_ns % crate::db::time::NS_PER_DAY == 0))
}

/// A time of day only: `09:01:00`, `18.00.00`, `24:00`.
pub fn is_time_only(v: &[u8]) -> bool {
    flextime::parse(trim(v), DateOrder::None).is_some()
}

fn trim(v: &[u8]) -> &[u8] {
    v.trim_ascii()
}

/// The kind of a column over `rows`: the one kind its non-null values share (numbers and
/// bools stay apart), `Text` when they differ, `Null` when all are null.
fn column_kind(rows: &[&[Vec<u8>]], j: usize, decimal_comma: bool) -> Kind {
    let mut found = Kind::Null;
    for r in rows {
        let Some(v) = r.get(j) else { continue };
        match (found, kind(v, decimal_comma)) {
            (_, Kind::Null) => {}
            (Kind::Null, k) => found = k,
            (a, b) if a == b => {}
            // A number among times (epoch seconds?) or the reverse: not one kind.
            _ => return Kind::Text,
        }
    }
    found
}

/// Whether `first` is a header for `rows`: some column whose values all share a non-text kind
/// (numbers, times, booleans) holds text in `first`. With only text below, a first line of
/// distinct non-empty values is taken for a header; with nothing below, one without numbers.
pub fn looks_like_header(first: &[Vec<u8>], rows: &[&[Vec<u8>]], decimal_comma: bool) -> bool {
    // Files joined end to end repeat their header: such lines say nothing of the columns'
    // kinds (the header's text would make every column text).
    let rows: Vec<&[Vec<u8>]> = rows.iter().copied().filter(|r| *r != first).collect();
    let rows = rows.as_slice();
    if rows.is_empty() {
        return first.iter().all(|v| matches!(kind(v, decimal_comma), Kind::Text));
    }
    let mut any_typed = false;
    for (j, v) in first.iter().enumerate() {
        let col = column_kind(rows, j, decimal_comma);
        if matches!(col, Kind::Null | Kind::Text) {
            continue;
        }
        any_typed = true;
        if kind(v, decimal_comma) == Kind::Text {
            return true;
        }
    }
    if any_typed {
        return false;
    }
    let mut seen = std::collections::HashSet::new();
    first.iter().all(|v| !v.is_empty() && seen.insert(v.as_slice()))
}

/// Lines under a header that are more header (at most this many): units, then a kind of
/// processing (`Avg`, `Smp`) in a logger's TOA5 file.
const MAX_UNIT_LINES: usize = 3;

/// How many of the first `rows` under a header are units or descriptions rather than data: in
/// every column whose values further down share a kind (numbers, times, booleans), such a
/// line holds text or nothing, and text in one of them at least; and in a text column whose
/// values below all hold digits (a time in a shape not told here), none. A data row has its
/// time in one of those columns, so it is not taken for one.
pub fn unit_lines(rows: &[&[Vec<u8>]], decimal_comma: bool) -> usize {
    let width = rows.first().map_or(0, |r| r.len());
    // Kinds from the rows past the candidates, or from the last row of a short file.
    let below = &rows[MAX_UNIT_LINES.min(rows.len().saturating_sub(1))..];
    let kinds: Vec<Kind> = (0..width).map(|j| column_kind(below, j, decimal_comma)).collect();
    // Text columns whose values below all hold digits (times in a shape not told here, codes):
    // a line with digits there is a row, not units.
    let digits = |v: &[u8]| v.iter().any(u8::is_ascii_digit);
    let counted: Vec<bool> = (0..width)
        .map(|j| {
            let mut values = below
                .iter()
                .filter_map(|r| r.get(j))
                .filter(|v| !trim(v).is_empty());
            values.clone().next().is_some() && values.all(|v| digits(v))
        })
        .collect();
    let is_unit_line = |r: &[Vec<u8>]| {
        let mut text = false;
        for ((v, col), counted) in r.iter().zip(&kinds).zip(&counted) {
            if matches!(col, Kind::Null | Kind::Text) {
                if *counted && digits(v) {
                    return false;
                }
                continue;
            }
            match kind(v, decimal_comma) {
                Kind::Text => text = true,
                Kind::Null => {}
                _ => return false,
            }
        }
        text && r.len() == width
    };
    rows.iter()
        .take(MAX_UNIT_LINES)
        .take_while(|r| is_unit_line(r))
        .count()
}

/// A name usable in specs for header text that is not one: lowercase, runs of other characters
/// as one `_`, at most 64 bytes; `column_N` (1-based) when nothing is left.
pub fn alias(text: &str, index: usize) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if let Some(ascii) = latin_letter(c) {
            out.push_str(ascii);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_');
    let mut out: String = out.chars().take(64).collect();
    if out.is_empty() {
        out = format!("column_{}", index + 1);
    }
    out
}

/// The plain letters of an accented Latin letter (`é` → `e`, `ß` → `ss`, `µ` → `u`), so that
/// `Température` becomes `temperature`, not `temp_rature`.
fn latin_letter(c: char) -> Option<&'static str> {
    let lower = c.to_lowercase().next().unwrap_or(c);
    Some(match lower {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'č' => "c",
        'ď' | 'đ' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => "e",
        'ì' | 'í' | 'î' | 'ï' | 'ī' => "i",
        'ł' => "l",
        'ñ' | 'ń' | 'ň' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => "o",
        'œ' => "oe",
        'ř' => "r",
        'ś' | 'š' => "s",
        'ß' => "ss",
        'ť' => "t",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' | 'µ' | 'μ' => "u",
        'ý' | 'ÿ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        _ => return None,
    })
}

/// Column names for header text: valid names as they are, others by `alias`, duplicates with
/// `_2`, `_3`… Returns the names and the (text, name) pairs that changed.
pub fn column_names(header: &[String]) -> (Vec<String>, Vec<(String, String)>) {
    let mut names: Vec<String> = Vec::with_capacity(header.len());
    let mut changed = Vec::new();
    for (i, text) in header.iter().enumerate() {
        let base = if valid_column_name(text) {
            text.clone()
        } else {
            alias(text, i)
        };
        let mut name = base.clone();
        let mut n = 2;
        while names.contains(&name) || (name != *text && header.contains(&name)) {
            name = format!("{base}_{n}");
            n += 1;
        }
        if name != *text {
            changed.push((text.clone(), name.clone()));
        }
        names.push(name);
    }
    (names, changed)
}

/// `base`, or `base_2`, `base_3`… when `names` already holds it.
pub fn unique_name(names: &[String], base: &str) -> String {
    let mut name = base.to_string();
    let mut n = 2;
    while names.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

/// Fits a header's `names` (and their header `text`, index for index) to the width of the
/// first `rows`, or says why the fields cannot be named. A header that ends in a delimiter
/// the rows lack loses that empty name. With names short:
/// - extra fields empty in every row (each row ends in a delimiter) are `column_N` at the end;
/// - a date and a time of day side by side under one name (backtrader's `Date`) get a second
///   name, `time`;
/// - a first field that counts the rows 1, 2, 3… is R's row names, written by `write.table`
///   without a name in the header: `column_1` at the front (R and pandas read it so).
///
/// Other extra fields are refused: which name belongs to which field is unknown (an unquoted
/// `1,234` or `Paris, France` in the rows), and a guess would store values under wrong names.
pub fn fit_header(
    names: &mut Vec<String>,
    text: &mut Vec<String>,
    rows: &[Vec<Vec<u8>>],
) -> Result<Option<String>, String> {
    let Some(first_row) = rows.first() else {
        return Ok(None);
    };
    let width = first_row.len();
    text.resize(names.len(), String::new());
    if names.len() == width + 1 && text.last().is_some_and(String::is_empty) {
        names.pop();
        text.pop();
        return Ok(Some(format!(
            "the header ends in a delimiter the rows lack: its empty name {} is dropped",
            width + 1
        )));
    }
    if names.len() >= width {
        return Ok(None);
    }

    let from = names.len();
    let extras_empty = rows
        .iter()
        .filter(|r| r.len() == width)
        .all(|r| r[from..].iter().all(|v| trim(v).is_empty()));
    if extras_empty {
        for k in from..width {
            let name = unique_name(names, &format!("column_{}", k + 1));
            names.push(name);
            text.push(String::new());
        }
        return Ok(Some(format!(
            "the header names {from} columns but the rows have {width}, the last {} empty (every \
             row ends in a delimiter): named column_{}…",
            width - from,
            from + 1
        )));
    }
    if width == from + 1 {
        for i in 0..from {
            if is_date_only(&first_row[i]) && is_time_only(&first_row[i + 1]) {
                let name = unique_name(names, "time");
                let note = format!(
                    "the header names {from} columns but the rows have {width}: `{}` holds a date \
                     and the next field a time of day, named `{name}`",
                    names[i]
                );
                names.insert(i + 1, name);
                text.insert(i + 1, String::new());
                return Ok(Some(note));
            }
        }
        let counts_rows = rows.iter().enumerate().all(|(k, r)| {
            r.first()
                .is_some_and(|v| trim(v) == (k + 1).to_string().as_bytes())
        });
        // Unless the names as they stand already put a time's name over times (`n,time,value`
        // over `1,2024-01-01T00:00:00Z,1.5,ok`: the counter has its name, the last field none).
        let timely = |name: &str| {
            let lower = name.to_ascii_lowercase();
            lower.contains("time") || lower.contains("date")
        };
        let named_in_place = (0..from).any(|i| timely(&names[i]) && is_time_like(trim(&first_row[i])));
        if counts_rows && !named_in_place {
            let name = unique_name(names, "column_1");
            let note = format!(
                "the header names {from} columns but the rows have {width}: the first field counts \
                 the rows 1, 2, 3…, row names without a name in the header (as R's write.table \
                 writes them), named `{name}`"
            );
            names.insert(0, name);
            text.insert(0, String::new());
            return Ok(Some(note));
        }
    }
    Err(format!(
        "the header names {from} columns but the rows have {width} fields (the first row: {}), \
         and which name belongs to which field cannot be told: quote fields that hold the \
         delimiter, or name every field with --columns",
        super::printable(
            &first_row
                .iter()
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .collect::<Vec<_>>()
                .join(",")
        )
    ))
}

/// The one date a file name holds (`20131007_…`, `…_2012-06-21_…`), as days since 1970, with
/// its text; `None` when it holds none, or several different ones.
pub fn date_in_name(path: &str) -> Option<(i64, String)> {
    let name = std::path::Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let b = name.as_bytes();
    let mut found: Option<(i64, String)> = None;
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_digit()) {
            i += 1;
            continue;
        }
        let run = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
        let mut date = None;
        if run == 8 {
            let text = &name[i..i + 8];
            let n: u64 = text.parse().unwrap_or(0);
            date = valid_date(n / 10_000, n / 100 % 100, n % 100).map(|d| (d, text.to_string()));
        } else if run == 4
            && b.len() >= i + 10
            && b[i..i + 10].is_ascii()
            && matches!(b[i + 4], b'-' | b'_')
            && b[i + 7] == b[i + 4]
        {
            let text = &name[i..i + 10];
            let part = |r: std::ops::Range<usize>| text[r].parse::<u64>().ok();
            let after_ok = b.get(i + 10).is_none_or(|c| !c.is_ascii_digit());
            if let (Some(y), Some(m), Some(d), true) = (part(0..4), part(5..7), part(8..10), after_ok) {
                date = valid_date(y, m, d).map(|days| (days, text.to_string()));
            }
        }
        if let Some((days, text)) = date {
            match &found {
                Some((d, _)) if *d != days => return None,
                _ => found = Some((days, text)),
            }
        }
        i += run;
    }
    found
}

fn valid_date(y: u64, m: u64, d: u64) -> Option<i64> {
    if !(1900..=2199).contains(&y) {
        return None;
    }
    let iso = format!("{y:04}-{m:02}-{d:02}");
    parse_iso(iso.as_bytes())?;
    Some(days_from_civil(y as i64, m as u32, d as u32))
}

#[cfg(test)]
mod tests {

    #[test]
    fn one_number_written_many_ways_is_one_decimal_value() {
        let value = |t: &str| DecimalValue::parse(t.as_bytes());
        let minus_200 = value("-200");
        assert!(minus_200.is_some());
        for same in [
            "-200.0",
            "-200.000",
            " -200 ",
            "-2e2",
            "-2.00E+2",
            "-0200",
            "-20000e-2",
        ] {
            assert_eq!(value(same), minus_200, "{same}");
        }
        for other in [
            "-200.5",
            "200",
            "-20",
            "-2000",
            "-200.00000000000000001",
            "-199.99999999999999999",
        ] {
            assert_ne!(value(other), minus_200, "{other}");
        }
        assert_eq!(value("0"), value("-0.000"));
        assert_eq!(value(".5"), value("0.50"));
        assert_eq!(value("5."), value("5"));
        for not in [
            "",
            "-",
            ".",
            "e5",
            "1e",
            "1e+",
            "--1",
            "1.2.3",
            "0x10",
            "1e9999999999",
            "NA",
            "1,5",
            "inf",
        ] {
            assert_eq!(value(not), None, "{not}");
        }
    }
    use super::*;

    #[test]
    fn a_number_with_both_marks_tells_which_groups_thousands() {
        assert!(grouped_decimal(b"1.234,56", b'.', b','));
        assert!(grouped_decimal(b"-12.345.678,9", b'.', b','));
        assert!(grouped_decimal(b"1,234.56", b',', b'.'));
        assert!(!grouped_decimal(b"1,234.56", b'.', b','));
        // One mark alone, groups of other than three digits, a leading zero: no evidence.
        for v in ["1.234", "1234,5", "12.34,5", "0.123,4", "1.234,", "1.2a4,5"] {
            assert!(!grouped_decimal(v.as_bytes(), b'.', b','), "{v}");
        }
    }

    #[test]
    fn grouped_thousands_read_as_plain_numbers() {
        let plain = |v: &str, comma: bool, g: &str| {
            let mut out = Vec::new();
            plain_number(v.as_bytes(), comma, Some(g.as_bytes()), &mut out)
                .then(|| String::from_utf8(out).unwrap())
        };
        assert_eq!(plain("1,234.56", false, ","), Some("1234.56".into()));
        assert_eq!(plain("-12,345,678", false, ","), Some("-12345678".into()));
        assert_eq!(plain("1 234,5", true, " "), Some("1234.5".into()));
        assert_eq!(
            plain("1\u{a0}234\u{a0}567,25", true, "\u{a0}"),
            Some("1234567.25".into())
        );
        assert_eq!(plain("1'234.5", false, "'"), Some("1234.5".into()));
        // Under a decimal comma, dots still group thousands where the group mark is absent.
        assert_eq!(plain("1.234,5", true, " "), Some("1234.5".into()));
        // Not grouped in thousands, or not a number: left alone.
        for v in [
            "1,23.5", "12,3456", "0,123", "1,234.", "1,,234", "a,234", "1 234 5", "999.5", "",
        ] {
            assert_eq!(plain(v, false, ","), None, "{v}");
        }
        assert_eq!(plain("1 23", true, " "), None);
        // Any whole number and fraction, grouped and read back, is itself.
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let whole = seed % 10u64.pow((seed % 13) as u32 + 1);
            let frac = (seed >> 40) % 1000;
            let digits = whole.to_string();
            let mut grouped = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i).is_multiple_of(3) {
                    grouped.push('\u{202f}');
                }
                grouped.push(c);
            }
            let text = format!("-{grouped},{frac}");
            let want = format!("-{whole}.{frac}");
            // (Below 1000 there is no group: the decimal comma alone is read.)
            assert_eq!(plain(&text, true, "\u{202f}"), Some(want), "{text}");
        }
    }

    #[test]
    fn decimal_comma_numbers_read_with_a_point() {
        let read = |v: &str| {
            let mut out = Vec::new();
            from_decimal_comma(v.as_bytes(), &mut out).then(|| String::from_utf8(out).unwrap())
        };
        assert_eq!(read("1.234,56").as_deref(), Some("1234.56"));
        assert_eq!(read("-0,5").as_deref(), Some("-0.5"));
        assert_eq!(read("1.234").as_deref(), Some("1234"));
        assert_eq!(read("1,5E-03").as_deref(), Some("1.5E-03"));
        assert_eq!(read("-3,1e5").as_deref(), Some("-3.1e5"));
        assert_eq!(read("2,25E+02").as_deref(), Some("2.25E+02"));
        assert_eq!(read("0.845"), None, "a leading 0 starts no thousands group");
        assert_eq!(read("0.845,5"), None);
        for text in [
            "1,5E",
            "1,5E-",
            "1,5E-0x",
            "1.234,5E3",
            "1,5E3,2",
            "12",
            "1,",
            "a,5",
            "1.23,4",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    fn rows(text: &str, d: u8) -> Vec<Vec<Vec<u8>>> {
        records(text.as_bytes(), 0, d, 1000)
            .into_iter()
            .map(|(_, r)| r)
            .collect()
    }

    #[test]
    fn delimiters_are_sniffed() {
        assert_eq!(sniff_delimiter(b"a;b;c\n1,5;2;3\n2,5;3;4\n", 0), b';');
        assert_eq!(sniff_delimiter(b"a,b\n1.5,2\n", 0), b',');
        assert_eq!(sniff_delimiter(b"a\tb\n1\t2\n", 0), b'\t');
        assert_eq!(sniff_delimiter(b"a|b|c\n1|2|3\n", 0), b'|');
        assert_eq!(sniff_delimiter(b"x\n1\n", 0), b',');
    }

    #[test]
    fn headers_are_told_from_data() {
        let r = rows("time,v\n2024-01-01,1\n2024-01-02,2\n", b',');
        let below: Vec<&[Vec<u8>]> = r[1..].iter().map(Vec::as_slice).collect();
        assert!(looks_like_header(&r[0], &below, false));
        let r = rows("292,1.5,1.6\n920,1.5,1.7\n2870,1.4,1.8\n", b',');
        let below: Vec<&[Vec<u8>]> = r[1..].iter().map(Vec::as_slice).collect();
        assert!(!looks_like_header(&r[0], &below, false));
        let r = rows("20200101 170000065,1.1,0\n20200101 170010447,1.2,0\n", b',');
        let below: Vec<&[Vec<u8>]> = r[1..].iter().map(Vec::as_slice).collect();
        assert!(!looks_like_header(&r[0], &below, false));
    }

    #[test]
    fn unit_lines_are_text_where_the_rows_have_numbers_or_times() {
        let r = rows(
            "TS,RN,Volts\n,,Min\n2021-06-01 01:00,1,12.5\n2021-06-01 02:00,2,12.4\n2021-06-01 03:00,3,\n\
             2021-06-01 04:00,4,12.3\n",
            b',',
        );
        let toa5: Vec<&[Vec<u8>]> = r.iter().map(Vec::as_slice).collect();
        assert_eq!(unit_lines(&toa5, false), 2);
        // Data first: a row with a time or a number where the rows have them is no unit line,
        // nor is one of nulls alone.
        assert_eq!(unit_lines(&toa5[2..], false), 0);
        // A line with digits where the rows below always have them (times in a shape not
        // known here) is a row.
        let r2 = rows(
            "01JAN2024:09:30:00,error\n01JAN2024:09:31:00,2\n01JAN2024:09:32:00,3\n01JAN2024:09:33:00,4\n\
             01JAN2024:09:34:00,5\n",
            b',',
        );
        let rows2: Vec<&[Vec<u8>]> = r2.iter().map(Vec::as_slice).collect();
        assert_eq!(unit_lines(&rows2, false), 0);
        // One row of data under them is enough; none, and nothing is skipped.
        assert_eq!(unit_lines(&toa5[..3], false), 2);
        assert_eq!(unit_lines(&toa5[..2], false), 0);
        assert_eq!(unit_lines(&[], false), 0);
    }

    #[test]
    fn names_get_aliases_and_suffixes() {
        let header: Vec<String> = [
            "Date",
            "Adj Close",
            "time (UTC)",
            "",
            "CO(GT)",
            "v",
            "v",
            "asks[0].price",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (names, changed) = column_names(&header);
        assert_eq!(
            names,
            [
                "Date",
                "adj_close",
                "time_utc",
                "column_4",
                "co_gt",
                "v",
                "v_2",
                "asks_0_price"
            ]
        );
        assert_eq!(changed.len(), 6);
        assert_eq!(alias("Température (°C)", 0), "temperature_c");
        assert_eq!(alias("Δt µs", 2), "t_us");
    }

    #[test]
    fn a_date_and_time_under_one_name_get_two() {
        let mut names: Vec<String> = ["Date", "Open", "Close"].iter().map(|s| s.to_string()).collect();
        let row: Vec<Vec<u8>> = ["2006-01-02", "09:01:00", "1", "2"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
        let mut text = names.clone();
        assert!(fit_header(&mut names, &mut text, &[row]).unwrap().is_some());
        assert_eq!(names, ["Date", "time", "Open", "Close"]);
        assert_eq!(text, ["Date", "", "Open", "Close"]);
        // R's row names; a trailing delimiter on the rows, or on the header; data past the
        // names, refused.
        let fit = |header: &[&str], rows: &[&[&str]]| {
            let mut names: Vec<String> = header.iter().map(|s| s.to_string()).collect();
            let mut text = names.clone();
            let rows: Vec<Vec<Vec<u8>>> = rows
                .iter()
                .map(|r| r.iter().map(|s| s.as_bytes().to_vec()).collect())
                .collect();
            fit_header(&mut names, &mut text, &rows).map(|_| names)
        };
        let r_rows: &[&[&str]] = &[&["1", "2024-01-01", "1.5"], &["2", "2024-01-02", "2"]];
        assert_eq!(fit(&["date", "v"], r_rows).unwrap(), ["column_1", "date", "v"]);
        let trailing: &[&[&str]] = &[&["1", "2024-01-01", "1.5", ""], &["1", "2024-01-02", "2", ""]];
        assert_eq!(
            fit(&["station", "date", "v"], trailing).unwrap(),
            ["station", "date", "v", "column_4"]
        );
        assert_eq!(
            fit(&["date", "v", ""], &[&["2024-01-01", "1.5"]]).unwrap(),
            ["date", "v"]
        );
        assert!(fit(&["date", "v"], &[&["2024-01-01", "Paris", " France"]]).is_err());
        assert!(fit(&["date", "v"], &[&["2", "2024-01-01", "1.5"]]).is_err());
        let named_counter: &[&[&str]] = &[
            &["1", "2024-01-01", "1.5", "ok"],
            &["2", "2024-01-02", "2.5", "ok"],
        ];
        assert!(fit(&["n", "time", "value"], named_counter).is_err());
        let not_counting: &[&[&str]] = &[&["1", "5.5", "2024-01-01", "x"], &["3", "6.5", "2024-01-02", "y"]];
        assert!(fit(&["qty", "price", "date"], not_counting).is_err());
    }

    #[test]
    fn dates_in_file_names() {
        let d = |s: &str| date_in_name(s).map(|(_, t)| t);
        assert_eq!(d("data/20131007_trade.csv").as_deref(), Some("20131007"));
        assert_eq!(
            d("x_2012-06-21_34200000_57600000_message_1.csv").as_deref(),
            Some("2012-06-21")
        );
        assert_eq!(
            d("lean_oanda_20140501_eurusd_tick_quote.csv").as_deref(),
            Some("20140501")
        );
        assert_eq!(d("quotes.csv"), None);
        assert_eq!(d("20140501_20140502.csv"), None, "two dates: none");
        assert_eq!(d("id_123456789.csv"), None);
        assert_eq!(d("20141399.csv"), None);
        assert_eq!(d("2014-é-01.csv"), None, "not a date, and no panic on UTF-8");
    }
}
