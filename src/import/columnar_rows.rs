//! The direct encoder of Parquet and Arrow record batches: each column of a batch goes
//! straight into the stored rows with one typed loop (integers, floats, decimals, booleans,
//! text, the epoch time), with no CSV text in between. Its output is the `Parsed` chunk the CSV
//! path makes, so everything after (sym codes, the writer, rejects) is the one pipeline.
//!
//! The CSV path's semantics are kept by construction: a value the typed loop cannot store as
//! it is (out of a column's range, text over its limit, a float into a decimal, a NaN, a
//! type the column does not share) is turned into the text the CSV path would have read
//! (`columnar_in::column_text`) and goes through the CSV path's field code, so the stored
//! bytes and the reasons of rejects are the same. So do whole columns whose source and
//! column types differ, and every column when `--null` tokens or `--decimal-comma` are given.
//! A row is rejected for its first failing column in input order, as the CSV path does, and
//! `sym` texts are coded row by row in that order, so the dictionary gets the codes the CSV
//! path gives.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowPrimitiveType, Decimal128Type, Decimal32Type, Decimal64Type, Float32Type, Float64Type, Int16Type,
    Int32Type, Int64Type, Int8Type, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, PrimitiveArray, RecordBatch};
use arrow_schema::{DataType, TimeUnit};

use super::columnar_in::{cell_text, column_text, ColumnText};
use super::{dialect, show, syms, timeparse, ParseCtx, Parsed, PendingReject, RowPlacer, Target, Work};
use crate::db::schema::{ColumnType, Schema};
use timeparse::{TimeError, TimeParser};

/// Texts per `sym` column whose codes a chunk keeps at hand.
const RECENT_SYMS: usize = 8;

/// No failure in the row (yet).
const NONE: u32 = u32::MAX;

/// Per-row results of the column loops, before rows are placed.
struct Rows {
    row_len: usize,
    /// Every row of the batch, encoded (a failed row's bytes are dropped).
    bytes: Vec<u8>,
    /// Per row: the input column of its first failure, or `NONE`.
    fail_at: Vec<u32>,
    /// The reasons, by row.
    reasons: HashMap<u32, String>,
    /// Per row: its time in ns (valid when the row has not failed at or before the time).
    times: Vec<i64>,
    /// Rows whose time had digits below a nanosecond rounded down (`--floor-time`), or was
    /// read as naive: counted only if the row got that far.
    floored: Vec<u32>,
    naive: Vec<u32>,
    /// (row, input column) of fields read as null because of a null token.
    null_tokens: Vec<(u32, u32)>,
}

impl Rows {
    #[inline]
    fn row(&mut self, r: usize) -> &mut [u8] {
        &mut self.bytes[r * self.row_len..(r + 1) * self.row_len]
    }

    #[inline]
    fn failed(&self, r: usize) -> bool {
        self.fail_at[r] != NONE
    }

    fn fail(&mut self, r: usize, col: usize, reason: String) {
        if (col as u32) < self.fail_at[r] {
            self.fail_at[r] = col as u32;
            self.reasons.insert(r as u32, reason);
        }
    }
}

/// Encodes the record batch of `work` (a `Piece`) into a parsed chunk.
pub(super) fn parse_batch(ctx: &ParseCtx, work: Work) -> Parsed {
    let schema: &Schema = &ctx.config.schema;
    let row_len = schema.row_len();
    let plan = Arc::clone(&work.plan);
    let batch: RecordBatch = match &work.chunk.piece {
        Some(piece) => piece.batch.clone(),
        None => RecordBatch::new_empty(Arc::new(arrow_schema::Schema::empty())),
    };
    let n = batch.num_rows();
    let mut p = Parsed {
        rows: Vec::new(),
        rec_starts: Vec::new(),
        groups: Vec::new(),
        row_groups: Vec::new(),
        slots: Vec::new(),
        series: Vec::new(),
        rejects: Vec::new(),
        syms: Vec::new(),
        records: n as u64,
        newlines: 0,
        naive: false,
        floored: 0,
        nulls: 0,
        headers: 0,
        comments: 0,
        work: Work {
            plan: Arc::clone(&plan),
            chunk: Default::default(),
            start: work.start,
            first_line: work.first_line,
            reordered: false,
            past_midnight: None,
            earlier: None,
        },
        reordered_header: None,
        tod: Vec::new(),
        last_time: None,
        midnight: None,
        span: None,
    };
    let mut rows = Rows {
        row_len,
        bytes: ctx.encoder.template().repeat(n),
        fail_at: vec![NONE; n],
        reasons: HashMap::new(),
        times: vec![0; n],
        floored: Vec::new(),
        naive: Vec::new(),
        null_tokens: Vec::new(),
    };
    // Every column through the text path: null tokens and decimal commas are text matters.
    let all_text =
        !ctx.opts.csv.nulls.is_empty() || ctx.opts.csv.decimal_comma || ctx.opts.csv.thousands.is_some();
    let mut times = TimeParser::new(&ctx.opts.time, plan.date_ns);
    let joined_time = plan.time_parts > 1;
    let mut time_col = usize::MAX;
    let mut parts: Vec<(u8, ColumnText)> = Vec::new();
    let mut sym_cols: Vec<(usize, usize)> = Vec::new();
    for (i, (array, target)) in batch.columns().iter().zip(&plan.targets).enumerate() {
        match *target {
            // (Parquet and Arrow columns always have names.)
            Target::Skip | Target::Unnamed => {}
            Target::Time(k) if joined_time => parts.push((k, column_text(array, false))),
            Target::Time(_) => {
                time_col = i;
                time_column(ctx, &mut times, array, i, &plan.time_name, all_text, &mut rows);
            }
            Target::Column(col) if ctx.is_sym[col] => sym_cols.push((i, col)),
            Target::Column(col) => value_column(ctx, array, i, col, all_text, &mut rows),
        }
    }
    // `sym` texts row by row, in column order, up to the row's first failure: the texts the
    // CSV path codes, in its order.
    let mut chunk_syms = schema.syms().map(|d| syms::ChunkSyms::new(d));
    if !sym_cols.is_empty() {
        let texts: Vec<ColumnText> = sym_cols
            .iter()
            .map(|&(i, _)| column_text(batch.column(i), false))
            .collect();
        let nulls = &ctx.opts.csv.nulls;
        // Per column, the codes of its latest few texts: most sym columns repeat a handful
        // of values, found by comparing bytes instead of hashing them (a text's code is fixed
        // within the chunk, so this gives what `code` gives).
        let mut recent: Vec<Vec<(Box<[u8]>, u32)>> = vec![Vec::new(); sym_cols.len()];
        for r in 0..n {
            for (k, (&(i, col), text)) in sym_cols.iter().zip(&texts).enumerate() {
                if i as u32 > rows.fail_at[r] {
                    break;
                }
                let bytes = text.get(r);
                if !nulls.is_empty() && nulls.iter().any(|t| t == bytes) {
                    rows.null_tokens.push((r as u32, i as u32));
                    continue;
                }
                if bytes.is_empty() {
                    continue;
                }
                if let Some(&(_, code)) = recent[k].iter().find(|(t, _)| **t == *bytes) {
                    ctx.encoder.set_code(rows.row(r), col, code);
                    continue;
                }
                let Some(cs) = chunk_syms.as_mut() else { continue };
                match cs.code(bytes) {
                    Ok(code) => {
                        if recent[k].len() < RECENT_SYMS {
                            recent[k].push((bytes.into(), code));
                        }
                        ctx.encoder.set_code(rows.row(r), col, code)
                    }
                    Err(e) => {
                        let reason =
                            format!("column `{}`: {e}: `{}`", schema.columns()[col].name, show(bytes));
                        rows.fail(r, i, reason);
                        break;
                    }
                }
            }
        }
    }
    parts.sort_by_key(|(k, _)| *k);
    place_rows(
        ctx,
        &mut p,
        &mut rows,
        &mut times,
        time_col,
        &parts,
        chunk_syms.as_ref(),
    );
    p.work.chunk = work.chunk;
    if let Some(cs) = chunk_syms {
        p.syms = cs.texts;
    }
    p
}

/// Stores the text `bytes` of a field in column `col` of `row` as the CSV path does; returns
/// whether it was read as null because of a null token, or the reject reason.
fn set_text(ctx: &ParseCtx, row: &mut [u8], col: usize, bytes: &[u8]) -> Result<bool, String> {
    let schema = &ctx.config.schema;
    let nulls = &ctx.opts.csv.nulls;
    if !nulls.is_empty() && nulls.iter().any(|n| n == bytes) {
        return Ok(true);
    }
    // As the CSV path reads them: only numeric columns, and dots group thousands there.
    let mut fixed = Vec::new();
    let mut bytes = bytes;
    let csv = &ctx.opts.csv;
    if (csv.decimal_comma || csv.thousands.is_some())
        && ctx.is_numeric[col]
        && dialect::plain_number(
            bytes.trim_ascii(),
            csv.decimal_comma,
            csv.thousands.as_deref(),
            &mut fixed,
        )
    {
        bytes = &fixed;
    }
    if ctx.is_null_number(col, bytes) {
        return Ok(true);
    }
    match ctx.encoder.set(schema, row, col, bytes) {
        Ok(()) => Ok(false),
        Err(e) => {
            let trimmed = bytes.trim_ascii();
            if trimmed.len() != bytes.len()
                && ctx.encoder.is_nullable_token_column(col)
                && ctx.encoder.set(schema, row, col, trimmed).is_ok()
            {
                return Ok(false);
            }
            if (trimmed.is_empty() || dialect::is_default_null(trimmed))
                && ctx.encoder.is_nullable_token_column(col)
            {
                ctx.encoder.set_null(row, col);
                return Ok(true);
            }
            let name = &schema.columns()[col].name;
            Err(format!(
                "column `{name}`: {}: `{}`",
                e.for_column(name),
                show(trimmed)
            ))
        }
    }
}

/// Row `r` of column `i` (stored in `col`) through the text path, its text from `text`.
#[inline(never)]
fn text_cell(ctx: &ParseCtx, rows: &mut Rows, r: usize, i: usize, col: usize, text: &[u8]) {
    match set_text(ctx, rows.row(r), col, text) {
        Ok(false) => {}
        Ok(true) => rows.null_tokens.push((r as u32, i as u32)),
        Err(reason) => rows.fail(r, i, reason),
    }
}

/// Row `r` of `array` through the text path (a value the typed loop could not store).
#[cold]
#[inline(never)]
fn fallback(ctx: &ParseCtx, rows: &mut Rows, array: &ArrayRef, r: usize, i: usize, col: usize) {
    let mut text = Vec::new();
    cell_text(array, r, &mut text);
    text_cell(ctx, rows, r, i, col, &text);
}

/// A fixed-width little-endian value of a column.
trait Le: Copy {
    fn put(self, dst: &mut [u8]);
}

macro_rules! le {
    ($($t:ty),*) => {$(
        impl Le for $t {
            #[inline(always)]
            fn put(self, dst: &mut [u8]) {
                dst.copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
le!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

/// Integers of `array` into integer column `col` of type `D`: a value outside `D` goes to the
/// text path (for its reason).
fn ints_into<S, D>(ctx: &ParseCtx, array: &ArrayRef, i: usize, col: usize, rows: &mut Rows)
where
    S: ArrowPrimitiveType,
    S::Native: Into<i128>,
    D: Le + TryFrom<i128>,
{
    let a: &PrimitiveArray<S> = array.as_primitive::<S>();
    let (_, at, width) = ctx.encoder.slot(col);
    let nulls = a.logical_nulls();
    for (r, &v) in a.values().iter().enumerate() {
        if rows.failed(r) || nulls.as_ref().is_some_and(|b| b.is_null(r)) {
            continue;
        }
        match D::try_from(v.into()) {
            Ok(d) => {
                let row = rows.row(r);
                d.put(&mut row[at..at + width]);
                ctx.encoder.clear_null(row, col);
            }
            Err(_) => fallback(ctx, rows, array, r, i, col),
        }
    }
}

fn ints<S>(ctx: &ParseCtx, array: &ArrayRef, i: usize, col: usize, ty: ColumnType, rows: &mut Rows) -> bool
where
    S: ArrowPrimitiveType,
    S::Native: Into<i128>,
{
    match ty {
        ColumnType::I8 => ints_into::<S, i8>(ctx, array, i, col, rows),
        ColumnType::I16 => ints_into::<S, i16>(ctx, array, i, col, rows),
        ColumnType::I32 => ints_into::<S, i32>(ctx, array, i, col, rows),
        ColumnType::I64 => ints_into::<S, i64>(ctx, array, i, col, rows),
        ColumnType::U8 => ints_into::<S, u8>(ctx, array, i, col, rows),
        ColumnType::U16 => ints_into::<S, u16>(ctx, array, i, col, rows),
        ColumnType::U32 => ints_into::<S, u32>(ctx, array, i, col, rows),
        ColumnType::U64 => ints_into::<S, u64>(ctx, array, i, col, rows),
        _ => return false,
    }
    true
}

/// Floats into a column of their own width: a finite value's text reads back as the same
/// bits, so they are stored as they are; NaN and infinities go to the text path.
fn floats<S>(ctx: &ParseCtx, array: &ArrayRef, i: usize, col: usize, rows: &mut Rows)
where
    S: ArrowPrimitiveType,
    S::Native: Le + num_finite::Finite,
{
    let a: &PrimitiveArray<S> = array.as_primitive::<S>();
    let (_, at, width) = ctx.encoder.slot(col);
    let nulls = a.logical_nulls();
    for (r, &v) in a.values().iter().enumerate() {
        if rows.failed(r) || nulls.as_ref().is_some_and(|b| b.is_null(r)) {
            continue;
        }
        if num_finite::Finite::finite(v) {
            let row = rows.row(r);
            v.put(&mut row[at..at + width]);
            ctx.encoder.clear_null(row, col);
        } else {
            fallback(ctx, rows, array, r, i, col);
        }
    }
}

mod num_finite {
    pub trait Finite: Copy {
        fn finite(self) -> bool;
    }
    impl Finite for f32 {
        #[inline(always)]
        fn finite(self) -> bool {
            self.is_finite()
        }
    }
    impl Finite for f64 {
        #[inline(always)]
        fn finite(self) -> bool {
            self.is_finite()
        }
    }
}

/// Decimals at the column's own scale: the scaled integer is the stored value when it fits
/// i64; anything else goes to the text path.
fn decimals<S>(ctx: &ParseCtx, array: &ArrayRef, i: usize, col: usize, rows: &mut Rows)
where
    S: ArrowPrimitiveType,
    S::Native: Into<i128>,
{
    ints_into::<S, i64>(ctx, array, i, col, rows)
}

/// Text into a `str(N)` column: a non-empty value of at most N bytes without a NUL is stored
/// as it is; an empty one is null (the CSV path's empty field); the rest (too long, a NUL)
/// goes to the text path for its reason.
fn strings<'a, I>(ctx: &ParseCtx, array: &ArrayRef, values: I, i: usize, col: usize, rows: &mut Rows)
where
    I: Iterator<Item = Option<&'a str>>,
{
    let (_, at, width) = ctx.encoder.slot(col);
    for (r, v) in values.enumerate() {
        if rows.failed(r) {
            continue;
        }
        let Some(s) = v else { continue };
        let s = s.as_bytes();
        if s.is_empty() {
            continue;
        }
        if s.len() <= width && !s.contains(&0) {
            let row = rows.row(r);
            row[at..at + s.len()].copy_from_slice(s);
            ctx.encoder.clear_null(row, col);
        } else {
            fallback(ctx, rows, array, r, i, col);
        }
    }
}

/// Input column `i` of the batch into database column `col` (not `sym`).
fn value_column(ctx: &ParseCtx, array: &ArrayRef, i: usize, col: usize, all_text: bool, rows: &mut Rows) {
    let (ty, _, _) = ctx.encoder.slot(col);
    let done = !all_text
        && match (array.data_type(), ty) {
            (DataType::Int8, _) => ints::<Int8Type>(ctx, array, i, col, ty, rows),
            (DataType::Int16, _) => ints::<Int16Type>(ctx, array, i, col, ty, rows),
            (DataType::Int32, _) => ints::<Int32Type>(ctx, array, i, col, ty, rows),
            (DataType::Int64, _) => ints::<Int64Type>(ctx, array, i, col, ty, rows),
            (DataType::UInt8, _) => ints::<UInt8Type>(ctx, array, i, col, ty, rows),
            (DataType::UInt16, _) => ints::<UInt16Type>(ctx, array, i, col, ty, rows),
            (DataType::UInt32, _) => ints::<UInt32Type>(ctx, array, i, col, ty, rows),
            (DataType::UInt64, _) => ints::<UInt64Type>(ctx, array, i, col, ty, rows),
            (DataType::Timestamp(unit, _), _) => match unit {
                TimeUnit::Second => ints::<TimestampSecondType>(ctx, array, i, col, ty, rows),
                TimeUnit::Millisecond => ints::<TimestampMillisecondType>(ctx, array, i, col, ty, rows),
                TimeUnit::Microsecond => ints::<TimestampMicrosecondType>(ctx, array, i, col, ty, rows),
                TimeUnit::Nanosecond => ints::<TimestampNanosecondType>(ctx, array, i, col, ty, rows),
            },
            (DataType::Float64, ColumnType::F64) => {
                floats::<Float64Type>(ctx, array, i, col, rows);
                true
            }
            (DataType::Float32, ColumnType::F32) => {
                floats::<Float32Type>(ctx, array, i, col, rows);
                true
            }
            (DataType::Boolean, ColumnType::Bool) => {
                let a = array.as_boolean();
                let (_, at, _) = ctx.encoder.slot(col);
                for r in 0..a.len() {
                    if rows.failed(r) || a.is_null(r) {
                        continue;
                    }
                    let row = rows.row(r);
                    row[at] = u8::from(a.value(r));
                    ctx.encoder.clear_null(row, col);
                }
                true
            }
            (DataType::Decimal128(_, s), ColumnType::Dec(scale)) if *s >= 0 && *s as u8 == scale => {
                decimals::<Decimal128Type>(ctx, array, i, col, rows);
                true
            }
            (DataType::Decimal64(_, s), ColumnType::Dec(scale)) if *s >= 0 && *s as u8 == scale => {
                decimals::<Decimal64Type>(ctx, array, i, col, rows);
                true
            }
            (DataType::Decimal32(_, s), ColumnType::Dec(scale)) if *s >= 0 && *s as u8 == scale => {
                decimals::<Decimal32Type>(ctx, array, i, col, rows);
                true
            }
            (DataType::Utf8, ColumnType::Str(_)) => {
                strings(ctx, array, array.as_string::<i32>().iter(), i, col, rows);
                true
            }
            (DataType::LargeUtf8, ColumnType::Str(_)) => {
                strings(ctx, array, array.as_string::<i64>().iter(), i, col, rows);
                true
            }
            (DataType::Utf8View, ColumnType::Str(_)) => {
                strings(ctx, array, array.as_string_view().iter(), i, col, rows);
                true
            }
            _ => false,
        };
    if !done {
        // Another pairing of types (a float into a decimal, an integer into a float, a date
        // into text…): the column as text, through the CSV path's code.
        let text = column_text(array, false);
        for r in 0..array.len() {
            if !rows.failed(r) {
                text_cell(ctx, rows, r, i, col, text.get(r));
            }
        }
    }
}

/// The time column (input column `i`): integers and timestamps read as epoch numbers in the
/// format's unit directly; anything else, and a value out of range, through the time parser
/// with its text.
#[allow(clippy::too_many_arguments)]
fn time_column(
    ctx: &ParseCtx,
    times: &mut TimeParser,
    array: &ArrayRef,
    i: usize,
    name: &str,
    all_text: bool,
    rows: &mut Rows,
) {
    // A timestamp column says its own unit, whatever format the import reads text times in
    // (an ISO-time CSV may come first in the command).
    let stamp_ns: Option<i64> = match array.data_type() {
        DataType::Timestamp(unit, _) => Some(match unit {
            TimeUnit::Second => 1_000_000_000,
            TimeUnit::Millisecond => 1_000_000,
            TimeUnit::Microsecond => 1_000,
            TimeUnit::Nanosecond => 1,
        }),
        _ => None,
    };
    let ints: Option<Vec<Option<i64>>> = (!all_text && (times.is_epoch() || stamp_ns.is_some()))
        .then(|| epoch_values(array))
        .flatten();
    // A timestamp without a time zone is wall-clock time: placed in --timezone (UTC unless
    // given), as a naive time of a CSV is; one with a zone is an instant.
    let wall_clock = matches!(array.data_type(), DataType::Timestamp(_, None));
    let mut text: Option<ColumnText> = None;
    let mut cell = Vec::new();
    for r in 0..array.len() {
        if rows.failed(r) {
            continue;
        }
        let epoch = ints.as_ref().and_then(|v| v[r]).and_then(|v| match stamp_ns {
            Some(ns) => v
                .checked_mul(ns)
                .filter(|&t| crate::db::time::in_storable_range(t)),
            None => times.epoch_int(v),
        });
        if let Some(t) = epoch {
            if !wall_clock {
                rows.times[r] = t;
                continue;
            }
            rows.naive.push(r as u32);
            match times.naive_to_utc(t) {
                Ok(t) => rows.times[r] = t,
                Err(e) => rows.fail(
                    r,
                    i,
                    format!(
                        "column `{name}`: {e}: `{}` (a timestamp without a time zone)",
                        crate::io::timefmt::format_iso_exact(t).trim_end_matches('Z')
                    ),
                ),
            }
            continue;
        }
        let bytes: &[u8] = if ints.is_some() {
            cell.clear();
            cell_text(array, r, &mut cell);
            &cell
        } else {
            text.get_or_insert_with(|| column_text(array, false)).get(r)
        };
        match times.parse_padded(bytes) {
            Ok((t, naive)) => {
                if naive {
                    rows.naive.push(r as u32);
                }
                rows.times[r] = t;
            }
            Err(TimeError::BelowNanosecond { floored_ns, naive }) if ctx.opts.floor_time => {
                rows.floored.push(r as u32);
                if naive {
                    rows.naive.push(r as u32);
                }
                rows.times[r] = floored_ns;
            }
            Err(e) => {
                let nulls = &ctx.opts.csv.nulls;
                let missing =
                    bytes.is_empty() || dialect::is_default_null(bytes) || nulls.iter().any(|n| n == bytes);
                let reason = if missing {
                    format!("column `{name}`: the time is missing: `{}`", show(bytes))
                } else {
                    format!("column `{name}`: {e}: `{}`", show(bytes))
                };
                rows.fail(r, i, reason);
            }
        }
    }
}

/// The values of an integer or timestamp column as i64 (`None`: null, or a u64 past i64).
fn epoch_values(array: &ArrayRef) -> Option<Vec<Option<i64>>> {
    fn of<S>(array: &ArrayRef) -> Vec<Option<i64>>
    where
        S: ArrowPrimitiveType,
        S::Native: Into<i128>,
    {
        let a = array.as_primitive::<S>();
        let nulls = a.logical_nulls();
        a.values()
            .iter()
            .enumerate()
            .map(|(r, &v)| {
                if nulls.as_ref().is_some_and(|b| b.is_null(r)) {
                    None
                } else {
                    i64::try_from(v.into()).ok()
                }
            })
            .collect()
    }
    Some(match array.data_type() {
        DataType::Int8 => of::<Int8Type>(array),
        DataType::Int16 => of::<Int16Type>(array),
        DataType::Int32 => of::<Int32Type>(array),
        DataType::Int64 => of::<Int64Type>(array),
        DataType::UInt8 => of::<UInt8Type>(array),
        DataType::UInt16 => of::<UInt16Type>(array),
        DataType::UInt32 => of::<UInt32Type>(array),
        DataType::UInt64 => of::<UInt64Type>(array),
        DataType::Timestamp(TimeUnit::Second, _) => of::<TimestampSecondType>(array),
        DataType::Timestamp(TimeUnit::Millisecond, _) => of::<TimestampMillisecondType>(array),
        DataType::Timestamp(TimeUnit::Microsecond, _) => of::<TimestampMicrosecondType>(array),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => of::<TimestampNanosecondType>(array),
        _ => return None,
    })
}

/// Rejects the failed rows and places the others (time on the granularity, series, partition
/// group), row by row in input order, as `parse_chunk` does.
fn place_rows(
    ctx: &ParseCtx,
    p: &mut Parsed,
    rows: &mut Rows,
    times: &mut TimeParser,
    time_col: usize,
    parts: &[(u8, ColumnText)],
    chunk_syms: Option<&syms::ChunkSyms>,
) {
    let row_len = rows.row_len;
    let floor = ctx.opts.floor_time;
    let plan = Arc::clone(&p.work.plan);
    let n = rows.fail_at.len();
    // Side effects of the fields of rows that got that far.
    for &r in &rows.floored {
        if time_col < rows.fail_at[r as usize] as usize {
            p.floored += 1;
        }
    }
    for &r in &rows.naive {
        if time_col < rows.fail_at[r as usize] as usize {
            p.naive = true;
        }
    }
    for &(r, i) in &rows.null_tokens {
        if i < rows.fail_at[r as usize] {
            p.nulls += 1;
        }
    }
    // The rows stay where they are encoded; kept ones move down over the rejected.
    p.rows = std::mem::take(&mut rows.bytes);
    let mut kept = 0usize;
    let mut placer = RowPlacer::new(ctx, p);
    let mut joined: Vec<u8> = Vec::new();
    for r in 0..n {
        let reject = |p: &mut Parsed, reason: String| {
            p.rejects.push(PendingReject {
                rec_start: r as u32,
                rec_end: r as u32 + 1,
                reason,
            })
        };
        if rows.failed(r) {
            let reason = rows.reasons.remove(&(r as u32)).unwrap_or_default();
            reject(p, reason);
            continue;
        }
        let mut t = rows.times[r];
        if !parts.is_empty() {
            joined.clear();
            for (k, (_, text)) in parts.iter().enumerate() {
                if k > 0 {
                    joined.push(b' ');
                }
                joined.extend_from_slice(text.get(r).trim_ascii());
            }
            match times.parse(&joined) {
                Ok((at, naive)) => {
                    p.naive |= naive;
                    t = at;
                }
                Err(TimeError::BelowNanosecond { floored_ns, naive }) if floor => {
                    p.floored += 1;
                    p.naive |= naive;
                    t = floored_ns;
                }
                Err(e) => {
                    reject(
                        p,
                        format!("columns `{}`: {e}: `{}`", plan.time_name, show(&joined)),
                    );
                    continue;
                }
            }
        }
        let row_at = kept * row_len;
        if kept != r {
            p.rows.copy_within(r * row_len..(r + 1) * row_len, row_at);
        }
        let placed = placer
            .on_grid(t, p)
            .and_then(|t| placer.place(p, row_at, t, chunk_syms));
        let (group, slot) = match placed {
            Ok(placed) => placed,
            Err(reason) => {
                reject(p, reason);
                continue;
            }
        };
        kept += 1;
        p.push_row(r as u32, group, slot, t);
    }
    p.rows.truncate(kept * row_len);
}
