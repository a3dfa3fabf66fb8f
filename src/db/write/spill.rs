//! Rows a bucket import holds back, moved out of memory.
//!
//! A bucket partition's last bucket is held back from batch to batch until it is complete
//! (`bucket::Carry`), so that it is written once. Time-ordered input of many series holds one
//! bucket of every series at once: 30,000 hosts with day buckets hold the whole file. Past
//! the import's hold budget (`HOLD_BYTES` by default), the held rows are compressed and appended
//! to one unnamed scratch file in the database directory, and read back when their bucket is
//! written. The file has no name (`O_TMPFILE`, or unlinked as soon as it is made), so an
//! import that is killed leaves nothing behind; the rows it held were not written, as before.

use std::cell::RefCell;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::db::{files, vfs};
use crate::error::{Error, Result};

/// Bytes of held-back rows an import keeps in memory before it spills them, unless
/// the import is given another budget.
pub const HOLD_BYTES: u64 = 32 << 20;

thread_local! {
    // A context per thread: making one per call costs more than compressing a few KiB.
    static COMPRESSOR: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// A fast (negative) zstd level: the rows are read back once, soon. Negative levels skip
/// the Huffman coding of literals, whose tables cost more than the few KiB of a segment
/// gain: a 30,000-host import ran 10 % faster than at level 1, with 2.4x the scratch bytes
/// (still a twentieth of the rows).
const SPILL_LEVEL: i32 = -3;

fn compress(plain: &[u8]) -> std::io::Result<Vec<u8>> {
    COMPRESSOR.with_borrow_mut(|c| {
        if c.is_none() {
            *c = Some(zstd::bulk::Compressor::new(SPILL_LEVEL)?);
        }
        match c {
            Some(c) => c.compress(plain),
            None => zstd::bulk::compress(plain, SPILL_LEVEL),
        }
    })
}

fn decompress(packed: &[u8], capacity: usize) -> std::io::Result<Vec<u8>> {
    DECOMPRESSOR.with_borrow_mut(|d| {
        if d.is_none() {
            *d = Some(zstd::bulk::Decompressor::new()?);
        }
        match d {
            Some(d) => d.decompress(packed, capacity),
            None => zstd::bulk::decompress(packed, capacity),
        }
    })
}

/// The scratch file held-back rows are spilled to.
pub(crate) struct Spill {
    file: File,
    /// The directory it is in, for messages.
    dir: PathBuf,
    /// Bytes written so far: where the next segment goes.
    end: AtomicU64,
}

/// One spilled run of held-back rows: where it is, and what it holds.
#[derive(Clone, Copy, Debug)]
pub(super) struct Segment {
    at: u64,
    len: u32,
    pub(super) rows: u32,
    /// The slot of its first row (all of a carry's rows are in one bucket).
    pub(super) first_slot: u64,
}

impl Spill {
    /// Makes the scratch file in `dir`.
    pub(crate) fn create(dir: &Path) -> Result<Spill> {
        Ok(Spill {
            file: files::create_unnamed(dir)?,
            dir: dir.to_path_buf(),
            end: AtomicU64::new(0),
        })
    }

    /// Appends `slots` and their rows, compressed; callers may append side by side.
    pub(super) fn put(&self, slots: &[u64], rows: &[u8]) -> Result<Segment> {
        let mut plain = Vec::with_capacity(slots.len() * 8 + rows.len());
        for s in slots {
            plain.extend_from_slice(&s.to_le_bytes());
        }
        plain.extend_from_slice(rows);
        let packed =
            compress(&plain).map_err(|e| self.error("compress rows for the import's scratch file in", e))?;
        let len = u32::try_from(packed.len()).map_err(|_| {
            Error::Invalid(format!(
                "{} held-back rows do not fit a spill segment",
                slots.len()
            ))
        })?;
        let at = self.end.fetch_add(u64::from(len), Ordering::Relaxed);
        vfs::write_at(&self.file, &packed, at)
            .map_err(|e| self.error("write the import's scratch file in", e))?;
        Ok(Segment {
            at,
            len,
            rows: slots.len() as u32,
            first_slot: slots.first().copied().unwrap_or(0),
        })
    }

    /// Reads `segment` back, appending its slots and rows (`row_len` bytes each).
    pub(super) fn take(
        &self,
        segment: &Segment,
        row_len: usize,
        slots: &mut Vec<u64>,
        rows: &mut Vec<u8>,
    ) -> Result<()> {
        let mut packed = vec![0u8; segment.len as usize];
        self.file
            .read_exact_at(&mut packed, segment.at)
            .map_err(|e| self.error("read the import's scratch file in", e))?;
        let n = segment.rows as usize;
        let plain = decompress(&packed, n * (8 + row_len))
            .map_err(|e| self.error("decompress rows from the import's scratch file in", e))?;
        if plain.len() != n * (8 + row_len) {
            return Err(Error::Invalid(format!(
                "the import's scratch file in {} gave back {} bytes for {n} held-back rows; \
                 run the import again",
                self.dir.display(),
                plain.len()
            )));
        }
        let (slot_bytes, row_bytes) = plain.split_at(n * 8);
        slots.extend(
            slot_bytes
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default())),
        );
        rows.extend_from_slice(row_bytes);
        Ok(())
    }

    fn error(&self, op: &'static str, e: std::io::Error) -> Error {
        Error::io(op, &self.dir, e)
    }
}
