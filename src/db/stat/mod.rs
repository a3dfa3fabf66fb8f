//! The storage-footprint audit behind `xs stat`: per partition file, its logical and physical
//! size, the rows it stores, its data segments (`SEEK_DATA` runs) and extents (FIEMAP), and how
//! fragmented it is. Row counting reads data segments only, never holes. See docs/STAT.md.

pub mod fiemap;

use std::fs::File;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::db::bucket::BucketPartition;
use crate::db::partition::data_segments;
use crate::db::schema::Schema;
use crate::db::time::PartitionKey;
use crate::db::Database;
use crate::error::{Error, Result};

/// How one file occupies the file system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Footprint {
    /// `st_size`: the file's length, holes included.
    pub logical_bytes: u64,
    /// `st_blocks × 512`: bytes allocated on the device (data and the file system's own
    /// mapping blocks).
    pub physical_bytes: u64,
    /// Runs of data between holes, as `SEEK_DATA`/`SEEK_HOLE` report them.
    pub data_segments: u64,
    /// Bytes inside those runs.
    pub data_bytes: u64,
    /// Extents from FIEMAP, with neighbours that continue each other both logically and
    /// physically counted once (ext4 splits a contiguous run into extents of at most 128 MiB),
    /// so a data segment laid out in one piece counts as one extent. `None` where the file
    /// system does not support FIEMAP.
    pub extents: Option<u64>,
}

impl Footprint {
    /// Measures `file`: one `fstat`, a `SEEK_DATA`/`SEEK_HOLE` walk and FIEMAP. Reads no data.
    pub fn of_file(file: &File) -> io::Result<Footprint> {
        let meta = file.metadata()?;
        let logical_bytes = meta.len();
        let physical_bytes = meta.blocks().saturating_mul(512);
        let segments = data_segments(file, 0, logical_bytes)?;
        let data_bytes = segments.iter().map(|(from, to)| to - from).sum();
        let extents = fiemap::extents(file)?.map(|list| fiemap::count_runs(&list));
        Ok(Footprint {
            logical_bytes,
            physical_bytes,
            data_segments: segments.len() as u64,
            data_bytes,
            extents,
        })
    }

    /// Extents beyond one per data segment: 0 when every data segment lies in one piece.
    pub fn fragmented_extents(&self) -> Option<u64> {
        self.extents.map(|e| e.saturating_sub(self.data_segments))
    }

    /// Fragmented extents as a percentage of all extents (0 when there are none).
    pub fn fragmentation_pct(&self) -> Option<f64> {
        let extents = self.extents?;
        let fragmented = self.fragmented_extents()?;
        Some(if extents == 0 {
            0.0
        } else {
            fragmented as f64 * 100.0 / extents as f64
        })
    }

    /// Data bytes per extent: with large extents (tens of MiB) a fragmented file still reads
    /// sequentially. `None` when extents are unknown or there are none.
    pub fn mean_extent_bytes(&self) -> Option<u64> {
        self.extents.filter(|&e| e > 0).map(|e| self.data_bytes / e)
    }

    /// Adds `other` into `self` (for totals); extents stay known only if known for both.
    pub fn add(&mut self, other: &Footprint) {
        self.logical_bytes = self.logical_bytes.saturating_add(other.logical_bytes);
        self.physical_bytes = self.physical_bytes.saturating_add(other.physical_bytes);
        self.data_segments = self.data_segments.saturating_add(other.data_segments);
        self.data_bytes = self.data_bytes.saturating_add(other.data_bytes);
        self.extents = match (self.extents, other.extents) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            _ => None,
        };
    }
}

/// What a scan of the data segments found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RowCount {
    /// Rows with the present bit set.
    pub rows: u64,
    /// `rows × row length`.
    pub row_bytes: u64,
    /// Timestamp (ns) of the first and last slot holding a row; `None` when there are no rows.
    pub first_ns: Option<i64>,
    pub last_ns: Option<i64>,
}

impl RowCount {
    pub fn add(&mut self, other: &RowCount) {
        self.rows = self.rows.saturating_add(other.rows);
        self.row_bytes = self.row_bytes.saturating_add(other.row_bytes);
        self.first_ns = match (self.first_ns, other.first_ns) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last_ns = match (self.last_ns, other.last_ns) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }
}

/// Row bytes per physical byte; `None` when either is unknown or nothing is allocated.
pub fn fill(rows: Option<&RowCount>, footprint: &Footprint) -> Option<f64> {
    let rows = rows?;
    (footprint.physical_bytes > 0).then(|| rows.row_bytes as f64 / footprint.physical_bytes as f64)
}

/// One partition's figures.
#[derive(Clone, Debug)]
pub struct PartitionStat {
    pub key: PartitionKey,
    pub path: PathBuf,
    pub footprint: Footprint,
    /// `None` when rows were not counted (`StatOptions::count_rows` false).
    pub rows: Option<RowCount>,
    /// Bucket layout: what the directory walk found (the footprint then covers the
    /// directory and the data file together).
    pub bucket: Option<crate::db::bucket::Audit>,
}

/// The whole audit: each partition asked for, totals, and the state of the directory.
#[derive(Clone, Debug)]
pub struct DatabaseStat {
    pub partitions: Vec<PartitionStat>,
    pub total: Footprint,
    pub total_rows: Option<RowCount>,
    /// False when any partition's file system refused FIEMAP (extents are then unknown).
    pub fiemap_supported: bool,
    /// The command that completes an interrupted import, when one is recorded.
    pub unfinished_import: Option<String>,
    /// The commands that complete interrupted deletes, when any are recorded.
    pub unfinished_deletes: Vec<String>,
    /// Temporary files left by an interrupted `defrag`, with their physical bytes.
    pub defrag_leftovers: Vec<(PathBuf, u64)>,
    /// Series measured (0 without a series key).
    pub series: usize,
}

#[derive(Clone, Copy, Debug)]
pub struct StatOptions {
    /// Scan the data segments to count rows and find the first and last timestamp.
    pub count_rows: bool,
}

/// Partition names as `xs stat` prints them in a series database (`AAPL/2024`): the series
/// they name are selected in `db` and the partition names returned without them. The names
/// must be every pair of their series and partitions (one series, one partition, or each
/// with each), so that selecting both reads exactly what was named. Other names pass as
/// they are.
pub fn select_series_partitions(db: &mut Database, names: &[String]) -> Result<Vec<String>> {
    if !db.is_series_root() || !names.iter().any(|n| n.contains('/')) {
        return Ok(names.to_vec());
    }
    let mut pairs = Vec::with_capacity(names.len());
    for name in names {
        let Some((series, partition)) = name.rsplit_once('/') else {
            return Err(Error::Invalid(format!(
                "partition `{name}`: in a series database name partitions as SERIES/PARTITION, as \
                 `xs stat` prints them"
            )));
        };
        pairs.push((series.to_string(), partition.to_string()));
    }
    let mut series: Vec<String> = pairs.iter().map(|(s, _)| s.clone()).collect();
    let mut partitions: Vec<String> = pairs.iter().map(|(_, p)| p.clone()).collect();
    series.sort();
    series.dedup();
    partitions.sort();
    partitions.dedup();
    let every_pair = series
        .iter()
        .all(|s| partitions.iter().all(|p| pairs.contains(&(s.clone(), p.clone()))));
    if !every_pair {
        return Err(Error::Invalid(
            "name the same partitions of each series (AAPL/2023 AAPL/2024 MSFT/2023 MSFT/2024), or \
             one series' partitions at a time"
                .into(),
        ));
    }
    db.select_series_names(&series)?;
    Ok(partitions)
}

/// Resolves partition names (`2021` or `2021.xs`) to keys; empty `names` means every partition.
/// An unknown name is an error that lists what exists.
pub fn select_partitions(db: &Database, names: &[String]) -> Result<Vec<PartitionKey>> {
    let existing = db.partition_keys()?;
    if names.is_empty() {
        return Ok(existing);
    }
    let period = db.config().period;
    let mut keys = Vec::with_capacity(names.len());
    for name in names {
        let key = PartitionKey::parse_file_name(period, name)
            .or_else(|| PartitionKey::parse(period, name))
            .filter(|key| existing.contains(key));
        match key {
            Some(key) if !keys.contains(&key) => keys.push(key),
            Some(_) => {}
            None => {
                let list: Vec<String> = existing.iter().map(|k| k.to_string()).collect();
                let list = if list.is_empty() {
                    "none yet".to_string()
                } else {
                    list.join(", ")
                };
                return Err(Error::Invalid(format!(
                    "no partition `{name}` in {} (partitions: {list}); name partitions as in `xs stat`",
                    db.dir().display()
                )));
            }
        }
    }
    keys.sort();
    Ok(keys)
}

/// Measures the partitions `keys` (all of them when empty) of `db`.
pub fn stat(db: &Database, keys: &[PartitionKey], options: StatOptions) -> Result<DatabaseStat> {
    if db.is_series_root() {
        return stat_series(db, keys, options);
    }
    let keys = if keys.is_empty() {
        db.partition_keys()?
    } else {
        keys.to_vec()
    };
    if db.layout() == crate::db::config::Layout::Bucket {
        return stat_buckets(db, &keys, options);
    }
    let mut partitions = Vec::with_capacity(keys.len());
    let mut total = Footprint {
        extents: Some(0),
        ..Footprint::default()
    };
    let mut total_rows = options.count_rows.then(RowCount::default);
    let mut fiemap_supported = true;
    for key in keys {
        let Some(partition) = db.partition(key, false)? else {
            continue;
        };
        let footprint =
            Footprint::of_file(partition.file()).map_err(|e| Error::io("measure", &partition.path, e))?;
        let rows = if options.count_rows {
            Some(count_rows(db, key)?)
        } else {
            None
        };
        fiemap_supported &= footprint.extents.is_some();
        total.add(&footprint);
        if let (Some(t), Some(r)) = (total_rows.as_mut(), rows.as_ref()) {
            t.add(r);
        }
        partitions.push(PartitionStat {
            key,
            path: partition.path.clone(),
            footprint,
            rows,
            bucket: None,
        });
    }
    let defrag_leftovers = defrag_leftovers(db)?;
    Ok(DatabaseStat {
        partitions,
        total,
        total_rows,
        fiemap_supported,
        unfinished_import: crate::db::marker::unfinished_import(db.dir()),
        unfinished_deletes: crate::db::marker::unfinished_deletes(db.dir()),
        defrag_leftovers,
        series: 0,
    })
}

/// `stat` of a series database: each selected series measured as a database of its own and
/// added up; the partitions of every series are listed.
fn stat_series(db: &Database, keys: &[PartitionKey], options: StatOptions) -> Result<DatabaseStat> {
    let mut out = DatabaseStat {
        partitions: Vec::new(),
        total: Footprint {
            extents: Some(0),
            ..Footprint::default()
        },
        total_rows: options.count_rows.then(RowCount::default),
        fiemap_supported: true,
        unfinished_import: crate::db::marker::unfinished_import(db.dir()),
        unfinished_deletes: crate::db::marker::unfinished_deletes(db.dir()),
        defrag_leftovers: Vec::new(),
        series: 0,
    };
    for (_, series) in db.selected_series()? {
        let own: Vec<PartitionKey> = if keys.is_empty() {
            series.partition_keys()?
        } else {
            let stored = series.partition_keys()?;
            keys.iter().copied().filter(|k| stored.contains(k)).collect()
        };
        if own.is_empty() && !keys.is_empty() {
            continue;
        }
        let s = stat(&series, &own, options)?;
        out.series += 1;
        out.partitions.extend(s.partitions);
        out.total.add(&s.total);
        out.fiemap_supported &= s.fiemap_supported;
        if let (Some(t), Some(r)) = (out.total_rows.as_mut(), s.total_rows.as_ref()) {
            t.add(r);
        }
        out.defrag_leftovers.extend(s.defrag_leftovers);
    }
    if !out.fiemap_supported {
        out.total.extents = None;
    }
    Ok(out)
}

/// `stat` for the bucket layout: each partition's directory and data file measured together,
/// rows and garbage from one walk of the directory (which never reads its holes).
fn stat_buckets(db: &Database, keys: &[PartitionKey], options: StatOptions) -> Result<DatabaseStat> {
    let row_len = db.schema().row_len() as u64;
    let mut partitions = Vec::with_capacity(keys.len());
    let mut total = Footprint {
        extents: Some(0),
        ..Footprint::default()
    };
    let mut total_rows = RowCount::default();
    let mut fiemap_supported = true;
    for &key in keys {
        let Some(part) = db.bucket_partition(key, false)? else {
            continue;
        };
        let footprint = bucket_footprint(&part)?;
        let mut audit = part.audit()?;
        // The per-column bytes read every record's stream headers: data, which `--fast` skips.
        if options.count_rows {
            audit.codec = part.codec_bytes()?;
        }
        let rows = RowCount {
            rows: audit.rows,
            row_bytes: audit.rows.saturating_mul(row_len),
            first_ns: audit.first_ns,
            last_ns: audit.last_ns,
        };
        fiemap_supported &= footprint.extents.is_some();
        total.add(&footprint);
        total_rows.add(&rows);
        partitions.push(PartitionStat {
            key,
            path: part.dir_path.clone(),
            footprint,
            rows: Some(rows),
            bucket: Some(audit),
        });
    }
    Ok(DatabaseStat {
        partitions,
        total,
        total_rows: Some(total_rows),
        fiemap_supported,
        unfinished_import: crate::db::marker::unfinished_import(db.dir()),
        unfinished_deletes: crate::db::marker::unfinished_deletes(db.dir()),
        defrag_leftovers: defrag_leftovers(db)?,
        series: 0,
    })
}

/// A bucket partition's directory and data file measured together.
pub fn bucket_footprint(part: &BucketPartition) -> Result<Footprint> {
    let mut footprint =
        Footprint::of_file(part.dir_file()).map_err(|e| Error::io("measure", &part.dir_path, e))?;
    let data = Footprint::of_file(part.data_file()).map_err(|e| Error::io("measure", &part.data_path, e))?;
    footprint.add(&data);
    Ok(footprint)
}

/// The temporary files of interrupted defrags, with the bytes each holds on disk.
fn defrag_leftovers(db: &Database) -> Result<Vec<(PathBuf, u64)>> {
    Ok(crate::db::defrag::leftovers(db)?
        .into_iter()
        .map(|path| {
            let physical = std::fs::symlink_metadata(&path)
                .map(|m| m.blocks().saturating_mul(512))
                .unwrap_or(0);
            (path, physical)
        })
        .collect())
}

/// Counts the rows of one partition, reading its data segments only.
pub fn count_rows(db: &Database, key: PartitionKey) -> Result<RowCount> {
    let row_len = db.schema().row_len();
    let slab_len = usize::try_from(db.config().slab_len())
        .map_err(|_| Error::Invalid("slot length does not fit in memory".into()))?;
    let depth1 = slab_len == row_len;
    // Rows stored in one slot: the leading rows with the present bit, as `range` reads them.
    let rows_in = |slab: &[u8]| -> u64 {
        if depth1 {
            u64::from(Schema::is_present(slab))
        } else {
            slab.chunks_exact(row_len)
                .take_while(|row| Schema::is_present(row))
                .count() as u64
        }
    };
    let mut count = RowCount::default();
    let mut first_slot = None;
    let mut last_slot = None;
    db.scan_chunks(
        key.start_ns(),
        key.end_ns(),
        |_, chunk_first_slot, bytes| -> Result<bool> {
            let rows: u64 = if depth1 {
                // The hot loop: one flag byte per row.
                bytes
                    .iter()
                    .step_by(row_len)
                    .map(|&flags| u64::from(Schema::is_present(&[flags])))
                    .sum()
            } else {
                bytes.chunks_exact(slab_len).map(rows_in).sum()
            };
            if rows > 0 {
                let mut slabs = bytes.chunks_exact(slab_len);
                if first_slot.is_none() {
                    first_slot = slabs
                        .position(|slab| rows_in(slab) > 0)
                        .map(|i| chunk_first_slot + i as u64);
                }
                let n = (bytes.len() / slab_len) as u64;
                let from_end = bytes
                    .chunks_exact(slab_len)
                    .rev()
                    .position(|slab| rows_in(slab) > 0);
                last_slot = from_end.map(|j| chunk_first_slot + n - 1 - j as u64);
                count.rows += rows;
            }
            Ok(true)
        },
    )?;
    count.row_bytes = count.rows.saturating_mul(row_len as u64);
    count.first_ns = first_slot.map(|slot| db.time_of(key, slot));
    count.last_ns = last_slot.map(|slot| db.time_of(key, slot));
    Ok(count)
}

/// Bytes the file system can still give to an unprivileged writer in `dir` (`statvfs`).
pub fn free_bytes(dir: &Path) -> Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| Error::Invalid(format!("path {} contains a NUL byte", dir.display())))?;
    let mut buf = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c_path` is a valid NUL-terminated string and `buf` is writable memory of the
    // size `statvfs` fills; it is read only after the call reports success.
    let rc = unsafe { libc::statvfs(c_path.as_ptr(), buf.as_mut_ptr()) };
    if rc != 0 {
        return Err(Error::io("check free space in", dir, io::Error::last_os_error()));
    }
    // SAFETY: statvfs returned 0, so it initialized `buf`.
    let vfs = unsafe { buf.assume_init() };
    // Both are 32-bit on some targets and 64-bit on others.
    #[allow(clippy::useless_conversion)]
    let (blocks, block_bytes) = (u64::from(vfs.f_bavail), u64::from(vfs.f_frsize));
    Ok(blocks.saturating_mul(block_bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragmentation_counts_extents_beyond_need() {
        let f = Footprint {
            logical_bytes: 1 << 30,
            physical_bytes: 1 << 20,
            data_segments: 4,
            data_bytes: 1 << 20,
            extents: Some(10),
        };
        assert_eq!(f.fragmented_extents(), Some(6));
        assert_eq!(f.fragmentation_pct(), Some(60.0));
        assert_eq!(f.mean_extent_bytes(), Some((1 << 20) / 10));
        let none = Footprint { extents: None, ..f };
        assert_eq!(none.fragmented_extents(), None);
        let fewer = Footprint {
            extents: Some(2),
            ..f
        };
        assert_eq!(fewer.fragmented_extents(), Some(0));
    }

    #[test]
    fn totals_add_up() {
        let mut a = RowCount {
            rows: 2,
            row_bytes: 18,
            first_ns: Some(5),
            last_ns: Some(9),
        };
        a.add(&RowCount {
            rows: 1,
            row_bytes: 9,
            first_ns: Some(1),
            last_ns: Some(3),
        });
        assert_eq!((a.rows, a.first_ns, a.last_ns), (3, Some(1), Some(9)));
        a.add(&RowCount::default());
        assert_eq!((a.rows, a.first_ns, a.last_ns), (3, Some(1), Some(9)));
    }

    #[test]
    fn footprint_of_a_sparse_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        file.set_len(64 << 20).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&file, &[1u8; 4096], 0).unwrap();
        std::os::unix::fs::FileExt::write_all_at(&file, &[1u8; 8192], 32 << 20).unwrap();
        file.sync_all().unwrap();
        let f = Footprint::of_file(&file).unwrap();
        assert_eq!(f.logical_bytes, 64 << 20);
        assert_eq!(f.data_segments, 2);
        assert_eq!(f.data_bytes, 3 * 4096);
        assert!(f.physical_bytes >= 3 * 4096 && f.physical_bytes < 1 << 20);
        if let Some(extents) = f.extents {
            assert!(extents >= 2);
        }
    }

    #[test]
    fn free_space_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        assert!(free_bytes(dir.path()).unwrap() > 0);
    }
}
