//! One partition of the `bucket` layout: a sparse directory file (`YYYY.xs`: a 4 KiB header
//! block, then one fixed-size entry per time bucket at an offset computed from the time: 16
//! bytes in version 1, 32 + 16 per summarized column with min/max summaries in version 2) and
//! an append-only data file (`YYYY.xs.data`: the same header block, then bucket records). A bucket
//! is rewritten by appending its new record and repointing its entry; the old record becomes
//! garbage. Data is appended and fdatasynced before any entry points to it, so a crash leaves
//! at most unreferenced bytes at the end of the data file. See docs/FORMAT.md.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::codec::{self, RecordLayout, Select, COLUMNAR_TAG};
use super::config::{sync_dir, Config, RecordCodec};
use super::files::{self, Mode};
use super::partition::{
    create_file_atomically, data_segments, next_data, punch_hole, read_full_at, unit_check, Header,
    CHECKSUM_VERSION, HEADER_ENCODED_LEN, HEADER_FIELDS_LEN, HEADER_LEN, PARTITION_VERSION,
};
use super::summary::{self, SummaryLayout, LOCATOR_LEN};
use super::time::PartitionKey;
use super::vfs;
use crate::error::{Error, Result};

/// Partition header version of bucket partitions whose entries carry min/max summaries: the
/// version `create` and `defrag` write. Version 1 (16-byte entries) still reads and takes writes.
pub const SUMMARY_VERSION: u32 = 2;

/// Partition header version of bucket partitions whose records may be columnar (a database
/// with `codec = "columnar"`): version 3's entries and checks, and each record either raw or
/// columnar, told apart by its first byte (docs/FORMAT.md, "Columnar records").
pub const COLUMNAR_VERSION: u32 = 4;

/// Partition header version of columnar bucket partitions whose streams may also be pco pages
/// or a linear progression (docs/FORMAT.md, "Columnar records"): a point read decodes a page
/// of each column instead of the whole bucket. Version 4 still reads and takes writes as
/// itself.
pub const PAGED_VERSION: u32 = 5;

/// Whether partitions of `version` hold columnar records (versions 4 and 5).
pub fn is_columnar_version(version: u32) -> bool {
    matches!(version, COLUMNAR_VERSION | PAGED_VERSION)
}

/// Bytes of the check that ends each record of a version-3 partition.
pub const RECORD_CHECK_LEN: usize = 4;
/// Where a version-3 directory entry keeps its check (u32, in bytes 24..28, reserved in
/// version 2).
const ENTRY_CHECK_AT: usize = 24;

/// The version of the partitions `create` and `defrag` write: `CHECKSUM_VERSION` (summaries
/// and checks), unless its larger entries would pass the partition size limit (a database
/// created with 16-byte entries near that limit), where version 1 keeps it working.
pub fn newest_version(config: &Config, key: PartitionKey) -> u32 {
    let entry_len = entry_len_of(&SummaryLayout::new(&config.schema), SUMMARY_VERSION);
    if dir_len_of(config, key, entry_len).is_some_and(|len| len <= super::config::MAX_PARTITION_BYTES) {
        match config.codec {
            RecordCodec::Raw => CHECKSUM_VERSION,
            RecordCodec::Columnar => PAGED_VERSION,
        }
    } else {
        PARTITION_VERSION
    }
}

/// The header of a bucket partition of `version` (1, `SUMMARY_VERSION` or `CHECKSUM_VERSION`).
pub fn header_of(config: &Config, key: PartitionKey, version: u32) -> Header {
    let mut header = Header::for_partition(config, key);
    if version != PARTITION_VERSION {
        header.format_version = version;
        // At most 32 + 16 × 30 bytes.
        header.entry_len = entry_len_of(&SummaryLayout::new(&config.schema), version) as u32;
    }
    header
}

/// Bytes of one directory entry of a partition of `version`: the 16-byte locator alone
/// (version 1), or with its check and the summaries of `summaries`' columns.
fn entry_len_of(summaries: &SummaryLayout, version: u32) -> u64 {
    if version == PARTITION_VERSION {
        LOCATOR_LEN as u64
    } else {
        summaries.entry_len() as u64
    }
}

/// Logical size of partition `key`'s directory with entries of `entry_len` bytes (`None` if
/// it overflows).
fn dir_len_of(config: &Config, key: PartitionKey, entry_len: u64) -> Option<u64> {
    let buckets = ((key.end_ns() - key.start_ns()) / config.bucket_ns.max(1)) as u64;
    buckets.checked_mul(entry_len)?.checked_add(HEADER_LEN)
}

/// Suffix added to the directory file's name to name the data file.
pub const DATA_SUFFIX: &str = ".data";
/// Offset in the directory's header block of the committed data length (u64; outside the
/// header checksum because `sync` rewrites it).
const COMMITTED_AT: u64 = HEADER_FIELDS_LEN as u64;
/// Offset in the directory's header block of the generation of the data file it indexes (u64).
const DIR_GENERATION_AT: u64 = COMMITTED_AT + 8;
/// Offset in the data file's header block of its generation (u64): `defrag` writes a new
/// data file with the next generation, so a directory and a data file that do not belong
/// together (a crash between the two renames) are recognised.
const DATA_GENERATION_AT: u64 = HEADER_FIELDS_LEN as u64;
// `BucketPartition::open` takes both generations from the header block it reads.
const _: () = assert!(DIR_GENERATION_AT + 8 <= HEADER_ENCODED_LEN as u64);
const _: () = assert!(DATA_GENERATION_AT + 8 <= HEADER_ENCODED_LEN as u64);
/// Name suffixes of the files a bucket defrag writes before renaming them into place.
pub const DEFRAG_DATA_SUFFIX: &str = ".xs.data.defrag";
pub const DEFRAG_DIR_SUFFIX: &str = ".xs.dir.defrag";

/// Temporary names of a bucket defrag's new data and directory files for `key`.
pub fn defrag_names(key: PartitionKey) -> (String, String) {
    let stem = key.to_string();
    (
        format!(".{stem}{DEFRAG_DATA_SUFFIX}"),
        format!(".{stem}{DEFRAG_DIR_SUFFIX}"),
    )
}

/// Appends the `W`-byte little-endian offsets of `raw` to `units`; false (with `units` left
/// partly filled) unless they are non-decreasing and below `limit`.
#[inline]
fn push_units<const W: usize>(raw: &[u8], limit: u64, units: &mut Vec<u64>) -> bool {
    let mut prev = 0u64;
    let mut ok = true;
    units.extend(raw.chunks_exact(W).map(|c| {
        let mut a = [0u8; 8];
        a[..W].copy_from_slice(c);
        let u = u64::from_le_bytes(a);
        // Checked without branching out of the loop; the caller refuses the record.
        ok &= u >= prev && u < limit;
        prev = u;
        u
    }));
    ok
}

/// Bytes read per `pread` when walking the data.
const READ_BYTES: u64 = 1 << 20;
/// Bytes read per `pread` when walking the directory: a buffer small enough to stay in the
/// allocator's heap (a 1 MiB one is mapped, faulted in and unmapped at every walk).
const DIR_READ_BYTES: u64 = 64 << 10;
thread_local! {
    /// `read_records`' buffer, kept per thread between calls.
    static READ_BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}
/// Hole-punching granularity of the directory.
const BLOCK_LEN: u64 = 4096;
/// Directory stretches up to this long are read rather than probed with `SEEK_DATA` and
/// `SEEK_HOLE` first: two blocks cost less to read than two seeks (a read over thousands of
/// series reads a day or two of each), and what the bytes hold says whether a seek was needed.
const SHORT_DIR_BYTES: u64 = 2 * BLOCK_LEN;

/// A directory entry: where a bucket's record lies in the data file. All zero = empty bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub offset: u64,
    pub len: u32,
    pub rows: u32,
}

impl Entry {
    /// The 16-byte locator: the whole entry in version 1, the first bytes in version 2.
    pub fn encode(&self) -> [u8; LOCATOR_LEN] {
        let mut b = [0u8; LOCATOR_LEN];
        b[0..8].copy_from_slice(&self.offset.to_le_bytes());
        b[8..12].copy_from_slice(&self.len.to_le_bytes());
        b[12..16].copy_from_slice(&self.rows.to_le_bytes());
        b
    }

    /// Decodes the locator from the first 16 bytes of `b` (the caller passes a whole entry).
    pub fn decode(b: &[u8]) -> Entry {
        let mut o = [0u8; 8];
        o.copy_from_slice(&b[0..8]);
        Entry {
            offset: u64::from_le_bytes(o),
            len: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
            rows: u32::from_le_bytes([b[12], b[13], b[14], b[15]]),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// End of the record in the data file.
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(u64::from(self.len))
    }
}

/// An entry to write: its locator and the bounds of its record's rows (16 bytes per summarized
/// column; empty when the directory is of version 1, which has no summaries).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewEntry {
    pub entry: Entry,
    pub bounds: Box<[u8]>,
}

/// Width in bytes of the time offsets of a record whose largest offset is `max_unit`.
pub fn offset_width(max_unit: u64) -> usize {
    if max_unit <= u64::from(u8::MAX) {
        1
    } else if max_unit <= u64::from(u16::MAX) {
        2
    } else if max_unit <= u64::from(u32::MAX) {
        4
    } else {
        8
    }
}

/// Appends the record of a bucket to `out`: the offset width `w`, `n` offsets of `w` bytes
/// (granularity units from the bucket start, non-decreasing), then the `n` rows.
pub fn encode_record(units: &[u64], rows: &[u8], out: &mut Vec<u8>) {
    let w = offset_width(units.last().copied().unwrap_or(0));
    out.push(w as u8);
    for &u in units {
        out.extend_from_slice(&u.to_le_bytes()[..w]);
    }
    out.extend_from_slice(rows);
}

/// Length in bytes of the record `encode_record` writes.
pub fn record_len(units: &[u64], row_len: usize) -> usize {
    let w = offset_width(units.last().copied().unwrap_or(0));
    1 + units.len() * (w + row_len)
}

/// The rows of one bucket, decoded: time offsets (granularity units) and the rows back to back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    pub units: Vec<u64>,
    pub rows: Vec<u8>,
}

impl Rows {
    pub fn clear(&mut self) {
        self.units.clear();
        self.rows.clear();
    }

    pub fn len(&self) -> usize {
        self.units.len()
    }

    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    pub fn push(&mut self, unit: u64, row: &[u8]) {
        self.units.push(unit);
        self.rows.extend_from_slice(row);
    }
}

/// An open bucket partition.
#[derive(Debug)]
pub struct BucketPartition {
    pub key: PartitionKey,
    pub dir_path: PathBuf,
    pub data_path: PathBuf,
    dir_file: File,
    data_file: File,
    /// Buckets in this partition: (end - start) / bucket width.
    pub buckets: u64,
    pub bucket_ns: i64,
    pub granularity_ns: i64,
    /// Granularity units per bucket.
    pub units_per_bucket: u64,
    pub row_len: usize,
    /// Partition header version: 1 (16-byte entries), `SUMMARY_VERSION`, or `CHECKSUM_VERSION`
    /// (summaries, and checks on entries and records).
    pub version: u32,
    /// Whether a writer opened it: a writer salvages an entry that fails its check when the
    /// record it locates passes its own (see `salvage`), and rewrites that bucket.
    writable: bool,
    /// Whether the directory file is sparse (the file system reports holes): only then is an
    /// allocated all-zero directory block known to be damage (xs punches blocks it empties).
    sparse_dir: bool,
    /// Buckets whose entry failed its check and was salvaged: rewritten by the next write.
    salvaged: Mutex<std::collections::BTreeSet<u64>>,
    /// Bytes of one directory entry: 16, or the summary layout's length.
    pub entry_len: u64,
    /// Which columns the entries summarize (used only when `version` has summaries).
    pub summaries: SummaryLayout,
    /// Where the next record is appended (the data file's length).
    data_end: Mutex<u64>,
    /// Where each column of a row lies, for columnar records (version 4 only).
    columnar: Option<RecordLayout>,
    /// In a series directory an import has not yet put in place: no fsyncs (`create`).
    sync_deferred: bool,
}

/// The error for partition `key` of `dir` whose directory file is there and data file is not.
pub fn missing_data_file(dir: &Path, key: PartitionKey) -> Error {
    Error::MissingFile {
        path: dir.join(data_file_name(key)),
        reason: format!(
            "the data file of partition {key}, whose directory {} is here, is missing or \
             unreadable; restore it from a backup (its rows cannot be read without it)",
            dir.join(key.file_name()).display()
        ),
    }
}

/// The data file's name for a partition key.
pub fn data_file_name(key: PartitionKey) -> String {
    format!("{}{DATA_SUFFIX}", key.file_name())
}

impl BucketPartition {
    fn new(
        key: PartitionKey,
        dir: &Path,
        config: &Config,
        dir_file: File,
        data_file: File,
        data_end: u64,
        version: u32,
    ) -> BucketPartition {
        // Validated config: bucket_ns divides a day (hence every partition) and is a multiple
        // of the granularity.
        let bucket_ns = config.bucket_ns.max(1);
        let granularity_ns = config.granularity.ns();
        let summaries = SummaryLayout::new(&config.schema);
        let entry_len = entry_len_of(&summaries, version);
        BucketPartition {
            key,
            dir_path: dir.join(key.file_name()),
            data_path: dir.join(data_file_name(key)),
            dir_file,
            data_file,
            buckets: ((key.end_ns() - key.start_ns()) / bucket_ns) as u64,
            bucket_ns,
            granularity_ns,
            units_per_bucket: config.units_per_bucket(),
            row_len: config.schema.row_len(),
            version,
            entry_len,
            summaries,
            writable: false,
            sparse_dir: false,
            sync_deferred: false,
            salvaged: Mutex::new(std::collections::BTreeSet::new()),
            data_end: Mutex::new(data_end),
            columnar: is_columnar_version(version).then(|| RecordLayout::new(&config.schema)),
        }
    }

    /// Whether records may be columnar (versions 4 and 5).
    pub fn is_columnar(&self) -> bool {
        self.columnar.is_some()
    }

    /// Whether entries and records carry checks (versions 3 and 4).
    pub fn has_checks(&self) -> bool {
        self.version >= CHECKSUM_VERSION
    }

    /// Logical size of the directory file.
    pub fn dir_logical_len(&self) -> u64 {
        HEADER_LEN + self.buckets * self.entry_len
    }

    /// Whether entries carry summaries (version 2).
    pub fn has_summaries(&self) -> bool {
        self.version != PARTITION_VERSION
    }

    /// Opens both files of an existing partition and checks their headers. A writer also
    /// drops unreferenced bytes that an interrupted write left at the end of the data file.
    pub fn open(dir: &Path, config: &Config, key: PartitionKey, writable: bool) -> Result<BucketPartition> {
        let dir_path = dir.join(key.file_name());
        let data_path = dir.join(data_file_name(key));
        // Either version is read; anything else is compared with the newest and refused.
        // Each file with its version and its header block, which holds its generation.
        let open_file = |path: &Path| -> Result<(File, u32, [u8; HEADER_ENCODED_LEN])> {
            let mode = if writable { Mode::ReadWrite } else { Mode::Read };
            let file = files::open(path, mode, "open")?;
            let mut block = [0u8; HEADER_ENCODED_LEN];
            read_full_at(&file, &mut block, 0).map_err(|e| Error::io("read", path, e))?;
            let found =
                Header::decode(&block).map_err(|reason| super::partition::header_error(path, key, reason))?;
            let version = match found.format_version {
                PARTITION_VERSION | CHECKSUM_VERSION | COLUMNAR_VERSION | PAGED_VERSION => {
                    found.format_version
                }
                _ => SUMMARY_VERSION,
            };
            if let Some(reason) = found.mismatch(&header_of(config, key, version)) {
                return Err(Error::ForeignPartition {
                    path: path.to_path_buf(),
                    reason,
                });
            }
            Ok((file, version, block))
        };
        let open = |path: &Path| -> Result<(File, u32, [u8; HEADER_ENCODED_LEN])> {
            match open_file(path) {
                // An alter committed its config and was cut before its new file replaced this
                // one: the new file, beside it, is the partition's (docs/FORMAT.md, "Alter").
                // If it was renamed into place meanwhile, the real name holds it: tried again.
                Err(Error::ForeignPartition { .. }) if super::alter::has_pending(path)? => {
                    open_file(&super::alter::pending_path(path)).or_else(|_| open_file(path))
                }
                other => other,
            }
        };
        let (mut dir_file, mut version, mut dir_block) = open(&dir_path)?;
        let (data_file, data_version, data_block) = open(&data_path).map_err(|e| match e {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                missing_data_file(dir, key)
            }
            other => other,
        })?;
        let generation = |block: &[u8; HEADER_ENCODED_LEN], at: u64| {
            let at = at as usize;
            u64::from_le_bytes(block[at..at + 8].try_into().expect("8 bytes"))
        };
        let data_gen = generation(&data_block, DATA_GENERATION_AT);
        if generation(&dir_block, DIR_GENERATION_AT) != data_gen {
            // A defrag renamed its new data file into place and stopped before its new
            // directory followed: finish it (writers only), or refuse to misread.
            let pending = dir.join(defrag_names(key).1);
            let pending_here = files::exists(&pending)?;
            if !writable || !pending_here {
                // Say only what is safe: both files are needed as they are, so the advice is
                // never to move one out (that would hide the partition's rows).
                let reason = if pending_here {
                    format!(
                        "a defrag was interrupted between its two renames: {} is the new data file \
                         and {} the new directory waiting to replace this one; nothing is lost. \
                         Run `xs defrag` (or any write) to finish it, and leave these files in place",
                        data_path.display(),
                        pending.display()
                    )
                } else {
                    format!(
                        "it indexes another generation of {} than the one on disk, and no pending \
                         directory {} is here to finish an interrupted defrag; leave both files in \
                         place and restore this partition from a backup",
                        data_path.display(),
                        pending.display()
                    )
                };
                return Err(Error::Damaged {
                    path: dir_path,
                    reason,
                });
            }
            vfs::rename(&pending, &dir_path).map_err(|e| Error::io("rename", &pending, e))?;
            sync_dir(dir)?;
            (dir_file, version, dir_block) = open(&dir_path)?;
            if generation(&dir_block, DIR_GENERATION_AT) != data_gen {
                return Err(Error::Damaged {
                    path: dir_path,
                    reason: format!(
                        "its data file {} belongs to another directory; restore this partition from a backup",
                        data_path.display()
                    ),
                });
            }
        }
        let len = |file: &File, path: &Path| -> Result<u64> {
            Ok(file.metadata().map_err(|e| Error::io("stat", path, e))?.len())
        };
        if data_version != version {
            return Err(Error::Damaged {
                path: data_path,
                reason: format!(
                    "its header version is {data_version} and its directory's {version}: they do not \
                     belong together; restore from a backup"
                ),
            });
        }
        let data_len = len(&data_file, &data_path)?;
        let mut part = BucketPartition::new(key, dir, config, dir_file, data_file, data_len, version);
        part.writable = writable;
        let dir_meta = part
            .dir_file
            .metadata()
            .map_err(|e| Error::io("stat", &dir_path, e))?;
        part.sparse_dir = {
            use std::os::unix::fs::MetadataExt;
            dir_meta.blocks().saturating_mul(512) < dir_meta.len()
        };
        let dir_len = dir_meta.len();
        if dir_len != part.dir_logical_len() {
            return Err(Error::ForeignPartition {
                path: dir_path,
                reason: format!("its size is {dir_len} bytes, expected {}", part.dir_logical_len()),
            });
        }
        if data_len < HEADER_LEN {
            // Its header block read and matched: the file was cut short, not brought in.
            return Err(Error::Damaged {
                path: data_path,
                reason: format!(
                    "its size is {data_len} bytes, shorter than its {HEADER_LEN}-byte header: the \
                     file was cut short (truncated); restore this partition from a backup"
                ),
            });
        }
        if writable {
            part.drop_unreferenced_tail(data_len)?;
        }
        Ok(part)
    }

    /// After a crash, the data file may end in records no entry points to: cut them off so a
    /// re-run appends where a clean run would have.
    fn drop_unreferenced_tail(&self, data_len: u64) -> Result<()> {
        let committed = self.committed_len()?;
        if data_len <= committed.max(HEADER_LEN) {
            return Ok(());
        }
        let mut end = HEADER_LEN.max(committed);
        // Past damage: what the interrupted write left torn (an entry, or a directory block a
        // power loss left allocated but all zero) points to no record to keep; the re-run of
        // the import writes those buckets again (it first punches such blocks).
        self.for_each_entry_past_damage(0, self.buckets, |_, e| {
            end = end.max(e.end());
            Ok(true)
        })?;
        if end < data_len {
            vfs::set_len(&self.data_file, end).map_err(|e| Error::io("truncate", &self.data_path, e))?;
            vfs::sync_all(&self.data_file).map_err(|e| Error::io("sync", &self.data_path, e))?;
            *self.data_end_lock() = end;
        }
        self.write_committed(end)
    }

    fn committed_len(&self) -> Result<u64> {
        let mut b = [0u8; 8];
        self.read_dir(&mut b, COMMITTED_AT)?;
        Ok(u64::from_le_bytes(b))
    }

    fn write_committed(&self, len: u64) -> Result<()> {
        vfs::write_at(&self.dir_file, &len.to_le_bytes(), COMMITTED_AT)
            .map_err(|e| Error::io("write", &self.dir_path, e))
    }

    /// Creates both files (each as `.NAME.tmp`: header, size, fsync, rename), data file first,
    /// of the newest version (entries with summaries). With `sync_deferred` (a series
    /// directory an import has not yet put in place), nothing is fsynced, now or by `sync`:
    /// the import makes the file system durable before it renames the directory into place.
    pub fn create(
        dir: &Path,
        config: &Config,
        key: PartitionKey,
        sync_deferred: bool,
    ) -> Result<BucketPartition> {
        let (dir_name, data_name) = (key.file_name(), data_file_name(key));
        let part = BucketPartition::create_named(dir, config, key, &dir_name, &data_name, sync_deferred)?;
        if !sync_deferred {
            sync_dir(dir)?;
        }
        Ok(part)
    }

    /// `create` under the file names `dir_name` and `data_name` (`xs alter` writes a
    /// partition's new files beside the old ones); the caller fsyncs the directory.
    pub fn create_as(
        dir: &Path,
        config: &Config,
        key: PartitionKey,
        dir_name: &str,
        data_name: &str,
    ) -> Result<BucketPartition> {
        BucketPartition::create_named(dir, config, key, dir_name, data_name, false)
    }

    fn create_named(
        dir: &Path,
        config: &Config,
        key: PartitionKey,
        dir_name: &str,
        data_name: &str,
        sync_deferred: bool,
    ) -> Result<BucketPartition> {
        let version = newest_version(config, key);
        let entry_len = entry_len_of(&SummaryLayout::new(&config.schema), version);
        let dir_len = dir_len_of(config, key, entry_len)
            .ok_or_else(|| Error::Invalid(format!("partition {key}: too many buckets")))?;
        let header = header_of(config, key, version).encode();
        let make = |name: &str, len: u64| create_file_atomically(dir, name, &header, len, !sync_deferred);
        let data_file = make(data_name, HEADER_LEN)?;
        let dir_file = make(dir_name, dir_len)?;
        let mut part = BucketPartition::new(key, dir, config, dir_file, data_file, HEADER_LEN, version);
        (part.dir_path, part.data_path) = (dir.join(dir_name), dir.join(data_name));
        part.writable = true;
        part.sync_deferred = sync_deferred;
        part.sparse_dir = {
            use std::os::unix::fs::MetadataExt;
            let meta = part
                .dir_file
                .metadata()
                .map_err(|e| Error::io("stat", &part.dir_path, e))?;
            meta.blocks().saturating_mul(512) < meta.len()
        };
        part.write_committed(HEADER_LEN)?;
        Ok(part)
    }

    fn data_end_lock(&self) -> std::sync::MutexGuard<'_, u64> {
        self.data_end
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Length of the data file (header, live records, garbage).
    pub fn data_len(&self) -> u64 {
        *self.data_end_lock()
    }

    pub fn dir_file(&self) -> &File {
        &self.dir_file
    }

    pub fn data_file(&self) -> &File {
        &self.data_file
    }

    fn read_dir(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        read_full_at(&self.dir_file, buf, offset).map_err(|e| Error::io("read", &self.dir_path, e))
    }

    fn read_data(&self, buf: &mut [u8], offset: u64) -> Result<()> {
        read_full_at(&self.data_file, buf, offset).map_err(|e| Error::io("read", &self.data_path, e))
    }

    /// Offset of the entry of bucket `b` in the directory.
    pub fn entry_offset(&self, b: u64) -> u64 {
        HEADER_LEN + b * self.entry_len
    }

    /// Bucket index and time offset (granularity units) of `t_ns`, which lies in the partition.
    pub fn locate(&self, t_ns: i64) -> (u64, u64) {
        let unit = ((t_ns - self.key.start_ns()) / self.granularity_ns) as u64;
        (unit / self.units_per_bucket, unit % self.units_per_bucket)
    }

    /// Start time of bucket `b`.
    pub fn bucket_start_ns(&self, b: u64) -> i64 {
        self.key.start_ns() + b as i64 * self.bucket_ns
    }

    /// The locator of bucket `b`'s entry (in version 3, once its check holds).
    pub fn entry(&self, b: u64) -> Result<Entry> {
        if !self.has_checks() {
            let mut e = [0u8; LOCATOR_LEN];
            self.read_dir(&mut e, self.entry_offset(b))?;
            return Ok(Entry::decode(&e));
        }
        // Entries are at most 32 + 16 × 30 bytes.
        let mut raw = [0u8; 512];
        let raw = &mut raw[..self.entry_len as usize];
        self.read_dir(raw, self.entry_offset(b))?;
        if !self.entry_is_sound(b, raw) {
            return self.salvage(b, raw);
        }
        let entry = Entry::decode(raw);
        if entry.is_empty() && self.sparse_dir {
            // An empty entry in an allocated block: the block must not be all zero (a zeroed
            // block, whose buckets' rows would otherwise vanish). One `lseek` per block.
            let at = self.entry_offset(b);
            let mut block = at / BLOCK_LEN * BLOCK_LEN;
            while block < at + self.entry_len {
                let allocated = next_data(&self.dir_file, block)
                    .map_err(|e| Error::io("seek in", &self.dir_path, e))?
                    .is_some_and(|data| data < block + BLOCK_LEN);
                if allocated {
                    let mut whole = vec![0u8; BLOCK_LEN as usize];
                    self.read_dir(&mut whole, block)?;
                    self.check_blocks(&whole, block, block, block + BLOCK_LEN)?;
                }
                block += BLOCK_LEN;
            }
        }
        Ok(entry)
    }

    /// The check of bucket `b`'s version-3 entry `raw`: CRC-32 of the bucket index, then every
    /// byte of the entry but the check's own four.
    fn entry_check(b: u64, raw: &[u8]) -> u32 {
        let mut h = crc32fast::Hasher::new();
        h.update(&b.to_le_bytes());
        h.update(&raw[..ENTRY_CHECK_AT]);
        h.update(&raw[ENTRY_CHECK_AT + 4..]);
        h.finalize()
    }

    /// Whether a version-3 entry may be used: all zero (an empty bucket, as a hole reads), or
    /// its check holds.
    fn entry_is_sound(&self, b: u64, raw: &[u8]) -> bool {
        let at = ENTRY_CHECK_AT;
        let stored = u32::from_le_bytes([raw[at], raw[at + 1], raw[at + 2], raw[at + 3]]);
        if stored == 0 && raw.iter().all(|&x| x == 0) {
            return true;
        }
        BucketPartition::entry_check(b, raw) == stored
    }

    /// Bucket `b`'s times, `[start, end)`.
    fn bucket_times(&self, b: u64) -> (i64, i64) {
        let start = self.bucket_start_ns(b);
        (start, start.saturating_add(self.bucket_ns))
    }

    /// An entry that failed its check. A reader gets the damage as an error. A writer (whose
    /// write, such as the re-run of an import torn by a kill, rewrites the bucket) keeps the
    /// locator when the record it points to passes its own check, which includes the bucket
    /// index, so the record is this bucket's (the old or the new version, both of which the
    /// re-run turns into the same rows); it marks the bucket for rewriting.
    fn salvage(&self, b: u64, raw: &[u8]) -> Result<Entry> {
        let (from_ns, to_ns) = self.bucket_times(b);
        let damage = || {
            Error::damage(
                &self.dir_path,
                self.entry_offset(b),
                self.entry_len,
                "directory entry",
                from_ns,
                to_ns,
            )
        };
        let e = Entry::decode(raw);
        if !self.writable || e.is_empty() || self.check_entry(b, e).is_err() {
            return Err(damage());
        }
        let mut record = vec![0u8; e.len as usize];
        self.read_data(&mut record, e.offset)?;
        if !self.record_is_sound(b, &record) {
            return Err(damage());
        }
        self.salvaged
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(b);
        Ok(e)
    }

    /// Whether bucket `b`'s entry was salvaged and must be rewritten even if its rows stay.
    pub fn needs_rewrite(&self, b: u64) -> bool {
        self.salvaged
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .contains(&b)
    }

    /// Whether the version-3 record `bytes` of bucket `b` passes its check (its last four
    /// bytes: CRC-32 of the bucket index and the bytes before).
    fn record_is_sound(&self, b: u64, bytes: &[u8]) -> bool {
        let Some(body_len) = bytes.len().checked_sub(RECORD_CHECK_LEN) else {
            return false;
        };
        let (body, check) = bytes.split_at(body_len);
        unit_check(b, body) == u32::from_le_bytes([check[0], check[1], check[2], check[3]])
    }

    /// Checks a version-3 record (`bytes` = `entry.len` bytes) and returns it without its check.
    pub(super) fn checked_record<'b>(&self, b: u64, entry: Entry, bytes: &'b [u8]) -> Result<&'b [u8]> {
        if !self.has_checks() {
            return Ok(bytes);
        }
        if !self.record_is_sound(b, bytes) {
            let (from_ns, to_ns) = self.bucket_times(b);
            return Err(Error::damage(
                &self.data_path,
                entry.offset,
                u64::from(entry.len),
                "record",
                from_ns,
                to_ns,
            ));
        }
        Ok(&bytes[..bytes.len() - RECORD_CHECK_LEN])
    }

    /// Appends bucket `b`'s record of `units` and `rows` as this partition stores it: with its
    /// check in version 3.
    pub fn encode_record(&self, b: u64, units: &[u64], rows: &[u8], out: &mut Vec<u8>) {
        let at = out.len();
        match &self.columnar {
            Some(layout) if codec::decoded_len(layout, units.len()).is_some() => {
                codec::encode(layout, units, rows, out, self.version >= PAGED_VERSION);
                // A bucket of a few rows is smaller raw (each stream has a header): the
                // reader tells the two apart by the first byte.
                if out.len() - at >= record_len(units, self.row_len) {
                    out.truncate(at);
                    encode_record(units, rows, out);
                }
            }
            _ => encode_record(units, rows, out),
        }
        if self.has_checks() {
            let check = unit_check(b, &out[at..]);
            out.extend_from_slice(&check.to_le_bytes());
        }
    }

    /// Refuses a directory block inside `[seg_from, seg_to)` (allocated: a data segment) that
    /// reads all zero. xs punches every block it empties, so in a sparse version-3 directory
    /// such a block is damage (a zeroed block), not empty buckets. `buf` holds the directory
    /// bytes from `buf_at`; a block cut by its edge is read whole when its part here is zero.
    fn check_blocks(&self, buf: &[u8], buf_at: u64, seg_from: u64, seg_to: u64) -> Result<()> {
        let mut first = None;
        self.zeroed_blocks(buf, buf_at, seg_from, seg_to, &mut |e| {
            first.get_or_insert(e);
        })?;
        first.map_or(Ok(()), Err)
    }

    /// Whether a written entry begins before `block` and ends inside it: its last bytes may
    /// be zeros (summaries of zero values), so a block holding only them and empty entries is
    /// all zero yet not erased. The entry's own check covers those bytes when it is read.
    fn entry_runs_into(&self, block: u64) -> Result<bool> {
        let offset_in_dir = block - HEADER_LEN;
        if offset_in_dir.is_multiple_of(self.entry_len) {
            return Ok(false);
        }
        let start = HEADER_LEN + offset_in_dir / self.entry_len * self.entry_len;
        let mut head = vec![0u8; (block - start) as usize];
        self.read_dir(&mut head, start)?;
        Ok(head.iter().any(|&x| x != 0))
    }

    /// Hands each zeroed block `check_blocks` refuses to `found`, as its damage.
    fn zeroed_blocks(
        &self,
        buf: &[u8],
        buf_at: u64,
        seg_from: u64,
        seg_to: u64,
        found: &mut dyn FnMut(Error),
    ) -> Result<()> {
        if !self.sparse_dir {
            return Ok(());
        }
        let lo = buf_at.max(seg_from);
        let hi = (buf_at + buf.len() as u64).min(seg_to);
        let mut block = lo / BLOCK_LEN * BLOCK_LEN;
        let mut whole = Vec::new();
        while block < hi {
            let (a, z) = (block.max(lo), (block + BLOCK_LEN).min(hi));
            let part = &buf[(a - buf_at) as usize..(z - buf_at) as usize];
            let zero = part.iter().all(|&x| x == 0)
                && (z - a == BLOCK_LEN || {
                    whole.resize(BLOCK_LEN as usize, 0);
                    self.read_dir(&mut whole, block)?;
                    whole.iter().all(|&x| x == 0)
                });
            if zero && block >= HEADER_LEN && !self.entry_runs_into(block)? {
                let first = (block - HEADER_LEN) / self.entry_len;
                let end = (block + BLOCK_LEN - HEADER_LEN)
                    .div_ceil(self.entry_len)
                    .min(self.buckets);
                let from_ns = self.bucket_start_ns(first);
                let to_ns = self
                    .bucket_start_ns(end.max(first + 1) - 1)
                    .saturating_add(self.bucket_ns);
                found(Error::damage(
                    &self.dir_path,
                    block,
                    BLOCK_LEN,
                    "directory block (allocated, but all zero: its entries were erased)",
                    from_ns,
                    to_ns,
                ));
            }
            block += BLOCK_LEN;
        }
        Ok(())
    }

    /// Returns to holes the directory blocks a power loss left allocated but all zero (their
    /// entries erased; readers report them as damage). Only for the re-run of an unfinished
    /// import: an all-zero block holds no entry, and those the interrupted import had written
    /// there are in its input, which the re-run writes again. Returns the blocks punched.
    pub fn punch_zeroed_dir_blocks(&self) -> Result<u64> {
        if !self.sparse_dir {
            return Ok(0);
        }
        let len = self.dir_logical_len();
        let segments = data_segments(&self.dir_file, HEADER_LEN, len)
            .map_err(|e| Error::io("seek in", &self.dir_path, e))?;
        let mut block = vec![0u8; BLOCK_LEN as usize];
        let mut punched = 0;
        for (from, to) in segments {
            let mut at = from.max(HEADER_LEN) / BLOCK_LEN * BLOCK_LEN;
            while at < to {
                let end = (at + BLOCK_LEN).min(len);
                let part = &mut block[..(end - at) as usize];
                self.read_dir(part, at)?;
                if at >= HEADER_LEN && part.iter().all(|&x| x == 0) && !self.entry_runs_into(at)? {
                    punch_hole(&self.dir_file, at, end)
                        .map_err(|e| Error::io("punch a hole in", &self.dir_path, e))?;
                    punched += 1;
                }
                at += BLOCK_LEN;
            }
        }
        Ok(punched)
    }

    /// The first bucket at or after `b` whose entry has allocated bytes, or `None` when only
    /// holes follow: a walk over a sparse directory jumps its empty stretches in one `lseek`.
    pub fn next_allocated_bucket(&self, b: u64) -> Result<Option<u64>> {
        if b >= self.buckets {
            return Ok(None);
        }
        let at = next_data(&self.dir_file, self.entry_offset(b))
            .map_err(|e| Error::io("seek in", &self.dir_path, e))?;
        // The entry that holds the data byte (it may start in the block before).
        Ok(at.map(|at| ((at.max(HEADER_LEN) - HEADER_LEN) / self.entry_len).max(b)))
    }

    /// `next_allocated_bucket` for a walk that stops at bucket `end`: where buckets `[b, end)`
    /// are a short stretch of the directory, `b` itself (a walk of them reads them, holes and
    /// all, at the cost of a seek), else the first allocated bucket at or after `b`.
    pub fn next_allocated_bucket_before(&self, b: u64, end: u64) -> Result<Option<u64>> {
        let end = end.min(self.buckets);
        if b < end && self.is_short_stretch(b, end) {
            return Ok(Some(b));
        }
        self.next_allocated_bucket(b)
    }

    /// Whether the entries of buckets `[from, to)` are few enough to read without a seek.
    fn is_short_stretch(&self, from: u64, to: u64) -> bool {
        to.saturating_sub(from).saturating_mul(self.entry_len) <= SHORT_DIR_BYTES
    }

    /// Calls `each(entries)` with the non-empty entries of the whole directory, in bucket
    /// order, a window of at most `window` buckets at a time (memory stays bounded). A window
    /// starts at an allocated entry: a sparse directory's empty stretches are jumped.
    pub fn for_each_entry_window(
        &self,
        window: u64,
        mut each: impl FnMut(&[(u64, Entry)]) -> Result<()>,
    ) -> Result<()> {
        let mut entries = Vec::new();
        let mut next = self.next_allocated_bucket(0)?;
        while let Some(from) = next {
            let to = from.saturating_add(window).min(self.buckets);
            entries.clear();
            self.for_each_entry(from, to, |b, e| {
                entries.push((b, e));
                Ok(true)
            })?;
            each(&entries)?;
            next = self.next_allocated_bucket(to)?;
        }
        Ok(())
    }

    /// Calls `visit(bucket, entry)` for every non-empty entry of buckets `[from, to)`, in
    /// bucket order, reading only the allocated parts of the directory.
    pub fn for_each_entry(
        &self,
        from: u64,
        to: u64,
        mut visit: impl FnMut(u64, Entry) -> Result<bool>,
    ) -> Result<()> {
        self.for_each_summarized_entry(from, to, false, |b, e, _| visit(b, e))
    }

    /// Like `for_each_entry`; with `summaries`, also hands out each entry's bounds (16 bytes
    /// per summarized column) when its check holds: `None` for a version-1 directory, or for
    /// an entry whose check fails (a torn write, bit rot), whose record must then be read.
    pub fn for_each_summarized_entry(
        &self,
        from: u64,
        to: u64,
        summaries: bool,
        visit: impl FnMut(u64, Entry, Option<&[u8]>) -> Result<bool>,
    ) -> Result<()> {
        self.walk_entries(from, to, summaries, false, visit)
    }

    /// Like `for_each_entry`, but damaged entries (and zeroed directory blocks) that cannot be
    /// salvaged are passed over instead of failing the walk: `delete` clears whole buckets
    /// without reading them, so deleting a damaged stretch (then importing it again) repairs it.
    pub fn for_each_entry_past_damage(
        &self,
        from: u64,
        to: u64,
        mut visit: impl FnMut(u64, Entry) -> Result<bool>,
    ) -> Result<()> {
        self.walk_entries(from, to, false, true, |b, e, _| visit(b, e))
    }

    fn walk_entries(
        &self,
        from: u64,
        to: u64,
        summaries: bool,
        past_damage: bool,
        mut visit: impl FnMut(u64, Entry, Option<&[u8]>) -> Result<bool>,
    ) -> Result<()> {
        let (byte_from, byte_to) = (self.entry_offset(from), self.entry_offset(to.min(self.buckets)));
        let entry_len = self.entry_len;
        let checks = self.has_checks();
        let verify = summaries && self.has_summaries() && !checks;
        let (mut buf, mut ok) = (Vec::new(), Vec::new());
        // A short stretch is read first: when every block it touches holds a byte that is not
        // zero, every such block is allocated (a hole reads as zeros), which is what the seeks
        // would have found, and the bytes read are the walk's first read. Otherwise (a hole,
        // or damage that zeroed a block) the seeks tell which.
        let mut read_ahead = false;
        if byte_from < byte_to && byte_to - byte_from <= SHORT_DIR_BYTES {
            buf.resize((byte_to - byte_from) as usize, 0);
            self.read_dir(&mut buf, byte_from)?;
            read_ahead = no_zero_block_part(&buf, byte_from);
        }
        let segments = if read_ahead {
            vec![(byte_from, byte_to)]
        } else {
            data_segments(&self.dir_file, byte_from, byte_to)
                .map_err(|e| Error::io("seek in", &self.dir_path, e))?
        };
        // Entries before this one were handed out already (see `Database::scan_chunks`).
        let mut next = from;
        for (seg_from, seg_to) in segments {
            // Widen to whole entries: an entry may straddle a block edge (4096 need not be a
            // multiple of the entry length); holes read as zeros, empty entries.
            let mut b = ((seg_from - HEADER_LEN) / entry_len).max(next);
            let end = (seg_to - HEADER_LEN).div_ceil(entry_len).min(to);
            next = next.max(end);
            while b < end {
                let n = (DIR_READ_BYTES / entry_len).min(end - b);
                // Read ahead: the one segment is exactly the stretch already in `buf`.
                if !std::mem::take(&mut read_ahead) {
                    buf.resize((n * entry_len) as usize, 0);
                    self.read_dir(&mut buf, self.entry_offset(b))?;
                }
                if checks {
                    let blocks = self.check_blocks(&buf, self.entry_offset(b), seg_from, seg_to);
                    if !past_damage {
                        blocks?;
                    }
                }
                if verify {
                    summary::verify_entries(&buf, entry_len as usize, &mut ok);
                }
                for (i, raw) in buf.chunks_exact(entry_len as usize).enumerate() {
                    let bucket = b + i as u64;
                    let (e, bounds) = if checks {
                        // The entry's check covers its bounds: a sound entry's are usable.
                        if raw[..LOCATOR_LEN].iter().all(|&x| x == 0) && self.entry_is_sound(bucket, raw) {
                            continue;
                        }
                        if self.entry_is_sound(bucket, raw) {
                            let e = Entry::decode(raw);
                            (e, summaries.then(|| &raw[summary::BOUNDS_AT..]))
                        } else {
                            match self.salvage(bucket, raw) {
                                Ok(e) => (e, None),
                                Err(Error::Checksum(_)) if past_damage => continue,
                                Err(e) => return Err(e),
                            }
                        }
                    } else {
                        let e = Entry::decode(raw);
                        (e, (verify && ok[i]).then(|| &raw[summary::BOUNDS_AT..]))
                    };
                    if e.is_empty() {
                        continue;
                    }
                    if bounds.is_some() && !past_damage {
                        // An answer from the bounds reads no record: its entry must at least
                        // point inside the data file (one cut short has lost those rows).
                        self.check_entry(bucket, e)?;
                    }
                    if !visit(bucket, e, bounds)? {
                        return Ok(());
                    }
                }
                b += n;
            }
        }
        Ok(())
    }

    /// Refuses an entry that points outside the data file or at an empty record (a corrupt
    /// directory), before anything is allocated for it.
    fn check_entry(&self, b: u64, entry: Entry) -> Result<()> {
        if entry.len != 0 && entry.offset >= HEADER_LEN && entry.end() > self.data_len() && !self.writable {
            // A reader beside an import: the writer appended this record (fsynced before its
            // entry) after this handle measured the file. Measured again, it may hold it.
            let now = self
                .data_file
                .metadata()
                .map_err(|e| Error::io("stat", &self.data_path, e))?
                .len();
            let mut end = self.data_end_lock();
            *end = (*end).max(now);
        }
        if entry.len == 0 || entry.offset < HEADER_LEN || entry.end() > self.data_len() {
            return Err(Error::Damaged {
                path: self.dir_path.clone(),
                reason: format!(
                    "the entry of bucket {b} points to bytes {}..{} of a {}-byte data file (corrupt); \
                     restore the database from a backup or export what still reads",
                    entry.offset,
                    entry.end(),
                    self.data_len()
                ),
            });
        }
        Ok(())
    }

    /// Reads and decodes the record of `entry` (bucket `b`) into `out`.
    pub fn read_rows(&self, b: u64, entry: Entry, buf: &mut Vec<u8>, out: &mut Rows) -> Result<()> {
        self.read_record(b, entry, buf)?;
        self.decode_into(b, entry, buf, out)
    }

    /// Reads bucket `b`'s record, its entry checked first, into `buf` (exactly its bytes).
    fn read_record(&self, b: u64, entry: Entry, buf: &mut Vec<u8>) -> Result<()> {
        self.check_entry(b, entry)?;
        buf.resize(entry.len as usize, 0);
        self.read_data(buf, entry.offset)
    }

    /// Decodes one record (`bytes` = exactly its `entry.len` bytes) into `out` (cleared first).
    pub fn decode_into(&self, b: u64, entry: Entry, bytes: &[u8], out: &mut Rows) -> Result<()> {
        out.clear();
        if let Some(rows) =
            self.decode_record(b, entry, bytes, &mut out.units, &mut out.rows, None, Select::All)?
        {
            out.rows.extend_from_slice(rows);
        }
        Ok(())
    }

    /// Checks one record and decodes its time offsets into `units` (cleared first); returns
    /// its rows: a raw record's borrowed from `bytes`, so that scans copy them once, straight
    /// to their output; a columnar record's decoded into `scratch`.
    pub fn decode_units<'b>(
        &self,
        b: u64,
        entry: Entry,
        bytes: &'b [u8],
        units: &mut Vec<u64>,
        scratch: &'b mut Vec<u8>,
    ) -> Result<&'b [u8]> {
        self.decode_units_of(b, entry, bytes, units, scratch, None, Select::All)
    }

    /// `decode_units`, rebuilding of a columnar record only the value columns `columns`
    /// marks (`None`: all): the others read as zero with their null bits as stored, so the
    /// caller must read no other column; and of its rows only those `select` picks (with
    /// their offsets alone in `units`). A raw record's rows come whole.
    #[allow(clippy::too_many_arguments)]
    pub fn decode_units_of<'b>(
        &self,
        b: u64,
        entry: Entry,
        bytes: &'b [u8],
        units: &mut Vec<u64>,
        scratch: &'b mut Vec<u8>,
        columns: Option<&[bool]>,
        select: Select,
    ) -> Result<&'b [u8]> {
        match self.decode_record(b, entry, bytes, units, scratch, columns, select)? {
            Some(rows) => Ok(rows),
            None => Ok(scratch),
        }
    }

    /// Whether `bytes` (a record as read) is columnar: a record worth decoding apart from its
    /// reading, on another thread, and in spans (`span_cuts`).
    pub fn is_columnar_record(&self, bytes: &[u8]) -> bool {
        self.columnar.is_some() && bytes.first() == Some(&COLUMNAR_TAG)
    }

    /// Time offsets at which the columnar record `body` (`checked_record`) may be cut into
    /// spans of about `rows` rows that decode apart (`codec::span_cuts`).
    pub fn span_cuts(&self, entry: Entry, body: &[u8], rows: usize) -> Vec<u64> {
        codec::span_cuts(body, entry.rows as usize, rows)
    }

    /// Decodes the rows `select` picks of bucket `b`'s columnar record `body`, its check
    /// passed (`checked_record`), into `decoded`, their time offsets into `units`; of the
    /// value columns, those `columns` marks (see `decode_units_of`).
    #[allow(clippy::too_many_arguments)]
    pub fn decode_columnar_body(
        &self,
        b: u64,
        entry: Entry,
        body: &[u8],
        units: &mut Vec<u64>,
        decoded: &mut Vec<u8>,
        columns: Option<&[bool]>,
        select: Select,
    ) -> Result<()> {
        units.clear();
        let Some(layout) = &self.columnar else {
            return Err(self.columnar_corrupt(
                b,
                entry,
                "a columnar record in a partition of raw records".into(),
            ));
        };
        codec::decode_selected(layout, body, entry.rows as usize, units, decoded, columns, select)
            .map_err(|e| self.columnar_corrupt(b, entry, e.0))?;
        self.check_units(b, entry, units)
    }

    /// Decodes a columnar record's time offsets into `units` and its columns into `parts`
    /// (`codec::decode_columns`: the row flags, and the value columns `columns` marks), of
    /// the rows `select` picks (`units[k]` and row k of each part: the k-th picked row);
    /// `Ok(None)` when the record is stored as rows, which `decode_units_of` reads. Returns
    /// the record's layout, which says each part's width. `coarse`: see `codec::Coarse` (on
    /// the record's time offsets; for `Select::All`).
    #[allow(clippy::too_many_arguments)]
    pub fn decode_columns_of(
        &self,
        b: u64,
        entry: Entry,
        bytes: &[u8],
        units: &mut Vec<u64>,
        parts: &mut Vec<codec::PartValues>,
        columns: Option<&[bool]>,
        select: Select,
        coarse: Option<&dyn Fn(u64, u64) -> bool>,
    ) -> Result<Option<&RecordLayout>> {
        let bytes = self.checked_record(b, entry, bytes)?;
        let (Some(layout), Some(&COLUMNAR_TAG)) = (&self.columnar, bytes.first()) else {
            return Ok(None);
        };
        let coarse = coarse.map(|same| codec::Coarse {
            same,
            last: self.units_per_bucket - 1,
        });
        codec::decode_columns(
            layout,
            bytes,
            entry.rows as usize,
            units,
            parts,
            columns,
            select,
            coarse,
        )
        .map_err(|e| self.columnar_corrupt(b, entry, e.0))?;
        self.check_units(b, entry, units)?;
        Ok(Some(layout))
    }

    /// The error for bucket `b`'s columnar record that does not decode.
    fn columnar_corrupt(&self, b: u64, entry: Entry, why: String) -> Error {
        self.record_corrupt(b, entry, "columnar record", &why)
    }

    /// The error for bucket `b`'s record (`what`: "record" or "columnar record") that does not
    /// decode, saying `why`.
    fn record_corrupt(&self, b: u64, entry: Entry, what: &str, why: &str) -> Error {
        Error::Damaged {
            path: self.data_path.clone(),
            reason: format!(
                "the {what} of bucket {b} at offset {} is corrupt ({why}); restore the database from a backup or export what still reads",
                entry.offset
            ),
        }
    }

    /// Refuses a columnar record's time offsets that are out of order or past the bucket.
    fn check_units(&self, b: u64, entry: Entry, units: &[u64]) -> Result<()> {
        let in_order = units_in_order(units, self.units_per_bucket);
        if !in_order {
            return Err(self.columnar_corrupt(
                b,
                entry,
                "time offsets out of order or out of the bucket".into(),
            ));
        }
        Ok(())
    }

    /// `decode_units`' work: `Some(rows)` borrowed from a raw record, or `None` when the
    /// record was columnar and its rows `select` picks were decoded into `decoded` (cleared
    /// first).
    #[allow(clippy::too_many_arguments)]
    fn decode_record<'b>(
        &self,
        b: u64,
        entry: Entry,
        bytes: &'b [u8],
        units: &mut Vec<u64>,
        decoded: &mut Vec<u8>,
        columns: Option<&[bool]>,
        select: Select,
    ) -> Result<Option<&'b [u8]>> {
        units.clear();
        let bytes = self.checked_record(b, entry, bytes)?;
        if self.is_columnar_record(bytes) {
            self.decode_columnar_body(b, entry, bytes, units, decoded, columns, select)?;
            return Ok(None);
        }
        let corrupt = |why: &str| self.record_corrupt(b, entry, "record", why);
        let n = entry.rows as usize;
        let Some(&w) = bytes.first() else {
            return Err(corrupt("empty"));
        };
        let w = w as usize;
        if !matches!(w, 1 | 2 | 4 | 8) {
            return Err(corrupt("bad offset width"));
        }
        let want = n.checked_mul(w + self.row_len).and_then(|x| x.checked_add(1));
        if want != Some(bytes.len()) {
            return Err(corrupt("length does not match its row count"));
        }
        let offsets = &bytes[1..1 + n * w];
        units.reserve(n);
        // One loop per width: the width is fixed per record, and a loop over fixed-size
        // chunks compiles to plain loads instead of a variable-length copy per offset.
        let in_order = match w {
            1 => push_units::<1>(offsets, self.units_per_bucket, units),
            2 => push_units::<2>(offsets, self.units_per_bucket, units),
            4 => push_units::<4>(offsets, self.units_per_bucket, units),
            _ => push_units::<8>(offsets, self.units_per_bucket, units),
        };
        if !in_order {
            return Err(corrupt("time offsets out of order or out of the bucket"));
        }
        Ok(Some(&bytes[1 + n * w..]))
    }

    /// The rows of bucket `b` (empty when none). Two `pread`s.
    pub fn bucket_rows(&self, b: u64, buf: &mut Vec<u8>, out: &mut Rows) -> Result<Entry> {
        let entry = self.entry(b)?;
        if entry.is_empty() {
            out.clear();
            return Ok(entry);
        }
        self.read_rows(b, entry, buf, out)?;
        Ok(entry)
    }

    /// The rows stored at time offset `unit` of bucket `b`, copied into `out` (cleared first);
    /// returns how many. Two `pread`s; only the matching rows are copied.
    pub fn rows_at(&self, b: u64, unit: u64, buf: &mut Vec<u8>, out: &mut Vec<u8>) -> Result<usize> {
        out.clear();
        let entry = self.entry(b)?;
        if entry.is_empty() {
            return Ok(0);
        }
        self.read_record(b, entry, buf)?;
        let record = self.checked_record(b, entry, buf)?;
        if let (Some(layout), Some(&COLUMNAR_TAG)) = (&self.columnar, record.first()) {
            // Only the rows at `unit` are put together, from the pages that hold them (or
            // whole streams, unpaged). The time offsets go to a per-thread buffer: a get is
            // too short for an allocation.
            thread_local! {
                static UNITS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
            }
            return UNITS.with_borrow_mut(|units| {
                let picked = codec::decode_selected(
                    layout,
                    record,
                    entry.rows as usize,
                    units,
                    out,
                    None,
                    Select::At(unit),
                )
                .map_err(|e| self.columnar_corrupt(b, entry, e.0))?;
                self.check_units(b, entry, units)?;
                Ok(picked.len())
            });
        }
        let n = entry.rows as usize;
        let w = usize::from(record.first().copied().unwrap_or(0));
        let valid = matches!(w, 1 | 2 | 4 | 8)
            && n.checked_mul(w + self.row_len).and_then(|x| x.checked_add(1)) == Some(record.len());
        if !valid {
            // Let the full decoder name the problem.
            let mut rows = Rows::default();
            self.decode_into(b, entry, buf, &mut rows)?;
            return Ok(0);
        }
        let buf = record;
        let offset_at = |k: usize| -> u64 {
            let mut a = [0u8; 8];
            a[..w].copy_from_slice(&buf[1 + k * w..1 + (k + 1) * w]);
            u64::from_le_bytes(a)
        };
        // Offsets are non-decreasing: binary search for the first one >= unit.
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if offset_at(mid) < unit {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut end = lo;
        while end < n && offset_at(end) == unit {
            end += 1;
        }
        let rows_at = 1 + n * w;
        out.extend_from_slice(&buf[rows_at + lo * self.row_len..rows_at + end * self.row_len]);
        Ok(end - lo)
    }

    /// Appends `bytes` (whole records) to the data file; returns the offset of their first byte.
    /// Not referenced, and not durable, until `sync_data` and entry writes.
    pub fn append(&self, bytes: &[u8]) -> Result<u64> {
        let mut end = self.data_end_lock();
        let at = *end;
        vfs::write_at(&self.data_file, bytes, at).map_err(|e| Error::io("write", &self.data_path, e))?;
        *end = at
            .checked_add(bytes.len() as u64)
            .ok_or_else(|| Error::Invalid(format!("{}: data file too large", self.data_path.display())))?;
        Ok(at)
    }

    /// Makes appended data durable: must precede writing entries that point to it.
    pub fn sync_data(&self) -> Result<()> {
        if self.sync_deferred {
            return Ok(());
        }
        vfs::sync_data(&self.data_file).map_err(|e| Error::io("sync", &self.data_path, e))
    }

    /// With `deferred`, leaves this handle's syncs to the import that made its unpublished
    /// series directory.
    pub fn with_syncs_deferred(mut self, deferred: bool) -> Self {
        self.sync_deferred = deferred;
        self
    }

    /// Writes the entries of consecutive buckets from `first`.
    pub fn write_entries(&self, first: u64, entries: &[NewEntry]) -> Result<()> {
        let mut buf = Vec::with_capacity(entries.len() * self.entry_len as usize);
        for (i, e) in entries.iter().enumerate() {
            self.encode_entry(first + i as u64, e, &mut buf)?;
        }
        vfs::write_at(&self.dir_file, &buf, self.entry_offset(first))
            .map_err(|e| Error::io("write", &self.dir_path, e))?;
        let mut salvaged = self
            .salvaged
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !salvaged.is_empty() {
            let end = first + entries.len() as u64;
            salvaged.retain(|&b| b < first || b >= end);
        }
        Ok(())
    }

    /// Empties the entries of buckets `[from, to)`: whole directory blocks are punched out,
    /// the edges zeroed (and punched when their block became all zero).
    pub fn clear_entries(&self, from: u64, to: u64) -> Result<()> {
        if from >= to {
            return Ok(());
        }
        let (a, b) = (self.entry_offset(from), self.entry_offset(to));
        let inner_from = a.div_ceil(BLOCK_LEN) * BLOCK_LEN;
        let inner_to = b / BLOCK_LEN * BLOCK_LEN;
        let punch = |x: u64, y: u64| {
            punch_hole(&self.dir_file, x, y).map_err(|e| Error::io("punch a hole in", &self.dir_path, e))
        };
        if inner_from < inner_to {
            punch(inner_from, inner_to)?;
            self.clear_partial(a, inner_from)?;
            self.clear_partial(inner_to, b)?;
        } else {
            let mid = inner_from.min(b);
            self.clear_partial(a, mid)?;
            self.clear_partial(mid, b)?;
        }
        Ok(())
    }

    fn clear_partial(&self, from: u64, to: u64) -> Result<()> {
        if from >= to {
            return Ok(());
        }
        let block_from = from / BLOCK_LEN * BLOCK_LEN;
        let mut block = vec![0u8; BLOCK_LEN as usize];
        self.read_dir(&mut block, block_from)?;
        let (i, j) = ((from - block_from) as usize, (to - block_from) as usize);
        if block[i..j].iter().all(|&x| x == 0) {
            return Ok(());
        }
        block[i..j].fill(0);
        if block_from >= HEADER_LEN && block.iter().all(|&x| x == 0) {
            punch_hole(&self.dir_file, block_from, block_from + BLOCK_LEN)
                .map_err(|e| Error::io("punch a hole in", &self.dir_path, e))
        } else {
            vfs::write_at(&self.dir_file, &block[i..j], from)
                .map_err(|e| Error::io("write", &self.dir_path, e))
        }
    }

    /// Appends the bytes of `e` as this directory stores it: the locator alone (version 1), or
    /// the locator, its check and the bounds (version 2; all zero for an empty bucket).
    fn encode_entry(&self, b: u64, e: &NewEntry, out: &mut Vec<u8>) -> Result<()> {
        let at = out.len();
        if !self.has_summaries() {
            out.extend_from_slice(&e.entry.encode());
        } else if e.entry.is_empty() {
            out.resize(out.len() + self.entry_len as usize, 0);
        } else if e.bounds.len() + summary::BOUNDS_AT != self.entry_len as usize {
            return Err(Error::Invalid(format!(
                "{}: an entry with {} bytes of bounds for entries of {} bytes",
                self.dir_path.display(),
                e.bounds.len(),
                self.entry_len
            )));
        } else {
            summary::encode_entry(&e.entry.encode(), &e.bounds, out);
            if self.has_checks() {
                let check = BucketPartition::entry_check(b, &out[at..]);
                out[at + ENTRY_CHECK_AT..at + ENTRY_CHECK_AT + 4].copy_from_slice(&check.to_le_bytes());
            }
        }
        Ok(())
    }

    /// Replaces bucket `b` with `rows` (empty: the entry is cleared): appends the record,
    /// fdatasyncs the data, then repoints the entry. A no-op when `rows` equals what is stored.
    pub fn rewrite_bucket(&self, b: u64, old: Entry, old_rows: &Rows, rows: &Rows) -> Result<()> {
        if rows == old_rows && !old.is_empty() && !self.needs_rewrite(b) {
            return Ok(());
        }
        if rows.is_empty() {
            return if old.is_empty() {
                Ok(())
            } else {
                self.clear_entries(b, b + 1)
            };
        }
        let mut record = Vec::with_capacity(record_len(&rows.units, self.row_len) + RECORD_CHECK_LEN);
        self.encode_record(b, &rows.units, &rows.rows, &mut record);
        let mut new = self.entry_for(record.len(), &rows.rows, 0)?;
        new.entry.offset = self.append(&record)?;
        self.sync_data()?;
        self.write_entries(b, &[new])
    }

    /// The entry of a record of `record_len` bytes holding `rows` (row-major) placed at
    /// `offset`, with the bounds of its rows when this directory keeps summaries; refuses
    /// records too large.
    pub fn entry_for(&self, record_len: usize, rows: &[u8], offset: u64) -> Result<NewEntry> {
        let n = rows.len() / self.row_len.max(1);
        let too_big = || {
            Error::Invalid(format!(
                "a bucket of partition {} would hold {n} rows ({record_len} bytes), past the 4 GiB record limit; use a narrower --bucket",
                self.key,
            ))
        };
        let entry = Entry {
            offset,
            len: u32::try_from(record_len).map_err(|_| too_big())?,
            rows: u32::try_from(n).map_err(|_| too_big())?,
        };
        let mut bounds = Vec::new();
        if self.has_summaries() {
            self.summaries.bounds(rows, self.row_len, &mut bounds);
        }
        Ok(NewEntry {
            entry,
            bounds: bounds.into_boxed_slice(),
        })
    }

    /// Makes everything durable: fdatasync of the data, the committed length, fdatasync of
    /// the directory.
    pub fn sync(&self) -> Result<()> {
        self.sync_data()?;
        let end = self.data_len();
        self.write_committed(end)?;
        if self.sync_deferred {
            return Ok(());
        }
        vfs::sync_data(&self.dir_file).map_err(|e| Error::io("sync", &self.dir_path, e))
    }

    /// Reads records of `entries` (in bucket order) with as few `pread`s as their placement
    /// in the data file allows, and calls `visit(bucket, rows)` for each, in order.
    pub fn read_buckets(
        &self,
        entries: &[(u64, Entry)],
        mut visit: impl FnMut(u64, &Rows) -> Result<bool>,
    ) -> Result<bool> {
        let mut rows = Rows::default();
        self.read_records(entries, |b, e, bytes| {
            self.decode_into(b, e, bytes, &mut rows)?;
            visit(b, &rows)
        })
    }

    /// Like `read_buckets`, but hands out each record's raw bytes.
    pub fn read_records(
        &self,
        entries: &[(u64, Entry)],
        mut visit: impl FnMut(u64, Entry, &[u8]) -> Result<bool>,
    ) -> Result<bool> {
        // The read buffer lives on with its thread: a fresh megabyte per call would be paged
        // in (and zeroed) by the kernel again each time. Taken, not borrowed, so a nested call
        // (rayon may run another scan on this thread while `visit` waits) gets its own.
        let mut buf = READ_BUFFER.with(|cell| cell.take());
        let done = self.read_records_into(entries, &mut buf, &mut visit);
        if buf.capacity() as u64 <= 4 * READ_BYTES {
            // A buffer grown by one huge record is not kept.
            READ_BUFFER.with(|cell| cell.replace(buf));
        }
        done
    }

    fn read_records_into(
        &self,
        entries: &[(u64, Entry)],
        buf: &mut Vec<u8>,
        visit: &mut impl FnMut(u64, Entry, &[u8]) -> Result<bool>,
    ) -> Result<bool> {
        for &(b, e) in entries {
            self.check_entry(b, e)?;
        }
        let mut i = 0;
        while i < entries.len() {
            // A run of records that follow each other in the data file: one read.
            let start = entries[i].1.offset;
            let mut end = entries[i].1.end();
            let mut j = i + 1;
            while j < entries.len() && entries[j].1.offset == end && end - start < READ_BYTES {
                end = entries[j].1.end();
                j += 1;
            }
            buf.resize((end - start) as usize, 0);
            self.read_data(buf, start)?;
            for &(b, e) in &entries[i..j] {
                let at = (e.offset - start) as usize;
                if !visit(b, e, &buf[at..at + e.len as usize])? {
                    return Ok(false);
                }
            }
            i = j;
        }
        Ok(true)
    }
}

/// What `BucketPartition::verify` walked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verified {
    /// Non-empty entries whose entry and record passed their checks, and their rows.
    pub buckets: u64,
    pub rows: u64,
}

impl BucketPartition {
    /// Verifies every stored unit (`xs check`, `defrag` before it rewrites): each allocated
    /// directory block, each non-empty entry and the record it points to. Hands every damaged
    /// unit to `found` (an `Error::Checksum`, or `Error::Damaged` for a record that does not
    /// decode) and goes on; errors only when a file cannot be read. Version 1 and 2 partitions
    /// carry no checks: only what decodes is verified there.
    pub fn verify(&self, found: &mut dyn FnMut(Error)) -> Result<Verified> {
        let mut done = Verified::default();
        let entry_len = self.entry_len;
        let checks = self.has_checks();
        let segments = data_segments(&self.dir_file, HEADER_LEN, self.dir_logical_len())
            .map_err(|e| Error::io("seek in", &self.dir_path, e))?;
        let (mut buf, mut units, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        let mut next = 0u64;
        for (seg_from, seg_to) in segments {
            let mut b = ((seg_from - HEADER_LEN) / entry_len).max(next);
            let end = (seg_to - HEADER_LEN).div_ceil(entry_len).min(self.buckets);
            next = next.max(end);
            while b < end {
                let n = (DIR_READ_BYTES / entry_len).min(end - b);
                buf.resize((n * entry_len) as usize, 0);
                self.read_dir(&mut buf, self.entry_offset(b))?;
                if checks {
                    self.zeroed_blocks(&buf, self.entry_offset(b), seg_from, seg_to, found)?;
                }
                let mut sound = Vec::new();
                for (i, raw) in buf.chunks_exact(entry_len as usize).enumerate() {
                    let bucket = b + i as u64;
                    if checks && !self.entry_is_sound(bucket, raw) {
                        let (from_ns, to_ns) = self.bucket_times(bucket);
                        found(Error::damage(
                            &self.dir_path,
                            self.entry_offset(bucket),
                            entry_len,
                            "directory entry",
                            from_ns,
                            to_ns,
                        ));
                        continue;
                    }
                    let e = Entry::decode(raw);
                    if e.is_empty() {
                        continue;
                    }
                    match self.check_entry(bucket, e) {
                        Ok(()) => sound.push((bucket, e)),
                        Err(err) => found(err),
                    }
                }
                self.read_records(&sound, |bucket, e, bytes| {
                    match self.decode_units(bucket, e, bytes, &mut units, &mut scratch) {
                        Ok(_) => {
                            done.buckets += 1;
                            done.rows += u64::from(e.rows);
                        }
                        Err(err @ (Error::Checksum(_) | Error::Damaged { .. })) => found(err),
                        Err(err) => return Err(err),
                    }
                    Ok(true)
                })?;
                b += n;
            }
        }
        Ok(done)
    }
}

impl BucketPartition {
    /// The latest stored time `t` with `lo_ns <= t <= hi_ns` (both within this partition);
    /// `None` when there is none. Walks the directory backwards over doubling windows, reading
    /// only its allocated blocks, then reads the records of the last non-empty buckets.
    pub fn latest_at_or_before(&self, lo_ns: i64, hi_ns: i64) -> Result<Option<i64>> {
        Ok(self.latest_in(lo_ns, hi_ns, None)?.map(|(t, _)| t))
    }

    /// `latest_at_or_before`, with the rows stored at that time copied into `out` (cleared
    /// first): the time and the number of rows. Each record searched is read once; of a
    /// columnar one, the time offsets are decoded (one page, where paged) and then only the
    /// rows at the time found, as a point read decodes them.
    pub fn latest_rows_at_or_before(
        &self,
        lo_ns: i64,
        hi_ns: i64,
        out: &mut Vec<u8>,
    ) -> Result<Option<(i64, usize)>> {
        out.clear();
        self.latest_in(lo_ns, hi_ns, Some(out))
    }

    fn latest_in(
        &self,
        lo_ns: i64,
        hi_ns: i64,
        mut out: Option<&mut Vec<u8>>,
    ) -> Result<Option<(i64, usize)>> {
        if lo_ns > hi_ns {
            return Ok(None);
        }
        let (b_lo, _) = self.locate(lo_ns);
        let (b_hi, _) = self.locate(hi_ns);
        let mut end = b_hi + 1;
        let mut window = 256u64;
        // The first window stops at the start of the directory block that holds the last
        // entry: the latest rows are usually there, read without a seek (`walk_entries`).
        let block_start = (self.entry_offset(b_hi) / BLOCK_LEN * BLOCK_LEN).max(HEADER_LEN);
        let mut first_from = Some((block_start - HEADER_LEN).div_ceil(self.entry_len));
        let (mut buf, mut units, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
        while end > b_lo {
            let from = end
                .saturating_sub(window)
                .max(first_from.take().unwrap_or(0))
                .max(b_lo);
            let mut entries = Vec::new();
            self.for_each_entry(from, end, |b, e| {
                entries.push((b, e));
                Ok(true)
            })?;
            for &(b, e) in entries.iter().rev() {
                let start = self.bucket_start_ns(b);
                // The last time offset this bucket may answer with.
                let bound = (((hi_ns - start) / self.granularity_ns) as u64).min(self.units_per_bucket - 1);
                self.read_record(b, e, &mut buf)?;
                let found = match (&self.columnar, buf.first()) {
                    (Some(layout), Some(&COLUMNAR_TAG)) => {
                        let record = self.checked_record(b, e, &buf)?;
                        let n = e.rows as usize;
                        let corrupt = |err: codec::Corrupt| self.columnar_corrupt(b, e, err.0);
                        match codec::last_unit_at_or_before(record, n, bound).map_err(corrupt)? {
                            None => None,
                            Some(unit) => {
                                let t = start + unit as i64 * self.granularity_ns;
                                let mut count = 0;
                                if let Some(out) = out.as_deref_mut().filter(|_| t >= lo_ns) {
                                    let picked = codec::decode_selected(
                                        layout,
                                        record,
                                        n,
                                        &mut units,
                                        out,
                                        None,
                                        Select::At(unit),
                                    )
                                    .map_err(corrupt)?;
                                    self.check_units(b, e, &units)?;
                                    count = picked.len();
                                }
                                Some((t, count))
                            }
                        }
                    }
                    _ => {
                        let rows = self
                            .decode_record(b, e, &buf, &mut units, &mut scratch, None, Select::All)?
                            .unwrap_or(&scratch);
                        let to = units.partition_point(|&u| u <= bound);
                        match to.checked_sub(1).map(|i| units[i]) {
                            None => None,
                            Some(unit) => {
                                let t = start + unit as i64 * self.granularity_ns;
                                let from = units.partition_point(|&u| u < unit);
                                if let Some(out) = out.as_deref_mut() {
                                    out.extend_from_slice(&rows[from * self.row_len..to * self.row_len]);
                                }
                                Some((t, to - from))
                            }
                        }
                    }
                };
                match found {
                    Some((t, count)) if t >= lo_ns => return Ok(Some((t, count))),
                    Some(_) => return Ok(None),
                    None => {}
                }
            }
            end = from;
            window = window.saturating_mul(2).min(1 << 20);
        }
        Ok(None)
    }
}

/// What a bucket defrag did to one partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compacted {
    pub buckets: u64,
    pub live_bytes: u64,
}

impl BucketPartition {
    /// The generation of the data file this directory indexes.
    pub fn generation(&self) -> Result<u64> {
        let mut b = [0u8; 8];
        self.read_dir(&mut b, DIR_GENERATION_AT)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Defrag: writes the live records in bucket order into a new data file (next
    /// generation) and a new directory pointing into it (always of the newest version, with
    /// summaries computed from the rows, so defrag upgrades a version-1 partition), fsyncs both, verifies them against
    /// this partition record by record, then renames the data file and the directory into
    /// place (in that order; `open` finishes an interrupted pair of renames). `install` sees
    /// the verified copy first: when it says no, the copy is removed and this partition kept
    /// as it was (`None`). The caller holds the writer lock and drops its cached handle
    /// afterwards.
    pub fn compact(
        &self,
        dir: &Path,
        config: &Config,
        install: &mut dyn FnMut(&BucketPartition) -> Result<bool>,
    ) -> Result<Option<Compacted>> {
        let (data_name, dir_name) = defrag_names(self.key);
        let (tmp_data_path, tmp_dir_path) = (dir.join(&data_name), dir.join(&dir_name));
        let generation = self.generation()?.wrapping_add(1);
        let version = newest_version(config, self.key);
        let header = header_of(config, self.key, version).encode();
        let make = |path: &Path, len: u64| -> Result<File> {
            let file = files::create_temp(path, 0o644)?;
            vfs::write_at(&file, &header, 0).map_err(|e| Error::io("write", path, e))?;
            vfs::set_len(&file, len).map_err(|e| Error::io("size", path, e))?;
            Ok(file)
        };
        let result = (|| -> Result<Option<Compacted>> {
            // Allocate the whole copy, header included, before writing a byte of it: a header
            // written first gets a block of its own away from the records (ext4 places small
            // and large allocations apart), an extent that `stat` would count as fragmented.
            let mut live_bytes = 0u64;
            self.for_each_entry(0, self.buckets, |_, e| {
                live_bytes += u64::from(e.len);
                Ok(true)
            })?;
            let data = files::create_temp(&tmp_data_path, 0o644)?;
            let preallocated = preallocate(&data, HEADER_LEN + live_bytes)
                .map_err(|e| Error::io("allocate", &tmp_data_path, e))?;
            vfs::write_at(&data, &header, 0).map_err(|e| Error::io("write", &tmp_data_path, e))?;
            if !preallocated {
                vfs::set_len(&data, HEADER_LEN).map_err(|e| Error::io("size", &tmp_data_path, e))?;
            }
            vfs::write_at(&data, &generation.to_le_bytes(), DATA_GENERATION_AT)
                .map_err(|e| Error::io("write", &tmp_data_path, e))?;
            let open_copy = |index: File, data: File| {
                BucketPartition::new(self.key, dir, config, index, data, HEADER_LEN, version)
            };
            let index = make(&tmp_dir_path, HEADER_LEN)?;
            vfs::write_at(&index, &generation.to_le_bytes(), DIR_GENERATION_AT)
                .map_err(|e| Error::io("write", &tmp_dir_path, e))?;
            let copy = open_copy(index, data);
            vfs::set_len(&copy.dir_file, copy.dir_logical_len())
                .map_err(|e| Error::io("size", &tmp_dir_path, e))?;
            let copy = BucketPartition {
                dir_path: tmp_dir_path.clone(),
                data_path: tmp_data_path.clone(),
                ..copy
            };
            let mut end = HEADER_LEN;
            let mut done = Compacted {
                buckets: 0,
                live_bytes: 0,
            };
            self.for_each_entry_window(1 << 16, |entries| {
                let mut out = Vec::new();
                let mut placed: Vec<(u64, NewEntry)> = Vec::with_capacity(entries.len());
                let (mut units, mut scratch) = (Vec::new(), Vec::new());
                self.read_records(entries, |bucket, e, bytes| {
                    // Checks the record before its rows are summarized.
                    let rows = self.decode_units(bucket, e, bytes, &mut units, &mut scratch)?;
                    let at = out.len();
                    if copy.version == self.version {
                        let body = self.checked_record(bucket, e, bytes)?;
                        out.extend_from_slice(body);
                        if copy.has_checks() {
                            let check = unit_check(bucket, body);
                            out.extend_from_slice(&check.to_le_bytes());
                        }
                    } else {
                        // Another record codec (a raw partition made columnar, or back): the
                        // rows are encoded anew.
                        copy.encode_record(bucket, &units, rows, &mut out);
                    }
                    placed.push((bucket, copy.entry_for(out.len() - at, rows, end + at as u64)?));
                    Ok(true)
                })?;
                vfs::write_at(&copy.data_file, &out, end)
                    .map_err(|e| Error::io("write", &tmp_data_path, e))?;
                end += out.len() as u64;
                done.buckets += placed.len() as u64;
                done.live_bytes += out.len() as u64;
                let mut k = 0;
                while k < placed.len() {
                    let mut m = k + 1;
                    while m < placed.len() && placed[m].0 == placed[m - 1].0 + 1 {
                        m += 1;
                    }
                    let run: Vec<NewEntry> = placed[k..m].iter().map(|(_, e)| e.clone()).collect();
                    copy.write_entries(placed[k].0, &run)?;
                    k = m;
                }
                Ok(())
            })?;
            if end < HEADER_LEN + live_bytes {
                // Records encoded anew in a smaller codec: the allocation past them goes.
                vfs::set_len(&copy.data_file, end).map_err(|e| Error::io("size", &tmp_data_path, e))?;
            }
            copy.write_committed(end)?;
            *copy.data_end_lock() = end;
            vfs::sync_all(&copy.data_file).map_err(|e| Error::io("sync", &tmp_data_path, e))?;
            vfs::sync_all(&copy.dir_file).map_err(|e| Error::io("sync", &tmp_dir_path, e))?;
            // Verify: the new files hold the same records for the same buckets, and every new
            // entry passes its check.
            let mut mismatch = None;
            let mut old_entries = Vec::new();
            self.for_each_entry(0, self.buckets, |bucket, e| {
                old_entries.push((bucket, e));
                Ok(true)
            })?;
            let mut new_entries = Vec::new();
            copy.for_each_summarized_entry(0, copy.buckets, true, |bucket, e, bounds| {
                if copy.has_summaries() && bounds.is_none() {
                    mismatch = Some(format!("the summary of bucket {bucket}"));
                }
                new_entries.push((bucket, e));
                Ok(true)
            })?;
            if mismatch.is_none() && old_entries.len() != new_entries.len() {
                mismatch = Some("a different number of buckets".to_string());
            }
            let (mut old_bytes, mut new_bytes) = (Vec::new(), Vec::new());
            let (mut old_rows, mut new_rows) = (Rows::default(), Rows::default());
            for ((ob, oe), (nb, ne)) in old_entries.iter().zip(&new_entries) {
                if mismatch.is_some() {
                    break;
                }
                if ob != nb || oe.rows != ne.rows {
                    mismatch = Some(format!("bucket {ob}"));
                    break;
                }
                // The records' rows, each record checked (a copy of another version may
                // encode them otherwise).
                self.read_rows(*ob, *oe, &mut old_bytes, &mut old_rows)?;
                copy.read_rows(*nb, *ne, &mut new_bytes, &mut new_rows)?;
                if old_rows != new_rows {
                    mismatch = Some(format!("the record of bucket {ob}"));
                }
            }
            if let Some(what) = mismatch {
                return Err(Error::Defrag {
                    path: self.dir_path.clone(),
                    reason: format!("the rewritten copy differs in {what}; the original is untouched"),
                });
            }
            Ok(install(&copy)?.then_some(done))
        })();
        let done = match result {
            Ok(Some(done)) => done,
            other => {
                let _ = vfs::remove_file(&tmp_data_path);
                let _ = vfs::remove_file(&tmp_dir_path);
                return other;
            }
        };
        vfs::rename(&tmp_data_path, &self.data_path).map_err(|e| Error::io("rename", &tmp_data_path, e))?;
        vfs::rename(&tmp_dir_path, &self.dir_path).map_err(|e| Error::io("rename", &tmp_dir_path, e))?;
        sync_dir(dir)?;
        Ok(Some(done))
    }
}

/// Whether each directory block that `buf` (the bytes from offset `at`) touches holds a
/// byte that is not zero in its part here.
fn no_zero_block_part(buf: &[u8], at: u64) -> bool {
    let mut from = 0usize;
    while from < buf.len() {
        let block_end = ((at + from as u64) / BLOCK_LEN + 1) * BLOCK_LEN;
        let to = buf.len().min((block_end - at) as usize);
        if buf[from..to].iter().all(|&x| x == 0) {
            return false;
        }
        from = to;
    }
    true
}

/// `fallocate(2)` of `[0, len)` (the file grows to `len`); false on file systems without it,
/// where the writes allocate as they go.
fn preallocate(file: &File, len: u64) -> std::io::Result<bool> {
    match vfs::fallocate(file, 0, 0, len) {
        Ok(()) => Ok(true),
        Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => Ok(false),
        Err(e) => Err(e),
    }
}

/// What a walk of a bucket partition's directory finds (`xs stat`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    /// Non-empty buckets.
    pub buckets: u64,
    pub rows: u64,
    /// Bytes of the records the directory points to.
    pub live_bytes: u64,
    /// Data file bytes after the header that no entry points to (old versions, a crashed
    /// write's tail).
    pub garbage_bytes: u64,
    /// Buckets whose record lies before the previous bucket's in the data file: the layout's
    /// fragmentation (a range read then needs more than one contiguous read).
    pub out_of_order: u64,
    /// Time of the first and last row.
    pub first_ns: Option<i64>,
    pub last_ns: Option<i64>,
    /// Bytes per stream of a partition with columnar records (version 4).
    pub codec: Option<CodecBytes>,
}

/// What the records of a columnar partition hold, stream by stream: the time offsets, the
/// row flags, then each column in schema order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodecBytes {
    pub columnar_records: u64,
    /// Records kept raw because they were smaller so (buckets of a few rows).
    pub raw_records: u64,
    /// Per stream: bytes stored (stream headers included) and bytes decoded (time offsets as
    /// 8 bytes each, columns at their width).
    pub stored: Vec<u64>,
    pub plain: Vec<u64>,
}

impl CodecBytes {
    /// Adds `other`'s counts (the same schema's streams).
    pub fn add(&mut self, other: &CodecBytes) {
        self.columnar_records += other.columnar_records;
        self.raw_records += other.raw_records;
        for (mine, theirs) in [(&mut self.stored, &other.stored), (&mut self.plain, &other.plain)] {
            mine.resize(mine.len().max(theirs.len()), 0);
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
    }
}

impl BucketPartition {
    /// Walks the directory (only its allocated blocks) and reads the first and last records.
    pub fn audit(&self) -> Result<Audit> {
        let mut a = Audit::default();
        let mut prev_end = 0u64;
        let mut first: Option<(u64, Entry)> = None;
        let mut last: Option<(u64, Entry)> = None;
        self.for_each_entry(0, self.buckets, |b, e| {
            a.buckets += 1;
            a.rows += u64::from(e.rows);
            a.live_bytes += u64::from(e.len);
            if e.offset < prev_end {
                a.out_of_order += 1;
            }
            prev_end = e.end();
            first.get_or_insert((b, e));
            last = Some((b, e));
            Ok(true)
        })?;
        let payload = self.data_len().saturating_sub(HEADER_LEN);
        a.garbage_bytes = payload.saturating_sub(a.live_bytes);
        let (mut buf, mut rows) = (Vec::new(), Rows::default());
        if let Some((b, e)) = first {
            self.read_rows(b, e, &mut buf, &mut rows)?;
            a.first_ns = rows
                .units
                .first()
                .map(|&u| self.bucket_start_ns(b) + u as i64 * self.granularity_ns);
        }
        if let Some((b, e)) = last {
            self.read_rows(b, e, &mut buf, &mut rows)?;
            a.last_ns = rows
                .units
                .last()
                .map(|&u| self.bucket_start_ns(b) + u as i64 * self.granularity_ns);
        }
        Ok(a)
    }

    /// The bytes of each stream of a columnar partition's records (`None` for other
    /// partitions): reads every record, a window of entries at a time.
    pub fn codec_bytes(&self) -> Result<Option<CodecBytes>> {
        let Some(layout) = &self.columnar else {
            return Ok(None);
        };
        let streams = 1 + layout.parts.len();
        let widths: Vec<u64> = std::iter::once(8)
            .chain(layout.parts.iter().map(|p| p.width as u64))
            .collect();
        let mut c = CodecBytes {
            stored: vec![0; streams],
            plain: vec![0; streams],
            ..CodecBytes::default()
        };
        self.for_each_entry_window(1 << 16, |entries| {
            self.read_records(entries, |b, e, bytes| {
                let body = self.checked_record(b, e, bytes)?;
                let n = u64::from(e.rows);
                for (plain, w) in c.plain.iter_mut().zip(&widths) {
                    *plain += n * w;
                }
                if body.first() == Some(&COLUMNAR_TAG) {
                    let lens = codec::stream_lens(body, streams)
                        .map_err(|why| self.columnar_corrupt(b, e, why.0))?;
                    c.columnar_records += 1;
                    for (stored, len) in c.stored.iter_mut().zip(lens) {
                        *stored += len as u64;
                    }
                } else {
                    // A raw record: its offset width and offsets, then whole rows.
                    c.raw_records += 1;
                    let w = u64::from(body.first().copied().unwrap_or(0));
                    c.stored[0] += 1 + n * w;
                    for (stored, part) in c.stored[1..].iter_mut().zip(&layout.parts) {
                        *stored += n * part.width as u64;
                    }
                }
                Ok(true)
            })?;
            Ok(())
        })?;
        Ok(Some(c))
    }
}

/// Merges `new` rows into `old`, both in time order, into `out`: at a time offset that `new`
/// has, `new`'s rows replace the old ones, unless `append(unit)` says this import already
/// wrote there (then they follow them); other offsets keep their old rows.
pub fn merge(old: &Rows, new: &Rows, row_len: usize, append: impl Fn(u64) -> bool, out: &mut Rows) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    let row = |k: usize| -> std::ops::Range<usize> { k * row_len..(k + 1) * row_len };
    while i < old.len() || j < new.len() {
        let next_new = new.units.get(j).copied();
        let next_old = old.units.get(i).copied();
        match (next_old, next_new) {
            (Some(o), Some(n)) if o < n => {
                out.push(o, &old.rows[row(i)]);
                i += 1;
            }
            (Some(o), None) => {
                out.push(o, &old.rows[row(i)]);
                i += 1;
            }
            (_, Some(n)) => {
                let keep_old = append(n);
                while i < old.len() && old.units[i] == n {
                    if keep_old {
                        out.push(n, &old.rows[row(i)]);
                    }
                    i += 1;
                }
                while j < new.len() && new.units[j] == n {
                    out.push(n, &new.rows[row(j)]);
                    j += 1;
                }
            }
            (None, None) => break,
        }
    }
}

/// Whether time offsets rise (or stay) from each to the next and all fall before `per_bucket`.
/// A fold with no exit per pair: it compiles to a loop without branches (most records are
/// whole, and a read checks every one).
fn units_in_order(units: &[u64], per_bucket: u64) -> bool {
    units
        .iter()
        .zip(units.get(1..).unwrap_or_default())
        .fold(true, |ok, (a, b)| ok & (a <= b))
        && units.last().is_none_or(|&u| u < per_bucket)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::FileExt;

    fn rows(units: &[u64]) -> Rows {
        let mut r = Rows::default();
        for (i, &u) in units.iter().enumerate() {
            r.push(u, &[1, i as u8]);
        }
        r
    }

    #[test]
    fn entry_round_trips() {
        let e = Entry {
            offset: 4096 + 7,
            len: 99,
            rows: 3,
        };
        assert_eq!(Entry::decode(&e.encode()), e);
        assert!(Entry::default().is_empty());
    }

    #[test]
    fn records_use_the_narrowest_offset_width() {
        assert_eq!(offset_width(255), 1);
        assert_eq!(offset_width(256), 2);
        assert_eq!(offset_width(999), 2);
        assert_eq!(offset_width(1 << 20), 4);
        assert_eq!(offset_width(1 << 40), 8);
        let mut out = Vec::new();
        encode_record(&[0, 300], &[1, 2, 3, 4], &mut out);
        assert_eq!(out, vec![2, 0, 0, 44, 1, 1, 2, 3, 4]);
        assert_eq!(record_len(&[0, 300], 2), out.len());
    }

    #[test]
    fn offsets_decode_and_check_at_every_width() {
        fn raw<const W: usize>(units: &[u64]) -> Vec<u8> {
            units.iter().flat_map(|u| u.to_le_bytes()[..W].to_vec()).collect()
        }
        fn check<const W: usize>() {
            let mut out = Vec::new();
            assert!(push_units::<W>(&raw::<W>(&[0, 3, 3, 200]), 201, &mut out));
            assert_eq!(out, vec![0, 3, 3, 200]);
            out.clear();
            assert!(
                !push_units::<W>(&raw::<W>(&[3, 2]), 201, &mut out),
                "out of order"
            );
            out.clear();
            assert!(
                !push_units::<W>(&raw::<W>(&[0, 201]), 201, &mut out),
                "out of the bucket"
            );
        }
        check::<1>();
        check::<2>();
        check::<4>();
        check::<8>();
        let mut out = Vec::new();
        assert!(push_units::<8>(&raw::<8>(&[u64::MAX - 1]), u64::MAX, &mut out));
        assert!(!push_units::<8>(&raw::<8>(&[u64::MAX]), u64::MAX, &mut out));
    }

    #[test]
    fn merge_replaces_appends_and_keeps() {
        let old = rows(&[1, 2, 2, 5]);
        let mut new = Rows::default();
        new.push(2, &[1, 9]);
        new.push(3, &[1, 8]);
        new.push(5, &[1, 7]);
        let mut out = Rows::default();
        merge(&old, &new, 2, |u| u == 5, &mut out);
        assert_eq!(out.units, vec![1, 2, 3, 5, 5]);
        assert_eq!(out.rows, vec![1, 0, 1, 9, 1, 8, 1, 3, 1, 7]);
    }

    fn bucket_db(dir: &Path) -> crate::Database {
        bucket_db_with(dir, RecordCodec::Raw)
    }

    /// `bucket_db` with records of `codec`.
    fn bucket_db_with(dir: &Path, codec: RecordCodec) -> crate::Database {
        use crate::db::config::Layout;
        use crate::db::schema::Schema;
        use crate::db::time::{Granularity, Period};
        let config = Config {
            layout: Layout::Bucket,
            bucket_ns: 1_000_000_000,
            granularity: Granularity::from_ns(1_000_000).unwrap(),
            period: Period::Year,
            depth: 1,
            time_column: "time".into(),
            schema: Schema::parse_spec("v:i64").unwrap(),
            keys: Default::default(),
            codec,
            timezone: Default::default(),
            date_order: None,
            decimal_comma: false,
        };
        drop(crate::Database::create(dir, &config).unwrap());
        open_writer(dir)
    }

    /// The database at `dir`, opened as a writer (which cuts an unreferenced tail).
    fn open_writer(dir: &Path) -> crate::Database {
        crate::Database::open(
            dir,
            crate::Access::Write(crate::db::lock::LockWait::No),
            &mut |_| {},
        )
        .unwrap()
    }

    /// A row of `bucket_db` (one column, `v:i64`) holding `v`.
    fn v_row(db: &crate::Database, v: i64) -> Vec<u8> {
        let mut r = db.schema().new_row();
        db.schema().set_field(&mut r, 0, &v.to_string()).unwrap();
        r
    }

    /// A reader's partition handle measured the data file when it opened it; a writer
    /// beside it then appends a record and its entry. The reader meets that entry: it reads
    /// the record (the file is measured again), never calls the database corrupt.
    #[test]
    fn a_reader_reads_a_record_appended_after_it_opened_the_partition() {
        use crate::PutMode;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        let db = bucket_db(&dir);
        let row = |v: i64| v_row(&db, v);
        let t0 = 1_704_067_200_000_000_000i64; // 2024-01-01
        let s = 1_000_000_000i64;
        db.put(t0, &row(1), PutMode::Replace).unwrap();
        db.sync().unwrap();
        let reader = crate::Database::open(&dir, crate::Access::Read, &mut |_| {}).unwrap();
        assert_eq!(reader.get(t0).unwrap(), vec![row(1)]);
        // Another bucket, appended past the end the reader measured.
        db.put(t0 + 5 * s, &row(2), PutMode::Replace).unwrap();
        db.sync().unwrap();
        assert_eq!(reader.get(t0 + 5 * s).unwrap(), vec![row(2)]);
        let mut seen = Vec::new();
        reader
            .scan(t0, t0 + 10 * s, |t, _| -> Result<bool> {
                seen.push((t - t0) / s);
                Ok(true)
            })
            .unwrap();
        assert_eq!(seen, [0, 5]);
    }

    #[test]
    fn put_get_scan_delete_through_the_database() {
        use crate::PutMode;
        let tmp = tempfile::tempdir().unwrap();
        let db = bucket_db(&tmp.path().join("db"));
        let row = |v: i64| v_row(&db, v);
        let t0 = 1_704_067_200_000_000_000i64; // 2024-01-01
        let ms = 1_000_000i64;
        db.put(t0 + 5 * ms, &row(1), PutMode::Replace).unwrap();
        db.put(t0 + 5 * ms, &row(2), PutMode::Append).unwrap();
        db.put(t0 + 3 * ms, &row(3), PutMode::Replace).unwrap();
        db.put(t0 + 1500 * ms, &row(4), PutMode::Replace).unwrap();
        // Any number of rows at one time: depth does not limit the bucket layout.
        for v in 10..20 {
            db.put(t0 + 7 * ms, &row(v), PutMode::Append).unwrap();
        }
        db.sync().unwrap();
        assert_eq!(db.get(t0 + 5 * ms).unwrap(), vec![row(1), row(2)]);
        assert_eq!(db.get(t0 + 7 * ms).unwrap().len(), 10);
        assert!(db.get(t0 + 6 * ms).unwrap().is_empty());
        let mut seen = Vec::new();
        db.scan(t0, t0 + 2000 * ms, |t, _| -> Result<bool> {
            seen.push((t - t0) / ms);
            Ok(true)
        })
        .unwrap();
        assert_eq!(seen[..3], [3, 5, 5]);
        assert_eq!(seen.len(), 14);
        assert_eq!(*seen.last().unwrap(), 1500);
        db.put(t0 + 5 * ms, &row(9), PutMode::Replace).unwrap();
        assert_eq!(db.get(t0 + 5 * ms).unwrap(), vec![row(9)]);
        // Delete across a bucket edge: part of bucket 0 and all of bucket 1.
        assert_eq!(db.delete(t0 + 5 * ms, t0 + 2000 * ms).unwrap(), 12);
        let mut left = Vec::new();
        db.scan(i64::MIN, i64::MAX, |t, _| -> Result<bool> {
            left.push((t - t0) / ms);
            Ok(true)
        })
        .unwrap();
        assert_eq!(left, vec![3]);
    }

    #[test]
    fn a_summarized_scan_hands_out_whole_buckets_as_verified_summaries() {
        use crate::db::summary::{decode_bounds, BoundKind};
        use crate::db::Scanned;
        use crate::PutMode;
        let tmp = tempfile::tempdir().unwrap();
        let db = bucket_db(&tmp.path().join("db"));
        let row = |v: i64| v_row(&db, v);
        let t0 = 1_704_067_200_000_000_000i64; // 2024-01-01
        let (s, ms) = (1_000_000_000i64, 1_000_000i64);
        // Seconds 0, 1, 2 hold rows; second 1 has three.
        db.put(t0 + 100 * ms, &row(4), PutMode::Replace).unwrap();
        for (at, v) in [(1000, 7), (1000, -2), (1999, 9)] {
            db.put(t0 + at * ms, &row(v), PutMode::Append).unwrap();
        }
        db.put(t0 + 2500 * ms, &row(1), PutMode::Replace).unwrap();
        let scan = |from: i64, to: i64, same: &dyn Fn(i64, i64) -> bool| {
            let mut pieces = Vec::new();
            db.scan_summarized(from, to, same, None, |piece| -> Result<bool> {
                pieces.push(match piece {
                    Scanned::Batch(crate::db::Batch::Rows { times, .. }) => {
                        format!("rows {}", times.len())
                    }
                    Scanned::Batch(_) => "slots".to_string(),
                    Scanned::Columns(c) => format!("columns {}", c.times.len()),
                    Scanned::Summary(sum) => {
                        let b = decode_bounds(BoundKind::Signed, sum.bounds, 0);
                        assert_eq!(sum.end_ns - sum.start_ns, s);
                        format!("summary {} {:?}", sum.rows, b)
                    }
                });
                Ok(true)
            })
            .unwrap();
            pieces
        };
        let any = |_: i64, _: i64| true;
        // Window from 0.5 s to 2.6 s: second 0 and 2 are partial, second 1 whole.
        assert_eq!(
            scan(t0 + 500 * ms, t0 + 2600 * ms, &any),
            ["summary 3 Some(Signed(-2, 9))", "rows 1"]
        );
        // Rows before a summary come first (time order); the caller can refuse summaries.
        assert_eq!(
            scan(t0, t0 + 3 * s, &|a, _| a != t0),
            [
                "rows 1",
                "summary 3 Some(Signed(-2, 9))",
                "summary 1 Some(Signed(1, 1))"
            ]
        );
        // Rows come one record (bucket) at a time.
        assert_eq!(
            scan(t0, t0 + 3 * s, &|_, _| false),
            ["rows 1", "rows 3", "rows 1"]
        );
        // A pruned scan passes over the buckets the prune rules out by their summaries (whole
        // or cut by the window), unread; the others come as rows.
        let pruned = |from: i64, to: i64, prune: &(dyn Fn(&[u8]) -> bool + Sync)| {
            let mut pieces = Vec::new();
            db.scan_batches_pruned(from, to, Some(prune), |batch| -> Result<bool> {
                if let crate::db::Batch::Rows { times, .. } = batch {
                    pieces.push(times.len());
                }
                Ok(true)
            })
            .unwrap();
            pieces
        };
        let max_below_5 = |b: &[u8]| matches!(decode_bounds(BoundKind::Signed, b, 0), Some(summary::Bounds::Signed(_, hi)) if hi < 5);
        assert_eq!(pruned(t0, t0 + 3 * s, &max_below_5), [3]);
        assert_eq!(pruned(t0 + 500 * ms, t0 + 2600 * ms, &max_below_5), [3]);
        assert_eq!(pruned(t0, t0 + 3 * s, &|_| false), [1, 3, 1]);
        // A damaged summary is not handed out: its bucket comes as rows, and no prune skips it.
        let key = db.slot_of(t0).unwrap().key;
        let part = db.bucket_partition(key, false).unwrap().unwrap();
        let at = part.entry_offset(1) + summary::BOUNDS_AT as u64;
        part.dir_file().write_all_at(&[0x55], at).unwrap();
        assert_eq!(scan(t0 + 500 * ms, t0 + 2600 * ms, &any), ["rows 3", "rows 1"]);
        assert_eq!(pruned(t0, t0 + 3 * s, &|_| true), [3]);
    }

    #[test]
    fn a_config_near_the_size_limit_loads_and_keeps_version_1_partitions() {
        use crate::db::config::Layout;
        use crate::db::schema::Schema;
        use crate::db::time::{Granularity, Period};
        // 500 µs buckets: a year of 16-byte entries is 1 TB logical, of 512-byte ones 32 TB.
        let columns: Vec<String> = (0..30).map(|i| format!("c{i}:f64")).collect();
        let config = Config {
            layout: Layout::Bucket,
            bucket_ns: 500_000,
            granularity: Granularity::from_ns(1_000).unwrap(),
            period: Period::Year,
            depth: 1,
            time_column: "time".into(),
            schema: Schema::parse_spec(&columns.join(",")).unwrap(),
            keys: Default::default(),
            codec: Default::default(),
            timezone: Default::default(),
            date_order: None,
            decimal_comma: false,
        };
        let key = PartitionKey::of(Period::Year, 1_704_067_200_000_000_000);
        assert_eq!(newest_version(&config, key), PARTITION_VERSION);
        assert!(Config::parse(&config.to_toml()).is_ok());
        let wide = Config {
            bucket_ns: 1_000_000_000,
            ..config
        };
        assert_eq!(newest_version(&wide, key), CHECKSUM_VERSION);
    }

    #[test]
    fn a_corrupt_entry_is_an_error_not_a_panic() {
        use crate::PutMode;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        let t0 = 1_704_067_200_000_000_000i64;
        let db = bucket_db(&dir);
        let mut r = db.schema().new_row();
        db.schema().set_field(&mut r, 0, "7").unwrap();
        db.put(t0, &r, PutMode::Replace).unwrap();
        let key = db.slot_of(t0).unwrap().key;
        let part = db.bucket_partition(key, false).unwrap().unwrap();
        for bad in [
            Entry {
                offset: 4096,
                len: 0,
                rows: 1,
            },
            Entry {
                offset: 1 << 40,
                len: 9,
                rows: 1,
            },
            Entry {
                offset: 4096,
                len: 3,
                rows: 1,
            },
            Entry {
                offset: 0,
                len: 9,
                rows: 1,
            },
        ] {
            let bounds = vec![0u8; part.summaries.entry_len() - summary::BOUNDS_AT];
            part.write_entries(
                0,
                &[NewEntry {
                    entry: bad,
                    bounds: bounds.into(),
                }],
            )
            .unwrap();
            assert!(db.get(t0).is_err(), "{bad:?}");
            assert!(db
                .scan(i64::MIN, i64::MAX, |_, _| -> Result<bool> { Ok(true) })
                .is_err());
        }
    }

    /// A columnar record that passes its check (a bug, or bytes forged with a valid CRC) but
    /// whose streams do not add up is damage on every read path: never a panic, never an
    /// allocation the record asks for. Bit flips inside it may decode to other values (only
    /// the check can tell), but never panic either.
    #[test]
    fn a_columnar_record_that_passes_its_check_but_does_not_decode_is_damage() {
        use crate::PutMode;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        let t0 = 1_704_067_200_000_000_000i64;
        let db = bucket_db_with(&dir, RecordCodec::Columnar);
        let mut r = db.schema().new_row();
        for k in 0..200i64 {
            db.schema().set_field(&mut r, 0, &(k * k).to_string()).unwrap();
            db.put(t0 + k * 1_000_000, &r, PutMode::Replace).unwrap();
        }
        let key = db.slot_of(t0).unwrap().key;
        let part = db.bucket_partition(key, false).unwrap().unwrap();
        let (b, _) = part.locate(t0);
        let entry = part.entry(b).unwrap();
        let mut record = vec![0u8; entry.len as usize];
        part.read_data(&mut record, entry.offset).unwrap();
        let body = record[..record.len() - RECORD_CHECK_LEN].to_vec();
        assert_eq!(body[0], COLUMNAR_TAG, "200 rows are smaller columnar");
        let store = |body: &[u8], rows: u32| {
            let mut record = body.to_vec();
            record.extend_from_slice(&unit_check(b, body).to_le_bytes());
            let offset = part.append(&record).unwrap();
            part.sync_data().unwrap();
            let bounds = vec![0u8; part.summaries.entry_len() - summary::BOUNDS_AT];
            let entry = Entry {
                offset,
                len: record.len() as u32,
                rows,
            };
            part.write_entries(
                b,
                &[NewEntry {
                    entry,
                    bounds: bounds.into(),
                }],
            )
            .unwrap();
        };
        let reads = || {
            let got = db.get(t0).map(|rows| rows.len());
            let scanned = db.scan(i64::MIN, i64::MAX, |_, _| -> Result<bool> { Ok(true) });
            (got, scanned)
        };
        let with = |at: usize, bytes: &[u8]| {
            let mut b = body.clone();
            b[at..at + bytes.len()].copy_from_slice(bytes);
            b
        };
        let huge = 10_000_000u32;
        let bad: Vec<(Vec<u8>, u32, &str)> = vec![
            (
                with(1, &201u32.to_le_bytes()),
                200,
                "a count the entry does not say",
            ),
            (body.clone(), 201, "an entry count the record does not say"),
            (with(5, &[9]), 200, "an unknown codec"),
            (with(6, &u32::MAX.to_le_bytes()), 200, "a stream past the end"),
            (body[..body.len() - 1].to_vec(), 200, "a record cut short"),
            ([&body[..], &[0]].concat(), 200, "a byte after the last stream"),
            (
                with(1, &huge.to_le_bytes()),
                huge,
                "a count past the decode bound",
            ),
        ];
        for (forged, rows, what) in bad {
            store(&forged, rows);
            let (got, scanned) = reads();
            assert!(got.is_err() && scanned.is_err(), "{what}: {got:?}");
            let err = got.unwrap_err().to_string();
            assert!(
                err.contains("columnar record of bucket") && err.contains("corrupt"),
                "{what}: {err}"
            );
        }
        for at in 5..body.len() {
            for bit in [0, 3, 7] {
                let mut forged = body.clone();
                forged[at] ^= 1 << bit;
                store(&forged, 200);
                let _ = reads();
            }
        }
        store(&body, 200);
        assert_eq!(reads().0.unwrap(), 1);
    }

    /// Found by the fault harness (torn crashes, more seeds): a power loss that left a
    /// directory block allocated but all zero (its entries never reached the disk) and records
    /// past the committed length made every writer's open fail on the block while it looked for
    /// the referenced end, so the re-run of the import that xs itself advised failed too.
    #[test]
    fn a_writer_opens_past_a_directory_block_a_power_loss_zeroed() {
        use crate::PutMode;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        let t0 = 1_704_067_200_000_000_000i64;
        let t1 = t0 + 40 * 86_400_000_000_000; // another directory block
        let (data, block) = {
            let db = bucket_db(&dir);
            let mut r = db.schema().new_row();
            db.schema().set_field(&mut r, 0, "7").unwrap();
            db.put(t0, &r, PutMode::Replace).unwrap();
            db.put(t1, &r, PutMode::Replace).unwrap();
            db.sync().unwrap();
            let key = db.slot_of(t0).unwrap().key;
            let part = db.bucket_partition(key, false).unwrap().unwrap();
            let block = part.entry_offset(part.locate(t1).0) / BLOCK_LEN * BLOCK_LEN;
            (dir.join(data_file_name(key)), (dir.join(key.file_name()), block))
        };
        let clean_len = fs::metadata(&data).unwrap().len();
        let f = fs::OpenOptions::new().append(true).open(&data).unwrap();
        f.write_all_at(&[0xAB; 100], clean_len).unwrap();
        let f = fs::OpenOptions::new().write(true).open(&block.0).unwrap();
        f.write_all_at(&[0; BLOCK_LEN as usize], block.1).unwrap();
        drop(f);
        let db = open_writer(&dir);
        assert_eq!(db.get(t0).unwrap().len(), 1);
        assert_eq!(fs::metadata(&data).unwrap().len(), clean_len);
        // The zeroed block is still damage to a read: only the import's re-run rewrites it.
        assert!(matches!(db.get(t1), Err(Error::Checksum(_))));
    }

    #[test]
    fn a_writer_cuts_an_unreferenced_tail() {
        use crate::PutMode;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        let t0 = 1_704_067_200_000_000_000i64;
        let data = {
            let db = bucket_db(&dir);
            let mut r = db.schema().new_row();
            db.schema().set_field(&mut r, 0, "7").unwrap();
            db.put(t0, &r, PutMode::Replace).unwrap();
            db.sync().unwrap();
            let key = db.slot_of(t0).unwrap().key;
            dir.join(data_file_name(key))
        };
        let clean_len = fs::metadata(&data).unwrap().len();
        // A crash after appending, before any entry pointed there.
        let f = fs::OpenOptions::new().append(true).open(&data).unwrap();
        f.write_all_at(&[0xAB; 100], clean_len).unwrap();
        drop(f);
        assert_eq!(fs::metadata(&data).unwrap().len(), clean_len + 100);
        let db = open_writer(&dir);
        assert_eq!(db.get(t0).unwrap().len(), 1);
        assert_eq!(fs::metadata(&data).unwrap().len(), clean_len);
    }

    #[test]
    fn time_offsets_must_rise_and_stay_in_the_bucket() {
        assert!(units_in_order(&[], 10));
        assert!(units_in_order(&[9], 10));
        assert!(units_in_order(&[0, 0, 3, 3, 9], 10));
        assert!(!units_in_order(&[10], 10));
        assert!(!units_in_order(&[0, 4, 10], 10));
        // A fall anywhere: at the start, in the middle, at the end.
        assert!(!units_in_order(&[1, 0, 2, 3], 10));
        assert!(!units_in_order(&[0, 1, 5, 4, 6], 10));
        assert!(!units_in_order(&[0, 1, 2, 3, 2], 10));
    }
}
