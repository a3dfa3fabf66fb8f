//! Writing an import's rows into a partition, whatever its layout.
//!
//! The import parses its input into encoded rows and places each in a partition and a slot
//! (`Entry`); a `PartWriter` per partition writes them there. It holds what an import keeps
//! per partition between batches: the open file, the slots written so far (the first touch of
//! a timestamp replaces its rows, later touches append), the rows stored before that this
//! import replaces, and each layout's own state (a grid partition's undo journal, a bucket
//! partition's pending directory entries and the rows of its last bucket held back for the
//! next batch). The grid writer is in `grid.rs`, the bucket writer in `bucket.rs`; nothing
//! outside this module needs to know which one a partition has.

mod bucket;
mod grid;
mod spill;

use std::collections::HashMap;
use std::sync::Arc;

use roaring::RoaringTreemap;

use super::bucket::BucketPartition;
use super::config::{Config, Layout};
use super::partition::Partition;
use super::schema::Schema;
use super::syms::FnvBuild;
use super::time::PartitionKey;
use super::{files, undo, Database};
use crate::error::{Error, Result};
pub(crate) use spill::Spill;
pub use spill::HOLD_BYTES;

/// Where the import placed one parsed row: its time slot (granularity units from the
/// partition start) and the row's place in the batch (`chunk`, then `row` within it).
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub slot: u64,
    pub chunk: u32,
    pub row: u32,
}

/// A chunk of the batch being written: its encoded rows (`row_len` bytes each) and the
/// database columns its input gives (the rest are null; `--update-columns` keeps them).
#[derive(Clone, Copy, Debug)]
pub struct ParsedRows<'a> {
    pub rows: &'a [u8],
    pub given: &'a [usize],
}

impl Entry {
    /// The encoded row this entry places, in its chunk of `batch`.
    fn row_in<'a>(&self, batch: &[ParsedRows<'a>], row_len: usize) -> &'a [u8] {
        let at = self.row as usize * row_len;
        &batch[self.chunk as usize].rows[at..at + row_len]
    }

    /// The database columns the input of this entry's row gives.
    fn given_in<'a>(&self, batch: &[ParsedRows<'a>]) -> &'a [usize] {
        batch[self.chunk as usize].given
    }
}

/// How an import's rows meet the stored rows of their time: merged by the unique key (no
/// columns: none), and with `update` (`--update-columns`) applied column by column.
pub struct Unique<'a> {
    schema: &'a Schema,
    columns: Vec<usize>,
    update: bool,
}

impl<'a> Unique<'a> {
    /// The unique key of `config` (its columns; none without one), with or without
    /// `--update-columns`.
    pub fn of(config: &'a Config, update: bool) -> Unique<'a> {
        Unique {
            schema: &config.schema,
            columns: config.unique_columns(),
            update,
        }
    }

    /// Whether stored rows are read and merged with the incoming ones, rather than replaced.
    fn merges(&self) -> bool {
        self.update || !self.columns.is_empty()
    }

    /// `db::unique::patch_rows` with this key.
    fn patch<'r>(
        &self,
        old: impl IntoIterator<Item = &'r [u8]>,
        new: impl IntoIterator<Item = (&'r [u8], &'r [usize])>,
        out: &mut Vec<u8>,
    ) -> Result<super::unique::Patched> {
        super::unique::patch_rows(self.schema, &self.columns, old, new, out)
    }
}

/// What a batch's writes need besides their rows.
#[derive(Clone, Copy, Debug)]
pub struct WriteHooks {
    /// Make each step durable (`--no-sync` clears it).
    pub sync: bool,
    /// Test hook (`XS_IMPORT_KILL_AT=journaled`): SIGKILL the process once an undo journal is
    /// committed, before its slots are written.
    pub kill_after_journal: bool,
    /// An earlier import's marker was there when this one began: this one completes it.
    pub resuming: bool,
}

/// Result of writing one partition's share of a batch.
#[derive(Debug)]
pub struct Written {
    pub key: PartitionKey,
    pub stored: u64,
    /// With a unique key: stored (or earlier imported) rows replaced by a row with their key.
    pub replaced: u64,
    /// (chunk, row, slot, rows already there) of rows beyond the depth.
    pub overflow: Vec<(u32, u32, u64, u32)>,
    /// (chunk, row, slot, rows stored there) of `--update-columns` rows refused because the
    /// time holds several rows and no unique key tells which to update.
    pub ambiguous: Vec<(u32, u32, u64, u32)>,
}

impl Written {
    /// Nothing written yet to partition `key`.
    fn none(key: PartitionKey) -> Written {
        Written {
            key,
            stored: 0,
            replaced: 0,
            overflow: Vec::new(),
            ambiguous: Vec::new(),
        }
    }
}

/// The stored rows an import replaces and removes, counted per slot: at its first touch, a
/// slot's rows before and the rows written there. A slot given back at least as many rows as
/// it held is settled (those rows were replaced, and later rows only add); only the slots
/// still short are kept, so a re-import of millions of rows holds no map of millions of slots.
#[derive(Default)]
struct Replacing {
    /// Rows replaced at settled slots.
    settled: u64,
    /// Slots still short: (rows stored before the import's first touch, rows written since).
    short: HashMap<u64, (u32, u32), FnvBuild>,
}

impl Replacing {
    /// The import's first write to `slot`, which held `before` rows, wrote `written`.
    fn first_touch(&mut self, slot: u64, before: u32, written: u32) {
        if written >= before {
            self.settled += u64::from(before);
        } else {
            self.short.insert(slot, (before, written));
        }
    }

    /// A later write of the import added `more` rows at `slot`.
    fn wrote_more(&mut self, slot: u64, more: u32) {
        if let Some(r) = self.short.get_mut(&slot) {
            r.1 += more;
            if r.1 >= r.0 {
                self.settled += u64::from(r.0);
                self.short.remove(&slot);
            }
        }
    }

    /// (rows replaced, rows removed): a slot's rows before that were given back, and those
    /// that were not.
    fn totals(&self) -> (u64, u64) {
        self.short
            .values()
            .fold((self.settled, 0), |(replaced, removed), &(before, written)| {
                (
                    replaced + u64::from(written),
                    removed + u64::from(before - written),
                )
            })
    }
}

/// The partition a writer has open, by layout.
enum Store {
    Grid(Arc<Partition>),
    Bucket(Arc<BucketPartition>),
}

/// How the partitions of a database are written: the parts of its `Config` the writers use.
#[derive(Clone, Copy, Debug)]
struct WriteShape {
    layout: Layout,
    row_len: usize,
    depth: usize,
    units_per_bucket: u64,
}

/// Partitions of a database of `config` an import keeps open at most: what the process may
/// open, less a reserve for the inputs, the rejects file and directories, over the files a
/// partition keeps open while written (a bucket partition has a directory and a data file).
pub fn open_partitions_budget(config: &Config) -> usize {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let limit = *LIMIT.get_or_init(files::raise_open_file_limit);
    let per_partition = match config.layout {
        Layout::Grid => 1,
        Layout::Bucket => 2,
    };
    (limit.saturating_sub(256) / per_partition).max(16) as usize
}

/// One partition's writer for the length of an import (see the module's comment).
pub struct PartWriter {
    shape: WriteShape,
    /// The open partition; `None` until opened, and again once closed to stay within the
    /// open-file limit (opened again when the partition is next written).
    store: Option<Store>,
    /// Slots this import has written: first touch replaces, later touches append.
    touched: RoaringTreemap,
    /// The file was created by this import, so every untouched slot is zeros (a hole).
    fresh: bool,
    /// Bucket layout: directory entries of records appended but not yet pointed to.
    pending: bucket::Pending,
    /// Bucket layout: the rows of the last bucket written to, held back for the next batch.
    carry: bucket::Carry,
    /// Grid layout with a unique key: the undo journal of the slots being overwritten.
    undo: Option<undo::Journal>,
    /// Slots (granularity units) whose stored rows this import replaces: the rows there
    /// before its first touch, and the rows it has written there since. Summed at the end
    /// into the rows replaced and removed, whatever batches a timestamp's rows came in.
    replacing: Replacing,
}

impl PartWriter {
    /// A writer for a partition of a database of `config`; `fresh` when its file does not
    /// exist yet (this import creates it, so every slot it does not write is a hole).
    pub fn new(config: &Config, fresh: bool) -> PartWriter {
        PartWriter {
            shape: WriteShape {
                layout: config.layout,
                row_len: config.schema.row_len(),
                depth: config.depth as usize,
                units_per_bucket: config.units_per_bucket(),
            },
            store: None,
            touched: RoaringTreemap::new(),
            fresh,
            pending: bucket::Pending::default(),
            carry: bucket::Carry::default(),
            undo: None,
            replacing: Replacing::default(),
        }
    }

    /// Whether the partition is open (`open`), not closed to stay within the open-file budget.
    pub fn is_open(&self) -> bool {
        self.store.is_some()
    }

    /// Opens (creating it if needed) the partition `key` of `target` for writing, unless
    /// open. `resuming`: this import completes an unfinished one.
    pub fn open(&mut self, target: &Database, key: PartitionKey, resuming: bool) -> Result<()> {
        if self.store.is_some() {
            return Ok(());
        }
        let missing = || Error::Invalid(format!("partition {key} could not be created"));
        self.store = Some(match self.shape.layout {
            Layout::Grid => Store::Grid(target.partition(key, true)?.ok_or_else(missing)?),
            Layout::Bucket => {
                let part = target.bucket_partition(key, true)?.ok_or_else(missing)?;
                // Completing an unfinished import: first clear the all-zero directory blocks
                // a power loss may have left in the middle of it.
                if resuming {
                    part.punch_zeroed_dir_blocks()?;
                }
                Store::Bucket(part)
            }
        });
        Ok(())
    }

    /// Takes all of `entries` (rows of `batch`) without touching the partition when a bucket
    /// partition would write none of them now: they and the rows already held back all fall
    /// in one bucket, which waits for the next batch. Returns what the batch stored, or
    /// `None` (write them with `write`). Time-ordered input of many series meets this batch
    /// after batch, and its partitions need not be opened.
    pub fn hold_back(
        &mut self,
        key: PartitionKey,
        entries: &[Entry],
        batch: &[ParsedRows],
        unique: &Unique,
    ) -> Option<Written> {
        if self.shape.layout != Layout::Bucket || unique.update {
            return None;
        }
        let WriteShape {
            units_per_bucket,
            row_len,
            ..
        } = self.shape;
        bucket::hold_back(key, &mut self.carry, entries, batch, units_per_bucket, row_len)
    }

    /// Brings the rows held back and moved to `spill` (`spill_held`) into memory again: the
    /// writes take them from there. Called before a write, and before the partition is
    /// opened for it.
    pub fn restore_held(&mut self, spill: Option<&Spill>) -> Result<()> {
        self.carry.restore(spill, self.shape.row_len)
    }

    /// Writes `entries` (rows of `batch`, in any order) into the open partition `key`: rows
    /// held back before come first (`restore_held` them first); rows a bucket partition
    /// holds back now wait for the next write.
    pub fn write(
        &mut self,
        key: PartitionKey,
        entries: Vec<Entry>,
        batch: &[ParsedRows],
        unique: &Unique,
        hooks: WriteHooks,
    ) -> Result<Written> {
        match self.store.as_ref() {
            Some(Store::Grid(part)) => {
                let part = Arc::clone(part);
                grid::write_partition(key, &part, self, entries, batch, unique, hooks)
            }
            Some(Store::Bucket(part)) => {
                let part = Arc::clone(part);
                bucket::write_partition(key, &part, self, &entries, batch, false, hooks.sync, unique)
            }
            None => Err(Error::Invalid(format!("partition {key} is not open"))),
        }
    }

    /// Whether rows are held back for a next batch (the input has ended: `write_held`).
    pub fn holds_rows(&self) -> bool {
        !self.carry.is_empty()
    }

    /// Writes the rows held back for a next batch (`restore_held` first) into the open
    /// partition `key`, once the input has ended. Returns the rows replaced (with a unique
    /// key).
    pub fn write_held(&mut self, key: PartitionKey, unique: &Unique, sync: bool) -> Result<u64> {
        if self.carry.is_empty() {
            return Ok(0);
        }
        let Some(Store::Bucket(part)) = self.store.as_ref() else {
            return Err(Error::Invalid(format!(
                "partition {key} is not a bucket partition"
            )));
        };
        let part = Arc::clone(part);
        let written = bucket::write_partition(key, &part, self, &[], &[], true, sync, unique)?;
        Ok(written.replaced)
    }

    /// Bytes of held-back rows in memory.
    pub fn held_memory(&self) -> u64 {
        self.carry.memory()
    }

    /// Moves the rows held back in memory to `spill`.
    pub fn spill_held(&mut self, spill: &Spill) -> Result<()> {
        self.carry.spill_to(spill)
    }

    /// Makes the records appended so far durable (with `sync`) and points the directory at
    /// them: a bucket partition's pending entries. Nothing to do for a grid partition.
    pub fn flush(&mut self, sync: bool) -> Result<()> {
        match &self.store {
            Some(Store::Bucket(part)) => self.pending.flush(part, sync),
            _ => Ok(()),
        }
    }

    /// Removes the undo journal, once the slots it covers are written (made durable first,
    /// with `sync`).
    pub fn remove_journal(&mut self, sync: bool) -> Result<()> {
        if let Some(journal) = self.undo.take() {
            if let (true, Some(Store::Grid(part))) = (sync, &self.store) {
                part.sync()?;
            }
            journal.remove()?;
        }
        Ok(())
    }

    /// Closes the partition, keeping what the import knows of it: pending directory entries
    /// are written first, an undo journal is removed once its slots are durable. The caller
    /// drops the database's cached handle too (`Database::forget_partition`), so the file is
    /// closed now. Returns whether it was open.
    pub fn close(&mut self, sync: bool) -> Result<bool> {
        let Some(store) = self.store.take() else {
            return Ok(false);
        };
        match &store {
            Store::Bucket(part) => self.pending.flush(part, sync)?,
            Store::Grid(part) => {
                if let Some(journal) = self.undo.take() {
                    // The journal's slots are written; durable first, so a later journal may
                    // replace it.
                    if sync {
                        part.sync()?;
                    }
                    journal.remove()?;
                }
            }
        }
        Ok(true)
    }

    /// (rows replaced, rows removed) of what was stored before the import: a timestamp's
    /// stored rows given back by as many rows were replaced, those not given back removed.
    pub fn replaced_and_removed(&self) -> (u64, u64) {
        self.replacing.totals()
    }
}
