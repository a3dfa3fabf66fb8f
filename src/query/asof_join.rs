//! The as-of join of many probe times against one store (a plain database or one series):
//! for each probe, the last row of the latest stored timestamp at or before it (the row
//! pandas' `merge_asof` and DuckDB's `ASOF JOIN` pick), no earlier than `within` before it.
//!
//! A few probes are answered by as-of lookups (`asof::AsOf`: a walk back over the data
//! segments); many are answered by one scan of the stored rows from the first probe's match to
//! the last probe, merged with the probes in time order, so joining a day of trades against a
//! day of quotes reads the quotes once.

use super::asof::AsOf;
use super::filter::Filter;
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

    fn push(&mut self, t: i64, row: &[u8]) -> u32 {
        self.times.push(t);
        self.rows.extend_from_slice(row);
        (self.times.len() - 1) as u32
    }
}

/// The earliest time a probe at `t` may match.
fn not_before(t: i64, within_ns: Option<i64>) -> i64 {
    within_ns.map_or(i64::MIN, |w| t.saturating_sub(w))
}

/// For each of `probes` (times in ascending order), the index in `matches` of its match, or
/// `None`. Rows of `db` go into `matches`.
/// With `filter`, only rows it passes are matched; they are found by a scan from the earliest
/// time a probe may match (a lookup finds a timestamp, not a passing row).
pub fn asof_join(
    db: &Database,
    probes: &[i64],
    within_ns: Option<i64>,
    strategy: Strategy,
    filter: Option<&Filter>,
    matches: &mut Matches,
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
        for (p, &t) in probes.iter().enumerate() {
            let Some(hit) = asof.latest(t, not_before(t, within_ns))? else {
                continue;
            };
            let k = match prev {
                Some((pt, k)) if pt == hit => k,
                _ => {
                    let rows = db.get(hit)?;
                    let Some(row) = rows.last() else { continue };
                    matches.push(hit, row)
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
    let mut current = Current {
        t: None,
        row: Vec::with_capacity(matches.row_len),
        kept: None,
    };
    let mut p = 0usize;
    let end = last.saturating_add(1).min(crate::db::time::END_TIME_NS);
    db.scan(start, end, |t, row| -> Result<bool> {
        while p < probes.len() && probes[p] < t {
            found[p] = current.answer(probes[p], within_ns, matches);
            p += 1;
        }
        if p == probes.len() {
            return Ok(false);
        }
        if !filter.map_or(Ok(true), |f| f.matches(t, row))? {
            return Ok(true);
        }
        // A later row of the same timestamp replaces the earlier: the last one is the match.
        current.t = Some(t);
        current.row.clear();
        current.row.extend_from_slice(row);
        current.kept = None;
        Ok(true)
    })?;
    while p < probes.len() {
        found[p] = current.answer(probes[p], within_ns, matches);
        p += 1;
    }
    Ok(found)
}

/// The scan's latest row so far, and its index in `matches` once a probe matched it.
struct Current {
    t: Option<i64>,
    row: Vec<u8>,
    kept: Option<u32>,
}

impl Current {
    /// The match of a probe at `probe` (every row at or before it has been seen).
    fn answer(&mut self, probe: i64, within_ns: Option<i64>, matches: &mut Matches) -> Option<u32> {
        let t = self.t.filter(|&t| t >= not_before(probe, within_ns))?;
        Some(*self.kept.get_or_insert_with(|| matches.push(t, &self.row)))
    }
}
