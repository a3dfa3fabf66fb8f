//! Column types, the schema, and the fixed-width row codec.
//!
//! A row is `header_len` bytes of flags followed by the columns in schema order, little-endian,
//! unpadded. Flag bit 0 (of byte 0) marks the row present, so a hole (all zeros) never reads as a
//! row; flag bit `1 + i` marks column `i` null. See docs/FORMAT.md.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use super::decimal::{DecError, MAX_SCALE};
use crate::error::{Error, Result};

use super::syms::{SymDict, SymError, MAX_CODES, MAX_SYM_LEN};

/// A column's storage type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
    Bool,
    /// UTF-8 text of at most N bytes, zero-padded.
    Str(u16),
    /// An exact decimal with S (0..=18) digits after the point: an i64 holding the value
    /// times 10^S.
    Dec(u8),
    /// Text of any length, stored as a u32 code into the database's symbol dictionary
    /// (`syms.rs`).
    Sym,
}

/// Longest `str(N)` accepted, in bytes.
pub const MAX_STR_LEN: u16 = 4096;

impl ColumnType {
    pub fn width_bytes(self) -> usize {
        match self {
            ColumnType::I8 | ColumnType::U8 | ColumnType::Bool => 1,
            ColumnType::I16 | ColumnType::U16 => 2,
            ColumnType::I32 | ColumnType::U32 | ColumnType::F32 | ColumnType::Sym => 4,
            ColumnType::I64 | ColumnType::U64 | ColumnType::F64 | ColumnType::Dec(_) => 8,
            ColumnType::Str(n) => usize::from(n),
        }
    }

    /// Whether values are text (`str(N)` or `sym`).
    pub fn is_text(self) -> bool {
        matches!(self, ColumnType::Str(_) | ColumnType::Sym)
    }

    /// Parses `i8 … u64`, `f32`, `f64`, `bool`, `str(N)`, `dec(S)`, `sym`.
    pub fn parse(text: &str) -> Result<ColumnType, String> {
        let t = match text.trim() {
            "i8" => ColumnType::I8,
            "i16" => ColumnType::I16,
            "i32" => ColumnType::I32,
            "i64" => ColumnType::I64,
            "u8" => ColumnType::U8,
            "u16" => ColumnType::U16,
            "u32" => ColumnType::U32,
            "u64" => ColumnType::U64,
            "f32" => ColumnType::F32,
            "f64" => ColumnType::F64,
            "bool" => ColumnType::Bool,
            "sym" => ColumnType::Sym,
            other if other.starts_with("dec(") => {
                let scale = other["dec(".len()..]
                    .strip_suffix(')')
                    .and_then(|s| s.trim().parse::<u8>().ok())
                    .filter(|&s| s <= MAX_SCALE)
                    .ok_or_else(|| {
                        format!("bad scale in `{other}`: write dec(S) with S, the digits after the point, 0..={MAX_SCALE}")
                    })?;
                ColumnType::Dec(scale)
            }
            other => {
                let len = other
                    .strip_prefix("str(")
                    .and_then(|rest| rest.strip_suffix(')'))
                    .ok_or_else(|| {
                        format!("unknown type `{other}` (expected i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, bool, str(N), dec(S) or sym)")
                    })?;
                let n: u16 = len
                    .trim()
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_STR_LEN).contains(n))
                    .ok_or_else(|| format!("bad string length in `{other}`: N must be 1..={MAX_STR_LEN}"))?;
                ColumnType::Str(n)
            }
        };
        Ok(t)
    }
}

impl fmt::Display for ColumnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColumnType::I8 => f.write_str("i8"),
            ColumnType::I16 => f.write_str("i16"),
            ColumnType::I32 => f.write_str("i32"),
            ColumnType::I64 => f.write_str("i64"),
            ColumnType::U8 => f.write_str("u8"),
            ColumnType::U16 => f.write_str("u16"),
            ColumnType::U32 => f.write_str("u32"),
            ColumnType::U64 => f.write_str("u64"),
            ColumnType::F32 => f.write_str("f32"),
            ColumnType::F64 => f.write_str("f64"),
            ColumnType::Bool => f.write_str("bool"),
            ColumnType::Str(n) => write!(f, "str({n})"),
            ColumnType::Dec(s) => write!(f, "dec({s})"),
            ColumnType::Sym => f.write_str("sym"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    pub name: String,
    pub ty: ColumnType,
}

/// Why a text field could not be stored. Import turns these into reject reasons.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldError {
    Unparsable {
        ty: ColumnType,
    },
    OutOfRange {
        ty: ColumnType,
    },
    TooLong {
        len_bytes: usize,
        max_bytes: u16,
    },
    NulByte,
    /// Text bytes that are not UTF-8 (a file in another encoding).
    NotUtf8 {
        ty: ColumnType,
    },
    /// A `dec(S)` value with more decimals than S: storing it would round it.
    TooManyDecimals {
        scale: u8,
        decimals: usize,
    },
    /// A whole number written without a point that the float type holds only rounded
    /// (past 2^53 for f64, 2^24 for f32).
    InexactWhole {
        ty: ColumnType,
    },
    /// A value a `sym` column cannot take.
    Sym(SymError),
}

impl FieldError {
    /// The message for a value of the column `name`: its hints (`xs alter --widen
    /// 'NAME:dec(3)'`) name the column, so that they can be run as printed.
    pub fn for_column(&self, name: &str) -> String {
        self.to_string().replace("NAME:", &format!("{name}:"))
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldError::Unparsable {
                ty: ty @ ColumnType::Dec(_),
            } => write!(
                f,
                "not a valid {ty}: write a plain decimal such as -12.5 (no exponent, nan or inf; \
                 store such values in an f64 column)"
            ),
            FieldError::Unparsable {
                ty:
                    ty @ (ColumnType::I8
                    | ColumnType::I16
                    | ColumnType::I32
                    | ColumnType::I64
                    | ColumnType::U8
                    | ColumnType::U16
                    | ColumnType::U32
                    | ColumnType::U64),
            } => write!(
                f,
                "not a valid {ty} (a whole number); for decimals widen the column: `xs alter \
                 --widen 'NAME:dec(S)'` (S decimals) or 'NAME:f64' for this database, --columns \
                 for a new one"
            ),
            FieldError::Unparsable { ty } => write!(f, "not a valid {ty}"),
            FieldError::OutOfRange {
                ty: ty @ ColumnType::Dec(s),
            } => write!(
                f,
                "value out of range for {ty}, which holds at most {} in magnitude; use a smaller \
                 scale or an f64 column",
                super::decimal::to_string(i128::from(i64::MAX), *s)
            ),
            FieldError::OutOfRange { ty } => write!(f, "value out of range for {ty}"),
            FieldError::InexactWhole { ty } => write!(
                f,
                "a whole number past 2^{}, which {ty} holds only rounded (xs never rounds one): \
                 store it in an integer column (`xs alter --widen NAME:i64` if this column \
                 holds no value yet, --columns NAME:i64 for a new database), or write it with a \
                 decimal point to accept the rounding",
                if *ty == ColumnType::F32 { 24 } else { 53 }
            ),
            FieldError::TooManyDecimals { scale, decimals } => write!(
                f,
                "{decimals} decimals, more than dec({scale}) holds (it is never rounded); widen the \
                 scale: `xs alter --widen 'NAME:dec({decimals})'` for this database, --columns \
                 'NAME:dec({decimals})' for a new one, or store it as f64"
            ),
            FieldError::TooLong { len_bytes, max_bytes } if *len_bytes <= usize::from(MAX_STR_LEN) => write!(
                f,
                "string too long: {len_bytes} bytes, the column holds {max_bytes} (it is never \
                 cut); widen it: `xs alter --widen 'NAME:str({len_bytes})'` for this database, \
                 --columns 'NAME:str({len_bytes})' for a new one"
            ),
            FieldError::TooLong { len_bytes, max_bytes } => write!(
                f,
                "string too long: {len_bytes} bytes, the column holds {max_bytes} and no str(N) \
                 more than {MAX_STR_LEN}; leave the column out of the input or shorten the text"
            ),
            FieldError::NotUtf8 { ty } => write!(
                f,
                "not a valid {ty}: the text is not UTF-8; if the file is in another encoding, \
                 pass --encoding (windows-1252 for most files from Excel or other Windows programs \
                 in Western Europe and the Americas)"
            ),
            FieldError::NulByte | FieldError::Sym(SymError::NulByte) => {
                f.write_str("string contains a NUL byte")
            }
            FieldError::Sym(SymError::TooLong(len)) => write!(
                f,
                "string too long: {len} bytes, a sym value holds at most {MAX_SYM_LEN}"
            ),
            FieldError::Sym(SymError::Unknown) => {
                f.write_str("not a value of this sym column (the database never stored it)")
            }
            FieldError::Sym(SymError::Full) => write!(
                f,
                "the symbol dictionary is full ({MAX_CODES} distinct values); store such text in a str(N) column"
            ),
        }
    }
}

/// A decoded field, for callers that want values rather than bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    UInt(u64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// A `dec(S)` value: the stored integer and S.
    Dec(i64, u8),
}

/// Whether `name` is a usable column name: 1-64 chars of letters, digits, `_`, `-`, `.`.
pub fn valid_column_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

/// The ordered columns of a database (the time column is implicit) and their byte layout.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    columns: Vec<Column>,
    offsets: Vec<usize>,
    header_len: usize,
    row_len: usize,
    /// The hash partition headers carry when it is not this spec's: a column rename (`xs
    /// alter`) changes only `xs.toml`, so the partitions keep the hash of the names they were
    /// written with (`schema_hash` in the config).
    partition_hash: Option<u64>,
    /// `spec_hash`, computed once: every partition opened compares its header with it.
    spec_hash: u64,
    /// The database's symbol dictionary, when a column is `sym`.
    syms: Syms,
}

/// The dictionary a schema's `sym` columns share. Not part of a schema's identity: two
/// schemas of the same columns are equal whatever dictionary they carry.
#[derive(Clone, Default)]
pub struct Syms(Option<Arc<SymDict>>);

impl PartialEq for Syms {
    fn eq(&self, _: &Syms) -> bool {
        true
    }
}

impl fmt::Debug for Syms {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Syms")
    }
}

impl Schema {
    pub fn new(columns: Vec<Column>) -> Result<Schema, String> {
        if columns.is_empty() {
            return Err("a schema needs at least one column".into());
        }
        for (i, c) in columns.iter().enumerate() {
            if !valid_column_name(&c.name) {
                return Err(format!(
                    "bad column name `{}`: use 1-64 letters, digits, `_`, `-` or `.`",
                    c.name
                ));
            }
            if columns[..i].iter().any(|o| o.name == c.name) {
                return Err(format!("column `{}` appears twice", c.name));
            }
        }
        let header_len = (1 + columns.len()).div_ceil(8);
        let mut offsets = Vec::with_capacity(columns.len());
        let mut at = header_len;
        for c in &columns {
            offsets.push(at);
            at += c.ty.width_bytes();
        }
        // An in-memory dictionary until a database attaches its own (`attach_syms`).
        let syms = Syms(
            columns
                .iter()
                .any(|c| c.ty == ColumnType::Sym)
                .then(|| Arc::new(SymDict::in_memory())),
        );
        let mut schema = Schema {
            columns,
            offsets,
            header_len,
            row_len: at,
            partition_hash: None,
            spec_hash: 0,
            syms,
        };
        schema.spec_hash = fnv1a64(schema.spec().as_bytes());
        Ok(schema)
    }

    /// Makes `dict` the dictionary of this schema's `sym` columns.
    pub fn attach_syms(&mut self, dict: Arc<SymDict>) {
        self.syms = Syms(Some(dict));
    }

    /// The symbol dictionary, when a column is `sym`.
    pub fn syms(&self) -> Option<&Arc<SymDict>> {
        self.syms.0.as_ref()
    }

    /// Whether a column is `sym`.
    pub fn has_sym(&self) -> bool {
        self.syms.0.is_some()
    }

    /// The text of a `sym` code. A code the dictionary does not hold even after reading it
    /// again is damage (`Error::Damaged`, exit code 3): it is said, never printed as a value.
    pub fn sym_text(&self, code: u32) -> Result<Arc<str>> {
        self.sym_lookup(code, || "a row".to_string())
    }

    /// `sym_text` of column `col` of a row, which the damage message names, with the row's
    /// time when the caller knows it.
    pub fn sym_text_at(&self, code: u32, col: usize, t_ns: Option<i64>) -> Result<Arc<str>> {
        self.sym_lookup(code, || {
            let name = &self.columns[col].name;
            match t_ns {
                Some(t) => format!(
                    "column `{name}` of the row at {}",
                    crate::io::timefmt::format_iso_exact(t)
                ),
                None => format!("column `{name}` of a row"),
            }
        })
    }

    fn sym_lookup(&self, code: u32, row: impl FnOnce() -> String) -> Result<Arc<str>> {
        match &self.syms.0 {
            Some(dict) => dict.text_reloading(code, row),
            None => Err(no_sym_dict(code, &row())),
        }
    }

    /// Parses `price:f64,qty:f64,side:str(4)`.
    pub fn parse_spec(spec: &str) -> Result<Schema, String> {
        let mut columns = Vec::new();
        for part in split_top_level(spec) {
            let (name, ty) = part.split_once(':').ok_or_else(|| {
                format!("column `{part}` has no type: write it as name:type, e.g. price:f64")
            })?;
            let ty = ColumnType::parse(ty).map_err(|e| format!("column `{}`: {e}", name.trim()))?;
            columns.push(Column {
                name: name.trim().to_string(),
                ty,
            });
        }
        Schema::new(columns)
    }

    /// The spec string `parse_spec` reads: `price:f64,side:str(4)`.
    pub fn spec(&self) -> String {
        let parts: Vec<String> = self
            .columns
            .iter()
            .map(|c| format!("{}:{}", c.name, c.ty))
            .collect();
        parts.join(",")
    }

    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Bytes of one stored row: flags header plus all column widths.
    pub fn row_len(&self) -> usize {
        self.row_len
    }

    pub fn header_len(&self) -> usize {
        self.header_len
    }

    /// The schema hash stored in every partition header to refuse foreign files: 64-bit FNV-1a
    /// of the spec, or the hash kept from before a rename (`with_partition_hash`).
    pub fn hash(&self) -> u64 {
        self.partition_hash.unwrap_or_else(|| self.spec_hash())
    }

    /// 64-bit FNV-1a of the spec.
    pub fn spec_hash(&self) -> u64 {
        self.spec_hash
    }

    /// The hash partitions carry when it differs from the spec's (after a rename).
    pub fn partition_hash(&self) -> Option<u64> {
        self.partition_hash
    }

    /// This schema with partitions that carry `hash` (`None`, or the spec's own: none kept).
    pub fn with_partition_hash(mut self, hash: Option<u64>) -> Schema {
        self.partition_hash = hash.filter(|&h| h != self.spec_hash());
        self
    }

    /// A fresh row buffer: present, every column null until set.
    pub fn new_row(&self) -> Vec<u8> {
        let mut row = vec![0u8; self.row_len];
        self.init_row(&mut row);
        row
    }

    /// Marks `row` present with every column null.
    pub fn init_row(&self, row: &mut [u8]) {
        row.fill(0);
        row[0] = 1;
        for i in 0..self.columns.len() {
            set_bit(row, 1 + i, true);
        }
    }

    pub fn is_present(row: &[u8]) -> bool {
        row[0] & 1 != 0
    }

    pub fn is_null(&self, row: &[u8], col: usize) -> bool {
        get_bit(row, 1 + col)
    }

    /// Byte offset of column `col`'s value within a row.
    pub fn field_offset(&self, col: usize) -> usize {
        self.offsets[col]
    }

    /// Where column `col` sits in a row, for reading it from many rows.
    pub fn field_at(&self, col: usize) -> FieldAt {
        let ty = self.columns[col].ty;
        let null_bit = 1 + col;
        FieldAt {
            col,
            ty,
            offset: self.offsets[col],
            width: ty.width_bytes(),
            null_byte: null_bit / 8,
            null_mask: 1 << (null_bit % 8),
        }
    }

    /// The value bytes of column `col` in `row`.
    pub fn field_bytes<'r>(&self, row: &'r [u8], col: usize) -> &'r [u8] {
        let at = self.offsets[col];
        &row[at..at + self.columns[col].ty.width_bytes()]
    }

    /// Parses `text` into column `col` of `row`. An empty field stores null (for `str(N)` too:
    /// an empty string and null are the same thing in xs, so CSV round-trips exactly).
    pub fn set_field(&self, row: &mut [u8], col: usize, text: &str) -> Result<(), FieldError> {
        let ty = self.columns[col].ty;
        let at = self.offsets[col];
        let dst = &mut row[at..at + ty.width_bytes()];
        if text.is_empty() {
            dst.fill(0);
            set_bit(row, 1 + col, true);
            return Ok(());
        }
        if ty == ColumnType::Sym {
            let dict = self.syms.0.as_ref().ok_or(FieldError::Sym(SymError::Unknown))?;
            let code = dict.intern(text).map_err(FieldError::Sym)?;
            dst.copy_from_slice(&code.to_le_bytes());
        } else {
            encode_field(ty, text, dst)?;
        }
        set_bit(row, 1 + col, false);
        Ok(())
    }

    /// Stores already-encoded value bytes (the column's width, little-endian) into column `col`
    /// and clears its null bit.
    pub fn set_field_bytes(&self, row: &mut [u8], col: usize, bytes: &[u8]) {
        let at = self.offsets[col];
        row[at..at + self.columns[col].ty.width_bytes()].copy_from_slice(bytes);
        set_bit(row, 1 + col, false);
    }

    /// Copies column `col` (its value and null bit) from `from` into `row`.
    pub fn copy_field(&self, row: &mut [u8], from: &[u8], col: usize) {
        let at = self.offsets[col];
        let end = at + self.columns[col].ty.width_bytes();
        row[at..end].copy_from_slice(&from[at..end]);
        set_bit(row, 1 + col, self.is_null(from, col));
    }

    /// Sets column `col` to null.
    pub fn set_null(&self, row: &mut [u8], col: usize) {
        let at = self.offsets[col];
        row[at..at + self.columns[col].ty.width_bytes()].fill(0);
        set_bit(row, 1 + col, true);
    }

    /// Decodes column `col` of `row`; only a `sym` code its dictionary lost fails.
    pub fn value(&self, row: &[u8], col: usize) -> Result<Value> {
        if self.is_null(row, col) {
            return Ok(Value::Null);
        }
        let bytes = self.field_bytes(row, col);
        if self.columns[col].ty == ColumnType::Sym {
            let text = self.sym_text_at(u32::from_le_bytes(le(bytes)), col, None)?;
            return Ok(Value::Str(text.to_string()));
        }
        Ok(decode_field(self.columns[col].ty, bytes))
    }
}

/// Splits a list at commas outside parentheses (`a:str(4),b:f64`, `count,vwap(p,q)`), trimmed,
/// empty parts dropped.
pub fn split_top_level(spec: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in spec.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(spec[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(spec[start..].trim());
    parts.retain(|p| !p.is_empty());
    parts
}

fn set_bit(row: &mut [u8], bit: usize, on: bool) {
    let mask = 1u8 << (bit % 8);
    if on {
        row[bit / 8] |= mask;
    } else {
        row[bit / 8] &= !mask;
    }
}

fn get_bit(row: &[u8], bit: usize) -> bool {
    row[bit / 8] & (1u8 << (bit % 8)) != 0
}

pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_more(FNV1A64_START, bytes)
}

/// The FNV-1a 64 offset basis: `fnv1a64_more(FNV1A64_START, a)` then `(…, b)` hashes `a ++ b`.
pub const FNV1A64_START: u64 = 0xcbf2_9ce4_8422_2325;

/// Continues an FNV-1a 64 hash over `bytes`.
pub fn fnv1a64_more(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

fn parse_int<T: TryFrom<i64> + TryFrom<u64>>(ty: ColumnType, text: &str) -> Result<T, FieldError> {
    let wide: i128 = text.parse().map_err(|_| {
        // Digits that overflow i128 are out of range; anything else is not a number.
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            FieldError::OutOfRange { ty }
        } else {
            FieldError::Unparsable { ty }
        }
    })?;
    let out_of_range = FieldError::OutOfRange { ty };
    if wide < 0 {
        let narrow = i64::try_from(wide).map_err(|_| out_of_range.clone())?;
        T::try_from(narrow).map_err(|_| out_of_range)
    } else {
        let narrow = u64::try_from(wide).map_err(|_| out_of_range.clone())?;
        T::try_from(narrow).map_err(|_| out_of_range)
    }
}

/// Parses a float; a finite literal too large for the type is out of range, not infinity.
fn parse_float<T: std::str::FromStr + Copy + Into<f64> + std::fmt::Display>(
    ty: ColumnType,
    text: &str,
) -> Result<T, FieldError> {
    let v: T = text.parse().map_err(|_| FieldError::Unparsable { ty })?;
    let wide: f64 = v.into();
    let says_infinite = text
        .trim_start_matches(['+', '-'])
        .to_ascii_lowercase()
        .starts_with("inf");
    if wide.is_infinite() && !says_infinite {
        return Err(FieldError::OutOfRange { ty });
    }
    // Digits without a point or an exponent are a whole number (an id, a count): one the float
    // would round is refused rather than stored as another number. Unless they are the
    // float's own shortest digits, as a float writer prints a large one (Rust and Go write
    // 1e300 as a 1 and 300 zeros): then they mean that float.
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.len() > 7 && digits.bytes().all(|b| b.is_ascii_digit()) {
        let exact = digits
            .parse::<u128>()
            .is_ok_and(|whole| wide.abs() as u128 == whole);
        let significant = digits.trim_start_matches('0');
        if !exact && v.to_string().trim_start_matches('-') != significant {
            return Err(FieldError::InexactWhole { ty });
        }
    }
    Ok(v)
}

fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "TRUE" | "True" | "t" | "T" | "1" | "yes" | "y" => Some(true),
        "false" | "FALSE" | "False" | "f" | "F" | "0" | "no" | "n" => Some(false),
        _ => None,
    }
}

pub(crate) fn encode_field(ty: ColumnType, text: &str, dst: &mut [u8]) -> Result<(), FieldError> {
    match ty {
        ColumnType::I8 => dst.copy_from_slice(&parse_int::<i8>(ty, text)?.to_le_bytes()),
        ColumnType::I16 => dst.copy_from_slice(&parse_int::<i16>(ty, text)?.to_le_bytes()),
        ColumnType::I32 => dst.copy_from_slice(&parse_int::<i32>(ty, text)?.to_le_bytes()),
        ColumnType::I64 => dst.copy_from_slice(&parse_int::<i64>(ty, text)?.to_le_bytes()),
        ColumnType::U8 => dst.copy_from_slice(&parse_int::<u8>(ty, text)?.to_le_bytes()),
        ColumnType::U16 => dst.copy_from_slice(&parse_int::<u16>(ty, text)?.to_le_bytes()),
        ColumnType::U32 => dst.copy_from_slice(&parse_int::<u32>(ty, text)?.to_le_bytes()),
        ColumnType::U64 => dst.copy_from_slice(&parse_int::<u64>(ty, text)?.to_le_bytes()),
        ColumnType::F32 => dst.copy_from_slice(&parse_float::<f32>(ty, text)?.to_le_bytes()),
        ColumnType::F64 => dst.copy_from_slice(&parse_float::<f64>(ty, text)?.to_le_bytes()),
        ColumnType::Bool => dst[0] = u8::from(parse_bool(text).ok_or(FieldError::Unparsable { ty })?),
        ColumnType::Dec(scale) => {
            let v = super::decimal::parse(text.as_bytes(), scale).map_err(|e| dec_error(scale, e))?;
            dst.copy_from_slice(&v.to_le_bytes());
        }
        ColumnType::Str(max_bytes) => {
            let bytes = text.as_bytes();
            if bytes.len() > dst.len() {
                return Err(FieldError::TooLong {
                    len_bytes: bytes.len(),
                    max_bytes,
                });
            }
            if bytes.contains(&0) {
                return Err(FieldError::NulByte);
            }
            dst[..bytes.len()].copy_from_slice(bytes);
            dst[bytes.len()..].fill(0);
        }
        // Needs the dictionary: `Schema::set_field` encodes it.
        ColumnType::Sym => return Err(FieldError::Sym(SymError::Unknown)),
    }
    Ok(())
}

/// A `sym` code read without a dictionary. Not met: a schema with a `sym` column always has
/// one; still an error rather than a panic or a wrong value.
#[cold]
pub(crate) fn no_sym_dict(code: u32, row: &str) -> Error {
    Error::Damaged {
        path: PathBuf::from(super::syms::SYM_FILE),
        reason: format!("{row} refers to symbol code {code}, but no symbol dictionary was loaded"),
    }
}

/// The `FieldError` of a `dec(scale)` value that did not parse.
pub(crate) fn dec_error(scale: u8, e: DecError) -> FieldError {
    let ty = ColumnType::Dec(scale);
    match e {
        DecError::Unparsable => FieldError::Unparsable { ty },
        DecError::OutOfRange => FieldError::OutOfRange { ty },
        DecError::TooManyDecimals { decimals } => FieldError::TooManyDecimals { scale, decimals },
    }
}

/// Reads a little-endian array out of a field whose width matches by construction.
pub(crate) fn le<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&bytes[..N]);
    out
}

/// A numeric value, kept in its column's kind so that integer min/max/sum stay exact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    I(i64),
    U(u64),
    F(f64),
}

/// Where one column's value and null bit sit in a stored row, worked out once for loops that
/// read that column of many rows.
#[derive(Clone, Copy, Debug)]
pub struct FieldAt {
    /// The column's index in the schema.
    pub col: usize,
    pub ty: ColumnType,
    pub offset: usize,
    pub width: usize,
    null_byte: usize,
    null_mask: u8,
}

impl FieldAt {
    #[inline]
    pub fn is_null(&self, row: &[u8]) -> bool {
        row[self.null_byte] & self.null_mask != 0
    }

    /// Where its null bit is: the byte of a row's header, and the bit's mask in it.
    #[inline]
    pub fn null_bit(&self) -> (usize, u8) {
        (self.null_byte, self.null_mask)
    }

    #[inline]
    pub fn bytes<'r>(&self, row: &'r [u8]) -> &'r [u8] {
        &row[self.offset..self.offset + self.width]
    }

    /// The value of a numeric column (NaN for `bool` and `str`: callers check the type first).
    #[inline]
    pub fn num(&self, row: &[u8]) -> Num {
        let b = self.bytes(row);
        match self.ty {
            ColumnType::I8 => Num::I(i64::from(i8::from_le_bytes(le(b)))),
            ColumnType::I16 => Num::I(i64::from(i16::from_le_bytes(le(b)))),
            ColumnType::I32 => Num::I(i64::from(i32::from_le_bytes(le(b)))),
            // The scaled integer: min, max, sums and filters stay exact on it.
            ColumnType::I64 | ColumnType::Dec(_) => Num::I(i64::from_le_bytes(le(b))),
            ColumnType::U8 => Num::U(u64::from(b[0])),
            ColumnType::U16 => Num::U(u64::from(u16::from_le_bytes(le(b)))),
            ColumnType::U32 => Num::U(u64::from(u32::from_le_bytes(le(b)))),
            ColumnType::U64 => Num::U(u64::from_le_bytes(le(b))),
            ColumnType::F32 => Num::F(f64::from(f32::from_le_bytes(le(b)))),
            ColumnType::F64 => Num::F(f64::from_le_bytes(le(b))),
            ColumnType::Bool | ColumnType::Str(_) | ColumnType::Sym => Num::F(f64::NAN),
        }
    }

    /// `num`, widened to f64 (a `dec(S)` value divided by 10^S).
    #[inline]
    pub fn f64(&self, row: &[u8]) -> f64 {
        if let ColumnType::Dec(s) = self.ty {
            return super::decimal::to_f64(i64::from_le_bytes(le(self.bytes(row))), s);
        }
        match self.num(row) {
            Num::I(v) => v as f64,
            Num::U(v) => v as f64,
            Num::F(v) => v,
        }
    }
}

pub fn decode_field(ty: ColumnType, bytes: &[u8]) -> Value {
    match ty {
        ColumnType::I8 => Value::Int(i64::from(i8::from_le_bytes(le(bytes)))),
        ColumnType::I16 => Value::Int(i64::from(i16::from_le_bytes(le(bytes)))),
        ColumnType::I32 => Value::Int(i64::from(i32::from_le_bytes(le(bytes)))),
        ColumnType::I64 => Value::Int(i64::from_le_bytes(le(bytes))),
        ColumnType::U8 => Value::UInt(u64::from(bytes[0])),
        ColumnType::U16 => Value::UInt(u64::from(u16::from_le_bytes(le(bytes)))),
        ColumnType::U32 => Value::UInt(u64::from(u32::from_le_bytes(le(bytes)))),
        ColumnType::U64 => Value::UInt(u64::from_le_bytes(le(bytes))),
        ColumnType::F32 => Value::Float(f64::from(f32::from_le_bytes(le(bytes)))),
        ColumnType::F64 => Value::Float(f64::from_le_bytes(le(bytes))),
        ColumnType::Bool => Value::Bool(bytes[0] != 0),
        ColumnType::Dec(s) => Value::Dec(i64::from_le_bytes(le(bytes)), s),
        // The code itself: `Schema::value` gives the text.
        ColumnType::Sym => Value::UInt(u64::from(u32::from_le_bytes(le(bytes)))),
        ColumnType::Str(_) => {
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            Value::Str(String::from_utf8_lossy(&bytes[..end]).into_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Schema {
        Schema::parse_spec("a:i8,b:u64,c:f32,d:f64,e:bool,f:str(5),g:i64,h:u16").unwrap()
    }

    /// A whole number a float would store as another number is refused (an id past 2^53);
    /// one the float holds exactly, or that is the float's own shortest digits (a float
    /// writer's `1e300` without an exponent), is stored.
    #[test]
    fn whole_numbers_a_float_would_round_are_refused() {
        let f64_of = |text: &str| parse_float::<f64>(ColumnType::F64, text);
        let f32_of = |text: &str| parse_float::<f32>(ColumnType::F32, text);
        let inexact = Err(FieldError::InexactWhole { ty: ColumnType::F64 });
        assert_eq!(f64_of("9007199254740993"), inexact);
        assert_eq!(f64_of("-12345678901234567"), inexact);
        assert_eq!(f64_of("9007199254740992"), Ok(9_007_199_254_740_992.0));
        assert_eq!(f64_of("1152921504606846976"), Ok(2f64.powi(60)));
        assert_eq!(f64_of("9007199254740993.0"), Ok(9_007_199_254_740_992.0));
        assert_eq!(f64_of(&format!("1{}", "0".repeat(300))), Ok(1e300));
        assert_eq!(f64_of(&format!("-{}", 1e300)), Ok(-1e300));
        assert_eq!(
            f32_of("16777217"),
            Err(FieldError::InexactWhole { ty: ColumnType::F32 })
        );
        assert_eq!(f32_of("16777216"), Ok(16_777_216.0));
        assert_eq!(f32_of(&format!("{}", 3e30f32)), Ok(3e30));
    }

    #[test]
    fn layout_and_spec_round_trip() {
        let s = schema();
        assert_eq!(s.header_len(), 2); // 1 present bit + 8 null bits
        assert_eq!(s.row_len(), 2 + 1 + 8 + 4 + 8 + 1 + 5 + 8 + 2);
        assert_eq!(Schema::parse_spec(&s.spec()).unwrap(), s);
    }

    #[test]
    fn fields_encode_and_decode() {
        let s = schema();
        let mut row = s.new_row();
        assert!(Schema::is_present(&row));
        for col in 0..8 {
            assert!(s.is_null(&row, col));
        }
        s.set_field(&mut row, 0, "-128").unwrap();
        s.set_field(&mut row, 1, "18446744073709551615").unwrap();
        s.set_field(&mut row, 2, "NaN").unwrap();
        s.set_field(&mut row, 3, "-inf").unwrap();
        s.set_field(&mut row, 4, "true").unwrap();
        s.set_field(&mut row, 5, "héé").unwrap();
        assert_eq!(s.value(&row, 0).unwrap(), Value::Int(-128));
        assert_eq!(s.value(&row, 1).unwrap(), Value::UInt(u64::MAX));
        assert!(matches!(s.value(&row, 2).unwrap(), Value::Float(v) if v.is_nan()));
        assert_eq!(s.value(&row, 3).unwrap(), Value::Float(f64::NEG_INFINITY));
        assert_eq!(s.value(&row, 4).unwrap(), Value::Bool(true));
        assert_eq!(s.value(&row, 5).unwrap(), Value::Str("héé".into()));
        assert_eq!(s.value(&row, 6).unwrap(), Value::Null);
    }

    #[test]
    fn bad_fields_are_refused_with_reasons() {
        let s = schema();
        let mut row = s.new_row();
        assert_eq!(
            s.set_field(&mut row, 0, "128"),
            Err(FieldError::OutOfRange { ty: ColumnType::I8 })
        );
        assert_eq!(
            s.set_field(&mut row, 1, "-1"),
            Err(FieldError::OutOfRange { ty: ColumnType::U64 })
        );
        assert_eq!(
            s.set_field(&mut row, 1, "99999999999999999999999999999999999999999"),
            Err(FieldError::OutOfRange { ty: ColumnType::U64 })
        );
        assert_eq!(
            s.set_field(&mut row, 0, "1.5"),
            Err(FieldError::Unparsable { ty: ColumnType::I8 })
        );
        assert_eq!(
            s.set_field(&mut row, 2, "1e39"),
            Err(FieldError::OutOfRange { ty: ColumnType::F32 })
        );
        assert_eq!(
            s.set_field(&mut row, 4, "maybe"),
            Err(FieldError::Unparsable { ty: ColumnType::Bool })
        );
        assert_eq!(
            s.set_field(&mut row, 5, "ééé"),
            Err(FieldError::TooLong {
                len_bytes: 6,
                max_bytes: 5
            })
        );
        assert_eq!(s.set_field(&mut row, 5, "a\0"), Err(FieldError::NulByte));
    }

    #[test]
    fn dec_columns_store_the_scaled_integer() {
        let s = Schema::parse_spec("p:dec(8),q:dec(0),r:dec(18)").unwrap();
        assert_eq!(s.spec(), "p:dec(8),q:dec(0),r:dec(18)");
        assert_eq!(s.row_len(), 1 + 3 * 8);
        let mut row = s.new_row();
        s.set_field(&mut row, 0, "61837.63000000").unwrap();
        assert_eq!(s.field_bytes(&row, 0), 6_183_763_000_000i64.to_le_bytes());
        assert_eq!(s.value(&row, 0).unwrap(), Value::Dec(6_183_763_000_000, 8));
        assert_eq!(s.field_at(0).num(&row), Num::I(6_183_763_000_000));
        assert_eq!(s.field_at(0).f64(&row), 61837.63);
        assert_eq!(
            s.set_field(&mut row, 0, "0.123456789"),
            Err(FieldError::TooManyDecimals {
                scale: 8,
                decimals: 9
            })
        );
        assert_eq!(
            s.set_field(&mut row, 1, "1e5"),
            Err(FieldError::Unparsable {
                ty: ColumnType::Dec(0)
            })
        );
        assert_eq!(
            s.set_field(&mut row, 2, "10"),
            Err(FieldError::OutOfRange {
                ty: ColumnType::Dec(18)
            })
        );
        let msg = FieldError::TooManyDecimals {
            scale: 8,
            decimals: 9,
        }
        .to_string();
        assert!(msg.contains("dec(9)") && msg.contains("never rounded"), "{msg}");
        // Hints run as printed: a type with parentheses is quoted for the shell.
        let hint = FieldError::TooManyDecimals {
            scale: 2,
            decimals: 3,
        }
        .for_column("price");
        assert!(hint.contains("--columns 'price:dec(3)'"), "{hint}");
        assert!(!hint.contains("NAME"), "{hint}");
    }

    #[test]
    fn bad_specs_are_refused() {
        assert!(Schema::parse_spec("").is_err());
        assert!(Schema::parse_spec("a").is_err());
        assert!(Schema::parse_spec("a:i128").is_err());
        assert!(Schema::parse_spec("a:str(0)").is_err());
        assert!(Schema::parse_spec("a:dec(19)").is_err());
        assert!(Schema::parse_spec("a:dec(-1)").is_err());
        assert!(Schema::parse_spec("a:dec()").is_err());
        assert!(Schema::parse_spec("a:i8,a:i8").is_err());
        assert!(Schema::parse_spec("a b:i8").is_err());
    }

    /// A code past the dictionary is an error the caller propagates (exit 3 in the CLI), not
    /// a stop of the process; it names sym.dict, the code, the column and the time.
    #[test]
    fn an_unknown_sym_code_is_an_error() {
        let s = Schema::parse_spec("n:i8,side:sym").unwrap();
        let dict = s.syms().unwrap();
        assert_eq!(dict.intern("buy").unwrap(), 0);
        assert_eq!(&*s.sym_text(0).unwrap(), "buy");
        assert!(matches!(s.sym_text(1), Err(Error::Damaged { .. })));
        let e = s.sym_text_at(7, 1, Some(1_000_000_000)).unwrap_err().to_string();
        assert!(
            e.contains("sym.dict")
                && e.contains("column `side` of the row at 1970-01-01T00:00:01Z refers to symbol code 7")
                && e.contains("holds 1 entries"),
            "{e}"
        );
        let mut row = s.new_row();
        s.set_field(&mut row, 0, "3").unwrap();
        s.set_field(&mut row, 1, "buy").unwrap();
        assert_eq!(s.value(&row, 1).unwrap(), Value::Str("buy".into()));
        row[s.offsets[1]..s.offsets[1] + 4].copy_from_slice(&5u32.to_le_bytes());
        assert!(matches!(s.value(&row, 1), Err(Error::Damaged { .. })));
        assert_eq!(s.value(&row, 0).unwrap(), Value::Int(3));
    }
}
