//! Import inputs: files, directories of files, or stdin, each decompressed as a stream when its
//! first bytes say gzip or zstd; and the chunk reader that cuts a stream into large chunks that
//! end at record ends (quotes respected), with bounded memory even for absurdly long records.

use std::fs::{self, File};
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::scan::RecordScanner;
use crate::error::{Error, Result};

/// One input stream to import, not yet opened.
#[derive(Clone, Debug)]
pub struct Source {
    /// What to call it in messages and the rejects file: the path, or `-` for stdin.
    pub name: String,
    /// `None` for stdin.
    pub path: Option<PathBuf>,
    /// Size on disk in bytes (compressed size for compressed files); 0 for stdin.
    pub len_bytes: u64,
    /// A Parquet or Arrow input, opened (its record batches go to the pipeline as they are).
    pub columnar: Option<std::sync::Arc<crate::import::columnar_in::Input>>,
    /// A pipe named by its path, already opened to read its first bytes.
    pub pipe: Option<PipeSlot>,
}

/// A pipe named by its path (`<(cat f.csv)`, a FIFO) whose first bytes were read to tell
/// Parquet and Arrow from text: those bytes and the open pipe, for the text reader to go on
/// from. A pipe cannot be read twice, and a FIFO's writer fails once its reader closes it.
#[derive(Debug)]
pub struct OpenedPipe {
    pub head: Vec<u8>,
    pub file: File,
}

/// An opened pipe, until the text reader takes it.
pub type PipeSlot = Arc<Mutex<Option<OpenedPipe>>>;

/// Whether a directory's entry named `name` is imported with it: a `.csv` or `.tsv` file,
/// plain or as `.gz` or `.zst`, not hidden (macOS leaves `._NAME.csv` beside each file on some
/// disks: its resource fork, no CSV).
fn imported_from_directory(name: &str) -> bool {
    let name = name.to_lowercase();
    !name.starts_with('.')
        && [".csv", ".csv.gz", ".csv.zst", ".tsv", ".tsv.gz", ".tsv.zst"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

/// The files in the directories among `inputs` that an import of them leaves out (by
/// `imported_from_directory`), in name order, for a warning: nothing is passed over silently
/// but hidden files (`.DS_Store`, macOS's `._NAME.csv`), which no one means to import.
pub fn left_out_of_directories(inputs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in inputs.iter().filter(|p| p.is_dir()) {
        let Ok(entries) = fs::read_dir(dir) else { continue };
        let mut left: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                !name.starts_with('.') && !imported_from_directory(&name)
            })
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        left.sort();
        out.extend(left);
    }
    out
}

/// Expands the command-line inputs: `-` is stdin, a directory contributes its `.csv`,
/// `.csv.gz`, `.csv.zst` (also `.tsv…`) files in name order, anything else is a file.
pub fn sources(inputs: &[PathBuf]) -> Result<Vec<Source>> {
    let mut out = Vec::new();
    for input in inputs {
        if input.as_os_str() == "-" {
            out.push(Source {
                name: "-".into(),
                path: None,
                len_bytes: 0,
                columnar: None,
                pipe: None,
            });
            continue;
        }
        let meta = fs::metadata(input).map_err(|e| Error::io("open", input, e))?;
        if meta.is_dir() {
            let mut files = Vec::new();
            let entries = fs::read_dir(input).map_err(|e| Error::io("read directory", input, e))?;
            for entry in entries {
                let entry = entry.map_err(|e| Error::io("read directory", input, e))?;
                let path = entry.path();
                if imported_from_directory(&entry.file_name().to_string_lossy()) && path.is_file() {
                    files.push(path);
                }
            }
            if files.is_empty() {
                return Err(Error::Invalid(format!(
                    "directory {} holds no .csv or .tsv files (nor .csv.gz, .csv.zst, .tsv.gz, \
                     .tsv.zst); name the files to import them whatever their names",
                    input.display()
                )));
            }
            files.sort();
            for path in files {
                let len_bytes = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
                out.push(Source {
                    name: path.display().to_string(),
                    path: Some(path),
                    len_bytes,
                    columnar: None,
                    pipe: None,
                });
            }
        } else {
            out.push(Source {
                name: input.display().to_string(),
                path: Some(input.clone()),
                len_bytes: meta.len(),
                columnar: None,
                pipe: None,
            });
        }
    }
    refuse_repeats(&out)?;
    Ok(out)
}

/// Bytes of a file's start that `refuse_repeats` hashes to find possible copies.
const HEAD_HASHED: usize = 64 * 1024;

/// One import adds a file's rows at a stored time to the rows there (a day split into two
/// files at a millisecond spanning the cut keeps both parts), so an input given twice would
/// have every row stored twice. Refuses, naming both: a file named twice (`m.csv ./m.csv`, or
/// inside a directory also given), a file beside its compressed self (`m.csv m.csv.gz`), and
/// two files with the same content (a copy under another name, also compressed, or
/// compressed twice) unless their names hold two different dates or they hold one line at
/// most (a header alone).
fn refuse_repeats(sources: &[Source]) -> Result<()> {
    use std::collections::HashMap;
    use std::os::unix::fs::MetadataExt;
    let twice = |a: &Path, b: &Path, why: &str| {
        Err(Error::Invalid(format!(
            "{} and {} {why}: one import of both would store each row twice; import one of them",
            a.display(),
            b.display()
        )))
    };
    let mut by_inode: HashMap<(u64, u64), &Path> = HashMap::new();
    let mut by_stem: HashMap<String, &Path> = HashMap::new();
    // Files by length, in input order: only files of one length can hold the same bytes, so
    // only those are read here (a directory of daily files seldom has two). A compressed
    // file's length says nothing of its content: with one among the inputs, every input's
    // content is compared by the hash of its head.
    let mut by_len: HashMap<u64, Vec<&Path>> = HashMap::new();
    let paths: Vec<&Path> = sources.iter().filter_map(|s| s.path.as_deref()).collect();
    let any_compressed = paths.iter().any(|p| is_compressed_name(p));
    for path in sources.iter().filter_map(|s| s.path.as_deref()) {
        let Ok(meta) = fs::metadata(path) else { continue };
        if let Some(seen) = by_inode.insert((meta.dev(), meta.ino()), path) {
            return twice(seen, path, "are the same file");
        }
        let stem = path.to_string_lossy().to_lowercase();
        let stem = stem.trim_end_matches(".gz").trim_end_matches(".zst").to_string();
        if let Some(seen) = by_stem.insert(stem, path) {
            return twice(
                seen,
                path,
                "look like the same file compressed and not (move one out if they differ)",
            );
        }
        if meta.len() > 0 && meta.is_file() {
            let len = if any_compressed { 0 } else { meta.len() };
            by_len.entry(len).or_default().push(path);
        }
    }
    // Times of day take their date from the file name: the same bytes under two dates are
    // two days' rows.
    let day = |p: &Path| super::dialect::date_in_name(&p.to_string_lossy()).map(|d| d.0);
    for paths in by_len.values().filter(|paths| paths.len() > 1) {
        let mut by_head: HashMap<u32, Vec<&Path>> = HashMap::new();
        for &path in paths {
            let Ok(head) = read_head(path) else { continue };
            // A header alone (an export of an hour without trades) has no rows to store
            // twice: such files share their content whenever they share a header.
            let mut lines = head.split(|&b| b == b'\n').filter(|l| !l.trim_ascii().is_empty());
            if head.len() < HEAD_HASHED && lines.nth(1).is_none() {
                continue;
            }
            let copies = by_head.entry(crc32fast::hash(&head)).or_default();
            for seen in copies.iter() {
                let two_days = matches!((day(seen), day(path)), (Some(a), Some(b)) if a != b);
                if !two_days && same_content(seen, path).unwrap_or(false) {
                    let why = if is_compressed_name(seen) || is_compressed_name(path) {
                        "hold the same rows, compressed or not"
                    } else {
                        "hold the same bytes"
                    };
                    return twice(seen, path, why);
                }
            }
            copies.push(path);
        }
    }
    Ok(())
}

/// Whether a file's name says it is compressed (`.gz`, `.zst`, any case).
fn is_compressed_name(path: &Path) -> bool {
    let name = path.to_string_lossy().to_lowercase();
    [".gz", ".gzip", ".zst", ".zstd"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// A file's content, decompressed when its first bytes say gzip or zstd.
fn content(path: &Path) -> io::Result<Box<dyn Read>> {
    let (magic, raw) = peek(File::open(path)?, 4)?;
    let reader = BufReader::with_capacity(1 << 16, raw);
    Ok(match Compression::of(&magic) {
        Compression::None => Box::new(reader),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(reader)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(reader)?),
    })
}

/// The first `HEAD_HASHED` bytes of a file's content (all of a shorter one).
fn read_head(path: &Path) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(HEAD_HASHED);
    content(path)?.take(HEAD_HASHED as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// Whether two files hold the same content, read side by side.
fn same_content(a: &Path, b: &Path) -> io::Result<bool> {
    let (mut a, mut b) = (content(a)?, content(b)?);
    let (mut x, mut y) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = read_full(&mut a, &mut x)?;
        if n != read_full(&mut b, &mut y)? || x[..n] != y[..n] {
            return Ok(false);
        }
        if n < x.len() {
            return Ok(true);
        }
    }
}

/// Reads until `buf` is full or the input ends; the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// How a stream is compressed, from its magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// The compression of a stream starting with `magic` (its first 4 bytes, or fewer).
    fn of(magic: &[u8]) -> Compression {
        if magic.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

/// Counts bytes read from the underlying file (compressed bytes), for progress.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The text encoding of an input that is not UTF-8, and how it was known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoding {
    pub encoding: &'static encoding_rs::Encoding,
    pub known_by: KnownBy,
}

/// What told an input's encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnownBy {
    /// Its byte-order mark.
    Bom,
    /// `--encoding`.
    Flag,
    /// Its zero bytes: UTF-16 without a mark.
    ZeroBytes,
}

impl Decoding {
    /// For the import's report.
    pub fn describe(&self) -> String {
        let how = match self.known_by {
            KnownBy::Bom => "its byte-order mark says so",
            KnownBy::Flag => "--encoding",
            KnownBy::ZeroBytes => "no byte-order mark; its zero bytes say so",
        };
        format!("text in {} ({how}), read as UTF-8", self.encoding.name())
    }
}

/// The encoding `--encoding LABEL` names (WHATWG labels: `utf-16le`, `windows-1252`,
/// `latin1`, `iso-8859-2`, `shift_jis`…): `Ok(None)` for UTF-8, which needs no decoding.
pub fn encoding_of(label: &str) -> Result<Option<&'static encoding_rs::Encoding>> {
    let encoding = encoding_rs::Encoding::for_label(label.trim().as_bytes()).ok_or_else(|| {
        Error::Invalid(format!(
            "--encoding {label}: not an encoding xs knows; use a name such as utf-8, utf-16le, \
             utf-16be, windows-1252 (latin1), iso-8859-15 or shift_jis"
        ))
    })?;
    // Labels of encodings that are unsafe to guess (ISO-2022-KR…) name "replacement", which
    // decodes nothing.
    if encoding == encoding_rs::REPLACEMENT {
        return Err(Error::Invalid(format!(
            "--encoding {label}: xs cannot decode this encoding; convert the file to UTF-8 first \
             (iconv -f {label} -t utf-8)"
        )));
    }
    Ok((encoding != encoding_rs::UTF_8).then_some(encoding))
}

/// Decodes a stream of text in another encoding into UTF-8 as it is read. Bytes that are not
/// valid in that encoding are an error naming their offset, never replaced silently.
struct Decoder<R> {
    inner: R,
    decoder: encoding_rs::Decoder,
    name: &'static str,
    /// What to check when a byte is not valid: how the encoding was chosen.
    hint: &'static str,
    input: Vec<u8>,
    /// `input[start..end]`: read, not yet decoded.
    start: usize,
    end: usize,
    /// Bytes of the input decoded before `input[0]`, for messages.
    consumed: u64,
    eof: bool,
    done: bool,
    /// Offset of the first byte not valid in the encoding, once met.
    malformed: Option<u64>,
    output: Vec<u8>,
    /// `output[out_at..out_end]`: decoded, not yet handed out.
    out_at: usize,
    out_end: usize,
}

impl<R: Read> Decoder<R> {
    fn new(inner: R, encoding: &'static encoding_rs::Encoding, from_bom: bool) -> Decoder<R> {
        Decoder {
            hint: if from_bom {
                "its byte-order mark said this encoding; pass --encoding to name the right one"
            } else {
                "is --encoding right?"
            },
            inner,
            // A byte-order mark of the encoding is dropped, not read as text.
            decoder: encoding.new_decoder_with_bom_removal(),
            name: encoding.name(),
            input: vec![0; 1 << 16],
            start: 0,
            end: 0,
            consumed: 0,
            eof: false,
            done: false,
            malformed: None,
            // Each input byte makes at most 3 bytes of UTF-8.
            output: vec![0; 3 << 16],
            out_at: 0,
            out_end: 0,
        }
    }
}

impl<R: Read> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.out_at < self.out_end {
                let n = buf.len().min(self.out_end - self.out_at);
                buf[..n].copy_from_slice(&self.output[self.out_at..self.out_at + n]);
                self.out_at += n;
                return Ok(n);
            }
            if let Some(at) = self.malformed {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "byte {at} of the input is not valid {} text; {}",
                        self.name, self.hint
                    ),
                ));
            }
            if self.done {
                return Ok(0);
            }
            if self.start == self.end && !self.eof {
                self.consumed += self.end as u64;
                // Emptied before the read: a failed (interrupted) one leaves nothing to decode
                // twice.
                (self.start, self.end) = (0, 0);
                self.end = self.inner.read(&mut self.input)?;
                self.eof = self.end == 0;
            }
            let (result, read, written) = self.decoder.decode_to_utf8_without_replacement(
                &self.input[self.start..self.end],
                &mut self.output,
                self.eof,
            );
            self.start += read;
            (self.out_at, self.out_end) = (0, written);
            match result {
                encoding_rs::DecoderResult::InputEmpty => self.done = self.eof,
                encoding_rs::DecoderResult::OutputFull => {}
                encoding_rs::DecoderResult::Malformed(bad, after) => {
                    // What came before it is handed out first; then the error.
                    let end = self.consumed + self.start as u64;
                    self.malformed = Some(end - u64::from(after) - u64::from(bad));
                }
            }
        }
    }
}

/// An input opened for reading.
pub struct Opened {
    /// Its text, uncompressed, in UTF-8.
    pub stream: Box<dyn Read + Send>,
    pub compression: Compression,
    /// How it was decoded to UTF-8, when it is in another encoding.
    pub decoding: Option<Decoding>,
    /// Its lines end in a carriage return alone, read as line feeds.
    pub cr_line_ends: bool,
    /// A plain file read as it is: no wrapper counts its bytes (a wrapper would make `std`
    /// zero every buffer before reading into it), so its reader adds them here.
    pub uncounted: Option<Arc<AtomicU64>>,
}

/// Bytes looked at for UTF-16 written without a byte-order mark.
const UTF16_SNIFF_BYTES: usize = 256;

/// UTF-16 without a byte-order mark, told by its head (at least 16 bytes): text mostly of
/// ASCII with a zero byte after each character (little-endian) or before it (big-endian), the
/// other characters (`München`, `€`) two non-zero bytes or a Latin-1 byte beside a zero. UTF-8
/// text holds no zero bytes, so such a head is no UTF-8.
fn utf16_without_bom(head: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let pairs = head.len() / 2;
    if pairs < 8 {
        return None;
    }
    let pairs = head[..pairs * 2].chunks_exact(2);
    let ascii = |b: u8| b != 0 && b.is_ascii();
    // Three of four characters ASCII, and no code unit zero (a NUL is in no text).
    let mostly = |is_ascii: &dyn Fn(&[u8]) -> bool| {
        pairs.clone().all(|p| p != [0, 0])
            && pairs.clone().filter(|p| is_ascii(p)).count() * 4 >= pairs.len() * 3
    };
    if mostly(&|p| ascii(p[0]) && p[1] == 0) {
        Some(encoding_rs::UTF_16LE)
    } else if mostly(&|p| p[0] == 0 && ascii(p[1])) {
        Some(encoding_rs::UTF_16BE)
    } else {
        None
    }
}

/// Opens `source` as a stream of uncompressed UTF-8 text: decompressed when its first bytes
/// say gzip or zstd, and decoded from `encoding` (`--encoding`), else from UTF-16 when it
/// starts with a UTF-16 byte-order mark or its head is ASCII written as UTF-16. `raw_bytes`
/// counts the bytes taken from the file or pipe itself: counted under the stream, or, for a
/// plain file read as it is, handed back as `Opened::uncounted` for the caller to pass to
/// `ChunkReader::counting_into`.
pub fn open(
    source: &Source,
    raw_bytes: Arc<AtomicU64>,
    encoding: Option<&'static encoding_rs::Encoding>,
) -> Result<Opened> {
    let opened = source
        .pipe
        .as_ref()
        .and_then(|slot| slot.lock().unwrap_or_else(|e| e.into_inner()).take());
    let read_error = |e| Error::io("read", source_path(source), e);
    let raw: Box<dyn Read + Send> = match (&source.path, opened) {
        (_, Some(pipe)) => Box::new(io::Cursor::new(pipe.head).chain(pipe.file)),
        (None, None) => Box::new(io::stdin()),
        (Some(path), None) => {
            let file = File::open(path).map_err(|e| Error::io("open", path, e))?;
            if plain_text_file(&file, encoding).map_err(read_error)? {
                return Ok(Opened {
                    stream: Box::new(file),
                    compression: Compression::None,
                    decoding: None,
                    cr_line_ends: false,
                    uncounted: Some(raw_bytes),
                });
            }
            Box::new(file)
        }
    };
    let (magic, raw) = peek(
        Counting {
            inner: raw,
            count: raw_bytes,
        },
        4,
    )
    .map_err(read_error)?;
    let reader = BufReader::with_capacity(1 << 16, raw);
    let compression = Compression::of(&magic);
    let stream: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(reader),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(reader)),
        Compression::Zstd => Box::new(
            zstd::stream::read::Decoder::with_buffer(reader)
                .map_err(|e| Error::io("start zstd decoding of", source_path(source), e))?,
        ),
    };
    let (head, stream) = peek(stream, UTF16_SNIFF_BYTES).map_err(read_error)?;
    let decoding = decoding_of(&head, encoding);
    let stream: Box<dyn Read + Send> = match decoding {
        None => Box::new(stream),
        Some(d) => Box::new(Decoder::new(stream, d.encoding, d.known_by == KnownBy::Bom)),
    };
    // Line ends of a carriage return alone (classic Mac OS, Excel's "CSV (Macintosh)"): the
    // head has some and no line feed at all.
    let (head, stream) = peek(stream, LINE_END_SNIFF_BYTES).map_err(read_error)?;
    let cr_line_ends = ends_lines_with_cr_alone(&head, head.len() == LINE_END_SNIFF_BYTES);
    let stream: Box<dyn Read + Send> = if cr_line_ends {
        Box::new(CrAsLf(stream))
    } else {
        Box::new(stream)
    };
    Ok(Opened {
        stream,
        compression,
        decoding,
        cr_line_ends,
        uncounted: None,
    })
}

/// How a text whose first bytes are `head` (`UTF16_SNIFF_BYTES` of them, or all) is decoded
/// to UTF-8: from `encoding` (`--encoding`), else from UTF-16 when it starts with a UTF-16
/// byte-order mark or is ASCII written as UTF-16; `None` for UTF-8.
fn decoding_of(head: &[u8], encoding: Option<&'static encoding_rs::Encoding>) -> Option<Decoding> {
    if let Some(encoding) = encoding {
        return Some(Decoding {
            encoding,
            known_by: KnownBy::Flag,
        });
    }
    match head {
        [0xff, 0xfe, ..] => Some(encoding_rs::UTF_16LE),
        [0xfe, 0xff, ..] => Some(encoding_rs::UTF_16BE),
        _ => None,
    }
    .map(|encoding| Decoding {
        encoding,
        known_by: KnownBy::Bom,
    })
    .or_else(|| {
        utf16_without_bom(head).map(|encoding| Decoding {
            encoding,
            known_by: KnownBy::ZeroBytes,
        })
    })
}

/// Whether `file` is a regular file of UTF-8 text, not compressed, with line feeds: then it
/// is read as it is, with no reader in between. Its head is read with `pread`, which moves
/// no offset; a file not at offset 0 (an open file shared through `/dev/fd/N` on some
/// systems) takes the general path, which reads from where it is.
fn plain_text_file(file: &File, encoding: Option<&'static encoding_rs::Encoding>) -> io::Result<bool> {
    use std::io::Seek;
    use std::os::unix::fs::FileExt;
    if encoding.is_some() || !file.metadata()?.is_file() || (&*file).stream_position()? != 0 {
        return Ok(false);
    }
    let mut head = vec![0; LINE_END_SNIFF_BYTES.max(UTF16_SNIFF_BYTES)];
    let mut got = 0;
    while got < head.len() {
        match file.read_at(&mut head[got..], got as u64) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let more = got == head.len();
    head.truncate(got);
    Ok(Compression::of(&head) == Compression::None
        && decoding_of(&head[..got.min(UTF16_SNIFF_BYTES)], None).is_none()
        && !ends_lines_with_cr_alone(&head[..got.min(LINE_END_SNIFF_BYTES)], more))
}

/// Whether the text `head` ends its lines in a carriage return alone: it has such a CR outside
/// quotes and no LF outside quotes (a cell may hold a line break: Excel writes an LF there).
/// When `more` follows, a CR in the last byte says nothing (its LF may be next).
fn ends_lines_with_cr_alone(head: &[u8], more: bool) -> bool {
    let head = if more {
        &head[..head.len().saturating_sub(1)]
    } else {
        head
    };
    let mut quoted = false;
    let mut cr_alone = false;
    for (i, &b) in head.iter().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'\n' if !quoted => return false,
            b'\r' if !quoted && head.get(i + 1) != Some(&b'\n') => cr_alone = true,
            _ => {}
        }
    }
    cr_alone
}

/// Bytes of an input's head that tell its line ends.
const LINE_END_SNIFF_BYTES: usize = 1 << 16;

/// Reads a text whose lines end in a carriage return alone as one whose lines end in `\n`.
struct CrAsLf<R>(R);

impl<R: Read> Read for CrAsLf<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.read(buf)?;
        for b in &mut buf[..n] {
            if *b == b'\r' {
                *b = b'\n';
            }
        }
        Ok(n)
    }
}

/// A reader whose first bytes were peeked at: them, then the rest.
type Peeked<R> = io::Chain<io::Cursor<Vec<u8>>, R>;

/// The first `n` bytes of `reader` (fewer at its end), read however short its reads are (a
/// pipe may hand out one byte at a time), and a reader that gives them again before the rest.
fn peek<R: Read>(mut reader: R, n: usize) -> io::Result<(Vec<u8>, Peeked<R>)> {
    let mut head = vec![0; n];
    let mut got = 0;
    while got < n {
        match reader.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(got);
    Ok((head.clone(), io::Cursor::new(head).chain(reader)))
}

fn source_path(source: &Source) -> PathBuf {
    source.path.clone().unwrap_or_else(|| PathBuf::from("-"))
}

/// A record longer than the record limit, skipped without being held in memory.
#[derive(Clone, Debug)]
pub struct Oversized {
    /// Byte offset of the record in the (uncompressed) stream.
    pub offset: u64,
    /// Its length in bytes, without the line end.
    pub len_bytes: u64,
    /// Its first bytes, for the rejects file.
    pub preview: Vec<u8>,
    /// Line ends inside it (quoted newlines), plus its own.
    pub newlines: u64,
}

/// A run of whole records cut from a stream.
#[derive(Debug, Default)]
pub struct Chunk {
    pub data: Vec<u8>,
    /// Byte offset of `data[0]` in the uncompressed stream.
    pub offset: u64,
    /// A too-long record that followed `data` in the stream, if any.
    pub oversized: Option<Oversized>,
    /// Record batches of a Parquet or Arrow input, in place of `data`.
    pub piece: Option<crate::import::columnar_in::Piece>,
}

/// Bytes of an oversized record kept for the rejects file.
const PREVIEW_BYTES: usize = 4096;

/// Cuts a stream into chunks of about `chunk_bytes` that end at record ends.
pub struct ChunkReader {
    src: Box<dyn Read + Send>,
    name: String,
    buf: Vec<u8>,
    /// Stream offset of `buf[0]`.
    offset: u64,
    eof: bool,
    started: bool,
    chunk_bytes: usize,
    max_record_bytes: usize,
    delimiter: u8,
    /// Buffers of chunks already imported, to reuse instead of allocating.
    spare: Option<std::sync::mpsc::Receiver<Vec<u8>>>,
    /// Where the bytes read are counted, when nothing under `src` counts them.
    counted: Option<Arc<AtomicU64>>,
}

impl ChunkReader {
    /// The delimiter that quoted fields are recognised after (once the dialect is known).
    pub fn set_delimiter(&mut self, delimiter: u8) {
        self.delimiter = delimiter;
    }

    /// Whether the whole stream has been handed out in chunks.
    pub fn at_end(&self) -> bool {
        self.eof && self.buf.is_empty()
    }

    /// Takes buffers to reuse from `spare`.
    pub fn recycle_from(&mut self, spare: Option<std::sync::mpsc::Receiver<Vec<u8>>>) {
        self.spare = spare;
    }

    /// Gives the source of reusable buffers back (for the next input's reader).
    pub fn take_recycler(&mut self) -> Option<std::sync::mpsc::Receiver<Vec<u8>>> {
        self.spare.take()
    }

    pub fn new(
        src: Box<dyn Read + Send>,
        name: &str,
        chunk_bytes: usize,
        max_record_bytes: usize,
        delimiter: u8,
    ) -> ChunkReader {
        ChunkReader {
            src,
            name: name.to_string(),
            buf: Vec::new(),
            offset: 0,
            eof: false,
            started: false,
            chunk_bytes: chunk_bytes.max(1),
            max_record_bytes: max_record_bytes.max(1),
            delimiter,
            spare: None,
            counted: None,
        }
    }

    /// Counts the bytes read in `counter` (`Opened::uncounted`: a plain file's own bytes).
    pub fn counting_into(mut self, counter: Option<Arc<AtomicU64>>) -> ChunkReader {
        self.counted = counter;
        self
    }

    /// Reads until `buf` holds at least `want` bytes or the stream ends.
    fn fill(&mut self, want: usize) -> Result<()> {
        while !self.eof && self.buf.len() < want {
            let at = self.buf.len();
            let grow = (want - at).max(1 << 16);
            // `read_to_end` fills the spare capacity without zeroing it first.
            self.buf.reserve(grow);
            match (&mut self.src).take(grow as u64).read_to_end(&mut self.buf) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    if let Some(counted) = &self.counted {
                        counted.fetch_add(n as u64, Ordering::Relaxed);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buf.truncate(at);
                    return Err(Error::io("read", Path::new(&self.name), e));
                }
            }
        }
        if !self.started && (self.buf.len() >= 3 || self.eof) {
            self.started = true;
            if self.buf.starts_with(&[0xef, 0xbb, 0xbf]) {
                self.buf.drain(..3);
                self.offset = 3;
            }
        }
        Ok(())
    }

    /// The bytes the first chunk will be cut from (up to `chunk_bytes`), read ahead so that
    /// the input's dialect can be detected before a delimiter decides where records end.
    pub fn peek(&mut self) -> Result<&[u8]> {
        self.fill(self.chunk_bytes)?;
        Ok(&self.buf)
    }

    /// The next chunk, or `None` at the end of the stream.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>> {
        self.fill(self.chunk_bytes)?;
        loop {
            if self.buf.is_empty() && self.eof {
                return Ok(None);
            }
            let mut scanner = RecordScanner::new(self.delimiter);
            let cut = scanner.last_record_end(&self.buf);
            if let Some(end) = cut {
                return Ok(Some(self.take(end, None)));
            }
            if self.eof {
                let end = self.buf.len();
                return Ok(Some(self.take(end, None)));
            }
            if self.buf.len() > self.max_record_bytes {
                // One record is longer than the limit: skip it, keeping a preview.
                let oversized = self.skip_record(scanner)?;
                return Ok(Some(Chunk {
                    data: Vec::new(),
                    offset: oversized.offset,
                    oversized: Some(oversized),
                    piece: None,
                }));
            }
            let want = (self.buf.len() * 2)
                .min(self.max_record_bytes + 1)
                .max(self.buf.len() + 1);
            self.fill(want)?;
        }
    }

    fn take(&mut self, end: usize, oversized: Option<Oversized>) -> Chunk {
        // The rest goes to a recycled buffer (or a new one) with room for the next chunk.
        let mut rest = self
            .spare
            .as_ref()
            .and_then(|r| r.try_recv().ok())
            .unwrap_or_default();
        rest.clear();
        rest.reserve(self.chunk_bytes + (1 << 16));
        rest.extend_from_slice(&self.buf[end..]);
        self.buf.truncate(end);
        let data = std::mem::replace(&mut self.buf, rest);
        let chunk = Chunk {
            data,
            offset: self.offset,
            oversized,
            piece: None,
        };
        self.offset += end as u64;
        chunk
    }

    /// Drops the record at the start of `buf` (already scanned by `scanner` without an end) and
    /// every byte of it still to come; `buf` then starts at the next record.
    fn skip_record(&mut self, mut scanner: RecordScanner) -> Result<Oversized> {
        let offset = self.offset;
        let preview = self.buf[..self.buf.len().min(PREVIEW_BYTES)].to_vec();
        let mut len_bytes = 0u64;
        let mut newlines = 0u64;
        loop {
            newlines += memchr::memchr_iter(b'\n', &self.buf).count() as u64;
            len_bytes += self.buf.len() as u64;
            self.offset += self.buf.len() as u64;
            self.buf.clear();
            self.fill(self.chunk_bytes)?;
            if self.buf.is_empty() {
                // The stream ended inside the record.
                return Ok(Oversized {
                    offset,
                    len_bytes,
                    preview,
                    newlines,
                });
            }
            if let Some(end) = scanner.first_record_end(&self.buf) {
                newlines += memchr::memchr_iter(b'\n', &self.buf[..end]).count() as u64;
                len_bytes += end as u64 - 1;
                self.buf.drain(..end);
                self.offset += end as u64;
                return Ok(Oversized {
                    offset,
                    len_bytes,
                    preview,
                    newlines,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hands out its bytes in pieces of the given sizes, in turn: reads that end anywhere,
    /// inside a character included; a size of 0 is a read interrupted by a signal.
    struct Pieces {
        bytes: Vec<u8>,
        at: usize,
        sizes: Vec<usize>,
        turn: usize,
    }

    impl Read for Pieces {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let size = self.sizes[self.turn % self.sizes.len()];
            self.turn += 1;
            if size == 0 {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = size.min(buf.len()).min(self.bytes.len() - self.at);
            buf[..n].copy_from_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn decode_all(
        bytes: Vec<u8>,
        encoding: &'static encoding_rs::Encoding,
        sizes: Vec<usize>,
        out: usize,
    ) -> io::Result<Vec<u8>> {
        let mut decoder = Decoder::new(
            Pieces {
                bytes,
                at: 0,
                sizes,
                turn: 0,
            },
            encoding,
            false,
        );
        let mut got = Vec::new();
        let mut buf = vec![0; out];
        loop {
            // As `read_to_end` and the chunk reader do: an interrupted read is tried again.
            let n = match decoder.read(&mut buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => other?,
            };
            if n == 0 {
                return Ok(got);
            }
            got.extend_from_slice(&buf[..n]);
        }
    }

    /// Every file is read to the same text, and its own bytes (compressed ones for a compressed
    /// file) are counted once for the progress bar, whether a reader wraps it or it is read as
    /// it is.
    #[test]
    fn files_read_whole_and_counted_once_in_every_form() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let text: Vec<u8> = (0..20_000)
            .flat_map(|i| format!("2024-01-01T00:00:{:02}Z,{i}\n", i % 60).into_bytes())
            .collect();
        let gzip = {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&text).unwrap();
            e.finish().unwrap()
        };
        let utf16: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain(text.iter().flat_map(|&b| [b, 0]))
            .collect();
        let cr: Vec<u8> = text.iter().map(|&b| if b == b'\n' { b'\r' } else { b }).collect();
        let bom: Vec<u8> = [0xef, 0xbb, 0xbf].iter().chain(&text).copied().collect();
        let cases: [(&str, Vec<u8>, bool); 6] = [
            ("plain", text.clone(), true),
            ("bom", bom, true),
            ("empty", Vec::new(), true),
            ("gzip", gzip, false),
            ("zstd", zstd::encode_all(&text[..], 1).unwrap(), false),
            ("utf16", utf16, false),
        ];
        for (name, bytes, as_it_is) in cases.into_iter().chain([("cr", cr, false)]) {
            let path = dir.path().join(name);
            fs::write(&path, &bytes).unwrap();
            let source = Source {
                name: name.into(),
                path: Some(path),
                len_bytes: bytes.len() as u64,
                columnar: None,
                pipe: None,
            };
            let counted = Arc::new(AtomicU64::new(0));
            let opened = open(&source, Arc::clone(&counted), None).unwrap();
            assert_eq!(opened.uncounted.is_some(), as_it_is, "{name}");
            let mut reader =
                ChunkReader::new(opened.stream, name, 4096, 1 << 20, b',').counting_into(opened.uncounted);
            let mut read = Vec::new();
            while let Some(chunk) = reader.next_chunk().unwrap() {
                read.extend_from_slice(&chunk.data);
            }
            let want: &[u8] = if name == "empty" { &[] } else { &text };
            assert_eq!(read, want, "{name}");
            assert_eq!(counted.load(Ordering::Relaxed), bytes.len() as u64, "{name}");
        }
    }

    #[test]
    fn decodes_whatever_the_read_sizes() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        // Characters of every UTF-8 length; windows-1252 holds the first four.
        let alphabet = ['a', ',', '\n', 'ü', '€', '東', '😀'];
        for case in 0..300 {
            let (encoding, letters) = match case % 3 {
                0 => (encoding_rs::UTF_16LE, 7),
                1 => (encoding_rs::UTF_16BE, 7),
                _ => (encoding_rs::WINDOWS_1252, 5),
            };
            let text: String = (0..next(400)).map(|_| alphabet[next(letters) as usize]).collect();
            let (encoded, _, lossy) = encoding.encode(&text);
            let mut bytes = encoded.into_owned();
            // encoding_rs encodes UTF-16 as UTF-8 (the web never writes it): do it here.
            if encoding != encoding_rs::WINDOWS_1252 {
                let be = encoding == encoding_rs::UTF_16BE;
                bytes = text
                    .encode_utf16()
                    .flat_map(|u| if be { u.to_be_bytes() } else { u.to_le_bytes() })
                    .collect();
            }
            assert!(!lossy);
            // The first read hands out bytes; later ones may be interrupted (size 0).
            let sizes: Vec<usize> = (0..1 + next(4))
                .map(|k| match next(4) {
                    0 if k > 0 => 0,
                    _ => 1 + next(70_000) as usize % (1 + next(3) as usize * 40_000),
                })
                .collect();
            let out = 1 + next(5000) as usize;
            let got = decode_all(bytes, encoding, sizes.clone(), out).expect("decodes");
            assert_eq!(
                String::from_utf8(got).unwrap(),
                text,
                "case {case}, sizes {sizes:?}"
            );
        }
    }

    #[test]
    fn line_ends_of_a_carriage_return_alone() {
        assert!(ends_lines_with_cr_alone(b"a,b\r1,2\r", false));
        // A line break inside a quoted cell is data.
        assert!(ends_lines_with_cr_alone(b"a,b\r1,\"x\ny\"\r", false));
        assert!(!ends_lines_with_cr_alone(b"a,b\r\n1,2\r\n", false));
        assert!(!ends_lines_with_cr_alone(b"a,b\n1,2\n", false));
        assert!(!ends_lines_with_cr_alone(b"a,\"b\rc\"\n", false));
        // A CR at the end of a head that stops there may be half of a CRLF.
        assert!(!ends_lines_with_cr_alone(b"a,b\r", true));
        assert!(ends_lines_with_cr_alone(b"a,b\r", false));
        assert!(!ends_lines_with_cr_alone(b"", false));
    }

    #[test]
    fn peeking_waits_for_bytes_that_come_one_at_a_time() {
        for (len, want) in [(10, 4), (3, 3), (0, 0)] {
            let bytes: Vec<u8> = (0..len).collect();
            let pieces = Pieces {
                bytes: bytes.clone(),
                at: 0,
                sizes: vec![1, 0],
                turn: 0,
            };
            let (head, mut rest) = peek(pieces, 4).unwrap();
            assert_eq!(head, bytes[..want]);
            let mut again = Vec::new();
            loop {
                let mut b = [0u8; 3];
                match rest.read(&mut b) {
                    Ok(0) => break,
                    Ok(n) => again.extend_from_slice(&b[..n]),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => panic!("{e}"),
                }
            }
            assert_eq!(again, bytes);
        }
    }

    #[test]
    fn a_byte_the_encoding_cannot_hold_is_an_error_at_its_offset() {
        // "ab", then a lone high surrogate, then "c", in UTF-16LE.
        let bytes = vec![b'a', 0, b'b', 0, 0x00, 0xd8, b'c', 0];
        for sizes in [vec![1], vec![3], vec![100]] {
            let err = decode_all(bytes.clone(), encoding_rs::UTF_16LE, sizes, 64).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidData);
            assert!(err.to_string().starts_with("byte 4 of the input"), "{err}");
        }
    }
}
