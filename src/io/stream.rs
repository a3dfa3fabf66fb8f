//! Reading out a time range at speed: the scan's batches, gathered into jobs of about
//! `JOB_INPUT_BYTES` of rows, are formatted (and, for `.zst` or `.gz` output, compressed) on
//! the rayon pool while the scan reads on, then handed to a sink in time order. Columnar
//! records come undecoded, cut into pieces of about a job's rows each, and are decoded by the
//! job too. Small ranges (up to two jobs) are formatted on the calling thread and never use
//! the pool.

use std::collections::BTreeMap;
use std::sync::{mpsc, Arc};

use crate::db::{Batch, BatchBuf, Database, Prune, RecordScratch, Stored};
use crate::error::{Error, Result};
use crate::io::output::RowFormatter;
use crate::query::filter::Filter;

/// How formatted bytes are encoded before they reach the sink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    /// A zstd frame per formatted job; concatenated frames are one valid zstd stream.
    Zstd {
        level: i32,
    },
    /// A gzip member per formatted job; concatenated members are one valid gzip stream.
    Gzip {
        level: u32,
    },
}

impl Compression {
    /// Encodes `bytes` (the header, say) the way every job is encoded.
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

/// Formatted jobs in flight at most, per formatting thread: the scan runs ahead of the
/// formatters by this much and no further, so memory stays bounded (about 768 KiB of rows and
/// their output per thread) while the scan, the formatters and the sink all keep busy.
const IN_FLIGHT_PER_THREAD: usize = 3;

/// Input bytes gathered into one job: scans of fragmented data hand out many small chunks
/// (one per data segment), which are grouped so that each job is worth a thread's time
/// (a quarter of a MiB is thousands of rows). Not more: the jobs in flight are each new
/// memory until the first come back to be reused, and every page of it is a page fault.
#[doc(hidden)]
pub const JOB_INPUT_BYTES: usize = 1 << 18;

thread_local! {
    /// `JOB_INPUT_BYTES` unless a test set another size for this thread's writes.
    static JOB_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(JOB_INPUT_BYTES) };
}

/// Sets the input bytes per job of the range writes this thread makes (default
/// `JOB_INPUT_BYTES`), for tests: jobs of a few bytes put a small range through the pipeline,
/// its ordering and its limit.
#[doc(hidden)]
pub fn set_job_input_bytes(bytes: usize) {
    JOB_BYTES.with(|b| b.set(bytes.max(1)));
}

/// Consecutive scan batches, decoded and formatted by one thread into one output block.
#[derive(Default)]
struct Job {
    /// Scan batches packed back to back; stored records as stored.
    input: BatchBuf,
    /// Where the records of `input` are decoded.
    scratch: RecordScratch,
    output: Vec<u8>,
    encoded: Vec<u8>,
    rows: u64,
}

impl Job {
    /// Empties the job for reuse, keeping its buffers.
    fn clear(&mut self) {
        self.input.clear();
        self.rows = 0;
    }

    fn run(&mut self, formatter: &RowFormatter, max_rows: u64, compression: Compression) -> Result<()> {
        self.output.clear();
        // Room for text about twice the rows' bytes up front: growing by doubling from
        // nothing copies the text made so far at every step (pages not written are never
        // touched, and a reused job keeps its capacity).
        self.output.reserve(2 * self.input.len_bytes());
        self.rows = 0;
        let Job {
            input,
            scratch,
            output,
            rows,
            ..
        } = self;
        input.visit(scratch, |batch| -> Result<bool> {
            *rows += formatter.batch(output, batch, max_rows - *rows)?;
            Ok(*rows < max_rows)
        })?;
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
    if limit == 0 {
        return Ok(0);
    }
    let mut out = Delivery {
        formatter,
        compression,
        sink,
        left: limit,
        written: 0,
    };
    let mut job = Job::default();
    // The first full job waits here: a range of up to two jobs (this one and the partial
    // last) is formatted on this thread and hands nothing to the pool.
    let mut first: Option<Job> = None;
    let mut pipeline: Option<Pipeline> = None;
    // On a pool thread (`export --split` writes files in parallel), jobs are formatted in
    // place: waiting there for the pool could wait for this very thread.
    let on_pool = rayon::current_thread_index().is_some();
    let job_bytes = JOB_BYTES.with(|b| b.get());
    let mut limited_first = limit != u64::MAX;
    let shape = db.batch_shape();
    // Where a record that cannot be cut is decoded on this thread.
    let mut scratch = RecordScratch::default();
    // Jobs spawned in the scope are all finished when it returns, even after an error.
    rayon::in_place_scope(|scope| -> Result<u64, E> {
        // Puts a piece into the job with `fill`, and sends the job off when it is full.
        let mut take = |fill: &dyn Fn(&mut BatchBuf)| -> Result<bool, E> {
            fill(&mut job.input);
            if job.input.len_bytes() < job_bytes {
                return Ok(true);
            }
            // With a limit, the first job is sunk before anything more is read: `--limit 10`
            // or `| head` costs one job.
            if on_pool || std::mem::take(&mut limited_first) {
                job.run(formatter, out.left, compression)?;
                out.sink(&mut job)?;
                job.clear();
                return Ok(out.left > 0);
            }
            let full = std::mem::take(&mut job);
            if let Some(p) = pipeline.as_mut() {
                p.send(scope, formatter, full, &mut out)?;
                job = p.spare.pop().unwrap_or_default();
            } else if let Some(earlier) = first.take() {
                let p = pipeline.insert(Pipeline::new());
                p.send(scope, formatter, earlier, &mut out)?;
                p.send(scope, formatter, full, &mut out)?;
            } else {
                first = Some(full);
            }
            Ok(out.left > 0)
        };
        // A storage bucket's rows come as one batch or record of up to 64 MiB: cut, they make
        // several jobs, decoded and formatted side by side in buffers the jobs before them
        // used (whole, a day of one symbol was four jobs, each formatted alone into new
        // memory). A record's pieces share its bytes, each decoding a few of its pages.
        let mut visit = |piece: Stored<'_>| -> Result<bool, E> {
            match piece {
                Stored::Batch(batch) => {
                    for cut in shape.cut(batch, job_bytes) {
                        if !take(&|input| input.push(cut, job_bytes))? {
                            return Ok(false);
                        }
                    }
                }
                Stored::Record(record) => {
                    let pieces = record.place.split(record.bytes, job_bytes);
                    if let [whole] = pieces.as_slice() {
                        // A large record that cannot be cut (or a window inside one large
                        // piece) is decoded here, and its rows are cut into jobs as a batch's:
                        // one job would decode and format it all alone.
                        if whole.decoded_bytes() > job_bytes {
                            let Some(batch) = whole.decode(record.bytes, &mut scratch)? else {
                                return Ok(true);
                            };
                            for cut in shape.cut(batch, job_bytes) {
                                if !take(&|input| input.push(cut, job_bytes))? {
                                    return Ok(false);
                                }
                            }
                            return Ok(true);
                        }
                    }
                    let bytes: Arc<[u8]> = Arc::from(record.bytes);
                    for place in pieces {
                        if !take(&|input| input.push_record(place.clone(), &bytes))? {
                            return Ok(false);
                        }
                    }
                }
            }
            Ok(true)
        };
        match filter {
            Some(_) => scan_where(db, from_ns, to_ns, filter, |batch| visit(Stored::Batch(batch)))?,
            // Without a filter, records come as stored: each job decodes its own, so that
            // decoding runs on the pool beside the formatting, not ahead of it on this thread.
            None => db.scan_stored(from_ns, to_ns, &mut visit)?,
        }
        let last = (!job.input.is_empty()).then_some(job);
        match pipeline.as_mut() {
            Some(p) => {
                if let Some(last) = last.filter(|_| out.left > 0) {
                    p.send(scope, formatter, last, &mut out)?;
                }
                p.sink_all(&mut out)?;
            }
            None => {
                for mut j in first.into_iter().chain(last) {
                    if out.left == 0 {
                        break;
                    }
                    j.run(formatter, out.left, compression)?;
                    out.sink(&mut j)?;
                }
            }
        }
        Ok(out.written)
    })
}

/// Where formatted jobs go, in scan order: the sink, counting rows against the limit.
struct Delivery<'a, E> {
    formatter: &'a RowFormatter,
    compression: Compression,
    sink: &'a mut dyn FnMut(&[u8]) -> Result<(), E>,
    /// Rows the limit still allows.
    left: u64,
    written: u64,
}

impl<E: From<Error>> Delivery<'_, E> {
    /// Sinks a formatted job, formatting it again shorter if the jobs before it used up part
    /// of the limit it was formatted for.
    fn sink(&mut self, job: &mut Job) -> Result<(), E> {
        if self.left == 0 {
            return Ok(());
        }
        if job.rows > self.left {
            job.run(self.formatter, self.left, self.compression)?;
        }
        (self.sink)(job.bytes(self.compression))?;
        self.left -= job.rows;
        self.written += job.rows;
        Ok(())
    }
}

/// Jobs formatted on the rayon pool while the scan goes on, so that reading, formatting and
/// writing overlap: each job goes out with its sequence number and comes back formatted, in
/// any order, and is sunk in sequence order.
struct Pipeline {
    done_tx: mpsc::Sender<(usize, Result<Job>)>,
    done_rx: mpsc::Receiver<(usize, Result<Job>)>,
    /// Sequence number of the next job sent, and of the next to sink.
    next_sent: usize,
    next_sunk: usize,
    /// Jobs that came back before the ones ahead of them, formatted or failed: a failure is
    /// reported in its turn, so the rows before it are written whatever the timing.
    early: BTreeMap<usize, Result<Job>>,
    /// Sunk jobs, whose buffers the next jobs reuse.
    spare: Vec<Job>,
    max_in_flight: usize,
}

impl Pipeline {
    fn new() -> Self {
        let (done_tx, done_rx) = mpsc::channel();
        Pipeline {
            done_tx,
            done_rx,
            next_sent: 0,
            next_sunk: 0,
            early: BTreeMap::new(),
            spare: Vec::new(),
            max_in_flight: IN_FLIGHT_PER_THREAD * rayon::current_num_threads().max(1),
        }
    }

    /// Hands `job` to the pool, to be formatted for at most the rows the limit allows now;
    /// sinks what has come back in order, and waits while too many jobs are in flight.
    fn send<'s, E: From<Error>>(
        &mut self,
        scope: &rayon::Scope<'s>,
        formatter: &'s RowFormatter,
        mut job: Job,
        out: &mut Delivery<'_, E>,
    ) -> Result<(), E> {
        let (seq, max_rows, compression) = (self.next_sent, out.left, out.compression);
        let mut reply = Reply {
            seq,
            done: Some(self.done_tx.clone()),
        };
        scope.spawn(move |_| {
            let formatted = job.run(formatter, max_rows, compression).map(|()| job);
            reply.send(formatted);
        });
        self.next_sent += 1;
        self.sink_ready(out, false)?;
        while self.next_sent - self.next_sunk >= self.max_in_flight {
            self.sink_ready(out, true)?;
        }
        Ok(())
    }

    /// Sinks the formatted jobs that are next in order; with `wait`, waits until at least one
    /// has been sunk (if any is in flight).
    fn sink_ready<E: From<Error>>(&mut self, out: &mut Delivery<'_, E>, mut wait: bool) -> Result<(), E> {
        loop {
            while let Some(formatted) = self.early.remove(&self.next_sunk) {
                self.next_sunk += 1;
                wait = false;
                // Past the limit, nothing more is written, and a failure there does not count.
                if out.left == 0 {
                    continue;
                }
                let mut job = formatted?;
                out.sink(&mut job)?;
                job.clear();
                self.spare.push(job);
            }
            if self.next_sunk == self.next_sent {
                return Ok(());
            }
            let (seq, formatted) = if wait {
                self.done_rx
                    .recv()
                    .map_err(|_| Error::Invalid("internal: a formatting job was lost".into()))?
            } else {
                match self.done_rx.try_recv() {
                    Ok(done) => done,
                    Err(_) => return Ok(()),
                }
            };
            self.early.insert(seq, formatted);
        }
    }

    /// Sinks every job still in flight, in order.
    fn sink_all<E: From<Error>>(&mut self, out: &mut Delivery<'_, E>) -> Result<(), E> {
        while self.next_sunk < self.next_sent {
            self.sink_ready(out, true)?;
        }
        Ok(())
    }
}

/// A formatting job's answer: sent once, or, if the job panicked, an error sent as it unwinds,
/// so that the caller waiting for it stops (the scope then raises the panic).
struct Reply {
    seq: usize,
    done: Option<mpsc::Sender<(usize, Result<Job>)>>,
}

impl Reply {
    fn send(&mut self, formatted: Result<Job>) {
        if let Some(done) = self.done.take() {
            // The receiver lives until the scope has joined this job, so this cannot fail.
            let _ = done.send((self.seq, formatted));
        }
    }
}

impl Drop for Reply {
    fn drop(&mut self) {
        self.send(Err(Error::Invalid("internal: a formatting job panicked".into())));
    }
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
    let prune: Prune = cannot_match
        .as_ref()
        .map(|f| f as &(dyn Fn(&[u8]) -> bool + Sync));
    let (mut kept_times, mut kept_rows) = (Vec::new(), Vec::new());
    let shape = db.batch_shape();

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
                for (t, row) in shape.rows(batch) {
                    keep(t, row)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::config::Config;
    use crate::io::output::{Format, OutputOptions, TimeFormat};

    fn formatter() -> RowFormatter {
        let spec = "v:i64";
        let row_len = crate::db::schema::Schema::parse_spec(spec)
            .expect("spec")
            .row_len();
        let config = Config::parse(&format!(
            "format = 1\nlayout = \"grid\"\ngranularity = \"1s\"\npartition = \"year\"\ndepth = 1\n\
             time_column = \"time\"\nrow_len = {row_len}\n[[columns]]\nname = \"v\"\ntype = \"i64\"\n"
        ))
        .expect("config");
        let options = OutputOptions {
            format: Format::Csv,
            time_format: TimeFormat::Iso,
            columns: None,
            header: false,
        };
        RowFormatter::new(&config, &options).expect("formatter")
    }

    #[test]
    fn a_job_that_panics_still_answers() {
        let (done_tx, done_rx) = mpsc::channel();
        let reply = Reply {
            seq: 7,
            done: Some(done_tx),
        };
        let panicked = std::thread::spawn(move || {
            let _reply = reply;
            panic!("a formatter bug");
        })
        .join();
        assert!(panicked.is_err());
        let (seq, answer) = done_rx.recv().expect("an answer, not a hang");
        assert_eq!(seq, 7);
        assert!(answer.is_err());
    }

    #[test]
    fn a_failed_job_is_reported_in_its_turn_and_not_past_the_limit() {
        let formatter = formatter();
        let mut written = Vec::new();
        let mut sink = |bytes: &[u8]| -> Result<()> {
            written.push(bytes.len());
            Ok(())
        };
        let mut out = Delivery {
            formatter: &formatter,
            compression: Compression::None,
            sink: &mut sink,
            left: u64::MAX,
            written: 0,
        };
        // Job 1 failed and came back first; job 0 is still out: nothing is written or reported.
        let mut pipeline = Pipeline::new();
        pipeline.next_sent = 2;
        pipeline.early.insert(1, Err(Error::Invalid("bad row".into())));
        assert!(pipeline.sink_ready(&mut out, false).is_ok());
        assert_eq!(pipeline.next_sunk, 0);
        // Job 0 arrives: it is written, then job 1's failure is reported.
        pipeline.early.insert(0, Ok(Job::default()));
        let failed = pipeline.sink_ready(&mut out, false);
        assert!(matches!(failed, Err(Error::Invalid(ref m)) if m == "bad row"));
        assert_eq!(pipeline.next_sunk, 2);
        // Past the limit, a failure does not count.
        let mut pipeline = Pipeline::new();
        pipeline.next_sent = 1;
        pipeline.early.insert(0, Err(Error::Invalid("bad row".into())));
        out.left = 0;
        assert!(pipeline.sink_ready(&mut out, false).is_ok());
        assert_eq!(written, vec![0]);
    }
}
