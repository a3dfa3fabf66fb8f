//! The columnar bucket record (issue 16): a bucket's rows stored column by column, each column
//! compressed on its own, so a record costs a few bytes a row while its directory entry still
//! locates it by arithmetic. See docs/FORMAT.md, "Columnar records".
//!
//! A record body is a tag byte and its row count (u32), then one stream per part of the rows, in this order: the time
//! offsets (u64), the rows' flag bytes (present and null bits), then each column in schema
//! order. A stream is a codec byte, its payload's length (u32) and the payload. Decoding
//! rebuilds the row-major rows every reader already takes, so the record's codec changes
//! nothing above the partition.

use std::ops::Range;

use crate::db::schema::{ColumnType, Schema};

/// First byte of a columnar record body. A raw record starts with its offset width (1, 2, 4
/// or 8), so the two are told apart by their first byte.
pub const COLUMNAR_TAG: u8 = 0xC1;

/// How one stream's payload holds its `n` values of `width` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Codec {
    /// The values back to back: `n × width` bytes.
    Raw = 0,
    /// Every value is the same: `width` bytes, once.
    Constant = 1,
    /// A zstd frame of the raw bytes.
    Zstd = 2,
    /// A pco standalone file of the values as numbers (see `Number`).
    Pco = 3,
    /// The values as pco pages of `PAGE_VALUES` numbers, each decodable alone (partition
    /// version 5): a point read decodes one page of a column, not the whole bucket.
    PcoPages = 4,
    /// An integer progression: value `i` is `first + i × step` (partition version 5), as a
    /// regular series' time offsets are; any value is computed, none decoded.
    Linear = 5,
}

impl Codec {
    fn from_byte(b: u8) -> Option<Codec> {
        Some(match b {
            0 => Codec::Raw,
            1 => Codec::Constant,
            2 => Codec::Zstd,
            3 => Codec::Pco,
            4 => Codec::PcoPages,
            5 => Codec::Linear,
            _ => return None,
        })
    }
}

/// The number type pco reads a stream as; `Bytes`: not numbers (text, flags, bools, one-byte
/// integers), compressed with zstd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Number {
    I16,
    I32,
    I64,
    U16,
    U32,
    U64,
    F32,
    F64,
    Bytes,
}

/// One stream's place in a row: `width` bytes at `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub offset: usize,
    pub width: usize,
    pub number: Number,
}

/// Where each stream of a record lives in a row of a schema: the flags, then the columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordLayout {
    pub row_len: usize,
    pub parts: Vec<Part>,
}

impl RecordLayout {
    pub fn new(schema: &Schema) -> RecordLayout {
        let mut parts = vec![Part {
            offset: 0,
            width: schema.header_len(),
            number: Number::Bytes,
        }];
        for (i, c) in schema.columns().iter().enumerate() {
            let number = match c.ty {
                ColumnType::I16 => Number::I16,
                ColumnType::I32 => Number::I32,
                ColumnType::I64 | ColumnType::Dec(_) => Number::I64,
                ColumnType::U16 => Number::U16,
                ColumnType::U32 | ColumnType::Sym => Number::U32,
                ColumnType::U64 => Number::U64,
                ColumnType::F32 => Number::F32,
                ColumnType::F64 => Number::F64,
                ColumnType::I8 | ColumnType::U8 | ColumnType::Bool | ColumnType::Str(_) => Number::Bytes,
            };
            parts.push(Part {
                offset: schema.field_offset(i),
                width: c.ty.width_bytes(),
                number,
            });
        }
        RecordLayout {
            row_len: schema.row_len(),
            parts,
        }
    }
}

/// Why a record body did not decode: always damage, never a panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corrupt(pub String);

/// zstd level for text streams: level 3 is zstd's default, near its best ratio per CPU second.
const ZSTD_LEVEL: i32 = 3;
/// pco's level: 4 (its default is 8) keeps trades at 60 s buckets within 1 % of level 8's size
/// (0.098 against 0.097 of the CSV) in less than half the encode time (2.95 s against 6.71 s).
const PCO_LEVEL: usize = 4;
/// Most bytes a columnar record may decode to (its time offsets and rows): the encoder keeps a
/// bucket past it raw, and the decoder refuses a record claiming more, so a damaged or hostile
/// count never makes a reader allocate more than this.
pub const MAX_DECODED_BYTES: usize = 64 << 20;

/// Bytes `n` rows of `layout` decode to (time offsets and rows); `None` past `MAX_DECODED_BYTES`.
pub fn decoded_len(layout: &RecordLayout, n: usize) -> Option<usize> {
    n.checked_mul(8 + layout.row_len)
        .filter(|&len| len <= MAX_DECODED_BYTES)
}

/// Fewer values than this are stored raw or constant: a compressed stream's own header
/// would outweigh what it saves.
const MIN_COMPRESSED: usize = 8;

/// Appends the columnar body of a record of `units` (time offsets) and `rows` (row-major,
/// `units.len()` rows of `layout.row_len` bytes) to `out`; with `paged` (partition version
/// 5: its codecs), an integer progression is stored as one (`Linear`) and another numeric
/// stream of more than a page as pco pages.
pub fn encode(layout: &RecordLayout, units: &[u64], rows: &[u8], out: &mut Vec<u8>, paged: bool) {
    let n = units.len();
    debug_assert_eq!(rows.len(), n * layout.row_len);
    out.push(COLUMNAR_TAG);
    // The row count again (the entry has it): a record read alone still says how many rows
    // its streams hold, and one whose count differs from its entry's is refused.
    out.extend_from_slice(&(n as u32).to_le_bytes());
    let mut column = Vec::new();
    for &u in units {
        column.extend_from_slice(&u.to_le_bytes());
    }
    let pages = |firsts| paged.then_some(Paging { firsts });
    encode_stream(Number::U64, 8, n, &column, out, pages(true));
    for part in &layout.parts {
        column.clear();
        gather(rows, layout.row_len, part.offset, part.width, &mut column);
        encode_stream(part.number, part.width, n, &column, out, pages(false));
    }
}

/// Appends to `column` the `width` bytes at `offset` of each row of `rows`: one loop per
/// width, as in `scatter`, since a variable-length copy per value is a call to `memcpy`.
fn gather(rows: &[u8], row_len: usize, offset: usize, width: usize, column: &mut Vec<u8>) {
    fn fixed<const W: usize>(rows: &[u8], row_len: usize, offset: usize, column: &mut Vec<u8>) {
        column.reserve(rows.len() / row_len * W);
        for row in rows.chunks_exact(row_len) {
            let v: [u8; W] = row[offset..offset + W].try_into().expect("W bytes");
            column.extend_from_slice(&v);
        }
    }
    match width {
        0 => {}
        1 => fixed::<1>(rows, row_len, offset, column),
        2 => fixed::<2>(rows, row_len, offset, column),
        4 => fixed::<4>(rows, row_len, offset, column),
        8 => fixed::<8>(rows, row_len, offset, column),
        w => {
            for row in rows.chunks_exact(row_len) {
                column.extend_from_slice(&row[offset..offset + w]);
            }
        }
    }
}

/// How a stream is paged: `firsts`, each page's first value is kept in its table (the time
/// offsets, so a point read finds its page without decoding).
#[derive(Clone, Copy)]
struct Paging {
    firsts: bool,
}

/// Appends one stream of `n` values of `width` bytes (`raw`, back to back): the smallest of
/// the encodings tried; numbers of more than a page are paged when `paging` is given.
fn encode_stream(
    number: Number,
    width: usize,
    n: usize,
    raw: &[u8],
    out: &mut Vec<u8>,
    paging: Option<Paging>,
) {
    let (codec, payload): (Codec, std::borrow::Cow<[u8]>) = if width == 0 || n == 0 {
        (Codec::Raw, raw.into())
    } else if raw.chunks_exact(width).all(|v| v == &raw[..width]) {
        (Codec::Constant, raw[..width].into())
    } else if n < MIN_COMPRESSED {
        (Codec::Raw, raw.into())
    } else if let Some(linear) = paging.and_then(|_| linear_of(number, width, raw)) {
        (Codec::Linear, linear.into())
    } else {
        let packed = match number {
            Number::Bytes => zstd::bulk::compress(raw, ZSTD_LEVEL)
                .ok()
                .map(|p| (Codec::Zstd, p)),
            _ => match paging {
                Some(paging) if n > PAGE_VALUES => {
                    pco_pages_compress(number, width, raw, paging).map(|p| (Codec::PcoPages, p))
                }
                _ => pco_compress(number, width, raw).map(|p| (Codec::Pco, p)),
            },
        };
        match packed {
            Some((codec, p)) if p.len() < raw.len() => (codec, p.into()),
            _ => (Codec::Raw, raw.into()),
        }
    };
    out.push(codec as u8);
    // A record is under 4 GiB (its entry's length is a u32), so its payloads are too.
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&payload);
}

/// `$go!(T)` with `T` the Rust type of a pco-coded `number`, or `$text` for a text stream:
/// the one place that pairs each `Number` with its type.
macro_rules! by_number_type {
    ($number:expr, $go:ident, $text:expr) => {
        match $number {
            Number::I16 => $go!(i16),
            Number::I32 => $go!(i32),
            Number::I64 => $go!(i64),
            Number::U16 => $go!(u16),
            Number::U32 => $go!(u32),
            Number::U64 => $go!(u64),
            Number::F32 => $go!(f32),
            Number::F64 => $go!(f64),
            Number::Bytes => $text,
        }
    };
}

macro_rules! numbers_of {
    ($raw:expr, $t:ty) => {
        $raw.chunks_exact(std::mem::size_of::<$t>())
            .map(|c| <$t>::from_le_bytes(c.try_into().expect("chunks of the type's size")))
            .collect::<Vec<$t>>()
    };
}

/// The order of consecutive differences pco is asked to take of a stream (0: none), chosen
/// from a sample rather than by pco's own search: `DeltaSpec::Auto` compresses its sample once
/// per candidate, lookback included, which was a third of an import's encoding time. Order k
/// costs `sample_cost` of the k-th differences of three runs of `DELTA_SAMPLE_RUN` values
/// (start, middle, end; all the values when there are no more than three runs' worth); a
/// higher order is taken while it costs less (order 2 and up: by a tenth). On the benchmark
/// files the stored sizes stay within 0.1 % of Auto's and the imports' user CPU falls by 4-12 %
/// (docs/BENCHMARKS.md, "Pipelined read-out and a cheaper delta choice").
fn delta_order(number: Number, width: usize, raw: &[u8]) -> usize {
    // pco's latents: the values as unsigned integers in the same order.
    let latent = |v: &[u8]| -> u64 {
        match number {
            Number::I16 => (i16::from_le_bytes([v[0], v[1]]) as i64 as u64) ^ (1 << 63),
            Number::I32 => (i32::from_le_bytes([v[0], v[1], v[2], v[3]]) as i64 as u64) ^ (1 << 63),
            Number::I64 => uint_of(v) ^ (1 << 63),
            Number::F32 | Number::F64 => {
                let sign = 1u64 << (8 * v.len() - 1);
                let bits = uint_of(v);
                if bits & sign != 0 {
                    !bits & (sign | (sign - 1))
                } else {
                    bits | sign
                }
            }
            Number::U16 | Number::U32 | Number::U64 | Number::Bytes => uint_of(v),
        }
    };
    let n = raw.len() / width.max(1);
    let starts = if n <= 3 * DELTA_SAMPLE_RUN {
        vec![(0, n)]
    } else {
        let mid = n / 2 - DELTA_SAMPLE_RUN / 2;
        [0, mid, n - DELTA_SAMPLE_RUN]
            .map(|at| (at, at + DELTA_SAMPLE_RUN))
            .to_vec()
    };
    let mut runs: Vec<Vec<u64>> = starts
        .iter()
        .map(|&(a, b)| {
            raw[a * width..b * width]
                .chunks_exact(width)
                .map(latent)
                .collect()
        })
        .collect();
    let mut best = (f64::INFINITY, 0);
    // Buffers reused across the orders: a stream is encoded once per bucket, so this runs for
    // every small bucket of a many-series import.
    let mut sample = Vec::with_capacity(3 * DELTA_SAMPLE_RUN);
    let mut scratch = Vec::with_capacity(3 * DELTA_SAMPLE_RUN);
    for order in 0..=MAX_DELTA_ORDER {
        if order > 0 {
            for r in &mut runs {
                // In place, from the back: each value becomes its difference from the one
                // before, and the first, which has none, goes.
                for i in (1..r.len()).rev() {
                    r[i] = r[i].wrapping_sub(r[i - 1]);
                }
                if !r.is_empty() {
                    r.remove(0);
                }
            }
        }
        sample.clear();
        runs.iter().for_each(|r| sample.extend_from_slice(r));
        if sample.len() < 2 {
            break;
        }
        let cost = sample_cost(&sample, &mut scratch);
        let better = match order {
            0 | 1 => cost < best.0,
            _ => cost < best.0 * 0.9,
        };
        if !better {
            break;
        }
        best = (cost, order);
    }
    best.1
}

/// Estimated bits per value of a sample of latents: each value's distance from the median is
/// coded as its class (sign and bit length), at the classes' entropy, then its bits below the
/// leading one. A rough model of pco's bins, but it ranks delta orders as pco's sizes do: a
/// two-valued column (`buy`/`sell`) costs less undifferenced, a random walk differenced once.
/// `scratch` holds a copy for finding the median.
fn sample_cost(sample: &[u64], scratch: &mut Vec<u64>) -> f64 {
    scratch.clear();
    scratch.extend_from_slice(sample);
    let half = scratch.len() / 2;
    let median = *scratch.select_nth_unstable(half).1;
    let mut classes = [0u32; 130];
    let mut low_bits = 0u64;
    for &v in sample {
        let d = v.wrapping_sub(median) as i64;
        let len = 64 - d.unsigned_abs().leading_zeros() as usize;
        classes[2 * len + usize::from(d < 0)] += 1;
        low_bits += len.saturating_sub(1) as u64;
    }
    let n = sample.len() as f64;
    let entropy: f64 = classes
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum();
    entropy + low_bits as f64 / n
}

/// Values per run of `delta_order`'s sample.
const DELTA_SAMPLE_RUN: usize = 128;
/// Highest order of differences `delta_order` tries (pco takes up to 7).
const MAX_DELTA_ORDER: usize = 3;

/// pco's chunk settings for a stream of `number`s (`raw`, `width` bytes each).
fn pco_config(number: Number, width: usize, raw: &[u8]) -> pco::ChunkConfig {
    let delta = match delta_order(number, width, raw) {
        0 => pco::DeltaSpec::NoOp,
        order => pco::DeltaSpec::TryConsecutive(order),
    };
    pco::ChunkConfig::default()
        .with_compression_level(PCO_LEVEL)
        .with_delta_spec(delta)
}

fn pco_compress(number: Number, width: usize, raw: &[u8]) -> Option<Vec<u8>> {
    let config = pco_config(number, width, raw);
    macro_rules! go {
        ($t:ident) => {
            pco::standalone::simple_compress(&numbers_of!(raw, $t), &config)
        };
    }
    let packed = by_number_type!(number, go, return None);
    packed.ok()
}

/// Value `i` of a width-byte integer progression from `first` by `step`: the arithmetic
/// wraps at the width, as the stored bits of a signed or unsigned column do.
fn linear_value(first: u64, step: u64, i: usize, width: usize) -> u64 {
    let v = first.wrapping_add(step.wrapping_mul(i as u64));
    if width >= 8 {
        v
    } else {
        v & ((1u64 << (8 * width)) - 1)
    }
}

/// A little-endian integer of `bytes` (1 to 8 of them).
fn uint_of(bytes: &[u8]) -> u64 {
    // The common widths spelled out: a copy of variable length is a call to `memcpy`.
    match *bytes {
        [a] => u64::from(a),
        [a, b] => u64::from(u16::from_le_bytes([a, b])),
        [a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
        [a, b, c, d, e, f, g, h] => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => {
            let mut b = [0u8; 8];
            b[..bytes.len()].copy_from_slice(bytes);
            u64::from_le_bytes(b)
        }
    }
}

/// The `Linear` payload (`first`, then `step`, `width` bytes each) of an integer stream whose
/// values are a progression, or `None`.
fn linear_of(number: Number, width: usize, raw: &[u8]) -> Option<Vec<u8>> {
    if matches!(number, Number::F32 | Number::F64 | Number::Bytes) || raw.len() < 2 * width {
        return None;
    }
    let first = uint_of(&raw[..width]);
    let step = uint_of(&raw[width..2 * width]).wrapping_sub(first);
    let all = raw
        .chunks_exact(width)
        .enumerate()
        .all(|(i, v)| uint_of(v) == linear_value(first, step, i, width));
    all.then(|| [&raw[..width], &step.to_le_bytes()[..width]].concat())
}

/// Numbers in each page of a paged stream (all but the last page of a stream hold exactly
/// this many): a point read decodes 512 values of a column (two batches of pco's decoder)
/// instead of the bucket's thousands. Pages of 256 made gets ~15 % faster but scans ~15 %
/// slower and trades 2 % larger (docs/BENCHMARKS.md, "Paged streams").
pub const PAGE_VALUES: usize = 512;

fn pco_pages_compress(number: Number, width: usize, raw: &[u8], paging: Paging) -> Option<Vec<u8>> {
    let config = pco_config(number, width, raw);
    macro_rules! go {
        ($t:ident) => {
            pages_of(&numbers_of!(raw, $t), raw, width, config, paging)
        };
    }
    by_number_type!(number, go, None)
}

/// The payload of a paged pco stream of `values` (their bytes `raw`, `width` each): the page
/// table, pco's header and chunk metadata, then the pages (docs/FORMAT.md, "pco pages").
fn pages_of<T: pco::data_types::Number>(
    values: &[T],
    raw: &[u8],
    width: usize,
    config: pco::ChunkConfig,
    paging: Paging,
) -> Option<Vec<u8>> {
    let n = values.len();
    let counts: Vec<usize> = (0..n)
        .step_by(PAGE_VALUES)
        .map(|at| PAGE_VALUES.min(n - at))
        .collect();
    let config = config.with_paging_spec(pco::PagingSpec::Exact(counts.clone()));
    let file = pco::wrapped::FileCompressor::default();
    let mut chunk = file.chunk_compressor(values, &config).ok()?;
    let head = chunk.write_meta(file.write_header(Vec::new()).ok()?).ok()?;
    let mut pages = Vec::new();
    let mut lens = Vec::with_capacity(counts.len());
    for i in 0..counts.len() {
        let at = pages.len();
        pages = chunk.write_page(i, pages).ok()?;
        lens.push(u32::try_from(pages.len() - at).ok()?);
    }
    let mut out = Vec::with_capacity(4 + 12 * counts.len() + head.len() + pages.len());
    out.extend_from_slice(&(PAGE_VALUES as u32).to_le_bytes());
    for len in lens {
        out.extend_from_slice(&len.to_le_bytes());
    }
    if paging.firsts {
        for at in (0..n).step_by(PAGE_VALUES) {
            let mut first = [0u8; 8];
            first[..width].copy_from_slice(&raw[at * width..(at + 1) * width]);
            out.extend_from_slice(&first);
        }
    }
    out.extend_from_slice(&head);
    out.extend_from_slice(&pages);
    Some(out)
}

/// A paged pco stream's payload taken apart, every length checked against the payload.
struct Pages<'a> {
    /// Values in each page but the last.
    page: usize,
    n: usize,
    /// Bytes of each page, u32 each.
    lens: &'a [u8],
    /// Each page's first value, u64 each (the time offsets' stream), or empty.
    firsts: &'a [u8],
    /// pco's header and chunk metadata.
    head: &'a [u8],
    /// The pages, back to back.
    data: &'a [u8],
}

impl<'a> Pages<'a> {
    fn parse(payload: &'a [u8], n: usize, firsts: bool) -> Result<Pages<'a>, String> {
        let page = payload
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or("pco pages without a page size")?;
        if page == 0 || n == 0 {
            return Err(format!("pco pages of {page} values for {n} values"));
        }
        // At most `payload.len()` pages fit: each takes 4 bytes of the table.
        let count = n.div_ceil(page);
        let table = count
            .checked_mul(if firsts { 12 } else { 4 })
            .and_then(|t| t.checked_add(4))
            .filter(|&t| t <= payload.len())
            .ok_or_else(|| format!("a table of {count} pages runs past the stream"))?;
        let lens = &payload[4..4 + 4 * count];
        let firsts = &payload[4 + 4 * count..table];
        let data_len: u64 = lens
            .chunks_exact(4)
            .map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
            .sum();
        let rest = &payload[table..];
        let head_len = usize::try_from(data_len)
            .ok()
            .and_then(|d| rest.len().checked_sub(d))
            .ok_or_else(|| format!("{count} pages of {data_len} bytes run past the stream"))?;
        Ok(Pages {
            page,
            n,
            lens,
            firsts,
            head: &rest[..head_len],
            data: &rest[head_len..],
        })
    }

    fn len_of(&self, i: usize) -> usize {
        let b = &self.lens[4 * i..4 * i + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
    }

    fn first(&self, i: usize) -> u64 {
        let b: [u8; 8] = self.firsts[8 * i..8 * i + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(b)
    }

    /// The pages holding values `rows` (non-empty, within `n`).
    fn covering(&self, rows: &Range<usize>) -> Range<usize> {
        rows.start / self.page..(rows.end - 1) / self.page + 1
    }

    /// The values of `pages`, as one range of the stream.
    fn values_of(&self, pages: &Range<usize>) -> Range<usize> {
        pages.start * self.page..(pages.end * self.page).min(self.n)
    }

    /// How many pages, from the first, start with a value `before` holds for (the values
    /// are in order, so these are a prefix).
    fn pages_starting(&self, before: impl Fn(u64) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.firsts.len() / 8);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if before(self.first(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The pages that may hold time offset `unit`, by the pages' first values: from the last
    /// page starting below it (its run may begin there) to the last starting at or below it.
    fn pages_of_unit(&self, unit: u64) -> Range<usize> {
        let end = self.pages_starting(|f| f <= unit);
        let start = self.pages_starting(|f| f < unit).saturating_sub(1);
        start..end.max(start)
    }

    /// The pages that may hold time offsets `from <= u < to`: from the last page starting
    /// below `from` to the last starting below `to`.
    fn pages_of_span(&self, from: u64, to: u64) -> Range<usize> {
        let start = self.pages_starting(|f| f < from).saturating_sub(1);
        let end = self.pages_starting(|f| f < to);
        start..end.max(start)
    }

    /// Decodes `pages` into `dst` (exactly their values).
    fn decode<T: pco::data_types::Number>(&self, pages: Range<usize>, dst: &mut [T]) -> Result<(), String> {
        let pco_error = |e: pco::errors::PcoError| format!("pco: {}", e.message);
        let (file, rest) = pco::wrapped::FileDecompressor::new(self.head).map_err(pco_error)?;
        let (mut chunk, rest) = file.chunk_decompressor::<T, _>(rest).map_err(pco_error)?;
        if !rest.is_empty() {
            return Err(format!(
                "{} bytes between pco's chunk metadata and the pages",
                rest.len()
            ));
        }
        let mut at: usize = (0..pages.start).map(|i| self.len_of(i)).sum();
        let mut k = 0;
        PADDED_PAGE.with_borrow_mut(|padded| {
            for i in pages {
                let len = self.len_of(i);
                let count = self.page.min(self.n - i * self.page);
                let values = dst
                    .get_mut(k..k + count)
                    .ok_or("pages past the values asked for")?;
                let src = padded.holding(&self.data[at..at + len]);
                let mut page = chunk.page_decompressor(src, count).map_err(pco_error)?;
                let progress = page.read(values).map_err(pco_error)?;
                if progress.n_processed != count || !progress.finished {
                    return Err(format!(
                        "pco page {i} holds {} values, not {count}",
                        progress.n_processed
                    ));
                }
                // Exactly the page is read: no byte of it is left, none of the zeros after it taken.
                if page.into_src().len() != PCO_READ_AHEAD {
                    return Err(format!("pco page {i} does not end where its table says"));
                }
                at += len;
                k += count;
            }
            Ok(())
        })
    }
}

/// Zeros after each page handed to pco: it reads a batch's bits from a buffer that holds at
/// least `MAX_BATCH_LATENT_VAR_SIZE` (4,617) bytes more, and given less (a page alone), it
/// allocates and zeroes twice that for each page: a sixth of the instructions of a day's
/// 1-minute mean over trades. Pages are copied into a reused buffer with this many zeros
/// after them instead (pco falls back to its own buffer, correctly, should it want more).
const PCO_READ_AHEAD: usize = 8192;

/// The buffer `Pages::decode` copies each page into: the page, then `PCO_READ_AHEAD` zeros.
#[derive(Default)]
struct PaddedPage {
    bytes: Vec<u8>,
    /// The length of the page it holds: zeros follow it.
    page_len: usize,
}

impl PaddedPage {
    /// `page` followed by `PCO_READ_AHEAD` zeros.
    fn holding(&mut self, page: &[u8]) -> &[u8] {
        let want = page.len() + PCO_READ_AHEAD;
        if self.bytes.len() < want {
            self.bytes.resize(want, 0);
        }
        // Only what the last, longer page left past this one is zeroed again.
        if self.page_len > page.len() {
            self.bytes[page.len()..self.page_len].fill(0);
        }
        self.bytes[..page.len()].copy_from_slice(page);
        self.page_len = page.len();
        &self.bytes[..want]
    }
}

thread_local! {
    static PADDED_PAGE: std::cell::RefCell<PaddedPage> = std::cell::RefCell::new(PaddedPage::default());
}

/// Decoded pco values, reused by each thread: a get decodes a few thousand values per
/// stream, and a fresh zeroed buffer per stream, copied out of, cost 5–8 % of a get.
/// A field per number type, named as the type.
#[derive(Default)]
struct PcoScratch {
    i16: Vec<i16>,
    i32: Vec<i32>,
    i64: Vec<i64>,
    u16: Vec<u16>,
    u32: Vec<u32>,
    u64: Vec<u64>,
    f32: Vec<f32>,
    f64: Vec<f64>,
}

/// Values a thread keeps decoded between calls at most; a larger stream gets a buffer of its
/// own, so one huge record does not pin its size to the thread.
const PCO_SCRATCH_VALUES: usize = 1 << 16;

thread_local! {
    static PCO_SCRATCH: std::cell::RefCell<PcoScratch> = std::cell::RefCell::new(PcoScratch::default());
}

/// One decoded part of a record (`decode_columns`): its values' little-endian bytes, kept in
/// 8-byte words so that pco can decode numbers of any width straight into it (a copy out of
/// a decoder's buffer was a tenth of an aggregate's instructions).
#[derive(Clone, Debug, Default)]
pub struct PartValues {
    words: Vec<u64>,
    /// Bytes in use, from the first word on.
    len: usize,
}

/// The numbers a `PartValues` holds in place: no padding, every bit pattern a value, aligned to at
/// most 8 bytes.
///
/// # Safety
/// Implemented only for primitive integers and floats of 2 to 8 bytes.
unsafe trait PlainNumber: pco::data_types::Number {}
// SAFETY: primitive numbers of 2, 4 or 8 bytes; any bits are a value.
unsafe impl PlainNumber for i16 {}
unsafe impl PlainNumber for i32 {}
unsafe impl PlainNumber for i64 {}
unsafe impl PlainNumber for u16 {}
unsafe impl PlainNumber for u32 {}
unsafe impl PlainNumber for u64 {}
unsafe impl PlainNumber for f32 {}
unsafe impl PlainNumber for f64 {}

impl PartValues {
    fn clear(&mut self) {
        self.len = 0;
    }

    /// The bytes it holds allocated.
    pub fn capacity_bytes(&self) -> usize {
        8 * self.words.capacity()
    }

    /// Makes room for `bytes` bytes; what they held before is not kept when it must grow.
    fn reserve_bytes(&mut self, bytes: usize, keep: bool) {
        let words = bytes.div_ceil(8);
        if self.words.len() < words {
            if !keep {
                self.words.clear();
            }
            self.words.resize(words.max(self.words.capacity()), 0);
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: the words' bytes, all initialized; u8 has no alignment.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<u8>(), self.words.len() * 8) }
    }

    fn extend_from_slice(&mut self, bytes: &[u8]) {
        let (from, to) = (self.len, self.len + bytes.len());
        self.reserve_bytes(to, true);
        self.bytes_mut()[from..to].copy_from_slice(bytes);
        self.len = to;
    }

    /// Room for exactly `n` values of `T`, replacing what the part held, for a decoder to fill.
    fn values_mut<T: PlainNumber>(&mut self, n: usize) -> &mut [T] {
        let bytes = n * std::mem::size_of::<T>();
        self.reserve_bytes(bytes, false);
        self.len = bytes;
        // SAFETY: the words hold at least `bytes` initialized bytes, aligned to 8 ≥ T's
        // alignment, and any bits are a T (`PlainNumber`).
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr().cast::<T>(), n) }
    }
}

impl PartialEq for PartValues {
    fn eq(&self, other: &PartValues) -> bool {
        self[..] == other[..]
    }
}

impl std::ops::Deref for PartValues {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        // SAFETY: the first `len` bytes of the words, initialized; u8 has no alignment.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }
}

/// Decodes all `n` values of a pco stream straight into `part`, as native numbers (the
/// caller reads them as little-endian bytes, so only on a little-endian machine).
fn decode_pco_into(
    number: Number,
    source: PcoSource<'_>,
    n: usize,
    part: &mut PartValues,
) -> Result<(), String> {
    macro_rules! go {
        ($t:ident) => {{
            decode_source(&source, n, &(0..n), part.values_mut::<$t>(n))
        }};
    }
    by_number_type!(number, go, Err("a pco stream where text is stored".into()))
}

/// Decodes into `values` what `source` holds of its `n` values for `rows`: all `n` of a
/// standalone block, the pages holding `rows` of a paged stream.
fn decode_source<T: pco::data_types::Number>(
    source: &PcoSource<'_>,
    n: usize,
    rows: &Range<usize>,
    values: &mut [T],
) -> Result<(), String> {
    match source {
        PcoSource::Paged(pages) => {
            if !values.is_empty() {
                pages.decode(pages.covering(rows), values)?;
            }
        }
        PcoSource::Whole(payload) => {
            // Padded like a page: a stream of up to 512 values (a 5-minute series' day) is
            // one standalone block, and pco would allocate and zero 9 KiB for each.
            let progress = PADDED_PAGE
                .with_borrow_mut(|padded| {
                    pco::standalone::simple_decompress_into(padded.holding(payload), values)
                })
                .map_err(|e| format!("pco: {}", e.message))?;
            if progress.n_processed != n || !progress.finished {
                return Err(format!(
                    "pco stream holds {} values, not {n}",
                    progress.n_processed
                ));
            }
        }
    }
    Ok(())
}

/// Where a pco stream's values are: one standalone block, or the pages of a paged stream.
enum PcoSource<'a> {
    Whole(&'a [u8]),
    Paged(&'a Pages<'a>),
}

/// Decodes values `rows` of the `n` of a pco stream (`Whole`: all are decoded; `Paged`: the
/// pages holding them) and hands `use_values` their little-endian bytes, straight from the
/// decoder's buffer on a little-endian machine.
fn with_pco_values<R>(
    number: Number,
    source: PcoSource<'_>,
    n: usize,
    rows: Range<usize>,
    use_values: impl FnOnce(&[u8]) -> R,
) -> Result<R, String> {
    // The values decoded: all of a standalone stream, the pages holding `rows` of a paged one.
    let decoded = match source {
        PcoSource::Whole(_) => 0..n,
        PcoSource::Paged(_) if rows.is_empty() => rows.clone(),
        PcoSource::Paged(pages) => pages.values_of(&pages.covering(&rows)),
    };
    macro_rules! go {
        ($t:ident) => {{
            PCO_SCRATCH.with_borrow_mut(|scratch| {
                let mut own = Vec::new();
                let buf = if n <= PCO_SCRATCH_VALUES {
                    &mut scratch.$t
                } else {
                    &mut own
                };
                let (base, len) = (decoded.start, decoded.len());
                if buf.len() < len {
                    buf.resize(len, <$t>::default());
                }
                let values = &mut buf[..len];
                decode_source(&source, n, &rows, values)?;
                let values = &values[rows.start - base..rows.end - base];
                let w = std::mem::size_of::<$t>();
                if cfg!(target_endian = "little") {
                    // SAFETY: `values` is initialized numbers, read as their bytes, which on a
                    // little-endian machine are the stream's bytes; u8 has no alignment.
                    let bytes =
                        unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), values.len() * w) };
                    Ok(use_values(bytes))
                } else {
                    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                    Ok(use_values(&bytes))
                }
            })
        }};
    }
    by_number_type!(number, go, Err("a pco stream where text is stored".into()))
}

/// Reads the streams of a columnar body.
struct Streams<'a> {
    body: &'a [u8],
    at: usize,
}

impl<'a> Streams<'a> {
    /// The streams of a columnar record of `n` rows, its tag and row count checked.
    fn of_record(body: &'a [u8], n: usize) -> Result<Streams<'a>, Corrupt> {
        if body.first() != Some(&COLUMNAR_TAG) {
            return Err(Corrupt("not a columnar record".into()));
        }
        let count = body
            .get(1..5)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| Corrupt("the record ends before its row count".into()))?;
        if count != n {
            return Err(Corrupt(format!("it holds {count} rows, its entry says {n}")));
        }
        Ok(Streams { body, at: 5 })
    }

    fn next(&mut self, what: &str) -> Result<(Codec, &'a [u8]), Corrupt> {
        let head = self
            .body
            .get(self.at..self.at + 5)
            .ok_or_else(|| Corrupt(format!("the record ends before its {what}")))?;
        let codec = Codec::from_byte(head[0])
            .ok_or_else(|| Corrupt(format!("unknown codec {} for its {what}", head[0])))?;
        let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let from = self.at + 5;
        let payload = from
            .checked_add(len)
            .and_then(|to| self.body.get(from..to))
            .ok_or_else(|| Corrupt(format!("its {what} runs past the record's end")))?;
        self.at = from + len;
        Ok((codec, payload))
    }
}

/// Decodes values `rows` of a stream of `n` values of `width` bytes and hands `use_values`
/// their bytes: a raw stream's from the record, a pco stream's from the decoder's own buffer,
/// the others' decoded into `column`. A paged stream here has no first values in its table
/// (those of the time offsets are read by `decode_units`).
fn with_stream<R>(
    (codec, payload): (Codec, &[u8]),
    number: Number,
    n: usize,
    width: usize,
    rows: Range<usize>,
    column: &mut Vec<u8>,
    use_values: impl FnOnce(&[u8]) -> R,
) -> Result<R, String> {
    if rows.start > rows.end || rows.end > n {
        return Err(format!("values {rows:?} of {n}"));
    }
    match codec {
        Codec::Pco => with_pco_values(number, PcoSource::Whole(payload), n, rows, use_values),
        Codec::PcoPages => {
            let pages = Pages::parse(payload, n, false)?;
            with_pco_values(number, PcoSource::Paged(&pages), n, rows, use_values)
        }
        Codec::Raw => {
            if payload.len() != n * width {
                return Err(format!("{} raw bytes for {n} values of {width}", payload.len()));
            }
            Ok(use_values(&payload[rows.start * width..rows.end * width]))
        }
        Codec::Constant => {
            if payload.len() != width {
                return Err(format!(
                    "a constant of {} bytes for values of {width}",
                    payload.len()
                ));
            }
            // One value, then copies of what is filled, doubling: a few copies, not one a value.
            column.resize(rows.len() * width, 0);
            if !column.is_empty() {
                column[..width].copy_from_slice(payload);
                let mut filled = width;
                while filled < column.len() {
                    let more = filled.min(column.len() - filled);
                    column.copy_within(..more, filled);
                    filled += more;
                }
            }
            Ok(use_values(column))
        }
        Codec::Linear => {
            if payload.len() != 2 * width || !(1..=8).contains(&width) {
                return Err(format!(
                    "a progression of {} bytes for values of {width}",
                    payload.len()
                ));
            }
            let (first, step) = (uint_of(&payload[..width]), uint_of(&payload[width..]));
            column.clear();
            for i in rows {
                column.extend_from_slice(&linear_value(first, step, i, width).to_le_bytes()[..width]);
            }
            Ok(use_values(column))
        }
        Codec::Zstd => {
            column.resize(n * width, 0);
            // Into a buffer of exactly the expected size: a frame that would grow past it is
            // an error, never an allocation it asks for.
            let written =
                zstd::bulk::decompress_to_buffer(payload, column).map_err(|e| format!("zstd: {e}"))?;
            if written != column.len() {
                return Err(format!("zstd gave {written} bytes for {n} values of {width}"));
            }
            Ok(use_values(&column[rows.start * width..rows.end * width]))
        }
    }
}

/// Decodes a columnar body of `n` rows into `units` and `rows` (both cleared first): the
/// time offsets and the row-major rows, as a raw record holds them. The caller bounds `n`
/// (by the entry's check); every length inside the body is checked against it.
pub fn decode(
    layout: &RecordLayout,
    body: &[u8],
    n: usize,
    units: &mut Vec<u64>,
    rows: &mut Vec<u8>,
) -> Result<(), Corrupt> {
    decode_selected(layout, body, n, units, rows, None, Select::All).map(|_| ())
}

/// Time offsets at which a columnar record of `n` rows (`body`) may be cut into spans of
/// about `rows` rows that decode apart (`Select::Span`), each only its own rows or pages:
/// ascending, past the first row's. Empty where a span would decode more than its share (a
/// stream that is a zstd frame or an unpaged pco file decodes whole, for every span), where
/// the time offsets cannot be told apart, or where the record does not parse (decoding it
/// then says why).
pub fn span_cuts(body: &[u8], n: usize, rows: usize) -> Vec<u64> {
    let Ok(mut streams) = Streams::of_record(body, n) else {
        return Vec::new();
    };
    let Ok(times) = streams.next("time offsets") else {
        return Vec::new();
    };
    while streams.at < body.len() {
        match streams.next("a column") {
            Ok((Codec::Raw | Codec::Constant | Codec::PcoPages | Codec::Linear, _)) => {}
            _ => return Vec::new(),
        }
    }
    let rows = rows.max(1);
    match times {
        (Codec::PcoPages, payload) => {
            let Ok(pages) = Pages::parse(payload, n, true) else {
                return Vec::new();
            };
            let count = pages.firsts.len() / 8;
            let firsts = (0..count)
                .step_by((rows / pages.page).max(1))
                .map(|page| pages.first(page));
            strictly_rising(firsts)
        }
        // Offset i is `first + i × step`.
        (Codec::Linear, payload) if payload.len() == 16 => {
            let (first, step) = (uint_of(&payload[..8]), uint_of(&payload[8..]));
            let at = |i: usize| step.checked_mul(i as u64).and_then(|d| first.checked_add(d));
            strictly_rising((0..n).step_by(rows).map_while(at))
        }
        _ => Vec::new(),
    }
}

/// The values of `offsets` (the first a row's, not a cut) that rise above all before them.
fn strictly_rising(mut offsets: impl Iterator<Item = u64>) -> Vec<u64> {
    let Some(mut last) = offsets.next() else {
        return Vec::new();
    };
    let mut cuts = Vec::new();
    for at in offsets {
        if at > last {
            cuts.push(at);
            last = at;
        }
    }
    cuts
}

/// Which rows of a record `decode_selected` rebuilds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Select {
    /// Every row.
    All,
    /// The rows at one time offset (a point read).
    At(u64),
    /// The rows at offsets `from <= u < to` (a scan whose window cuts the bucket): a paged
    /// record decodes only the pages that may hold them, and `units` gets theirs alone.
    Span(u64, u64),
}

/// Like `decode`, but rebuilds only the rows `select` picks, and of the value columns only
/// those `columns` marks (`None`: all; the others are left zero, their null bits as stored);
/// returns the picked rows' range in the record (an empty pick's place is unspecified).
/// `units` gets the time offsets decoded: all of them, for `Select::At` of a paged record only
/// the pages searched, for `Select::Span` only the picked rows'. Every stream's header is
/// checked; a point read or a span decodes only the pages (or whole streams, where not paged)
/// that hold its rows, and no value column when it finds none.
pub fn decode_selected(
    layout: &RecordLayout,
    body: &[u8],
    n: usize,
    units: &mut Vec<u64>,
    rows: &mut Vec<u8>,
    columns: Option<&[bool]>,
    select: Select,
) -> Result<Range<usize>, Corrupt> {
    let row_len = layout.row_len;
    // The parts tile a row: when every column is decoded, every byte is written, and only
    // new room (never read before it is written) need be zeroed, not the whole buffer.
    let every_byte = columns.is_none_or(|wanted| wanted.iter().all(|&w| w));
    if !every_byte {
        rows.clear();
    }
    let mut sized = false;
    let picked = decode_parts(
        layout,
        body,
        n,
        units,
        columns,
        select,
        None,
        Out::Put(|i, picked, values| {
            if !sized {
                rows.resize(picked * row_len, 0);
                sized = true;
            }
            scatter(
                values,
                rows,
                row_len,
                layout.parts[i].offset,
                layout.parts[i].width,
            );
        }),
    );
    if !sized {
        rows.clear();
    }
    picked
}

/// Like `decode_selected`, but leaves the values as columns: part `i` of `layout` (0: the row
/// flags, always; `i > 0`: value column `i - 1`, if `columns` marks it) into `parts[i]`, its
/// width in bytes a picked row, little-endian; a part not decoded is left empty. For readers
/// that want columns (Arrow output), which would otherwise take the rebuilt rows apart again.
///
/// With `coarse`, the time offsets of a page that `coarse` says need not be told apart are
/// not decoded: each of its rows gets the page's first offset (see `Coarse`).
#[allow(clippy::too_many_arguments)]
pub fn decode_columns(
    layout: &RecordLayout,
    body: &[u8],
    n: usize,
    units: &mut Vec<u64>,
    parts: &mut Vec<PartValues>,
    columns: Option<&[bool]>,
    select: Select,
    coarse: Option<Coarse<'_>>,
) -> Result<Range<usize>, Corrupt> {
    parts.resize_with(layout.parts.len(), PartValues::default);
    for part in parts.iter_mut() {
        part.clear();
    }
    decode_parts(
        layout,
        body,
        n,
        units,
        columns,
        select,
        coarse,
        Out::<fn(usize, usize, &[u8])>::Parts(parts),
    )
}

/// Where `decode_parts` puts the values of each part: handed to a function with the count of
/// rows picked, or into the part's `PartValues` (pco streams of every row decoded in place).
enum Out<'a, F: FnMut(usize, usize, &[u8])> {
    Put(F),
    Parts(&'a mut [PartValues]),
}

/// For a reader that needs a record's time offsets only coarsely (an aggregate over windows
/// of time, which reads no row's own time): `same(a, b)` says offsets `a <= b` and every
/// offset between them may all read as `a`; `last` is the greatest offset the record can hold.
/// A page of paged time offsets runs from its first value to the next page's (the last to
/// `last`), so where `same` holds for those, the page is not decoded. The offsets handed out
/// stay in order, and a page that is decoded is checked as always.
#[derive(Clone, Copy)]
pub struct Coarse<'a> {
    pub same: &'a dyn Fn(u64, u64) -> bool,
    pub last: u64,
}

/// The walk `decode_selected` and `decode_columns` share: checks the body, decodes the time
/// offsets into `units` (cleared first), then hands `put(part, picked rows, values)` the
/// picked rows' values of each part wanted, in order, the row flags (part 0) first.
#[allow(clippy::too_many_arguments)]
fn decode_parts(
    layout: &RecordLayout,
    body: &[u8],
    n: usize,
    units: &mut Vec<u64>,
    columns: Option<&[bool]>,
    select: Select,
    coarse: Option<Coarse<'_>>,
    mut out: Out<'_, impl FnMut(usize, usize, &[u8])>,
) -> Result<Range<usize>, Corrupt> {
    units.clear();
    let mut streams = Streams::of_record(body, n)?;
    if decoded_len(layout, n).is_none() {
        return Err(Corrupt(format!(
            "its {n} rows would decode past the {MAX_DECODED_BYTES}-byte bound of a columnar record"
        )));
    }
    let mut column = Vec::new();
    let picked = decode_units(
        streams.next("time offsets")?,
        n,
        select,
        coarse,
        units,
        &mut column,
    )
    .map_err(|e| Corrupt(format!("its time offsets: {e}")))?;
    for (i, part) in layout.parts.iter().enumerate() {
        let what = if i == 0 {
            "row flags".to_string()
        } else {
            format!("column {}", i - 1)
        };
        let stream = streams.next(&what)?;
        // Part 0 is the row flags, always rebuilt; part i > 0 is value column i - 1.
        if picked.is_empty()
            || i > 0 && columns.is_some_and(|wanted| !wanted.get(i - 1).copied().unwrap_or(true))
        {
            continue;
        }
        let decoded = match &mut out {
            Out::Parts(parts) if cfg!(target_endian = "little") && picked == (0..n) => match stream {
                (Codec::Pco, payload) => Some(decode_pco_into(
                    part.number,
                    PcoSource::Whole(payload),
                    n,
                    &mut parts[i],
                )),
                (Codec::PcoPages, payload) => Some(Pages::parse(payload, n, false).and_then(|pages| {
                    decode_pco_into(part.number, PcoSource::Paged(&pages), n, &mut parts[i])
                })),
                _ => None,
            },
            _ => None,
        };
        let decoded = decoded.unwrap_or_else(|| {
            with_stream(
                stream,
                part.number,
                n,
                part.width,
                picked.clone(),
                &mut column,
                |values| match &mut out {
                    Out::Put(put) => put(i, picked.len(), values),
                    Out::Parts(parts) => parts[i].extend_from_slice(values),
                },
            )
        });
        decoded.map_err(|e| Corrupt(format!("its {what}: {e}")))?;
    }
    if streams.at != body.len() {
        return Err(Corrupt(format!(
            "{} bytes past its last column",
            body.len() - streams.at
        )));
    }
    Ok(picked)
}

/// The greatest time offset at or before `unit` in the columnar record `body` of `n` rows,
/// if any: an as-of lookup, which then reads the rows at that offset with `Select::At`. A
/// paged stream decodes only the last page starting at or before `unit` (the offset sought is
/// in it); a progression is computed; any other stream is decoded whole. What is decoded
/// must be in order, so a damaged stream is an error rather than a wrong answer.
pub fn last_unit_at_or_before(body: &[u8], n: usize, unit: u64) -> Result<Option<u64>, Corrupt> {
    let mut streams = Streams::of_record(body, n)?;
    let (codec, payload) = streams.next("time offsets")?;
    let corrupt = |e: String| Corrupt(format!("its time offsets: {e}"));
    let mut units = Vec::new();
    match codec {
        Codec::PcoPages => {
            let pages = Pages::parse(payload, n, true).map_err(corrupt)?;
            // The last page starting at or before `unit` holds the offset sought.
            let Some(page) = pages.pages_of_unit(unit).end.checked_sub(1) else {
                return Ok(None);
            };
            let values = pages.values_of(&(page..page + 1));
            with_pco_values(Number::U64, PcoSource::Paged(&pages), n, values, |bytes| {
                extend_units(&mut units, bytes)
            })
            .map_err(corrupt)?;
            if units.first() != Some(&pages.first(page)) {
                return Err(corrupt(format!(
                    "page {page} starts at {:?}, its table says {}",
                    units.first(),
                    pages.first(page)
                )));
            }
        }
        Codec::Linear if payload.len() == 16 => {
            let (first, step) = (uint_of(&payload[..8]), uint_of(&payload[8..]));
            let Some(d) = unit.checked_sub(first) else {
                return Ok(None);
            };
            let last = n.saturating_sub(1) as u64;
            let i = d.checked_div(step).map_or(0, |i| i.min(last));
            // `i × step <= unit - first`: no overflow.
            return Ok(Some(first + i * step));
        }
        _ => {
            let mut column = Vec::new();
            with_stream((codec, payload), Number::U64, n, 8, 0..n, &mut column, |bytes| {
                extend_units(&mut units, bytes)
            })
            .map_err(corrupt)?;
        }
    }
    if !units.windows(2).all(|w| w[0] <= w[1]) {
        return Err(corrupt("out of order".into()));
    }
    let at = units.partition_point(|&u| u <= unit);
    Ok(at.checked_sub(1).map(|i| units[i]))
}

/// Decodes the time offsets `select` needs into `units` and returns the rows it picks: a
/// paged stream's search starts from its pages' first values, so a point read decodes one
/// page (or the few a run of equal offsets spans); a progression's row is computed; any
/// other stream is decoded whole.
fn decode_units(
    (codec, payload): (Codec, &[u8]),
    n: usize,
    select: Select,
    coarse: Option<Coarse<'_>>,
    units: &mut Vec<u64>,
    column: &mut Vec<u8>,
) -> Result<Range<usize>, String> {
    let decoded = match (codec, select, coarse) {
        (Codec::PcoPages, Select::All, Some(coarse)) => {
            let pages = Pages::parse(payload, n, true)?;
            decode_coarse_units(&pages, coarse, units)?;
            0..n
        }
        (Codec::PcoPages, _, _) => {
            let pages = Pages::parse(payload, n, true)?;
            let decoded = match select {
                Select::All => 0..n,
                Select::At(unit) => {
                    let search = pages.pages_of_unit(unit);
                    if search.is_empty() {
                        return Ok(0..0);
                    }
                    pages.values_of(&search)
                }
                Select::Span(from, to) => {
                    let search = pages.pages_of_span(from, to);
                    if search.is_empty() {
                        units.clear();
                        return Ok(0..0);
                    }
                    pages.values_of(&search)
                }
            };
            with_pco_values(
                Number::U64,
                PcoSource::Paged(&pages),
                n,
                decoded.clone(),
                |bytes| extend_units(units, bytes),
            )?;
            // The table's first values led the search: each decoded page must start with its own.
            for at in (decoded.start..decoded.end).step_by(pages.page) {
                let (page, found) = (at / pages.page, units[at - decoded.start]);
                if found != pages.first(page) {
                    return Err(format!(
                        "page {page} starts at {found}, its table says {}",
                        pages.first(page)
                    ));
                }
            }
            decoded
        }
        (Codec::Linear, Select::At(_) | Select::Span(..), _) if payload.len() == 16 => {
            let Some(decoded) = linear_rows(payload, n, select) else {
                return Ok(0..0);
            };
            with_stream(
                (codec, payload),
                Number::U64,
                n,
                8,
                decoded.clone(),
                column,
                |bytes| extend_units(units, bytes),
            )?;
            decoded
        }
        _ => {
            with_stream((codec, payload), Number::U64, n, 8, 0..n, column, |bytes| {
                extend_units(units, bytes)
            })?;
            0..n
        }
    };
    Ok(match select {
        Select::All => 0..n,
        Select::At(unit) => {
            let from = units.partition_point(|&u| u < unit);
            let to = units.partition_point(|&u| u <= unit);
            decoded.start + from..decoded.start + to.max(from)
        }
        Select::Span(from, to) => {
            // Only the picked rows' offsets stay: `units[k]` is row `picked.start + k`'s.
            let (a, b) = (
                units.partition_point(|&u| u < from),
                units.partition_point(|&u| u < to),
            );
            let b = b.max(a);
            units.truncate(b);
            units.drain(..a);
            decoded.start + a..decoded.start + b
        }
    })
}

/// The rows `select` picks of `n` time offsets `first + i × step` (a `Linear` stream's
/// `payload`), computed, not decoded: the one row at a point read's offset (all of them, for
/// a step of 0), or a span's rows (a record read in pieces would otherwise make every row's
/// offset for each piece); `None` for a point read that no row holds.
fn linear_rows(payload: &[u8], n: usize, select: Select) -> Option<Range<usize>> {
    let (first, step) = (uint_of(&payload[..8]), uint_of(&payload[8..]));
    match select {
        Select::All => Some(0..n),
        Select::At(unit) => {
            let i = match unit.checked_sub(first) {
                Some(0) => 0,
                Some(d) if step > 0 && d % step == 0 => usize::try_from(d / step).unwrap_or(n),
                _ => n,
            };
            (i < n).then(|| if step == 0 { 0..n } else { i..i + 1 })
        }
        Select::Span(from, to) => {
            // The first row whose offset is at or past `unit`.
            let row_at = |unit: u64| match unit.checked_sub(first) {
                None | Some(0) => 0,
                Some(_) if step == 0 => n,
                Some(d) => usize::try_from(d.div_ceil(step)).map_or(n, |i| i.min(n)),
            };
            Some(row_at(from)..row_at(to).max(row_at(from)))
        }
    }
}

/// `decode_units` of every row of paged time offsets for a `Coarse` reader: runs of pages
/// that must be told apart are decoded (and their first values checked); each other page's
/// rows all get its first value.
fn decode_coarse_units(pages: &Pages, coarse: Coarse<'_>, units: &mut Vec<u64>) -> Result<(), String> {
    let count = pages.n.div_ceil(pages.page);
    let mut page = 0;
    while page < count {
        let coarse_page = |i: usize| {
            let (first, next) = (
                pages.first(i),
                if i + 1 < count {
                    pages.first(i + 1)
                } else {
                    coarse.last
                },
            );
            first <= next && (coarse.same)(first, next)
        };
        if coarse_page(page) {
            let rows = pages.values_of(&(page..page + 1));
            units.extend(std::iter::repeat_n(pages.first(page), rows.len()));
            page += 1;
            continue;
        }
        let run_end = (page + 1..count).find(|&i| coarse_page(i)).unwrap_or(count);
        let decoded = pages.values_of(&(page..run_end));
        let at = units.len();
        with_pco_values(
            Number::U64,
            PcoSource::Paged(pages),
            pages.n,
            decoded.clone(),
            |bytes| extend_units(units, bytes),
        )?;
        for (k, p) in (page..run_end).enumerate() {
            let found = units[at + k * pages.page];
            if found != pages.first(p) {
                return Err(format!(
                    "page {p} starts at {found}, its table says {}",
                    pages.first(p)
                ));
            }
        }
        page = run_end;
    }
    Ok(())
}

/// Appends the little-endian u64 time offsets of `bytes` to `units`.
fn extend_units(units: &mut Vec<u64>, bytes: &[u8]) {
    units.extend(
        bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))),
    )
}

/// Writes each `width`-byte value of `values` at `offset` of the next row of `rows`: one
/// loop per width, as in `gather`, since a fixed-size copy is a load and a store and a
/// variable one a call to `memcpy`.
pub(crate) fn scatter(values: &[u8], rows: &mut [u8], row_len: usize, offset: usize, width: usize) {
    fn fixed<const W: usize>(values: &[u8], rows: &mut [u8], row_len: usize, offset: usize) {
        for (row, v) in rows.chunks_exact_mut(row_len).zip(values.chunks_exact(W)) {
            let v: &[u8; W] = v.try_into().expect("chunks of W bytes");
            row[offset..offset + W].copy_from_slice(v);
        }
    }
    match width {
        0 => {}
        1 => fixed::<1>(values, rows, row_len, offset),
        2 => fixed::<2>(values, rows, row_len, offset),
        4 => fixed::<4>(values, rows, row_len, offset),
        8 => fixed::<8>(values, rows, row_len, offset),
        w => {
            for (row, v) in rows.chunks_exact_mut(row_len).zip(values.chunks_exact(w)) {
                row[offset..offset + w].copy_from_slice(v);
            }
        }
    }
}

/// The stored length of each stream of a columnar body with `streams` streams (time offsets,
/// flags, then each column; header included), for `xs stat`'s bytes per column.
pub fn stream_lens(body: &[u8], streams: usize) -> Result<Vec<usize>, Corrupt> {
    if body.first() != Some(&COLUMNAR_TAG) || body.len() < 5 {
        return Err(Corrupt("not a columnar record".into()));
    }
    let mut reader = Streams { body, at: 5 };
    let mut lens = Vec::with_capacity(streams);
    for _ in 0..streams {
        let from = reader.at;
        reader.next("streams")?;
        lens.push(reader.at - from);
    }
    Ok(lens)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64*: deterministic cases without a dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }
    }

    const SPEC: &str = "a:i8,b:i16,c:i32,d:i64,e:u8,f:u16,g:u32,h:u64,p:f32,q:f64,k:bool,s:str(6),m:dec(2)";

    fn i64_bytes(values: impl Iterator<Item = i64>) -> Vec<u8> {
        values.flat_map(i64::to_le_bytes).collect()
    }

    #[test]
    fn delta_order_follows_the_shape_of_the_values() {
        let mut rng = Rng(7);
        let n = 2000i64;
        // Noise around a level: differencing only widens it.
        let noise = i64_bytes((0..n).map(|_| 1500 + rng.below(100) as i64));
        assert_eq!(delta_order(Number::I64, 8, &noise), 0);
        // A random walk (prices): its steps are small.
        let mut price = 3_000_000i64;
        let walk = i64_bytes((0..n).map(|_| {
            price += rng.below(21) as i64 - 10;
            price
        }));
        assert_eq!(delta_order(Number::I64, 8, &walk), 1);
        // A smooth curve: its second differences are constant.
        let curve = i64_bytes((0..n).map(|i| i * i * 3 + 7));
        assert_eq!(delta_order(Number::I64, 8, &curve), 2);
        // Two values in runs (`buy`/`sell` codes): their differences take three values (-1, 0,
        // +1) where the codes take two.
        let mut side = 0i64;
        let codes: Vec<u8> = (0..n)
            .flat_map(|_| {
                if rng.below(10) < 3 {
                    side ^= 1;
                }
                (side as u32).to_le_bytes()
            })
            .collect();
        assert_eq!(delta_order(Number::U32, 4, &codes), 0);
        // Floats are ranked by their order-preserving bits, negative ones included.
        let mut x = -2.0f64;
        let floats: Vec<u8> = (0..n)
            .flat_map(|_| {
                x += (rng.below(11) as f64 - 5.0) * 1e-3;
                x.to_le_bytes()
            })
            .collect();
        assert_eq!(delta_order(Number::F64, 8, &floats), 1);
        // Too few values to difference.
        assert_eq!(delta_order(Number::I64, 8, &i64_bytes([5].into_iter())), 0);
    }

    /// Rows of every type, with nulls, runs, repeats and arbitrary float bits (NaN payloads,
    /// -0.0), in shapes that make every codec win somewhere.
    fn case(rng: &mut Rng, schema: &Schema) -> (Vec<u64>, Vec<u8>) {
        let n = match rng.below(4) {
            0 => rng.below(4) as usize,
            1 => rng.below(20) as usize,
            _ => rng.below(3000) as usize,
        };
        let constant = rng.below(3) == 0;
        let span = 1u64 << rng.below(40);
        let mut units: Vec<u64> = (0..n).map(|_| rng.below(span)).collect();
        units.sort_unstable();
        let mut rows = Vec::with_capacity(n * schema.row_len());
        let mut row = schema.new_row();
        for k in 0..n {
            if !constant || k == 0 {
                schema.init_row(&mut row);
                row[0] |= 1;
                for (i, c) in schema.columns().iter().enumerate() {
                    if rng.below(10) == 0 {
                        schema.set_null(&mut row, i);
                        continue;
                    }
                    let mut bytes = vec![0u8; c.ty.width_bytes()];
                    match c.ty {
                        ColumnType::Str(_) => {
                            let len = rng.below(bytes.len() as u64 + 1) as usize;
                            for b in &mut bytes[..len] {
                                *b = b'a' + rng.below(3) as u8;
                            }
                        }
                        ColumnType::Bool => bytes[0] = rng.below(2) as u8,
                        _ => {
                            let v = if rng.below(2) == 0 {
                                k as u64 * 7
                            } else {
                                rng.next()
                            };
                            let w = bytes.len();
                            bytes.copy_from_slice(&v.to_le_bytes()[..w]);
                        }
                    }
                    schema.set_field_bytes(&mut row, i, &bytes);
                }
            }
            rows.extend_from_slice(&row);
        }
        (units, rows)
    }

    #[test]
    fn every_record_decodes_to_its_rows() {
        let schema = Schema::parse_spec(SPEC).unwrap();
        let layout = RecordLayout::new(&schema);
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut units, mut rows) = (Vec::new(), Vec::new());
        // Kept from record to record, as a scan keeps them: a part decoded in place after a
        // longer or shorter one holds exactly this record's values.
        let mut parts = Vec::new();
        for k in 0..300 {
            let (u, r) = case(&mut rng, &schema);
            let mut body = Vec::new();
            encode(&layout, &u, &r, &mut body, k % 2 == 0);
            decode(&layout, &body, u.len(), &mut units, &mut rows).unwrap();
            assert_eq!((&units, &rows), (&u, &r));
            // As columns: each part holds its field of every row, and they transpose back to
            // the rows, from any first row on.
            let picked = decode_columns(
                &layout,
                &body,
                u.len(),
                &mut units,
                &mut parts,
                None,
                Select::All,
                None,
            )
            .unwrap();
            assert_eq!((&units, picked), (&u, 0..u.len()));
            for (part, values) in layout.parts.iter().zip(&parts) {
                let want: Vec<u8> = r
                    .chunks_exact(layout.row_len)
                    .flat_map(|row| &row[part.offset..part.offset + part.width])
                    .copied()
                    .collect();
                assert_eq!(&values[..], &want[..]);
            }
            let first = (k as usize) % (u.len() + 1);
            let times: Vec<i64> = u[first..].iter().map(|&x| x as i64).collect();
            let columns = crate::db::Columns::new(&times, &layout, &parts, first);
            let mut back = Vec::new();
            columns.rows_into(&mut back);
            assert_eq!(back, r[first * layout.row_len..]);
        }
    }

    /// A point read (`Select::At`) of every offset stored, and of offsets between and
    /// around them, picks exactly the rows a full decode holds at that offset, paged or not:
    /// runs of one offset across page boundaries included.
    #[test]
    fn a_point_read_picks_the_rows_a_full_decode_holds() {
        let schema = Schema::parse_spec(SPEC).unwrap();
        let layout = RecordLayout::new(&schema);
        let mut rng = Rng(0x51ED_2701);
        let (mut units, mut rows, mut all_units, mut all_rows) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut paged_records, mut linear_records) = (0, 0);
        for k in 0..120 {
            let (mut u, r) = case(&mut rng, &schema);
            if k % 3 == 0 && !u.is_empty() {
                // Long runs of equal offsets, so runs cross pages.
                let span = u.len() as u64 / 40 + 1;
                for (i, x) in u.iter_mut().enumerate() {
                    *x = i as u64 / span * 5;
                }
            } else if k % 3 == 1 {
                // A regular series: a progression.
                for (i, x) in u.iter_mut().enumerate() {
                    *x = 3 + 7 * i as u64;
                }
            }
            let paged = k % 4 != 3;
            let mut body = Vec::new();
            encode(&layout, &u, &r, &mut body, paged);
            paged_records += usize::from(paged && body.get(5) == Some(&(Codec::PcoPages as u8)));
            linear_records += usize::from(paged && body.get(5) == Some(&(Codec::Linear as u8)));
            decode(&layout, &body, u.len(), &mut all_units, &mut all_rows).unwrap();
            let mut probes: Vec<u64> = u.iter().flat_map(|&x| [x, x + 1, x.saturating_sub(1)]).collect();
            probes.extend([0, u64::MAX]);
            probes.sort_unstable();
            probes.dedup();
            for unit in probes.into_iter().step_by(7) {
                let picked = decode_selected(
                    &layout,
                    &body,
                    u.len(),
                    &mut units,
                    &mut rows,
                    None,
                    Select::At(unit),
                )
                .unwrap();
                let want = u.partition_point(|&x| x < unit)..u.partition_point(|&x| x <= unit);
                // Where an empty pick lies is not said.
                let at = |r: Range<usize>| if r.is_empty() { 0..0 } else { r };
                assert_eq!(at(picked), at(want.clone()), "unit {unit} of {} rows", u.len());
                let row_len = layout.row_len;
                assert_eq!(rows, &all_rows[want.start * row_len..want.end * row_len]);
                // The as-of lookup's offset: the last stored at or before `unit`.
                let last = u.partition_point(|&x| x <= unit).checked_sub(1).map(|i| u[i]);
                assert_eq!(
                    last_unit_at_or_before(&body, u.len(), unit).unwrap(),
                    last,
                    "unit {unit} of {} rows",
                    u.len()
                );
            }
        }
        assert!(paged_records > 20, "only {paged_records} records were paged");
        assert!(
            linear_records > 20,
            "only {linear_records} records had a progression"
        );
    }

    /// A span read (`Select::Span`, a scan whose window cuts the bucket) hands out exactly
    /// the rows a full decode holds at offsets in the span, as columns and as rows, with their
    /// offsets alone: paged or not, runs of one offset across pages, spans between and past
    /// them.
    #[test]
    fn a_span_read_picks_the_rows_a_full_decode_holds_in_it() {
        let schema = Schema::parse_spec(SPEC).unwrap();
        let layout = RecordLayout::new(&schema);
        let mut rng = Rng(0x5BA7_0001);
        let (mut units, mut all_units, mut all_rows) = (Vec::new(), Vec::new(), Vec::new());
        let mut parts = Vec::new();
        let (mut partial_pages, mut linear_records) = (0, 0);
        for k in 0..150 {
            let (mut u, r) = case(&mut rng, &schema);
            if k % 3 == 0 && !u.is_empty() {
                // Long runs of equal offsets, so runs cross pages.
                let span = u.len() as u64 / 40 + 1;
                for (i, x) in u.iter_mut().enumerate() {
                    *x = i as u64 / span * 5;
                }
            } else if k % 6 == 1 {
                // A regular series (a progression, computed for the span alone), or all rows
                // at one offset.
                let step = [0, 1, 7][k / 6 % 3];
                for (i, x) in u.iter_mut().enumerate() {
                    *x = 3 + step * i as u64;
                }
            }
            let mut body = Vec::new();
            encode(&layout, &u, &r, &mut body, k % 4 != 3);
            linear_records += usize::from(k % 4 != 3 && body.get(5) == Some(&(Codec::Linear as u8)));
            decode(&layout, &body, u.len(), &mut all_units, &mut all_rows).unwrap();
            let mut bounds: Vec<u64> = u.iter().flat_map(|&x| [x, x + 1, x.saturating_sub(1)]).collect();
            bounds.extend([0, u64::MAX]);
            bounds.sort_unstable();
            bounds.dedup();
            for _ in 0..12 {
                let mut pick = || bounds[rng.below(bounds.len() as u64) as usize];
                let (a, b) = (pick(), pick());
                let (from, to) = (a.min(b), a.max(b));
                let picked = decode_columns(
                    &layout,
                    &body,
                    u.len(),
                    &mut units,
                    &mut parts,
                    None,
                    Select::Span(from, to),
                    None,
                )
                .unwrap();
                let want = u.partition_point(|&x| x < from)..u.partition_point(|&x| x < to);
                let at = |r: Range<usize>| if r.is_empty() { 0..0 } else { r };
                assert_eq!(
                    at(picked),
                    at(want.clone()),
                    "span {from}..{to} of {} rows",
                    u.len()
                );
                assert_eq!(units, &u[want.clone()]);
                if want.is_empty() {
                    continue;
                }
                partial_pages += usize::from(want.len() + PAGE_VALUES < u.len());
                let times: Vec<i64> = units.iter().map(|&x| x as i64).collect();
                let mut back = Vec::new();
                crate::db::Columns::new(&times, &layout, &parts, 0).rows_into(&mut back);
                let row_len = layout.row_len;
                assert_eq!(back, &all_rows[want.start * row_len..want.end * row_len]);
                // As rows (a scan's rows of the window): the same rows, the same offsets.
                let mut rows = Vec::new();
                let picked = decode_selected(
                    &layout,
                    &body,
                    u.len(),
                    &mut units,
                    &mut rows,
                    None,
                    Select::Span(from, to),
                )
                .unwrap();
                assert_eq!((picked, &units[..]), (want.clone(), &u[want.clone()]));
                assert_eq!(rows, &all_rows[want.start * row_len..want.end * row_len]);
            }
        }
        assert!(partial_pages > 100, "only {partial_pages} spans left pages out");
        assert!(
            linear_records > 10,
            "only {linear_records} records had a progression"
        );
    }

    /// A coarse reader (`Coarse`) gets every value column as a full decode has it, and time
    /// offsets that are the true ones wherever its predicate tells them apart: a page it says
    /// need not be told apart reads as its first offset (so is not decoded), any other exactly;
    /// the offsets stay in order.
    #[test]
    fn a_coarse_read_tells_apart_the_offsets_it_is_asked_to() {
        let schema = Schema::parse_spec(SPEC).unwrap();
        let layout = RecordLayout::new(&schema);
        let mut rng = Rng(0x00C0_A25E);
        let (mut units, mut parts, mut all_units, mut all_parts) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut skipped_pages = 0;
        for k in 0..60 {
            let (mut u, r) = case(&mut rng, &schema);
            if u.len() <= PAGE_VALUES {
                continue;
            }
            // Offsets spread over the bucket, with runs of one offset across pages.
            for (i, x) in u.iter_mut().enumerate() {
                *x = (i as u64 / (1 + k % 3)) * 3;
            }
            let last = u[u.len() - 1] + 10;
            let mut body = Vec::new();
            encode(&layout, &u, &r, &mut body, true);
            if body.get(5) != Some(&(Codec::PcoPages as u8)) {
                continue;
            }
            decode_columns(
                &layout,
                &body,
                u.len(),
                &mut all_units,
                &mut all_parts,
                None,
                Select::All,
                None,
            )
            .unwrap();
            assert_eq!(all_units, u);
            // Cells of a few pages, and the edges of a window.
            let cell = 2000 + 997 * (k % 5);
            let (lo, hi) = (u[u.len() / 5], u[u.len() * 4 / 5]);
            let same = |a: u64, b: u64| a >= lo && b < hi && a / cell == b / cell;
            let coarse = Coarse { same: &same, last };
            decode_columns(
                &layout,
                &body,
                u.len(),
                &mut units,
                &mut parts,
                None,
                Select::All,
                Some(coarse),
            )
            .unwrap();
            assert_eq!(parts, all_parts, "value columns of record {k}");
            assert_eq!(units.len(), u.len());
            assert!(units.windows(2).all(|w| w[0] <= w[1]), "offsets in order");
            for (page, rows) in u.chunks(PAGE_VALUES).enumerate() {
                let at = page * PAGE_VALUES;
                let next = u.get(at + PAGE_VALUES).copied().unwrap_or(last);
                let got = &units[at..at + rows.len()];
                if same(rows[0], next) {
                    skipped_pages += 1;
                    assert!(got.iter().all(|&x| x == rows[0]), "page {page} of record {k}");
                    assert!(rows.iter().all(|&x| same(rows[0], x)), "a page in one cell");
                } else {
                    assert_eq!(got, rows, "page {page} of record {k}");
                }
            }
        }
        assert!(skipped_pages > 10, "only {skipped_pages} pages were not decoded");
    }

    /// Every byte flipped, every cut and wrong row counts: an error or (rarely, where a
    /// payload byte changes a value) other rows, never a panic or an allocation past the
    /// rows asked for.
    #[test]
    fn a_damaged_record_is_an_error_never_a_panic() {
        let schema = Schema::parse_spec(SPEC).unwrap();
        let layout = RecordLayout::new(&schema);
        let mut rng = Rng(7);
        let (mut units, mut rows) = (Vec::new(), Vec::new());
        for _ in 0..40 {
            let (mut u, mut r) = case(&mut rng, &schema);
            // Small records: every cut of each is decoded.
            u.truncate(200);
            r.truncate(200 * schema.row_len());
            let mut body = Vec::new();
            encode(&layout, &u, &r, &mut body, rng.below(2) == 0);
            for cut in 0..body.len() {
                assert!(decode(&layout, &body[..cut], u.len(), &mut units, &mut rows).is_err());
            }
            let unit = u.get(rng.below(u.len() as u64) as usize).copied().unwrap_or(0);
            decode_flipped(&mut rng, &layout, &body, u.len(), unit, 100);
            for n in [u.len() + 1, u.len().saturating_sub(1), u.len() * 2 + 3] {
                if n != u.len() {
                    assert!(
                        decode(&layout, &body, n, &mut units, &mut rows).is_err(),
                        "n = {n}"
                    );
                }
            }
        }
    }

    /// Decodes `times` copies of `body`, each with one bit flipped, whole and at `unit`: any
    /// outcome but a panic (or a huge allocation) passes.
    fn decode_flipped(rng: &mut Rng, layout: &RecordLayout, body: &[u8], n: usize, unit: u64, times: usize) {
        let (mut units, mut rows) = (Vec::new(), Vec::new());
        for _ in 0..times {
            let mut bad = body.to_vec();
            let at = rng.below(bad.len() as u64) as usize;
            bad[at] ^= 1 << rng.below(8);
            let _ = decode(layout, &bad, n, &mut units, &mut rows);
            let _ = decode_selected(layout, &bad, n, &mut units, &mut rows, None, Select::At(unit));
            let _ = last_unit_at_or_before(&bad, n, unit);
        }
    }

    /// The same for paged records (more than a page of rows): every cut, flipped bits in the
    /// page tables, the pco metadata and the pages, for full and point reads.
    #[test]
    fn a_damaged_paged_record_is_an_error_never_a_panic() {
        let schema = Schema::parse_spec(SPEC).unwrap();
        let layout = RecordLayout::new(&schema);
        let mut rng = Rng(11);
        let (mut units, mut rows) = (Vec::new(), Vec::new());
        let mut paged = 0;
        while paged < 6 {
            let (mut u, mut r) = case(&mut rng, &schema);
            // Two or three pages: enough for every part of a paged stream, quick to cut.
            u.truncate(2 * PAGE_VALUES + 200);
            r.truncate(u.len() * schema.row_len());
            let mut body = Vec::new();
            encode(&layout, &u, &r, &mut body, true);
            if u.len() <= PAGE_VALUES || body.get(5) != Some(&(Codec::PcoPages as u8)) {
                continue;
            }
            paged += 1;
            let unit = u[u.len() / 2];
            for cut in (0..body.len()).step_by(5) {
                assert!(decode(&layout, &body[..cut], u.len(), &mut units, &mut rows).is_err());
                let _ = last_unit_at_or_before(&body[..cut], u.len(), unit);
                assert!(decode_selected(
                    &layout,
                    &body[..cut],
                    u.len(),
                    &mut units,
                    &mut rows,
                    None,
                    Select::At(unit)
                )
                .is_err());
            }
            decode_flipped(&mut rng, &layout, &body, u.len(), unit, 300);
        }
    }

    #[test]
    fn repeated_and_regular_columns_shrink() {
        let schema = Schema::parse_spec("price:dec(2),qty:f64,side:sym").unwrap();
        let layout = RecordLayout::new(&schema);
        let n = 2000;
        let units: Vec<u64> = (0..n).map(|k| k * 3).collect();
        let mut rows = Vec::new();
        for k in 0..n {
            let mut row = schema.new_row();
            row[0] = 1;
            schema.set_field_bytes(&mut row, 0, &(6_000_000 + (k as i64 % 17)).to_le_bytes());
            schema.set_field_bytes(&mut row, 1, &(0.25 * (k % 5) as f64).to_le_bytes());
            schema.set_field_bytes(&mut row, 2, &((k % 2) as u32).to_le_bytes());
            rows.extend_from_slice(&row);
        }
        let mut body = Vec::new();
        encode(&layout, &units, &rows, &mut body, true);
        let raw = 1 + n as usize * (2 + schema.row_len());
        assert!(body.len() * 8 < raw, "{} bytes against {raw} raw", body.len());
    }
}

/// Footprint estimates on gen.py's files (issue 16's "choose the bucket width"): run by hand,
/// `XS_CODEC_CSV=trades.csv XS_CODEC_SPEC=... cargo test --release --lib codec::estimate -- --ignored --nocapture`.
#[cfg(test)]
mod estimate {
    use super::*;

    #[test]
    #[ignore]
    fn footprint_by_bucket_width() {
        let path = std::env::var("XS_CODEC_CSV").expect("XS_CODEC_CSV");
        let spec = std::env::var("XS_CODEC_SPEC").expect("XS_CODEC_SPEC");
        let schema = Schema::parse_spec(&spec).unwrap();
        let layout = RecordLayout::new(&schema);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut times = Vec::new();
        let mut rows = Vec::new();
        for line in text.lines().skip(1) {
            let mut fields = line.split(',');
            let t = fields.next().unwrap();
            let t_ms: i64 = t.parse().unwrap_or_else(|_| {
                chrono::DateTime::parse_from_rfc3339(t)
                    .unwrap()
                    .timestamp_millis()
            });
            let mut row = schema.new_row();
            row[0] = 1;
            for (i, f) in fields.enumerate() {
                if f.is_empty() {
                    schema.set_null(&mut row, i);
                } else {
                    schema.set_field(&mut row, i, f).unwrap();
                }
            }
            times.push(t_ms);
            rows.extend_from_slice(&row);
        }
        let csv_len = text.len() as f64;
        let n = times.len();
        for width_ms in [1_000i64, 5_000, 60_000, 600_000, 3_600_000] {
            let (mut total, mut records, mut k) = (0usize, 0usize, 0usize);
            let mut body = Vec::new();
            let mut bodies: Vec<(usize, Vec<u8>)> = Vec::new();
            let started = std::time::Instant::now();
            while k < n {
                let b = times[k].div_euclid(width_ms);
                let mut e = k;
                while e < n && times[e].div_euclid(width_ms) == b {
                    e += 1;
                }
                let units: Vec<u64> = times[k..e].iter().map(|&t| (t - b * width_ms) as u64).collect();
                body.clear();
                encode(
                    &layout,
                    &units,
                    &rows[k * layout.row_len..e * layout.row_len],
                    &mut body,
                    std::env::var_os("XS_CODEC_UNPAGED").is_none(),
                );
                // + 4-byte record check + directory entry (32 + 16 per summarized column).
                total += body.len() + 4 + 32 + 16 * 3;
                records += 1;
                if records % 16 == 1 {
                    bodies.push((e - k, body.clone()));
                }
                k = e;
            }
            println!(
                "{width_ms:>8} ms buckets: {records:>8} records, {:.3} of the CSV, {:.2} bytes a row, encoded in {:.2?}",
                total as f64 / csv_len,
                total as f64 / n as f64,
                started.elapsed()
            );
            let (mut units, mut out) = (Vec::new(), Vec::new());
            let started = std::time::Instant::now();
            for (rows_in, b) in &bodies {
                decode(&layout, b, *rows_in, &mut units, &mut out).unwrap();
            }
            println!(
                "          decode: {:.1} µs a record (mean of {})",
                started.elapsed().as_secs_f64() * 1e6 / bodies.len() as f64,
                bodies.len()
            );
        }
    }
}
