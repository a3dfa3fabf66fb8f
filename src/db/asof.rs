//! As-of lookups: the latest stored timestamp at or before a time, found by walking back over
//! the data segments of the partition files (`SEEK_DATA` probes), never slot by slot through
//! holes. A gap of days costs a few dozen `lseek`s, whatever its length.

use super::partition::{Partition, HEADER_LEN};
use super::schema::Schema;
use super::time::{PartitionKey, END_TIME_NS, MIN_TIME_NS};
use super::Database;
use crate::error::Result;

/// Bytes read backwards per `pread` when looking for the last present slot in data.
const BACK_READ_BYTES: u64 = 64 * 1024;
/// Bytes read first, just before the time: most lookups end there.
const NEAR_READ_BYTES: u64 = 8 * 1024;

/// The latest timestamp `t` with `not_before_ns <= t <= at_ns` that holds at least one row;
/// `None` when there is none. Partitions that do not exist are skipped without I/O.
pub fn latest_at_or_before(db: &Database, at_ns: i64, not_before_ns: i64) -> Result<Option<i64>> {
    AsOf::new(db)?.latest(at_ns, not_before_ns)
}

/// Many as-of lookups on one database: the partition list is read once.
pub struct AsOf<'a> {
    db: &'a Database,
    keys: Vec<PartitionKey>,
}

impl<'a> AsOf<'a> {
    pub fn new(db: &'a Database) -> Result<AsOf<'a>> {
        Ok(AsOf {
            db,
            keys: db.partition_keys()?,
        })
    }

    /// See `latest_at_or_before`.
    pub fn latest(&self, at_ns: i64, not_before_ns: i64) -> Result<Option<i64>> {
        Ok(latest_in(self.db, &self.keys, at_ns, not_before_ns, None)?.map(|(t, _)| t))
    }

    /// `latest`, with the rows stored at that time: the time and how many rows, which are the
    /// first rows of `rows` (the bucket layout reads the record it searched once).
    pub fn latest_rows(
        &self,
        at_ns: i64,
        not_before_ns: i64,
        rows: &mut Vec<u8>,
    ) -> Result<Option<(i64, usize)>> {
        latest_in(self.db, &self.keys, at_ns, not_before_ns, Some(rows))
    }
}

fn latest_in(
    db: &Database,
    keys: &[PartitionKey],
    at_ns: i64,
    not_before_ns: i64,
    mut rows: Option<&mut Vec<u8>>,
) -> Result<Option<(i64, usize)>> {
    let g = db.config().granularity.ns();
    let at_ns = at_ns.min(END_TIME_NS - 1);
    let not_before_ns = not_before_ns.max(MIN_TIME_NS);
    if at_ns < not_before_ns {
        return Ok(None);
    }
    // The last slot at or before `at`.
    let last_ns = at_ns - at_ns.rem_euclid(g);
    for &key in keys.iter().rev() {
        if key.start_ns() > last_ns {
            continue;
        }
        if key.end_ns() <= not_before_ns {
            break;
        }
        if db.layout() == super::config::Layout::Bucket {
            let Some(part) = db.bucket_partition(key, false)? else {
                continue;
            };
            let hi_ns = last_ns.min(key.end_ns() - 1);
            let lo_ns = not_before_ns.max(key.start_ns());
            let found = match rows.as_deref_mut() {
                Some(rows) => part.latest_rows_at_or_before(lo_ns, hi_ns, rows)?,
                None => part.latest_at_or_before(lo_ns, hi_ns)?.map(|t| (t, 0)),
            };
            if found.is_some() {
                return Ok(found);
            }
            continue;
        }
        let Some(partition) = db.partition(key, false)? else {
            continue;
        };
        let hi_ns = last_ns.min(key.end_ns() - g);
        let hi_slot = ((hi_ns - key.start_ns()) / g) as u64 + 1;
        let lo_ns = not_before_ns.max(key.start_ns());
        let lo_slot = ((lo_ns - key.start_ns()) as u64).div_ceil(g as u64);
        if let Some(slot) = last_present_slot(&partition, lo_slot, hi_slot)? {
            let t = db.time_of(key, slot);
            let count = match rows {
                Some(rows) => db.get_into(t, rows)?,
                None => 0,
            };
            return Ok(Some((t, count)));
        }
    }
    Ok(None)
}

/// The last slot in `[lo_slot, hi_slot)` whose first row is present.
fn last_present_slot(p: &Partition, lo_slot: u64, hi_slot: u64) -> Result<Option<u64>> {
    let slab = p.slot_len;
    let lo = p.slot_offset(lo_slot);
    let mut hi_slot = hi_slot;
    let mut buf = Vec::new();
    // The common case first: data right before the time (dense series, or a hit); holes read
    // as zeros without touching the disk.
    let near = (NEAR_READ_BYTES / slab)
        .max(1)
        .min(hi_slot.saturating_sub(lo_slot));
    if let Some(slot) = scan_back(p, hi_slot - near, hi_slot, &mut buf)? {
        return Ok(Some(slot));
    }
    hi_slot -= near;
    while hi_slot > lo_slot {
        let hi = p.slot_offset(hi_slot);
        let Some((seg_from, seg_to)) = last_data_before(p, lo, hi)? else {
            return Ok(None);
        };
        // Whole slots that overlap the segment.
        let first = ((seg_from - HEADER_LEN) / slab).max(lo_slot);
        let end = (seg_to - HEADER_LEN).div_ceil(slab).min(hi_slot);
        if let Some(slot) = scan_back(p, first, end, &mut buf)? {
            return Ok(Some(slot));
        }
        hi_slot = first;
    }
    Ok(None)
}

/// Reads `[first, end)` backwards in blocks and returns the last slot holding a row.
fn scan_back(p: &Partition, first: u64, end: u64, buf: &mut Vec<u8>) -> Result<Option<u64>> {
    let slab = p.slab_len;
    let per_read = (BACK_READ_BYTES / slab).max(1);
    let mut end = end;
    while end > first {
        let from = end.saturating_sub(per_read).max(first);
        p.read_slots(from, end - from, buf)?;
        let slab_len = slab as usize;
        if let Some(i) = buf.chunks_exact(slab_len).rposition(Schema::is_present) {
            return Ok(Some(from + i as u64));
        }
        end = from;
    }
    Ok(None)
}

/// The last data segment overlapping `[lo, hi)`, clipped to it: gallops back from `hi` with
/// `SEEK_DATA` probes over doubling windows until one holds data, then bisects that window
/// down to one block. `O(log gap)` `lseek`s.
fn last_data_before(p: &Partition, lo: u64, hi: u64) -> Result<Option<(u64, u64)>> {
    const BLOCK: u64 = 4096;
    let has_data = |x: u64| -> Result<bool> { Ok(p.seek_data(x)?.is_some_and(|d| d < hi)) };
    // Invariants: [empty_from, hi) holds no data; [data_from, hi) does.
    let mut empty_from = hi;
    let mut step = BLOCK;
    let data_from = loop {
        let x = hi.saturating_sub(step).max(lo);
        if has_data(x)? {
            break x;
        }
        if x == lo {
            return Ok(None);
        }
        empty_from = x;
        step = step.saturating_mul(2);
    };
    let (mut yes, mut no) = (data_from, empty_from);
    while no - yes > BLOCK {
        let mid = yes + (no - yes) / 2;
        if has_data(mid)? {
            yes = mid;
        } else {
            no = mid;
        }
    }
    // Holes are whole blocks, so the data found from `yes` is in the last segment before `hi`.
    let Some(start) = p.seek_data(yes)? else {
        return Ok(None);
    };
    let end = p.seek_hole(start)?.unwrap_or(hi).min(hi);
    Ok(Some((start.max(lo), end)))
}
