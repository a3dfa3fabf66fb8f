//! Cutting a scan `Batch` into smaller batches of the same rows: a reader that works in
//! fixed-size jobs (the CSV read-out formats jobs side by side) takes a storage bucket's
//! rows, up to 64 MiB of them, as several jobs without knowing how either layout lays out
//! its slots or rows.

use super::Batch;

/// How a database's batches are cut: into pieces of at most `max_bytes` each (at least one
/// slot or row), in order (`Database::batch_cut`).
#[derive(Clone, Copy, Debug)]
pub struct BatchCut {
    pub(crate) max_bytes: usize,
    pub(crate) row_len: usize,
    pub(crate) slab_len: usize,
    pub(crate) granularity_ns: i64,
}

impl BatchCut {
    /// The pieces of `batch`, in order, holding every slot or row of it once. A batch that
    /// fits, or of rows without bytes, is its own single piece.
    pub fn pieces<'a>(&self, batch: Batch<'a>) -> impl Iterator<Item = Batch<'a>> {
        let (unit, len) = match batch {
            Batch::Slots { bytes, .. } => (self.slab_len, bytes.len()),
            Batch::Rows { times, rows } => {
                debug_assert_eq!(rows.len(), times.len() * self.row_len, "a row per time");
                (self.row_len, rows.len())
            }
        };
        // Slots or rows per piece.
        let units = len.checked_div(unit).unwrap_or(0);
        let per = if len <= self.max_bytes || unit == 0 {
            units.max(1)
        } else {
            (self.max_bytes / unit).max(1)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What `BatchCut::pieces` hands out, as (start times, bytes, pieces) of slots or (times,
    /// rows, pieces); checks that no piece but a lone one is over `max_bytes`.
    fn cut_all(cut: &BatchCut, batch: Batch<'_>) -> (Vec<i64>, Vec<u8>, usize) {
        let (mut times, mut bytes, mut pieces) = (Vec::new(), Vec::new(), 0);
        let all: Vec<Batch<'_>> = cut.pieces(batch).collect();
        for piece in &all {
            pieces += 1;
            match *piece {
                Batch::Slots { start_ns, bytes: b } => {
                    times.push(start_ns);
                    if all.len() > 1 {
                        assert!(
                            b.len() <= cut.max_bytes.max(cut.slab_len),
                            "piece of {} bytes",
                            b.len()
                        );
                    }
                    bytes.extend_from_slice(b);
                }
                Batch::Rows { times: t, rows } => {
                    assert_eq!(rows.len(), t.len() * cut.row_len);
                    times.extend_from_slice(t);
                    bytes.extend_from_slice(rows);
                }
            }
        }
        (times, bytes, pieces)
    }

    #[test]
    fn a_batch_is_cut_into_pieces_that_hold_every_row_once_in_order() {
        let rows: Vec<u8> = (0..=255).cycle().take(10 * 6).collect();
        let times: Vec<i64> = (0..10).map(|i| 1000 + i * 7).collect();
        for max_bytes in [1, 5, 6, 7, 12, 59, 60, 61, 1 << 20] {
            let cut = BatchCut {
                max_bytes,
                row_len: 6,
                slab_len: 12,
                granularity_ns: 10,
            };
            // Rows: at most max_bytes each (one row at least), all of them, in order.
            let (t, r, pieces) = cut_all(
                &cut,
                Batch::Rows {
                    times: &times,
                    rows: &rows,
                },
            );
            assert_eq!((t, r), (times.clone(), rows.clone()), "max_bytes {max_bytes}");
            assert_eq!(
                pieces,
                10usize.div_ceil((max_bytes / 6).clamp(1, 10)),
                "max_bytes {max_bytes}"
            );
            // Slots of 12 bytes: each piece starts at its first slot's time.
            let (starts, b, pieces) = cut_all(
                &cut,
                Batch::Slots {
                    start_ns: 50,
                    bytes: &rows,
                },
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
        // Rows of no bytes (a schema of no value columns) go whole.
        let cut = BatchCut {
            max_bytes: 1,
            row_len: 0,
            slab_len: 0,
            granularity_ns: 10,
        };
        let (t, r, pieces) = cut_all(
            &cut,
            Batch::Rows {
                times: &times,
                rows: &[],
            },
        );
        assert_eq!((t, r.len(), pieces), (times.clone(), 0, 1));
    }

    #[test]
    fn a_partial_trailing_slot_stays_with_the_last_piece() {
        // 2.5 slots of 4 bytes, cut to one slot per piece: the half slot is not dropped.
        let bytes: Vec<u8> = (0..10).collect();
        let cut = BatchCut {
            max_bytes: 4,
            row_len: 2,
            slab_len: 4,
            granularity_ns: 3,
        };
        let pieces: Vec<(i64, Vec<u8>)> = cut
            .pieces(Batch::Slots {
                start_ns: 9,
                bytes: &bytes,
            })
            .map(|p| match p {
                Batch::Slots { start_ns, bytes } => (start_ns, bytes.to_vec()),
                Batch::Rows { .. } => panic!("slots cut into rows"),
            })
            .collect();
        assert_eq!(pieces, vec![(9, vec![0, 1, 2, 3]), (12, vec![4, 5, 6, 7, 8, 9])]);
    }
}
