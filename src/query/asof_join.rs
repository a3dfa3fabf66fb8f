//! The as-of join of many probe times against one store (a plain database or one series):
//! for each probe, the last row of the latest stored timestamp at or before it (the row
//! pandas' `merge_asof` and DuckDB's `ASOF JOIN` pick), no earlier than `within` before it.
//!
//! A few probes are answered by as-of lookups (`asof::AsOf`: a walk back over the data
//! segments); many are answered by one scan of the stored rows from the first probe's match to
//! the last probe, merged with the probes in time order, so joining a day of trades against a
//! day of quotes reads the quotes once.

use super::filter::Filter;
use crate::db::asof::AsOf;
use crate::db::Database;
use crate::error::Result;

/// Probes of one store at or above which one merged scan answers them.
const SCAN_PROBES: usize = 256;

/// How the matches are found; `Auto` chooses by the number of probes. Both give the same
/// answer (the model test checks it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Auto,
    Lookups,
    Scan,
}

/// The stored rows that probes matched, each once, in the order first matched.
#[derive(Debug, Default)]
pub struct Matches {
    pub times: Vec<i64>,
    /// Encoded rows, `row_len` bytes each.
    pub rows: Vec<u8>,
    pub row_len: usize,
}

impl Matches {
    pub fn new(row_len: usize) -> Matches {
        Matches {
            times: Vec::new(),
            rows: Vec::new(),
            row_len,
        }
    }

    /// Match `k`: its stored time and encoded row.
    pub fn get(&self, k: u32) -> (i64, &[u8]) {
        let k = k as usize;
        (
            self.times[k],
            &self.rows[k * self.row_len..(k + 1) * self.row_len],
        )
    }
}

/// Where the join puts each row that a probe matched (once, however many probes match it):
/// `push` gives the index the probes' answers refer to.
pub trait MatchSink {
    fn push(&mut self, t: i64, row: &[u8]) -> Result<u32>;
}

impl MatchSink for Matches {
    fn push(&mut self, t: i64, row: &[u8]) -> Result<u32> {
        self.times.push(t);
        self.rows.extend_from_slice(row);
        Ok((self.times.len() - 1) as u32)
    }
}

/// The earliest time a probe at `t` may match.
fn not_before(t: i64, within_ns: Option<i64>) -> i64 {
    within_ns.map_or(i64::MIN, |w| t.saturating_sub(w))
}

/// For each of `probes` (times in ascending order), the index in `matches` of its match, or
/// `None`. Matched rows of `db` go into `matches`.
/// With `filter`, only rows it passes are matched; they are found by a scan from the earliest
/// time a probe may match (a lookup finds a timestamp, not a passing row).
pub fn asof_join(
    db: &Database,
    probes: &[i64],
    within_ns: Option<i64>,
    strategy: Strategy,
    filter: Option<&Filter>,
    matches: &mut impl MatchSink,
) -> Result<Vec<Option<u32>>> {
    debug_assert!(probes.windows(2).all(|w| w[0] <= w[1]));
    let mut found = vec![None; probes.len()];
    let (Some(&first), Some(&last)) = (probes.first(), probes.last()) else {
        return Ok(found);
    };
    let asof = AsOf::new(db)?;
    let scan = filter.is_some()
        || match strategy {
            Strategy::Auto => probes.len() >= SCAN_PROBES,
            Strategy::Lookups => false,
            Strategy::Scan => true,
        };
    if !scan {
        // Probes in order: a probe whose match is the previous one's reuses it.
        let mut prev: Option<(i64, u32)> = None;
        let (row_len, mut rows) = (db.schema().row_len(), Vec::new());
        for (p, &t) in probes.iter().enumerate() {
            let Some((hit, count)) = asof.latest_rows(t, not_before(t, within_ns), &mut rows)? else {
                continue;
            };
            let k = match prev {
                Some((pt, k)) if pt == hit => k,
                _ => {
                    let Some(last) = count.checked_sub(1) else {
                        continue;
                    };
                    matches.push(hit, &rows[last * row_len..count * row_len])?
                }
            };
            prev = Some((hit, k));
            found[p] = Some(k);
        }
        return Ok(found);
    }
    // One scan from the first probe's match (or the earliest time it may match) to the last
    // probe. A probe is answered once a later timestamp begins (or the scan ends), so the
    // current row is the last of its timestamp; it is kept in `matches` only once answered.
    let earliest = not_before(first, within_ns).max(crate::db::time::MIN_TIME_NS);
    let start = match filter {
        Some(_) => earliest,
        None => asof
            .latest(first, not_before(first, within_ns))?
            .unwrap_or(earliest),
    };
    // The latest passing row so far is borrowed from its batch while the batch lasts; it is
    // copied out only when its batch ends before a later row replaces it, and into `matches`
    // only once a probe matched it. So the rows no probe matches are never copied.
    let mut carried = Carried {
        t: None,
        row: Vec::new(),
        kept: None,
    };
    let mut p = 0usize;
    let end = last.saturating_add(1).min(crate::db::time::END_TIME_NS);
    db.scan_batches(start, end, |batch| -> Result<bool> {
        // This batch's latest passing row, and its index in `matches` once matched.
        let mut latest: Option<(i64, &[u8])> = None;
        let mut kept: Option<u32> = None;
        let mut more = true;
        for (t, row) in db.batch_rows(batch) {
            while p < probes.len() && probes[p] < t {
                found[p] = match latest {
                    Some((lt, lrow)) => answer(lt, lrow, &mut kept, probes[p], within_ns, matches)?,
                    None => carried.answer(probes[p], within_ns, matches)?,
                };
                p += 1;
            }
            if p == probes.len() {
                more = false;
                break;
            }
            if filter.map_or(Ok(true), |f| f.matches(t, row))? {
                // A later row of the same timestamp replaces the earlier: the last one is the
                // match.
                latest = Some((t, row));
                kept = None;
            }
        }
        if let Some((t, row)) = latest {
            carried.t = Some(t);
            carried.row.clear();
            carried.row.extend_from_slice(row);
            carried.kept = kept;
        }
        Ok(more)
    })?;
    while p < probes.len() {
        found[p] = carried.answer(probes[p], within_ns, matches)?;
        p += 1;
    }
    Ok(found)
}

/// The match of a probe at `probe` when every row at or before it has been seen and the
/// latest is `row` at `t` (`kept`: its index in `matches`, once pushed).
fn answer(
    t: i64,
    row: &[u8],
    kept: &mut Option<u32>,
    probe: i64,
    within_ns: Option<i64>,
    matches: &mut impl MatchSink,
) -> Result<Option<u32>> {
    if t < not_before(probe, within_ns) {
        return Ok(None);
    }
    if kept.is_none() {
        *kept = Some(matches.push(t, row)?);
    }
    Ok(*kept)
}

/// The latest passing row of the batches before, copied out, and its index in `matches` once
/// a probe matched it.
struct Carried {
    t: Option<i64>,
    row: Vec<u8>,
    kept: Option<u32>,
}

impl Carried {
    /// The match of a probe at `probe` (every row at or before it has been seen).
    fn answer(
        &mut self,
        probe: i64,
        within_ns: Option<i64>,
        matches: &mut impl MatchSink,
    ) -> Result<Option<u32>> {
        match self.t {
            Some(t) => answer(t, &self.row, &mut self.kept, probe, within_ns, matches),
            None => Ok(None),
        }
    }
}
