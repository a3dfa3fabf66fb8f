//! Reading out a time range at speed: the scan's chunks of whole slots are formatted (and, for
//! `.zst` output, compressed) in parallel batches on the rayon pool, then handed to a sink in time
//! order. Small ranges (one chunk) are formatted on the calling thread and never start the pool.

use crate::db::schema::Schema;
use crate::db::{Batch, Database, Prune};
use crate::error::{Error, Result};
use crate::io::output::RowFormatter;
use crate::query::filter::Filter;

/// How formatted bytes are encoded before they reach the sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    /// A zstd frame per formatted chunk; concatenated frames are one valid zstd stream.
    Zstd {
        level: i32,
    },
    /// A gzip member per formatted chunk; concatenated members are one valid gzip stream.
    Gzip {
        level: u32,
    },
}

impl Compression {
    /// Encodes `bytes` (the header, say) the way every chunk is encoded.
    pub fn encode(self, bytes: &[u8]) -> Result<Vec<u8>> {
        match self {
            Compression::None => Ok(bytes.to_vec()),
            Compression::Zstd { level } => zstd::bulk::compress(bytes, level)
                .map_err(|e| Error::Invalid(format!("zstd compression at level {level} failed: {e}"))),
            Compression::Gzip { level } => {
                use std::io::Write;
                let mut encoder = flate2::write::GzEncoder::new(
                    Vec::with_capacity(bytes.len() / 4),
                    flate2::Compression::new(level),
                );
                encoder
                    .write_all(bytes)
                    .and_then(|()| encoder.finish())
                    .map_err(|e| Error::Invalid(format!("gzip compression at level {level} failed: {e}")))
            }
        }
    }
}

/// Jobs formatted together, at most; the first batch is one job so that a small `--limit` or a
/// `| head` costs one chunk, and batches double from there.
const MAX_BATCH_JOBS: usize = 8;

/// Input bytes gathered into one job: scans of fragmented data hand out many small chunks
/// (one per data segment), which are grouped so that each job is worth a thread's time.
const JOB_INPUT_BYTES: usize = 1 << 20;

/// One scan batch inside a job's input.
#[derive(Clone, Copy)]
enum Piece {
    /// Whole grid slots from `start_ns`, `len_bytes` long.
    Slots { start_ns: i64, len_bytes: usize },
    /// `count` bucket rows (their times are next in `Job::times`), `len_bytes` long.
    Rows { count: usize, len_bytes: usize },
}

/// Consecutive scan batches, formatted by one thread into one output block.
struct Job {
    /// Scan batches packed back to back.
    pieces: Vec<Piece>,
    input: Vec<u8>,
    /// Times of the `Piece::Rows` rows, in order.
    times: Vec<i64>,
    output: Vec<u8>,
    encoded: Vec<u8>,
    rows: u64,
}

impl Job {
    fn run(&mut self, formatter: &RowFormatter, max_rows: u64, compression: Compression) -> Result<()> {
        self.output.clear();
        self.rows = 0;
        let mut at = 0;
        let mut time_at = 0;
        for &piece in &self.pieces {
            match piece {
                Piece::Slots { start_ns, len_bytes } => {
                    let bytes = &self.input[at..at + len_bytes];
                    self.rows += formatter.chunk(&mut self.output, start_ns, bytes, max_rows - self.rows)?;
                    at += len_bytes;
                }
                Piece::Rows { count, len_bytes } => {
                    let bytes = &self.input[at..at + len_bytes];
                    let times = &self.times[time_at..time_at + count];
                    self.rows += formatter.rows(&mut self.output, times, bytes, max_rows - self.rows)?;
                    at += len_bytes;
                    time_at += count;
                }
            }
            if self.rows == max_rows {
                break;
            }
        }
        if compression != Compression::None {
            self.encoded = if self.output.is_empty() {
                Vec::new()
            } else {
                compression.encode(&self.output)?
            };
        }
        Ok(())
    }

    fn bytes(&self, compression: Compression) -> &[u8] {
        match compression {
            Compression::None => &self.output,
            Compression::Zstd { .. } | Compression::Gzip { .. } => &self.encoded,
        }
    }
}

/// Formats every row with `from <= t < to` (at most `limit`) through `formatter`, encodes it,
/// and passes the bytes to `sink` in time order. Returns the number of rows written.
/// The header is the caller's to write.
pub fn write_range<E: From<Error>>(
    db: &Database,
    from_ns: i64,
    to_ns: i64,
    formatter: &RowFormatter,
    limit: u64,
    compression: Compression,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    write_range_where(db, from_ns, to_ns, None, formatter, limit, compression, sink)
}

/// `write_range` of the rows that pass `filter` (all rows when `None`). Storage buckets whose
/// summaries rule them out are not read; the rows that pass are gathered at scan time, so the
/// formatting stays parallel.
#[allow(clippy::too_many_arguments)]
pub fn write_range_where<E: From<Error>>(
    db: &Database,
    from_ns: i64,
    to_ns: i64,
    filter: Option<&Filter>,
    formatter: &RowFormatter,
    limit: u64,
    compression: Compression,
    sink: &mut dyn FnMut(&[u8]) -> Result<(), E>,
) -> Result<u64, E> {
    let mut jobs: Vec<Job> = Vec::new();
    let mut queued = 0usize;
    let mut batch_jobs = 1usize;
    let mut filling = 0usize;
    let mut left = limit;
    let mut written = 0u64;
    if left == 0 {
        return Ok(0);
    }

    // Formats the queued jobs (in parallel when there are several) and sinks them in order.
    let mut drain = |jobs: &mut [Job], left: &mut u64, written: &mut u64| -> Result<(), E> {
        let max_rows = *left;
        if jobs.len() == 1 {
            jobs[0].run(formatter, max_rows, compression)?;
        } else {
            use rayon::prelude::*;
            jobs.par_iter_mut()
                .map(|job| job.run(formatter, max_rows, compression))
                .collect::<Result<Vec<()>>>()?;
        }
        for job in jobs.iter_mut() {
            if job.rows > *left {
                // Earlier jobs of this batch used up part of the limit: redo this one shorter.
                job.run(formatter, *left, compression)?;
            }
            sink(job.bytes(compression))?;
            *left -= job.rows;
            *written += job.rows;
            if *left == 0 {
                break;
            }
        }
        Ok(())
    };

    // `queued` jobs are complete; job `queued` (if it exists) is being filled.
    scan_where(db, from_ns, to_ns, filter, |batch| -> Result<bool, E> {
        if queued == jobs.len() {
            jobs.push(Job {
                pieces: Vec::new(),
                input: Vec::new(),
                times: Vec::new(),
                output: Vec::new(),
                encoded: Vec::new(),
                rows: 0,
            });
        }
        let job = &mut jobs[queued];
        if filling == 0 {
            job.pieces.clear();
            job.input.clear();
            job.times.clear();
        }
        let bytes = match batch {
            Batch::Slots { start_ns, bytes } => {
                job.pieces.push(Piece::Slots {
                    start_ns,
                    len_bytes: bytes.len(),
                });
                bytes
            }
            Batch::Rows { times, rows } => {
                job.pieces.push(Piece::Rows {
                    count: times.len(),
                    len_bytes: rows.len(),
                });
                job.times.extend_from_slice(times);
                rows
            }
        };
        job.input.extend_from_slice(bytes);
        filling += bytes.len();
        if filling >= JOB_INPUT_BYTES {
            filling = 0;
            queued += 1;
            if queued == batch_jobs {
                drain(&mut jobs[..queued], &mut left, &mut written)?;
                queued = 0;
                batch_jobs = (batch_jobs * 2).min(MAX_BATCH_JOBS);
            }
        }
        Ok(left > 0)
    })?;
    if filling > 0 {
        queued += 1;
    }
    if queued > 0 && left > 0 {
        drain(&mut jobs[..queued], &mut left, &mut written)?;
    }
    Ok(written)
}

/// The scan batches of `[from, to)` in time order, of the rows that pass `filter` (all rows when
/// `None`): storage buckets whose summaries rule them out are not read, and a batch with a filter
/// comes as the rows that pass. `visit` returns `Ok(false)` to stop. Every reader of rows (the
/// text formats here, the columnar ones in `io::columnar`) goes through it.
pub fn scan_where<E: From<Error>>(
    db: &Database,
    from_ns: i64,
    to_ns: i64,
    filter: Option<&Filter>,
    mut visit: impl FnMut(Batch<'_>) -> Result<bool, E>,
) -> Result<(), E> {
    let cannot_match = filter
        .filter(|f| f.prunes())
        .map(|f| move |bounds: &[u8]| f.cannot_match(bounds));
    let prune: Prune = cannot_match.as_ref().map(|f| f as &dyn Fn(&[u8]) -> bool);
    let (mut kept_times, mut kept_rows) = (Vec::new(), Vec::new());
    let row_len = db.schema().row_len();
    let granularity_ns = db.config().granularity.ns();
    let slab_len = db.config().slab_len() as usize;

    db.scan_batches_pruned(from_ns, to_ns, prune, |batch| -> Result<bool, E> {
        let batch = match filter {
            None => batch,
            Some(filter) => {
                kept_times.clear();
                kept_rows.clear();
                let mut keep = |t: i64, row: &[u8]| -> Result<()> {
                    if filter.matches(t, row)? {
                        kept_times.push(t);
                        kept_rows.extend_from_slice(row);
                    }
                    Ok(())
                };
                match batch {
                    Batch::Slots { start_ns, bytes } => {
                        for (i, slab) in bytes.chunks_exact(slab_len).enumerate() {
                            let t = start_ns + i as i64 * granularity_ns;
                            for row in slab.chunks_exact(row_len).take_while(|r| Schema::is_present(r)) {
                                keep(t, row)?;
                            }
                        }
                    }
                    Batch::Rows { times, rows } => {
                        for (&t, row) in times.iter().zip(rows.chunks_exact(row_len)) {
                            keep(t, row)?;
                        }
                    }
                }
                if kept_times.is_empty() {
                    return Ok(true);
                }
                Batch::Rows {
                    times: &kept_times,
                    rows: &kept_rows,
                }
            }
        };
        visit(batch)
    })
}
