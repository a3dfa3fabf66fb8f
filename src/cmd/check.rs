//! `xs check`: verifies every stored unit of the database against its checksum and reports
//! the damage (file, byte offset, times, count) without changing anything.

use serde_json::{json, Value};
use xs::check::{self, PartitionCheck};
use xs::io::timefmt::format_iso_exact;

use super::{Context, Output};
use crate::exit::{CliResult, Failure, DAMAGED};

const EXAMPLES: &str = "Examples:
  xs -d trades check                        # one line per partition, then the damage found
  xs -d trades check --json | jq '.damaged_units'
  xs -d trades check && xs -d trades defrag  # defrag only what verifies

Exit codes: 0 clean, 6 damage found (details on stdout), 3 the check itself failed.";

/// Verify every slot, bucket record, directory entry and header of the database.
///
/// Reads every allocated byte of every partition (never the holes) and checks each stored
/// unit against its checksum (partition version 3; docs/FORMAT.md). Damaged units are listed
/// with their file, byte offset, length and the times they hold; adjacent ones are merged
/// into one line with a count. When an import did not finish, damage is most likely its torn
/// write, and running that import again rewrites it. Nothing is changed. Partitions written
/// by an older xs (versions 1 and 2) carry no checksums on their rows: only what decodes is
/// verified there, and the report says so.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let dir = ctx.db_dir()?;
    let db = xs::Database::open_to_check(&dir)?;
    super::warn_unfinished_operations(&dir);
    let checked = check::check(&db, &mut |_| {})?;
    if let Some(dict) = db.schema().syms() {
        if let Some(problem) = dict.index_disagreement()? {
            eprintln!("xs: warning: {problem}");
        }
    }
    let damaged_units: u64 = checked.iter().flat_map(|p| &p.findings).map(|f| f.units).sum();
    let problems: usize = checked.iter().map(|p| p.problems.len()).sum();
    let mut out = Output::new();
    if args.json {
        let text = serde_json::to_string_pretty(&to_json(&checked, damaged_units)).unwrap_or_default();
        out.buf.extend_from_slice(text.as_bytes());
        out.buf.push(b'\n');
    } else {
        write_text(&mut out.buf, &checked, damaged_units, problems);
    }
    out.flush()?;
    if damaged_units > 0 || problems > 0 {
        let rerun = xs::db::marker::unfinished_import(db.dir());
        let deletes = xs::db::marker::unfinished_deletes(db.dir());
        let advice = match rerun {
            Some(rerun) => format!(
                "an import did not finish, so the damage is most likely its torn write; run it \
                 again to rewrite it: {rerun}"
            ),
            // A delete cut between its writes of one slot leaves the slot torn; its re-run
            // clears it.
            None if !deletes.is_empty() => format!(
                "a delete did not finish, so the damage is most likely its torn write; run it \
                 again to rewrite it: {}",
                deletes.join(" && ")
            ),
            None => "the damaged rows are not served; restore those partitions from a backup, or \
                     re-import their time ranges"
                .to_string(),
        };
        return Err(Failure::new(
            DAMAGED,
            format!(
                "{} is damaged: {damaged_units} unit(s) fail their checksum, {problems} other problem(s); {advice}",
                db.dir().display()
            ),
        ));
    }
    Ok(())
}

fn write_text(buf: &mut Vec<u8>, checked: &[PartitionCheck], damaged_units: u64, problems: usize) {
    use std::fmt::Write;
    let mut text = String::new();
    for p in checked {
        let state = if !p.is_clean() {
            "DAMAGED"
        } else if p.has_checks() {
            "ok"
        } else {
            "ok (version 1/2: rows carry no checksums, only their structure was verified)"
        };
        let _ = writeln!(text, "{}: {} rows verified, {state}", p.name(), p.rows);
        for f in &p.findings {
            let d = &f.damage;
            let _ = writeln!(
                text,
                "  damaged: {} at byte offset {} ({} bytes, {} {}{}), times {} to {}",
                d.path.display(),
                d.offset,
                d.len_bytes,
                f.units,
                d.unit,
                if f.units == 1 { "" } else { "s" },
                format_iso_exact(d.from_ns),
                format_iso_exact(d.to_ns)
            );
        }
        for problem in &p.problems {
            let _ = writeln!(text, "  problem: {problem}");
        }
    }
    let _ = writeln!(
        text,
        "{} partition(s) checked: {}",
        checked.len(),
        if damaged_units == 0 && problems == 0 {
            "no damage found".to_string()
        } else {
            format!("{damaged_units} damaged unit(s), {problems} other problem(s)")
        }
    );
    buf.extend_from_slice(text.as_bytes());
}

fn to_json(checked: &[PartitionCheck], damaged_units: u64) -> Value {
    let partitions: Vec<Value> = checked
        .iter()
        .map(|p| {
            let findings: Vec<Value> = p
                .findings
                .iter()
                .map(|f| {
                    let d = &f.damage;
                    json!({
                        "file": d.path.display().to_string(),
                        "offset": d.offset,
                        "len_bytes": d.len_bytes,
                        "unit": d.unit,
                        "units": f.units,
                        "from": format_iso_exact(d.from_ns),
                        "to": format_iso_exact(d.to_ns),
                        "from_ns": d.from_ns,
                        "to_ns": d.to_ns,
                    })
                })
                .collect();
            json!({
                "partition": p.name(),
                "version": p.version,
                "checksums": p.has_checks(),
                "rows_verified": p.rows,
                "damage": findings,
                "problems": p.problems,
            })
        })
        .collect();
    json!({
        "clean": checked.iter().all(PartitionCheck::is_clean),
        "damaged_units": damaged_units,
        "partitions": partitions,
    })
}
