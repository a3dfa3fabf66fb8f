//! Import into a partition of the `bucket` layout: a batch's rows, grouped by bucket and
//! merged with what the bucket holds (upsert by timestamp), are appended to the data file in
//! one `pwrite`. Their directory entries wait in memory (later batches read them from there)
//! until `PENDING_BYTES` of records or `PENDING_ENTRIES` entries have accumulated, or the
//! import ends: then the data file is fdatasynced and only then are the entries written, so a
//! crash leaves at most unreferenced records at the end of the data file, with one fsync per
//! flush instead of one per batch. The rows of each partition's last bucket in a batch are
//! held back for the next batch, so a bucket of time-ordered input is written once, with all
//! its rows; a bucket whose merged content equals what is stored is left alone, so re-running
//! an import changes no byte.

use std::collections::BTreeMap;
use std::ops::Range;

use rayon::prelude::*;
use roaring::RoaringTreemap;

use super::spill::{Segment, Spill};
use super::{Entry, ParsedRows, PartWriter, Unique, Written};
use crate::db::bucket::{self, BucketPartition, Rows};
use crate::db::time::PartitionKey;
use crate::error::{Error, Result};

/// Appended record bytes after which pending entries are flushed.
const PENDING_BYTES: u64 = 256 << 20;
/// Pending entries after which they are flushed (about 100 bytes of memory each with their
/// summaries and the map).
const PENDING_ENTRIES: usize = 1 << 18;

/// Directory entries of records this import appended, not yet written to the directory.
#[derive(Default)]
pub(super) struct Pending {
    entries: BTreeMap<u64, bucket::NewEntry>,
    bytes: u64,
}

impl Pending {
    /// Makes the appended records durable (with `sync`), then writes the entries that point
    /// to them, coalescing runs of consecutive buckets into one `pwrite`.
    pub(super) fn flush(&mut self, part: &BucketPartition, sync: bool) -> Result<()> {
        if self.entries.is_empty() {
            return Ok(());
        }
        if sync {
            part.sync_data()?;
        }
        let mut run: Vec<bucket::NewEntry> = Vec::new();
        let mut run_first = 0u64;
        for (b, e) in std::mem::take(&mut self.entries) {
            if !run.is_empty() && b != run_first + run.len() as u64 {
                part.write_entries(run_first, &run)?;
                run.clear();
            }
            if run.is_empty() {
                run_first = b;
            }
            run.push(e);
        }
        if !run.is_empty() {
            part.write_entries(run_first, &run)?;
        }
        self.entries.clear();
        self.bytes = 0;
        Ok(())
    }
}

/// Buckets whose directory entries are fetched with one walk when the batch spans at most this
/// many buckets; sparser batches read the entries one by one.
const DENSE_SPAN_BUCKETS: u64 = 1 << 16;

/// Writes `batch_entries` (rows of `batch`), after the rows the writer's `carry` held back
/// from earlier batches, into the bucket partition `part`, except the rows of the last bucket,
/// which go back into `carry` (unless `last_write`: the input has ended). The writer's
/// `touched` holds the time slots (granularity units from the partition start) this import
/// has written so far: their rows are kept and the batch's rows follow; other slots the batch
/// has are replaced. It is kept and read only without a unique key and without
/// `--update-columns` (a unique key merges by key, `--update-columns` patches the stored
/// rows). With `sync`, the appended data is fdatasynced before the directory points to it.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_partition(
    key: PartitionKey,
    part: &BucketPartition,
    writer: &mut PartWriter,
    batch_entries: &[Entry],
    batch: &[ParsedRows],
    last_write: bool,
    sync: bool,
    unique: &Unique,
) -> Result<Written> {
    let PartWriter {
        touched,
        pending,
        replacing,
        carry,
        ..
    } = writer;
    if carry.spilled.is_some() {
        return Err(Error::Invalid(
            "internal: held-back rows not restored before a write".into(),
        ));
    }
    let row_len = part.row_len;
    let upb = part.units_per_bucket;
    let mut out = Written {
        stored: batch_entries.len() as u64,
        ..Written::none(key)
    };
    // The rows held back from earlier batches come first: they came first in the input.
    let mut entries: Vec<(u64, &[u8])> = Vec::with_capacity(carry.len() + batch_entries.len());
    entries.extend(
        carry
            .slots
            .iter()
            .zip(carry.rows.chunks_exact(row_len))
            .map(|(&s, r)| (s, r)),
    );
    // `--update-columns` needs each row's input (the columns it gives, and its line for a
    // reject): its rows are kept in batch order beside `entries`, and none is held back.
    let mut origins: Vec<&Entry> = Vec::new();
    if unique.update {
        if !carry.is_empty() {
            return Err(crate::error::Error::Invalid(
                "internal: rows held back in an --update-columns import".into(),
            ));
        }
        origins.extend(batch_entries);
        origins.sort_by_key(|e| e.slot);
        entries.extend(origins.iter().map(|e| (e.slot, e.row_in(batch, row_len))));
    } else {
        entries.extend(batch_entries.iter().map(|e| (e.slot, e.row_in(batch, row_len))));
    }
    if !entries.windows(2).all(|w| w[0].0 <= w[1].0) {
        // Stable: rows at one timestamp keep their input order.
        entries.sort_by_key(|e| e.0);
    }
    // The last bucket is held back for the next batch, which may hold more of its rows (time
    // ordered input continues there): written once with all of them, a bucket is written once
    // per import, so a re-run, or a re-run after a kill, finds every bucket as it leaves it.
    let mut held = Carry::default();
    if !last_write && !unique.update {
        if let Some(&(slot, _)) = entries.last() {
            let held_from = entries.partition_point(|e| e.0 / upb < slot / upb);
            for &(s, r) in &entries[held_from..] {
                held.slots.push(s);
                held.rows.extend_from_slice(r);
            }
            entries.truncate(held_from);
        }
    }
    let origins = Origins {
        entries: &origins,
        batch,
    };
    let result = write_rows(
        part, touched, pending, replacing, &entries, &origins, sync, unique, &mut out,
    );
    drop(entries);
    *carry = held;
    result.map(|()| out)
}

/// Holds all of `batch_entries` (rows of `batch`) back in `carry`, without touching the
/// partition, when they and the rows already held all fall in one bucket: `write_partition`
/// would write nothing and hold them all back. Returns what the batch stored, or `None` (the
/// rows span buckets: write them). Time-ordered input of many series meets this batch after
/// batch: each series' bucket fills a little per batch, and its partition need not be opened.
pub(super) fn hold_back(
    key: PartitionKey,
    carry: &mut Carry,
    batch_entries: &[Entry],
    batch: &[ParsedRows],
    units_per_bucket: u64,
    row_len: usize,
) -> Option<Written> {
    let upb = units_per_bucket.max(1);
    let bucket = carry
        .first_slot()
        .or(batch_entries.first().map(|e| e.slot))
        .map(|s| s / upb)?;
    // A carry's rows are in one bucket by construction: only the batch's need checking.
    if !batch_entries.iter().all(|e| e.slot / upb == bucket) {
        return None;
    }
    // In input order after the rows held before: `write_partition` sorts stably by slot.
    // Exact reservations: tens of thousands of series hold rows at once, and doubling would
    // leave half of their memory unused.
    carry.slots.reserve_exact(batch_entries.len());
    carry.slots.extend(batch_entries.iter().map(|e| e.slot));
    carry.rows.reserve_exact(batch_entries.len() * row_len);
    for e in batch_entries {
        carry.rows.extend_from_slice(e.row_in(batch, row_len));
    }
    Some(Written {
        stored: batch_entries.len() as u64,
        ..Written::none(key)
    })
}

/// With `--update-columns`, the batch entry of each row being written (in the same order).
struct Origins<'a> {
    entries: &'a [&'a Entry],
    batch: &'a [ParsedRows<'a>],
}

/// Rows of a partition held back from one batch for the next (in input order), all in one
/// bucket.
#[derive(Default)]
pub(super) struct Carry {
    /// Each row's time slot (granularity units from the partition start).
    slots: Vec<u64>,
    /// The rows, `row_len` bytes each.
    rows: Vec<u8>,
    /// Earlier rows, moved to the import's scratch file: they come before `slots` and `rows`.
    spilled: Option<Spilled>,
}

/// The rows a carry moved to the scratch file, in segments chained from the newest.
#[derive(Debug)]
struct Spilled {
    newest: Segment,
    rows: usize,
    first_slot: u64,
}

impl Carry {
    pub(super) fn len(&self) -> usize {
        self.slots.len() + self.spilled.as_ref().map_or(0, |s| s.rows)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.slots.is_empty() && self.spilled.is_none()
    }

    /// The slot of its first row.
    fn first_slot(&self) -> Option<u64> {
        self.spilled
            .as_ref()
            .map(|s| s.first_slot)
            .or(self.slots.first().copied())
    }

    /// Bytes it holds in memory.
    pub(super) fn memory(&self) -> u64 {
        (self.slots.capacity() * 8 + self.rows.capacity()) as u64
    }

    /// Moves the rows held in memory to `spill`.
    pub(super) fn spill_to(&mut self, spill: &Spill) -> Result<()> {
        if let Some(&first_slot) = self.slots.first() {
            let before = self.spilled.as_ref().map(|s| &s.newest);
            let newest = spill.put(&self.slots, &self.rows, before)?;
            match &mut self.spilled {
                Some(spilled) => {
                    spilled.newest = newest;
                    spilled.rows += self.slots.len();
                }
                None => {
                    self.spilled = Some(Spilled {
                        newest,
                        rows: self.slots.len(),
                        first_slot,
                    })
                }
            }
        }
        self.slots = Vec::new();
        self.rows = Vec::new();
        Ok(())
    }

    /// Brings spilled rows back into memory, before the ones held there (`write_partition`
    /// takes them from there).
    pub(super) fn restore(&mut self, spill: Option<&Spill>, row_len: usize) -> Result<()> {
        let Some(spilled) = &self.spilled else {
            return Ok(());
        };
        let spill = spill.ok_or_else(|| Error::Invalid("internal: held-back rows spilled nowhere".into()))?;
        let n = self.len();
        let (mut slots, mut rows) = (Vec::with_capacity(n), Vec::with_capacity(n * row_len));
        spill.take(&spilled.newest, spilled.rows, row_len, &mut slots, &mut rows)?;
        slots.extend_from_slice(&self.slots);
        rows.extend_from_slice(&self.rows);
        (self.slots, self.rows) = (slots, rows);
        self.spilled = None;
        Ok(())
    }
}

/// Writes `entries` (slot and row, in slot order, rows of one slot in input order).
#[allow(clippy::too_many_arguments)]
fn write_rows(
    part: &BucketPartition,
    touched: &mut RoaringTreemap,
    pending: &mut Pending,
    replacing: &mut super::Replacing,
    entries: &[(u64, &[u8])],
    origins: &Origins,
    sync: bool,
    unique: &Unique,
    out: &mut Written,
) -> Result<()> {
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
        return Ok(());
    };
    let row_len = part.row_len;
    let upb = part.units_per_bucket;
    let (first_bucket, last_bucket) = (first.0 / upb, last.0 / upb);
    // Only a keyless upsert asks which slots this import wrote before (a unique key merges
    // by key, `--update-columns` patches the stored rows): the others neither read nor keep
    // the bitmap.
    let by_time = !unique.update && unique.columns.is_empty();
    let untouched_span = by_time && touched.range_cardinality(first.0..=last.0) == 0;

    // The buckets of the batch, with the rows of each as a range of `entries`.
    let mut groups: Vec<(u64, usize, usize)> = Vec::new();
    let mut i = 0;
    while i < entries.len() {
        let b = entries[i].0 / upb;
        let mut j = i + 1;
        while j < entries.len() && entries[j].0 / upb == b {
            j += 1;
        }
        groups.push((b, i, j));
        i = j;
    }

    // Their current entries.
    let mut olds: Vec<(u64, bucket::Entry)> = Vec::new();
    if last_bucket - first_bucket < DENSE_SPAN_BUCKETS {
        part.for_each_entry(first_bucket, last_bucket + 1, |b, e| {
            olds.push((b, e));
            Ok(true)
        })?;
        // Keep only the batch's buckets.
        let mut g = groups.iter().map(|g| g.0).peekable();
        olds.retain(|(b, _)| {
            while g.peek().is_some_and(|&x| x < *b) {
                g.next();
            }
            g.peek() == Some(b)
        });
    } else {
        for &(b, _, _) in &groups {
            let e = part.entry(b)?;
            if !e.is_empty() {
                olds.push((b, e));
            }
        }
    }
    // Entries this import appended but has not written yet are the current ones.
    if !pending.entries.is_empty() {
        let mut merged = Vec::with_capacity(olds.len());
        let mut o = 0;
        for &(b, _, _) in &groups {
            while o < olds.len() && olds[o].0 < b {
                o += 1;
            }
            if let Some(e) = pending.entries.get(&b) {
                merged.push((b, e.entry));
            } else if o < olds.len() && olds[o].0 == b {
                merged.push(olds[o]);
            }
        }
        olds = merged;
    }
    // Their current rows, read with as few preads as their placement allows.
    let mut old_rows: Vec<Rows> = Vec::with_capacity(olds.len());
    part.read_buckets(&olds, |_, rows| {
        old_rows.push(rows.clone());
        Ok(true)
    })?;

    let mut records: Vec<u8> = Vec::new();
    // Entries rewritten in place, their record kept; a record re-encoded to compute one.
    let mut repointed: Vec<(u64, bucket::NewEntry)> = Vec::new();
    let mut scratch: Vec<u8> = Vec::new();
    // (bucket, entry with its offset relative to `records`)
    let mut placed: Vec<(u64, bucket::NewEntry)> = Vec::with_capacity(groups.len());
    // A columnar partition's buckets to write, encoded after the loop.
    let mut deferred: Vec<(u64, Rows)> = Vec::new();
    let mut new = Rows::default();
    let mut merged = Rows::default();
    let empty = Rows::default();
    let mut o = 0;
    for &(b, from, to) in &groups {
        new.clear();
        new.units.reserve(to - from);
        new.rows.reserve((to - from) * row_len);
        for &(slot, row) in &entries[from..to] {
            new.push(slot % upb, row);
        }
        while o < olds.len() && olds[o].0 < b {
            o += 1;
        }
        let (old_entry, old) = if o < olds.len() && olds[o].0 == b {
            (olds[o].1, &old_rows[o])
        } else {
            (bucket::Entry::default(), &empty)
        };
        let base = b * upb;
        let rows = if unique.update {
            let mine = &origins.entries[from..to];
            let given = mine.iter().map(|e| e.given_in(origins.batch));
            let (updated, ambiguous) = merge_update(old, &new, given, row_len, unique, &mut merged)?;
            out.replaced += updated;
            out.stored -= ambiguous.len() as u64;
            out.ambiguous.extend(ambiguous.into_iter().map(|(k, stored)| {
                let e = mine[k];
                (e.chunk, e.row, e.slot, stored)
            }));
            &merged
        } else if !unique.columns.is_empty() {
            out.replaced += merge_unique(old, &new, row_len, unique, &mut merged)?;
            &merged
        } else if old.is_empty() {
            &new
        } else {
            let append = |u| !untouched_span && touched.contains(base + u);
            count_replaced(old, &new, base, append, replacing);
            bucket::merge(old, &new, row_len, append, &mut merged);
            &merged
        };
        if !old_entry.is_empty() && rows == old {
            if part.needs_rewrite(b) && !pending.entries.contains_key(&b) {
                // A torn entry whose record passed: the same record gets its entry written
                // whole again, the bytes a clean run wrote, so a re-run stays byte-identical.
                scratch.clear();
                part.encode_record(b, &rows.units, &rows.rows, &mut scratch);
                repointed.push((b, part.entry_for(scratch.len(), &rows.rows, old_entry.offset)?));
            }
            continue;
        }
        if part.is_columnar() {
            // Moved, not copied: the next bucket builds its rows afresh.
            let built = if std::ptr::eq(rows, &new) {
                &mut new
            } else {
                &mut merged
            };
            let rows = std::mem::take(built);
            deferred.push((b, rows));
            continue;
        }
        let at = records.len();
        part.encode_record(b, &rows.units, &rows.rows, &mut records);
        let entry = part.entry_for(records.len() - at, &rows.rows, at as u64)?;
        placed.push((b, entry));
    }
    // Columnar records cost far more to encode than raw ones: the batch's are encoded in
    // parallel, then appended in bucket order as a serial encode would.
    let encoded: Vec<Result<(Vec<u8>, bucket::NewEntry)>> = deferred
        .par_iter()
        .map(|(b, rows)| {
            let mut record = Vec::new();
            part.encode_record(*b, &rows.units, &rows.rows, &mut record);
            let entry = part.entry_for(record.len(), &rows.rows, 0)?;
            Ok((record, entry))
        })
        .collect();
    for ((b, _), done) in deferred.iter().zip(encoded) {
        let (record, mut entry) = done?;
        entry.entry.offset = records.len() as u64;
        records.extend_from_slice(&record);
        placed.push((*b, entry));
    }

    pending.entries.extend(repointed);
    if !records.is_empty() {
        let base = part.append(&records)?;
        for (b, mut e) in placed {
            e.entry.offset += base;
            pending.entries.insert(b, e);
        }
        pending.bytes += records.len() as u64;
    }
    if pending.bytes >= PENDING_BYTES || pending.entries.len() >= PENDING_ENTRIES {
        pending.flush(part, sync)?;
    }

    if by_time {
        remember_written(touched, entries)?;
    }
    Ok(())
}

/// Adds the slots of `entries` (sorted by slot) to `touched`, as runs of consecutive slots.
/// Sparse ticks make most rows a run of one, and a range insert searches the whole bitmap
/// each time (a fifth of the trades import's CPU): such batches build a bitmap of their own,
/// slot after slot in order, and merge it in once.
fn remember_written(touched: &mut RoaringTreemap, entries: &[(u64, &[u8])]) -> Result<()> {
    let mut runs: Vec<Range<u64>> = Vec::new();
    for &(slot, _) in entries {
        match runs.last_mut() {
            Some(run) if slot <= run.end => run.end = run.end.max(slot + 1),
            _ => runs.push(slot..slot + 1),
        }
    }
    if runs.len() * 4 <= entries.len() {
        for run in runs {
            touched.insert_range(run);
        }
        return Ok(());
    }
    let written = RoaringTreemap::from_sorted_iter(runs.into_iter().flatten())
        .map_err(|_| Error::Invalid("internal: the slots written are not in order".into()))?;
    *touched |= written;
    Ok(())
}

/// Records in `replacing` the stored rows of `old` that the upsert of `new` replaces (the times
/// of `new` not appended to, with the rows there before), and counts the rows written at times
/// already being replaced. `base` is the bucket's first granularity unit.
fn count_replaced(
    old: &Rows,
    new: &Rows,
    base: u64,
    append: impl Fn(u64) -> bool,
    replacing: &mut super::Replacing,
) {
    let (mut i, mut j) = (0, 0);
    while j < new.len() {
        let u = new.units[j];
        let mut n = 0u32;
        while j < new.len() && new.units[j] == u {
            n += 1;
            j += 1;
        }
        while i < old.len() && old.units[i] < u {
            i += 1;
        }
        let mut o = 0u32;
        while i < old.len() && old.units[i] == u {
            o += 1;
            i += 1;
        }
        if !append(u) {
            if o > 0 {
                replacing.first_touch(base + u, o, n);
            }
        } else {
            replacing.wrote_more(base + u, n);
        }
    }
}

/// Walks the times of a bucket's stored rows (`old`) and incoming rows (`new`) in order: `f`
/// gets each time with the range of its rows in each.
fn by_time(
    old: &Rows,
    new: &Rows,
    mut f: impl FnMut(u64, Range<usize>, Range<usize>) -> Result<()>,
) -> Result<()> {
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        let u = match (old.units.get(i), new.units.get(j)) {
            (Some(&o), Some(&n)) => o.min(n),
            (Some(&o), None) => o,
            (None, Some(&n)) => n,
            (None, None) => break,
        };
        let (oi, nj) = (i, j);
        while i < old.len() && old.units[i] == u {
            i += 1;
        }
        while j < new.len() && new.units[j] == u {
            j += 1;
        }
        f(u, oi..i, nj..j)?;
    }
    Ok(())
}

/// `--update-columns`: applies a bucket's incoming rows (`new`, with the columns each gives) to
/// its stored ones time by time (`db::unique::patch_rows`); returns the rows updated and the
/// incoming rows refused as ambiguous (index into `new`, rows stored at their time).
fn merge_update<'a>(
    old: &Rows,
    new: &Rows,
    given: impl Iterator<Item = &'a [usize]>,
    row_len: usize,
    unique: &Unique,
    out: &mut Rows,
) -> Result<(u64, Vec<(usize, u32)>)> {
    out.clear();
    let given: Vec<&[usize]> = given.collect();
    let mut updated = 0;
    let mut ambiguous = Vec::new();
    let mut rows: Vec<u8> = Vec::new();
    by_time(old, new, |u, olds, news| {
        rows.clear();
        let stored = olds.len() as u32;
        let p = unique.patch(
            olds.map(|k| row(old, k, row_len)),
            news.clone().map(|k| (row(new, k, row_len), given[k])),
            &mut rows,
        )?;
        updated += p.updated;
        ambiguous.extend(p.ambiguous.iter().map(|&k| (news.start + k, stored)));
        for r in rows.chunks_exact(row_len) {
            out.push(u, r);
        }
        Ok(())
    })?;
    Ok((updated, ambiguous))
}

/// Row `k` of `rows`.
fn row(rows: &Rows, k: usize, row_len: usize) -> &[u8] {
    &rows.rows[k * row_len..(k + 1) * row_len]
}

/// Merges a bucket's stored rows with incoming ones by unique key, time by time
/// (`db::unique::merge_rows`); returns the rows replaced.
fn merge_unique(old: &Rows, new: &Rows, row_len: usize, unique: &Unique, out: &mut Rows) -> Result<u64> {
    out.clear();
    let mut replaced = 0;
    let mut merged: Vec<&[u8]> = Vec::new();
    by_time(old, new, |u, olds, news| {
        if news.is_empty() {
            for k in olds {
                out.push(u, row(old, k, row_len));
            }
            return Ok(());
        }
        if olds.is_empty() && news.len() == 1 {
            // One new row at a time nothing holds (the common case): nothing to merge.
            out.push(u, row(new, news.start, row_len));
            return Ok(());
        }
        let count = olds.len() + news.len();
        crate::db::unique::merge_rows(
            unique.schema,
            &unique.columns,
            olds.map(|k| row(old, k, row_len)),
            news.map(|k| row(new, k, row_len)),
            &mut merged,
        )?;
        replaced += (count - merged.len()) as u64;
        for r in &merged {
            out.push(u, r);
        }
        Ok(())
    })?;
    Ok(replaced)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ways of remembering (range inserts for dense batches, a merged bitmap for sparse
    /// ones) give the set of the slots, duplicates and neighbours included, onto what was
    /// there before.
    #[test]
    fn written_slots_are_remembered_dense_or_sparse() {
        let batches: [&[u64]; 5] = [
            &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
            // Dense, with a gap: two runs of eight.
            &[40, 41, 42, 43, 44, 45, 46, 47, 60, 61, 62, 63, 64, 65, 66, 67],
            &[3, 3, 4, 100, 102, 104, 104, 70_000, 1 << 33, (1 << 33) + 1],
            &[5, 7, 9, 11, 13, 99, 100, 101, 4_294_967_296, 4_294_967_298],
            &[1 << 40],
        ];
        let row = [0u8; 1];
        let mut touched = RoaringTreemap::new();
        touched.insert(1 << 20);
        let mut want: std::collections::BTreeSet<u64> = [1 << 20].into();
        for slots in batches {
            let entries: Vec<(u64, &[u8])> = slots.iter().map(|&s| (s, &row[..])).collect();
            remember_written(&mut touched, &entries).unwrap();
            want.extend(slots);
            assert!(touched.iter().eq(want.iter().copied()), "after {slots:?}");
        }
    }
}
