//! `xs check`: verifies every stored unit of every partition against its check and reports
//! the damaged ones, changing nothing. `defrag` runs the same walk over a partition before it
//! rewrites it, and refuses when anything is damaged.

use crate::db::time::PartitionKey;
use crate::db::Database;
use crate::error::{Damage, Error, Result};

/// One damaged place: a run of adjacent damaged units of one kind, in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The run: its first unit's offset, the run's length in bytes and its times.
    pub damage: Damage,
    /// Damaged units in the run.
    pub units: u64,
}

/// What the walk found in one partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionCheck {
    /// The series' directory name, in a series database.
    pub series: Option<String>,
    pub key: PartitionKey,
    /// Partition header version: 1 and 2 carry no checks on rows (only what decodes is
    /// verified there).
    pub version: u32,
    /// Rows in units that passed their checks.
    pub rows: u64,
    pub findings: Vec<Finding>,
    /// Other problems, as messages: the partition could not be opened (foreign or damaged
    /// header, missing file), or an entry points outside its data file.
    pub problems: Vec<String>,
}

impl PartitionCheck {
    /// The partition's name as `xs stat` prints it: `SERIES/PARTITION` in a series database.
    pub fn name(&self) -> String {
        match &self.series {
            Some(series) => format!("{series}/{}", self.key),
            None => self.key.to_string(),
        }
    }

    pub fn has_checks(&self) -> bool {
        self.version >= crate::db::partition::CHECKSUM_VERSION
    }

    pub fn is_clean(&self) -> bool {
        self.findings.is_empty() && self.problems.is_empty()
    }
}

/// Verifies partition `key` (a fresh handle each time, so nothing cached is trusted).
pub fn check_partition(db: &Database, key: PartitionKey) -> Result<PartitionCheck> {
    let mut findings: Vec<Finding> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    let mut found = |e: Error| match e {
        Error::Checksum(damage) => add(&mut findings, *damage),
        other => problems.push(other.to_string()),
    };
    let opened = db.verify_partition(key, &mut found);
    let (version, rows) = match opened {
        Ok(done) => done,
        Err(Error::Checksum(damage)) => {
            add(&mut findings, *damage);
            (0, 0)
        }
        Err(e @ (Error::Io { .. } | Error::Symlink { .. })) => return Err(e),
        Err(e) => {
            problems.push(e.to_string());
            (0, 0)
        }
    };
    if findings.is_empty() && problems.is_empty() {
        if let Some(problem) = check_sym_codes(db, key)? {
            problems.push(problem);
        }
    }
    Ok(PartitionCheck {
        series: None,
        key,
        version,
        rows,
        findings,
        problems,
    })
}

/// Whether every `sym` code in partition `key` has its dictionary entry (a row whose entry
/// was lost cannot be read back): `Some` message when not.
fn check_sym_codes(db: &Database, key: PartitionKey) -> Result<Option<String>> {
    let schema = db.schema();
    let Some(dict) = schema.syms() else {
        return Ok(None);
    };
    dict.reload()?;
    let known = dict.snapshot()?.len() as u64;
    let fields: Vec<_> = (0..schema.columns().len())
        .filter(|&c| schema.columns()[c].ty == crate::db::schema::ColumnType::Sym)
        .map(|c| schema.field_at(c))
        .collect();
    let (mut bad, mut highest) = (0u64, 0u64);
    db.scan(key.start_ns(), key.end_ns(), |_, row| -> Result<bool> {
        for f in &fields {
            if !f.is_null(row) {
                let code = u64::from(u32::from_le_bytes(crate::db::schema::le(f.bytes(row))));
                if code >= known {
                    bad += 1;
                    highest = highest.max(code);
                }
            }
        }
        Ok(true)
    })?;
    Ok((bad > 0).then(|| {
        format!(
            "{bad} value(s) refer to symbol codes up to {highest}, but {} holds {known} entries: \
             their text is lost; restore sym.dict from a backup",
            dict.path().display()
        )
    }))
}

/// Verifies every partition, in time order; `on_partition` sees each as it is done.
pub fn check(db: &Database, on_partition: &mut dyn FnMut(&PartitionCheck)) -> Result<Vec<PartitionCheck>> {
    if db.is_series_root() {
        // Each series is checked as the database of partitions it is.
        let mut all = Vec::new();
        for (name, series) in db.selected_series()? {
            let named = |p: &PartitionCheck| PartitionCheck {
                series: Some(name.clone()),
                ..p.clone()
            };
            all.extend(
                check(&series, &mut |p| on_partition(&named(p)))?
                    .iter()
                    .map(named),
            );
        }
        return Ok(all);
    }
    let mut all = Vec::new();
    for key in db.partition_keys()? {
        let checked = check_partition(db, key)?;
        on_partition(&checked);
        all.push(checked);
    }
    Ok(all)
}

/// Adds `damage` to `findings`, extending the last run when it is the next unit of the same
/// kind in the same file.
fn add(findings: &mut Vec<Finding>, damage: Damage) {
    if let Some(last) = findings.last_mut() {
        let d = &mut last.damage;
        if d.path == damage.path && d.unit == damage.unit && d.offset + d.len_bytes == damage.offset {
            d.len_bytes += damage.len_bytes;
            d.to_ns = d.to_ns.max(damage.to_ns);
            last.units += 1;
            return;
        }
    }
    findings.push(Finding { damage, units: 1 });
}
