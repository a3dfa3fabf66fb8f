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
}

impl Codec {
    fn from_byte(b: u8) -> Option<Codec> {
        Some(match b {
            0 => Codec::Raw,
            1 => Codec::Constant,
            2 => Codec::Zstd,
            3 => Codec::Pco,
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
/// `units.len()` rows of `layout.row_len` bytes) to `out`.
pub fn encode(layout: &RecordLayout, units: &[u64], rows: &[u8], out: &mut Vec<u8>) {
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
    encode_stream(Number::U64, 8, n, &column, out);
    for part in &layout.parts {
        column.clear();
        for row in rows.chunks_exact(layout.row_len) {
            column.extend_from_slice(&row[part.offset..part.offset + part.width]);
        }
        encode_stream(part.number, part.width, n, &column, out);
    }
}

/// Appends one stream of `n` values of `width` bytes (`raw`, back to back): the smallest of
/// the encodings tried.
fn encode_stream(number: Number, width: usize, n: usize, raw: &[u8], out: &mut Vec<u8>) {
    let (codec, payload): (Codec, std::borrow::Cow<[u8]>) = if width == 0 || n == 0 {
        (Codec::Raw, raw.into())
    } else if raw.chunks_exact(width).all(|v| v == &raw[..width]) {
        (Codec::Constant, raw[..width].into())
    } else if n < MIN_COMPRESSED {
        (Codec::Raw, raw.into())
    } else {
        let packed = match number {
            Number::Bytes => zstd::bulk::compress(raw, ZSTD_LEVEL)
                .ok()
                .map(|p| (Codec::Zstd, p)),
            _ => pco_compress(number, raw).map(|p| (Codec::Pco, p)),
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

macro_rules! numbers_of {
    ($raw:expr, $t:ty) => {
        $raw.chunks_exact(std::mem::size_of::<$t>())
            .map(|c| <$t>::from_le_bytes(c.try_into().expect("chunks of the type's size")))
            .collect::<Vec<$t>>()
    };
}

fn pco_compress(number: Number, raw: &[u8]) -> Option<Vec<u8>> {
    let config = pco::ChunkConfig::default().with_compression_level(PCO_LEVEL);
    let packed = match number {
        Number::I16 => pco::standalone::simple_compress(&numbers_of!(raw, i16), &config),
        Number::I32 => pco::standalone::simple_compress(&numbers_of!(raw, i32), &config),
        Number::I64 => pco::standalone::simple_compress(&numbers_of!(raw, i64), &config),
        Number::U16 => pco::standalone::simple_compress(&numbers_of!(raw, u16), &config),
        Number::U32 => pco::standalone::simple_compress(&numbers_of!(raw, u32), &config),
        Number::U64 => pco::standalone::simple_compress(&numbers_of!(raw, u64), &config),
        Number::F32 => pco::standalone::simple_compress(&numbers_of!(raw, f32), &config),
        Number::F64 => pco::standalone::simple_compress(&numbers_of!(raw, f64), &config),
        Number::Bytes => return None,
    };
    packed.ok()
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

/// Decodes the `n` values of a pco stream and hands `use_values` their `n × width`
/// little-endian bytes, straight from the decoder's buffer on a little-endian machine.
fn with_pco_values<R>(
    number: Number,
    payload: &[u8],
    n: usize,
    use_values: impl FnOnce(&[u8]) -> R,
) -> Result<R, String> {
    macro_rules! go {
        ($t:ident) => {{
            PCO_SCRATCH.with_borrow_mut(|scratch| {
                let mut own = Vec::new();
                let buf = if n <= PCO_SCRATCH_VALUES {
                    &mut scratch.$t
                } else {
                    &mut own
                };
                if buf.len() < n {
                    buf.resize(n, <$t>::default());
                }
                let values = &mut buf[..n];
                let progress = pco::standalone::simple_decompress_into(payload, values)
                    .map_err(|e| format!("pco: {}", e.message))?;
                if progress.n_processed != n || !progress.finished {
                    return Err(format!(
                        "pco stream holds {} values, not {n}",
                        progress.n_processed
                    ));
                }
                let w = std::mem::size_of::<$t>();
                if cfg!(target_endian = "little") {
                    // SAFETY: `values` is `n` initialized numbers, read as their `n × w`
                    // bytes, which on a little-endian machine are the stream's bytes; u8 has
                    // no alignment.
                    let bytes = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), n * w) };
                    Ok(use_values(bytes))
                } else {
                    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                    Ok(use_values(&bytes))
                }
            })
        }};
    }
    match number {
        Number::I16 => go!(i16),
        Number::I32 => go!(i32),
        Number::I64 => go!(i64),
        Number::U16 => go!(u16),
        Number::U32 => go!(u32),
        Number::U64 => go!(u64),
        Number::F32 => go!(f32),
        Number::F64 => go!(f64),
        Number::Bytes => Err("a pco stream where text is stored".into()),
    }
}

/// Reads the streams of a columnar body.
struct Streams<'a> {
    body: &'a [u8],
    at: usize,
}

impl<'a> Streams<'a> {
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

/// Decodes one stream of `n` values of `width` bytes and hands `use_values` their bytes: a
/// pco stream's from the decoder's own buffer, the others' decoded into `column`.
fn with_stream<R>(
    codec: Codec,
    payload: &[u8],
    number: Number,
    n: usize,
    width: usize,
    column: &mut Vec<u8>,
    use_values: impl FnOnce(&[u8]) -> R,
) -> Result<R, String> {
    if codec == Codec::Pco {
        return with_pco_values(number, payload, n, use_values);
    }
    column.resize(n * width, 0);
    decode_stream(codec, payload, n, width, column)?;
    Ok(use_values(column))
}

/// Decodes one raw, constant or zstd stream of `n` values of `width` bytes into `dst`
/// (exactly `n × width` bytes).
fn decode_stream(codec: Codec, payload: &[u8], n: usize, width: usize, dst: &mut [u8]) -> Result<(), String> {
    match codec {
        Codec::Raw => {
            if payload.len() != dst.len() {
                return Err(format!("{} raw bytes for {n} values of {width}", payload.len()));
            }
            dst.copy_from_slice(payload);
        }
        Codec::Constant => {
            if payload.len() != width {
                return Err(format!(
                    "a constant of {} bytes for values of {width}",
                    payload.len()
                ));
            }
            for v in dst.chunks_exact_mut(width.max(1)) {
                v.copy_from_slice(payload);
            }
        }
        Codec::Zstd => {
            // Into a buffer of exactly the expected size: a frame that would grow past it is
            // an error, never an allocation it asks for.
            let written = zstd::bulk::decompress_to_buffer(payload, dst).map_err(|e| format!("zstd: {e}"))?;
            if written != dst.len() {
                return Err(format!("zstd gave {written} bytes for {n} values of {width}"));
            }
        }
        Codec::Pco => return Err("a pco stream decoded as bytes".into()),
    }
    Ok(())
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
    decode_selected(layout, body, n, units, rows, None, |_| 0..n).map(|_| ())
}

/// Like `decode`, but rebuilds only the rows `select` picks once it has seen the time offsets
/// (a point read: the rows at one offset), and of the value columns only those `columns`
/// marks (`None`: all; the others are left zero, their null bits as stored); returns the
/// picked range. Every stream's header is checked, and every stream rebuilt is decoded whole.
pub fn decode_selected(
    layout: &RecordLayout,
    body: &[u8],
    n: usize,
    units: &mut Vec<u64>,
    rows: &mut Vec<u8>,
    columns: Option<&[bool]>,
    select: impl FnOnce(&[u64]) -> Range<usize>,
) -> Result<Range<usize>, Corrupt> {
    units.clear();
    rows.clear();
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
    if decoded_len(layout, n).is_none() {
        return Err(Corrupt(format!(
            "its {n} rows would decode past the {MAX_DECODED_BYTES}-byte bound of a columnar record"
        )));
    }
    let mut streams = Streams { body, at: 5 };
    let mut column = Vec::new();
    let (codec, payload) = streams.next("time offsets")?;
    with_stream(codec, payload, Number::U64, n, 8, &mut column, |bytes| {
        units.extend(
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))),
        )
    })
    .map_err(|e| Corrupt(format!("its time offsets: {e}")))?;
    let picked = select(units);
    let picked = picked.start.min(n)..picked.end.min(n).max(picked.start.min(n));
    rows.resize(picked.len() * layout.row_len, 0);
    for (i, part) in layout.parts.iter().enumerate() {
        let what = if i == 0 {
            "row flags".to_string()
        } else {
            format!("column {}", i - 1)
        };
        let (codec, payload) = streams.next(&what)?;
        // Part 0 is the row flags, always rebuilt; part i > 0 is value column i - 1.
        if i > 0 && columns.is_some_and(|wanted| !wanted.get(i - 1).copied().unwrap_or(true)) {
            continue;
        }
        let picked = picked.clone();
        with_stream(codec, payload, part.number, n, part.width, &mut column, |all| {
            let values = &all[picked.start * part.width..picked.end * part.width];
            // One loop per width: a fixed-size copy is a load and a store, a variable one a call.
            match part.width {
                0 => {}
                1 => scatter::<1>(values, rows, layout.row_len, part.offset),
                2 => scatter::<2>(values, rows, layout.row_len, part.offset),
                4 => scatter::<4>(values, rows, layout.row_len, part.offset),
                8 => scatter::<8>(values, rows, layout.row_len, part.offset),
                w => {
                    for (row, v) in rows.chunks_exact_mut(layout.row_len).zip(values.chunks_exact(w)) {
                        row[part.offset..part.offset + w].copy_from_slice(v);
                    }
                }
            }
        })
        .map_err(|e| Corrupt(format!("its {what}: {e}")))?;
    }
    if streams.at != body.len() {
        return Err(Corrupt(format!(
            "{} bytes past its last column",
            body.len() - streams.at
        )));
    }
    Ok(picked)
}

/// Writes `values` (`W` bytes each) into consecutive rows of `rows` at `offset`.
fn scatter<const W: usize>(values: &[u8], rows: &mut [u8], row_len: usize, offset: usize) {
    for (row, v) in rows.chunks_exact_mut(row_len).zip(values.chunks_exact(W)) {
        let v: &[u8; W] = v.try_into().expect("chunks of W bytes");
        row[offset..offset + W].copy_from_slice(v);
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
        for _ in 0..300 {
            let (u, r) = case(&mut rng, &schema);
            let mut body = Vec::new();
            encode(&layout, &u, &r, &mut body);
            decode(&layout, &body, u.len(), &mut units, &mut rows).unwrap();
            assert_eq!((&units, &rows), (&u, &r));
        }
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
            encode(&layout, &u, &r, &mut body);
            for cut in 0..body.len() {
                assert!(decode(&layout, &body[..cut], u.len(), &mut units, &mut rows).is_err());
            }
            for _ in 0..100 {
                let mut bad = body.clone();
                let at = rng.below(bad.len() as u64) as usize;
                bad[at] ^= 1 << rng.below(8);
                let _ = decode(&layout, &bad, u.len(), &mut units, &mut rows);
            }
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
        encode(&layout, &units, &rows, &mut body);
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
