//! Per-bucket min/max summaries in version-2 bucket directory entries: which columns are
//! summarized, how their bounds are computed from a record's rows, and the check that tells a
//! whole entry from a torn or rotten one. See docs/FORMAT.md, "Directory entries, version 2".

use super::schema::{fnv1a64_more, le, ColumnType, FieldAt, Schema, FNV1A64_START};

/// Bytes of the locator that starts every entry (the whole entry in version 1): record
/// offset u64, record length u32, rows u32.
pub const LOCATOR_LEN: usize = 16;
/// Offset in a version-2 entry of its check (u64), then 8 reserved bytes.
const CHECK_AT: usize = 16;
/// Offset in a version-2 entry of the first column's bounds.
pub const BOUNDS_AT: usize = 32;
/// Bytes of one column's bounds: min then max, 8 bytes each.
pub const BOUND_PAIR_LEN: usize = 16;
/// Columns summarized at most, so that an entry stays within 512 bytes.
pub const MAX_SUMMARIZED: usize = 30;
/// The stored NaN: min and max of a column with a NaN in the record.
pub const CANONICAL_NAN: u64 = 0x7FF8_0000_0000_0000;

/// How a summarized column's bounds are stored: i64 for signed integers, u64 for unsigned,
/// f64 for floats (f32 widened exactly).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundKind {
    Signed,
    Unsigned,
    Float,
}

impl BoundKind {
    /// `None` for columns that are not summarized (bool, str, sym).
    pub fn of(ty: ColumnType) -> Option<BoundKind> {
        Some(match ty {
            // `dec(S)` by its scaled integer: exact bounds, compared as stored.
            ColumnType::I8 | ColumnType::I16 | ColumnType::I32 | ColumnType::I64 | ColumnType::Dec(_) => {
                BoundKind::Signed
            }
            ColumnType::U8 | ColumnType::U16 | ColumnType::U32 | ColumnType::U64 => BoundKind::Unsigned,
            ColumnType::F32 | ColumnType::F64 => BoundKind::Float,
            ColumnType::Bool | ColumnType::Str(_) | ColumnType::Sym => return None,
        })
    }
}

/// The summary layout of a schema: the numeric columns, the first `MAX_SUMMARIZED` of them.
#[derive(Clone, Debug)]
pub struct SummaryLayout {
    columns: Vec<FieldAt>,
}

impl SummaryLayout {
    pub fn new(schema: &Schema) -> SummaryLayout {
        let columns = (0..schema.columns().len())
            .map(|i| schema.field_at(i))
            .filter(|f| BoundKind::of(f.ty).is_some())
            .take(MAX_SUMMARIZED)
            .collect();
        SummaryLayout { columns }
    }

    /// Bytes of a version-2 entry: 32 + 16 per summarized column (a multiple of 16, ≤ 512).
    pub fn entry_len(&self) -> usize {
        BOUNDS_AT + BOUND_PAIR_LEN * self.columns.len()
    }

    /// Position among the summarized columns of schema column `col`.
    pub fn slot_of(&self, col: usize) -> Option<usize> {
        self.columns.iter().position(|f| f.col == col)
    }

    /// Appends the bounds of every summarized column over `rows` (whole rows, `row_len` bytes
    /// each) to `out`: min and max of the non-null values, compared as `<`/`>` in row order
    /// like the aggregates do; NaN for both when a value is NaN; min > max when none.
    pub fn bounds(&self, rows: &[u8], row_len: usize, out: &mut Vec<u8>) {
        for c in &self.columns {
            // One loop per column type: this runs over every row an import writes, and a
            // `match` on the type per value cost as much as the rest of the summary.
            let (lo, hi) = match c.ty {
                ColumnType::I8 => signed(rows, row_len, c, |b| i64::from(i8::from_le_bytes(le(b)))),
                ColumnType::I16 => signed(rows, row_len, c, |b| i64::from(i16::from_le_bytes(le(b)))),
                ColumnType::I32 => signed(rows, row_len, c, |b| i64::from(i32::from_le_bytes(le(b)))),
                // `dec(S)` by its scaled integer: exact bounds, compared as stored.
                ColumnType::I64 | ColumnType::Dec(_) => {
                    signed(rows, row_len, c, |b| i64::from_le_bytes(le(b)))
                }
                ColumnType::U8 => unsigned(rows, row_len, c, |b| u64::from(b[0])),
                ColumnType::U16 => unsigned(rows, row_len, c, |b| u64::from(u16::from_le_bytes(le(b)))),
                ColumnType::U32 => unsigned(rows, row_len, c, |b| u64::from(u32::from_le_bytes(le(b)))),
                ColumnType::U64 => unsigned(rows, row_len, c, |b| u64::from_le_bytes(le(b))),
                ColumnType::F32 => float(rows, row_len, c, |b| f64::from(f32::from_le_bytes(le(b)))),
                ColumnType::F64 => float(rows, row_len, c, |b| f64::from_le_bytes(le(b))),
                // Not summarized (`SummaryLayout::new` leaves them out).
                ColumnType::Bool | ColumnType::Str(_) | ColumnType::Sym => continue,
            };
            out.extend_from_slice(&lo);
            out.extend_from_slice(&hi);
        }
    }
}

/// The non-null values of column `c` over whole rows, read by `value` from the field's bytes.
#[inline(always)]
fn values<'r, T>(
    rows: &'r [u8],
    row_len: usize,
    c: &'r FieldAt,
    value: impl Fn(&[u8]) -> T + 'r,
) -> impl Iterator<Item = T> + 'r {
    rows.chunks_exact(row_len)
        .filter(|r| !c.is_null(r))
        .map(move |r| value(c.bytes(r)))
}

fn signed(rows: &[u8], row_len: usize, c: &FieldAt, value: impl Fn(&[u8]) -> i64) -> ([u8; 8], [u8; 8]) {
    let (lo, hi) =
        values(rows, row_len, c, value).fold((i64::MAX, i64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    (lo.to_le_bytes(), hi.to_le_bytes())
}

fn unsigned(rows: &[u8], row_len: usize, c: &FieldAt, value: impl Fn(&[u8]) -> u64) -> ([u8; 8], [u8; 8]) {
    let (lo, hi) = values(rows, row_len, c, value).fold((u64::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
    (lo.to_le_bytes(), hi.to_le_bytes())
}

fn float(rows: &[u8], row_len: usize, c: &FieldAt, value: impl Fn(&[u8]) -> f64) -> ([u8; 8], [u8; 8]) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values(rows, row_len, c, value) {
        if v.is_nan() {
            return (CANONICAL_NAN.to_le_bytes(), CANONICAL_NAN.to_le_bytes());
        }
        // Strict comparisons keep the first of equal values (0.0 before -0.0), as the
        // aggregates do.
        if v < lo {
            lo = v;
        }
        if v > hi {
            hi = v;
        }
    }
    (lo.to_le_bytes(), hi.to_le_bytes())
}

/// The check of a version-2 entry: FNV-1a 64 of its locator followed by its bounds.
fn check(locator: &[u8], bounds: &[u8]) -> u64 {
    fnv1a64_more(fnv1a64_more(FNV1A64_START, locator), bounds)
}

/// Appends a version-2 entry: `locator` (16 bytes), its check, 8 zero bytes, `bounds`.
pub fn encode_entry(locator: &[u8; LOCATOR_LEN], bounds: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(locator);
    out.extend_from_slice(&check(locator, bounds).to_le_bytes());
    out.extend_from_slice(&[0u8; 8]);
    out.extend_from_slice(bounds);
}

/// The bounds of a version-2 entry (`raw`, the whole entry) when its check matches; `None`
/// for a torn or corrupt entry, whose record must then be read instead.
pub fn verified_bounds(raw: &[u8]) -> Option<&[u8]> {
    if raw.len() < BOUNDS_AT {
        return None;
    }
    let stored = u64::from_le_bytes(le::<8>(&raw[CHECK_AT..CHECK_AT + 8]));
    let bounds = &raw[BOUNDS_AT..];
    (stored == check(&raw[..LOCATOR_LEN], bounds)).then_some(bounds)
}

/// Verifies every entry of `chunk` (whole entries of `entry_len` bytes, version 2): `ok[i]`
/// says whether entry i's check holds. Gives what `verified_bounds` gives entry by entry, but
/// hashes four entries side by side: FNV-1a is one serial chain of multiplies per entry, and
/// four independent chains keep the multiplier busy (the directory walk of a week of 5 s
/// buckets verifies 120,960 entries).
pub fn verify_entries(chunk: &[u8], entry_len: usize, ok: &mut Vec<bool>) {
    const PRIME: u64 = 0x0100_0000_01b3;
    ok.clear();
    if entry_len < BOUNDS_AT {
        ok.resize(chunk.len() / entry_len.max(1), false);
        return;
    }
    let checked = |e: &[u8], h: u64| u64::from_le_bytes(le::<8>(&e[CHECK_AT..CHECK_AT + 8])) == h;
    let mut quads = chunk.chunks_exact(4 * entry_len);
    for quad in &mut quads {
        let e: [&[u8]; 4] = std::array::from_fn(|j| &quad[j * entry_len..(j + 1) * entry_len]);
        let mut h = [FNV1A64_START; 4];
        for at in (0..LOCATOR_LEN).chain(BOUNDS_AT..entry_len) {
            for j in 0..4 {
                h[j] = (h[j] ^ u64::from(e[j][at])).wrapping_mul(PRIME);
            }
        }
        ok.extend((0..4).map(|j| checked(e[j], h[j])));
    }
    for e in quads.remainder().chunks_exact(entry_len) {
        ok.push(verified_bounds(e).is_some());
    }
}

/// One column's stored bounds, decoded: `None` when the column had no non-null value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bounds {
    Signed(i64, i64),
    Unsigned(u64, u64),
    /// Both NaN when a value was NaN.
    Float(f64, f64),
}

/// Decodes the bounds of summarized column `slot` from `bounds` (as `verified_bounds` gives).
pub fn decode_bounds(kind: BoundKind, bounds: &[u8], slot: usize) -> Option<Bounds> {
    let at = slot * BOUND_PAIR_LEN;
    let pair = bounds.get(at..at + BOUND_PAIR_LEN)?;
    let (lo, hi) = (le::<8>(&pair[..8]), le::<8>(&pair[8..]));
    match kind {
        BoundKind::Signed => {
            let (lo, hi) = (i64::from_le_bytes(lo), i64::from_le_bytes(hi));
            (lo <= hi).then_some(Bounds::Signed(lo, hi))
        }
        BoundKind::Unsigned => {
            let (lo, hi) = (u64::from_le_bytes(lo), u64::from_le_bytes(hi));
            (lo <= hi).then_some(Bounds::Unsigned(lo, hi))
        }
        BoundKind::Float => {
            let (lo, hi) = (f64::from_le_bytes(lo), f64::from_le_bytes(hi));
            if lo.is_nan() || hi.is_nan() {
                Some(Bounds::Float(f64::NAN, f64::NAN))
            } else {
                (lo <= hi).then_some(Bounds::Float(lo, hi))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(schema: &Schema, values: &[&[&str]]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in values {
            let mut r = schema.new_row();
            for (i, text) in v.iter().enumerate() {
                schema.set_field(&mut r, i, text).unwrap();
            }
            out.extend_from_slice(&r);
        }
        out
    }

    #[test]
    fn bounds_cover_every_numeric_type_nulls_nan_and_limits() {
        let schema = Schema::parse_spec("a:i8,s:str(3),b:u64,c:f32,d:f64,e:bool,f:i64").unwrap();
        let layout = SummaryLayout::new(&schema);
        assert_eq!(layout.entry_len(), 32 + 16 * 5);
        assert_eq!(layout.slot_of(2), Some(1));
        assert_eq!(layout.slot_of(1), None);
        let r = rows(
            &schema,
            &[
                &[
                    "-128",
                    "x",
                    "18446744073709551615",
                    "0.5",
                    "NaN",
                    "true",
                    "9223372036854775807",
                ],
                &["127", "y", "3", "", "1", "false", "-9223372036854775808"],
                &["", "", "", "-2.5", "2", "", ""],
            ],
        );
        let mut out = Vec::new();
        layout.bounds(&r, schema.row_len(), &mut out);
        assert_eq!(out.len(), 16 * 5);
        let get = |kind, slot| decode_bounds(kind, &out, slot);
        assert_eq!(get(BoundKind::Signed, 0), Some(Bounds::Signed(-128, 127)));
        assert_eq!(get(BoundKind::Unsigned, 1), Some(Bounds::Unsigned(3, u64::MAX)));
        assert_eq!(get(BoundKind::Float, 2), Some(Bounds::Float(-2.5, 0.5)));
        assert!(matches!(get(BoundKind::Float, 3), Some(Bounds::Float(a, b)) if a.is_nan() && b.is_nan()));
        assert_eq!(&out[48..56], &CANONICAL_NAN.to_le_bytes());
        assert_eq!(
            get(BoundKind::Signed, 4),
            Some(Bounds::Signed(i64::MIN, i64::MAX))
        );
        // A column with no value: the empty range.
        let mut none = Vec::new();
        layout.bounds(
            &rows(&schema, &[&["", "", "", "", "", "", ""]]),
            schema.row_len(),
            &mut none,
        );
        for (slot, kind) in [BoundKind::Signed, BoundKind::Unsigned, BoundKind::Float]
            .into_iter()
            .enumerate()
        {
            assert_eq!(decode_bounds(kind, &none, slot), None);
        }
    }

    #[test]
    fn a_changed_byte_fails_the_check() {
        let locator = [7u8; LOCATOR_LEN];
        let mut e = Vec::new();
        encode_entry(&locator, &[1u8; 32], &mut e);
        assert_eq!(e.len(), 64);
        assert_eq!(verified_bounds(&e), Some(&[1u8; 32][..]));
        for at in [0, 15, 16, 40, 63] {
            let mut bad = e.clone();
            bad[at] ^= 0x10;
            assert_eq!(verified_bounds(&bad), None, "byte {at}");
        }
        // The reserved bytes are outside the check.
        let mut reserved = e.clone();
        reserved[24] = 1;
        assert!(verified_bounds(&reserved).is_some());
        // Verifying a chunk of entries four at a time agrees with one at a time.
        let mut chunk = Vec::new();
        for k in 0..11u8 {
            let mut one = Vec::new();
            encode_entry(&[k; LOCATOR_LEN], &[k ^ 0x5A; 32], &mut one);
            if k % 3 == 1 {
                one[k as usize % 64] ^= 1;
            }
            chunk.extend_from_slice(&one);
        }
        let mut ok = Vec::new();
        verify_entries(&chunk, 64, &mut ok);
        let one_by_one: Vec<bool> = chunk.chunks(64).map(|e| verified_bounds(e).is_some()).collect();
        assert_eq!(ok, one_by_one);
        assert_eq!(ok.iter().filter(|&&x| !x).count(), 4);
    }
}
