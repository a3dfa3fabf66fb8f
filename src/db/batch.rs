//! Scan batches, the pieces of rows a scan hands out in time order, and `BatchShape`, which
//! walks them: as rows, as runs of rows, cut into smaller batches or copied for later. Readers
//! outside `src/db` use these and never look at how a layout lays out its slots or rows.

use super::config::Config;
use super::schema::Schema;
use std::sync::Arc;

use super::{RecordPlace, RecordScratch};
use crate::error::Error;

/// A piece of a scan, in time order: what `Database::scan_batches` hands out.
#[derive(Clone, Copy, Debug)]
pub enum Batch<'a> {
    /// Grid: consecutive whole slots (`depth × row_len` bytes each) from `start_ns`, one
    /// granularity apart; a slot's rows end at the first row whose present bit is clear.
    Slots { start_ns: i64, bytes: &'a [u8] },
    /// Rows back to back (`row_len` bytes each) and the time of each: a bucket record's, and
    /// any layout's rows once merged across series or filtered.
    Rows { times: &'a [i64], rows: &'a [u8] },
}

/// The rows of a `Batch` with their times (`Database::batch_rows`).
pub struct BatchRows<'b>(RowsWalk<'b>);

enum RowsWalk<'b> {
    Slots {
        slabs: std::slice::ChunksExact<'b, u8>,
        /// The rows of the slot being walked, and its time.
        slab: std::slice::ChunksExact<'b, u8>,
        t: i64,
        next_t: i64,
        granularity_ns: i64,
        row_len: usize,
    },
    Rows(std::iter::Zip<std::slice::Iter<'b, i64>, std::slice::ChunksExact<'b, u8>>),
}

impl<'b> Iterator for BatchRows<'b> {
    type Item = (i64, &'b [u8]);

    #[inline]
    fn next(&mut self) -> Option<(i64, &'b [u8])> {
        match &mut self.0 {
            RowsWalk::Rows(rows) => rows.next().map(|(&t, row)| (t, row)),
            RowsWalk::Slots {
                slabs,
                slab,
                t,
                next_t,
                granularity_ns,
                row_len,
            } => loop {
                // A slot's rows end at the first row whose present bit is clear.
                if let Some(row) = slab.next().filter(|r| Schema::is_present(r)) {
                    return Some((*t, row));
                }
                *slab = slabs.next()?.chunks_exact(*row_len);
                *t = *next_t;
                *next_t += *granularity_ns;
            },
        }
    }
}

/// The rows of a grid slot (`slab`): a slot's rows end at the first row whose present bit is
/// clear, so an empty slot is told by its first row.
#[inline]
fn present_rows(slab: &[u8], row_len: usize) -> impl Iterator<Item = &[u8]> {
    slab.chunks_exact(row_len).take_while(|r| Schema::is_present(r))
}

/// The times of a run of rows (`BatchShape::runs`).
#[derive(Clone, Copy, Debug)]
pub enum RunTimes<'a> {
    /// Every row of the run is at this time.
    At(i64),
    /// Each row's own time, in order, one per row.
    Each(&'a [i64]),
}

/// Rows back to back (`Schema::row_len` bytes each) and their times.
#[derive(Clone, Copy, Debug)]
pub struct RowRun<'a> {
    pub times: RunTimes<'a>,
    pub rows: &'a [u8],
}

/// The runs of a `Batch` in order (`BatchShape::runs`): a grid slot's rows as one run at the
/// slot's time (empty slots give none); `Batch::Rows` as one run with their times.
pub struct BatchRuns<'b>(RunsWalk<'b>);

enum RunsWalk<'b> {
    Slots {
        slabs: std::slice::ChunksExact<'b, u8>,
        t: i64,
        granularity_ns: i64,
        row_len: usize,
    },
    Rows(Option<RowRun<'b>>),
}

impl<'b> Iterator for BatchRuns<'b> {
    type Item = RowRun<'b>;

    #[inline]
    fn next(&mut self) -> Option<RowRun<'b>> {
        match &mut self.0 {
            RunsWalk::Rows(run) => run.take(),
            RunsWalk::Slots {
                slabs,
                t,
                granularity_ns,
                row_len,
            } => loop {
                let slab = slabs.next()?;
                let at = *t;
                *t += *granularity_ns;
                let present = present_rows(slab, *row_len).count();
                if present > 0 {
                    return Some(RowRun {
                        times: RunTimes::At(at),
                        rows: &slab[..present * *row_len],
                    });
                }
            },
        }
    }
}

/// How a database's batches are laid out (`Database::batch_shape`): enough to walk, cut and
/// copy them without knowing the layout.
#[derive(Clone, Copy, Debug)]
pub struct BatchShape {
    pub(crate) row_len: usize,
    pub(crate) slab_len: usize,
    pub(crate) granularity_ns: i64,
}

impl BatchShape {
    /// The shape of the batches a database of `config` hands out.
    pub fn of(config: &Config) -> BatchShape {
        BatchShape {
            row_len: config.schema.row_len(),
            slab_len: config.slab_len() as usize,
            granularity_ns: config.granularity.ns(),
        }
    }

    /// The rows of `batch` with their times, in order (borrowed from the batch).
    pub fn rows<'b>(&self, batch: Batch<'b>) -> BatchRows<'b> {
        match batch {
            Batch::Slots { start_ns, bytes } => BatchRows(RowsWalk::Slots {
                slabs: bytes.chunks_exact(self.slab_len),
                slab: [].chunks_exact(self.row_len),
                t: start_ns,
                next_t: start_ns,
                granularity_ns: self.granularity_ns,
                row_len: self.row_len,
            }),
            Batch::Rows { times, rows } => {
                BatchRows(RowsWalk::Rows(times.iter().zip(rows.chunks_exact(self.row_len))))
            }
        }
    }

    /// The rows of `batch` in runs, in order: a reader that treats a slot's rows alike (an
    /// aggregate puts them in one bucket) handles them at once.
    pub fn runs<'b>(&self, batch: Batch<'b>) -> BatchRuns<'b> {
        match batch {
            Batch::Slots { start_ns, bytes } => BatchRuns(RunsWalk::Slots {
                slabs: bytes.chunks_exact(self.slab_len),
                t: start_ns,
                granularity_ns: self.granularity_ns,
                row_len: self.row_len,
            }),
            Batch::Rows { times, rows } => {
                debug_assert_eq!(rows.len(), times.len() * self.row_len, "a row per time");
                BatchRuns(RunsWalk::Rows((!times.is_empty()).then_some(RowRun {
                    times: RunTimes::Each(times),
                    rows,
                })))
            }
        }
    }

    /// Rows `skip..skip + max` of `batch` (fewer where it holds fewer), as times and rows back
    /// to back: borrowed from the batch where it holds them so (`Batch::Rows`), else
    /// gathered into `scratch` (the present rows of slots, each with its slot's time).
    pub fn flat<'c>(
        &self,
        batch: Batch<'c>,
        skip: usize,
        max: usize,
        scratch: &'c mut FlatRows,
    ) -> (&'c [i64], &'c [u8]) {
        match batch {
            Batch::Rows { times, rows } => {
                let from = skip.min(times.len());
                let to = from + max.min(times.len() - from);
                (&times[from..to], &rows[from * self.row_len..to * self.row_len])
            }
            Batch::Slots { start_ns, bytes } => {
                let FlatRows { times, rows } = scratch;
                times.clear();
                rows.clear();
                let mut seen = 0usize;
                let mut t_ns = start_ns;
                'slots: for slab in bytes.chunks_exact(self.slab_len) {
                    for row in present_rows(slab, self.row_len) {
                        if seen >= skip {
                            if times.len() == max {
                                break 'slots;
                            }
                            times.push(t_ns);
                            rows.extend_from_slice(row);
                        }
                        seen += 1;
                    }
                    t_ns += self.granularity_ns;
                }
                (times, rows)
            }
        }
    }

    /// `batch` cut into pieces of at most `max_bytes` each (at least one slot or row), in order,
    /// holding every slot or row of it once. A batch that fits is its own single piece (as is,
    /// defensively, one of rows without bytes, which no schema makes).
    pub fn cut<'a>(&self, batch: Batch<'a>, max_bytes: usize) -> impl Iterator<Item = Batch<'a>> {
        let (unit, len) = match batch {
            Batch::Slots { bytes, .. } => (self.slab_len, bytes.len()),
            Batch::Rows { times, rows } => {
                debug_assert_eq!(rows.len(), times.len() * self.row_len, "a row per time");
                (self.row_len, rows.len())
            }
        };
        // Slots or rows per piece.
        let units = len.checked_div(unit).unwrap_or(0);
        let per = if len <= max_bytes || unit == 0 {
            units.max(1)
        } else {
            (max_bytes / unit).max(1)
        };
        let (row_len, slab_len, granularity_ns) = (self.row_len, self.slab_len, self.granularity_ns);
        let count = units.div_ceil(per).max(1);
        (0..count).map(move |k| {
            // The last piece takes the rest, whatever it holds.
            let a = k * per;
            let b = if k + 1 == count { usize::MAX } else { a + per };
            let cut = |x: usize, unit: usize| x.saturating_mul(unit);
            match batch {
                _ if count == 1 => batch,
                Batch::Slots { start_ns, bytes } => Batch::Slots {
                    start_ns: start_ns + a as i64 * granularity_ns,
                    bytes: &bytes[cut(a, slab_len)..cut(b, slab_len).min(bytes.len())],
                },
                Batch::Rows { times, rows } => Batch::Rows {
                    times: &times[a..b.min(times.len())],
                    rows: &rows[cut(a, row_len)..cut(b, row_len).min(rows.len())],
                },
            }
        })
    }
}

/// Where `BatchShape::flat` gathers rows that a batch does not hold back to back; reused, it
/// allocates nothing.
#[derive(Default)]
pub struct FlatRows {
    times: Vec<i64>,
    rows: Vec<u8>,
}

/// Scan batches copied back to back, to be walked again later (a read-out job's input): its
/// buffers are kept across `clear`, so a reused one allocates nothing. Stored records are kept
/// as stored, not copied, and decoded as they are walked, by the thread that walks them.
#[derive(Default)]
pub struct BatchBuf {
    pieces: Vec<Copied>,
    bytes: Vec<u8>,
    times: Vec<i64>,
    /// The stored records (or pieces of them), their bytes shared by the pieces.
    records: Vec<(RecordPlace, Arc<[u8]>)>,
    /// Bytes of the rows held: slots and rows as copied, records as they decode.
    load: usize,
}

/// One batch inside a `BatchBuf`.
#[derive(Clone, Copy)]
enum Copied {
    /// Whole grid slots from `start_ns`, `len_bytes` long.
    Slots { start_ns: i64, len_bytes: usize },
    /// `count` rows (their times are next in `times`), `len_bytes` long.
    Rows { count: usize, len_bytes: usize },
    /// The next record of `records`.
    Record,
}

impl BatchBuf {
    /// Appends a copy of `batch`. The first batch of an empty buffer reserves room for
    /// `expect_bytes` more, so a buffer filled to a known size grows once, not by doubling
    /// (each step a copy onto fresh pages).
    pub fn push(&mut self, batch: Batch<'_>, expect_bytes: usize) {
        let bytes = match batch {
            Batch::Slots { start_ns, bytes } => {
                self.pieces.push(Copied::Slots {
                    start_ns,
                    len_bytes: bytes.len(),
                });
                bytes
            }
            Batch::Rows { times, rows } => {
                self.pieces.push(Copied::Rows {
                    count: times.len(),
                    len_bytes: rows.len(),
                });
                self.times.extend_from_slice(times);
                rows
            }
        };
        self.load += bytes.len();
        if self.bytes.is_empty() {
            self.bytes.reserve(expect_bytes.saturating_add(bytes.len()));
        }
        self.bytes.extend_from_slice(bytes);
    }

    /// Appends a stored record (or a piece of one, `RecordPlace::split`), whose `bytes` are
    /// shared, to be decoded when the buffer is walked.
    pub fn push_record(&mut self, place: RecordPlace, bytes: &Arc<[u8]>) {
        self.pieces.push(Copied::Record);
        self.load += place.decoded_bytes();
        self.records.push((place, Arc::clone(bytes)));
    }

    /// Bytes of the rows held (a record's about what it decodes to).
    pub fn len_bytes(&self) -> usize {
        self.load
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Empties the buffer, keeping its memory.
    pub fn clear(&mut self) {
        self.pieces.clear();
        self.bytes.clear();
        self.times.clear();
        self.records.clear();
        self.load = 0;
    }

    /// Hands the batches pushed to `visit`, in order, decoding records into `scratch`; a
    /// record with no rows in its window hands out nothing. Stops when `visit` returns
    /// `Ok(false)`.
    pub fn visit<E: From<Error>>(
        &self,
        scratch: &mut RecordScratch,
        mut visit: impl FnMut(Batch<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        let (mut at, mut time_at, mut records) = (0, 0, self.records.iter());
        for &piece in &self.pieces {
            let len = match piece {
                Copied::Slots { len_bytes, .. } | Copied::Rows { len_bytes, .. } => len_bytes,
                Copied::Record => 0,
            };
            let bytes = &self.bytes[at..at + len];
            at += len;
            let batch = match piece {
                Copied::Slots { start_ns, .. } => Batch::Slots { start_ns, bytes },
                Copied::Rows { count, .. } => {
                    time_at += count;
                    Batch::Rows {
                        times: &self.times[time_at - count..time_at],
                        rows: bytes,
                    }
                }
                Copied::Record => {
                    let (place, bytes) = records.next().expect("one place per record");
                    match place.decode(bytes, scratch)? {
                        Some(batch) => batch,
                        None => continue,
                    }
                }
            };
            if !visit(batch)? {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `BatchShape::cut` hands out, as (start times, bytes, pieces) of slots or (times,
    /// rows, pieces); checks that no piece but a lone one is over `max_bytes`.
    fn cut_all(shape: &BatchShape, batch: Batch<'_>, max_bytes: usize) -> (Vec<i64>, Vec<u8>, usize) {
        let (mut times, mut bytes) = (Vec::new(), Vec::new());
        let all: Vec<Batch<'_>> = shape.cut(batch, max_bytes).collect();
        for piece in &all {
            match *piece {
                Batch::Slots { start_ns, bytes: b } => {
                    times.push(start_ns);
                    if all.len() > 1 {
                        assert!(
                            b.len() <= max_bytes.max(shape.slab_len),
                            "piece of {} bytes",
                            b.len()
                        );
                    }
                    bytes.extend_from_slice(b);
                }
                Batch::Rows { times: t, rows } => {
                    assert_eq!(rows.len(), t.len() * shape.row_len);
                    times.extend_from_slice(t);
                    bytes.extend_from_slice(rows);
                }
            }
        }
        (times, bytes, all.len())
    }

    #[test]
    fn a_batch_is_cut_into_pieces_that_hold_every_row_once_in_order() {
        let rows: Vec<u8> = (0..=255).cycle().take(10 * 6).collect();
        let times: Vec<i64> = (0..10).map(|i| 1000 + i * 7).collect();
        let shape = BatchShape {
            row_len: 6,
            slab_len: 12,
            granularity_ns: 10,
        };
        for max_bytes in [1, 5, 6, 7, 12, 59, 60, 61, 1 << 20] {
            // Rows: at most max_bytes each (one row at least), all of them, in order.
            let (t, r, pieces) = cut_all(
                &shape,
                Batch::Rows {
                    times: &times,
                    rows: &rows,
                },
                max_bytes,
            );
            assert_eq!((t, r), (times.clone(), rows.clone()), "max_bytes {max_bytes}");
            assert_eq!(
                pieces,
                10usize.div_ceil((max_bytes / 6).clamp(1, 10)),
                "max_bytes {max_bytes}"
            );
            // Slots of 12 bytes: each piece starts at its first slot's time.
            let (starts, b, pieces) = cut_all(
                &shape,
                Batch::Slots {
                    start_ns: 50,
                    bytes: &rows,
                },
                max_bytes,
            );
            assert_eq!(b, rows, "max_bytes {max_bytes}");
            let per = if max_bytes >= 60 {
                5
            } else {
                (max_bytes / 12).max(1)
            };
            assert_eq!(pieces, 5usize.div_ceil(per));
            let expected: Vec<i64> = (0..pieces as i64).map(|k| 50 + k * per as i64 * 10).collect();
            assert_eq!(starts, expected, "max_bytes {max_bytes}");
        }
        // Rows of no bytes (none in practice: a row has a header byte) go whole.
        let empty = BatchShape {
            row_len: 0,
            slab_len: 0,
            granularity_ns: 10,
        };
        let (t, r, pieces) = cut_all(
            &empty,
            Batch::Rows {
                times: &times,
                rows: &[],
            },
            1,
        );
        assert_eq!((t, r.len(), pieces), (times.clone(), 0, 1));
    }

    #[test]
    fn a_partial_trailing_slot_stays_with_the_last_piece() {
        // 2.5 slots of 4 bytes, cut to one slot per piece: the half slot is not dropped.
        let bytes: Vec<u8> = (0..10).collect();
        let shape = BatchShape {
            row_len: 2,
            slab_len: 4,
            granularity_ns: 3,
        };
        let pieces: Vec<(i64, Vec<u8>)> = shape
            .cut(
                Batch::Slots {
                    start_ns: 9,
                    bytes: &bytes,
                },
                4,
            )
            .map(|p| match p {
                Batch::Slots { start_ns, bytes } => (start_ns, bytes.to_vec()),
                Batch::Rows { .. } => panic!("slots cut into rows"),
            })
            .collect();
        assert_eq!(pieces, vec![(9, vec![0, 1, 2, 3]), (12, vec![4, 5, 6, 7, 8, 9])]);
    }

    /// Slots of depth 3, rows of 2 bytes (the first byte's low bit: present): slot 0 holds two
    /// rows, slot 1 none, slot 2 three, slot 3 one (then an absent row, then a present one,
    /// which does not count: a slot's rows end at the first absent row), slot 4 none (its
    /// first row is absent, whatever follows).
    fn grid_slots() -> Vec<u8> {
        vec![
            1, 10, 1, 11, 0, 0, //
            0, 0, 0, 0, 0, 0, //
            1, 20, 1, 21, 1, 22, //
            1, 30, 0, 0, 1, 99, //
            0, 0, 1, 40, 1, 41,
        ]
    }

    const GRID: BatchShape = BatchShape {
        row_len: 2,
        slab_len: 6,
        granularity_ns: 5,
    };

    #[test]
    fn runs_and_rows_walk_the_same_rows_at_the_same_times() {
        let slots = grid_slots();
        let batch = Batch::Slots {
            start_ns: 100,
            bytes: &slots,
        };
        let runs: Vec<(i64, Vec<u8>)> = GRID
            .runs(batch)
            .map(|run| match run.times {
                RunTimes::At(t) => (t, run.rows.to_vec()),
                RunTimes::Each(_) => panic!("a grid slot's rows share its time"),
            })
            .collect();
        assert_eq!(
            runs,
            vec![
                (100, vec![1, 10, 1, 11]),
                (110, vec![1, 20, 1, 21, 1, 22]),
                (115, vec![1, 30])
            ]
        );
        let rows: Vec<(i64, u8)> = GRID.rows(batch).map(|(t, row)| (t, row[1])).collect();
        assert_eq!(
            rows,
            vec![(100, 10), (100, 11), (110, 20), (110, 21), (110, 22), (115, 30)]
        );
        // Bucket rows: one run with their own times; none when there are no rows.
        let times = [7, 7, 9];
        let bytes = [1, 1, 1, 2, 1, 3];
        let batch = Batch::Rows {
            times: &times,
            rows: &bytes,
        };
        let runs: Vec<RowRun<'_>> = GRID.runs(batch).collect();
        assert!(
            matches!(runs.as_slice(), [RowRun { times: RunTimes::Each(t), rows }] if *t == times && *rows == bytes)
        );
        let rows: Vec<(i64, u8)> = GRID.rows(batch).map(|(t, row)| (t, row[1])).collect();
        assert_eq!(rows, vec![(7, 1), (7, 2), (9, 3)]);
        let none = Batch::Rows {
            times: &[],
            rows: &[],
        };
        assert_eq!(GRID.runs(none).count(), 0);
    }

    #[test]
    fn flat_rows_are_the_rows_skipped_and_taken_borrowed_when_back_to_back() {
        let slots = grid_slots();
        let (times, bytes) = ([7i64, 7, 9], [1u8, 1, 1, 2, 1, 3]);
        let batches = [
            Batch::Slots {
                start_ns: 100,
                bytes: &slots,
            },
            Batch::Rows {
                times: &times,
                rows: &bytes,
            },
        ];
        let mut scratch = FlatRows::default();
        for batch in batches {
            let all: Vec<(i64, Vec<u8>)> = GRID.rows(batch).map(|(t, r)| (t, r.to_vec())).collect();
            for skip in 0..=all.len() + 1 {
                for max in 0..=all.len() + 1 {
                    let (t, r) = GRID.flat(batch, skip, max, &mut scratch);
                    let want: Vec<&(i64, Vec<u8>)> = all.iter().skip(skip).take(max).collect();
                    assert_eq!(t.len(), want.len(), "{batch:?} skip {skip} max {max}");
                    assert_eq!(r.len(), want.len() * GRID.row_len);
                    for (k, (wt, wr)) in want.iter().enumerate() {
                        assert_eq!((t[k], &r[k * 2..k * 2 + 2]), (*wt, wr.as_slice()));
                    }
                }
            }
        }
        // Bucket rows come borrowed, not copied.
        let (t, r) = GRID.flat(batches[1], 1, 5, &mut scratch);
        assert!(
            std::ptr::eq(t.as_ptr(), times[1..].as_ptr()) && std::ptr::eq(r.as_ptr(), bytes[2..].as_ptr())
        );
    }

    /// The batches a buffer hands out, as text.
    fn walk(buf: &BatchBuf) -> Vec<String> {
        let mut back = Vec::new();
        buf.visit(&mut RecordScratch::default(), |b| -> Result<bool, Error> {
            back.push(format!("{b:?}"));
            Ok(true)
        })
        .expect("no records to decode");
        back
    }

    #[test]
    fn a_batch_buffer_gives_back_what_was_pushed_in_order() {
        let slots = grid_slots();
        let (times, bytes) = ([7i64, 8], [1u8, 5, 1, 6]);
        let (later, later_bytes) = ([9i64], [1u8, 7]);
        let mut buf = BatchBuf::default();
        for round in 0..2 {
            buf.push(
                Batch::Slots {
                    start_ns: 100,
                    bytes: &slots,
                },
                64,
            );
            buf.push(
                Batch::Rows {
                    times: &times,
                    rows: &bytes,
                },
                64,
            );
            buf.push(
                Batch::Slots {
                    start_ns: 200,
                    bytes: &slots[..6],
                },
                64,
            );
            buf.push(
                Batch::Rows {
                    times: &later,
                    rows: &later_bytes,
                },
                64,
            );
            assert_eq!(buf.len_bytes(), 30 + 4 + 6 + 2, "round {round}");
            let back = walk(&buf);
            let want = [
                format!(
                    "{:?}",
                    Batch::Slots {
                        start_ns: 100,
                        bytes: &slots
                    }
                ),
                format!(
                    "{:?}",
                    Batch::Rows {
                        times: &times,
                        rows: &bytes
                    }
                ),
                format!(
                    "{:?}",
                    Batch::Slots {
                        start_ns: 200,
                        bytes: &slots[..6]
                    }
                ),
                format!(
                    "{:?}",
                    Batch::Rows {
                        times: &later,
                        rows: &later_bytes
                    }
                ),
            ];
            assert_eq!(back, want, "round {round}");
            buf.clear();
            assert!(buf.is_empty() && buf.len_bytes() == 0 && walk(&buf).is_empty());
        }
    }
}
