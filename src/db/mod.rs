//! The database: a directory with `xs.toml`, a writer lock, and one sparse file per partition.
//! Every row's place is computed from its timestamp: no index, O(1) reads and writes.

pub mod alter;
pub mod asof;
mod batch;
pub mod bucket;
pub mod codec;
pub mod config;
pub mod decimal;
pub mod defrag;
pub mod files;
pub mod lock;
pub mod marker;
pub mod partition;
pub mod schema;
pub mod series;
mod series_root;
pub mod stat;
pub mod summary;
pub mod syms;
pub mod time;
pub mod undo;
pub mod unique;
pub mod vfs;
pub(crate) mod write;

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
pub use batch::{Batch, BatchBuf, BatchRows, BatchRuns, BatchShape, FlatRows, RowRun, RunTimes};
use bucket::{BucketPartition, Rows};
use config::{sync_dir, Config, Layout, CONFIG_FILE};
use files::exists;
use lock::{LockWait, WriteLock};
use partition::Partition;
use schema::Schema;
pub use series_root::DEFER_SYNC_AFTER_SERIES;
use time::{in_storable_range, PartitionKey, Period, END_TIME_NS, MIN_TIME_NS};

/// What `Database::create_or_open` did.
pub enum Creation {
    /// The database was created with the given config.
    Created(Database),
    /// It existed, or another process created it meanwhile: opened with its own config.
    Opened(Database),
}

/// What a creation killed before `xs.toml` was in place can leave in the directory.
const CREATION_LEFTOVERS: [&str; 2] = [lock::LOCK_FILE, config::CONFIG_TEMP_FILE];

/// How a database is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// No lock; missing partitions read as empty.
    Read,
    /// Holds the writer lock; partitions are created on first write.
    Write(LockWait),
}

/// Where a put goes among the rows already at its timestamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PutMode {
    /// The row becomes the only row at its timestamp.
    Replace,
    /// The row is added after the rows already there (depth > 1).
    Append,
}

/// The location of a timestamp: its partition and slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub key: PartitionKey,
    pub index: u64,
}

pub struct Database {
    dir: PathBuf,
    /// Shared with the series handles: 30,000 series need not hold 30,000 copies.
    config: Arc<Config>,
    writable: bool,
    _lock: Option<WriteLock>,
    /// What this handle stores: a plain database, the top of a series database, or one series.
    role: Role,
    /// Each partition file is opened once per process and shared.
    partitions: Mutex<HashMap<PartitionKey, Arc<Partition>>>,
    /// Bucket-layout partitions, likewise opened once and shared.
    buckets: Mutex<HashMap<PartitionKey, Arc<BucketPartition>>>,
    /// Series root: the series opened so far, by directory name.
    series: Mutex<HashMap<String, Arc<Database>>>,
    /// Series root: the series reads cover (`None`: all of them).
    selected: Option<Vec<String>>,
    /// Read-only handles: the partitions listed once (a read walks them many times).
    listed: Mutex<Option<Vec<PartitionKey>>>,
    /// Read-only series root: the series listed once (an aggregate asks for them per slice).
    series_listed: Mutex<Option<Vec<String>>>,
    /// Opened for `xs check`: a partition missing one of its files is left for the check to
    /// list with the others (its series too), not refused at open.
    checking: bool,
    /// Series root: the bytes a read over several series gathers per window, about.
    merge_window_bytes: std::sync::atomic::AtomicUsize,
    /// Series root: how the series this handle creates are made durable.
    new_series: series_root::NewSeries,
    /// One series, made by an import in a directory not yet in place: nothing is fsynced
    /// (`series_root::NewSeries`).
    sync_deferred: bool,
}

/// What a `Database` handle stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// No series key: the partitions are in the database directory.
    Plain,
    /// A series key: each series is a `Series` in `series/NAME/`; reads merge the selected
    /// series in time order (ties in series order), writes go to each row's series.
    SeriesRoot,
    /// One series of a series database (its directory name).
    Series(String),
}

/// The summary of a storage bucket's rows, handed out by `Database::scan_summarized` in place
/// of the rows themselves.
#[derive(Clone, Copy, Debug)]
pub struct BucketSummary<'a> {
    /// The storage bucket `[start, end)`: it lies wholly inside the scan window.
    pub start_ns: i64,
    pub end_ns: i64,
    pub rows: u64,
    /// 16 bytes per summarized column (`summary::SummaryLayout`), verified by the entry's
    /// check; decode with `summary::decode_bounds`.
    pub bounds: &'a [u8],
}

/// Says, from a storage bucket's verified summary (`BucketSummary::bounds`), that none of its
/// rows is wanted: a scan then passes over the bucket without reading it. Only bucket-layout
/// partitions with summaries (version 2) are pruned; everything else is read.
pub type Prune<'a> = Option<&'a (dyn Fn(&[u8]) -> bool + Sync)>;

/// A piece of a summarized or columnar scan, in time order.
#[derive(Clone, Copy, Debug)]
pub enum Scanned<'a> {
    Batch(Batch<'a>),
    Summary(BucketSummary<'a>),
    /// Only from `Database::scan_columns`.
    Columns(Columns<'a>),
}

/// The rows of one columnar storage record inside a scan window, left as the columns they
/// decode to (`Database::scan_columns`): readers that want columns (Arrow output) take them as
/// they are, where rows would be built only to be taken apart again.
#[derive(Clone, Copy, Debug)]
pub struct Columns<'a> {
    /// The rows' times, in order.
    pub times: &'a [i64],
    layout: &'a codec::RecordLayout,
    /// The record's decoded parts, all its rows (`codec::decode_columns`).
    parts: &'a [codec::PartValues],
    /// The record's row of `times[0]`.
    first: usize,
}

impl<'a> Columns<'a> {
    /// Rows `first..first + times.len()` of a record's decoded `parts`.
    pub(crate) fn new(
        times: &'a [i64],
        layout: &'a codec::RecordLayout,
        parts: &'a [codec::PartValues],
        first: usize,
    ) -> Self {
        Columns {
            times,
            layout,
            parts,
            first,
        }
    }

    /// The rows' headers (`Schema::header_len` bytes each: present and null bits), which
    /// `FieldAt::is_null` reads as it reads a row.
    pub fn headers(&self) -> &'a [u8] {
        self.part(0)
    }

    /// Bytes of a row's header.
    pub fn header_len(&self) -> usize {
        self.layout.parts[0].width
    }

    /// Value column `col`'s values (`FieldAt::width` bytes each, little-endian, as in a row);
    /// empty when the scan did not decode the column (`with_columns`).
    pub fn values(&self, col: usize) -> &'a [u8] {
        self.part(col + 1)
    }

    /// Rows `at..at + n` of these (the caller keeps them inside `times`).
    pub fn slice(&self, at: usize, n: usize) -> Columns<'a> {
        Columns {
            times: &self.times[at..at + n],
            first: self.first + at,
            ..*self
        }
    }

    fn part(&self, i: usize) -> &'a [u8] {
        let width = self.layout.parts.get(i).map_or(0, |p| p.width);
        let (from, to) = (self.first * width, (self.first + self.times.len()) * width);
        self.parts.get(i).and_then(|p| p.get(from..to)).unwrap_or(&[])
    }

    /// The rows, row-major as `Batch::Rows` holds them, built in `out` (cleared first); a
    /// column the scan did not decode reads as zero.
    pub fn rows_into(&self, out: &mut Vec<u8>) {
        let row_len = self.layout.row_len;
        out.clear();
        out.resize(self.times.len() * row_len, 0);
        for (i, part) in self.layout.parts.iter().enumerate() {
            codec::scatter(self.part(i), out, row_len, part.offset, part.width);
        }
    }
}

impl Database {
    /// Creates a database directory with `config`. Refuses to touch anything that exists,
    /// except an empty directory or what a creation killed before writing `xs.toml` leaves
    /// (`.lock`, `.xs.toml.tmp`): creating again completes it.
    pub fn create(dir: &Path, config: &Config) -> Result<Database> {
        Database::check_creatable(dir, config)?;
        if Database::prepare_dir(dir)? {
            return Err(Error::AlreadyExists {
                path: dir.to_path_buf(),
            });
        }
        let lock = WriteLock::acquire(dir, LockWait::No, &mut |_| {})?;
        if exists(&dir.join(CONFIG_FILE))? {
            return Err(Error::AlreadyExists {
                path: dir.to_path_buf(),
            });
        }
        config.save(dir)?;
        Database::new(dir, config.clone(), Some(lock))
    }

    /// Import's way in: creates the database with `config` as `create` does, unless it exists
    /// or another process creates it meanwhile; then opens it for writing with its own config.
    /// The writer lock is taken with `wait`, so a second `--wait` creator waits for the first
    /// and then writes into what it created.
    pub fn create_or_open(
        dir: &Path,
        config: &Config,
        wait: LockWait,
        on_wait: &mut dyn FnMut(Option<&str>),
    ) -> Result<Creation> {
        if !exists(&dir.join(CONFIG_FILE))? {
            Database::check_creatable(dir, config)?;
        }
        let has_config = Database::prepare_dir(dir)?;
        let lock = WriteLock::acquire(dir, wait, on_wait)?;
        if !has_config && !exists(&dir.join(CONFIG_FILE))? {
            config.save(dir)?;
            return Ok(Creation::Created(Database::new(dir, config.clone(), Some(lock))?));
        }
        let config = Config::load(dir)?;
        Database::checked(dir, config, Some(lock)).map(Creation::Opened)
    }

    fn check_creatable(dir: &Path, config: &Config) -> Result<()> {
        config
            .check_memory_bounds()
            .map_err(|reason| Error::Invalid(format!("cannot create {}: {reason}", dir.display())))
    }

    /// Makes `dir` if it is missing. `Ok(true)` when it holds `xs.toml`; `Ok(false)` when it
    /// is empty but for what a killed creation leaves; else `AlreadyExists`.
    fn prepare_dir(dir: &Path) -> Result<bool> {
        match fs::read_dir(dir) {
            Ok(entries) => {
                let mut foreign = false;
                for entry in entries {
                    let entry = entry.map_err(|e| Error::io("read directory", dir, e))?;
                    let name = entry.file_name();
                    if name == CONFIG_FILE {
                        return Ok(true);
                    }
                    foreign |= !CREATION_LEFTOVERS.iter().any(|left| name == *left);
                }
                if foreign {
                    return Err(Error::AlreadyExists {
                        path: dir.to_path_buf(),
                    });
                }
                Ok(false)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // Another creator may make it first: that is fine.
                vfs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
                if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                    sync_dir(parent)?;
                }
                Ok(false)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Err(Error::AlreadyExists {
                path: dir.to_path_buf(),
            }),
            Err(e) => Err(Error::io("read directory", dir, e)),
        }
    }

    /// Opens an existing database. `on_wait` is told the holder when a writer has to wait.
    pub fn open(dir: &Path, access: Access, on_wait: &mut dyn FnMut(Option<&str>)) -> Result<Database> {
        let mut config = Config::load(dir)?;
        let lock = match access {
            Access::Read => None,
            Access::Write(wait) => {
                let lock = WriteLock::acquire(dir, wait, on_wait)?;
                // Read again under the lock: the writer this one waited for may have been an
                // `alter`, and rows written with the schema before it would not be this
                // database's any more.
                config = Config::load(dir)?;
                Some(lock)
            }
        };
        Database::checked(dir, config, lock)
    }

    fn checked(dir: &Path, config: Config, lock: Option<WriteLock>) -> Result<Database> {
        if lock.is_some() {
            // What a killed import built aside goes first (an alter would rewrite it too);
            // then an alter cut by a kill: its new files are put in place (or removed).
            if config.has_series() {
                series_root::remove_unpublished(dir)?;
            }
            alter::finish_interrupted(dir, &config)?;
        }
        let db = Database::new(dir, config, lock)?;
        db.check_partition_files(true)?;
        Ok(db)
    }

    /// Opens a database for `xs check`, read-only: like `open`, but a damaged or foreign
    /// header of the first partition is left for the check to report with the others.
    pub fn open_to_check(dir: &Path) -> Result<Database> {
        let mut db = Database::new(dir, Config::load(dir)?, None)?;
        db.checking = true;
        db.check_partition_files(false)?;
        Ok(db)
    }

    /// Refuses a directory whose files contradict the config, so that an edited config or a
    /// lost file is an error instead of an empty answer: a partition file named for another
    /// period (the config's `partition` was edited), a data file in a grid database, a bucket
    /// partition missing one of its two files, or a first partition whose header does not
    /// match the config (a config edit changes every partition alike, so one is checked:
    /// one `pread`). A database with no partition files yet is fine.
    fn check_partition_files(&self, first_header: bool) -> Result<()> {
        let entries = fs::read_dir(&self.dir).map_err(|e| Error::io("read directory", &self.dir, e))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("read directory", &self.dir, e))?;
            if let Some(name) = entry.file_name().to_str() {
                names.push(name.to_owned());
            }
        }
        self.check_partition_names(&names, first_header)
    }

    /// `check_partition_files` of the directory's file `names` (UTF-8 ones; no other is a
    /// partition's), listed by the caller.
    fn check_partition_names(&self, names: &[String], first_header: bool) -> Result<()> {
        let period = self.config.period;
        let (mut dirs, mut datas) = (Vec::new(), Vec::new());
        for name in names {
            let path = || self.dir.join(name);
            let (base, is_data) = match name.strip_suffix(bucket::DATA_SUFFIX) {
                Some(base) => (base, true),
                None => (name.as_str(), false),
            };
            if let Some(key) = PartitionKey::parse_file_name(period, base) {
                if self.role == Role::SeriesRoot {
                    return Err(self.edited_config(
                        &path(),
                        format!(
                            "is a partition file at the top of a series database (series_by = {:?}), \
                             whose partitions live in {}/NAME/; restore the config this file was \
                             written with, or move the file out",
                            self.config.keys.series,
                            series::SERIES_DIR
                        ),
                    ));
                }
                if is_data && self.config.layout == Layout::Grid {
                    return Err(self.edited_config(
                        &path(),
                        "is the data file of a bucket-layout partition, but xs.toml says layout = \"grid\"; \
                         restore layout = \"bucket\" and its `bucket` width"
                            .into(),
                    ));
                }
                if is_data { &mut datas } else { &mut dirs }.push(key);
                continue;
            }
            let other = [Period::Year, Period::Month, Period::Day]
                .into_iter()
                .find(|&p| p != period && PartitionKey::parse_file_name(p, base).is_some());
            if let Some(other) = other {
                return Err(self.edited_config(
                    &path(),
                    format!(
                        "is the file of a {other} partition, but xs.toml says partition = \"{period}\"; \
                         restore partition = \"{other}\" (a database's period cannot change: to \
                         repartition, export and import into a new database)"
                    ),
                ));
            }
        }
        dirs.sort();
        datas.sort();
        if self.config.layout == Layout::Bucket && !self.checking {
            for key in &dirs {
                if datas.binary_search(key).is_err() {
                    return Err(bucket::missing_data_file(&self.dir, *key));
                }
            }
            for key in &datas {
                if dirs.binary_search(key).is_ok() {
                    continue;
                }
                let orphan = self.dir.join(bucket::data_file_name(*key));
                // The data file is created first: a crash before the directory followed leaves
                // a data file of only its header, which the next writer replaces.
                let len_bytes = fs::symlink_metadata(&orphan)
                    .map_err(|e| Error::io("look up", &orphan, e))?
                    .len();
                if len_bytes > partition::HEADER_LEN {
                    return Err(Error::MissingFile {
                        path: self.dir.join(key.file_name()),
                        reason: format!(
                            "the directory file of partition {key}, whose data file {} holds {len_bytes} \
                             bytes, is missing or unreadable; restore it from a backup",
                            orphan.display()
                        ),
                    });
                }
            }
        }
        if !self.writable && self.role != Role::SeriesRoot {
            // The partitions just listed, as `partition_keys` would list them: a read-only
            // handle lists its directory once (a read over 30,000 series, once per series).
            *self
                .listed
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(dirs.clone());
        }
        if let Some(&first) = dirs.first().filter(|_| first_header) {
            // Opened to check its header, then closed: not cached, so that listing thousands
            // of series does not hold a file of each open.
            match self.config.layout {
                Layout::Grid => drop(Partition::open(&self.dir, &self.config, first, self.writable)?),
                Layout::Bucket => drop(BucketPartition::open(
                    &self.dir,
                    &self.config,
                    first,
                    self.writable,
                )?),
            }
        }
        Ok(())
    }

    /// The error for a partition file at `path` that contradicts the config.
    fn edited_config(&self, path: &Path, what: String) -> Error {
        Error::BadConfig {
            path: self.dir.join(CONFIG_FILE),
            reason: format!("{} {what}", path.display()),
        }
    }

    /// A handle on the top of a database; with a `sym` column, its dictionary is loaded here
    /// and shared by every series handle through the schema.
    fn new(dir: &Path, mut config: Config, lock: Option<WriteLock>) -> Result<Database> {
        let role = if config.has_series() {
            // `series/` is where every read and write of the rows goes: a link there would
            // send them into another directory (refused before anything is read through it).
            files::is_dir(&dir.join(series::SERIES_DIR))?;
            Role::SeriesRoot
        } else {
            Role::Plain
        };
        let writable = lock.is_some();
        if config.schema.has_sym() {
            let dict = syms::SymDict::load(dir, writable)?;
            config.schema.attach_syms(std::sync::Arc::new(dict));
        }
        Ok(Database::with_role(
            dir.to_path_buf(),
            Arc::new(config),
            lock,
            writable,
            role,
        ))
    }

    /// Commits the `sym` values given codes so far (`syms::SymDict::persist`): called before
    /// any write of rows that may use them.
    pub fn persist_syms(&self) -> Result<()> {
        match self.config.schema.syms() {
            Some(dict) => dict.persist(),
            None => Ok(()),
        }
    }

    /// A handle of `role` on `dir`; a series' handle holds no lock (its database's does).
    fn with_role(
        dir: PathBuf,
        config: Arc<Config>,
        lock: Option<WriteLock>,
        writable: bool,
        role: Role,
    ) -> Database {
        Database {
            dir,
            config,
            writable,
            _lock: lock,
            role,
            partitions: Mutex::new(HashMap::new()),
            buckets: Mutex::new(HashMap::new()),
            series: Mutex::new(HashMap::new()),
            selected: None,
            listed: Mutex::new(None),
            series_listed: Mutex::new(None),
            checking: false,
            merge_window_bytes: series_root::MERGE_WINDOW_BYTES.into(),
            new_series: series_root::NewSeries::default(),
            sync_deferred: false,
        }
    }

    /// What this handle stores.
    pub fn role(&self) -> &Role {
        &self.role
    }

    /// Whether this is the top of a series database (reads and writes go to its series).
    pub fn is_series_root(&self) -> bool {
        self.role == Role::SeriesRoot
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Refuses a codec this database's layout cannot store (what `set_codec` would refuse).
    pub fn check_codec(&self, codec: config::RecordCodec) -> Result<()> {
        codec.check_layout(self.config.layout).map_err(|e| {
            Error::Invalid(format!(
                "{}: {e}; export, then import into a database created with --layout bucket",
                self.dir.display()
            ))
        })
    }

    /// Makes `codec` the database's record codec (`xs defrag --codec`): saves `xs.toml`, so
    /// partitions created from now on use it; `defrag` then rewrites the others. Partitions of
    /// either codec read and take writes meanwhile, so an interruption loses nothing.
    pub fn set_codec(&mut self, codec: config::RecordCodec) -> Result<()> {
        if !self.writable {
            return Err(Error::Invalid("database was opened read-only".into()));
        }
        self.check_codec(codec)?;
        if codec == self.config.codec {
            return Ok(());
        }
        let new = Config {
            codec,
            ..(*self.config).clone()
        };
        new.save(&self.dir)?;
        self.config = Arc::new(new);
        // Series handles and partitions opened so far carry the old config.
        self.series.get_mut().unwrap_or_else(|p| p.into_inner()).clear();
        self.buckets.get_mut().unwrap_or_else(|p| p.into_inner()).clear();
        Ok(())
    }

    pub fn schema(&self) -> &Schema {
        &self.config.schema
    }

    /// Whether this handle holds the writer lock.
    pub fn is_writable(&self) -> bool {
        self.writable
    }

    /// Drops the cached handle of partition `key`, so that the next use opens the file now
    /// under its name (`defrag` replaces partition files by rename).
    pub fn forget_partition(&self, key: PartitionKey) {
        self.partitions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(&key);
        self.buckets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(&key);
    }

    /// Closes the partition files this handle holds open (they are opened again on use).
    pub fn forget_partitions(&self) {
        self.partitions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clear();
        self.buckets
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clear();
    }

    pub fn layout(&self) -> Layout {
        self.config.layout
    }

    /// Maps a timestamp to its partition and slot; refuses times outside the storable range
    /// and times that are not a multiple of the granularity.
    pub fn slot_of(&self, t_ns: i64) -> Result<Slot> {
        self.check_time(t_ns)?;
        let key = PartitionKey::of(self.config.period, t_ns);
        let index = ((t_ns - key.start_ns()) / self.config.granularity.ns()) as u64;
        Ok(Slot { key, index })
    }

    /// The timestamp of slot `index` in the partition `key`.
    pub fn time_of(&self, key: PartitionKey, index: u64) -> i64 {
        key.start_ns() + index as i64 * self.config.granularity.ns()
    }

    pub fn check_time(&self, t_ns: i64) -> Result<()> {
        if !in_storable_range(t_ns) {
            return Err(Error::Invalid(format!(
                "timestamp {} is outside the storable range (1678-01-01 to 2261-12-31 UTC)",
                crate::io::timefmt::format_iso_exact(t_ns)
            )));
        }
        let g = self.config.granularity;
        if t_ns.rem_euclid(g.ns()) != 0 {
            return Err(Error::Invalid(format!(
                "timestamp {} is not a multiple of the granularity {g}",
                crate::io::timefmt::format_iso_exact(t_ns)
            )));
        }
        Ok(())
    }

    /// The partition file for `key`: opened once and cached; with `create`, made on first use.
    /// `Ok(None)` when it does not exist and `create` is false.
    pub fn partition(&self, key: PartitionKey, create: bool) -> Result<Option<Arc<Partition>>> {
        self.refuse_series_root()?;
        if self.config.layout != Layout::Grid {
            return Err(Error::Invalid(format!(
                "{}: this operation reads grid partition files, and this database has the {} layout",
                self.dir.display(),
                self.config.layout.name()
            )));
        }
        self.cached(
            &self.partitions,
            key,
            create,
            || {
                let partition = Partition::open(&self.dir, &self.config, key, self.writable)?;
                Ok(partition.with_syncs_deferred(self.sync_deferred))
            },
            || Partition::create(&self.dir, &self.config, key, self.sync_deferred),
        )
    }

    /// The bucket partition `key` (bucket layout): opened once and cached; with `create`, made
    /// on first use. `Ok(None)` when it does not exist and `create` is false.
    pub fn bucket_partition(&self, key: PartitionKey, create: bool) -> Result<Option<Arc<BucketPartition>>> {
        self.refuse_series_root()?;
        if self.config.layout != Layout::Bucket {
            return Err(Error::Invalid(format!(
                "{}: this database has the {} layout, not bucket",
                self.dir.display(),
                self.config.layout.name()
            )));
        }
        self.cached(
            &self.buckets,
            key,
            create,
            || {
                let part = BucketPartition::open(&self.dir, &self.config, key, self.writable)?;
                Ok(part.with_syncs_deferred(self.sync_deferred))
            },
            || BucketPartition::create(&self.dir, &self.config, key, self.sync_deferred),
        )
    }

    /// Partitions belong to a series: the top of a series database has none.
    fn refuse_series_root(&self) -> Result<()> {
        if self.is_series_root() {
            return Err(Error::Invalid(format!(
                "{}: this operation reads one series' partitions; pick a series (--series)",
                self.dir.display()
            )));
        }
        Ok(())
    }

    /// The partition `key` from `cache`; else opened when its file exists, or created when
    /// `create` is asked of a writable database, and cached so each file is opened once.
    fn cached<P>(
        &self,
        cache: &Mutex<HashMap<PartitionKey, Arc<P>>>,
        key: PartitionKey,
        create: bool,
        open_file: impl FnOnce() -> Result<P>,
        create_file: impl FnOnce() -> Result<P>,
    ) -> Result<Option<Arc<P>>> {
        let mut cache = cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(p) = cache.get(&key) {
            return Ok(Some(Arc::clone(p)));
        }
        // Opened without a look first (a `statx` per partition, 30,000 of them over every
        // host): a missing file is `NotFound` from its open. A link in its place is refused
        // by the open (`O_NOFOLLOW`), never followed, nor replaced by a new file.
        let path = self.dir.join(key.file_name());
        let partition = match open_file() {
            Ok(partition) => partition,
            Err(Error::Io { source, path: at, .. })
                if source.kind() == std::io::ErrorKind::NotFound && at == path =>
            {
                if !(create && self.writable) {
                    return Ok(None);
                }
                create_file()?
            }
            Err(e) => return Err(e),
        };
        let partition = Arc::new(partition);
        cache.insert(key, Arc::clone(&partition));
        Ok(Some(partition))
    }

    fn writable_bucket_partition(&self, key: PartitionKey) -> Result<Arc<BucketPartition>> {
        if !self.writable {
            return Err(Error::Invalid("database was opened read-only".into()));
        }
        self.bucket_partition(key, true)?
            .ok_or_else(|| Error::Invalid(format!("partition {key} could not be created")))
    }

    /// The partitions on disk, in time order. Files that are not partition names are ignored.
    pub fn partition_keys(&self) -> Result<Vec<PartitionKey>> {
        if self.is_series_root() {
            return self.series_partition_keys();
        }
        if !self.writable {
            let mut listed = self
                .listed
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if listed.is_none() {
                *listed = Some(self.list_partitions()?);
            }
            return Ok(listed.clone().unwrap_or_default());
        }
        self.list_partitions()
    }

    fn list_partitions(&self) -> Result<Vec<PartitionKey>> {
        let entries = fs::read_dir(&self.dir).map_err(|e| Error::io("read directory", &self.dir, e))?;
        let mut keys = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("read directory", &self.dir, e))?;
            if let Some(key) = entry
                .file_name()
                .to_str()
                .and_then(|name| PartitionKey::parse_file_name(self.config.period, name))
            {
                keys.push(key);
            }
        }
        keys.sort();
        Ok(keys)
    }

    /// Stores an encoded row (`schema().row_len()` bytes, present bit set) at `t_ns`.
    /// Not durable until `sync` is called.
    pub fn put(&self, t_ns: i64, row: &[u8], mode: PutMode) -> Result<()> {
        debug_assert_eq!(row.len(), self.schema().row_len());
        let schema = &self.config.schema;
        if let Some(c) = self
            .config
            .unique_columns()
            .into_iter()
            .find(|&c| schema.is_null(row, c))
        {
            return Err(Error::Invalid(format!(
                "column `{}` of the unique key is empty: a row without its key cannot be told from \
                 the other rows at its time; give it a value",
                schema.columns()[c].name
            )));
        }
        // The row's sym codes are on disk before the row is.
        self.persist_syms()?;
        if self.is_series_root() {
            let name = series::name_of_row(&self.config.schema, &self.config.series_columns(), row)?;
            series::check_name(&name).map_err(Error::Invalid)?;
            let db = self
                .series_db(&name, true)?
                .ok_or_else(|| Error::Invalid("database was opened read-only".into()))?;
            return db.put(t_ns, row, mode);
        }
        let slot = self.slot_of(t_ns)?;
        let unique = self.config.unique_columns();
        if self.config.layout == Layout::Bucket {
            let part = self.writable_bucket_partition(slot.key)?;
            let (b, unit) = part.locate(t_ns);
            let (mut buf, mut old) = (Vec::new(), Rows::default());
            let entry = part.bucket_rows(b, &mut buf, &mut old)?;
            let mut merged = Rows::default();
            if unique.is_empty() {
                let mut new = Rows::default();
                new.push(unit, row);
                bucket::merge(&old, &new, row.len(), |_| mode == PutMode::Append, &mut merged);
            } else {
                // With a unique key the row replaces the one with its key, whatever the mode.
                let row_len = row.len();
                let at: Vec<&[u8]> = (0..old.len())
                    .filter(|&k| old.units[k] == unit)
                    .map(|k| &old.rows[k * row_len..(k + 1) * row_len])
                    .collect();
                let mut rows = Vec::new();
                unique::merge_rows(&self.config.schema, &unique, at, [row], &mut rows)?;
                let mut placed = false;
                for k in 0..old.len() {
                    if old.units[k] == unit {
                        continue;
                    }
                    if old.units[k] > unit && !placed {
                        rows.iter().for_each(|r| merged.push(unit, r));
                        placed = true;
                    }
                    merged.push(old.units[k], &old.rows[k * row_len..(k + 1) * row_len]);
                }
                if !placed {
                    rows.iter().for_each(|r| merged.push(unit, r));
                }
            }
            return part.rewrite_bucket(b, entry, &old, &merged);
        }
        let partition = self.writable_partition(slot.key)?;
        let row_len = row.len();
        let mut slab = vec![0u8; partition.slab_len as usize];
        if !unique.is_empty() {
            // With a unique key the row replaces the one with its key, whatever the mode.
            partition.read_slots(slot.index, 1, &mut slab)?;
            let old: Vec<&[u8]> = slab
                .chunks_exact(row_len)
                .take_while(|r| Schema::is_present(r))
                .collect();
            let mut rows = Vec::new();
            unique::merge_rows(&self.config.schema, &unique, old, [row], &mut rows)?;
            if rows.len() > self.config.depth as usize {
                return Err(Error::DepthFull {
                    t_ns,
                    depth: self.config.depth,
                });
            }
            let mut out = vec![0u8; partition.slab_len as usize];
            for (k, r) in rows.iter().enumerate() {
                out[k * row_len..(k + 1) * row_len].copy_from_slice(r);
            }
            return put_slot(&partition, slot.index, &out, Some(&slab));
        }
        let mut old = None;
        match mode {
            PutMode::Replace => slab[..row_len].copy_from_slice(row),
            PutMode::Append => {
                // The slot is checked before rows are added to it, and rewritten whole so its
                // check covers the new row.
                partition.read_slots(slot.index, 1, &mut slab)?;
                let free = slab
                    .chunks_exact(row_len)
                    .position(|r| !Schema::is_present(r))
                    .ok_or(Error::DepthFull {
                        t_ns,
                        depth: self.config.depth,
                    })?;
                if !partition.has_checks() {
                    let offset = partition.slot_offset(slot.index) + (free * row_len) as u64;
                    return partition.write_at(row, offset);
                }
                old = Some(slab.clone());
                slab[free * row_len..(free + 1) * row_len].copy_from_slice(row);
            }
        }
        put_slot(&partition, slot.index, &slab, old.as_deref())
    }

    /// Makes every write so far durable: fsyncs each open partition file and the directory.
    pub fn sync(&self) -> Result<()> {
        if self.is_series_root() {
            return self.series_sync();
        }
        if self.sync_deferred {
            return Ok(());
        }
        let open: Vec<Arc<Partition>> = {
            let cache = self
                .partitions
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            cache.values().cloned().collect()
        };
        for partition in open {
            partition.sync()?;
        }
        let open: Vec<Arc<BucketPartition>> = {
            let cache = self
                .buckets
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            cache.values().cloned().collect()
        };
        for partition in open {
            partition.sync()?;
        }
        sync_dir(&self.dir)
    }

    fn writable_partition(&self, key: PartitionKey) -> Result<Arc<Partition>> {
        if !self.writable {
            return Err(Error::Invalid("database was opened read-only".into()));
        }
        self.partition(key, true)?
            .ok_or_else(|| Error::Invalid(format!("partition {key} could not be created")))
    }

    /// The rows stored at `t_ns`, in order; empty when none.
    pub fn get(&self, t_ns: i64) -> Result<Vec<Vec<u8>>> {
        let mut slab = Vec::new();
        let rows = self.get_into(t_ns, &mut slab)?;
        Ok(slab
            .chunks_exact(self.schema().row_len())
            .take(rows)
            .map(<[u8]>::to_vec)
            .collect())
    }

    /// Reads the slot of `t_ns` into `slab` (resized to depth × row length, reused across calls)
    /// and returns how many rows it holds: they are the first rows of `slab`. One `pread`.
    pub fn get_into(&self, t_ns: i64, slab: &mut Vec<u8>) -> Result<usize> {
        if self.is_series_root() {
            self.check_time(t_ns)?;
            return self.series_get_into(t_ns, slab);
        }
        let slot = self.slot_of(t_ns)?;
        if self.config.layout == Layout::Bucket {
            let Some(part) = self.bucket_partition(slot.key, false)? else {
                return Ok(0);
            };
            let (b, unit) = part.locate(t_ns);
            // The record is read into a per-thread buffer: a point read allocates nothing.
            thread_local! {
                static RECORD: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
            }
            return RECORD.with(|record| part.rows_at(b, unit, &mut record.borrow_mut(), slab));
        }
        let Some(partition) = self.partition(slot.key, false)? else {
            return Ok(0);
        };
        partition.read_slots(slot.index, 1, slab)?;
        Ok(slab
            .chunks_exact(self.schema().row_len())
            .take_while(|r| Schema::is_present(r))
            .count())
    }

    /// Calls `visit(t_ns, row)` for every stored row with `from <= t < to`, in time order,
    /// reading only the data segments of the partition files (holes are skipped by
    /// `SEEK_DATA`/`SEEK_HOLE`, never read). `visit` returns `Ok(false)` to stop early.
    pub fn scan<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        visit: impl FnMut(i64, &[u8]) -> Result<bool, E>,
    ) -> Result<(), E> {
        self.scan_pruned(from_ns, to_ns, None, visit)
    }

    /// `scan` that passes over the storage buckets `prune` rules out (see `Prune`).
    pub fn scan_pruned<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        prune: Prune<'_>,
        mut visit: impl FnMut(i64, &[u8]) -> Result<bool, E>,
    ) -> Result<(), E> {
        self.scan_batches_pruned(from_ns, to_ns, prune, |batch| self.each_row(batch, &mut visit))
    }

    /// Hands each row of `batch` to `visit` with its time; `Ok(false)` when `visit` stops.
    fn each_row<E>(
        &self,
        batch: Batch<'_>,
        visit: &mut impl FnMut(i64, &[u8]) -> Result<bool, E>,
    ) -> Result<bool, E> {
        for (t, row) in self.batch_rows(batch) {
            if !visit(t, row)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Verifies every stored unit of partition `key` against its check, from a fresh handle
    /// (nothing cached is trusted): each damaged unit goes to `found` (an `Error::Checksum`)
    /// and the walk goes on. Returns the partition's header version and the rows in units that
    /// passed.
    pub fn verify_partition(&self, key: PartitionKey, found: &mut dyn FnMut(Error)) -> Result<(u32, u64)> {
        match self.config.layout {
            Layout::Grid => {
                let p = Partition::open(&self.dir, &self.config, key, false)?;
                let rows = p.verify(self.schema().row_len(), found)?;
                Ok((p.version, rows))
            }
            Layout::Bucket => {
                let p = BucketPartition::open(&self.dir, &self.config, key, false)?;
                let done = p.verify(found)?;
                Ok((p.version, done.rows))
            }
        }
    }

    /// How this database's scan batches are laid out: what walks, cuts and copies them.
    pub fn batch_shape(&self) -> BatchShape {
        BatchShape::of(&self.config)
    }

    /// The rows of `batch` with their times, in order (borrowed from the batch).
    pub fn batch_rows<'b>(&self, batch: Batch<'b>) -> BatchRows<'b> {
        self.batch_shape().rows(batch)
    }

    /// Walks the rows of `[from, to)` in time order as batches, whatever the layout: grid
    /// hands out runs of whole slots (holes never read), bucket hands out the decoded rows of
    /// one record (one bucket) at a time with their times. `visit` returns `Ok(false)` to stop
    /// early.
    pub fn scan_batches<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        visit: impl FnMut(Batch<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        self.scan_batches_pruned(from_ns, to_ns, None, visit)
    }

    /// `scan_batches` that passes over the storage buckets `prune` rules out (see `Prune`).
    pub fn scan_batches_pruned<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        prune: Prune<'_>,
        visit: impl FnMut(Batch<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        if self.is_series_root() {
            return self.series_scan_batches(from_ns, to_ns, prune, visit);
        }
        self.scan_batches_local(from_ns, to_ns, prune, visit)
    }

    /// `scan_batches` of the partitions in this directory (a plain database or one series).
    fn scan_batches_local<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        prune: Prune<'_>,
        mut visit: impl FnMut(Batch<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        match self.config.layout {
            Layout::Grid => self.scan_chunks(from_ns, to_ns, |key, first_slot, bytes| {
                visit(Batch::Slots {
                    start_ns: self.time_of(key, first_slot),
                    bytes,
                })
            }),
            Layout::Bucket => self.scan_buckets(from_ns, to_ns, Scan::Rows, prune, |piece| match piece {
                Piece::Scanned(Scanned::Batch(batch)) => visit(batch),
                // Not asked for: `scan_buckets` hands out none.
                Piece::Scanned(Scanned::Summary(_) | Scanned::Columns(_)) | Piece::Stored(_) => Ok(true),
            }),
        }
    }

    /// Like `scan_batches`, but a storage bucket of a bucket-layout partition with summaries
    /// that lies wholly inside `[from, to)`, and for which `same_bucket(start, end)` says the
    /// caller folds all of `[start, end)` into one result, comes as its summary (rows, min and
    /// max per summarized column) instead of its rows, when its entry's check holds. Every
    /// other bucket (and the grid layout) comes as rows, as in `scan_batches`; buckets that
    /// `prune` rules out do not come at all.
    pub fn scan_summarized<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        same_bucket: &dyn Fn(i64, i64) -> bool,
        prune: Prune<'_>,
        visit: impl FnMut(Scanned<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        if self.is_series_root() {
            return self.series_scan_summarized(from_ns, to_ns, same_bucket, prune, visit);
        }
        self.scan_summarized_local(from_ns, to_ns, same_bucket, prune, visit)
    }

    /// Like `scan_batches`, but a bucket-layout record stored columnar comes as its columns
    /// (`Scanned::Columns`) instead of rows; everything else (grid, raw records, several
    /// series merged) comes as rows (`Scanned::Batch`). Never a summary.
    pub fn scan_columns<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        mut visit: impl FnMut(Scanned<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        if self.is_series_root() {
            let kids = self.selected_series()?;
            if let [(_, one)] = kids.as_slice() {
                return one.scan_columns(from_ns, to_ns, visit);
            }
            return self.series_scan_batches(from_ns, to_ns, None, |batch| visit(Scanned::Batch(batch)));
        }
        match self.config.layout {
            Layout::Grid => {
                self.scan_batches_local(from_ns, to_ns, None, |batch| visit(Scanned::Batch(batch)))
            }
            Layout::Bucket => self.scan_buckets(from_ns, to_ns, Scan::Columns, None, |piece| match piece {
                Piece::Scanned(scanned) => visit(scanned),
                // Not asked for: `scan_buckets` hands out none.
                Piece::Stored(_) => Ok(true),
            }),
        }
    }

    /// Like `scan_batches`, but a columnar bucket-layout record comes as it is stored
    /// (`Stored::Record`), to be decoded by the caller, on whichever thread it formats on,
    /// every column (`with_columns` does not apply); everything else (grid, raw records,
    /// several series merged) comes as rows (`Stored::Batch`).
    pub fn scan_stored<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        mut visit: impl FnMut(Stored<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        if self.is_series_root() {
            let kids = self.selected_series()?;
            if let [(_, one)] = kids.as_slice() {
                return one.scan_stored(from_ns, to_ns, visit);
            }
            return self.series_scan_batches(from_ns, to_ns, None, |batch| visit(Stored::Batch(batch)));
        }
        match self.config.layout {
            Layout::Grid => {
                self.scan_batches_local(from_ns, to_ns, None, |batch| visit(Stored::Batch(batch)))
            }
            Layout::Bucket => self.scan_buckets(from_ns, to_ns, Scan::Stored, None, |piece| match piece {
                Piece::Stored(record) => visit(Stored::Record(record)),
                Piece::Scanned(Scanned::Batch(batch)) => visit(Stored::Batch(batch)),
                // Not asked for: `scan_buckets` hands out none.
                Piece::Scanned(Scanned::Summary(_) | Scanned::Columns(_)) => Ok(true),
            }),
        }
    }

    /// `scan_summarized` of the partitions in this directory.
    fn scan_summarized_local<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        same_bucket: &dyn Fn(i64, i64) -> bool,
        prune: Prune<'_>,
        mut visit: impl FnMut(Scanned<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        match self.config.layout {
            Layout::Grid => {
                self.scan_batches_local(from_ns, to_ns, prune, |batch| visit(Scanned::Batch(batch)))
            }
            Layout::Bucket => {
                self.scan_buckets(
                    from_ns,
                    to_ns,
                    Scan::Summarized(same_bucket),
                    prune,
                    |piece| match piece {
                        Piece::Scanned(scanned) => visit(scanned),
                        // Not asked for: `scan_buckets` hands out none.
                        Piece::Stored(_) => Ok(true),
                    },
                )
            }
        }
    }

    fn scan_buckets<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        scan: Scan<'_>,
        prune: Prune<'_>,
        mut visit: impl FnMut(Piece<'_>) -> Result<bool, E>,
    ) -> Result<(), E> {
        let from_ns = from_ns.max(MIN_TIME_NS);
        let to_ns = to_ns.min(END_TIME_NS);
        if from_ns >= to_ns {
            return Ok(());
        }
        let same_bucket = match scan {
            Scan::Summarized(same) => Some(same),
            Scan::Rows | Scan::Columns | Scan::Stored => None,
        };
        let (scratch, parts) = KEPT_BUFFERS
            .with(|kept| kept.borrow_mut().take())
            .unwrap_or_default();
        let mut reader = RecordReader {
            scratch,
            parts,
            columns: COLUMNS_READ.with(|c| c.borrow().clone()),
            as_columns: matches!(scan, Scan::Columns),
            as_stored: matches!(scan, Scan::Stored),
            time_grid: TIME_GRID.with(|g| g.get()),
        };
        // An error of `visit` met inside an engine callback waits here to be returned.
        let mut failure: Option<E> = None;
        for key in self.partition_keys()? {
            if key.end_ns() <= from_ns || key.start_ns() >= to_ns {
                continue;
            }
            let Some(part) = self.bucket_partition(key, false)? else {
                continue;
            };
            let lo = from_ns.max(key.start_ns());
            let hi = to_ns.min(key.end_ns());
            let first = ((lo - key.start_ns()) / part.bucket_ns) as u64;
            let end = ((hi - key.start_ns()) as u64).div_ceil(part.bucket_ns as u64);
            // Walk the directory a window at a time so memory stays bounded; the records of
            // buckets read as rows wait in `pending` so that neighbours are read together.
            let mut pending: Vec<(u64, bucket::Entry)> = Vec::new();
            let mut b = first;
            while b < end {
                // Jump over the directory's holes: a year of 1 ms buckets is billions of them.
                match part.next_allocated_bucket_before(b, end)? {
                    Some(next) if next < end => b = next,
                    _ => b = end,
                }
                let window_end = end.min(b.saturating_add(1 << 16));
                let mut go_on = true;
                let summaries = same_bucket.is_some() || prune.is_some();
                part.for_each_summarized_entry(b, window_end, summaries, |bucket, e, bounds| {
                    if let (Some(prune), Some(bounds)) = (prune, bounds) {
                        if prune(bounds) {
                            return Ok(true);
                        }
                    }
                    let start_ns = part.bucket_start_ns(bucket);
                    let end_ns = start_ns.saturating_add(part.bucket_ns);
                    let wanted = same_bucket
                        .is_some_and(|same| start_ns >= lo && end_ns <= hi && same(start_ns, end_ns));
                    let Some(bounds) = bounds.filter(|_| wanted) else {
                        pending.push((bucket, e));
                        return Ok(true);
                    };
                    // Rows before the summary go first: pieces stay in time order.
                    go_on = reader.read(&part, &mut pending, lo, hi, &mut visit, &mut failure)?;
                    if go_on {
                        let summary = BucketSummary {
                            start_ns,
                            end_ns,
                            rows: u64::from(e.rows),
                            bounds,
                        };
                        go_on = keep(visit(Piece::Scanned(Scanned::Summary(summary))), &mut failure);
                    }
                    Ok(go_on)
                })?;
                b = window_end;
                if go_on {
                    go_on = reader.read(&part, &mut pending, lo, hi, &mut visit, &mut failure)?;
                }
                if let Some(e) = failure {
                    return Err(e);
                }
                if !go_on {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Walks the data of `[from, to)` as chunks of whole slots: `visit(partition, first_slot,
    /// bytes)` where `bytes` holds consecutive slots from `first_slot`. Chunks are at most
    /// `SCAN_CHUNK_BYTES` long and come in time order; holes between them are never read.
    pub fn scan_chunks<E: From<Error>>(
        &self,
        from_ns: i64,
        to_ns: i64,
        mut visit: impl FnMut(PartitionKey, u64, &[u8]) -> Result<bool, E>,
    ) -> Result<(), E> {
        if self.config.layout != Layout::Grid || self.is_series_root() {
            return Err(Error::Invalid(
                "scan_chunks walks the grid slots of one series; use scan_batches".into(),
            )
            .into());
        }
        let from_ns = from_ns.max(MIN_TIME_NS);
        let to_ns = to_ns.min(END_TIME_NS);
        if from_ns >= to_ns {
            return Ok(());
        }
        let slab_len = self.config.slab_len();
        let chunk_slots = (SCAN_CHUNK_BYTES / slab_len).max(1);
        let mut buf = Vec::new();
        for key in self.partition_keys()? {
            if key.end_ns() <= from_ns || key.start_ns() >= to_ns {
                continue;
            }
            let Some(partition) = self.partition(key, false)? else {
                continue;
            };
            let first = self.slot_at_or_after(key, from_ns.max(key.start_ns()));
            let end = self.slot_at_or_after(key, to_ns.min(key.end_ns()));
            let byte_from = partition.slot_offset(first);
            let byte_to = partition.slot_offset(end);
            // Slots before this one were handed out already: a slot that spans a hole (one
            // larger than a block, its rows split by unwritten blocks) touches two segments,
            // and must be read once, from the first.
            let mut next_slot = first;
            let slot_len = partition.slot_len;
            for (seg_from, seg_to) in partition.data_segments(byte_from, byte_to)? {
                // Widen the segment to whole slots: block edges need not fall on slot edges.
                let mut slot = partition.slot_at_byte(seg_from).max(next_slot);
                let seg_end_slot = (seg_to - partition::HEADER_LEN).div_ceil(slot_len).min(end);
                next_slot = next_slot.max(seg_end_slot);
                while slot < seg_end_slot {
                    let n = chunk_slots.min(seg_end_slot - slot);
                    partition.read_slots(slot, n, &mut buf)?;
                    if !visit(key, slot, &buf)? {
                        return Ok(());
                    }
                    slot += n;
                }
            }
        }
        Ok(())
    }

    /// The span one stored piece covers: a bucket (bucket layout) or a slot (grid). A reader
    /// that cuts a window into pieces cuts no finer, or it decodes a bucket more than once.
    pub fn storage_unit_ns(&self) -> i64 {
        match self.config.layout {
            Layout::Bucket => self.config.bucket_ns,
            Layout::Grid => self.config.granularity.ns(),
        }
    }

    /// A time at or after `t_ns` before which, from `t_ns` on, nothing is stored: the start of
    /// the first slot or bucket at or after it whose bytes are allocated (`SEEK_DATA`), or
    /// `None` when only holes follow. Lets a walk cut into many pieces (aggregation slices)
    /// jump over empty stretches instead of visiting each piece. `keys` are the partitions to
    /// look in (`partition_keys`, listed once by the caller rather than once per call).
    pub fn next_data_time(&self, keys: &[PartitionKey], t_ns: i64) -> Result<Option<i64>> {
        if self.is_series_root() {
            // Each series looks in its own partitions.
            return self.series_next_data_time(t_ns.max(MIN_TIME_NS));
        }
        let t_ns = t_ns.max(MIN_TIME_NS);
        if t_ns >= END_TIME_NS {
            return Ok(None);
        }
        for &key in keys {
            if key.end_ns() <= t_ns {
                continue;
            }
            let lo = t_ns.max(key.start_ns());
            let found = match self.config.layout {
                Layout::Bucket => {
                    let Some(part) = self.bucket_partition(key, false)? else {
                        continue;
                    };
                    let (b, _) = part.locate(lo);
                    part.next_allocated_bucket(b)?.map(|b| part.bucket_start_ns(b))
                }
                Layout::Grid => {
                    let Some(partition) = self.partition(key, false)? else {
                        continue;
                    };
                    let slot = lo.saturating_sub(key.start_ns()) as u64 / self.config.granularity.ns() as u64;
                    partition.seek_data(partition.slot_offset(slot))?.map(|at| {
                        // The slot holding that byte (it may start in the block before).
                        self.time_of(key, partition.slot_at_byte(at))
                    })
                }
            };
            if let Some(t) = found.filter(|&t| t < key.end_ns()) {
                return Ok(Some(t.max(t_ns)));
            }
        }
        Ok(None)
    }

    /// First slot of `key` whose time is >= `t_ns` (t within or at the end of the partition).
    fn slot_at_or_after(&self, key: PartitionKey, t_ns: i64) -> u64 {
        let g = self.config.granularity.ns();
        ((t_ns - key.start_ns()) as u64).div_ceil(g as u64)
    }

    /// Deletes every row with `from <= t < to` and punches holes where whole blocks become
    /// empty, so the physical size shrinks. Returns the number of rows deleted. Durable when
    /// it returns; while it runs, `.delete-unfinished` holds the command that completes it.
    pub fn delete(&self, from_ns: i64, to_ns: i64) -> Result<u64> {
        if !self.writable {
            return Err(Error::Invalid("database was opened read-only".into()));
        }
        // Recorded before the first change and dropped once the changes are durable, so a
        // delete killed halfway leaves a trace that every command reports (with the command
        // that completes it), not a silently half-deleted window.
        let mut rerun = marker::delete_command(
            &self.dir,
            from_ns.max(MIN_TIME_NS),
            to_ns.min(END_TIME_NS).max(from_ns.max(MIN_TIME_NS)),
        );
        if let Some(names) = &self.selected {
            let texts: Vec<String> = names.iter().map(|n| series::text_of(n)).collect();
            rerun.push_str(&format!(" --series {}", marker::shell_quote(&texts.join(","))));
        }
        // A file the delete would refuse (a link, a foreign header) is refused before the
        // marker: a refusal that changed nothing must not report an unfinished delete.
        self.open_partitions_in(from_ns, to_ns)?;
        marker::mark_delete_started(&self.dir, &rerun)?;
        let deleted = if self.is_series_root() {
            self.series_delete(from_ns, to_ns)?
        } else {
            self.delete_unmarked(from_ns, to_ns)?
        };
        sync_dir(&self.dir)?;
        marker::clear_delete(&self.dir, &rerun)?;
        Ok(deleted)
    }

    /// Opens (and caches, for the delete that follows) every partition that `[from, to)`
    /// touches, in every selected series of a series database.
    fn open_partitions_in(&self, from_ns: i64, to_ns: i64) -> Result<()> {
        if self.is_series_root() {
            for (_, db) in self.selected_series()? {
                db.open_partitions_in(from_ns, to_ns)?;
            }
            return Ok(());
        }
        for key in self.partition_keys()? {
            if key.end_ns() <= from_ns || key.start_ns() >= to_ns {
                continue;
            }
            if self.config.layout == Layout::Bucket {
                self.bucket_partition(key, false)?;
            } else {
                self.partition(key, false)?;
            }
        }
        Ok(())
    }

    /// `delete` without its marker (a series database marks once, at its top).
    fn delete_unmarked(&self, from_ns: i64, to_ns: i64) -> Result<u64> {
        let deleted = if self.config.layout == Layout::Bucket {
            self.delete_buckets(from_ns, to_ns)?
        } else {
            self.delete_slots(from_ns, to_ns)?
        };
        sync_dir(&self.dir)?;
        Ok(deleted)
    }

    /// Grid delete: the slots of the range are zeroed, whole blocks punched out. Damaged slots
    /// are cleared too (their rows are not counted): deleting a damaged stretch, then importing
    /// it again, is a way to repair it.
    fn delete_slots(&self, from_ns: i64, to_ns: i64) -> Result<u64> {
        let mut deleted = 0u64;
        let row_len = self.schema().row_len();
        let from_ns = from_ns.max(MIN_TIME_NS);
        let to_ns = to_ns.min(END_TIME_NS);
        for key in self.partition_keys()? {
            if key.end_ns() <= from_ns || key.start_ns() >= to_ns {
                continue;
            }
            let Some(partition) = self.partition(key, false)? else {
                continue;
            };
            let first = self.slot_at_or_after(key, from_ns.max(key.start_ns()));
            let end = self.slot_at_or_after(key, to_ns.min(key.end_ns()));
            deleted += partition.verify_slots(first, end, row_len, &mut |_| {})?;
            clear_range(
                &partition,
                partition.slot_offset(first),
                partition.slot_offset(end),
            )?;
            partition.sync()?;
        }
        Ok(deleted)
    }

    /// Bucket delete: buckets wholly inside the range lose their entries (directory blocks
    /// punched); the edge buckets are rewritten with the rows that stay.
    fn delete_buckets(&self, from_ns: i64, to_ns: i64) -> Result<u64> {
        let from_ns = from_ns.max(MIN_TIME_NS);
        let to_ns = to_ns.min(END_TIME_NS);
        let mut deleted = 0u64;
        if from_ns >= to_ns {
            return Ok(0);
        }
        for key in self.partition_keys()? {
            if key.end_ns() <= from_ns || key.start_ns() >= to_ns {
                continue;
            }
            let Some(part) = self.bucket_partition(key, false)? else {
                continue;
            };
            let lo = from_ns.max(key.start_ns());
            let hi = to_ns.min(key.end_ns());
            let first = ((lo - key.start_ns()) / part.bucket_ns) as u64;
            let end = ((hi - key.start_ns()) as u64).div_ceil(part.bucket_ns as u64);
            let mut entries = Vec::new();
            // Damaged entries are cleared with the rest (their rows cannot be counted).
            part.for_each_entry_past_damage(first, end, |b, e| {
                entries.push((b, e));
                Ok(true)
            })?;
            let row_len = part.row_len;
            let mut edits = Vec::new();
            for &(b, e) in &entries {
                let start = part.bucket_start_ns(b);
                let whole = start >= lo && start.saturating_add(part.bucket_ns) <= hi;
                if whole {
                    deleted += u64::from(e.rows);
                    continue;
                }
                let (mut buf, mut old) = (Vec::new(), Rows::default());
                part.read_rows(b, e, &mut buf, &mut old)?;
                let mut kept = Rows::default();
                for (k, &u) in old.units.iter().enumerate() {
                    let t = start + u as i64 * part.granularity_ns;
                    if t >= lo && t < hi {
                        deleted += 1;
                    } else {
                        kept.push(u, &old.rows[k * row_len..(k + 1) * row_len]);
                    }
                }
                edits.push((b, e, old, kept));
            }
            for (b, e, old, kept) in &edits {
                part.rewrite_bucket(*b, *e, old, kept)?;
            }
            // Whole buckets: clear their entries in runs (edge buckets were rewritten above).
            let inner_first = first + u64::from(part.bucket_start_ns(first) < lo);
            let inner_end =
                if end > inner_first && part.bucket_start_ns(end - 1).saturating_add(part.bucket_ns) > hi {
                    end - 1
                } else {
                    end
                };
            part.clear_entries(inner_first, inner_end.max(inner_first))?;
            part.sync()?;
        }
        Ok(deleted)
    }

    /// Fsyncs the given partitions and the directory (import's end-of-run durability).
    pub fn sync_partitions(&self, keys: &[PartitionKey]) -> Result<()> {
        if self.config.layout == Layout::Bucket {
            for &key in keys {
                if let Some(p) = self.bucket_partition(key, false)? {
                    p.sync()?;
                }
            }
        } else {
            for &key in keys {
                if let Some(p) = self.partition(key, false)? {
                    p.sync()?;
                }
            }
        }
        if self.sync_deferred {
            return Ok(());
        }
        sync_dir(&self.dir)
    }
}

/// Bytes read per `pread` when scanning.
pub const SCAN_CHUNK_BYTES: u64 = 1 << 20;

/// `go_on` of a `visit` call; an error is kept in `failure` and stops the walk.
fn keep<E>(go_on: Result<bool, E>, failure: &mut Option<E>) -> bool {
    go_on.unwrap_or_else(|e| {
        *failure = Some(e);
        false
    })
}

/// What a bucket scan hands out for a record it reads.
#[derive(Clone, Copy)]
enum Scan<'a> {
    Rows,
    /// Rows, or a summary where `same(start, end)` says the caller folds the bucket whole.
    Summarized(&'a dyn Fn(i64, i64) -> bool),
    /// A columnar record's columns, other records' rows.
    Columns,
    /// A columnar record as it is stored, other records' rows.
    Stored,
}

/// What a bucket scan hands out: a piece of a scan, or (`Scan::Stored`) a record as stored.
enum Piece<'a> {
    Scanned(Scanned<'a>),
    Stored(StoredRecord<'a>),
}

/// Reads the records a bucket scan takes as rows and hands each one to `visit` as a batch,
/// its rows borrowed from the read buffer or the decoded rows (no copy, also where the
/// window's edge cuts the record); or, with `as_columns`, a columnar record as its columns;
/// or, with `as_stored`, a columnar record as stored.
struct RecordReader {
    scratch: RecordScratch,
    /// Hand out columnar records as `Scanned::Columns`, their parts decoded into `parts`.
    as_columns: bool,
    /// Hand out columnar records as stored (`Piece::Stored`), not decoded.
    as_stored: bool,
    parts: Vec<codec::PartValues>,
    /// The value columns to rebuild from columnar records (`with_columns`); `None`: all.
    columns: Option<Vec<bool>>,
    /// How finely the times of columnar records are told apart (`with_time_grid`).
    time_grid: Option<TimeGrid>,
}

thread_local! {
    /// The decode buffers of this thread's last bucket scan, for its next one: an aggregate
    /// scans once per slice of its window, and each scan grew new buffers from nothing
    /// (reallocated, zeroed and faulted in page by page: 5 % of a day's VWAP).
    static KEPT_BUFFERS: std::cell::RefCell<Option<(RecordScratch, Vec<codec::PartValues>)>> =
        const { std::cell::RefCell::new(None) };
    /// The value columns scans on this thread need (`with_columns`).
    static COLUMNS_READ: std::cell::RefCell<Option<Vec<bool>>> = const { std::cell::RefCell::new(None) };
    /// How finely scans of columns on this thread tell times apart (`with_time_grid`).
    static TIME_GRID: std::cell::Cell<Option<TimeGrid>> = const { std::cell::Cell::new(None) };
}

/// Cells of time of width `every_ns` counted from `origin_ns` (`every_ns` 0: one cell, all
/// of time): a reader that needs to know only which cell each row's time falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeGrid {
    pub origin_ns: i64,
    pub every_ns: i64,
}

impl TimeGrid {
    /// Whether `a` and `b` fall in one cell.
    fn same_cell(self, a: i64, b: i64) -> bool {
        if self.every_ns <= 0 {
            return true;
        }
        let cell =
            |t: i64| (i128::from(t) - i128::from(self.origin_ns)).div_euclid(i128::from(self.every_ns));
        cell(a) == cell(b)
    }
}

/// Runs `f` with the scans of columns (`scan_columns`) it makes on this thread telling the
/// times of a columnar record's rows apart only to `grid`: the rows of a page of time offsets
/// that lies in one cell of the grid (and in the scan's window) may all carry the page's first
/// time, which is then not decoded. For aggregates over fixed windows that read no row's own
/// time (no filter). Scans handed to other threads tell every time apart.
pub fn with_time_grid<T>(grid: Option<TimeGrid>, f: impl FnOnce() -> T) -> T {
    /// Puts the caller's grid back, also when `f` unwinds.
    struct Restore(Option<TimeGrid>);
    impl Drop for Restore {
        fn drop(&mut self) {
            TIME_GRID.with(|g| g.set(self.0));
        }
    }
    let _restore = Restore(TIME_GRID.with(|g| g.replace(grid)));
    f()
}

/// Runs `f` with the scans it makes on this thread rebuilding, from columnar records, only the
/// value columns `wanted` marks (by schema index): a column not marked reads as zero (its
/// null bit as stored), so `f` must read no other column. Scans it hands to other threads, and
/// raw records, read every column. For aggregates, which read a few columns of many rows.
pub fn with_columns<T>(wanted: Option<Vec<bool>>, f: impl FnOnce() -> T) -> T {
    /// Puts the caller's columns back, also when `f` unwinds.
    struct Restore(Option<Vec<bool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            COLUMNS_READ.with(|c| c.replace(before));
        }
    }
    let _restore = Restore(COLUMNS_READ.with(|c| c.replace(wanted)));
    f()
}

/// The value columns scans on this thread rebuild (`with_columns`): what a scan that hands its
/// series to other threads passes on to them.
fn columns_read() -> Option<Vec<bool>> {
    COLUMNS_READ.with(|c| c.borrow().clone())
}

/// The most a thread keeps of a scan's decode buffers for its next scan, held until the thread
/// ends (each worker that scanned keeps its own): a record of a burst can decode to tens of
/// megabytes, which would stay held after the scan.
const KEEP_BUFFER_BYTES: usize = 16 << 20;

impl Drop for RecordReader {
    fn drop(&mut self) {
        let scratch = std::mem::take(&mut self.scratch);
        let parts = std::mem::take(&mut self.parts);
        let held =
            scratch.capacity_bytes() + parts.iter().map(codec::PartValues::capacity_bytes).sum::<usize>();
        if held <= KEEP_BUFFER_BYTES {
            // `try_with`: nothing is kept on a thread that is ending.
            let _ = KEPT_BUFFERS.try_with(|kept| *kept.borrow_mut() = Some((scratch, parts)));
        }
    }
}

impl RecordReader {
    /// Reads the records of `pending` (then empties it) and hands out their rows with
    /// `lo <= t < hi`, one batch per record (or, `as_stored`, a columnar record as stored).
    /// `Ok(false)`: stop (`visit` said so, or failed into `failure`).
    fn read<E>(
        &mut self,
        part: &Arc<BucketPartition>,
        pending: &mut Vec<(u64, bucket::Entry)>,
        lo: i64,
        hi: i64,
        visit: &mut impl FnMut(Piece<'_>) -> Result<bool, E>,
        failure: &mut Option<E>,
    ) -> Result<bool> {
        let go_on = part.read_records(pending, |bucket, entry, bytes| {
            if self.as_stored && part.is_columnar_record(bytes) {
                // Checked here, once: its pieces decode apart, each only a few of its pages.
                let bytes = part.checked_record(bucket, entry, bytes)?;
                let place = RecordPlace {
                    part: Arc::clone(part),
                    bucket,
                    entry,
                    lo,
                    hi,
                    decoded_bytes: entry.rows as usize * part.row_len,
                };
                return Ok(keep(visit(Piece::Stored(StoredRecord { place, bytes })), failure));
            }
            let select = select_in(part, bucket, lo, hi);
            if self.as_columns {
                let (start, g) = (part.bucket_start_ns(bucket), part.granularity_ns);
                let columns = self.columns.as_deref();
                // Offsets `a <= b` whose times lie in one cell of the grid and in the window.
                let coarse = self.time_grid.map(|grid| {
                    move |a: u64, b: u64| {
                        let (ta, tb) = (start + a as i64 * g, start + b as i64 * g);
                        ta >= lo && tb < hi && grid.same_cell(ta, tb)
                    }
                });
                let coarse = coarse.as_ref().map(|c| c as &dyn Fn(u64, u64) -> bool);
                let RecordScratch { units, times, .. } = &mut self.scratch;
                if let Some(layout) = part.decode_columns_of(
                    bucket,
                    entry,
                    bytes,
                    units,
                    &mut self.parts,
                    columns,
                    select,
                    coarse,
                )? {
                    times.clear();
                    times.extend(units.iter().map(|&u| start + u as i64 * g));
                    // Times are in order (`check_units`): the window holds a run of them.
                    let first = times.partition_point(|&t| t < lo);
                    let end = times.partition_point(|&t| t < hi);
                    if first == end {
                        return Ok(true);
                    }
                    let columns = Columns::new(&times[first..end], layout, &self.parts, first);
                    return Ok(keep(visit(Piece::Scanned(Scanned::Columns(columns))), failure));
                }
            }
            let columns = self.columns.as_deref();
            match record_rows(
                part,
                bucket,
                entry,
                Read::AsStored(bytes),
                lo,
                hi,
                columns,
                &mut self.scratch,
            )? {
                Some(batch) => Ok(keep(visit(Piece::Scanned(Scanned::Batch(batch))), failure)),
                None => Ok(true),
            }
        })?;
        pending.clear();
        Ok(go_on)
    }
}

/// Which rows of bucket `bucket`'s record a scan of `[lo, hi)` decodes: a columnar record the
/// window cuts has only the pages of its rows in the window decoded (a short window, or a
/// parallel aggregate's slice edge inside it, would otherwise decode the whole record for a
/// few rows).
fn select_in(part: &BucketPartition, bucket: u64, lo: i64, hi: i64) -> codec::Select {
    let (start, g) = (part.bucket_start_ns(bucket), part.granularity_ns);
    let end = start.saturating_add(part.bucket_ns);
    if lo <= start && end <= hi {
        return codec::Select::All;
    }
    // Offsets u with lo <= start + u·g < hi; each bound within the bucket.
    let first_unit = |t: i64| ((t.clamp(start, end) - start) as u64).div_ceil(g as u64);
    codec::Select::Span(first_unit(lo), first_unit(hi))
}

/// A record's bytes as `record_rows` takes them.
enum Read<'s> {
    /// As read: the check is verified first, and the record may be raw or columnar.
    AsStored(&'s [u8]),
    /// The body of a columnar record whose check passed (`checked_record`).
    CheckedColumnar(&'s [u8]),
}

/// The rows of bucket `bucket`'s record with `lo <= t < hi`, as one batch borrowed from the
/// record (raw) or from `scratch` (columnar, decoded there); `None` when the window holds
/// none of them.
#[allow(clippy::too_many_arguments)]
fn record_rows<'s>(
    part: &BucketPartition,
    bucket: u64,
    entry: bucket::Entry,
    bytes: Read<'s>,
    lo: i64,
    hi: i64,
    columns: Option<&[bool]>,
    scratch: &'s mut RecordScratch,
) -> Result<Option<Batch<'s>>> {
    let (start, g) = (part.bucket_start_ns(bucket), part.granularity_ns);
    let select = select_in(part, bucket, lo, hi);
    let RecordScratch {
        units,
        times,
        decoded,
    } = scratch;
    let rows: &'s [u8] = match bytes {
        Read::AsStored(bytes) => {
            part.decode_units_of(bucket, entry, bytes, units, decoded, columns, select)?
        }
        Read::CheckedColumnar(body) => {
            part.decode_columnar_body(bucket, entry, body, units, decoded, columns, select)?;
            let decoded: &'s Vec<u8> = decoded;
            decoded
        }
    };
    times.clear();
    times.extend(units.iter().map(|&u| start + u as i64 * g));
    let times: &'s [i64] = times;
    // Offsets are in order (checked as they are decoded): the window holds a run of the rows
    // decoded (all of a raw record's), handed out in place.
    let first = times.partition_point(|&t| t < lo);
    let end = times.partition_point(|&t| t < hi);
    if first == end {
        return Ok(None);
    }
    let row_len = part.row_len;
    Ok(Some(Batch::Rows {
        times: &times[first..end],
        rows: &rows[first * row_len..end * row_len],
    }))
}

/// What `scan_stored` hands out, in time order.
pub enum Stored<'a> {
    Batch(Batch<'a>),
    /// A columnar bucket record, not yet decoded.
    Record(StoredRecord<'a>),
}

/// A columnar bucket record within a scan window as stored (`Database::scan_stored`): its
/// bytes as read (its check passed and cut off), and where it lies, with which
/// `RecordPlace::decode` makes its rows later, on any thread. A reader that formats on other
/// threads decodes there too.
pub struct StoredRecord<'a> {
    pub place: RecordPlace,
    pub bytes: &'a [u8],
}

/// Where a stored record lies, and the window of it a scan wants: what decoding its bytes
/// needs, checks included.
#[derive(Clone)]
pub struct RecordPlace {
    part: Arc<BucketPartition>,
    bucket: u64,
    entry: bucket::Entry,
    /// The window: rows with `lo <= t < hi`.
    lo: i64,
    hi: i64,
    /// About the bytes decoding the window takes: all the record's rows, or, for a piece
    /// of it (`split`), a piece's share of them.
    decoded_bytes: usize,
}

impl RecordPlace {
    /// About the bytes decoding the window takes (an estimate, not a bound).
    pub fn decoded_bytes(&self) -> usize {
        self.decoded_bytes
    }

    /// The window cut into pieces of about `max_bytes` decoded each (one, the whole window,
    /// when it is small or the record cannot be cut, `BucketPartition::span_cuts`): the
    /// pieces decode apart, on any thread, each a few pages of the record (`bytes`), and
    /// together hand out its rows in the window once each, in order.
    pub fn split(&self, bytes: &[u8], max_bytes: usize) -> Vec<RecordPlace> {
        if self.decoded_bytes <= max_bytes {
            return vec![self.clone()];
        }
        let rows = max_bytes / self.part.row_len.max(1);
        let (start, g) = (self.part.bucket_start_ns(self.bucket), self.part.granularity_ns);
        let time_of = |unit: u64| {
            i64::try_from(unit)
                .ok()
                .and_then(|u| u.checked_mul(g))
                .and_then(|offset| start.checked_add(offset))
        };
        let cuts = self.part.span_cuts(self.entry, bytes, rows);
        // What a piece of the whole record decodes, about; the window's pieces no more.
        let decoded_bytes = self.decoded_bytes / (cuts.len() + 1);
        let mut pieces = Vec::new();
        let mut lo = self.lo;
        for t in cuts.into_iter().filter_map(time_of) {
            if lo < t && t < self.hi {
                pieces.push(RecordPlace {
                    lo,
                    hi: t,
                    decoded_bytes,
                    ..self.clone()
                });
                lo = t;
            }
        }
        pieces.push(RecordPlace {
            lo,
            decoded_bytes,
            ..self.clone()
        });
        pieces
    }

    /// The rows of the record (`bytes`, as the scan handed them out, its check passed) in the
    /// window, as one batch decoded into `scratch`; `None` when the window holds none. Every
    /// column is decoded.
    pub fn decode<'s>(&self, bytes: &'s [u8], scratch: &'s mut RecordScratch) -> Result<Option<Batch<'s>>> {
        let body = Read::CheckedColumnar(bytes);
        record_rows(
            &self.part,
            self.bucket,
            self.entry,
            body,
            self.lo,
            self.hi,
            None,
            scratch,
        )
    }
}

/// The buffers decoding a record into rows reuses.
#[derive(Default)]
pub struct RecordScratch {
    units: Vec<u64>,
    times: Vec<i64>,
    /// The rows of a columnar record, decoded.
    decoded: Vec<u8>,
}

impl RecordScratch {
    /// The bytes its buffers hold allocated.
    fn capacity_bytes(&self) -> usize {
        8 * (self.units.capacity() + self.times.capacity()) + self.decoded.capacity()
    }
}

/// Hole-punching granularity (the ext4/xfs block size).
pub const BLOCK_LEN: u64 = 4096;

/// Rewrites slot `index` for `put`. A slot that crosses a page edge can be torn by a kill (the
/// kernel copies a write page by page), leaving a slot that fails its check, which a `put`
/// that reads it first (a unique key, `--append`) could not get past; so its old rows
/// (`old`, or read here) go to the undo journal first, as an import's do, and the next writer
/// puts them back. A slot already damaged has no old rows to keep: it is just overwritten.
fn put_slot(partition: &Partition, index: u64, rows: &[u8], old: Option<&[u8]>) -> Result<()> {
    let start = partition.slot_offset(index);
    let last = start + partition.slot_len - 1;
    if !partition.has_checks() || start / BLOCK_LEN == last / BLOCK_LEN {
        return partition.write_slot(index, rows);
    }
    let old = match old {
        Some(old) => old.to_vec(),
        None => {
            let mut old = Vec::new();
            match partition.read_slots(index, 1, &mut old) {
                Ok(()) => old,
                Err(Error::Checksum(_)) => return partition.write_slot(index, rows),
                Err(e) => return Err(e),
            }
        }
    };
    let mut journal = undo::Journal::create(partition)?;
    journal.add(index, &old);
    journal.commit(partition, true)?;
    partition.write_slot(index, rows)?;
    partition.sync()?;
    journal.remove()?;
    // Durably gone: a journal that came back after a power loss would undo this put.
    match partition.path.parent() {
        Some(dir) => sync_dir(dir),
        None => Ok(()),
    }
}

/// Zeroes `[from, to)`: whole blocks are punched out; the partial blocks at the edges are
/// zeroed only where they hold data, then punched too if the whole block became zero.
fn clear_range(partition: &Partition, from: u64, to: u64) -> Result<()> {
    if from >= to {
        return Ok(());
    }
    let inner_from = from.div_ceil(BLOCK_LEN) * BLOCK_LEN;
    let inner_to = to / BLOCK_LEN * BLOCK_LEN;
    if inner_from < inner_to {
        partition.punch_hole(inner_from, inner_to)?;
        clear_partial_block(partition, from, inner_from)?;
        clear_partial_block(partition, inner_to, to)?;
    } else {
        // The range lies within one or two blocks.
        let mid = inner_from.min(to);
        clear_partial_block(partition, from, mid)?;
        clear_partial_block(partition, mid, to)?;
    }
    Ok(())
}

/// Zeroes `[from, to)`, which lies within one block, without allocating a hole.
fn clear_partial_block(partition: &Partition, from: u64, to: u64) -> Result<()> {
    if from >= to {
        return Ok(());
    }
    let block_from = from / BLOCK_LEN * BLOCK_LEN;
    let mut block = vec![0u8; BLOCK_LEN as usize];
    partition.read_at(&mut block, block_from)?;
    let (a, b) = ((from - block_from) as usize, (to - block_from) as usize);
    if block[a..b].iter().all(|&x| x == 0) {
        return Ok(());
    }
    block[a..b].fill(0);
    if block.iter().all(|&x| x == 0) {
        partition.punch_hole(block_from, block_from + BLOCK_LEN)
    } else {
        partition.write_at(&block[a..b], from)
    }
}
