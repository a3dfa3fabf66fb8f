//! `--where`: conditions on columns (and the time column), all of which a row must meet; see
//! docs/QUERIES.md, "Filter". Values are parsed once, typed by their column: integers and
//! `dec(S)` decimals (a value finer than S included) compare exactly, floats as floats (as the column's own width: `f32` values are parsed as `f32`), text
//! bytewise, `bool` as false < true, the time column as times. A null never meets a comparison;
//! only `COL=` (empty value: is null) and `COL!=` (is not null) look at nulls.
//!
//! A filter also tells, from a storage bucket's summary (min and max of its numeric columns in
//! its directory entry), when none of the bucket's rows can pass, so that scans skip it unread.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::db::config::Config;
use crate::db::schema::{ColumnType, FieldAt, Num, Schema};
use crate::db::summary::{decode_bounds, BoundKind, Bounds, SummaryLayout};
use crate::db::syms::Snapshot;
use crate::db::time::Zone;
use crate::error::Result;

/// The comparison of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Op {
    fn holds(self, ord: Ordering) -> bool {
        match self {
            Op::Eq => ord == Ordering::Equal,
            Op::Ne => ord != Ordering::Equal,
            Op::Lt => ord == Ordering::Less,
            Op::Le => ord != Ordering::Greater,
            Op::Gt => ord == Ordering::Greater,
            Op::Ge => ord != Ordering::Less,
        }
    }
}

/// A value to compare with, in the kind of its column.
#[derive(Clone, Debug)]
enum Val {
    /// Integers, `bool` (0, 1) and times (ns): compared exactly, whatever the column's width.
    Int(i128),
    Float(f64),
    /// Text without the zero padding.
    Text(Vec<u8>),
}

/// What a condition asks of its column's value.
#[derive(Clone, Debug)]
enum Test {
    IsNull,
    NotNull,
    Cmp(Op, Val),
    In(Vec<Val>),
    /// `=`, `!=` or `in` on a `str(N)` column: the values zero-padded to N bytes, compared with
    /// the stored bytes as they are (`equal` false for `!=`). Values longer than N are left
    /// out: they cannot be stored.
    Padded {
        any_of: Vec<Vec<u8>>,
        equal: bool,
    },
    /// `=`, `!=` or `in` on a `sym` column: the codes of the texts `want` (those the
    /// dictionary held, `known` entries, when parsed) compared with the stored code. A code
    /// past `known` is looked up (a writer appended, or the dictionary lost it: damage).
    SymEq {
        codes: Vec<u32>,
        want: Vec<Vec<u8>>,
        equal: bool,
        known: u32,
        schema: Box<Schema>,
    },
    /// `<`, `<=`, `>`, `>=` on a `sym` column: the code's text compared by bytes.
    SymCmp {
        op: Op,
        want: Val,
        snap: Arc<Snapshot>,
        schema: Box<Schema>,
    },
}

/// Which value a condition looks at.
#[derive(Clone, Copy, Debug)]
enum Target {
    Field(FieldAt),
    Time,
}

#[derive(Clone, Debug)]
struct Cond {
    target: Target,
    test: Test,
    /// The column's place among the summarized columns, for skipping buckets.
    slot: Option<(usize, BoundKind)>,
}

/// Conditions that must all hold (`--where` repeated, or joined by `and`).
#[derive(Clone, Debug)]
pub struct Filter {
    conds: Vec<Cond>,
}

/// How to write a condition, for error messages.
const SYNTAX: &str = "write COLUMN OP VALUE with OP one of = != < <= > >=, or COLUMN in (A,B,…); \
                      several conditions go in repeated --where or are joined by `and`, \
                      e.g. --where 'price>62000 and side=sell'";

impl Filter {
    /// Parses every `--where` text against `config` (its columns and time column); `None` when
    /// there are none. `Err` names the condition, the column and what it accepts.
    pub fn parse(config: &Config, texts: &[String]) -> Result<Option<Filter>, String> {
        let layout = SummaryLayout::new(&config.schema);
        let mut conds = Vec::new();
        for text in texts {
            let parts = split_and(text)?;
            if parts.is_empty() {
                return Err(format!("--where `{text}` is empty: {SYNTAX}"));
            }
            for part in parts {
                conds.push(parse_cond(config, &layout, part)?);
            }
        }
        Ok((!conds.is_empty()).then_some(Filter { conds }))
    }

    /// Whether the row at `t_ns` (a stored row of the schema the filter was parsed for) passes.
    /// Fails only on damage: a `sym` code the dictionary lost (`Schema::sym_text`).
    #[inline]
    pub fn matches(&self, t_ns: i64, row: &[u8]) -> Result<bool> {
        for c in &self.conds {
            if !c.matches(t_ns, row)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether some condition is on a summarized column, so `cannot_match` can skip buckets.
    pub fn prunes(&self) -> bool {
        self.conds.iter().any(|c| c.slot.is_some())
    }

    /// Whether a storage bucket whose verified summary is `bounds` (16 bytes per summarized
    /// column, as `summary::verified_bounds` gives) holds no row that can pass. Conservative:
    /// `false` whenever the summary cannot tell (a NaN in the bucket, a test on nulls).
    pub fn cannot_match(&self, bounds: &[u8]) -> bool {
        self.conds.iter().any(|c| c.cannot_match(bounds))
    }
}

/// A stored value (or a bound) as a filter compares it, borrowed from the row.
#[derive(Clone, Copy, Debug)]
enum Seen<'r> {
    Int(i128),
    Float(f64),
    Text(&'r [u8]),
}

impl Cond {
    /// Fails only on damage: a `sym` code the dictionary lost.
    #[inline]
    fn matches(&self, t_ns: i64, row: &[u8]) -> Result<bool> {
        let field = match self.target {
            Target::Time => return Ok(self.test.holds_for(Seen::Int(i128::from(t_ns)))),
            Target::Field(f) => f,
        };
        let null = field.is_null(row);
        Ok(match &self.test {
            Test::IsNull => null,
            Test::NotNull => !null,
            _ if null => false,
            Test::Padded { any_of, equal } => {
                let stored = field.bytes(row);
                any_of.iter().any(|w| w.as_slice() == stored) == *equal
            }
            Test::SymEq {
                codes,
                want,
                equal,
                known,
                schema,
            } => {
                let code = u32::from_le_bytes(crate::db::schema::le(field.bytes(row)));
                if code < *known {
                    codes.contains(&code) == *equal
                } else {
                    let text = schema.sym_text_at(code, field.col, Some(t_ns))?;
                    want.iter().any(|w| w.as_slice() == text.as_bytes()) == *equal
                }
            }
            Test::SymCmp {
                op,
                want,
                snap,
                schema,
            } => {
                let code = u32::from_le_bytes(crate::db::schema::le(field.bytes(row)));
                let ord = match snap.text(code) {
                    Some(t) => compare(Seen::Text(t.as_bytes()), want),
                    None => {
                        let text = schema.sym_text_at(code, field.col, Some(t_ns))?;
                        compare(Seen::Text(text.as_bytes()), want)
                    }
                };
                ord.is_some_and(|o| op.holds(o))
            }
            test => test.holds_for(value_of(field, row)),
        })
    }

    fn cannot_match(&self, bounds: &[u8]) -> bool {
        let Some((slot, kind)) = self.slot else {
            return false;
        };
        let (lo, hi) = match decode_bounds(kind, bounds, slot) {
            // No non-null value in the bucket: only `is null` can hold.
            None => return !matches!(self.test, Test::IsNull),
            Some(Bounds::Float(lo, _)) if lo.is_nan() => return false,
            Some(Bounds::Signed(lo, hi)) => (Seen::Int(i128::from(lo)), Seen::Int(i128::from(hi))),
            Some(Bounds::Unsigned(lo, hi)) => (Seen::Int(i128::from(lo)), Seen::Int(i128::from(hi))),
            Some(Bounds::Float(lo, hi)) => (Seen::Float(lo), Seen::Float(hi)),
        };
        // `compare(bound, v)` is `None` when a NaN is involved: then nothing is ruled out.
        let outside =
            |v: &Val| compare(lo, v) == Some(Ordering::Greater) || compare(hi, v) == Some(Ordering::Less);
        match &self.test {
            Test::IsNull | Test::NotNull | Test::Padded { .. } | Test::SymEq { .. } | Test::SymCmp { .. } => {
                false
            }
            Test::In(vals) => vals.iter().all(outside),
            Test::Cmp(Op::Eq, v) => outside(v),
            Test::Cmp(Op::Ne, v) => {
                compare(lo, v) == Some(Ordering::Equal) && compare(hi, v) == Some(Ordering::Equal)
            }
            // No value in [lo, hi] meets the comparison when the nearest one does not.
            Test::Cmp(op @ (Op::Lt | Op::Le), v) => !compare(lo, v).is_some_and(|o| op.holds(o)),
            Test::Cmp(op @ (Op::Gt | Op::Ge), v) => !compare(hi, v).is_some_and(|o| op.holds(o)),
        }
    }
}

impl Test {
    #[inline]
    fn holds_for(&self, value: Seen) -> bool {
        match self {
            Test::IsNull => false,
            Test::NotNull => true,
            Test::Cmp(op, want) => match compare(value, want) {
                Some(ord) => op.holds(ord),
                // NaN: equal only to NaN, unordered with everything.
                None => match op {
                    Op::Eq => both_nan(value, want),
                    Op::Ne => !both_nan(value, want),
                    _ => false,
                },
            },
            Test::In(wants) => wants
                .iter()
                .any(|w| compare(value, w) == Some(Ordering::Equal) || both_nan(value, w)),
            // Made only for fields, which `Cond::matches` compares in place.
            Test::Padded { .. } | Test::SymEq { .. } | Test::SymCmp { .. } => false,
        }
    }
}

fn both_nan(a: Seen, b: &Val) -> bool {
    matches!((a, b), (Seen::Float(x), Val::Float(y)) if x.is_nan() && y.is_nan())
}

/// How `a` compares with `b` (both of one column, so of one kind); `None` when a NaN is involved.
#[inline]
fn compare(a: Seen, b: &Val) -> Option<Ordering> {
    match (a, b) {
        (Seen::Int(x), Val::Int(y)) => Some(x.cmp(y)),
        (Seen::Float(x), Val::Float(y)) => x.partial_cmp(y),
        (Seen::Text(x), Val::Text(y)) => Some(x.cmp(y.as_slice())),
        _ => None,
    }
}

/// The non-null value of `field` in `row`, as a filter compares it.
#[inline]
fn value_of(field: FieldAt, row: &[u8]) -> Seen<'_> {
    match field.ty {
        ColumnType::Bool => Seen::Int(i128::from(field.bytes(row)[0] != 0)),
        ColumnType::Str(_) => {
            let b = field.bytes(row);
            let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
            Seen::Text(&b[..end])
        }
        _ => match field.num(row) {
            Num::I(v) => Seen::Int(i128::from(v)),
            Num::U(v) => Seen::Int(i128::from(v)),
            Num::F(v) => Seen::Float(v),
        },
    }
}

/// Splits one `--where` text at ` and ` (any case) outside quotes and parentheses.
fn split_and(text: &str) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quote: Option<char> = None;
    let mut depth = 0i32;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth -= 1,
            (None, c) if c.is_whitespace() && depth == 0 => {
                let rest = &text[i + 1..];
                let word = rest.get(..3).is_some_and(|w| w.eq_ignore_ascii_case("and"));
                let spaced = bytes.get(i + 4).is_none_or(|b| b.is_ascii_whitespace());
                if word && spaced && i > start {
                    parts.push(text[start..i].trim());
                    start = i + 4;
                }
            }
            _ => {}
        }
    }
    if let Some(q) = quote {
        return Err(format!("--where `{text}`: a {q} is not closed"));
    }
    parts.push(text[start..].trim());
    if parts.iter().any(|p| p.is_empty()) && parts.len() > 1 {
        return Err(format!(
            "--where `{text}`: `and` needs a condition on each side; {SYNTAX}"
        ));
    }
    parts.retain(|p| !p.is_empty());
    Ok(parts)
}

/// Where the comparison of `text` starts, the comparison, and where its value starts; `None`
/// for `in`, whose position is the second item.
fn find_op(text: &str) -> Option<(usize, Option<Op>, usize)> {
    let b = text.as_bytes();
    let mut quote: Option<u8> = None;
    for i in 0..b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => {
                quote = None;
                continue;
            }
            Some(_) => continue,
            None if c == b'\'' || c == b'"' => {
                quote = Some(c);
                continue;
            }
            None => {}
        }
        let two = b.get(i..i + 2).unwrap_or(&[]);
        let found = match (two, c) {
            (b"!=", _) => Some((Op::Ne, 2)),
            (b"<=", _) => Some((Op::Le, 2)),
            (b">=", _) => Some((Op::Ge, 2)),
            (_, b'=') => Some((Op::Eq, 1)),
            (_, b'<') => Some((Op::Lt, 1)),
            (_, b'>') => Some((Op::Gt, 1)),
            _ => None,
        };
        if let Some((op, len)) = found {
            return Some((i, Some(op), i + len));
        }
        // ` in (`: the word, after a space, before an opening parenthesis.
        if i > 0 && b[i - 1].is_ascii_whitespace() && two.eq_ignore_ascii_case(b"in") {
            let after = text[i + 2..].trim_start();
            if after.starts_with('(')
                && b.get(i + 2)
                    .is_some_and(|c| c.is_ascii_whitespace() || *c == b'(')
            {
                return Some((i, None, i + 2));
            }
        }
    }
    None
}

/// A value as written: quoted (`'a b'`, `"x,y"`; a doubled quote inside stands for one) or
/// bare (trimmed).
fn unquote(text: &str) -> Result<String, String> {
    let t = text.trim();
    let Some(q) = t.chars().next().filter(|c| *c == '\'' || *c == '"') else {
        return Ok(t.to_string());
    };
    let mut out = String::new();
    let mut chars = t[1..].chars().peekable();
    while let Some(c) = chars.next() {
        if c == q {
            if chars.peek() == Some(&q) {
                chars.next();
                out.push(q);
                continue;
            }
            let rest: String = chars.collect();
            if !rest.trim().is_empty() {
                return Err(format!("`{t}`: text after the closing {q}"));
            }
            return Ok(out);
        }
        out.push(c);
    }
    Err(format!("`{t}`: the {q} is not closed"))
}

fn parse_cond(config: &Config, layout: &SummaryLayout, text: &str) -> Result<Cond, String> {
    let schema = &config.schema;
    let (at, op, value_at) =
        find_op(text).ok_or_else(|| format!("--where `{text}`: no comparison found; {SYNTAX}"))?;
    let name = text[..at].trim();
    if name.is_empty() {
        return Err(format!(
            "--where `{text}`: no column before the comparison; {SYNTAX}"
        ));
    }
    let name = super::stored_name(name, |n| {
        schema.column_index(n).is_some() || n == config.time_column
    })
    .map_err(|e| format!("--where: {e}"))?;
    let is_time = name == config.time_column;
    let target = if is_time {
        Target::Time
    } else {
        let col = schema.column_index(&name).ok_or_else(|| {
            let names: Vec<&str> = schema.columns().iter().map(|c| c.name.as_str()).collect();
            format!(
                "--where `{text}`: unknown column `{name}`; this database has {} (and the time column {})",
                names.join(","),
                config.time_column
            )
        })?;
        Target::Field(schema.field_at(col))
    };
    let ty_name = match target {
        Target::Time => "the time column".to_string(),
        Target::Field(f) => format!("{}", f.ty),
    };
    let typed = |v: &str| -> Result<Val, String> {
        value(target, v, &config.timezone).map_err(|accepts| {
            format!("--where `{text}`: `{v}` is not a value of column `{name}` ({ty_name}): {accepts}")
        })
    };
    let rest = &text[value_at..];
    let test = match op {
        None => {
            let list = rest
                .trim()
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .ok_or_else(|| format!("--where `{text}`: write the list as {name} in (A,B,…)"))?;
            let items = split_list(list).map_err(|e| format!("--where `{text}`: {e}"))?;
            if items.iter().any(|i| i.is_empty()) || items.is_empty() {
                return Err(format!(
                    "--where `{text}`: `in` takes values, none empty (nulls never match; use {name}= for them)"
                ));
            }
            // A decimal finer than a dec column's scale equals none of its values.
            let mut vals = Vec::with_capacity(items.len());
            for item in &items {
                let v = typed(item)?;
                if !is_inexact_dec(target, item) {
                    vals.push(v);
                }
            }
            Test::In(vals)
        }
        Some(op) => {
            let v = unquote(rest).map_err(|e| format!("--where `{text}`: {e}"))?;
            match (op, v.is_empty()) {
                (Op::Eq, true) => Test::IsNull,
                (Op::Ne, true) => Test::NotNull,
                (_, true) => {
                    return Err(format!(
                        "--where `{text}`: no value after the comparison (nulls never compare; {name}= \
                         matches them, {name}!= the rest)"
                    ))
                }
                (op, false) => {
                    let want = typed(&v)?;
                    if is_inexact_dec(target, &v) {
                        // `want` is the value's floor at the column's scale: no stored value
                        // lies strictly between it and the next step, so `< v` is `<= floor`
                        // and `> v` is `> floor`, exactly.
                        match op {
                            Op::Eq => Test::In(Vec::new()),
                            Op::Ne => Test::NotNull,
                            Op::Lt | Op::Le => Test::Cmp(Op::Le, want),
                            Op::Gt | Op::Ge => Test::Cmp(Op::Gt, want),
                        }
                    } else {
                        Test::Cmp(op, want)
                    }
                }
            }
        }
    };
    if matches!(target, Target::Time) && matches!(test, Test::IsNull | Test::NotNull) {
        return Err(format!(
            "--where `{text}`: the time column is never null; give a time"
        ));
    }
    // Text equality compares the stored bytes in place, as fast as a fixed-width compare.
    let test = match (target, test) {
        (Target::Field(f), Test::Cmp(op @ (Op::Eq | Op::Ne), v)) if matches!(f.ty, ColumnType::Str(_)) => {
            padded(f.width, &[v], op == Op::Eq)
        }
        (Target::Field(f), Test::In(vals)) if matches!(f.ty, ColumnType::Str(_)) => {
            padded(f.width, &vals, true)
        }
        // Equality by code: a text the dictionary does not hold matches no row it holds.
        (Target::Field(f), Test::Cmp(op @ (Op::Eq | Op::Ne), v)) if f.ty == ColumnType::Sym => {
            sym_codes(schema, &[v], op == Op::Eq)
        }
        (Target::Field(f), Test::In(vals)) if f.ty == ColumnType::Sym => sym_codes(schema, &vals, true),
        (Target::Field(f), Test::Cmp(op, want)) if f.ty == ColumnType::Sym => Test::SymCmp {
            op,
            want,
            snap: schema.syms().map(|d| d.snapshot_or_empty()).unwrap_or_default(),
            schema: Box::new(schema.clone()),
        },
        (_, test) => test,
    };
    let slot = match target {
        Target::Field(f) => layout.slot_of(f.col).zip(BoundKind::of(f.ty)),
        Target::Time => None,
    };
    Ok(Cond { target, test, slot })
}

/// `Test::SymEq` over the texts `vals` of a `sym` column.
fn sym_codes(schema: &Schema, vals: &[Val], equal: bool) -> Test {
    let want: Vec<Vec<u8>> = vals
        .iter()
        .filter_map(|v| match v {
            Val::Text(t) => Some(t.clone()),
            _ => None,
        })
        .collect();
    let (mut codes, mut known) = (Vec::new(), 0);
    if let Some(dict) = schema.syms() {
        // Perhaps stored since this handle loaded the dictionary.
        if want.iter().any(|t| {
            std::str::from_utf8(t)
                .ok()
                .and_then(|t| dict.snapshot_or_empty().code(t))
                .is_none()
        }) {
            // A failed read leaves the snapshot: rows past it are looked up one by one.
            let _ = dict.reload();
        }
        let snap = dict.snapshot_or_empty();
        // A damaged entry may be a wanted text's: then no code counts as known, and each row's
        // text is looked up, which stops at the damage rather than miss the row.
        if snap.check_all().is_ok() {
            codes = want
                .iter()
                .filter_map(|t| snap.code(std::str::from_utf8(t).ok()?))
                .collect();
            known = snap.len() as u32;
        }
    }
    Test::SymEq {
        codes,
        want,
        equal,
        known,
        schema: Box::new(schema.clone()),
    }
}

/// `Test::Padded` for text `vals` of a `str` column `width` bytes wide.
fn padded(width: usize, vals: &[Val], equal: bool) -> Test {
    let any_of = vals
        .iter()
        .filter_map(|v| match v {
            Val::Text(t) if t.len() <= width => {
                let mut w = t.clone();
                w.resize(width, 0);
                Some(w)
            }
            _ => None,
        })
        .collect();
    Test::Padded { any_of, equal }
}

/// The items of an `in` list, unquoted: commas inside quotes belong to the value.
fn split_list(list: &str) -> Result<Vec<String>, String> {
    let mut items = Vec::new();
    let mut start = 0;
    let mut quote: Option<char> = None;
    for (i, c) in list.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, ',') => {
                items.push(unquote(&list[start..i])?);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(unquote(&list[start..])?);
    Ok(items)
}

/// Whether `text` is a decimal with more digits after the point than `target`'s `dec(S)`
/// column holds (so it lies between two values the column can store).
fn is_inexact_dec(target: Target, text: &str) -> bool {
    match target {
        Target::Field(FieldAt {
            ty: ColumnType::Dec(s),
            ..
        }) => crate::db::decimal::parse_floor(text.as_bytes(), s).is_some_and(|(_, exact)| !exact),
        _ => false,
    }
}

/// `text` as a value of `target` (a decimal finer than a `dec(S)` column: its floor at S; a
/// time without a zone read in `zone`, the database's); `Err` says what the column accepts.
fn value(target: Target, text: &str, zone: &Zone) -> Result<Val, String> {
    let ty = match target {
        Target::Time => {
            let arg = crate::io::timefmt::parse_time_arg(text).map_err(|_| {
                "give a time as for FROM/TO (ISO-8601, or epoch with a unit: 1723161255342ms)".to_string()
            })?;
            return arg.in_zone(zone).map(|ns| Val::Int(i128::from(ns)));
        }
        Target::Field(f) => f.ty,
    };
    match ty {
        ColumnType::F32 => text
            .parse::<f32>()
            .map(|v| Val::Float(f64::from(v)))
            .map_err(|_| "give a number (1, -2.5, 1e-3, NaN, inf)".into()),
        ColumnType::F64 => text
            .parse::<f64>()
            .map(Val::Float)
            .map_err(|_| "give a number (1, -2.5, 1e-3, NaN, inf)".into()),
        ColumnType::Bool => {
            let mut scratch = [0u8; 1];
            crate::db::schema::encode_field(ColumnType::Bool, text, &mut scratch)
                .map(|()| Val::Int(i128::from(scratch[0])))
                .map_err(|_| "give true or false (also 1/0, yes/no, t/f)".into())
        }
        ColumnType::Dec(s) => crate::db::decimal::parse_floor(text.as_bytes(), s)
            .map(|(v, _)| Val::Int(v))
            .ok_or_else(|| {
                "give a plain decimal such as -12.5 (dec columns compare exactly; no exponent)".into()
            }),
        ColumnType::Str(_) | ColumnType::Sym => {
            if text.contains('\0') {
                return Err("text cannot hold a NUL byte".into());
            }
            Ok(Val::Text(text.as_bytes().to_vec()))
        }
        _ => text
            .strip_prefix('+')
            .unwrap_or(text)
            .parse::<i128>()
            .ok()
            .filter(|v| i64::try_from(*v).is_ok() || u64::try_from(*v).is_ok())
            .map(Val::Int)
            .ok_or_else(|| "give a whole number (integers compare exactly)".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::schema::Schema;

    fn config(spec: &str) -> Config {
        Config::parse(&format!(
            "format = 1\nlayout = \"grid\"\ngranularity = \"1ms\"\npartition = \"year\"\ndepth = 1\n\
             time_column = \"time\"\nrow_len = {}\n{}",
            Schema::parse_spec(spec).unwrap().row_len(),
            Schema::parse_spec(spec)
                .unwrap()
                .columns()
                .iter()
                .map(|c| format!("[[columns]]\nname = \"{}\"\ntype = \"{}\"\n", c.name, c.ty))
                .collect::<String>()
        ))
        .unwrap()
    }

    fn f(c: &Config, w: &[&str]) -> Filter {
        let texts: Vec<String> = w.iter().map(|s| s.to_string()).collect();
        Filter::parse(c, &texts).unwrap().unwrap()
    }

    fn err(c: &Config, w: &str) -> String {
        Filter::parse(c, &[w.to_string()]).unwrap_err()
    }

    #[test]
    fn conditions_compare_typed_values_and_never_nulls() {
        let c = config("price:f64,side:str(4),n:i8,u:u64,ok:bool,h:f32");
        let s = &c.schema;
        let mut row = s.new_row();
        s.set_field(&mut row, 0, "1.5").unwrap();
        s.set_field(&mut row, 1, "buy").unwrap();
        s.set_field(&mut row, 2, "-3").unwrap();
        s.set_field(&mut row, 3, "18446744073709551615").unwrap();
        s.set_field(&mut row, 4, "true").unwrap();
        s.set_field(&mut row, 5, "0.1").unwrap();
        let yes = |w: &[&str]| f(&c, w).matches(5, &row).unwrap();
        assert!(yes(&["side=buy"]));
        assert!(!yes(&["side=bu"]));
        assert!(yes(&["side>bu", "side<c"]));
        assert!(yes(&["price=1.50"]));
        assert!(yes(&["price > 1 and price <= 1.5 AND n>=-3"]));
        assert!(!yes(&["price > 1 and price < 1.5"]));
        assert!(yes(&["n in (1, -3)", "u>18446744073709551614"]));
        assert!(yes(&["side in ('a b', \"buy\")"]));
        // Text longer than the column never equals a stored value.
        assert!(!yes(&["side=buyers"]) && yes(&["side!=buyers"]) && !yes(&["side!=buy"]));
        assert!(yes(&["side in ('much too long', buy)"]) && !yes(&["side in (bu, sell)"]));
        assert!(yes(&["ok=yes", "h=0.1", "h<0.2"]));
        assert!(yes(&["time>=4ns", "time<6ns", "time in (5ns, 7ns)"]));
        assert!(!yes(&["price="]));
        assert!(yes(&["price!="]));
        s.set_null(&mut row, 0);
        let yes = |w: &[&str]| f(&c, w).matches(5, &row).unwrap();
        assert!(yes(&["price="]));
        for w in ["price<1", "price>1", "price!=1", "price in (1,2)"] {
            assert!(!yes(&[w]), "{w}: a null never matches a comparison");
        }
        s.set_field(&mut row, 0, "NaN").unwrap();
        let yes = |w: &[&str]| f(&c, w).matches(5, &row).unwrap();
        assert!(yes(&["price=NaN", "price!=1"]));
        assert!(!yes(&["price<1"]) && !yes(&["price>=1"]));
    }

    #[test]
    fn quoting_keeps_commas_spaces_quotes_and_operators() {
        let c = config("note:str(16)");
        let mut row = c.schema.new_row();
        c.schema.set_field(&mut row, 0, "a, b=c 'd'").unwrap();
        assert!(f(&c, &["note='a, b=c ''d'''"]).matches(0, &row).unwrap());
        assert!(f(&c, &["note in (\"x\", \"a, b=c 'd'\")"])
            .matches(0, &row)
            .unwrap());
        c.schema.set_field(&mut row, 0, "salt and pepper").unwrap();
        assert!(f(&c, &["note='salt and pepper'"]).matches(0, &row).unwrap());
    }

    #[test]
    fn bad_conditions_name_the_column_and_what_it_takes() {
        let c = config("price:f64,n:i32,side:str(4)");
        assert!(err(&c, "nope=1").contains("unknown column `nope`"));
        assert!(err(&c, "price=abc").contains("column `price` (f64): give a number"));
        assert!(err(&c, "n<1.5").contains("column `n` (i32): give a whole number"));
        assert!(err(&c, "side").contains("no comparison"));
        assert!(err(&c, "price<").contains("nulls never compare"));
        assert!(err(&c, "n in 1,2").contains("COLUMN in (A,B"));
        assert!(err(&c, "side='buy").contains("not closed"));
        assert!(err(&c, "n=1 and").contains("`and` needs a condition"));
        assert!(err(&c, "time=yesterday").contains("give a time"));
    }

    #[test]
    fn summaries_skip_only_buckets_that_cannot_match() {
        let c = config("a:i64,x:f64,s:str(3)");
        let layout = SummaryLayout::new(&c.schema);
        let bounds = |vals: &[(&str, &str)]| {
            let mut rows = Vec::new();
            for (a, x) in vals {
                let mut r = c.schema.new_row();
                c.schema.set_field(&mut r, 0, a).unwrap();
                c.schema.set_field(&mut r, 1, x).unwrap();
                rows.extend_from_slice(&r);
            }
            let mut out = Vec::new();
            layout.bounds(&rows, c.schema.row_len(), &mut out);
            out
        };
        let b = bounds(&[("10", "1.5"), ("20", "2.5"), ("", "")]);
        let skip = |w: &str| f(&c, &[w]).cannot_match(&b);
        for w in [
            "a<10",
            "a>20",
            "a=9",
            "a in (1,21)",
            "x>=2.6",
            "x<1.5",
            "a>=5 and x>3",
        ] {
            assert!(skip(w), "{w}");
        }
        for w in [
            "a<=10",
            "a>=20",
            "a=15",
            "a in (1,20)",
            "a!=10",
            "x=",
            "x!=",
            "s=z",
            "x<=1.5",
        ] {
            assert!(!skip(w), "{w}");
        }
        let same = bounds(&[("7", "1"), ("7", "1")]);
        assert!(f(&c, &["a!=7"]).cannot_match(&same));
        let nan = bounds(&[("7", "NaN")]);
        assert!(!f(&c, &["x<0"]).cannot_match(&nan));
        let none = bounds(&[("", "")]);
        assert!(f(&c, &["a!=1"]).cannot_match(&none));
        assert!(!f(&c, &["a="]).cannot_match(&none));
        assert!(!f(&c, &["s=abc"]).prunes());
    }
}
