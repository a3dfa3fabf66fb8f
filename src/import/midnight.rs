//! Times of day take one date per input, so an input that crosses midnight would put the rows
//! after the crossing a day early: they are refused at the sample and rejected row by row.
//!
//! With a series key each series' times are followed on their own. A file sorted by series
//! (TAQ: each symbol from 04:00 to 20:00, then the next symbol from 04:00) goes back by more
//! than half a day at every new series without crossing midnight. The one ambiguity is a new
//! series met right after such a fall in a file sorted by time; it is settled as soon as a
//! series seen before comes back past the fall: then the fall was midnight, and the rows from
//! it on are past it.

use super::infer::went_back_over_midnight;

/// Where times of day went back over midnight: from and to (ns since midnight), and the
/// position (a byte offset in a chunk, or a record of the sample) of the first row past it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crossing {
    pub from: i64,
    pub to: i64,
    pub at: usize,
}

/// Follows times of day in input order, per series (ids dense from 0; one series, 0, without
/// a series key).
#[derive(Debug, Default)]
pub struct MidnightWatch {
    /// Each series' last time and the position of its row (`None`: before this stretch).
    last: Vec<Option<(i64, Option<usize>)>>,
    /// The time of the row before, of any series.
    prev: Option<i64>,
    /// Where a series new to the input came in more than half a day before the row above it
    /// (the start of a series in a file sorted by series, or midnight): as a crossing.
    falls: Vec<Crossing>,
}

impl MidnightWatch {
    /// The last time of `series` and of any row before the stretch followed (an earlier
    /// chunk of the same input).
    pub fn seed(&mut self, series: usize, last: i64) {
        self.slot(series).replace((last, None));
    }

    pub fn seed_prev(&mut self, prev: Option<i64>) {
        self.prev = prev;
    }

    fn slot(&mut self, series: usize) -> &mut Option<(i64, Option<usize>)> {
        if self.last.len() <= series {
            self.last.resize(series + 1, None);
        }
        &mut self.last[series]
    }

    /// Follows a row of `series` at time of day `t`, at position `at`: the crossing it shows,
    /// if any. That may be an earlier row's: a fall at a new series after this series' last
    /// row was midnight.
    pub fn see(&mut self, series: usize, t: i64, at: usize) -> Option<Crossing> {
        let fall = self
            .prev
            .filter(|&prev| went_back_over_midnight(prev, t))
            .map(|from| Crossing { from, to: t, at });
        self.prev = Some(t);
        match *self.slot(series) {
            Some((from, last_at)) if went_back_over_midnight(from, t) => {
                let first_fall = self.falls.iter().find(|f| last_at.is_none_or(|l| f.at > l));
                return Some(first_fall.copied().unwrap_or(Crossing { from, to: t, at }));
            }
            Some(_) => {}
            None => self.falls.extend(fall),
        }
        *self.slot(series) = Some((t, Some(at)));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3_600_000_000_000;

    fn watch(rows: &[(usize, i64)]) -> Option<Crossing> {
        let mut w = MidnightWatch::default();
        rows.iter().enumerate().find_map(|(at, &(s, t))| w.see(s, t, at))
    }

    #[test]
    fn one_series_that_falls_back_half_a_day_crosses_midnight() {
        let c = watch(&[(0, 20 * H), (0, 23 * H), (0, H), (0, 2 * H)]);
        assert_eq!(
            c,
            Some(Crossing {
                from: 23 * H,
                to: H,
                at: 2
            })
        );
        // Out of order within a day is no crossing.
        assert_eq!(watch(&[(0, 20 * H), (0, 9 * H), (0, 21 * H)]), None);
    }

    #[test]
    fn a_file_sorted_by_series_from_morning_to_evening_crosses_nothing() {
        let rows = [
            (0, 4 * H),
            (0, 19 * H),
            (1, 4 * H),
            (1, 19 * H),
            (2, 4 * H),
            (2, 20 * H),
        ];
        assert_eq!(watch(&rows), None);
        // A series' own fall is still a crossing, from its own row.
        let rows = [(0, 4 * H), (0, 19 * H), (1, 4 * H), (1, 23 * H), (1, H)];
        assert_eq!(
            watch(&rows),
            Some(Crossing {
                from: 23 * H,
                to: H,
                at: 4
            })
        );
    }

    #[test]
    fn a_new_series_right_after_midnight_is_past_it_once_an_old_one_comes_back() {
        // Sorted by time: series 2 first comes at 00:00, then series 0 comes back at 00:01.
        let rows = [(0, 23 * H), (1, 23 * H), (2, 0), (1, H / 2), (0, H)];
        assert_eq!(
            watch(&rows),
            Some(Crossing {
                from: 23 * H,
                to: 0,
                at: 2
            })
        );
    }

    #[test]
    fn a_seeded_series_that_comes_back_earlier_crosses_from_the_first_fall() {
        let mut w = MidnightWatch::default();
        w.seed(0, 23 * H);
        w.seed_prev(Some(23 * H));
        assert_eq!(w.see(1, 0, 10), None);
        assert_eq!(
            w.see(0, H, 20),
            Some(Crossing {
                from: 23 * H,
                to: 0,
                at: 10
            })
        );
    }
}
