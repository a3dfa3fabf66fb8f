//! The top of a series database: finds (and creates) the series' directories, and runs the
//! reads that span several series by merging theirs in time order (ties in series order).

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use super::series::{self, SERIES_DIR};
use super::time::{PartitionKey, END_TIME_NS, MIN_TIME_NS};
use super::{Batch, Database, Prune, Role, Scanned};
use crate::error::{Error, Result};

/// Bytes a merged read gathers per window before handing them out, about: the rows, and 16
/// bytes more a row for their times and places. Windows as wide as this allows span whole
/// buckets, so each series' record is read and decoded about once, not once per window.
pub(super) const MERGE_WINDOW_BYTES: usize = 32 << 20;
/// Rows per batch a merged read hands out.
const MERGE_BATCH_ROWS: usize = 4096;
/// Runs of series a merged read cuts its series into, per thread: enough to balance series
/// of uneven size.
const MERGE_RUNS_PER_THREAD: usize = 8;
/// Series whose open handles a read keeps; past it each series' files are closed after use,
/// so a read of 30,000 series stays within the open-file limit.
const CACHED_SERIES: usize = 256;

/// New series an import creates past which it builds each one in a hidden directory,
/// `series/.NAME.new`, with no fsync of its own, and puts them all in place at its end: one
/// `syncfs`, a rename each, one fsync of `series/`. Otherwise each new series costs four
/// fsyncs (its directory, its two files, its data), which took more than half of a
/// 30,000-host import on ext4 (docs/BENCHMARKS.md).
pub const DEFER_SYNC_AFTER_SERIES: usize = 32;

/// What an unpublished series directory's name ends with (after `.` and the series name; no
/// series name starts with `.`, so it is never taken for a series).
const UNPUBLISHED_SUFFIX: &str = ".new";

/// How a writer makes the series it creates durable (`DEFER_SYNC_AFTER_SERIES`).
#[derive(Default)]
pub(super) struct NewSeries {
    /// Set by an import (`Database::defer_new_series`) until its end.
    deferring: AtomicBool,
    /// New series the import syncs one by one before it defers.
    after: AtomicUsize,
    /// Series created since the import began.
    created: AtomicUsize,
    /// Series created in hidden directories and not yet renamed into place.
    unpublished: Mutex<HashSet<String>>,
}

impl NewSeries {
    fn unpublished(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.unpublished
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn unpublished_dir(top: &Path, name: &str) -> PathBuf {
    top.join(format!(".{name}{UNPUBLISHED_SUFFIX}"))
}

/// Removes the hidden series directories an import left when it was killed before it put
/// them in place: they are only there while its marker is. A writer's first step on open.
pub(super) fn remove_unpublished(dir: &Path) -> Result<()> {
    if !super::files::exists(&dir.join(super::marker::IMPORT_MARKER))? {
        return Ok(());
    }
    // Listed without following a link in its place (an error): the removal is not sent
    // into another directory.
    let top = dir.join(SERIES_DIR);
    for name in super::files::list_dir(&top)?.unwrap_or_default() {
        let path = top.join(&name);
        // Never followed as links: a link is not a directory an import made.
        let is_dir = fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if is_dir && name.starts_with('.') && name.ends_with(UNPUBLISHED_SUFFIX) {
            super::files::remove_dir_all(&path)?;
        }
    }
    Ok(())
}

/// What one run of series gave a merged read's window: their rows' times and rows, in series
/// order, whether it stopped at a burst (`cut`), and the earliest time with data after the
/// window among its series that had none in it (`next`).
struct RunRead {
    times: Vec<i64>,
    rows: Vec<u8>,
    cut: bool,
    next: Option<i64>,
}

impl Database {
    /// The series database `name` (a directory name from `series::name_of`): opened once and
    /// cached; with `create` (and the writer lock), made when missing. `Ok(None)` when it
    /// does not exist and `create` is false.
    pub fn series_db(&self, name: &str, create: bool) -> Result<Option<Arc<Database>>> {
        self.open_series(name, create, true)
    }

    /// `series_db`, kept in the cache only with `keep`: a walk over thousands of series drops
    /// each one (and closes its files) when done with it.
    fn open_series(&self, name: &str, create: bool, keep: bool) -> Result<Option<Arc<Database>>> {
        debug_assert!(self.is_series_root());
        let cache = self
            .series
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(db) = cache.get(name) {
            return Ok(Some(Arc::clone(db)));
        }
        // No series has a longer name (`check_name` refuses it when one is created), and the
        // file system may refuse to look it up (ENAMETOOLONG): a name past it is no series.
        if name.len() > series::MAX_NAME_BYTES {
            if create && self.writable {
                series::check_name(name).map_err(Error::Invalid)?;
            }
            return Ok(None);
        }
        // A writer keeps the cache locked while it opens, so that a series has one handle
        // (its partitions' writes go through it); readers open series side by side.
        let held = self.writable.then_some(cache);
        let top = self.dir.join(SERIES_DIR);
        if name.starts_with('.') {
            // No series name starts with `.`: this is a directory an import built aside.
            return Ok(None);
        }
        let mut sync_deferred = self.writable && self.new_series.unpublished().contains(name);
        let dir_of = |deferred: bool| {
            if deferred {
                unpublished_dir(&top, name)
            } else {
                top.join(name)
            }
        };
        let mut dir = dir_of(sync_deferred);
        let listed = super::files::list_dir(&dir)?;
        if listed.is_none() {
            if !(create && self.writable) {
                return Ok(None);
            }
            if !super::files::is_dir(&top)? {
                super::files::create_dir(&top)?;
            }
            // Made afresh, whatever this import had built aside under the name (and lost).
            self.new_series.unpublished().remove(name);
            let created = self.new_series.created.fetch_add(1, Ordering::Relaxed);
            sync_deferred = self.new_series.deferring.load(Ordering::Relaxed)
                && created >= self.new_series.after.load(Ordering::Relaxed);
            dir = dir_of(sync_deferred);
            if sync_deferred && super::files::list_dir(&dir)?.is_some() {
                // Left by an import that failed to remove it: its rows were never in place.
                super::files::remove_dir_all(&dir)?;
            }
            super::files::create_dir(&dir)?;
            if sync_deferred {
                self.new_series.unpublished().insert(name.to_string());
            }
        }
        let role = Role::Series(name.to_string());
        let mut db = Database::with_role(dir, self.config.clone(), None, self.writable, role);
        db.checking = self.checking;
        db.sync_deferred = sync_deferred;
        if let Some(names) = &listed {
            db.check_partition_names(names, false)?;
        }
        let db = Arc::new(db);
        if keep {
            let mut cache = held.unwrap_or_else(|| {
                self.series
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
            });
            // A reader that opened it meanwhile: one handle is kept, and used.
            return Ok(Some(Arc::clone(cache.entry(name.to_string()).or_insert(db))));
        }
        Ok(Some(db))
    }

    /// Every series stored, by directory name, in series order (by key value). A read-only
    /// handle lists them once.
    pub fn series_names(&self) -> Result<Vec<String>> {
        if self.writable {
            return self.list_series();
        }
        let mut listed = self
            .series_listed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if listed.is_none() {
            *listed = Some(self.list_series()?);
        }
        Ok(listed.clone().unwrap_or_default())
    }

    fn list_series(&self) -> Result<Vec<String>> {
        let top = self.dir.join(SERIES_DIR);
        let columns = self.config.series_columns();
        let mut named = Vec::new();
        for name in super::files::list_dir(&top)?.unwrap_or_default() {
            // Anything that is not a series directory this xs wrote is not a series.
            let Some(values) = series::values_of(&self.config.schema, &columns, &name) else {
                continue;
            };
            named.push((values, name));
        }
        named.sort_by(|a, b| series::compare_values(&a.0, &b.0));
        Ok(named.into_iter().map(|(_, name)| name).collect())
    }

    /// The series name of `--series` text: with several key columns, their values joined by
    /// `:`. A value that holds `:` itself splits into too many parts; then the one way of
    /// joining them back that names a stored series is taken (`f:x:y` for `f` and `x:y`), and
    /// two such ways are refused as ambiguous.
    fn name_of_text(&self, columns: &[usize], text: &str) -> Result<String> {
        let schema = &self.config.schema;
        let parts: Vec<&str> = text.split(':').collect();
        if columns.len() < 2 || parts.len() <= columns.len() {
            return series::name_from_text(schema, columns, text).map_err(Error::Invalid);
        }
        // Where each value ends: `columns.len() - 1` cuts among the `parts.len() - 1` colons.
        let mut found: Vec<String> = Vec::new();
        let mut cuts: Vec<usize> = (1..columns.len()).collect();
        let last = parts.len();
        for _ in 0..1024 {
            let mut values = Vec::with_capacity(columns.len());
            let mut from = 0;
            for &cut in cuts.iter().chain(std::iter::once(&last)) {
                values.push(parts[from..cut].join(":"));
                from = cut;
            }
            let refs: Vec<&str> = values.iter().map(String::as_str).collect();
            if let Ok(name) = series::name_from_parts(schema, columns, &refs) {
                if self.series_db(&name, false)?.is_some() && !found.contains(&name) {
                    found.push(name);
                }
            }
            // The next set of cuts, in order; none left ends the walk.
            let Some(i) = (0..cuts.len()).rev().find(|&i| cuts[i] < last - (cuts.len() - i)) else {
                break;
            };
            cuts[i] += 1;
            for j in i + 1..cuts.len() {
                cuts[j] = cuts[j - 1] + 1;
            }
        }
        match found.as_slice() {
            [one] => Ok(one.clone()),
            [] => series::name_from_text(schema, columns, text).map_err(Error::Invalid),
            _ => Err(Error::Invalid(format!(
                "--series `{text}`: its `:` split it into values of {} stored series; name one \
                 with --series in a database whose values hold no `:`, or read them all",
                found.len()
            ))),
        }
    }

    /// Restricts reads to the series whose key values are `texts` (as `--series` takes them);
    /// returns the ones that are not stored.
    pub fn select_series(&mut self, texts: &[String]) -> Result<Vec<String>> {
        if !self.is_series_root() {
            return Err(Error::Invalid(format!(
                "--series: {} has no series key; it is one series (create a database with \
                 --series-by COLS to store several)",
                self.dir.display()
            )));
        }
        let columns = self.config.series_columns();
        let mut names = Vec::new();
        let mut missing = Vec::new();
        for text in texts {
            let name = self.name_of_text(&columns, text)?;
            if names.contains(&name) {
                continue;
            }
            if self.series_db(&name, false)?.is_none() {
                missing.push(text.clone());
            }
            names.push(name);
        }
        self.selected = Some(self.in_series_order(names));
        Ok(missing)
    }

    /// `names` in series order (by key value): reads go in that order whatever order the
    /// series were asked in.
    fn in_series_order(&self, names: Vec<String>) -> Vec<String> {
        let columns = self.config.series_columns();
        let mut keyed: Vec<(Vec<super::schema::Value>, String)> = names
            .into_iter()
            .map(|n| {
                (
                    series::values_of(&self.config.schema, &columns, &n).unwrap_or_default(),
                    n,
                )
            })
            .collect();
        keyed.sort_by(|a, b| series::compare_values(&a.0, &b.0));
        keyed.into_iter().map(|(_, n)| n).collect()
    }

    /// Restricts reads to the series named `names` (their directory names, as `xs stat`
    /// prints them); a name that is no stored series is an error that says so.
    pub fn select_series_names(&mut self, names: &[String]) -> Result<()> {
        let mut chosen: Vec<String> = Vec::new();
        for name in names {
            if self.series_db(name, false)?.is_none() {
                return Err(Error::Invalid(format!(
                    "{} holds no series `{name}`; `xs stat` lists the series' partitions as SERIES/PARTITION",
                    self.dir.display()
                )));
            }
            if !chosen.contains(name) {
                chosen.push(name.clone());
            }
        }
        self.selected = Some(self.in_series_order(chosen));
        Ok(())
    }

    /// The series reads cover, in series order: the selected ones that exist, else all. Past
    /// `CACHED_SERIES` of them the handles are not cached: a caller that walks them one by
    /// one and drops each closes its files as it goes.
    pub fn selected_series(&self) -> Result<Vec<(String, Arc<Database>)>> {
        let names = match &self.selected {
            Some(names) => names.clone(),
            None => self.series_names()?,
        };
        let keep = names.len() <= CACHED_SERIES;
        let open = |name: String| Ok(self.open_series(&name, false, keep)?.map(|db| (name, db)));
        // Each series' directory is listed and checked as it opens: on every core for a
        // reader (30,000 series are 120,000 system calls). The first failure in series
        // order is the one reported, as when they opened one by one.
        let opened: Vec<Result<_>> = if self.writable {
            names.into_iter().map(open).collect()
        } else {
            names.into_par_iter().map(open).collect()
        };
        let opened = opened.into_iter().collect::<Result<Vec<_>>>()?;
        Ok(opened.into_iter().flatten().collect())
    }

    /// The partitions of every selected series, in time order, each once.
    pub(super) fn series_partition_keys(&self) -> Result<Vec<PartitionKey>> {
        let mut keys = Vec::new();
        for (_, db) in self.selected_series()? {
            keys.extend(db.partition_keys()?);
        }
        keys.sort();
        keys.dedup();
        Ok(keys)
    }

    /// The earliest time at or after `t_ns` with data in any selected series.
    pub(super) fn series_next_data_time(&self, t_ns: i64) -> Result<Option<i64>> {
        let mut first: Option<i64> = None;
        let kids = self.selected_series()?;
        let many = kids.len() > CACHED_SERIES;
        for (_, db) in kids {
            let keys = db.partition_keys()?;
            let next = db.next_data_time(&keys, t_ns)?;
            if many {
                db.forget_partitions();
            }
            if let Some(t) = next {
                first = Some(first.map_or(t, |f| f.min(t)));
                if t == t_ns {
                    break;
                }
            }
        }
        Ok(first)
    }

    /// The rows at `t_ns` of every selected series, in series order.
    pub(super) fn series_get_into(&self, t_ns: i64, slab: &mut Vec<u8>) -> Result<usize> {
        let row_len = self.config.schema.row_len();
        let mut rows = 0;
        let mut one = Vec::new();
        let mut out = Vec::new();
        let kids = self.selected_series()?;
        let many = kids.len() > CACHED_SERIES;
        for (_, db) in kids {
            let n = db.get_into(t_ns, &mut one)?;
            if many {
                db.forget_partitions();
            }
            out.extend_from_slice(&one[..n * row_len]);
            rows += n;
        }
        *slab = out;
        Ok(rows)
    }

    /// Sets the bytes a read over several series gathers per window (about; default 32 MiB),
    /// for tuning and for tests: small windows exercise the narrowing of an overfull one.
    pub fn set_merge_window_bytes(&self, bytes: usize) {
        self.merge_window_bytes.store(bytes.max(1), Ordering::Relaxed);
    }

    /// The scan of several series: windows of time are read from each series and merged in
    /// time order, ties in series order (a series' rows at one time keep their stored order).
    /// A window is sized to hold about `MERGE_WINDOW_BYTES`, so memory stays bounded
    /// whatever the number of series.
    pub(super) fn series_scan_batches<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        prune: Prune<'_>,
        mut visit: impl FnMut(Batch<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        let kids = self.selected_series()?;
        match kids.as_slice() {
            [] => return Ok(()),
            [(_, one)] => return one.scan_batches_local(from_ns, to_ns, prune, visit),
            _ => {}
        }
        let from_ns = from_ns.max(MIN_TIME_NS);
        let to_ns = to_ns.min(END_TIME_NS);
        let g = self.config.granularity.ns();
        let keys: Vec<Vec<PartitionKey>> = kids
            .iter()
            .map(|(_, db)| db.partition_keys())
            .collect::<Result<_>>()?;
        let row_len = self.config.schema.row_len();
        let window_bytes = self.merge_window_bytes.load(Ordering::Relaxed);
        // At least a few rows: the window is steered by its count of rows.
        let target = (window_bytes / (row_len + 16)).max(16);
        // A first guess (a row per granularity step and series), set right by what the first
        // window holds.
        let mut window = g.saturating_mul((target / kids.len()).max(1) as i64);
        let bucket = self.config.bucket_ns;
        let mut at = from_ns;
        // A window's rows: (time, part, row in part), where the parts are the rows runs of
        // series read, in series order.
        let mut found: Vec<(i64, u32, u32)> = Vec::new();
        let mut parts: Vec<Vec<u8>> = Vec::new();
        let many = kids.len() > CACHED_SERIES;
        let (mut times_out, mut rows_out) = (Vec::new(), Vec::new());
        let mut started = false;
        while at < to_ns {
            let mut end = at.saturating_add(window);
            if bucket > 0 && window >= bucket {
                // At a bucket's edge: a record cut by a window is decoded once more.
                let aligned = end - end.rem_euclid(bucket);
                if aligned > at {
                    end = aligned;
                }
            }
            let end = end.min(to_ns);
            found.clear();
            parts.clear();
            // The series are read in parallel, in runs of consecutive series, each run in
            // turn into one buffer: a buffer per series, kept among the records each read
            // decodes and frees, left the allocator's arenas fragmented (380 MB for 30,000
            // hosts, against 116 MB).
            let threads = rayon::current_num_threads().max(1);
            let run_len = kids.len().div_ceil(threads * MERGE_RUNS_PER_THREAD).max(1);
            let narrowable = end - at > g;
            let seen = AtomicUsize::new(0);
            // The columns this thread's scans rebuild, for the threads that read the runs.
            let columns = super::columns_read();
            let read: Vec<Result<RunRead>> = kids
                .par_chunks(run_len)
                .zip(keys.par_chunks(run_len))
                .map(|(run, run_keys)| {
                    super::with_columns(columns.clone(), || {
                        let (mut times, mut rows) = (Vec::new(), Vec::new());
                        let mut next: Option<i64> = None;
                        for ((_, db), keys) in run.iter().zip(run_keys) {
                            if narrowable && seen.load(Ordering::Relaxed) > 4 * target {
                                // Far more rows than the last window's rate foretold (a burst
                                // after a quiet stretch): the window is read again, narrower, so
                                // memory stays bounded.
                                return Ok(RunRead {
                                    times,
                                    rows,
                                    cut: true,
                                    next: None,
                                });
                            }
                            let before = times.len();
                            let mut keep = |t, row: &[u8]| -> Result<bool> {
                                times.push(t);
                                rows.extend_from_slice(row);
                                Ok(true)
                            };
                            // The local scan, not `scan_pruned`: a generic call back into the
                            // series path would never end monomorphizing.
                            let scanned =
                                db.scan_batches_local(at, end, prune, |batch| db.each_row(batch, &mut keep));
                            // A series with nothing in the window says where its data
                            // resumes, while its files are open: a window where no series
                            // has any jumps there (the start of `range ..` is one).
                            let resumes = match scanned {
                                Ok(()) if times.len() == before => {
                                    // Partitions past the read's end are never opened.
                                    let within = keys.partition_point(|k| k.start_ns() < to_ns);
                                    db.next_data_time(&keys[..within], end)
                                }
                                Ok(()) => Ok(None),
                                Err(e) => Err(e),
                            };
                            if many {
                                db.forget_partitions();
                            }
                            if let Some(t) = resumes? {
                                next = Some(next.map_or(t, |n| n.min(t)));
                            }
                            seen.fetch_add(times.len() - before, Ordering::Relaxed);
                        }
                        Ok(RunRead {
                            times,
                            rows,
                            cut: false,
                            next,
                        })
                    })
                })
                .collect();
            // The first failure in series order, as a read of one series after another.
            let read = read.into_iter().collect::<Result<Vec<_>>>()?;
            let overfull = read.iter().any(|r| r.cut);
            let resumes_at = read.iter().filter_map(|r| r.next).min();
            if !overfull {
                // A run's rows are its series' in series order, each in stored order: sorted
                // stably by (time, run), ties keep series order.
                for RunRead { times, rows, .. } in read {
                    if times.is_empty() {
                        continue;
                    }
                    let part = parts.len() as u32;
                    found.extend(times.iter().enumerate().map(|(i, &t)| (t, part, i as u32)));
                    parts.push(rows);
                }
            }
            if overfull {
                window = ((end - at) / 8).max(g);
                continue;
            }
            // Aim the next window at the target number of rows, by the rate this one saw (an
            // empty one widens it: a stretch where data is sparse is crossed in few windows).
            // Not by a first window before any data (`range ..`): it saw no rate.
            let rated = started || !found.is_empty();
            started = true;
            if rated && (found.len() > 2 * target || found.len() < target / 4) {
                let scale = target as f64 / found.len().max(1) as f64;
                let next = (window as f64 * scale.clamp(1.0 / 64.0, 64.0)) as i64;
                window = (next - next % g).max(g);
            }
            if found.is_empty() {
                // No series has data in the window: on to where the first one's resumes.
                match resumes_at {
                    Some(t) if t < to_ns => {
                        at = t.max(end);
                        continue;
                    }
                    _ => return Ok(()),
                }
            }
            // Stable: a series' rows at one time keep their order.
            found.sort_by_key(|&(t, k, _)| (t, k));
            for piece in found.chunks(MERGE_BATCH_ROWS) {
                times_out.clear();
                rows_out.clear();
                for &(t, part, r) in piece {
                    times_out.push(t);
                    let r = r as usize * row_len;
                    rows_out.extend_from_slice(&parts[part as usize][r..r + row_len]);
                }
                if !visit(Batch::Rows {
                    times: &times_out,
                    rows: &rows_out,
                })? {
                    return Ok(());
                }
            }
            at = end;
        }
        Ok(())
    }

    /// `scan_summarized` over several series: one series' own; several merged as rows.
    pub(super) fn series_scan_summarized<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        same_bucket: &dyn Fn(i64, i64) -> bool,
        prune: Prune<'_>,
        mut visit: impl FnMut(Scanned<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        let kids = self.selected_series()?;
        if let [(_, one)] = kids.as_slice() {
            return one.scan_summarized_local(from_ns, to_ns, same_bucket, prune, visit);
        }
        self.series_scan_batches(from_ns, to_ns, prune, |batch| visit(Scanned::Batch(batch)))
    }

    /// Deletes `[from, to)` from every selected series; the caller holds the delete marker.
    pub(super) fn series_delete(&self, from_ns: i64, to_ns: i64) -> Result<u64> {
        let mut deleted = 0;
        for (_, db) in self.selected_series()? {
            deleted += db.delete_unmarked(from_ns, to_ns)?;
        }
        Ok(deleted)
    }

    /// Makes the writes to every series opened so far durable.
    pub(super) fn series_sync(&self) -> Result<()> {
        let open: Vec<Arc<Database>> = {
            let cache = self
                .series
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            cache.values().cloned().collect()
        };
        for db in &open {
            db.sync()?;
        }
        let top = self.dir.join(SERIES_DIR);
        if !open.is_empty() && super::files::is_dir(&top)? {
            super::config::sync_dir(&top)?;
        }
        super::config::sync_dir(&self.dir)
    }

    /// From now on, the series this writer creates past the first `after`
    /// (`DEFER_SYNC_AFTER_SERIES` but in tests) are built in hidden directories, without
    /// fsyncs, until `publish_new_series` (or `discard_new_series`) ends the import.
    pub fn defer_new_series(&self, after: usize) {
        self.new_series.after.store(after, Ordering::Relaxed);
        self.new_series.created.store(0, Ordering::Relaxed);
        self.new_series.deferring.store(true, Ordering::Relaxed);
    }

    /// Puts the series built in hidden directories in place: the file system made durable
    /// first (even under `--no-sync`: a series never appears without its files' headers;
    /// skipped when the caller has just done it, `fs_synced`), so that each appears whole or
    /// not at all, then a rename each, then `series/` fsynced (with `sync`). Returns how many
    /// there were. On an error, those not yet in place are left for `discard_new_series`.
    pub fn publish_new_series(&self, sync: bool, fs_synced: bool) -> Result<usize> {
        self.new_series.deferring.store(false, Ordering::Relaxed);
        let names: Vec<String> = self.new_series.unpublished().iter().cloned().collect();
        if names.is_empty() {
            return Ok(0);
        }
        // Their handles name the hidden directories and skip their syncs: none is used again.
        self.forget_named(&names);
        let top = self.dir.join(SERIES_DIR);
        if !fs_synced {
            super::files::sync_file_system(&self.dir)?;
        }
        for name in &names {
            let from = unpublished_dir(&top, name);
            let to = top.join(name);
            super::vfs::rename(&from, &to).map_err(|e| Error::io("rename", &from, e))?;
            self.new_series.unpublished().remove(name);
        }
        if sync {
            super::config::sync_dir(&top)?;
        }
        Ok(names.len())
    }

    /// Removes the series built in hidden directories of an import that failed: none of
    /// them was in place, and its re-run builds them again.
    pub fn discard_new_series(&self) -> Result<()> {
        self.new_series.deferring.store(false, Ordering::Relaxed);
        let names: Vec<String> = self.new_series.unpublished().drain().collect();
        self.forget_named(&names);
        let top = self.dir.join(SERIES_DIR);
        // Each one tried; the first failure is reported (the next writer removes the rest).
        let mut first = Ok(());
        for name in &names {
            let removed = super::files::remove_dir_all(&unpublished_dir(&top, name));
            if first.is_ok() {
                first = removed;
            }
        }
        first
    }

    /// Drops the cached handles of `names` (they name directories that move or go).
    fn forget_named(&self, names: &[String]) {
        let mut cache = self
            .series
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for name in names {
            cache.remove(name);
        }
    }

    /// Closes the files of the series opened so far (an import touching more series than
    /// it may hold open files for); they are opened again on next use.
    pub fn forget_series(&self) {
        self.series
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clear();
    }
}
