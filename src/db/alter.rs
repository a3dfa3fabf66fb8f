//! `xs alter`: add a nullable column, widen a column, rename a column. A rename changes only
//! `xs.toml` (the partitions keep the schema hash they were written with, `schema_hash`). Adding
//! or widening changes the row length, so every partition is rewritten: the new files are
//! written beside the old ones (`.NAME.alter`) and fsynced, the new `xs.toml` is renamed into
//! place (the one commit point), then the new files are renamed over the old. A kill before the
//! commit leaves the old schema, after it the new one; both read (a partition whose header does
//! not match the config is read from its `.alter` file while that exists), and the next writer
//! finishes the renames or removes the uncommitted files. See docs/FORMAT.md, "Alter".

use std::fs;
use std::path::{Path, PathBuf};

use super::bucket::{self, BucketPartition, NewEntry};
use super::config::{sync_dir, Config, Layout};
use super::files;
use super::partition::{read_full_at, Header, Partition, HEADER_ENCODED_LEN, HEADER_LEN};
use super::schema::{valid_column_name, Column, ColumnType, Schema};
use super::series::SERIES_DIR;
use super::time::Zone;
use super::vfs;
use super::Database;
use crate::error::{Error, Result};

/// Present from before the first new partition file is written until the last is renamed into
/// place: tells the next writer to finish (or undo) an alter.
pub const ALTER_MARKER: &str = ".alter-unfinished";
/// Suffix of a partition file's new version, written beside it as `.NAME.alter`.
const PENDING_SUFFIX: &str = ".alter";

/// The name the new version of the partition file at `path` is written under.
pub fn pending_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    path.with_file_name(format!(".{name}{PENDING_SUFFIX}"))
}

/// Whether an interrupted alter left the new version of `path` beside it.
pub fn has_pending(path: &Path) -> Result<bool> {
    files::exists(&pending_path(path))
}

/// One change `xs alter` makes. Columns are named as they are before the alter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// A new column at the end of the row; stored rows read null there.
    Add { name: String, ty: ColumnType },
    /// A column to a wider type that holds each of its values.
    Widen { name: String, ty: ColumnType },
    /// A column (or the time column) to a new name.
    Rename { from: String, to: String },
    /// The zone later imports read times written without one in (stored rows keep their
    /// instants: only `xs.toml` changes).
    Timezone { zone: Zone },
}

/// What an alter will do: the config after it, and whether the partitions are rewritten.
#[derive(Clone, Debug)]
pub struct Plan {
    pub old: Config,
    pub new: Config,
    /// Rows change length or encoding: every partition is rewritten.
    pub rewrite: bool,
    /// For each new column, the old column it comes from (`None`: added, null in old rows).
    sources: Vec<Option<usize>>,
    /// For each new column, whether it changes to a type that is no widening, which only a
    /// column holding no value may (an `f64` inferred from empty samples that is an `i64`).
    empty_only: Vec<bool>,
}

/// Where a rewriting alter is, for progress and for the crash tests' kill hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// `.alter-unfinished` is written; nothing else yet.
    Marked,
    /// A partition's new file(s) are written and fsynced beside the old.
    Wrote(&'a Path),
    /// The new `xs.toml` is in place: the database has the new schema.
    Committed,
    /// A new file was renamed over the old one.
    Renamed(&'a Path),
}

/// What `alter` did.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub config: Config,
    /// Partition files rewritten (0 for a rename): grid files, or bucket directory/data pairs.
    pub partitions: u64,
    /// Rows copied into the rewritten partitions.
    pub rows: u64,
}

/// Whether values of `from` are all values of `to`, written in `to`'s encoding without loss.
fn widens(from: ColumnType, to: ColumnType) -> bool {
    use ColumnType::*;
    let signed_rank = |t| match t {
        I8 => Some(1),
        I16 => Some(2),
        I32 => Some(3),
        I64 => Some(4),
        _ => None,
    };
    let unsigned_rank = |t| match t {
        U8 => Some(1),
        U16 => Some(2),
        U32 => Some(3),
        U64 => Some(4),
        _ => None,
    };
    match (from, to) {
        (Str(n), Str(m)) => m > n,
        (Dec(s), Dec(t)) => t > s,
        // Whole numbers as decimals or floats: every value is checked as it is rewritten
        // (`Overflow`), and one that does not fit changes nothing.
        (I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64, Dec(_) | F64) => true,
        (I8 | I16 | U8 | U16, F32) => true,
        _ => match (
            signed_rank(from),
            unsigned_rank(from),
            signed_rank(to),
            unsigned_rank(to),
        ) {
            (Some(a), _, Some(b), _) => b > a,
            (_, Some(a), _, Some(b)) => b > a,
            // Unsigned into signed needs a strictly wider type (u32 into i64).
            (_, Some(a), Some(b), _) => b > a,
            _ => false,
        },
    }
}

const WIDENINGS: &str = "xs alter widens str(N) to a larger N, an integer to a wider integer \
    (i8→i16→i32→i64, u8→u16→u32→u64, an unsigned one to a strictly wider signed one), to dec(S) \
    or to f64 (i8, i16, u8 and u16 also to f32), and dec(S) to a larger scale";

/// Checks `changes` against `old` and computes the config after them. Every refusal is
/// `Error::Invalid` (exit code 2) and names the column and the reason; nothing is changed.
pub fn plan(dir: &Path, old: &Config, changes: &[Change]) -> Result<Plan> {
    let refuse = |what: String| Error::Invalid(format!("cannot alter {}: {what}", dir.display()));
    let names = |cols: &[Column]| cols.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(",");
    let mut columns: Vec<Column> = old.schema.columns().to_vec();
    let mut sources: Vec<Option<usize>> = (0..columns.len()).map(Some).collect();
    let mut empty_only = vec![false; columns.len()];
    let mut time_column = old.time_column.clone();
    let mut keys = old.keys.clone();
    let mut rewrite = false;
    let find = |name: &str, verb: &str| -> Result<usize> {
        if name == old.time_column && verb == "widen" {
            return Err(refuse(format!(
                "`{name}` is the time column, whose type is fixed (i64 nanoseconds)"
            )));
        }
        old.schema.column_index(name).ok_or_else(|| {
            refuse(format!(
                "cannot {verb} `{name}`: there is no such column (the columns: {})",
                names(old.schema.columns())
            ))
        })
    };
    let mut widened: Vec<usize> = Vec::new();
    for change in changes {
        if let Change::Widen { name, ty } = change {
            let i = find(name, "widen")?;
            if widened.contains(&i) {
                return Err(refuse(format!("`{name}` is widened twice; give one type")));
            }
            widened.push(i);
            let from = old.schema.columns()[i].ty;
            if from == *ty {
                return Err(refuse(format!("`{name}` is already {ty}")));
            }
            if !widens(from, *ty) {
                // Any type, but only where no value is stored: checked as the rows are rewritten.
                if keys.series.contains(name) || keys.unique.contains(name) {
                    let why = if widens(*ty, from) {
                        format!("{ty} is narrower than {from}, and values could be lost")
                    } else {
                        format!("{from} values cannot all be written as {ty} without loss")
                    };
                    return Err(refuse(format!(
                        "cannot change `{name}` from {from} to {ty}: {why}; {WIDENINGS}"
                    )));
                }
                empty_only[i] = true;
            }
            if matches!(ty, ColumnType::Dec(_) | ColumnType::F32 | ColumnType::F64)
                && keys.series.contains(name)
            {
                return Err(refuse(format!(
                    "`{name}` is in the series key, whose values name the series' directories; \
                     as {ty} they would print differently (export and import into a new database \
                     instead)"
                )));
            }
            columns[i].ty = *ty;
            rewrite = true;
        }
    }
    let mut renamed: Vec<String> = Vec::new();
    for change in changes {
        if let Change::Rename { from, to } = change {
            if renamed.contains(from) {
                return Err(refuse(format!("`{from}` is renamed twice; give one new name")));
            }
            renamed.push(from.clone());
            if !valid_column_name(to) {
                return Err(refuse(format!(
                    "cannot rename `{from}` to `{to}`: bad column name (use 1-64 letters, digits, `_`, `-` or `.`)"
                )));
            }
            if *from == old.time_column {
                time_column = to.clone();
                continue;
            }
            let i = find(from, "rename")?;
            columns[i].name = to.clone();
            for key in [&mut keys.series, &mut keys.unique] {
                for k in key.iter_mut().filter(|k| *k == from) {
                    *k = to.clone();
                }
            }
        }
    }
    for change in changes {
        if let Change::Add { name, ty } = change {
            if !valid_column_name(name) {
                return Err(refuse(format!(
                    "cannot add `{name}`: bad column name (use 1-64 letters, digits, `_`, `-` or `.`)"
                )));
            }
            columns.push(Column {
                name: name.clone(),
                ty: *ty,
            });
            sources.push(None);
            empty_only.push(false);
            rewrite = true;
        }
    }
    // Names after every change: none twice, none the time column's.
    for (i, c) in columns.iter().enumerate() {
        if c.name == time_column {
            return Err(refuse(format!(
                "`{}` would be the name of a column and of the time column; pick another name",
                c.name
            )));
        }
        if columns[..i].iter().any(|o| o.name == c.name) {
            return Err(refuse(format!(
                "two columns would be named `{}`; pick another name (the columns: {})",
                c.name,
                names(old.schema.columns())
            )));
        }
    }
    let mut timezone = old.timezone.clone();
    for change in changes {
        if let Change::Timezone { zone } = change {
            timezone = zone.clone();
        }
    }
    let partition_hash = if rewrite { None } else { Some(old.schema.hash()) };
    let schema = Schema::new(columns)
        .map_err(refuse)?
        .with_partition_hash(partition_hash);
    let new = Config {
        schema,
        time_column,
        keys,
        timezone,
        ..old.clone()
    };
    // The same checks as a config read from disk (memory bounds, keys, partition size).
    Config::parse(&new.to_toml()).map_err(refuse)?;
    Ok(Plan {
        old: old.clone(),
        new,
        rewrite,
        sources,
        empty_only,
    })
}

/// Applies `plan` to the database `db` (opened for writing, so the lock is held).
pub fn alter(db: &Database, plan: &Plan, on_step: &mut dyn FnMut(Step)) -> Result<Outcome> {
    let dir = db.dir().to_path_buf();
    if !db.is_writable() {
        return Err(Error::Invalid("database was opened read-only".into()));
    }
    if let Some(rerun) = super::marker::unfinished_import(&dir) {
        return Err(Error::Invalid(format!(
            "cannot alter {}: an import did not finish; complete it first by running again: {rerun}",
            dir.display()
        )));
    }
    if let Some(rerun) = super::marker::unfinished_deletes(&dir).first() {
        return Err(Error::Invalid(format!(
            "cannot alter {}: a delete did not finish; complete it first by running again: {rerun}",
            dir.display()
        )));
    }
    refuse_unless_empty(db, plan)?;
    if !plan.rewrite {
        plan.new.save(&dir)?;
        return Ok(Outcome {
            config: plan.new.clone(),
            partitions: 0,
            rows: 0,
        });
    }
    super::marker::replace_marker(&dir, ALTER_MARKER, "an xs alter is rewriting the partitions\n")?;
    on_step(Step::Marked);
    let mut outcome = Outcome {
        config: plan.new.clone(),
        partitions: 0,
        rows: 0,
    };
    if let Err(e) = write_pending(db, plan, &mut outcome, on_step) {
        // The old config is still in place: what was written is not the database's, and goes.
        // A cleanup that fails too is left to the next writer: the marker is still there.
        let _ = settle(&dir, &plan.old, &mut |_| {});
        return Err(e);
    }
    // The commit point: from this rename on, the database has the new schema.
    plan.new.save(&dir)?;
    on_step(Step::Committed);
    settle(&dir, &plan.new, on_step)?;
    Ok(outcome)
}

/// Refuses, before anything is written, a type change that is no widening of a column that
/// holds a value (the scan stops at the first).
fn refuse_unless_empty(db: &Database, plan: &Plan) -> Result<()> {
    for (j, _) in plan.empty_only.iter().enumerate().filter(|(_, only)| **only) {
        let Some(i) = plan.sources[j] else { continue };
        let schema = &plan.old.schema;
        let mut wanted = vec![false; schema.columns().len()];
        wanted[i] = true;
        let mut first = None;
        super::with_columns(Some(wanted), || {
            db.scan(i64::MIN, i64::MAX, |t, row| -> Result<bool> {
                if schema.is_null(row, i) {
                    return Ok(true);
                }
                first = Some(t);
                Ok(false)
            })
        })?;
        if let Some(t) = first {
            let (from, to) = (schema.columns()[i].ty, plan.new.schema.columns()[j].ty);
            let why = if widens(to, from) {
                format!("{to} is narrower than {from}, and values could be lost")
            } else {
                format!("{from} values cannot all be written as {to} without loss")
            };
            return Err(Error::Invalid(format!(
                "cannot alter {}: cannot change `{}` from {from} to {to}: {why}; {WIDENINGS}. Only \
                 a column that holds no value takes any type, and this one holds a value at {}",
                db.dir().display(),
                schema.columns()[i].name,
                crate::io::timefmt::format_iso_exact(t),
            )));
        }
    }
    Ok(())
}

/// Writes the new file of every partition of `db` (of each series) as `.NAME.alter`, fsynced.
fn write_pending(
    db: &Database,
    plan: &Plan,
    outcome: &mut Outcome,
    on_step: &mut dyn FnMut(Step),
) -> Result<()> {
    let converter = Converter::new(plan);
    let mut one = |h: &Database| -> Result<()> {
        let keys = h.partition_keys()?;
        for key in &keys {
            outcome.rows += match plan.old.layout {
                Layout::Grid => rewrite_grid(h, *key, plan, &converter)?,
                Layout::Bucket => rewrite_bucket(h, *key, plan, &converter)?,
            };
            outcome.partitions += 1;
            on_step(Step::Wrote(&h.dir().join(key.file_name())));
            // Each partition's files closed when done: a database may have thousands.
            h.forget_partition(*key);
        }
        if !keys.is_empty() {
            sync_dir(h.dir())?;
        }
        Ok(())
    };
    if db.is_series_root() {
        for name in db.series_names()? {
            if let Some(series) = db.series_db(&name, false)? {
                one(&series)?;
            }
        }
        db.forget_series();
        Ok(())
    } else {
        one(db)
    }
}

/// Old rows to new: copies, widens and nulls fields.
struct Converter {
    old: Schema,
    new: Schema,
    sources: Vec<Option<usize>>,
    empty_only: Vec<bool>,
}

/// A value that does not fit its widened column (as stored: a `dec`'s scaled integer), or
/// any value of a column that only changes type when it holds none (`value` is `None`).
struct Overflow {
    column: usize,
    value: Option<i128>,
}

impl Converter {
    fn new(plan: &Plan) -> Converter {
        Converter {
            old: plan.old.schema.clone(),
            new: plan.new.schema.clone(),
            sources: plan.sources.clone(),
            empty_only: plan.empty_only.clone(),
        }
    }

    /// Writes `old_row` (present) as a row of the new schema into `out` (`new.row_len()` bytes).
    fn convert(&self, old_row: &[u8], out: &mut [u8]) -> std::result::Result<(), Overflow> {
        out.fill(0);
        out[0] = 1;
        for (j, source) in self.sources.iter().enumerate() {
            let Some(i) = *source else {
                self.new.set_null(out, j);
                continue;
            };
            if self.old.is_null(old_row, i) {
                self.new.set_null(out, j);
                continue;
            }
            if self.empty_only[j] {
                return Err(Overflow {
                    column: j,
                    value: None,
                });
            }
            let from_ty = self.old.columns()[i].ty;
            let to_ty = self.new.columns()[j].ty;
            let src = self.old.field_bytes(old_row, i);
            let at = self.new.field_offset(j);
            let dst = &mut out[at..at + to_ty.width_bytes()];
            let overflow = |value| Overflow {
                column: j,
                value: Some(value),
            };
            match (from_ty, to_ty) {
                (ColumnType::Dec(s), ColumnType::Dec(t)) if s != t => {
                    let value = i64::from_le_bytes(super::schema::le::<8>(src));
                    let scaled = value
                        .checked_mul(super::decimal::pow10(t - s))
                        .ok_or(overflow(i128::from(value)))?;
                    dst.copy_from_slice(&scaled.to_le_bytes());
                }
                (from, ColumnType::Dec(t)) if is_whole(from) => {
                    let value = whole_number(from_ty, src);
                    let scaled = value
                        .checked_mul(i128::from(super::decimal::pow10(t)))
                        .and_then(|v| i64::try_from(v).ok())
                        .ok_or(overflow(value))?;
                    dst.copy_from_slice(&scaled.to_le_bytes());
                }
                (from, ColumnType::F64) if is_whole(from) => {
                    let value = whole_number(from_ty, src);
                    let float = value as f64;
                    // Exact below 2^53; past it, only the values a float holds (checked back).
                    if float as i128 != value {
                        return Err(overflow(value));
                    }
                    dst.copy_from_slice(&float.to_le_bytes());
                }
                (from, ColumnType::F32) if is_whole(from) => {
                    // Only 8- and 16-bit integers widen to f32: all exact.
                    dst.copy_from_slice(&(whole_number(from_ty, src) as f32).to_le_bytes());
                }
                (from, _) if is_whole(from) => {
                    // An integer into a wider one: the low bytes of its value, sign- or
                    // zero-extended, are the wider encoding.
                    dst.copy_from_slice(&whole_number(from, src).to_le_bytes()[..dst.len()]);
                }
                _ => {
                    // The same type, and str(N) (zero-padded).
                    dst[..src.len()].copy_from_slice(src);
                }
            }
        }
        Ok(())
    }

    fn overflow_error(&self, o: Overflow, t_ns: i64, where_: &Path) -> Error {
        let column = &self.new.columns()[o.column];
        let old_ty = self.sources[o.column].map(|i| self.old.columns()[i].ty);
        let at = crate::io::timefmt::format_iso_exact(t_ns);
        let Some(value) = o.value else {
            let from = old_ty.map(|t| t.to_string()).unwrap_or_default();
            return Error::Invalid(format!(
                "cannot change `{}` from {from} to {}: that is no widening, which only a column \
                 holding no value may take, and it holds a value at {at} (in {}); nothing was \
                 changed. {WIDENINGS}; to change the type of values, export them and import \
                 into a new database created with --columns",
                column.name,
                column.ty,
                where_.display(),
            ));
        };
        let old_scale = match old_ty {
            Some(ColumnType::Dec(s)) => s,
            _ => 0,
        };
        let why = match column.ty {
            ColumnType::Dec(new_scale) => format!(
                "does not fit, since dec({new_scale}) holds at most ±{}; nothing was changed \
                 (choose a smaller scale)",
                super::decimal::to_string(i128::from(i64::MAX), new_scale)
            ),
            _ => "is no f64 (a float holds whole numbers exactly up to 2^53); nothing was changed \
                  (keep the integer type, or widen to dec(0))"
                .to_string(),
        };
        Error::Invalid(format!(
            "cannot widen `{}` to {}: the value {} stored at {} (in {}) {why}",
            column.name,
            column.ty,
            super::decimal::to_string(value, old_scale),
            at,
            where_.display(),
        ))
    }
}

/// Whether `ty` is an integer type.
fn is_whole(ty: ColumnType) -> bool {
    use ColumnType::*;
    matches!(ty, I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64)
}

/// A stored integer field's value (its width and sign from `ty`).
fn whole_number(ty: ColumnType, src: &[u8]) -> i128 {
    use ColumnType::*;
    let signed = matches!(ty, I8 | I16 | I32 | I64);
    let mut wide = if signed && src[src.len() - 1] & 0x80 != 0 {
        [0xFF; 16]
    } else {
        [0; 16]
    };
    wide[..src.len()].copy_from_slice(src);
    i128::from_le_bytes(wide)
}

/// Writes grid partition `key` of `db` in the new schema as `.NAME.alter`; returns its rows.
fn rewrite_grid(db: &Database, key: super::time::PartitionKey, plan: &Plan, conv: &Converter) -> Result<u64> {
    let Some(old) = db.partition(key, false)? else {
        return Ok(0);
    };
    let name = format!(".{}{PENDING_SUFFIX}", key.file_name());
    let new = Partition::create_as(db.dir(), &plan.new, key, &name)?;
    let (old_row, new_row) = (plan.old.schema.row_len(), plan.new.schema.row_len());
    let depth = plan.old.depth as usize;
    let per_read = (1u64 << 20).div_ceil(old.slot_len).max(1);
    let (mut buf, mut out, mut slab) = (Vec::new(), Vec::new(), vec![0u8; new.slab_len as usize]);
    let mut rows = 0u64;
    let mut next = 0u64;
    for (from, to) in old.data_segments(HEADER_LEN, old.logical_len())? {
        let mut slot = old.slot_at_byte(from).max(next);
        let end = (to - HEADER_LEN).div_ceil(old.slot_len).min(old.slots);
        next = next.max(end);
        while slot < end {
            let n = per_read.min(end - slot);
            old.read_slots(slot, n, &mut buf)?;
            out.clear();
            for (i, rows_of_slot) in buf.chunks_exact(old.slab_len as usize).enumerate() {
                slab.fill(0);
                let present = rows_of_slot
                    .chunks_exact(old_row)
                    .take(depth)
                    .take_while(|r| Schema::is_present(r));
                for (k, row) in present.enumerate() {
                    conv.convert(row, &mut slab[k * new_row..(k + 1) * new_row])
                        .map_err(|o| conv.overflow_error(o, db.time_of(key, slot + i as u64), db.dir()))?;
                    rows += 1;
                }
                new.encode_slot(slot + i as u64, &slab, &mut out);
            }
            new.write_at(&out, new.slot_offset(slot))?;
            slot += n;
        }
    }
    new.sync()?;
    Ok(rows)
}

/// Writes bucket partition `key` of `db` in the new schema as `.NAME.alter` and
/// `.NAME.data.alter`; returns its rows.
fn rewrite_bucket(
    db: &Database,
    key: super::time::PartitionKey,
    plan: &Plan,
    conv: &Converter,
) -> Result<u64> {
    let Some(old) = db.bucket_partition(key, false)? else {
        return Ok(0);
    };
    let dir_name = format!(".{}{PENDING_SUFFIX}", key.file_name());
    let data_name = format!(".{}{PENDING_SUFFIX}", bucket::data_file_name(key));
    let new = BucketPartition::create_as(db.dir(), &plan.new, key, &dir_name, &data_name)?;
    let new_row = plan.new.schema.row_len();
    // Windows of entries, and records flushed in large appends, keep memory bounded.
    const WINDOW_BUCKETS: u64 = 1 << 16;
    const FLUSH_BYTES: usize = 8 << 20;
    let mut rows = 0u64;
    let mut records: Vec<u8> = Vec::new();
    // Each record's bucket and entry, its offset counted from the start of `records`.
    let mut placed: Vec<(u64, NewEntry)> = Vec::new();
    let mut converted: Vec<u8> = Vec::new();
    let flush = |records: &mut Vec<u8>, placed: &mut Vec<(u64, NewEntry)>| -> Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        let base = new.append(records)?;
        for (b, entry) in placed.iter_mut() {
            entry.entry.offset += base;
            new.write_entries(*b, std::slice::from_ref(entry))?;
        }
        records.clear();
        placed.clear();
        Ok(())
    };
    old.for_each_entry_window(WINDOW_BUCKETS, |entries| {
        let mut failure = None;
        old.read_buckets(entries, |b, stored| {
            converted.clear();
            converted.resize(stored.len() * new_row, 0);
            for (k, row) in stored.rows.chunks_exact(old.row_len).enumerate() {
                if let Err(o) = conv.convert(row, &mut converted[k * new_row..(k + 1) * new_row]) {
                    let t_ns = old.bucket_start_ns(b) + stored.units[k] as i64 * old.granularity_ns;
                    failure = Some(conv.overflow_error(o, t_ns, db.dir()));
                    return Ok(false);
                }
            }
            rows += stored.len() as u64;
            let at = records.len();
            new.encode_record(b, &stored.units, &converted, &mut records);
            placed.push((b, new.entry_for(records.len() - at, &converted, at as u64)?));
            if records.len() >= FLUSH_BYTES {
                flush(&mut records, &mut placed)?;
            }
            Ok(true)
        })?;
        match failure {
            Some(e) => Err(e),
            None => Ok(()),
        }
    })?;
    flush(&mut records, &mut placed)?;
    new.sync()?;
    Ok(rows)
}

/// The directories that hold partition files: `dir`, or each series directory.
fn partition_dirs(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut dirs = vec![dir.to_path_buf()];
    // Listed without following a link in its place (an error, not another directory's files).
    let top = dir.join(SERIES_DIR);
    for name in super::files::list_dir(&top)?.unwrap_or_default() {
        let path = top.join(name);
        // Never followed as links: a link is not a series directory.
        if fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            dirs.push(path);
        }
    }
    Ok(dirs)
}

/// Finishes an alter that a kill interrupted, if `dir` has one (the writer's first step on
/// open): with `config` the config in place, each `.NAME.alter` file whose header is of this
/// config (the alter committed) replaces `NAME`, any other (it did not) is removed.
pub fn finish_interrupted(dir: &Path, config: &Config) -> Result<()> {
    if !files::exists(&dir.join(ALTER_MARKER))? {
        return Ok(());
    }
    settle(dir, config, &mut |_| {})
}

/// Renames the pending files that belong to `config` into place and removes the others, in
/// every partition directory, then the marker.
fn settle(dir: &Path, config: &Config, on_step: &mut dyn FnMut(Step)) -> Result<()> {
    for d in partition_dirs(dir)? {
        settle_dir(&d, config, on_step)?;
    }
    let marker = dir.join(ALTER_MARKER);
    match vfs::remove_file(&marker) {
        Ok(()) => sync_dir(dir),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io("remove", &marker, e)),
    }
}

fn settle_dir(d: &Path, config: &Config, on_step: &mut dyn FnMut(Step)) -> Result<()> {
    let entries = fs::read_dir(d).map_err(|e| Error::io("read directory", d, e))?;
    let mut pending: Vec<String> = Vec::new();
    let mut stale: Vec<String> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read directory", d, e))?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if !name.starts_with('.') {
            continue;
        }
        if name.ends_with(PENDING_SUFFIX) {
            pending.push(name);
        } else if name.ends_with(&format!("{PENDING_SUFFIX}.tmp")) {
            stale.push(name);
        }
    }
    if pending.is_empty() && stale.is_empty() {
        return Ok(());
    }
    // Data files before directories: a bucket directory never indexes a data file of the
    // other schema under the real names (each file is read from its `.alter` until renamed).
    pending.sort_by_key(|n| {
        (
            !n.ends_with(&format!("{}{PENDING_SUFFIX}", bucket::DATA_SUFFIX)),
            n.clone(),
        )
    });
    for name in &pending {
        let path = d.join(name);
        let target = d.join(&name[1..name.len() - PENDING_SUFFIX.len()]);
        if belongs(&path, config)? {
            vfs::rename(&path, &target).map_err(|e| Error::io("rename", &path, e))?;
            on_step(Step::Renamed(&target));
        } else {
            remove(&path)?;
        }
    }
    for name in &stale {
        remove(&d.join(name))?;
    }
    sync_dir(d)
}

fn remove(path: &Path) -> Result<()> {
    match vfs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io("remove", path, e)),
    }
}

/// Whether the partition file at `path` was written for `config`'s rows (an alter's rewrite
/// always changes the schema hash: a type or a column is new).
fn belongs(path: &Path, config: &Config) -> Result<bool> {
    let file = files::open(path, files::Mode::Read, "open")?;
    let mut block = [0u8; HEADER_ENCODED_LEN];
    read_full_at(&file, &mut block, 0).map_err(|e| Error::io("read", path, e))?;
    Ok(Header::decode(&block).is_ok_and(|h| {
        h.schema_hash == config.schema.hash() && h.row_len as usize == config.schema.row_len()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ColumnType::*;

    #[test]
    fn whole_numbers_read_with_their_sign() {
        assert_eq!(whole_number(I8, &[0x80]), -128);
        assert_eq!(whole_number(U8, &[0x80]), 128);
        assert_eq!(whole_number(U64, &u64::MAX.to_le_bytes()), i128::from(u64::MAX));
        assert_eq!(whole_number(I64, &(-5i64).to_le_bytes()), -5);
    }

    #[test]
    fn widenings() {
        for (from, to) in [(I8, I16), (I8, I64), (U8, U16), (U8, I16), (U32, I64), (U16, U64)] {
            assert!(widens(from, to), "{from} -> {to}");
        }
        for (from, to) in [
            (I16, I8),
            (U8, I8),
            (U32, I32),
            (I8, U16),
            (I64, U64),
            (F32, F64),
            (I32, F32),
            (Dec(2), F64),
            (F64, Dec(2)),
        ] {
            assert!(!widens(from, to), "{from} -> {to}");
        }
        for (from, to) in [(I8, Dec(2)), (U64, Dec(0)), (I32, F64), (I64, F64), (U16, F32)] {
            assert!(widens(from, to), "{from} -> {to}");
        }
        assert!(widens(Str(4), Str(8)) && !widens(Str(8), Str(4)) && !widens(Str(4), Str(4)));
        assert!(widens(Dec(2), Dec(8)) && !widens(Dec(8), Dec(2)));
    }
}
