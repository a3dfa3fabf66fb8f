//! `xs.toml`: the human-readable, versioned database config, validated on open and written
//! atomically (temp file, fsync, rename, fsync of the directory).

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::schema::{Column, ColumnType, Schema};
use super::time::{parse_duration, Granularity, Period, Zone};
use super::vfs;
use crate::error::{Error, Result};

/// The newest on-disk format this build reads and writes: 2 adds series and unique keys.
/// A database without keys is still written as format 1, which older builds read.
pub const FORMAT_VERSION: u32 = 2;
/// The format of a database without series or unique keys.
pub const PLAIN_FORMAT_VERSION: u32 = 1;
/// The format of a database with a `sym` column (and a `sym.dict`), with or without keys.
pub const SYM_FORMAT_VERSION: u32 = 3;
/// The format of a database whose bucket records are columnar (`codec = "columnar"`): older
/// builds refuse it by its version rather than misread its records.
pub const COLUMNAR_FORMAT_VERSION: u32 = 4;
/// The format of a database that records the zone of its imports' naive times (`timezone`):
/// an older build would read such times as UTC, so it refuses the database by its version.
pub const TIMEZONE_FORMAT_VERSION: u32 = 5;
/// The format of a database that records the order of day and month in its imports' dates
/// (`date_order`): an older build would refuse the next file whose days are all 12 or less.
pub const DATE_ORDER_FORMAT_VERSION: u32 = 6;
/// The format of a database that records that its imports' numbers have a decimal comma
/// (`decimal_comma`): an older build would read the next file's `-2.000` as −2, not −2000.
pub const DECIMAL_COMMA_FORMAT_VERSION: u32 = 7;
/// The newest format this build reads.
pub const NEWEST_FORMAT_VERSION: u32 = DECIMAL_COMMA_FORMAT_VERSION;
pub const CONFIG_FILE: &str = "xs.toml";
/// The temporary name `xs.toml` is written under before its rename.
pub const CONFIG_TEMP_FILE: &str = ".xs.toml.tmp";

/// The storage layout of a database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// XStore's: one fixed slot per granularity step, row offset computed from the timestamp.
    Grid,
    /// Ticks: a sparse directory with one entry per fixed time bucket, pointing into an
    /// append-only data file of rows that carry their exact timestamp.
    Bucket,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Grid => "grid",
            Layout::Bucket => "bucket",
        }
    }

    /// The number stored in partition headers.
    pub fn code(self) -> u32 {
        match self {
            Layout::Grid => 1,
            Layout::Bucket => 2,
        }
    }
}

/// How a bucket database stores its records (docs/FORMAT.md, "Columnar records").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecordCodec {
    /// Rows back to back as they are laid out in memory: the fastest to read and write.
    #[default]
    Raw,
    /// Each column of a bucket's rows compressed on its own (pco for numbers, zstd for bytes):
    /// a few bytes a row, decoded a whole bucket at a time.
    Columnar,
}

impl RecordCodec {
    pub fn name(self) -> &'static str {
        match self {
            RecordCodec::Raw => "raw",
            RecordCodec::Columnar => "columnar",
        }
    }

    pub fn parse(text: &str) -> Option<RecordCodec> {
        match text {
            "raw" => Some(RecordCodec::Raw),
            "columnar" => Some(RecordCodec::Columnar),
            _ => None,
        }
    }

    /// Refuses a codec the layout cannot store: grid slots are raw, addressed by time. The
    /// one place this rule lives; each caller adds what to do instead.
    pub fn check_layout(self, layout: Layout) -> std::result::Result<(), String> {
        if self != RecordCodec::Raw && layout != Layout::Bucket {
            return Err(format!(
                "codec {} needs the bucket layout (grid slots are raw, addressed by time)",
                self.name()
            ));
        }
        Ok(())
    }
}

/// A validated database configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub layout: Layout,
    /// Width of one bucket in ns (bucket layout; 0 for grid): a multiple of the granularity
    /// that divides one day.
    pub bucket_ns: i64,
    pub granularity: Granularity,
    pub period: Period,
    /// Rows one timestamp can hold (grid layout).
    pub depth: u32,
    /// Name of the time column in headers of input and output.
    pub time_column: String,
    pub schema: Schema,
    /// Series and unique keys (format 2); empty in a plain database.
    pub keys: Keys,
    /// How bucket records are stored (format 4 when columnar); always raw for the grid.
    pub codec: RecordCodec,
    /// The zone an import reads times written without one in, unless it is told another
    /// (`--timezone`, or a header that states one): recorded when the database is created
    /// from local times, so that the next day's file lands where the first one did. UTC
    /// (the default) is not written; any other zone makes the format 5.
    pub timezone: Zone,
    /// Whether the day or the month comes first in the dates imports read (`01/02/2024`),
    /// recorded when the first import decided it (from the sample, or `--time-format dmy`):
    /// a later file whose days are all 12 or less reads as the first did. Format 6.
    pub date_order: Option<DayMonth>,
    /// Whether imports read numbers with a decimal comma (`2,6`, `1.234,5`), recorded when the
    /// first import read them so (detected, or `--decimal-comma`): a later file whose numbers
    /// do not show their mark (`-2.000`, `1.500`) reads as the first did. Format 7.
    pub decimal_comma: bool,
}

/// The order of day and month in dates written with both as numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DayMonth {
    /// `31/07/2024`: `dmy`.
    DayFirst,
    /// `07/31/2024`: `mdy`.
    MonthFirst,
}

impl DayMonth {
    /// As `--time-format` and `xs.toml` spell it.
    pub fn name(self) -> &'static str {
        match self {
            DayMonth::DayFirst => "dmy",
            DayMonth::MonthFirst => "mdy",
        }
    }

    pub fn parse(text: &str) -> Option<DayMonth> {
        match text {
            "dmy" => Some(DayMonth::DayFirst),
            "mdy" => Some(DayMonth::MonthFirst),
            _ => None,
        }
    }
}

/// The columns that identify a row besides its time (docs/FORMAT.md, "Series and unique keys").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Keys {
    /// Series key: each distinct value (tuple) is stored as its own series, in its own
    /// directory of partitions; rows of different series never touch.
    pub series: Vec<String>,
    /// Unique key: identifies a row among the rows of one series at one timestamp; an
    /// imported row with a stored key replaces that row, a new key is added.
    pub unique: Vec<String>,
}

impl Keys {
    pub fn is_empty(&self) -> bool {
        self.series.is_empty() && self.unique.is_empty()
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawColumn {
    name: String,
    #[serde(rename = "type")]
    ty: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    format: u32,
    layout: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bucket: Option<String>,
    /// "raw" (the default, left out) or "columnar".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    codec: Option<String>,
    granularity: String,
    partition: String,
    depth: u32,
    time_column: String,
    row_len: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    series_by: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    unique_by: Vec<String>,
    /// The schema hash in the partition headers, 16 hex digits, when a rename (`xs alter`)
    /// left it differing from the columns' own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    schema_hash: Option<String>,
    /// The zone of imported naive times (format 5), as `--timezone` spells it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timezone: Option<String>,
    /// `dmy` or `mdy` (format 6): the order of day and month in imported dates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    date_order: Option<String>,
    /// `true` (format 7): imported numbers have a decimal comma.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    decimal_comma: bool,
    columns: Vec<RawColumn>,
}

/// Largest depth accepted: a slot of 65,535 rows is already far past any sane tick burst.
pub const MAX_DEPTH: u32 = 65_535;

/// Largest row accepted, in bytes: xs holds whole rows in memory (a put, a parsed batch).
pub const MAX_ROW_BYTES: u64 = 1 << 20;
/// Largest slot accepted (grid): `depth × row_len` bytes. A point read, a put and an import's
/// slot merge each hold a few whole slots in memory, so this bounds what a config can make xs
/// allocate (docs/FORMAT.md, "Memory bounds").
pub const MAX_SLOT_BYTES: u64 = 16 << 20;
/// Most value columns a schema may have.
pub const MAX_COLUMNS: usize = 4096;
/// Most columns in a series or unique key.
pub const MAX_KEY_COLUMNS: usize = 8;

impl Config {
    /// Reads and validates `dir/xs.toml`.
    pub fn load(dir: &Path) -> Result<Config> {
        let path = dir.join(CONFIG_FILE);
        let not_a_database = || Error::NotADatabase {
            path: dir.to_path_buf(),
        };
        let text = match super::files::read_to_string(&path) {
            Ok(Some(text)) => text,
            Ok(None) => return Err(not_a_database()),
            // `dir` is a file: not a database either (a usage error, not a failure).
            Err(Error::Io { source, .. }) if source.raw_os_error() == Some(libc::ENOTDIR) => {
                return Err(not_a_database())
            }
            Err(e) => return Err(e),
        };
        Config::parse(&text).map_err(|reason| Error::BadConfig { path, reason })
    }

    pub fn parse(text: &str) -> std::result::Result<Config, String> {
        // Check the version first so a future format gets a version message, not a field error.
        if let Ok(table) = text.parse::<toml::Table>() {
            match table.get("format").and_then(|v| v.as_integer()) {
                Some(v) if (1..=i64::from(NEWEST_FORMAT_VERSION)).contains(&v) => {}
                Some(v) => {
                    return Err(format!(
                        "format version {v} is not supported (this xs reads format {NEWEST_FORMAT_VERSION}); use a matching xs release"
                    ))
                }
                None => return Err("missing `format = 1` (or 2)".into()),
            }
        }
        let raw: RawConfig = toml::from_str(text).map_err(|e| e.message().to_string())?;
        let layout = match raw.layout.as_str() {
            "grid" => Layout::Grid,
            "bucket" => Layout::Bucket,
            other => return Err(format!("unknown layout `{other}` (expected grid or bucket)")),
        };
        let granularity = parse_duration(&raw.granularity)
            .and_then(Granularity::from_ns)
            .ok_or_else(|| {
                format!(
                    "bad granularity `{}`: a duration that divides one day, e.g. 1ms",
                    raw.granularity
                )
            })?;
        let period = Period::parse(&raw.partition)
            .ok_or_else(|| format!("bad partition `{}` (expected year, month or day)", raw.partition))?;
        if !(1..=MAX_DEPTH).contains(&raw.depth) {
            return Err(format!("bad depth {} (expected 1..={MAX_DEPTH})", raw.depth));
        }
        let mut columns = Vec::with_capacity(raw.columns.len());
        for c in raw.columns {
            let ty = ColumnType::parse(&c.ty).map_err(|e| format!("column `{}`: {e}", c.name))?;
            columns.push(Column { name: c.name, ty });
        }
        let partition_hash = match &raw.schema_hash {
            None => None,
            Some(text) => Some(
                u64::from_str_radix(text, 16)
                    .ok()
                    .filter(|_| text.len() == 16)
                    .ok_or_else(|| {
                        format!("bad schema_hash `{text}`: 16 hex digits, as `xs alter` writes it")
                    })?,
            ),
        };
        let schema = Schema::new(columns)?.with_partition_hash(partition_hash);
        if schema.row_len() != raw.row_len {
            return Err(format!(
                "row_len is {} but the columns make rows of {} bytes; the config was edited or is corrupt",
                raw.row_len,
                schema.row_len()
            ));
        }
        if schema.column_index(&raw.time_column).is_some() {
            return Err(format!(
                "time column `{}` is also a value column",
                raw.time_column
            ));
        }
        if !super::schema::valid_column_name(&raw.time_column) {
            return Err(format!("bad time column name `{}`", raw.time_column));
        }
        let bucket_ns = match (layout, &raw.bucket) {
            (Layout::Grid, None) => 0,
            (Layout::Grid, Some(_)) => return Err("`bucket` is only valid with layout = \"bucket\"".into()),
            (Layout::Bucket, None) => {
                return Err("layout = \"bucket\" needs `bucket = \"1s\"` (the bucket width)".into())
            }
            (Layout::Bucket, Some(text)) => {
                let ns = parse_duration(text)
                    .ok_or_else(|| format!("bad bucket width `{text}`: a duration such as 1s"))?;
                check_bucket_width(ns, granularity.ns())?;
                ns
            }
        };
        let keys = Keys {
            series: raw.series_by,
            unique: raw.unique_by,
        };
        let codec = match (&raw.codec, layout) {
            (None, _) => RecordCodec::Raw,
            (Some(text), Layout::Bucket) => RecordCodec::parse(text)
                .ok_or_else(|| format!("unknown codec `{text}` (expected raw or columnar)"))?,
            (Some(_), Layout::Grid) => return Err("`codec` is only valid with layout = \"bucket\"".into()),
        };
        let format_needed = if keys.is_empty() {
            PLAIN_FORMAT_VERSION
        } else {
            FORMAT_VERSION
        };
        if raw.format < format_needed {
            return Err(format!(
                "series_by and unique_by need `format = {FORMAT_VERSION}`; the config says {}",
                raw.format
            ));
        }
        let timezone = match &raw.timezone {
            None => Zone::Utc,
            Some(text) => Zone::parse(text).ok_or_else(|| {
                format!("bad timezone `{text}` (expected an IANA name such as America/New_York, or an offset such as -05:00)")
            })?,
        };
        if timezone != Zone::Utc && raw.format < TIMEZONE_FORMAT_VERSION {
            return Err(format!(
                "timezone needs `format = {TIMEZONE_FORMAT_VERSION}`; the config says {}",
                raw.format
            ));
        }
        let date_order = match &raw.date_order {
            None => None,
            Some(text) => Some(
                DayMonth::parse(text)
                    .ok_or_else(|| format!("bad date_order `{text}` (expected dmy or mdy)"))?,
            ),
        };
        if date_order.is_some() && raw.format < DATE_ORDER_FORMAT_VERSION {
            return Err(format!(
                "date_order needs `format = {DATE_ORDER_FORMAT_VERSION}`; the config says {}",
                raw.format
            ));
        }
        if raw.decimal_comma && raw.format < DECIMAL_COMMA_FORMAT_VERSION {
            return Err(format!(
                "decimal_comma needs `format = {DECIMAL_COMMA_FORMAT_VERSION}`; the config says {}",
                raw.format
            ));
        }
        let config = Config {
            layout,
            bucket_ns,
            granularity,
            period,
            depth: raw.depth,
            time_column: raw.time_column,
            schema,
            keys,
            codec,
            timezone,
            date_order,
            decimal_comma: raw.decimal_comma,
        };
        if config.schema.has_sym() && raw.format < SYM_FORMAT_VERSION {
            return Err(format!(
                "a sym column needs `format = {SYM_FORMAT_VERSION}`; the config says {}",
                raw.format
            ));
        }
        if codec == RecordCodec::Columnar && raw.format < COLUMNAR_FORMAT_VERSION {
            return Err(format!(
                "codec = \"columnar\" needs `format = {COLUMNAR_FORMAT_VERSION}`; the config says {}",
                raw.format
            ));
        }
        config.check_keys()?;
        config.check_memory_bounds()?;
        config.check_partition_size()?;
        Ok(config)
    }

    /// Refuses a config whose rows or slots xs could not hold in bounded memory, with the
    /// arithmetic: at most `MAX_COLUMNS` columns, rows of at most `MAX_ROW_BYTES` and (grid)
    /// slots of at most `MAX_SLOT_BYTES`. The bucket layout keeps no slots (its depth is
    /// recorded but unused).
    pub fn check_memory_bounds(&self) -> std::result::Result<(), String> {
        let columns = self.schema.columns().len();
        if columns > MAX_COLUMNS {
            return Err(format!(
                "{columns} columns is more than the {MAX_COLUMNS} a database can have"
            ));
        }
        let row_len = self.schema.row_len() as u64;
        if row_len > MAX_ROW_BYTES {
            return Err(format!(
                "rows of {row_len} bytes ({columns} columns) are past the bound of {MAX_ROW_BYTES} \
                 bytes ({}) that xs holds in memory per row; use fewer or narrower columns",
                human_bytes(MAX_ROW_BYTES)
            ));
        }
        let slot_bytes = u64::from(self.depth) * row_len;
        if self.layout == Layout::Grid && slot_bytes > MAX_SLOT_BYTES {
            return Err(format!(
                "a slot of depth {} × rows of {row_len} bytes = {slot_bytes} bytes ({}) is past \
                 the bound of {MAX_SLOT_BYTES} bytes ({}) that xs holds in memory per slot; use a \
                 depth of at most {}, fewer or narrower columns, or the bucket layout (no depth)",
                self.depth,
                human_bytes(slot_bytes),
                human_bytes(MAX_SLOT_BYTES),
                MAX_SLOT_BYTES / row_len.max(1)
            ));
        }
        Ok(())
    }

    /// Refuses keys that name no column, name the time column, or name a column twice.
    pub fn check_keys(&self) -> std::result::Result<(), String> {
        let mut seen: Vec<&str> = Vec::new();
        for (what, names) in [("series", &self.keys.series), ("unique", &self.keys.unique)] {
            for name in names {
                if *name == self.time_column {
                    return Err(format!(
                        "the {what} key names the time column `{name}`; rows are already identified by their time"
                    ));
                }
                if self.schema.column_index(name).is_none() {
                    let all: Vec<&str> = self.schema.columns().iter().map(|c| c.name.as_str()).collect();
                    return Err(format!(
                        "the {what} key names `{name}`, which is not a column (the columns: {})",
                        all.join(",")
                    ));
                };
                if seen.contains(&name.as_str()) {
                    return Err(format!(
                        "column `{name}` appears twice in the series and unique keys"
                    ));
                }
                seen.push(name);
            }
        }
        if self.keys.series.len() > MAX_KEY_COLUMNS || self.keys.unique.len() > MAX_KEY_COLUMNS {
            return Err(format!("a key has at most {MAX_KEY_COLUMNS} columns"));
        }
        if let Some(&c) = self
            .series_columns()
            .iter()
            .find(|&&c| matches!(self.schema.columns()[c].ty, ColumnType::F32 | ColumnType::F64))
        {
            return Err(format!(
                "series column `{}` is a float; a series key is text, an integer or a bool",
                self.schema.columns()[c].name
            ));
        }
        let types: Vec<ColumnType> = self
            .series_columns()
            .iter()
            .map(|&c| self.schema.columns()[c].ty)
            .collect();
        let longest = super::series::longest_name(&types);
        if longest > super::series::MAX_NAME_BYTES {
            return Err(format!(
                "the series key's values can take {longest} bytes as a directory name, past the {} \
                 a name may have; use narrower str(N) series columns (a str(N) value takes up to 3×N)",
                super::series::MAX_NAME_BYTES
            ));
        }
        Ok(())
    }

    /// Whether rows are split into series.
    pub fn has_series(&self) -> bool {
        !self.keys.series.is_empty()
    }

    /// Whether storage buckets may carry summaries (rows, min and max per column) that
    /// `Database::scan_summarized` hands out in place of their rows: bucket layout only.
    pub fn may_summarize(&self) -> bool {
        self.layout == Layout::Bucket
    }

    /// Granularity steps in one bucket (bucket layout; 1 for grid).
    pub fn units_per_bucket(&self) -> u64 {
        (self.bucket_ns / self.granularity.ns().max(1)).max(1) as u64
    }

    /// The schema indexes of the series key's columns.
    pub fn series_columns(&self) -> Vec<usize> {
        self.key_columns(&self.keys.series)
    }

    /// The schema indexes of the unique key's columns.
    pub fn unique_columns(&self) -> Vec<usize> {
        self.key_columns(&self.keys.unique)
    }

    fn key_columns(&self, names: &[String]) -> Vec<usize> {
        // check_keys made sure every name is a column.
        names.iter().filter_map(|n| self.schema.column_index(n)).collect()
    }

    /// The format `xs.toml` is written with: the oldest that holds this database.
    pub fn format_version(&self) -> u32 {
        if self.decimal_comma {
            DECIMAL_COMMA_FORMAT_VERSION
        } else if self.date_order.is_some() {
            DATE_ORDER_FORMAT_VERSION
        } else if self.timezone != Zone::Utc {
            TIMEZONE_FORMAT_VERSION
        } else if self.codec == RecordCodec::Columnar {
            COLUMNAR_FORMAT_VERSION
        } else if self.schema.has_sym() {
            SYM_FORMAT_VERSION
        } else if self.keys.is_empty() {
            PLAIN_FORMAT_VERSION
        } else {
            FORMAT_VERSION
        }
    }

    pub fn to_toml(&self) -> String {
        let raw = RawConfig {
            format: self.format_version(),
            layout: self.layout.name().into(),
            bucket: (self.layout == Layout::Bucket).then(|| super::time::format_duration(self.bucket_ns)),
            codec: (self.codec != RecordCodec::Raw).then(|| self.codec.name().into()),
            granularity: self.granularity.to_string(),
            partition: self.period.name().into(),
            depth: self.depth,
            time_column: self.time_column.clone(),
            row_len: self.schema.row_len(),
            series_by: self.keys.series.clone(),
            unique_by: self.keys.unique.clone(),
            schema_hash: self.schema.partition_hash().map(|h| format!("{h:016x}")),
            timezone: (self.timezone != Zone::Utc).then(|| self.timezone.spelling()),
            date_order: self.date_order.map(|o| o.name().to_string()),
            decimal_comma: self.decimal_comma,
            columns: self
                .schema
                .columns()
                .iter()
                .map(|c| RawColumn {
                    name: c.name.clone(),
                    ty: c.ty.to_string(),
                })
                .collect(),
        };
        // Serializing plain strings and integers cannot fail.
        let body = toml::to_string(&raw).unwrap_or_default();
        format!("# xs database config; the format is described in docs/FORMAT.md\n{body}")
    }

    /// Bytes one timestamp's rows take: depth × row length.
    pub fn slab_len(&self) -> u64 {
        u64::from(self.depth) * self.schema.row_len() as u64
    }

    /// Logical size in bytes of the longest partition file of `period`, header included
    /// (for the bucket layout: its directory file; the data file holds only what was written).
    /// Grid: with the slot checks of the partitions created now (version 3); bucket layout: with
    /// the entries of the partitions created now (summaries).
    pub fn max_partition_bytes(&self, period: Period) -> Option<u64> {
        if self.layout == Layout::Grid {
            // Partitions created now carry a check after each slot (version 3).
            let slot_len = self.slab_len().checked_add(super::partition::SLOT_CHECK_LEN)?;
            return partition_bytes(self.granularity, slot_len, period);
        }
        let entry_len = super::summary::SummaryLayout::new(&self.schema).entry_len() as u64;
        self.partition_bytes_with(period, entry_len)
    }

    /// Logical bytes of the longest partition of `period` whose directory entries (bucket
    /// layout) are `entry_len` bytes.
    pub fn partition_bytes_with(&self, period: Period, entry_len: u64) -> Option<u64> {
        match self.layout {
            Layout::Grid => partition_bytes(self.granularity, self.slab_len(), period),
            Layout::Bucket => {
                let buckets = u64::try_from(period.max_len_ns() / self.bucket_ns.max(1)).ok()?;
                buckets
                    .checked_mul(entry_len)?
                    .checked_add(super::partition::HEADER_LEN)
            }
        }
    }

    /// On load: a config valid with 16-byte (version 1) entries stays valid; its partitions
    /// get summaries only where their directory fits (`bucket::newest_version`).
    fn check_partition_size(&self) -> std::result::Result<(), String> {
        let v1_entry_len = super::summary::LOCATOR_LEN as u64;
        match self.partition_bytes_with(self.period, v1_entry_len) {
            Some(len) if len <= MAX_PARTITION_BYTES => Ok(()),
            _ => Err(format!(
                "a {} partition would pass the safe file size of {}; use a smaller period",
                self.period,
                human_bytes(MAX_PARTITION_BYTES)
            )),
        }
    }

    /// Writes `dir/xs.toml` atomically: temp file, fsync, rename, fsync of the directory.
    pub fn save(&self, dir: &Path) -> Result<()> {
        let tmp = dir.join(CONFIG_TEMP_FILE);
        let path = dir.join(CONFIG_FILE);
        let file = super::files::create_temp(&tmp, 0o644)?;
        vfs::write_at(&file, self.to_toml().as_bytes(), 0).map_err(|e| Error::io("write", &tmp, e))?;
        vfs::sync_all(&file).map_err(|e| Error::io("sync", &tmp, e))?;
        vfs::rename(&tmp, &path).map_err(|e| Error::io("rename", &path, e))?;
        sync_dir(dir)
    }
}

/// Checks a bucket width against the granularity: a positive multiple of it that divides one
/// day (so buckets never straddle partitions).
pub fn check_bucket_width(bucket_ns: i64, granularity_ns: i64) -> std::result::Result<(), String> {
    const DAY_NS: i64 = 86_400_000_000_000;
    if bucket_ns <= 0 || DAY_NS % bucket_ns != 0 {
        return Err(format!(
            "bucket width {} does not divide one day evenly; pick one that does (100ms, 1s, 1m …)",
            super::time::format_duration(bucket_ns.max(0))
        ));
    }
    if granularity_ns <= 0 || bucket_ns % granularity_ns != 0 {
        return Err(format!(
            "bucket width {} is not a multiple of the granularity {}",
            super::time::format_duration(bucket_ns),
            super::time::format_duration(granularity_ns.max(0))
        ));
    }
    Ok(())
}

/// Logical bytes of the longest partition of `period` whose slots are `slab_len` bytes, header
/// included; `None` on overflow.
pub fn partition_bytes(granularity: Granularity, slab_len: u64, period: Period) -> Option<u64> {
    let slots = u64::try_from(period.max_len_ns() / granularity.ns()).ok()?;
    slots
        .checked_mul(slab_len)?
        .checked_add(super::partition::HEADER_LEN)
}

/// `wanted` if its partitions stay within `MAX_PARTITION_BYTES`, else (with no wish) the longest
/// of year, month and day that does; `None` when nothing fits.
pub fn choose_period(granularity: Granularity, slab_len: u64, wanted: Option<Period>) -> Option<Period> {
    let fits =
        |p: Period| partition_bytes(granularity, slab_len, p).is_some_and(|b| b <= MAX_PARTITION_BYTES);
    match wanted {
        Some(p) => fits(p).then_some(p),
        None => [Period::Year, Period::Month, Period::Day]
            .into_iter()
            .find(|&p| fits(p)),
    }
}

/// Largest partition file xs creates: ext4 with 4 KiB blocks refuses files of 16 TiB and more.
pub const MAX_PARTITION_BYTES: u64 = (1 << 44) - 4096;

/// Fsyncs a directory so that renames and new files in it survive a crash.
pub fn sync_dir(dir: &Path) -> Result<()> {
    let handle = File::open(dir).map_err(|e| Error::io("open", dir, e))?;
    vfs::sync_all(&handle).map_err(|e| Error::io("sync", dir, e))
}

/// `1.5 GiB`-style size with binary units.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The config path of a database directory.
pub fn config_path(dir: &Path) -> PathBuf {
    dir.join(CONFIG_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config {
            layout: Layout::Grid,
            bucket_ns: 0,
            granularity: Granularity::from_ns(1_000_000).unwrap(),
            period: Period::Year,
            depth: 2,
            time_column: "time".into(),
            schema: Schema::parse_spec("price:f64,side:str(4)").unwrap(),
            keys: Default::default(),
            codec: Default::default(),
            timezone: Default::default(),
            date_order: None,
            decimal_comma: false,
        }
    }

    #[test]
    fn a_decimal_comma_is_format_7_and_round_trips() {
        let mut config = config();
        config.decimal_comma = true;
        config.date_order = Some(DayMonth::DayFirst);
        let toml = config.to_toml();
        assert!(
            toml.contains("format = 7\n") && toml.contains("decimal_comma = true\n"),
            "{toml}"
        );
        assert_eq!(Config::parse(&toml).unwrap(), config);
        let old = toml.replace("format = 7", "format = 6");
        assert!(Config::parse(&old)
            .unwrap_err()
            .contains("decimal_comma needs `format = 7`"));
        // A point (the default) is not written: the format stays what the rest needs.
        config.decimal_comma = false;
        assert!(!config.to_toml().contains("decimal_comma"));
    }

    #[test]
    fn a_date_order_is_format_6_and_round_trips() {
        let mut config = config();
        config.date_order = Some(DayMonth::DayFirst);
        let toml = config.to_toml();
        assert!(
            toml.contains("format = 6\n") && toml.contains("date_order = \"dmy\"\n"),
            "{toml}"
        );
        assert_eq!(Config::parse(&toml).unwrap(), config);
        let old = toml.replace("format = 6", "format = 5");
        assert!(Config::parse(&old)
            .unwrap_err()
            .contains("date_order needs `format = 6`"));
        let bad = toml.replace("\"dmy\"", "\"ymd\"");
        assert!(Config::parse(&bad).unwrap_err().contains("bad date_order `ymd`"));
    }

    #[test]
    fn toml_round_trips() {
        let c = config();
        assert_eq!(Config::parse(&c.to_toml()).unwrap(), c);
    }

    #[test]
    fn a_zone_round_trips_and_makes_the_format_5() {
        for text in ["America/New_York", "-05:00", "+05:30", "Asia/Kolkata"] {
            let c = Config {
                timezone: Zone::parse(text).unwrap(),
                ..config()
            };
            let toml = c.to_toml();
            assert!(toml.contains("format = 5\n"), "{toml}");
            assert!(toml.contains(&format!("timezone = \"{text}\"\n")), "{toml}");
            assert_eq!(Config::parse(&toml).unwrap(), c);
        }
        // UTC is the default: not written, and the format stays the oldest that holds the rest.
        let toml = config().to_toml();
        assert!(
            toml.contains("format = 1\n") && !toml.contains("timezone"),
            "{toml}"
        );
    }

    #[test]
    fn configs_past_the_memory_bounds_are_refused_with_the_arithmetic() {
        let mut c = config();
        c.depth = MAX_DEPTH;
        c.schema = Schema::parse_spec("a:str(4096),b:str(4096),c:str(4096),d:str(4096)").unwrap();
        let err = c.check_memory_bounds().unwrap_err();
        assert!(
            err.contains("depth 65535 × rows of 16385 bytes = 1073790975 bytes"),
            "{err}"
        );
        assert!(err.contains("16777216"), "{err}");
        assert!(Config::parse(&c.to_toml()).unwrap_err().contains("per slot"));
        c.layout = Layout::Bucket;
        c.bucket_ns = 1_000_000_000;
        assert_eq!(c.check_memory_bounds(), Ok(()));
        let wide: Vec<String> = (0..300).map(|i| format!("c{i}:str(4096)")).collect();
        c.schema = Schema::parse_spec(&wide.join(",")).unwrap();
        assert!(c.check_memory_bounds().unwrap_err().contains("per row"));
        c.depth = 1;
        c.layout = Layout::Grid;
        c.bucket_ns = 0;
        let many: Vec<String> = (0..=MAX_COLUMNS).map(|i| format!("c{i}:u8")).collect();
        c.schema = Schema::parse_spec(&many.join(",")).unwrap();
        assert!(c.check_memory_bounds().unwrap_err().contains("4097 columns"));
    }

    #[test]
    fn corrupt_configs_are_refused_with_reasons() {
        let good = config().to_toml();
        let cases = [
            (good.replace("format = 1", "format = 8"), "format version 8"),
            (good.replace("\"f64\"", "\"f128\""), "unknown type"),
            (good.replace("row_len = ", "row_len = 1"), "row_len"),
            (good.replace("\"grid\"", "\"tree\""), "unknown layout"),
            (good.replace("\"1ms\"", "\"7s\""), "bad granularity"),
            ("garbage \u{0} [[[".to_string(), ""),
        ];
        for (text, needle) in cases {
            let err = Config::parse(&text).unwrap_err();
            assert!(err.contains(needle), "{err}");
        }
    }
}
