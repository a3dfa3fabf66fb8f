//! CSV at the byte level: finding record ends (quotes respected) and splitting a record into
//! fields without allocating per row. A quote opens a quoted field only at the start of a field
//! (after a space it is data, as RFC 4180 and most readers have it: a ditto mark ` "` must not
//! swallow the lines after it); inside one, `""` is a literal quote and delimiters and line
//! ends are data. A `\r` before a line end is dropped (CRLF).

use memchr::{memchr, memchr2, memchr3, memrchr};

/// Finds record ends in a byte stream; resumable across buffers (for skipping a huge record).
#[derive(Clone, Debug)]
pub struct RecordScanner {
    delimiter: u8,
    in_quotes: bool,
    at_field_start: bool,
    /// In quotes, the previous buffer ended with a quote: closing, or the first of `""`.
    quote_pending: bool,
}

impl RecordScanner {
    /// A scanner positioned at the start of a record.
    pub fn new(delimiter: u8) -> RecordScanner {
        RecordScanner {
            delimiter,
            in_quotes: false,
            at_field_start: true,
            quote_pending: false,
        }
    }

    /// Index just past the last record-ending `\n` in `buf` (which starts at a record start).
    pub fn last_record_end(&mut self, buf: &[u8]) -> Option<usize> {
        if !self.in_quotes && !self.quote_pending && memchr(b'"', buf).is_none() {
            return memrchr(b'\n', buf).map(|p| p + 1);
        }
        self.scan(buf, false)
    }

    /// Index just past the first record-ending `\n` in `buf`, continuing from earlier buffers.
    pub fn first_record_end(&mut self, buf: &[u8]) -> Option<usize> {
        self.scan(buf, true)
    }

    fn scan(&mut self, buf: &[u8], stop_at_first: bool) -> Option<usize> {
        let n = buf.len();
        let mut last = None;
        let mut i = 0;
        if self.quote_pending && n > 0 {
            self.quote_pending = false;
            if buf[0] == b'"' {
                i = 1;
            } else {
                self.in_quotes = false;
                self.at_field_start = false;
            }
        }
        while i < n {
            if self.in_quotes {
                let Some(k) = memchr(b'"', &buf[i..]) else {
                    return last;
                };
                let q = i + k;
                if q + 1 == n {
                    self.quote_pending = true;
                    return last;
                }
                if buf[q + 1] == b'"' {
                    i = q + 2;
                } else {
                    self.in_quotes = false;
                    self.at_field_start = false;
                    i = q + 1;
                }
                continue;
            }
            if self.at_field_start && buf[i] == b'"' {
                self.in_quotes = true;
                self.at_field_start = false;
                i += 1;
                continue;
            }
            let Some(k) = memchr3(b'"', self.delimiter, b'\n', &buf[i..]) else {
                self.at_field_start = false;
                return last;
            };
            let p = i + k;
            match buf[p] {
                b'\n' => {
                    self.at_field_start = true;
                    last = Some(p + 1);
                    if stop_at_first {
                        return last;
                    }
                }
                b'"' => self.at_field_start = false,
                _ => self.at_field_start = true,
            }
            i = p + 1;
        }
        last
    }
}

/// One field of a split record: a byte range of the chunk, or of the scratch buffer when the
/// field was quoted (and so unescaped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub start: u32,
    pub end: u32,
    pub quoted: bool,
    /// Quoted, and the quote is never closed: the field runs to the end of the data (a stray
    /// quote that would swallow every line after it).
    pub unclosed: bool,
}

impl Field {
    pub fn bytes<'a>(&self, data: &'a [u8], scratch: &'a [u8]) -> &'a [u8] {
        let src = if self.quoted { scratch } else { data };
        &src[self.start as usize..self.end as usize]
    }
}

/// Where a record lies in its chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordSpan {
    pub start: usize,
    /// End of the record's text, line end excluded.
    pub end: usize,
    /// Start of the next record.
    pub next: usize,
}

/// Splits the record starting at `start` (which is `< data.len()`) into `fields`; quoted fields
/// are unescaped into `scratch`. Offsets must fit u32 (chunks are far smaller).
pub fn split_record(
    data: &[u8],
    start: usize,
    delimiter: u8,
    fields: &mut Vec<Field>,
    scratch: &mut Vec<u8>,
) -> RecordSpan {
    fields.clear();
    scratch.clear();
    let n = data.len();
    let mut i = start;
    loop {
        if i < n && data[i] == b'"' {
            let s = scratch.len();
            i += 1;
            let mut unclosed = false;
            loop {
                match memchr(b'"', &data[i..]) {
                    None => {
                        scratch.extend_from_slice(&data[i..]);
                        i = n;
                        unclosed = true;
                        break;
                    }
                    Some(k) => {
                        scratch.extend_from_slice(&data[i..i + k]);
                        i += k + 1;
                        if i < n && data[i] == b'"' {
                            scratch.push(b'"');
                            i += 1;
                        } else {
                            break;
                        }
                    }
                }
            }
            // Bytes between the closing quote and the delimiter are kept, as most readers do.
            let j = memchr2(delimiter, b'\n', &data[i..]).map_or(n, |k| i + k);
            scratch.extend_from_slice(&data[i..trim_cr(data, i, j)]);
            fields.push(Field {
                start: s as u32,
                end: scratch.len() as u32,
                quoted: true,
                unclosed,
            });
            i = j;
        } else {
            // Fields are short: a plain loop beats a vectorised search here.
            let mut j = i;
            while j < n && data[j] != delimiter && data[j] != b'\n' {
                j += 1;
            }
            let end = trim_cr(data, i, j);
            match spaced_quotes(&data[i..end], delimiter) {
                Some(inner) => {
                    let s = scratch.len();
                    unescape_into(inner, scratch);
                    fields.push(Field {
                        start: s as u32,
                        end: scratch.len() as u32,
                        quoted: true,
                        unclosed: false,
                    });
                }
                None => fields.push(Field {
                    start: i as u32,
                    end: end as u32,
                    quoted: false,
                    unclosed: false,
                }),
            }
            i = j;
        }
        if i >= n {
            return RecordSpan {
                start,
                end: trim_cr(data, start, n),
                next: n,
            };
        }
        if data[i] == delimiter {
            i += 1;
            continue;
        }
        return RecordSpan {
            start,
            end: trim_cr(data, start, i),
            next: i + 1,
        };
    }
}

/// Splits the records of a chunk that holds no quote at all: delimiters and line ends are
/// found 16 bytes at a time (SSE2 on x86-64, else 8 with SWAR), with no call per field.
pub struct PlainSplitter<'a> {
    data: &'a [u8],
    delimiter: u8,
    /// Start of the block whose hits are in `mask`.
    word_at: usize,
    /// Next byte to load.
    next: usize,
    /// One bit per matching byte of the current block (bit k: byte `word_at + k`).
    mask: u64,
}

const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const ONES: u64 = 0x0101_0101_0101_0101;

/// 0x80 in every byte of `x` that is zero, exactly (no false positives).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7)
}

/// The bytes of `block` (up to 8) equal to `a` or `b`, one bit each (bit k: byte k).
#[inline]
fn hits_swar(block: &[u8], a: u8, b: u8) -> u64 {
    let mut word = [0u8; 8];
    let take = block.len().min(8);
    word[..take].copy_from_slice(&block[..take]);
    let v = u64::from_le_bytes(word);
    let high = zero_bytes(v ^ (u64::from(a) * ONES)) | zero_bytes(v ^ (u64::from(b) * ONES));
    // Gather the 0x80 bits, one per byte, into the low 8 bits; padding bytes are zero and
    // may have matched, so only `take` bits count.
    let bits = ((high >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
    bits & ((1u64 << take) - 1)
}

/// The bytes of the 16 at `block` equal to `a` or `b`, one bit each (bit k: byte k).
#[cfg(target_arch = "x86_64")]
#[inline]
fn hits_16(block: &[u8; 16], a: u8, b: u8) -> u64 {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of every x86-64 CPU; the load reads the 16 bytes `block` borrows,
    // unaligned loads allowed.
    unsafe {
        let v = _mm_loadu_si128(block.as_ptr().cast());
        let m = _mm_or_si128(
            _mm_cmpeq_epi8(v, _mm_set1_epi8(a as i8)),
            _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8)),
        );
        u64::from(_mm_movemask_epi8(m) as u16)
    }
}

impl<'a> PlainSplitter<'a> {
    /// A splitter over `data[start..]`, which must hold no `"`.
    pub fn new(data: &'a [u8], start: usize, delimiter: u8) -> PlainSplitter<'a> {
        PlainSplitter {
            data,
            delimiter,
            word_at: start,
            next: start,
            mask: 0,
        }
    }

    /// Position of the next delimiter or line end.
    #[inline]
    fn next_hit(&mut self) -> Option<usize> {
        loop {
            if self.mask != 0 {
                let at = self.word_at + self.mask.trailing_zeros() as usize;
                self.mask &= self.mask - 1;
                return Some(at);
            }
            let rest = self.data.get(self.next..).filter(|r| !r.is_empty())?;
            self.word_at = self.next;
            #[cfg(target_arch = "x86_64")]
            if let Some(block) = rest.first_chunk::<16>() {
                self.mask = hits_16(block, self.delimiter, b'\n');
                self.next += 16;
                continue;
            }
            self.mask = hits_swar(rest, self.delimiter, b'\n');
            self.next += rest.len().min(8);
        }
    }

    /// Splits the record at `start`, the position right after the previous record.
    // Always inlined into the import's per-row loop: called, it keeps its state in memory
    // instead of registers, and the whole parse took a third more CPU.
    #[inline(always)]
    pub fn next_record(&mut self, start: usize, fields: &mut Vec<Field>) -> RecordSpan {
        fields.clear();
        let data = self.data;
        let mut field_start = start;
        while let Some(p) = self.next_hit() {
            if data[p] == self.delimiter {
                fields.push(Field {
                    start: field_start as u32,
                    end: p as u32,
                    quoted: false,
                    unclosed: false,
                });
                field_start = p + 1;
            } else {
                fields.push(Field {
                    start: field_start as u32,
                    end: trim_cr(data, field_start, p) as u32,
                    quoted: false,
                    unclosed: false,
                });
                return RecordSpan {
                    start,
                    end: trim_cr(data, start, p),
                    next: p + 1,
                };
            }
        }
        let n = data.len();
        fields.push(Field {
            start: field_start as u32,
            end: trim_cr(data, field_start, n) as u32,
            quoted: false,
            unclosed: false,
        });
        RecordSpan {
            start,
            end: trim_cr(data, start, n),
            next: n,
        }
    }
}

/// A record without data: a blank line, only delimiters (`;;;;`), or only spaces and tabs
/// between them (an editor's indented empty line), which would otherwise be rejected as a
/// row of one field.
#[inline]
pub fn is_blank(fields: &[Field], data: &[u8], scratch: &[u8]) -> bool {
    // Most records start with a digit or a letter: their first byte decides.
    fields
        .iter()
        .all(|f| f.bytes(data, scratch).iter().all(|&c| c == b' ' || c == b'\t'))
}

/// The inside of a field written ` "Paris" ` (after spaces a quote is text to CSV): a whole
/// quoted value on one line, without the delimiter in it (that splits the field before this is
/// asked) and with its inner quotes doubled. Such a field is read as quoted, as the writer
/// meant; anything else stays as written.
fn spaced_quotes(field: &[u8], delimiter: u8) -> Option<&[u8]> {
    let pad = |c: &u8| (*c == b' ' || *c == b'\t') && *c != delimiter;
    let start = field.iter().position(|c| !pad(c))?;
    if start == 0 {
        return None;
    }
    let end = field.iter().rposition(|c| !pad(c))? + 1;
    let quoted = &field[start..end];
    let inner = quoted.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    // Inner quotes come in pairs (`""`), none alone.
    let mut k = 0;
    while k < inner.len() {
        if inner[k] == b'"' {
            if inner.get(k + 1) != Some(&b'"') {
                return None;
            }
            k += 1;
        }
        k += 1;
    }
    Some(inner)
}

/// Appends `inner` to `out` with each `""` made one `"`.
fn unescape_into(inner: &[u8], out: &mut Vec<u8>) {
    let mut k = 0;
    while k < inner.len() {
        out.push(inner[k]);
        k += if inner[k] == b'"' { 2 } else { 1 };
    }
}

/// `end`, less one if the range `[from, end)` ends with `\r` at a line end or the data's end.
fn trim_cr(data: &[u8], from: usize, end: usize) -> usize {
    let at_line_end = end == data.len() || data[end] == b'\n';
    if at_line_end && end > from && data[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_all(data: &[u8], delimiter: u8) -> Vec<Vec<String>> {
        let mut fields = Vec::new();
        let mut scratch = Vec::new();
        let mut out = Vec::new();
        let mut at = 0;
        while at < data.len() {
            let span = split_record(data, at, delimiter, &mut fields, &mut scratch);
            out.push(
                fields
                    .iter()
                    .map(|f| String::from_utf8_lossy(f.bytes(data, &scratch)).into_owned())
                    .collect(),
            );
            at = span.next;
        }
        out
    }

    #[test]
    fn fields_split_with_quotes_and_crlf() {
        let data = b"a,\"b,\"\"c\"\"\nd\",e\r\n,,\r\n\"x\"\r\nlast";
        assert_eq!(
            split_all(data, b','),
            vec![
                vec!["a", "b,\"c\"\nd", "e"],
                vec!["", "", ""],
                vec!["x"],
                vec!["last"]
            ]
        );
        assert_eq!(split_all(b"1\t2\n", b'\t'), vec![vec!["1", "2"]]);
    }

    #[test]
    fn a_quote_after_a_space_is_data() {
        let data = b"a, \"x, y\", 1\nb, \", 2\nc, \", 3\n";
        assert_eq!(
            split_all(data, b','),
            vec![
                vec!["a", " \"x", " y\"", " 1"],
                vec!["b", " \"", " 2"],
                vec!["c", " \"", " 3"]
            ]
        );
        // A whole quoted value after spaces, on one line, is read as quoted.
        assert_eq!(
            split_all(b"a, \"Paris\" , \"say \"\"hi\"\"\",\t\"\"\n", b','),
            vec![vec!["a", "Paris", "say \"hi\"", ""]]
        );
        assert_eq!(split_all(b"a, \"x\"y\"\n", b','), vec![vec!["a", " \"x\"y\""]]);
        assert_eq!(RecordScanner::new(b',').first_record_end(data), Some(13));
        assert_eq!(RecordScanner::new(b',').last_record_end(data), Some(data.len()));
    }

    #[test]
    fn plain_splitting_agrees() {
        let data = b"h\na,b,,c\r\n\n1,2,3,4\n\x80\xff,long field of text,\x01\x00\n,,,,,,,,,,\nlast,x";
        let mut plain = PlainSplitter::new(data, 2, b',');
        let (mut f1, mut f2, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        let mut at = 2;
        while at < data.len() {
            let a = plain.next_record(at, &mut f1);
            let b = split_record(data, at, b',', &mut f2, &mut scratch);
            assert_eq!(a, b);
            assert_eq!(f1, f2);
            at = a.next;
        }
    }

    /// Random quote-free chunks of delimiters, line ends, carriage returns and bytes, every
    /// length from 0 to 80 (the 16- and 8-byte blocks and their tails), split both ways.
    #[test]
    fn plain_splitting_agrees_on_random_chunks() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet = [b',', b';', b'\n', b'\r', b'a', b'0', 0x00, 0x80, 0xff, b' '];
        for round in 0..20_000 {
            let len = round % 81;
            let delimiter = if round % 3 == 0 { b';' } else { b',' };
            let data: Vec<u8> = (0..len)
                .map(|_| alphabet[next() as usize % alphabet.len()])
                .collect();
            let mut plain = PlainSplitter::new(&data, 0, delimiter);
            let (mut f1, mut f2, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
            let mut at = 0;
            while at < data.len() {
                let a = plain.next_record(at, &mut f1);
                let b = split_record(&data, at, delimiter, &mut f2, &mut scratch);
                assert_eq!((a, &f1), (b, &f2), "{data:?} at {at}");
                at = a.next;
            }
        }
    }

    #[test]
    fn record_ends_respect_quotes() {
        let data = b"a,\"x\ny\"\nb,c\nd,\"un";
        assert_eq!(RecordScanner::new(b',').last_record_end(data), Some(12));
        assert_eq!(RecordScanner::new(b',').first_record_end(data), Some(8));
        // A quote inside a field is data, not the start of a quoted field.
        assert_eq!(RecordScanner::new(b',').last_record_end(b"5\"x\ny\n"), Some(6));
        // Resuming across buffers, including a quote split from its escape.
        let mut s = RecordScanner::new(b',');
        assert_eq!(s.first_record_end(b"\"ab\""), None);
        assert_eq!(s.first_record_end(b"\"c\n\"\nz"), Some(5));
    }
}
