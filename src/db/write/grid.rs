//! The grid writer: a partition's rows are written slot by slot where their times put them
//! (see `write_partition`), or, with a unique key or `--update-columns`, merged into the
//! stored rows of each slot under an undo journal (`write_partition_unique`).

use super::{Entry, ParsedRows, PartWriter, Unique, WriteHooks, Written};
use crate::db::partition::{Partition, SLOT_CHECK_LEN};
use crate::db::schema::Schema;
use crate::db::time::PartitionKey;
use crate::db::{undo, BLOCK_LEN};
use crate::error::Result;

/// Bytes of consecutive slots collected before one `pwrite`.
const RUN_BYTES: usize = 4 << 20;

/// Whether writing zeros over `[from, to)` allocates no block that would otherwise stay a hole:
/// true when no whole block lies inside (the edge blocks are written anyway).
fn no_whole_block(from: u64, to: u64) -> bool {
    let first_whole = from.div_ceil(BLOCK_LEN) * BLOCK_LEN;
    first_whole + BLOCK_LEN > to
}

/// Reads how many rows are present at slots of an existing partition, a window of
/// consecutive slots per `pread`.
struct OldRows {
    window: Vec<u8>,
    first_slot: u64,
    slots: u64,
}

impl OldRows {
    /// Rows present at `slot`; `next` are the entries to be asked next, in order.
    fn present(
        &mut self,
        part: &Partition,
        slot: u64,
        next: &[Entry],
        row_len: usize,
        slab_len: usize,
    ) -> Result<usize> {
        if slot < self.first_slot || slot >= self.first_slot + self.slots {
            // Read ahead over the run of consecutive slots that follows.
            let max_slots = (RUN_BYTES / slab_len).max(1) as u64;
            let mut n = 1u64;
            for e in next {
                if e.slot == slot + n - 1 {
                    continue;
                }
                if e.slot == slot + n && n < max_slots {
                    n += 1;
                } else {
                    break;
                }
            }
            n = n.min(part.slots - slot);
            // Slots as stored (with their checks in version 3): only the present bits are
            // looked at, to count the rows a write replaces.
            self.window.resize(n as usize * part.slot_len as usize, 0);
            part.read_at(&mut self.window, part.slot_offset(slot))?;
            self.first_slot = slot;
            self.slots = n;
        }
        let at = (slot - self.first_slot) as usize * part.slot_len as usize;
        Ok(self.window[at..at + slab_len]
            .chunks_exact(row_len)
            .take_while(|r| Schema::is_present(r))
            .count())
    }
}

/// Writes `entries` (rows of `batch`) into the partition; returns the rows beyond depth.
///
/// Bytes after the last present row of a slot are always zero (every writer keeps it so), and
/// in a file this import created so is every slot it has not touched. Writes cover a slot's
/// new rows plus zeros over any old rows beyond them; neighbouring writes are merged across
/// known-zero bytes as long as that allocates no extra block, so dense data goes out in large
/// `pwrite`s and sparse data keeps its holes.
pub(super) fn write_partition(
    key: PartitionKey,
    part: &Partition,
    state: &mut PartWriter,
    mut entries: Vec<Entry>,
    batch: &[ParsedRows],
    unique: &Unique,
    hooks: WriteHooks,
) -> Result<Written> {
    let (row_len, depth) = (state.shape.row_len, state.shape.depth);
    if !entries.windows(2).all(|w| w[0].slot <= w[1].slot) {
        // Stable: rows at one timestamp keep their input order.
        entries.sort_by_key(|e| e.slot);
    }
    if unique.merges() {
        return write_partition_unique(key, part, state, &entries, batch, unique, hooks);
    }
    let slab_len = row_len * depth;
    let mut out = Written::none(key);
    let mut run: Vec<u8> = Vec::with_capacity(RUN_BYTES.min(entries.len() * slab_len) + slab_len);
    let mut run_from = 0u64; // byte offset of run[0]
    let mut prev_slot: Option<u64> = None; // last slot written into the run
    let mut old = OldRows {
        window: Vec::new(),
        first_slot: 0,
        slots: 0,
    };
    let mut slab = vec![0u8; slab_len];
    // When no slot of this batch's span was touched before, skip the per-slot lookups.
    let (first_slot, last_slot) = match (entries.first(), entries.last()) {
        (Some(a), Some(b)) => (a.slot, b.slot),
        _ => return Ok(out),
    };
    let untouched_span = state.touched.range_cardinality(first_slot..=last_slot) == 0;
    // Slots written by this batch, inserted into `touched` at the end as ranges.
    let mut new_slots: Vec<(u64, u64)> = Vec::new();
    let row_of = |e: &Entry| e.row_in(batch, row_len);
    // The slots of `run` whose checks are still to be filled in: (slot, where its rows start).
    // Computed when the run is written, many at a time (`Partition::fill_checks`).
    let mut unchecked: Vec<(u64, usize)> = Vec::new();
    let flush = |run: &mut Vec<u8>, unchecked: &mut Vec<(u64, usize)>, from: u64| -> Result<()> {
        if !run.is_empty() {
            part.fill_checks(run, unchecked);
            unchecked.clear();
            part.write_at(run, from)?;
            run.clear();
        }
        Ok(())
    };
    let mut i = 0;
    while i < entries.len() {
        let slot = entries[i].slot;
        let mut j = i + 1;
        while j < entries.len() && entries[j].slot == slot {
            j += 1;
        }
        let group = &entries[i..j];
        i = j;
        if !untouched_span && state.touched.contains(slot) {
            // Touched earlier in this import: append after the rows already there.
            flush(&mut run, &mut unchecked, run_from)?;
            prev_slot = None;
            let offset = part.slot_offset(slot);
            part.read_slots(slot, 1, &mut slab)?;
            let present = slab
                .chunks_exact(row_len)
                .take_while(|r| Schema::is_present(r))
                .count();
            let fit = (depth - present).min(group.len());
            let mut buf = Vec::with_capacity(fit * row_len);
            for e in &group[..fit] {
                buf.extend_from_slice(row_of(e));
            }
            if !buf.is_empty() && part.has_checks() {
                // The check covers the whole slot: rewrite it with the rows appended.
                slab[present * row_len..(present + fit) * row_len].copy_from_slice(&buf);
                part.write_slot(slot, &slab)?;
            } else if !buf.is_empty() {
                part.write_at(&buf, offset + (present * row_len) as u64)?;
            }
            out.stored += fit as u64;
            state.replacing.wrote_more(slot, fit as u32);
            out.overflow.extend(
                group[fit..]
                    .iter()
                    .map(|e| (e.chunk, e.row, slot, present as u32)),
            );
            continue;
        }
        // First touch: the slot's rows become exactly this group. The rows there before are
        // counted (replaced and removed rows are reported); a checked slot is then written
        // whole (rows, zeros, check) whatever it held, so a torn one is simply replaced.
        let before = if state.fresh {
            0
        } else {
            old.present(part, slot, &entries[i..], row_len, slab_len)?
        };
        let fit = depth.min(group.len());
        if before > 0 {
            state.replacing.first_touch(slot, before as u32, fit as u32);
        }
        let start = part.slot_offset(slot);
        let run_end = run_from + run.len() as u64;
        let joinable = match prev_slot {
            None => false,
            Some(p) if slot == p + 1 => no_whole_block(run_end, start),
            Some(p) => {
                state.fresh
                    && no_whole_block(run_end, start)
                    && (untouched_span || state.touched.range_cardinality(p + 1..slot) == 0)
            }
        };
        if joinable {
            run.resize((start - run_from) as usize, 0);
        } else {
            flush(&mut run, &mut unchecked, run_from)?;
            run_from = start;
        }
        let slot_at = run.len();
        for e in &group[..fit] {
            run.extend_from_slice(row_of(e));
        }
        if part.has_checks() {
            // The rest of the slot zero, then room for its check (filled in on flush).
            run.resize(slot_at + slab_len, 0);
            run.extend_from_slice(&[0; SLOT_CHECK_LEN as usize]);
            unchecked.push((slot, slot_at));
        } else {
            // Clear old rows beyond the new ones; the rest of the slot is already zero.
            run.resize(run.len() + before.saturating_sub(fit) * row_len, 0);
        }
        match new_slots.last_mut() {
            Some((_, end)) if *end == slot => *end = slot + 1,
            _ => new_slots.push((slot, slot + 1)),
        }
        prev_slot = Some(slot);
        out.stored += fit as u64;
        out.overflow
            .extend(group[fit..].iter().map(|e| (e.chunk, e.row, slot, 0)));
        if run.len() >= RUN_BYTES {
            flush(&mut run, &mut unchecked, run_from)?;
            prev_slot = None;
        }
    }
    flush(&mut run, &mut unchecked, run_from)?;
    for (from, to) in new_slots {
        state.touched.insert_range(from..to);
    }
    Ok(out)
}

/// Old rows the undo journal collects before it is committed and the slots are written.
const JOURNAL_BYTES: usize = 4 << 20;

/// `write_partition` with a unique key or `--update-columns`: each timestamp's stored rows are
/// read and merged with the incoming ones (`db::unique`: by key, in key order; or updated
/// column by column), and the slot is rewritten whole. A write cut by a crash would leave a
/// slot that the re-run cannot read to merge into, so the old rows of the slots about to
/// change go to the partition's undo journal (`db::undo`), committed before the slots are
/// written (up to `JOURNAL_BYTES` at a time).
fn write_partition_unique(
    key: PartitionKey,
    part: &Partition,
    state: &mut PartWriter,
    entries: &[Entry],
    batch: &[ParsedRows],
    unique: &Unique,
    hooks: WriteHooks,
) -> Result<Written> {
    let (row_len, depth) = (state.shape.row_len, state.shape.depth);
    let slab_len = row_len * depth;
    let mut out = Written::none(key);
    let row_of = |e: &Entry| e.row_in(batch, row_len);
    // The new rows of the slots the journal holds, in its order.
    let mut writes: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut writes_bytes = 0usize;
    let mut new_slab = vec![0u8; slab_len];
    let mut patched: Vec<u8> = Vec::new();
    for group in entries.chunk_by(|a, b| a.slot == b.slot) {
        let slot = group[0].slot;
        let stored = !state.fresh || state.touched.contains(slot);
        let mut slab = vec![0u8; slab_len];
        if stored {
            // Verified: a damaged slot is an error, never merged into.
            part.read_slots(slot, 1, &mut slab)?;
        }
        let old: Vec<&[u8]> = slab
            .chunks_exact(row_len)
            .take_while(|r| Schema::is_present(r))
            .collect();
        let before = old.len();
        // The rows the slot gets, and (stored, replaced or updated) what that did.
        let (stored_rows, replaced) = if unique.update {
            patched.clear();
            let p = unique.patch(
                old,
                group.iter().map(|e| (row_of(e), e.given_in(batch))),
                &mut patched,
            )?;
            if p.rows > depth {
                out.overflow
                    .extend(group.iter().map(|e| (e.chunk, e.row, slot, before as u32)));
                continue;
            }
            out.ambiguous.extend(
                p.ambiguous
                    .iter()
                    .map(|&k| (group[k].chunk, group[k].row, slot, before as u32)),
            );
            new_slab.fill(0);
            new_slab[..patched.len()].copy_from_slice(&patched);
            ((group.len() - p.ambiguous.len()) as u64, p.updated)
        } else {
            let mut merged: Vec<&[u8]> = Vec::new();
            let m = if before == 0 && group.len() == 1 {
                // One new row at an empty time (the common case): nothing to merge.
                merged.push(row_of(&group[0]));
                crate::db::unique::Merged::default()
            } else {
                crate::db::unique::merge_rows(
                    unique.schema,
                    &unique.columns,
                    old,
                    group.iter().map(|e| -> &[u8] { row_of(e) }),
                    &mut merged,
                )?
            };
            if merged.len() > depth {
                // The timestamp cannot hold its rows: keep what is stored, refuse the new ones.
                out.overflow
                    .extend(group.iter().map(|e| (e.chunk, e.row, slot, before as u32)));
                continue;
            }
            new_slab.fill(0);
            for (k, row) in merged.iter().enumerate() {
                new_slab[k * row_len..(k + 1) * row_len].copy_from_slice(row);
            }
            // Stored rows whose key came again, and incoming rows a later one of their key
            // replaced.
            let replaced = before + group.len() - merged.len();
            debug_assert!(replaced >= m.replaced as usize);
            (group.len() as u64, replaced as u64)
        };
        // The slot is written whole (rows, zeros over any stored rows beyond them, and its
        // check), and only when it changes, so a re-run changes no byte.
        if new_slab != slab {
            let journal = match &mut state.undo {
                Some(journal) => journal,
                None => state.undo.insert(undo::Journal::create(part)?),
            };
            journal.add(slot, &slab);
            writes_bytes += slab_len;
            writes.push((slot, std::mem::replace(&mut new_slab, vec![0u8; slab_len])));
            if journal.pending_bytes() + writes_bytes >= JOURNAL_BYTES {
                write_journaled(part, journal, &mut writes, hooks)?;
                writes_bytes = 0;
            }
        }
        out.stored += stored_rows;
        out.replaced += replaced;
        state.touched.insert(slot);
    }
    if let Some(journal) = &mut state.undo {
        write_journaled(part, journal, &mut writes, hooks)?;
    }
    Ok(out)
}

/// Commits the journal (the old rows of `writes`' slots), then writes the slots.
fn write_journaled(
    part: &Partition,
    journal: &mut undo::Journal,
    writes: &mut Vec<(u64, Vec<u8>)>,
    hooks: WriteHooks,
) -> Result<()> {
    if writes.is_empty() {
        return Ok(());
    }
    journal.commit(part, hooks.sync)?;
    if hooks.kill_after_journal {
        kill_self();
    }
    for (slot, rows) in writes.drain(..) {
        part.write_slot(slot, &rows)?;
    }
    Ok(())
}

/// Ends the process as `kill -9` would: no destructors, no cleanup (the test hook).
fn kill_self() {
    // SAFETY: getpid and kill take and return plain integers; SIGKILL to ourselves ends the
    // process here.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
}
