//! `xs stat DB DB…` and `xs stat --recursive ROOT`: a storage audit across databases, one line
//! per database and the totals (docs/STAT.md, "Several databases").

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use xs::db::config::{human_bytes, CONFIG_FILE};
use xs::db::stat::{self, StatOptions};
use xs::{Access, Database};

use super::Output;
use crate::exit::{CliResult, Failure};

/// What the audit found in one database.
struct Summary {
    layout: &'static str,
    partitions: usize,
    series: usize,
    logical_bytes: u64,
    physical_bytes: u64,
    rows: Option<u64>,
    /// Bucket layout: data file bytes no directory entry points to.
    garbage_bytes: u64,
    /// The rejects files in the database directory (`rejects-*.csv`), with their rows.
    rejects: Vec<(String, u64)>,
    unfinished_import: bool,
    unfinished_deletes: usize,
}

struct Audited {
    dir: PathBuf,
    /// The summary, or why the database could not be read (and its exit code).
    found: Result<Summary, Failure>,
}

/// Whether `path` is a database directory (it holds `xs.toml`).
pub fn is_database(path: &Path) -> bool {
    path.join(CONFIG_FILE).is_file()
}

/// The databases under `root`: `root` itself if it is one, else every directory below it that
/// holds `xs.toml`, in name order. Symbolic links are not followed, and a database's own
/// directories (its series) are not searched.
pub fn find_databases(root: &Path) -> CliResult<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if is_database(&dir) {
            found.push(dir);
            continue;
        }
        let entries = std::fs::read_dir(&dir).map_err(|e| {
            Failure::new(
                crate::exit::ERROR,
                format!("cannot list {}: {}", dir.display(), xs::error::describe_io(&e)),
            )
        })?;
        let mut children: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        children.sort();
        // Popped last first: reversed, the walk visits names in order.
        stack.extend(children.into_iter().rev());
    }
    found.sort();
    Ok(found)
}

pub fn run(dirs: &[PathBuf], json: bool, exact: bool, count_rows: bool) -> CliResult {
    let audited: Vec<Audited> = dirs
        .iter()
        .map(|dir| Audited {
            dir: dir.clone(),
            found: summarize(dir, count_rows),
        })
        .collect();
    let mut out = Output::new();
    if json {
        let text = serde_json::to_string_pretty(&to_json(&audited, count_rows)).unwrap_or_default();
        out.buf.extend_from_slice(text.as_bytes());
        out.buf.push(b'\n');
    } else {
        out.buf
            .extend_from_slice(table(&audited, exact, count_rows).as_bytes());
    }
    out.flush()?;
    let failed: Vec<&Audited> = audited.iter().filter(|a| a.found.is_err()).collect();
    match failed.first() {
        None => Ok(()),
        Some(first) => {
            let code = first.found.as_ref().err().map_or(crate::exit::ERROR, |f| f.code);
            Err(Failure::new(
                code,
                format!(
                    "{} of {} databases could not be read (marked in the report); the first: {}",
                    failed.len(),
                    audited.len(),
                    first.dir.display()
                ),
            ))
        }
    }
}

fn summarize(dir: &Path, count_rows: bool) -> Result<Summary, Failure> {
    let db = Database::open(dir, Access::Read, &mut |_| {})?;
    let keys = stat::select_partitions(&db, &[])?;
    let report = stat::stat(&db, &keys, StatOptions { count_rows })?;
    Ok(Summary {
        layout: db.config().layout.name(),
        partitions: report.partitions.len(),
        series: report.series,
        logical_bytes: report.total.logical_bytes,
        physical_bytes: report.total.physical_bytes,
        rows: report.total_rows.map(|r| r.rows),
        garbage_bytes: report
            .partitions
            .iter()
            .filter_map(|p| p.bucket.as_ref())
            .map(|b| b.garbage_bytes)
            .sum(),
        rejects: rejects_files(dir)?,
        unfinished_import: report.unfinished_import.is_some(),
        unfinished_deletes: report.unfinished_deletes.len(),
    })
}

/// The default rejects files of an import (`DIR/rejects-*.csv`) with their rows (CSV records
/// after the header, so a quoted line break does not count twice).
fn rejects_files(dir: &Path) -> Result<Vec<(String, u64)>, Failure> {
    let unreadable = |path: &Path, e: String| {
        Failure::new(crate::exit::ERROR, format!("cannot read {}: {e}", path.display()))
    };
    let entries = std::fs::read_dir(dir).map_err(|e| unreadable(dir, xs::error::describe_io(&e)))?;
    let mut files: Vec<(String, u64)> = Vec::new();
    for entry in entries.filter_map(|e| e.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if !is_file || !name.starts_with("rejects-") || !name.ends_with(".csv") {
            continue;
        }
        let path = entry.path();
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .from_path(&path)
            .map_err(|e| unreadable(&path, e.to_string()))?;
        let mut rows = 0u64;
        let mut record = csv::ByteRecord::new();
        while reader
            .read_byte_record(&mut record)
            .map_err(|e| unreadable(&path, e.to_string()))?
        {
            rows += 1;
        }
        files.push((name, rows));
    }
    files.sort();
    Ok(files)
}

fn to_json(audited: &[Audited], count_rows: bool) -> Value {
    let mut total = Totals::default();
    let databases: Vec<Value> = audited
        .iter()
        .map(|a| {
            let dir = a.dir.display().to_string();
            match &a.found {
                Ok(s) => {
                    total.add(s);
                    json!({
                        "database": dir,
                        "layout": s.layout,
                        "partitions": s.partitions,
                        "series": s.series,
                        "logical_bytes": s.logical_bytes,
                        "physical_bytes": s.physical_bytes,
                        "rows": s.rows,
                        "garbage_bytes": s.garbage_bytes,
                        "rejects_files": s.rejects.iter()
                            .map(|(file, rows)| json!({"file": file, "rows": rows}))
                            .collect::<Vec<_>>(),
                        "rejects_rows": s.rejects.iter().map(|r| r.1).sum::<u64>(),
                        "unfinished_import": s.unfinished_import,
                        "unfinished_deletes": s.unfinished_deletes,
                        "error": null,
                    })
                }
                Err(f) => {
                    total.errors += 1;
                    json!({"database": dir, "error": f.message.clone().unwrap_or_default()})
                }
            }
        })
        .collect();
    json!({
        "xs_stat_version": 1,
        "rows_counted": count_rows,
        "databases": databases,
        "total": {
            "databases": audited.len(),
            "unreadable": total.errors,
            "partitions": total.partitions,
            "logical_bytes": total.logical_bytes,
            "physical_bytes": total.physical_bytes,
            "rows": count_rows.then_some(total.rows),
            "garbage_bytes": total.garbage_bytes,
            "rejects_files": total.rejects_files,
            "rejects_rows": total.rejects_rows,
        },
    })
}

#[derive(Default)]
struct Totals {
    partitions: usize,
    logical_bytes: u64,
    physical_bytes: u64,
    rows: u64,
    garbage_bytes: u64,
    rejects_files: usize,
    rejects_rows: u64,
    errors: usize,
}

impl Totals {
    fn add(&mut self, s: &Summary) {
        self.partitions += s.partitions;
        self.logical_bytes += s.logical_bytes;
        self.physical_bytes += s.physical_bytes;
        self.rows += s.rows.unwrap_or(0);
        self.garbage_bytes += s.garbage_bytes;
        self.rejects_files += s.rejects.len();
        self.rejects_rows += s.rejects.iter().map(|r| r.1).sum::<u64>();
    }
}

const HEADINGS: [&str; 8] = [
    "database",
    "layout",
    "partitions",
    "logical",
    "physical",
    "rows",
    "garbage",
    "rejects",
];

fn table(audited: &[Audited], exact: bool, count_rows: bool) -> String {
    let size = |n: u64| if exact { n.to_string() } else { human_bytes(n) };
    let rows = |n: Option<u64>| n.map_or_else(|| "-".to_string(), |n| n.to_string());
    let rejects = |files: usize, rows: u64| {
        let rows = if rows == 1 {
            "1 row".to_string()
        } else {
            format!("{rows} rows")
        };
        match files {
            0 => "0".to_string(),
            1 => format!("{rows} in 1 file"),
            n => format!("{rows} in {n} files"),
        }
    };
    let mut cells: Vec<Vec<String>> = vec![HEADINGS.iter().map(|h| h.to_string()).collect()];
    let mut notes = Vec::new();
    let mut total = Totals::default();
    for a in audited {
        let name = a.dir.display().to_string();
        match &a.found {
            Ok(s) => {
                total.add(s);
                let layout = match s.series {
                    0 => s.layout.to_string(),
                    n => format!("{} ({n} series)", s.layout),
                };
                let rejects_rows = s.rejects.iter().map(|r| r.1).sum();
                cells.push(vec![
                    name.clone(),
                    layout,
                    s.partitions.to_string(),
                    size(s.logical_bytes),
                    size(s.physical_bytes),
                    rows(s.rows),
                    size(s.garbage_bytes),
                    rejects(s.rejects.len(), rejects_rows),
                ]);
                if s.unfinished_import {
                    notes.push(format!(
                        "{name}: an import did not finish (`xs -d {name} stat` says how to complete it)"
                    ));
                }
                if s.unfinished_deletes > 0 {
                    notes.push(format!(
                        "{name}: a delete did not finish (`xs -d {name} stat` says how to complete it)"
                    ));
                }
            }
            Err(f) => {
                total.errors += 1;
                let mut line = vec![name.clone(), "unreadable".to_string()];
                line.resize(HEADINGS.len(), "-".to_string());
                cells.push(line);
                notes.push(format!("{name}: {}", f.message.clone().unwrap_or_default()));
            }
        }
    }
    cells.push(vec![
        format!("total ({} databases)", audited.len()),
        String::new(),
        total.partitions.to_string(),
        size(total.logical_bytes),
        size(total.physical_bytes),
        rows(count_rows.then_some(total.rows)),
        size(total.garbage_bytes),
        rejects(total.rejects_files, total.rejects_rows),
    ]);
    // Names read left to right; numbers align on the right.
    let mut text = super::stat::aligned(&cells, |i| i < 2 || i == 7);
    if audited.is_empty() {
        text.push_str("no databases found (a database is a directory holding xs.toml)\n");
    }
    if !count_rows {
        text.push_str("rows: not counted (--fast)\n");
    }
    for note in notes {
        text.push_str(&note);
        text.push('\n');
    }
    text
}
