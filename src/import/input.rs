//! Import inputs: files, directories of files, or stdin, each decompressed as a stream when its
//! first bytes say gzip or zstd; and the chunk reader that cuts a stream into large chunks that
//! end at record ends (quotes respected), with bounded memory even for absurdly long records.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

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
                let name = entry.file_name().to_string_lossy().to_lowercase();
                let wanted = [".csv", ".csv.gz", ".csv.zst", ".tsv", ".tsv.gz", ".tsv.zst"]
                    .iter()
                    .any(|ext| name.ends_with(ext));
                if wanted && path.is_file() {
                    files.push(path);
                }
            }
            if files.is_empty() {
                return Err(Error::Invalid(format!(
                    "directory {} holds no .csv, .csv.gz or .csv.zst files",
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
                });
            }
        } else {
            out.push(Source {
                name: input.display().to_string(),
                path: Some(input.clone()),
                len_bytes: meta.len(),
                columnar: None,
            });
        }
    }
    Ok(out)
}

/// How a stream is compressed, from its magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
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

/// Opens `source` as a stream of uncompressed bytes. `raw_bytes` counts bytes taken from the
/// file or pipe itself.
pub fn open(source: &Source, raw_bytes: Arc<AtomicU64>) -> Result<(Box<dyn Read + Send>, Compression)> {
    let raw: Box<dyn Read + Send> = match &source.path {
        None => Box::new(io::stdin()),
        Some(path) => Box::new(File::open(path).map_err(|e| Error::io("open", path, e))?),
    };
    let mut reader = BufReader::with_capacity(
        1 << 16,
        Counting {
            inner: raw,
            count: raw_bytes,
        },
    );
    let magic = reader
        .fill_buf()
        .map_err(|e| Error::io("read", source_path(source), e))?;
    let compression = if magic.starts_with(&[0x1f, 0x8b]) {
        Compression::Gzip
    } else if magic.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Compression::Zstd
    } else {
        Compression::None
    };
    let stream: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(reader),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(reader)),
        Compression::Zstd => Box::new(
            zstd::stream::read::Decoder::with_buffer(reader)
                .map_err(|e| Error::io("start zstd decoding of", source_path(source), e))?,
        ),
    };
    Ok((stream, compression))
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
        }
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
                Ok(_) => {}
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
