//! One partition file: a 4 KiB header block, then `slots × depth` fixed-width rows at offsets
//! computed from the timestamp. Created sparse at its full logical size; read and written with
//! positioned I/O only (`pread`/`pwrite`), so one handle is shared by all threads.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use super::config::{sync_dir, Config};
use super::files::{self, Mode};
use super::time::PartitionKey;
use super::vfs;
use crate::error::{Error, Result};

/// Bytes before the first row: one block, so rows start block-aligned.
pub const HEADER_LEN: u64 = 4096;
pub const MAGIC: [u8; 8] = *b"XSPART\0\0";
/// Bytes of the header covered by fields up to the bucket width: grid headers use the first 64;
/// bucket headers add the bucket width at 64..72 (then bytes 72..88 that `bucket.rs` owns).
pub const HEADER_FIELDS_LEN: usize = 72;
/// Offset of the directory entry length (u32; bucket partitions of version 2, else zero).
pub const ENTRY_LEN_AT: usize = 88;
/// Bytes `Header::encode` writes and `Header::decode` reads: every field (the rest of the block
/// is zero).
pub const HEADER_ENCODED_LEN: usize = 96;
/// Partition header version of grid partitions and of bucket partitions without directory
/// summaries (16-byte entries).
pub const PARTITION_VERSION: u32 = 1;
/// Partition header version whose stored units carry CRC-32 checks (grid slots; bucket
/// records and directory entries): the version xs creates.
pub const CHECKSUM_VERSION: u32 = 3;
/// Bytes of the check that follows each slot of a version-3 grid partition.
pub const SLOT_CHECK_LEN: u64 = 4;

/// CRC-32 (IEEE) of `index` (little-endian u64) followed by `bytes`: the check of a stored
/// unit. The index (slot or bucket) is hashed in so that a unit written to the wrong place
/// fails too.
pub fn unit_check(index: u64, bytes: &[u8]) -> u32 {
    // A fresh hasher tests the CPU's features each time; a clone of one keeps its choice.
    static FRESH: std::sync::OnceLock<crc32fast::Hasher> = std::sync::OnceLock::new();
    let mut h = FRESH.get_or_init(crc32fast::Hasher::new).clone();
    h.update(&index.to_le_bytes());
    h.update(bytes);
    h.finalize()
}

/// The grid version xs creates for partition `key`: `CHECKSUM_VERSION`, unless the 4 bytes per
/// slot would pass the partition size limit (a database created near it), where version 1
/// keeps it working.
pub fn newest_grid_version(config: &Config, key: PartitionKey) -> u32 {
    let slots = ((key.end_ns() - key.start_ns()) / config.granularity.ns()) as u64;
    let len = (config.slab_len() + SLOT_CHECK_LEN)
        .checked_mul(slots)
        .and_then(|n| n.checked_add(HEADER_LEN));
    if len.is_some_and(|len| len <= super::config::MAX_PARTITION_BYTES) {
        CHECKSUM_VERSION
    } else {
        PARTITION_VERSION
    }
}

/// What `Header::decode` says of a header whose magic is right and whose checksum is not: a
/// damaged header (exit code 6), not a file from elsewhere.
pub const HEADER_DAMAGED: &str = "header checksum mismatch (corrupt header)";

/// The error for the header of `path` (partition `key`) that failed to decode: damage when its
/// checksum failed, else a file that does not belong here.
pub fn header_error(path: &Path, key: PartitionKey, reason: String) -> Error {
    if reason == HEADER_DAMAGED {
        return Error::damage(path, 0, 64, "partition header", key.start_ns(), key.end_ns());
    }
    Error::ForeignPartition {
        path: path.to_path_buf(),
        reason,
    }
}

/// The fields of a partition header, all little-endian. See docs/FORMAT.md.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub format_version: u32,
    pub layout_code: u32,
    pub start_ns: i64,
    pub end_ns: i64,
    pub granularity_ns: i64,
    pub depth: u32,
    pub row_len: u32,
    pub schema_hash: u64,
    /// Bucket width in ns (layout 2); 0 for grid.
    pub bucket_ns: i64,
    /// Bytes of one directory entry (bucket partitions of version 2); 0 otherwise.
    pub entry_len: u32,
}

impl Header {
    /// The header of a grid partition, or of a version-1 bucket partition (`bucket.rs` sets
    /// version 2 and the entry length for the partitions it creates).
    pub fn for_partition(config: &Config, key: PartitionKey) -> Header {
        Header {
            format_version: PARTITION_VERSION,
            layout_code: config.layout.code(),
            start_ns: key.start_ns(),
            end_ns: key.end_ns(),
            granularity_ns: config.granularity.ns(),
            depth: config.depth,
            // row_len is bounded by the schema (at most a few hundred KiB); validated on open.
            row_len: u32::try_from(config.schema.row_len()).unwrap_or(u32::MAX),
            schema_hash: config.schema.hash(),
            bucket_ns: config.bucket_ns,
            entry_len: 0,
        }
    }

    /// FNV-1a 64 of the checked bytes: 0..56, and for layout 2 also 64..72 (grid headers keep
    /// the checksum of format 1 unchanged). The entry length (88..92) stays outside, so that an
    /// xs that predates it refuses a version-2 partition by its version, not as corrupt; it is
    /// checked on open against what the schema computes.
    fn checksum(b: &[u8]) -> u64 {
        let layout = u32::from_le_bytes([b[12], b[13], b[14], b[15]]);
        if layout == 2 {
            let mut bytes = [0u8; 64];
            bytes[..56].copy_from_slice(&b[..56]);
            bytes[56..].copy_from_slice(&b[64..72]);
            super::schema::fnv1a64(&bytes)
        } else {
            super::schema::fnv1a64(&b[0..56])
        }
    }

    pub fn encode(&self) -> [u8; HEADER_ENCODED_LEN] {
        let mut b = [0u8; HEADER_ENCODED_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..12].copy_from_slice(&self.format_version.to_le_bytes());
        b[12..16].copy_from_slice(&self.layout_code.to_le_bytes());
        b[16..24].copy_from_slice(&self.start_ns.to_le_bytes());
        b[24..32].copy_from_slice(&self.end_ns.to_le_bytes());
        b[32..40].copy_from_slice(&self.granularity_ns.to_le_bytes());
        b[40..44].copy_from_slice(&self.depth.to_le_bytes());
        b[44..48].copy_from_slice(&self.row_len.to_le_bytes());
        b[48..56].copy_from_slice(&self.schema_hash.to_le_bytes());
        b[64..72].copy_from_slice(&self.bucket_ns.to_le_bytes());
        b[ENTRY_LEN_AT..ENTRY_LEN_AT + 4].copy_from_slice(&self.entry_len.to_le_bytes());
        let sum = Header::checksum(&b);
        b[56..64].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// Decodes a header block; `Err` says which check failed.
    pub fn decode(b: &[u8]) -> std::result::Result<Header, String> {
        if b.len() < HEADER_ENCODED_LEN || b[0..8] != MAGIC {
            return Err("not an xs partition file (bad magic)".into());
        }
        let u32_at = |at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
        let u64_at = |at: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&b[at..at + 8]);
            u64::from_le_bytes(a)
        };
        if Header::checksum(b) != u64_at(56) {
            return Err(HEADER_DAMAGED.into());
        }
        Ok(Header {
            format_version: u32_at(8),
            layout_code: u32_at(12),
            start_ns: u64_at(16) as i64,
            end_ns: u64_at(24) as i64,
            granularity_ns: u64_at(32) as i64,
            depth: u32_at(40),
            row_len: u32_at(44),
            schema_hash: u64_at(48),
            bucket_ns: u64_at(64) as i64,
            entry_len: u32_at(ENTRY_LEN_AT),
        })
    }

    /// Names the first field where `self` (found) differs from `expected`.
    pub fn mismatch(&self, expected: &Header) -> Option<String> {
        let fields: [(&str, i128, i128); 10] = [
            (
                "format version",
                self.format_version.into(),
                expected.format_version.into(),
            ),
            ("layout", self.layout_code.into(), expected.layout_code.into()),
            ("partition start", self.start_ns.into(), expected.start_ns.into()),
            ("partition end", self.end_ns.into(), expected.end_ns.into()),
            (
                "granularity (ns)",
                self.granularity_ns.into(),
                expected.granularity_ns.into(),
            ),
            ("depth", self.depth.into(), expected.depth.into()),
            ("row length", self.row_len.into(), expected.row_len.into()),
            (
                "schema hash",
                self.schema_hash.into(),
                expected.schema_hash.into(),
            ),
            (
                "bucket width (ns)",
                self.bucket_ns.into(),
                expected.bucket_ns.into(),
            ),
            (
                "directory entry length",
                self.entry_len.into(),
                expected.entry_len.into(),
            ),
        ];
        fields
            .iter()
            .find(|(_, found, want)| found != want)
            .map(|(name, found, want)| format!("its {name} is {found}, this database has {want}"))
    }
}

/// An open partition file.
#[derive(Debug)]
pub struct Partition {
    pub key: PartitionKey,
    pub path: PathBuf,
    file: File,
    /// Slots in this partition: (end - start) / granularity.
    pub slots: u64,
    /// Bytes of one slot's rows: depth × row length.
    pub slab_len: u64,
    /// Bytes of one slot on disk: its rows, then (version 3) its 4-byte check.
    pub slot_len: u64,
    /// Partition header version: 1 (no checks) or `CHECKSUM_VERSION`.
    pub version: u32,
    granularity_ns: i64,
    /// In a series directory an import has not yet put in place: no fsyncs (`create`).
    sync_deferred: bool,
}

impl Partition {
    /// Opens an existing partition file and checks its header against the config.
    pub fn open(dir: &Path, config: &Config, key: PartitionKey, writable: bool) -> Result<Partition> {
        let path = dir.join(key.file_name());
        match Partition::open_at(path.clone(), config, key, writable) {
            // An alter committed its config and was cut before its new file replaced this
            // one: the new file, beside it, is the partition (docs/FORMAT.md, "Alter").
            // If it was renamed into place meanwhile, the real name holds it: tried again.
            Err(Error::ForeignPartition { .. }) if super::alter::has_pending(&path)? => {
                Partition::open_at(super::alter::pending_path(&path), config, key, writable)
                    .or_else(|_| Partition::open_at(path, config, key, writable))
            }
            other => other,
        }
    }

    fn open_at(path: PathBuf, config: &Config, key: PartitionKey, writable: bool) -> Result<Partition> {
        let mode = if writable { Mode::ReadWrite } else { Mode::Read };
        let file = files::open(&path, mode, "open")?;
        let mut block = [0u8; HEADER_ENCODED_LEN];
        read_full_at(&file, &mut block, 0).map_err(|e| Error::io("read", &path, e))?;
        let mut expected = Header::for_partition(config, key);
        let found = Header::decode(&block).map_err(|reason| header_error(&path, key, reason))?;
        // Both versions read; anything else is compared with version 1 and refused.
        if found.format_version == CHECKSUM_VERSION {
            expected.format_version = CHECKSUM_VERSION;
        }
        if let Some(reason) = found.mismatch(&expected) {
            return Err(Error::ForeignPartition { path, reason });
        }
        let partition = Partition::new(key, path, file, config, expected.format_version);
        let len_bytes = partition
            .file
            .metadata()
            .map_err(|e| Error::io("stat", &partition.path, e))?
            .len();
        let expected_len = partition.logical_len();
        if len_bytes != expected_len {
            return Err(Error::ForeignPartition {
                path: partition.path,
                reason: format!("its size is {len_bytes} bytes, expected {expected_len}"),
            });
        }
        if writable {
            // An import cut while it overwrote slots left their old rows here: put them back.
            super::undo::roll_back(&partition)?;
        }
        Ok(partition)
    }

    /// Creates a partition file: header written, sized sparse to its full logical length, fsynced,
    /// then renamed into place so a crash never leaves a headerless file under the real name.
    /// With `sync_deferred` (a series directory an import has not yet put in place), nothing
    /// is fsynced, now or by `sync`: the import makes the file system durable before it
    /// renames the directory into place (docs/FORMAT.md, "Writes and durability").
    pub fn create(dir: &Path, config: &Config, key: PartitionKey, sync_deferred: bool) -> Result<Partition> {
        let partition = Partition::create_named(dir, config, key, &key.file_name(), sync_deferred)?;
        if !sync_deferred {
            sync_dir(dir)?;
        }
        Ok(partition)
    }

    /// `create` under the file name `name` (`xs alter` writes a partition's new file beside
    /// the old one); the caller fsyncs the directory.
    pub fn create_as(dir: &Path, config: &Config, key: PartitionKey, name: &str) -> Result<Partition> {
        Partition::create_named(dir, config, key, name, false)
    }

    fn create_named(
        dir: &Path,
        config: &Config,
        key: PartitionKey,
        name: &str,
        sync_deferred: bool,
    ) -> Result<Partition> {
        let version = newest_grid_version(config, key);
        let mut header = Header::for_partition(config, key);
        header.format_version = version;
        let path = dir.join(name);
        // Sized before the rename, so the file is whole under its real name.
        let len_bytes = {
            let slots = ((key.end_ns() - key.start_ns()) / config.granularity.ns()) as u64;
            let check = if version == CHECKSUM_VERSION {
                SLOT_CHECK_LEN
            } else {
                0
            };
            HEADER_LEN + slots * (config.slab_len() + check)
        };
        let file = create_file_atomically(dir, name, &header.encode(), len_bytes, !sync_deferred)?;
        let mut partition = Partition::new(key, path, file, config, version);
        partition.sync_deferred = sync_deferred;
        Ok(partition)
    }

    fn new(key: PartitionKey, path: PathBuf, file: File, config: &Config, version: u32) -> Partition {
        let span_ns = key.end_ns() - key.start_ns();
        // Both are positive and the granularity divides a day, hence every partition.
        let slots = (span_ns / config.granularity.ns()) as u64;
        let slab_len = config.slab_len();
        let checked = version == CHECKSUM_VERSION;
        Partition {
            key,
            path,
            file,
            slots,
            slab_len,
            slot_len: slab_len + if checked { SLOT_CHECK_LEN } else { 0 },
            version,
            granularity_ns: config.granularity.ns(),
            sync_deferred: false,
        }
    }

    /// Whether each slot carries a check (version 3).
    pub fn has_checks(&self) -> bool {
        self.version == CHECKSUM_VERSION
    }

    /// Whether `stored` (one slot as on disk, `slot_len` bytes) may be served: a version-1 slot
    /// always; a version-3 slot when it is all zero (never written, or cleared) or its check
    /// matches.
    pub fn slot_is_sound(&self, slot_index: u64, stored: &[u8]) -> bool {
        if !self.has_checks() {
            return true;
        }
        let (rows, check) = stored.split_at(self.slab_len as usize);
        let check = u32::from_le_bytes([check[0], check[1], check[2], check[3]]);
        if check == 0 && rows.iter().all(|&b| b == 0) {
            return true;
        }
        unit_check(slot_index, rows) == check
    }

    /// The first of the stored slots `slots` (from slot `first`) that fails its check. Four
    /// slots are hashed side by side (`small_crc::crc4`): a CRC of a few dozen bytes is one
    /// serial chain of table lookups, and four chains fill the CPU's pipeline; `crc32fast`
    /// computes the same CRC-32 (the unit test compares them).
    fn first_unsound(&self, first: u64, slots: &[u8]) -> Option<usize> {
        let (slab, stride) = (self.slab_len as usize, self.slot_len as usize);
        let check_of = |stored: &[u8]| {
            u32::from_le_bytes([stored[slab], stored[slab + 1], stored[slab + 2], stored[slab + 3]])
        };
        let mut quads = slots.chunks_exact(4 * stride);
        for (q, quad) in (&mut quads).enumerate() {
            let at = 4 * q;
            let stored: [&[u8]; 4] = std::array::from_fn(|j| &quad[j * stride..(j + 1) * stride]);
            let checks = stored.map(check_of);
            // A zero check may be an empty slot: those take the general path.
            if checks.contains(&0) {
                if let Some(j) = (0..4).find(|&j| !self.slot_is_sound(first + (at + j) as u64, stored[j])) {
                    return Some(at + j);
                }
                continue;
            }
            let index = std::array::from_fn(|j| first + (at + j) as u64);
            let rows = stored.map(|s| &s[..slab]);
            let crcs = small_crc::crc4(index, rows);
            if let Some(j) = (0..4).find(|&j| crcs[j] != checks[j]) {
                return Some(at + j);
            }
        }
        let done = slots.len() / (4 * stride) * 4;
        quads
            .remainder()
            .chunks_exact(stride)
            .enumerate()
            .find(|&(j, stored)| !self.slot_is_sound(first + (done + j) as u64, stored))
            .map(|(j, _)| done + j)
    }

    /// The error for slot `slot_index`, which failed its check.
    pub fn slot_damage(&self, slot_index: u64) -> Error {
        let from_ns = self.key.start_ns() + slot_index as i64 * self.granularity_ns;
        Error::damage(
            &self.path,
            self.slot_offset(slot_index),
            self.slot_len,
            "slot",
            from_ns,
            from_ns + self.granularity_ns,
        )
    }

    /// Reads `n` consecutive slots from `first` into `out` as rows only (`n × slab_len` bytes,
    /// checks stripped), verifying each slot's check: a slot that fails is an error, never
    /// data.
    pub fn read_slots(&self, first: u64, n: u64, out: &mut Vec<u8>) -> Result<()> {
        let (slab, stride) = (self.slab_len as usize, self.slot_len as usize);
        let n = n as usize;
        out.resize(n * stride, 0);
        self.read_at(out, self.slot_offset(first))?;
        if !self.has_checks() {
            return Ok(());
        }
        // Verified first, on every core for a scan's large reads (a range is otherwise one
        // thread reading while the others wait for it), then compacted.
        const PER_TASK_SLOTS: usize = 4096;
        let bad = if n >= 2 * PER_TASK_SLOTS {
            use rayon::prelude::*;
            out.par_chunks(PER_TASK_SLOTS * stride)
                .enumerate()
                .find_map_first(|(task, slots)| {
                    let at = (task * PER_TASK_SLOTS) as u64;
                    self.first_unsound(first + at, slots).map(|i| at as usize + i)
                })
        } else {
            self.first_unsound(first, out)
        };
        if let Some(i) = bad {
            return Err(self.slot_damage(first + i as u64));
        }
        for i in 1..n {
            // In place, front to back: a slot's rows move down over checks already read.
            out.copy_within(i * stride..i * stride + slab, i * slab);
        }
        out.truncate(n * slab);
        Ok(())
    }

    /// Verifies every slot of the allocated parts of the file (`xs check`, `defrag` before it
    /// rewrites): hands each slot that fails its check to `found` (an `Error::Checksum`) and
    /// goes on. Returns the rows of the slots that passed. A version-1 partition has no checks:
    /// its rows are only counted.
    pub fn verify(&self, row_len: usize, found: &mut dyn FnMut(Error)) -> Result<u64> {
        self.verify_slots(0, self.slots, row_len, found)
    }

    /// `verify` over slots `[first, end)` only (`delete` counts the rows it clears this way,
    /// so that deleting a damaged stretch is possible).
    pub fn verify_slots(
        &self,
        first: u64,
        end: u64,
        row_len: usize,
        found: &mut dyn FnMut(Error),
    ) -> Result<u64> {
        const CHUNK_BYTES: u64 = 1 << 20;
        let stride = self.slot_len;
        let per_read = (CHUNK_BYTES / stride).max(1);
        let mut rows = 0u64;
        let mut buf = Vec::new();
        let mut next = first;
        let (byte_from, byte_to) = (self.slot_offset(first), self.slot_offset(end.min(self.slots)));
        for (seg_from, seg_to) in self.data_segments(byte_from, byte_to)? {
            let mut slot = self.slot_at_byte(seg_from).max(next);
            let end = (seg_to - HEADER_LEN).div_ceil(stride).min(end).min(self.slots);
            next = next.max(end);
            while slot < end {
                let n = per_read.min(end - slot);
                buf.resize((n * stride) as usize, 0);
                self.read_at(&mut buf, self.slot_offset(slot))?;
                for (i, stored) in buf.chunks_exact(stride as usize).enumerate() {
                    let index = slot + i as u64;
                    if !self.slot_is_sound(index, stored) {
                        found(self.slot_damage(index));
                        continue;
                    }
                    rows += stored[..self.slab_len as usize]
                        .chunks_exact(row_len)
                        .take_while(|r| super::schema::Schema::is_present(r))
                        .count() as u64;
                }
                slot += n;
            }
        }
        Ok(rows)
    }

    /// Appends slot `slot_index` as stored: `rows` (`slab_len` bytes), then its check in
    /// version 3. An all-zero slot is stored all zero (an empty slot, as a hole reads).
    pub fn encode_slot(&self, slot_index: u64, rows: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(rows);
        if self.has_checks() {
            let check = if rows.iter().all(|&b| b == 0) {
                0
            } else {
                unit_check(slot_index, rows)
            };
            out.extend_from_slice(&check.to_le_bytes());
        }
    }

    /// Fills in the checks of slots laid out in `buf` (version 3): for each `(slot_index, at)`
    /// the slot's rows are `buf[at..at + slab_len]` and its check goes in the 4 bytes after
    /// them, as `encode_slot` writes it (zero for an all-zero slot). Four slots are hashed side
    /// by side (`small_crc::crc4`): a CRC of a few dozen bytes is one serial chain of lookups,
    /// and a call of `crc32fast` per slot costs more than the hashing.
    pub fn fill_checks(&self, buf: &mut [u8], slots: &[(u64, usize)]) {
        let slab = self.slab_len as usize;
        let nonzero = |rows: &[u8]| rows.iter().any(|&b| b != 0);
        let mut quads = slots.chunks_exact(4);
        for quad in &mut quads {
            let rows: [&[u8]; 4] = std::array::from_fn(|j| &buf[quad[j].1..quad[j].1 + slab]);
            let mut checks = small_crc::crc4(std::array::from_fn(|j| quad[j].0), rows);
            for (check, rows) in checks.iter_mut().zip(rows) {
                if !nonzero(rows) {
                    *check = 0;
                }
            }
            for (&(_, at), check) in quad.iter().zip(checks) {
                buf[at + slab..at + slab + 4].copy_from_slice(&check.to_le_bytes());
            }
        }
        for &(slot_index, at) in quads.remainder() {
            let rows = &buf[at..at + slab];
            let check = if nonzero(rows) {
                unit_check(slot_index, rows)
            } else {
                0
            };
            buf[at + slab..at + slab + 4].copy_from_slice(&check.to_le_bytes());
        }
    }

    /// Writes slot `slot_index` whole (`rows` = `slab_len` bytes) with its check.
    pub fn write_slot(&self, slot_index: u64, rows: &[u8]) -> Result<()> {
        let mut buf = Vec::with_capacity(self.slot_len as usize);
        self.encode_slot(slot_index, rows, &mut buf);
        self.write_at(&buf, self.slot_offset(slot_index))
    }

    pub fn file(&self) -> &File {
        &self.file
    }

    /// Header plus every slot.
    pub fn logical_len(&self) -> u64 {
        HEADER_LEN + self.slots * self.slot_len
    }

    /// Byte offset of slot `slot_index` (its first row).
    pub fn slot_offset(&self, slot_index: u64) -> u64 {
        HEADER_LEN + slot_index * self.slot_len
    }

    /// The slot holding byte `offset` (at or after the header).
    pub fn slot_at_byte(&self, offset: u64) -> u64 {
        (offset.max(HEADER_LEN) - HEADER_LEN) / self.slot_len
    }

    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        read_full_at(&self.file, buf, offset).map_err(|e| Error::io("read", &self.path, e))
    }

    pub fn write_at(&self, buf: &[u8], offset: u64) -> Result<()> {
        vfs::write_at(&self.file, buf, offset).map_err(|e| Error::io("write", &self.path, e))
    }

    /// Flushes written data to disk (fdatasync); nothing while syncs are deferred.
    pub fn sync(&self) -> Result<()> {
        if self.sync_deferred {
            return Ok(());
        }
        vfs::sync_data(&self.file).map_err(|e| Error::io("sync", &self.path, e))
    }

    /// With `deferred`, leaves this handle's syncs to the import that made its unpublished
    /// series directory.
    pub fn with_syncs_deferred(mut self, deferred: bool) -> Self {
        self.sync_deferred = deferred;
        self
    }

    /// The data segments (runs between holes) overlapping `[from, to)`, clipped to it.
    pub fn data_segments(&self, from: u64, to: u64) -> Result<Vec<(u64, u64)>> {
        data_segments(&self.file, from, to).map_err(|e| Error::io("seek in", &self.path, e))
    }

    /// The first data byte at or after `offset` (`SEEK_DATA`); `None` when only holes follow.
    pub fn seek_data(&self, offset: u64) -> Result<Option<u64>> {
        lseek(&self.file, offset, libc::SEEK_DATA).map_err(|e| Error::io("seek in", &self.path, e))
    }

    /// The first hole at or after `offset` (`SEEK_HOLE`; the end of the file counts as one).
    pub fn seek_hole(&self, offset: u64) -> Result<Option<u64>> {
        lseek(&self.file, offset, libc::SEEK_HOLE).map_err(|e| Error::io("seek in", &self.path, e))
    }

    /// Deallocates `[from, to)` (both block-aligned by the caller); reads return zeros after.
    pub fn punch_hole(&self, from: u64, to: u64) -> Result<()> {
        punch_hole(&self.file, from, to).map_err(|e| Error::io("punch a hole in", &self.path, e))
    }
}

/// CRC-32 (IEEE, reflected, as `crc32fast` and zlib compute it) by slice-by-8 tables, four
/// inputs at a time: for the short inputs of slot checks, where `crc32fast` cannot use its
/// folding instructions and each CRC is one serial chain of lookups.
mod small_crc {
    const fn tables() -> [[u32; 256]; 8] {
        let mut t = [[0u32; 256]; 8];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            t[0][i] = c;
            i += 1;
        }
        let mut i = 0;
        while i < 256 {
            let mut j = 1;
            while j < 8 {
                t[j][i] = (t[j - 1][i] >> 8) ^ t[0][(t[j - 1][i] & 0xff) as usize];
                j += 1;
            }
            i += 1;
        }
        t
    }

    static TABLES: [[u32; 256]; 8] = tables();

    /// Eight bytes into the running CRC `c`.
    #[inline(always)]
    fn step8(c: u32, b: &[u8]) -> u32 {
        let t = &TABLES;
        let lo = c ^ u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][b[4] as usize]
            ^ t[2][b[5] as usize]
            ^ t[1][b[6] as usize]
            ^ t[0][b[7] as usize]
    }

    #[inline(always)]
    fn step1(c: u32, b: u8) -> u32 {
        (c >> 8) ^ TABLES[0][((c ^ u32::from(b)) & 0xff) as usize]
    }

    /// `unit_check(index[j], data[j])` for four inputs of one length.
    pub fn crc4(index: [u64; 4], data: [&[u8]; 4]) -> [u32; 4] {
        let mut c = [!0u32; 4];
        for j in 0..4 {
            c[j] = step8(c[j], &index[j].to_le_bytes());
        }
        let n = data[0].len();
        let mut at = 0;
        while at + 8 <= n {
            for j in 0..4 {
                c[j] = step8(c[j], &data[j][at..at + 8]);
            }
            at += 8;
        }
        while at < n {
            for j in 0..4 {
                c[j] = step1(c[j], data[j][at]);
            }
            at += 1;
        }
        c.map(|c| !c)
    }
}

/// Creates `dir/name` so that a crash never leaves a headerless file under that name: written
/// as `.name.tmp` with `header` at offset 0, sized sparse to `len_bytes`, fsynced (with
/// `sync`; else the caller makes it durable before `dir` is in place), renamed into place. The
/// caller fsyncs the directory once its files are all in place.
pub fn create_file_atomically(
    dir: &Path,
    name: &str,
    header: &[u8],
    len_bytes: u64,
    sync: bool,
) -> Result<File> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    let file = files::create_temp(&tmp, 0o644)?;
    vfs::write_at(&file, header, 0).map_err(|e| Error::io("write", &tmp, e))?;
    vfs::set_len(&file, len_bytes).map_err(|e| Error::io("size", &tmp, e))?;
    if sync {
        vfs::sync_all(&file).map_err(|e| Error::io("sync", &tmp, e))?;
    }
    vfs::rename(&tmp, &path).map_err(|e| Error::io("rename", &path, e))?;
    Ok(file)
}

/// `pread` until `buf` is full; bytes past the end of the file read as zeros.
pub fn read_full_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => {
                buf[done..].fill(0);
                return Ok(());
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn lseek(file: &File, offset: u64, whence: libc::c_int) -> io::Result<Option<u64>> {
    let offset = libc::off_t::try_from(offset).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: lseek on a valid descriptor owned by `file` has no memory effects.
    let at = unsafe { libc::lseek(file.as_raw_fd(), offset, whence) };
    if at < 0 {
        let err = io::Error::last_os_error();
        // ENXIO: no data (SEEK_DATA) or no hole (SEEK_HOLE) at or after offset.
        if err.raw_os_error() == Some(libc::ENXIO) {
            return Ok(None);
        }
        return Err(err);
    }
    Ok(Some(at as u64))
}

/// The first data byte of `file` at or after `offset` (`SEEK_DATA`); `None` when only holes
/// follow.
pub fn next_data(file: &File, offset: u64) -> io::Result<Option<u64>> {
    lseek(file, offset, libc::SEEK_DATA)
}

/// Walks `SEEK_DATA`/`SEEK_HOLE` from `from` to `to`: the allocated runs, clipped to the range.
/// File systems without hole reporting report one run (the whole range), which stays correct.
pub fn data_segments(file: &File, from: u64, to: u64) -> io::Result<Vec<(u64, u64)>> {
    let mut segments = Vec::new();
    let mut at = from;
    while at < to {
        let Some(start) = lseek(file, at, libc::SEEK_DATA)? else {
            break;
        };
        if start >= to {
            break;
        }
        let end = lseek(file, start, libc::SEEK_HOLE)?.unwrap_or(to).min(to);
        segments.push((start, end));
        at = end;
    }
    Ok(segments)
}

/// `fallocate(PUNCH_HOLE | KEEP_SIZE)` over `[from, to)`.
pub fn punch_hole(file: &File, from: u64, to: u64) -> io::Result<()> {
    if to <= from {
        return Ok(());
    }
    vfs::fallocate(
        file,
        libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
        from,
        to - from,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_way_crc_is_crc32fast_s() {
        let bytes: Vec<u8> = (0..4 * 300u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for len in 0..300usize {
            let data: [&[u8]; 4] = std::array::from_fn(|j| &bytes[j * 300..j * 300 + len]);
            let index = std::array::from_fn(|j| (len as u64) << (j * 16) | j as u64);
            let want = std::array::from_fn(|j| unit_check(index[j], data[j]));
            assert_eq!(small_crc::crc4(index, data), want, "length {len}");
        }
    }

    #[test]
    fn checks_filled_in_many_at_a_time_are_encode_slot_s() {
        use crate::db::config::Layout;
        use crate::db::schema::Schema;
        use crate::db::time::{Granularity, Period};
        let tmp = tempfile::tempdir().unwrap();
        for (depth, spec) in [(1u32, "v:i64"), (3, "a:f64,b:i64,c:f64"), (2, "b:bool")] {
            let config = Config {
                layout: Layout::Grid,
                bucket_ns: 0,
                granularity: Granularity::from_ns(1_000_000_000).unwrap(),
                period: Period::Day,
                depth,
                time_column: "time".into(),
                schema: Schema::parse_spec(spec).unwrap(),
                keys: Default::default(),
                codec: Default::default(),
                timezone: Default::default(),
                date_order: None,
                decimal_comma: false,
            };
            let key = PartitionKey::of(Period::Day, 86_400_000_000_000 * i64::from(depth));
            let p = Partition::create(tmp.path(), &config, key, false).unwrap();
            assert!(p.has_checks());
            let slab = p.slab_len as usize;
            let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(depth);
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            for n in 0..11usize {
                // `n` slots at increasing indices, some all zero, with gaps of zeros between.
                let mut want = Vec::new();
                let mut buf = Vec::new();
                let mut slots = Vec::new();
                let mut index = next() % 1000;
                for _ in 0..n {
                    let gap = (next() % 3) as usize * 7;
                    want.resize(want.len() + gap, 0);
                    let rows: Vec<u8> = if next() % 4 == 0 {
                        vec![0; slab]
                    } else {
                        (0..slab).map(|_| next() as u8).collect()
                    };
                    slots.push((index, want.len()));
                    p.encode_slot(index, &rows, &mut want);
                    buf.resize(buf.len() + gap, 0);
                    buf.extend_from_slice(&rows);
                    buf.extend_from_slice(&[0xAA; 4]);
                    index += 1 + next() % 5;
                }
                p.fill_checks(&mut buf, &slots);
                assert!(buf == want, "depth {depth}, {n} slots");
            }
        }
    }

    #[test]
    fn slot_checks_hold_across_large_reads_and_catch_one_damaged_slot() {
        use crate::db::config::Layout;
        use crate::db::schema::Schema;
        use crate::db::time::{Granularity, Period};
        let tmp = tempfile::tempdir().unwrap();
        let config = Config {
            layout: Layout::Grid,
            bucket_ns: 0,
            granularity: Granularity::from_ns(1_000_000_000).unwrap(),
            period: Period::Day,
            depth: 2,
            time_column: "time".into(),
            schema: Schema::parse_spec("v:i64").unwrap(),
            keys: Default::default(),
            codec: Default::default(),
            timezone: Default::default(),
            date_order: None,
            decimal_comma: false,
        };
        let key = PartitionKey::of(Period::Day, 0);
        let p = Partition::create(tmp.path(), &config, key, false).unwrap();
        assert!(p.has_checks());
        // 20,000 slots (past the parallel threshold); before 10,000 every third one is empty.
        let n = 20_000u64;
        let mut slots = Vec::new();
        let mut want = Vec::new();
        for i in 0..n {
            let mut rows = vec![0u8; p.slab_len as usize];
            if i % 3 != 0 || i >= 10_000 {
                rows[0] = 1;
                rows[1..9].copy_from_slice(&(i as i64).to_le_bytes());
            }
            p.encode_slot(i, &rows, &mut slots);
            want.extend_from_slice(&rows);
        }
        p.write_at(&slots, p.slot_offset(0)).unwrap();
        let mut got = Vec::new();
        p.read_slots(0, n, &mut got).unwrap();
        assert!(got == want, "rows come back without their checks");
        p.read_slots(7, 3, &mut got).unwrap();
        assert!(got == want[7 * p.slab_len as usize..10 * p.slab_len as usize]);
        // One flipped bit in slot 15,001 (among full slots: the four-way path), or in slot
        // 1,000 (next to empty slots), or one byte set in the empty slot 3,000: errors naming it.
        for (slot, at) in [(15_001u64, 3u64), (1_000, 5), (3_000, 0)] {
            let offset = p.slot_offset(slot) + at;
            let mut byte = [0u8];
            p.read_at(&mut byte, offset).unwrap();
            p.write_at(&[byte[0] ^ 0x04], offset).unwrap();
            let err = p.read_slots(0, n, &mut got).unwrap_err();
            let Error::Checksum(damage) = err else {
                panic!("{err}");
            };
            assert_eq!(damage.offset, p.slot_offset(slot));
            assert_eq!(damage.from_ns, slot as i64 * 1_000_000_000);
            let mut found = Vec::new();
            p.verify(config.schema.row_len(), &mut |e| found.push(e.to_string()))
                .unwrap();
            assert_eq!(found.len(), 1, "{found:?}");
            p.write_at(&byte, offset).unwrap();
        }
        let rows = p.verify(config.schema.row_len(), &mut |_| {}).unwrap();
        assert_eq!(rows, 10_000 - 3_334 + 10_000);
    }

    #[test]
    fn header_round_trips_and_detects_corruption() {
        let h = Header {
            format_version: 1,
            layout_code: 1,
            start_ns: -5,
            end_ns: 10,
            granularity_ns: 1,
            depth: 3,
            row_len: 17,
            schema_hash: 42,
            bucket_ns: 0,
            entry_len: 0,
        };
        let mut b = h.encode();
        assert_eq!(Header::decode(&b).unwrap(), h);
        b[20] ^= 1;
        assert!(Header::decode(&b).unwrap_err().contains("checksum"));
        assert!(Header::decode(&[0u8; HEADER_ENCODED_LEN])
            .unwrap_err()
            .contains("magic"));
        let bucket = Header {
            layout_code: 2,
            bucket_ns: 1_000_000_000,
            ..h
        };
        let mut b = bucket.encode();
        assert_eq!(Header::decode(&b).unwrap(), bucket);
        b[66] ^= 1;
        assert!(Header::decode(&b).unwrap_err().contains("checksum"));
    }
}
