//! Rows a bucket import holds back, moved out of memory.
//!
//! A bucket partition's last bucket is held back from batch to batch until it is complete
//! (`bucket::Carry`), so that it is written once. Time-ordered input of many series holds one
//! bucket of every series at once: 30,000 hosts with day buckets hold the whole file. Past
//! the import's hold budget (`HOLD_BYTES` by default), the held rows are compressed and appended
//! to one unnamed scratch file in the database directory, and read back when their bucket is
//! written. Each segment names the one spilled before it for the same rows, so that a carry
//! remembers only its newest however often it was spilled. The file has no name (`O_TMPFILE`,
//! or unlinked as soon as it is made), so an import that is killed leaves nothing behind; the
//! rows it held were not written, as before.

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

/// One spilled run of held-back rows: where it is, and what it holds. In the file, each
/// segment starts with the `Segment` of the one spilled before it for the same rows
/// (`LINK_BYTES`, uncompressed), so a carry keeps only its newest: thousands of series spilled
/// dozens of times each kept a list of every segment, growing with the input.
#[derive(Clone, Copy, Debug)]
pub(super) struct Segment {
    at: u64,
    /// Bytes, the link included.
    len: u32,
    rows: u32,
}

/// A segment's link: the `at`, `len` and `rows` of the segment before it (`rows` 0: none).
const LINK_BYTES: usize = 16;

impl Segment {
    fn link(before: Option<&Segment>) -> [u8; LINK_BYTES] {
        let mut link = [0u8; LINK_BYTES];
        if let Some(b) = before {
            link[..8].copy_from_slice(&b.at.to_le_bytes());
            link[8..12].copy_from_slice(&b.len.to_le_bytes());
            link[12..].copy_from_slice(&b.rows.to_le_bytes());
        }
        link
    }

    fn unlink(link: &[u8; LINK_BYTES]) -> Option<Segment> {
        let [a0, a1, a2, a3, a4, a5, a6, a7, l0, l1, l2, l3, r0, r1, r2, r3] = *link;
        let rows = u32::from_le_bytes([r0, r1, r2, r3]);
        (rows != 0).then(|| Segment {
            at: u64::from_le_bytes([a0, a1, a2, a3, a4, a5, a6, a7]),
            len: u32::from_le_bytes([l0, l1, l2, l3]),
            rows,
        })
    }
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

    /// Appends `slots` (not empty) and their rows, compressed, after a link to `before`, the
    /// segment spilled before for the same rows; callers may append side by side.
    pub(super) fn put(&self, slots: &[u64], rows: &[u8], before: Option<&Segment>) -> Result<Segment> {
        if slots.is_empty() {
            return Err(Error::Invalid("internal: an empty spill segment".into()));
        }
        let mut plain = Vec::with_capacity(slots.len() * 8 + rows.len());
        for s in slots {
            plain.extend_from_slice(&s.to_le_bytes());
        }
        plain.extend_from_slice(rows);
        let packed =
            compress(&plain).map_err(|e| self.error("compress rows for the import's scratch file in", e))?;
        let mut bytes = Vec::with_capacity(LINK_BYTES + packed.len());
        bytes.extend_from_slice(&Segment::link(before));
        bytes.extend_from_slice(&packed);
        let (Ok(len), Ok(count)) = (u32::try_from(bytes.len()), u32::try_from(slots.len())) else {
            return Err(Error::Invalid(format!(
                "{} held-back rows do not fit a spill segment",
                slots.len()
            )));
        };
        let at = self.end.fetch_add(u64::from(len), Ordering::Relaxed);
        vfs::write_at(&self.file, &bytes, at)
            .map_err(|e| self.error("write the import's scratch file in", e))?;
        Ok(Segment { at, len, rows: count })
    }

    /// Reads back `newest` and every segment before it, `total` rows in all, appending their
    /// slots and rows (`row_len` bytes each) oldest first.
    pub(super) fn take(
        &self,
        newest: &Segment,
        total: usize,
        row_len: usize,
        slots: &mut Vec<u64>,
        rows: &mut Vec<u8>,
    ) -> Result<()> {
        // Newest first from the links, so the chain is read before any of it is decoded.
        let mut chain: Vec<(u32, Vec<u8>)> = Vec::new();
        let mut counted = 0usize;
        let mut next = Some(*newest);
        while let Some(segment) = next {
            // A damaged link must not ask for more than the segments before it hold.
            counted += segment.rows as usize;
            if counted > total {
                return Err(self.damaged());
            }
            let mut bytes = vec![0u8; segment.len as usize];
            self.file
                .read_exact_at(&mut bytes, segment.at)
                .map_err(|e| self.error("read the import's scratch file in", e))?;
            let link: &[u8; LINK_BYTES] = match bytes.first_chunk() {
                Some(link) => link,
                None => return Err(self.damaged()),
            };
            next = Segment::unlink(link);
            // Links point back to a segment that ends before this one starts: a damaged one
            // cannot loop or name more bytes than precede it.
            if next.is_some_and(|before| before.at.saturating_add(u64::from(before.len)) > segment.at) {
                return Err(self.damaged());
            }
            chain.push((segment.rows, bytes));
        }
        if counted != total {
            return Err(self.damaged());
        }
        for (count, bytes) in chain.iter().rev() {
            let n = *count as usize;
            let plain = decompress(&bytes[LINK_BYTES..], n * (8 + row_len))
                .map_err(|e| self.error("decompress rows from the import's scratch file in", e))?;
            if plain.len() != n * (8 + row_len) {
                return Err(self.damaged());
            }
            let (slot_bytes, row_bytes) = plain.split_at(n * 8);
            slots.extend(
                slot_bytes
                    .chunks_exact(8)
                    .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default())),
            );
            rows.extend_from_slice(row_bytes);
        }
        Ok(())
    }

    fn damaged(&self) -> Error {
        Error::Invalid(format!(
            "the import's scratch file in {} did not give back the held-back rows it was given; \
             run the import again",
            self.dir.display()
        ))
    }

    fn error(&self, op: &'static str, e: std::io::Error) -> Error {
        Error::io(op, &self.dir, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows_of(slots: &[u64], row_len: usize) -> Vec<u8> {
        slots.iter().flat_map(|&s| vec![s as u8; row_len]).collect()
    }

    /// Segments put side by side for two carries come back per carry, oldest first, from
    /// each carry's newest segment alone.
    #[test]
    fn a_chain_of_segments_comes_back_oldest_first() {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::create(dir.path()).unwrap();
        let row_len = 3;
        let (mut a, mut b): (Option<Segment>, Option<Segment>) = (None, None);
        for round in 0..5u64 {
            let sa: Vec<u64> = (0..=round).map(|k| round * 10 + k).collect();
            a = Some(spill.put(&sa, &rows_of(&sa, row_len), a.as_ref()).unwrap());
            let sb = [1000 + round];
            b = Some(spill.put(&sb, &rows_of(&sb, row_len), b.as_ref()).unwrap());
        }
        let (mut slots, mut rows) = (Vec::new(), Vec::new());
        spill
            .take(&a.unwrap(), 15, row_len, &mut slots, &mut rows)
            .unwrap();
        let want: Vec<u64> = (0..5u64).flat_map(|r| (0..=r).map(move |k| r * 10 + k)).collect();
        assert_eq!(slots, want);
        assert_eq!(rows, rows_of(&want, row_len));
        let (mut slots, mut rows) = (Vec::new(), Vec::new());
        spill
            .take(&b.unwrap(), 5, row_len, &mut slots, &mut rows)
            .unwrap();
        assert_eq!(slots, vec![1000, 1001, 1002, 1003, 1004]);
        assert_eq!(rows.len(), 5 * row_len);
    }

    /// A scratch file of two one-row segments, the second linked to the first (keep the
    /// directory alive with the file).
    fn two_linked_segments() -> (tempfile::TempDir, Spill, Segment, Segment) {
        let dir = tempfile::tempdir().unwrap();
        let spill = Spill::create(dir.path()).unwrap();
        let first = spill.put(&[1], &[7], None).unwrap();
        let second = spill.put(&[2], &[8], Some(&first)).unwrap();
        (dir, spill, first, second)
    }

    /// A link that does not point back (damage) is an error, never a loop.
    #[test]
    fn a_link_that_points_forward_is_refused() {
        let (_dir, spill, first, second) = two_linked_segments();
        // The first segment's link rewritten to name the second (itself later in the file).
        vfs::write_at(&spill.file, &Segment::link(Some(&second)), first.at).unwrap();
        let (mut slots, mut rows) = (Vec::new(), Vec::new());
        let err = spill.take(&second, 2, 1, &mut slots, &mut rows).unwrap_err();
        assert!(err.to_string().contains("run the import again"), "{err}");
    }

    /// A link that names more rows than were spilled, or fewer, is an error before anything
    /// is allocated for them or decoded.
    #[test]
    fn a_link_with_another_count_is_refused() {
        let (_dir, spill, first, second) = two_linked_segments();
        let huge = Segment {
            rows: u32::MAX,
            len: u32::MAX,
            ..first
        };
        vfs::write_at(&spill.file, &Segment::link(Some(&huge)), second.at).unwrap();
        let (mut slots, mut rows) = (Vec::new(), Vec::new());
        assert!(spill.take(&second, 2, 1, &mut slots, &mut rows).is_err());
        // The link cut: one row short.
        vfs::write_at(&spill.file, &Segment::link(None), second.at).unwrap();
        assert!(spill.take(&second, 2, 1, &mut slots, &mut rows).is_err());
        assert!(slots.is_empty() && rows.is_empty());
    }
}
