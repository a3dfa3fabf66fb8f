//! `defrag`: rewrites a fragmented partition file into a fresh one whose data segments are each
//! allocated in one piece, keeping the holes, then swaps it in atomically. The steps: remove
//! leftovers of an interrupted run, check free space, create `.<name>.defrag` beside the
//! partition at the same logical size, allocate (`fallocate` mode 0) and copy each data segment
//! leaving all-zero blocks as holes, fsync, verify byte for byte against the original, rename
//! over it, fsync the directory. Until the rename the original is never written; after it the
//! new file holds the same bytes. The caller holds the writer lock.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use crate::db::bucket::BucketPartition;
use crate::db::config::{human_bytes, sync_dir};
use crate::db::partition::{data_segments, punch_hole, read_full_at, Header, Partition};
use crate::db::stat::{bucket_footprint, free_bytes, Footprint};
use crate::db::time::PartitionKey;
use crate::db::vfs;
use crate::db::{Database, BLOCK_LEN};
use crate::error::{Error, Result};

/// Suffix of the temporary file: `.2021.xs.defrag`. Its leading dot and suffix keep it from
/// ever parsing as a partition name.
pub const TEMP_SUFFIX: &str = ".defrag";
/// Bytes copied (and compared) per read.
const COPY_CHUNK_BYTES: usize = 1 << 20;
/// Free space kept beyond the data itself for the file system's own mapping blocks.
const SPACE_MARGIN_BYTES: u64 = 1 << 20;

/// The temporary file name for partition `key`.
pub fn temp_name(key: PartitionKey) -> String {
    format!(".{}{TEMP_SUFFIX}", key.file_name())
}

/// Temporary files of interrupted defrags in the database directory, sorted.
pub fn leftovers(db: &Database) -> Result<Vec<PathBuf>> {
    let dir = db.dir();
    let period = db.config().period;
    let entries = fs::read_dir(dir).map_err(|e| Error::io("read directory", dir, e))?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read directory", dir, e))?;
        let name = entry.file_name();
        let stripped = name.to_str().and_then(|n| n.strip_prefix('.'));
        let is_leftover = stripped
            .and_then(|n| n.strip_suffix(TEMP_SUFFIX))
            .and_then(|n| PartitionKey::parse_file_name(period, n))
            .is_some()
            || [
                crate::db::bucket::DEFRAG_DATA_SUFFIX,
                crate::db::bucket::DEFRAG_DIR_SUFFIX,
            ]
            .iter()
            .any(|suffix| {
                stripped
                    .and_then(|n| n.strip_suffix(suffix))
                    .and_then(|n| PartitionKey::parse(period, n))
                    .is_some()
            });
        if is_leftover {
            found.push(entry.path());
        }
    }
    found.sort();
    Ok(found)
}

#[derive(Clone, Copy, Debug)]
pub struct DefragOptions {
    /// Rewrite a partition only when it has at least this many fragmented extents (extents
    /// beyond what its data segments need). 0 rewrites every partition, which also turns
    /// all-zero blocks into holes.
    pub min_fragmented_extents: u64,
    /// Measure and report; change nothing.
    pub dry_run: bool,
    /// Free bytes to assume instead of asking the file system (a test hook).
    pub assume_free_bytes: Option<u64>,
    /// The record codec bucket partitions are rewritten to (`None`: the database's); one of
    /// another codec is rewritten even when compact. Set with `Database::set_codec` before a
    /// real run; a dry run only reports.
    pub codec: Option<crate::db::config::RecordCodec>,
}

/// The stages of one rewrite, reported as they complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The temporary file exists at its full logical size.
    Created,
    /// Every data segment is copied (not yet fsynced).
    Copied,
    /// The copy is fsynced.
    Synced,
    /// The copy matched the original; the rename comes next.
    Verified,
    /// The copy replaced the original (the directory is not yet fsynced).
    Renamed,
}

impl Step {
    pub const ALL: [Step; 5] = [
        Step::Created,
        Step::Copied,
        Step::Synced,
        Step::Verified,
        Step::Renamed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Step::Created => "created",
            Step::Copied => "copied",
            Step::Synced => "synced",
            Step::Verified => "verified",
            Step::Renamed => "renamed",
        }
    }
}

/// Progress reported to the caller while defrag runs.
#[derive(Debug)]
pub enum Event<'a> {
    /// A temporary file of an interrupted defrag; `removed` is false in a dry run.
    Leftover { path: &'a Path, removed: bool },
    /// A rewrite of partition `key` reached `step`.
    Step { key: PartitionKey, step: Step },
    /// A partition is finished with (reported as each completes, so that an error on a later
    /// partition does not hide what was done before it).
    Done(&'a Outcome),
}

/// What defrag did, or would do, with one partition.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// The verified copy replaced the partition; `after` is how it occupies the disk.
    Rewritten { after: Footprint },
    /// The verified copy had no fewer extents and no fewer allocated bytes (the file system
    /// had no larger free runs), so it was dropped and the original kept.
    NotImproved { copy: Footprint },
    /// Dry run: it would be rewritten, given `needed_bytes` of free space; `free_bytes` are
    /// available (when fewer, the real run refuses).
    WouldRewrite { needed_bytes: u64, free_bytes: u64 },
    /// Fewer fragmented extents than asked for.
    NotFragmented,
    /// The file system does not report extents, so fragmentation is unknown.
    ExtentsUnknown,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub key: PartitionKey,
    pub path: PathBuf,
    pub before: Footprint,
    pub action: Action,
    /// Bucket layout: what a rewrite removes besides fragmentation.
    pub buckets: Option<BucketState>,
}

/// The state of a bucket partition before defrag: what a rewrite takes away (garbage,
/// buckets out of time order) or adds (the directory summaries of the newest version).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketState {
    /// Data file bytes no entry points to.
    pub garbage_bytes: u64,
    /// Buckets whose record lies before the previous bucket's in the data file.
    pub out_of_order: u64,
    /// The partition's header version, and the one a rewrite gives it.
    pub version: u32,
    pub newest_version: u32,
}

/// Defragments the partitions `keys` (all when empty). Needs a database opened for writing
/// unless `options.dry_run`. Stops at the first error; partitions done before it stay done
/// (and were reported through `Event::Done`).
pub fn defrag(
    db: &Database,
    keys: &[PartitionKey],
    options: DefragOptions,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Vec<Outcome>> {
    if !options.dry_run && !db.is_writable() {
        return Err(Error::Invalid(
            "defrag needs the database opened for writing (the writer lock)".into(),
        ));
    }
    if db.is_series_root() {
        // Each series is a database of its own partitions.
        let mut outcomes = Vec::new();
        for (_, series) in db.selected_series()? {
            let own: Vec<PartitionKey> = if keys.is_empty() {
                Vec::new()
            } else {
                let stored = series.partition_keys()?;
                let own: Vec<PartitionKey> = keys.iter().copied().filter(|k| stored.contains(k)).collect();
                if own.is_empty() {
                    continue;
                }
                own
            };
            outcomes.extend(defrag(&series, &own, options, on_event)?);
        }
        return Ok(outcomes);
    }
    if db.layout() == crate::db::config::Layout::Bucket {
        return defrag_buckets(db, keys, options, on_event);
    }
    remove_leftovers(db, options, on_event)?;
    let keys = if keys.is_empty() {
        db.partition_keys()?
    } else {
        keys.to_vec()
    };
    let mut outcomes = Vec::with_capacity(keys.len());
    for key in keys {
        // A fresh handle, not the database's cache: the file under this name is replaced below.
        let source = Partition::open(db.dir(), db.config(), key, false)?;
        let before = Footprint::of_file(source.file()).map_err(|e| Error::io("measure", &source.path, e))?;
        let action = match before.fragmented_extents() {
            _ if options.min_fragmented_extents == 0 => None,
            None => Some(Action::ExtentsUnknown),
            Some(n) if n < options.min_fragmented_extents => Some(Action::NotFragmented),
            Some(_) => None,
        };
        let action = match action {
            Some(skip) => skip,
            None => {
                let needed_bytes = needed_bytes(&before);
                let free_bytes = match options.assume_free_bytes {
                    Some(n) => n,
                    None => free_bytes(db.dir())?,
                };
                if free_bytes < needed_bytes && !options.dry_run {
                    return Err(Error::Defrag {
                        path: source.path.clone(),
                        reason: format!(
                            "it needs {} free in {} for the rewritten copy and {} is available; \
                             free some space there and run again",
                            human_bytes(needed_bytes),
                            db.dir().display(),
                            human_bytes(free_bytes)
                        ),
                    });
                }
                if options.dry_run {
                    Action::WouldRewrite {
                        needed_bytes,
                        free_bytes,
                    }
                } else {
                    refuse_damage(db, key, &source.path)?;
                    rewrite(db, &source, &before, on_event)?
                }
            }
        };
        let outcome = Outcome {
            key,
            path: source.path.clone(),
            before,
            action,
            buckets: None,
        };
        on_event(Event::Done(&outcome));
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// Verifies partition `key` before it is rewritten: a rewrite keeps only what reads, so a
/// damaged unit would turn into rows lost for good. Refuses (nothing is rewritten) unless
/// every unit passes its check.
fn refuse_damage(db: &Database, key: PartitionKey, path: &Path) -> Result<()> {
    let checked = crate::check::check_partition(db, key)?;
    if checked.is_clean() {
        return Ok(());
    }
    let units: u64 = checked.findings.iter().map(|f| f.units).sum();
    let first = checked
        .findings
        .first()
        .map(|f| f.damage.to_string())
        .or_else(|| checked.problems.first().cloned())
        .unwrap_or_default();
    Err(Error::DefragDamaged {
        path: path.to_path_buf(),
        reason: format!(
            "it holds damaged data ({units} unit(s) fail their checksum, {} other problem(s)); \
             first: {first}. A rewrite would drop rows it cannot account for, so nothing was \
             rewritten; `xs check` lists every damaged place",
            checked.problems.len()
        ),
    })
}

/// `defrag` for the bucket layout: a partition with garbage or out-of-order buckets, with
/// fragmented extents (or every partition, with `min_fragmented_extents` 0) gets its live
/// records rewritten in bucket order into a new data file and directory, verified, and renamed
/// into place; a compact partition's copy only if it lies better on disk.
fn defrag_buckets(
    db: &Database,
    keys: &[PartitionKey],
    options: DefragOptions,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Vec<Outcome>> {
    let keys = if keys.is_empty() {
        db.partition_keys()?
    } else {
        keys.to_vec()
    };
    // Opening each partition first finishes a defrag interrupted between its two renames,
    // which needs its pending directory file: only then are the leftovers removed.
    let all = db.partition_keys()?;
    for &key in &all {
        db.bucket_partition(key, false)?;
    }
    remove_leftovers(db, options, on_event)?;
    let mut outcomes = Vec::with_capacity(keys.len());
    let config = crate::db::config::Config {
        codec: options.codec.unwrap_or(db.config().codec),
        ..db.config().clone()
    };
    for key in keys {
        let Some(part) = db.bucket_partition(key, false)? else {
            continue;
        };
        let before = bucket_footprint(&part)?;
        let audit = part.audit()?;
        let needed_bytes = audit
            .live_bytes
            .saturating_add(before.data_bytes.saturating_sub(part.data_len()))
            .saturating_add(SPACE_MARGIN_BYTES);
        // A version-1 partition (no summaries) is rewritten even when compact: defrag upgrades it.
        let state = BucketState {
            garbage_bytes: audit.garbage_bytes,
            out_of_order: audit.out_of_order,
            version: part.version,
            newest_version: crate::db::bucket::newest_version(&config, key),
        };
        let compact =
            audit.garbage_bytes == 0 && audit.out_of_order == 0 && state.version == state.newest_version;
        // A compact partition is rewritten only for its layout on disk: when it has as many
        // fragmented extents as asked for (what `stat` reports), or always with `--min-extents 0`.
        // Where extents are unknown (tmpfs), it has nothing defrag can measure.
        let skip = match before.fragmented_extents() {
            _ if !compact || options.min_fragmented_extents == 0 => None,
            None => Some(Action::NotFragmented),
            Some(n) if n < options.min_fragmented_extents => Some(Action::NotFragmented),
            Some(_) => None,
        };
        let action = if let Some(skip) = skip {
            skip
        } else {
            let free_bytes = match options.assume_free_bytes {
                Some(n) => n,
                None => free_bytes(db.dir())?,
            };
            if options.dry_run {
                Action::WouldRewrite {
                    needed_bytes,
                    free_bytes,
                }
            } else if free_bytes < needed_bytes {
                return Err(Error::Defrag {
                    path: part.dir_path.clone(),
                    reason: format!(
                        "it needs {} free in {} for the rewritten copy and {} is available; \
                         free some space there and run again",
                        human_bytes(needed_bytes),
                        db.dir().display(),
                        human_bytes(free_bytes)
                    ),
                });
            } else {
                refuse_damage(db, key, &part.dir_path)?;
                // A partition already compact is rewritten only for a better layout on disk:
                // if the copy is no better, keeping the original makes a second run (or the
                // re-run after a kill) change nothing, as for the grid.
                let mut not_improved = None;
                let mut install = |copy: &BucketPartition| -> Result<bool> {
                    if !compact {
                        return Ok(true);
                    }
                    let footprint = bucket_footprint(copy)?;
                    let better = improves(&before, &footprint);
                    if !better {
                        not_improved = Some(footprint);
                    }
                    Ok(better)
                };
                let rewritten = part.compact(db.dir(), &config, &mut install)?;
                match (rewritten, not_improved) {
                    (None, Some(copy)) => Action::NotImproved { copy },
                    _ => {
                        db.forget_partition(key);
                        on_event(Event::Step {
                            key,
                            step: Step::Renamed,
                        });
                        let fresh = db.bucket_partition(key, false)?.ok_or_else(|| {
                            Error::Invalid(format!("partition {key} vanished during defrag"))
                        })?;
                        Action::Rewritten {
                            after: bucket_footprint(&fresh)?,
                        }
                    }
                }
            }
        };
        let outcome = Outcome {
            key,
            path: part.dir_path.clone(),
            before,
            action,
            buckets: Some(state),
        };
        on_event(Event::Done(&outcome));
        outcomes.push(outcome);
    }
    Ok(outcomes)
}

/// Removes the temporary files of interrupted defrags (only reports them on a dry run).
fn remove_leftovers(
    db: &Database,
    options: DefragOptions,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<()> {
    for path in leftovers(db)? {
        if !options.dry_run {
            vfs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
            sync_dir(db.dir())?;
        }
        on_event(Event::Leftover {
            path: &path,
            removed: !options.dry_run,
        });
    }
    Ok(())
}

/// Free space a rewrite needs: every data byte once more, plus a margin for mapping blocks.
fn needed_bytes(before: &Footprint) -> u64 {
    before
        .data_bytes
        .saturating_add(before.data_bytes / 100)
        .saturating_add(SPACE_MARGIN_BYTES)
}

/// Copies `source` into a fresh temporary file, verifies it and renames it over the original.
fn rewrite(
    db: &Database,
    source: &Partition,
    before: &Footprint,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<Action> {
    let key = source.key;
    let temp_path = db.dir().join(temp_name(key));
    let meta = source
        .file()
        .metadata()
        .map_err(|e| Error::io("stat", &source.path, e))?;
    let mode = meta.permissions().mode() & 0o7777;
    let temp = crate::db::files::create_temp(&temp_path, mode)?;
    // Keep the owner too when allowed (root rewriting another user's database); otherwise the
    // copy belongs to whoever runs defrag, as any file they create would.
    let _ = std::os::unix::fs::fchown(&temp, Some(meta.uid()), Some(meta.gid()));
    let checked = copy_and_verify(source, &temp, &temp_path, mode, key, on_event)
        .and_then(|()| Footprint::of_file(&temp).map_err(|e| Error::io("measure", &temp_path, e)));
    let copy = match checked {
        Ok(copy) => copy,
        Err(e) => {
            // The original was only read; removing the copy leaves the database as it was.
            drop(temp);
            let _ = vfs::remove_file(&temp_path);
            return Err(e);
        }
    };
    on_event(Event::Step {
        key,
        step: Step::Verified,
    });
    if !improves(before, &copy) {
        // The file system had no better place for the data: keep the original, which is
        // just as good, rather than churn.
        drop(temp);
        vfs::remove_file(&temp_path).map_err(|e| Error::io("remove", &temp_path, e))?;
        return Ok(Action::NotImproved { copy });
    }
    vfs::rename(&temp_path, &source.path).map_err(|e| Error::io("rename", &temp_path, e))?;
    db.forget_partition(key);
    on_event(Event::Step {
        key,
        step: Step::Renamed,
    });
    sync_dir(db.dir())?;
    Ok(Action::Rewritten { after: copy })
}

/// Whether `copy` is worth swapping in: fewer extents or fewer allocated bytes.
fn improves(before: &Footprint, copy: &Footprint) -> bool {
    let fewer_extents = matches!((copy.extents, before.extents), (Some(a), Some(b)) if a < b);
    fewer_extents || copy.physical_bytes < before.physical_bytes
}

fn copy_and_verify(
    source: &Partition,
    temp: &File,
    temp_path: &Path,
    mode: u32,
    key: PartitionKey,
    on_event: &mut dyn FnMut(Event<'_>),
) -> Result<()> {
    let io_temp = |op: &'static str| move |e: io::Error| Error::io(op, temp_path, e);
    let logical_bytes = source.logical_len();
    // `mode` was applied through the umask at creation; set it exactly.
    temp.set_permissions(fs::Permissions::from_mode(mode))
        .map_err(io_temp("set permissions of"))?;
    vfs::set_len(temp, logical_bytes).map_err(io_temp("size"))?;
    on_event(Event::Step {
        key,
        step: Step::Created,
    });
    let segments = source.data_segments(0, logical_bytes)?;
    let mut buf = vec![0u8; COPY_CHUNK_BYTES];
    for &(seg_from, seg_to) in &segments {
        allocate(temp, seg_from, seg_to).map_err(|e| space_error(e, temp_path))?;
        let mut at = seg_from;
        while at < seg_to {
            let len = chunk_len(at, seg_to);
            let chunk = &mut buf[..len];
            source.read_at(chunk, at)?;
            for (run_from, run_to, zero) in block_runs(chunk, at) {
                let bytes = &chunk[(run_from - at) as usize..(run_to - at) as usize];
                if zero {
                    // Allocated above, but all zeros: give the blocks back, leave a hole.
                    punch_hole(temp, run_from, run_to).map_err(io_temp("punch a hole in"))?;
                } else {
                    vfs::write_at(temp, bytes, run_from).map_err(|e| space_error(e, temp_path))?;
                }
            }
            at += len as u64;
        }
    }
    on_event(Event::Step {
        key,
        step: Step::Copied,
    });
    vfs::sync_all(temp).map_err(io_temp("sync"))?;
    on_event(Event::Step {
        key,
        step: Step::Synced,
    });
    drop_cache(temp);
    verify(source, temp, temp_path, &segments)
}

/// Reads the copy back (from the device, its cache dropped) and compares it with the original
/// over every data segment of the original; elsewhere both are holes, which read as zeros.
fn verify(source: &Partition, temp: &File, temp_path: &Path, segments: &[(u64, u64)]) -> Result<()> {
    let fail = |reason: String| Error::Defrag {
        path: source.path.clone(),
        reason: format!("{reason}; the original is untouched and the copy was removed"),
    };
    let temp_len = temp
        .metadata()
        .map_err(|e| Error::io("stat", temp_path, e))?
        .len();
    if temp_len != source.logical_len() {
        return Err(fail(format!(
            "the copy is {temp_len} bytes long, the original {}",
            source.logical_len()
        )));
    }
    let mut header = [0u8; crate::db::partition::HEADER_ENCODED_LEN];
    read_full_at(temp, &mut header, 0).map_err(|e| Error::io("read", temp_path, e))?;
    Header::decode(&header).map_err(|reason| fail(format!("the copy's header is unreadable: {reason}")))?;
    for (from, to) in data_segments(temp, 0, temp_len).map_err(|e| Error::io("seek in", temp_path, e))? {
        if !segments.iter().any(|&(a, b)| a <= from && to <= b) {
            return Err(fail(format!(
                "the copy has data at bytes {from}..{to}, the original a hole"
            )));
        }
    }
    let mut want = vec![0u8; COPY_CHUNK_BYTES];
    let mut got = vec![0u8; COPY_CHUNK_BYTES];
    for &(seg_from, seg_to) in segments {
        let mut at = seg_from;
        while at < seg_to {
            let len = chunk_len(at, seg_to);
            source.read_at(&mut want[..len], at)?;
            read_full_at(temp, &mut got[..len], at).map_err(|e| Error::io("read", temp_path, e))?;
            if want[..len] != got[..len] {
                let offset = want[..len]
                    .iter()
                    .zip(&got[..len])
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                return Err(fail(format!(
                    "the copy differs from the original at byte {}",
                    at + offset as u64
                )));
            }
            at += len as u64;
        }
    }
    Ok(())
}

/// Bytes to handle from `at`: up to `COPY_CHUNK_BYTES`, ending on a block edge unless at `end`.
fn chunk_len(at: u64, end: u64) -> usize {
    let chunk_end = (at / BLOCK_LEN * BLOCK_LEN).saturating_add(COPY_CHUNK_BYTES as u64);
    // At most COPY_CHUNK_BYTES, so it fits in usize.
    (chunk_end.min(end) - at) as usize
}

/// Splits `bytes` (file offset `at`) at block edges into maximal runs of all-zero blocks and of
/// blocks holding data: `(from, to, zero)` in file offsets.
fn block_runs(bytes: &[u8], at: u64) -> Vec<(u64, u64, bool)> {
    let end = at + bytes.len() as u64;
    let mut runs: Vec<(u64, u64, bool)> = Vec::new();
    let mut from = at;
    while from < end {
        let to = ((from / BLOCK_LEN + 1) * BLOCK_LEN).min(end);
        let block = &bytes[(from - at) as usize..(to - at) as usize];
        let zero = block.iter().all(|&b| b == 0);
        match runs.last_mut() {
            Some(last) if last.2 == zero => last.1 = to,
            _ => runs.push((from, to, zero)),
        }
        from = to;
    }
    runs
}

/// `fallocate(mode 0)` over `[from, to)`, so the segment gets one contiguous allocation.
/// File systems without fallocate are left to allocate as the copy writes.
fn allocate(file: &File, from: u64, to: u64) -> io::Result<()> {
    if to <= from {
        return Ok(());
    }
    match vfs::fallocate(file, 0, from, to - from) {
        Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => Ok(()),
        other => other,
    }
}

/// Drops the file's clean cached pages so that verification reads what reached the device.
fn drop_cache(file: &File) {
    // SAFETY: posix_fadvise on a valid descriptor owned by `file` has no memory effects; it is
    // advice only, so its result is not needed.
    let _ = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
}

fn space_error(e: io::Error, temp_path: &Path) -> Error {
    if e.raw_os_error() == Some(libc::ENOSPC) {
        Error::Defrag {
            path: temp_path.to_path_buf(),
            reason: "the file system ran out of space during the copy; the original is untouched; \
                     free some space and run again"
                .into(),
        }
    } else {
        Error::io("write", temp_path, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_split_at_block_edges() {
        let mut bytes = vec![0u8; 4 * 4096];
        bytes[4096 + 7] = 1;
        bytes[2 * 4096] = 1;
        assert_eq!(
            block_runs(&bytes, 8192),
            vec![(8192, 12288, true), (12288, 20480, false), (20480, 24576, true)]
        );
        // An unaligned start and a partial last block.
        let bytes = vec![0u8; 5000];
        assert_eq!(block_runs(&bytes, 100), vec![(100, 5100, true)]);
        let mut bytes = vec![0u8; 5000];
        bytes[4999] = 9;
        assert_eq!(
            block_runs(&bytes, 100),
            vec![(100, 4096, true), (4096, 5100, false)]
        );
    }

    #[test]
    fn chunks_end_on_block_edges() {
        assert_eq!(chunk_len(0, 10), 10);
        assert_eq!(chunk_len(4096, 1 << 30), COPY_CHUNK_BYTES);
        assert_eq!(chunk_len(100, 1 << 30), COPY_CHUNK_BYTES - 100);
    }

    #[test]
    fn temp_names_never_parse_as_partitions() {
        use crate::db::time::Period;
        let key = PartitionKey::parse(Period::Year, "2021").unwrap();
        let name = temp_name(key);
        assert_eq!(name, ".2021.xs.defrag");
        assert!(PartitionKey::parse_file_name(Period::Year, &name).is_none());
    }

    /// After a rewrite the database handle reads the new file, not the replaced one.
    #[test]
    fn the_cached_handle_is_replaced() {
        use crate::db::config::{Config, Layout};
        use crate::db::schema::Schema;
        use crate::db::time::{Granularity, Period};
        use crate::{Access, PutMode};
        use std::os::unix::fs::MetadataExt;

        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("db");
        let config = Config {
            layout: Layout::Grid,
            bucket_ns: 0,
            granularity: Granularity::from_ns(1_000_000_000).unwrap(),
            period: Period::Year,
            depth: 1,
            time_column: "time".into(),
            schema: Schema::parse_spec("v:i64").unwrap(),
            keys: Default::default(),
            codec: Default::default(),
            timezone: Default::default(),
            date_order: None,
            decimal_comma: false,
        };
        drop(Database::create(&dir, &config).unwrap());
        let db = Database::open(&dir, Access::Write(crate::db::lock::LockWait::No), &mut |_| {}).unwrap();
        let t_ns = 1_609_459_200 * 1_000_000_000i64;
        let mut row = db.schema().new_row();
        db.schema().set_field(&mut row, 0, "42").unwrap();
        db.put(t_ns, &row, PutMode::Replace).unwrap();
        let key = db.slot_of(t_ns).unwrap().key;
        // Allocated zero blocks after the row: the copy is smaller, so it replaces the file.
        let partition = db.partition(key, false).unwrap().unwrap();
        partition.write_at(&[0u8; 65536], 3 * BLOCK_LEN).unwrap();
        partition.sync().unwrap();
        let old_inode = db
            .partition(key, false)
            .unwrap()
            .unwrap()
            .file()
            .metadata()
            .unwrap()
            .ino();
        let options = DefragOptions {
            min_fragmented_extents: 0,
            dry_run: false,
            assume_free_bytes: None,
            codec: None,
        };
        let outcomes = defrag(&db, &[], options, &mut |_| {}).unwrap();
        assert!(matches!(outcomes[0].action, Action::Rewritten { .. }));
        let on_disk = fs::metadata(dir.join(key.file_name())).unwrap().ino();
        assert_ne!(on_disk, old_inode, "the file was replaced");
        let cached = db
            .partition(key, false)
            .unwrap()
            .unwrap()
            .file()
            .metadata()
            .unwrap()
            .ino();
        assert_eq!(cached, on_disk, "the database reads the new file");
        assert_eq!(db.get(t_ns).unwrap(), vec![row]);
    }

    #[test]
    fn space_needed_covers_the_data() {
        let f = Footprint {
            data_bytes: 100 << 20,
            ..Footprint::default()
        };
        assert!(needed_bytes(&f) > 100 << 20);
    }
}
