//! `xs defrag`: rewrite fragmented partition files contiguously, and report before → after.

use xs::db::bucket::{is_columnar_version, COLUMNAR_VERSION};
use xs::db::config::{human_bytes, RecordCodec};
use xs::db::defrag::{self, Action, BucketState, DefragOptions, Event, Step};
use xs::db::stat::{self, Footprint};

use super::{Context, Output};
use crate::exit::{CliResult, Failure};

const EXAMPLES: &str = "Examples:
  xs defrag                                 # every partition with a fragmented extent
  xs defrag --dry-run                       # what would be rewritten, and the space it needs
  xs defrag 2023 --min-extents 0            # rewrite 2023 even if not fragmented
  xs defrag --min-extents 50                # only partitions with 50+ fragmented extents
  xs defrag --codec columnar                # compress a bucket database's records (and keep doing so)";

/// Test hook: `XS_DEFRAG_KILL_AT=<step>` makes the process SIGKILL itself when a rewrite reaches
/// that step (created, copied, synced, verified, renamed), to test recovery from a crash.
const KILL_AT_ENV: &str = "XS_DEFRAG_KILL_AT";
/// Test hook: `XS_DEFRAG_ASSUME_FREE_BYTES=<n>` replaces the file system's free space figure.
const ASSUME_FREE_ENV: &str = "XS_DEFRAG_ASSUME_FREE_BYTES";

/// Rewrite fragmented partitions so that each data segment is one contiguous allocation.
///
/// For each partition with at least --min-extents fragmented extents (see `xs stat`), a copy
/// is written beside it (.NAME.xs.defrag): each data segment allocated in one piece and
/// copied, all-zero blocks left as holes; then fsynced, verified byte for byte against the
/// original and renamed over it. Holds the writer lock. Checks free space first. A copy left
/// by an interrupted defrag is removed by the next one.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub wait: super::WaitArg,

    /// Partitions to consider, as named by `xs stat` (2024, 2024-03 or 2024.xs; AAPL/2024 in
    /// a series database); default: all.
    #[arg(value_name = "PARTITION")]
    pub partitions: Vec<String>,

    /// Rewrite only partitions with at least N fragmented extents; 0 rewrites every one.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub min_extents: u64,

    /// Report what would be rewritten and the space it needs; change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Bucket layout: store records with this codec from now on (saved in xs.toml) and rewrite
    /// every partition of the other one: columnar (each column compressed) or raw.
    #[arg(long, value_name = "raw|columnar", value_parser = ["raw", "columnar"])]
    pub codec: Option<String>,
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let kill_at = match std::env::var(KILL_AT_ENV) {
        Ok(name) => Some(
            Step::ALL
                .into_iter()
                .find(|s| s.name() == name)
                .ok_or_else(|| Failure::usage(format!("{KILL_AT_ENV}: unknown step `{name}`")))?,
        ),
        Err(_) => None,
    };
    let assume_free_bytes = match std::env::var(ASSUME_FREE_ENV) {
        Ok(text) => Some(
            text.parse::<u64>()
                .map_err(|_| Failure::usage(format!("{ASSUME_FREE_ENV}: not a byte count: `{text}`")))?,
        ),
        Err(_) => None,
    };
    let codec = match args.codec.as_deref() {
        Some(text) => Some(
            RecordCodec::parse(text)
                .ok_or_else(|| Failure::usage(format!("bad --codec `{text}`: raw or columnar")))?,
        ),
        None => None,
    };
    // A dry run changes nothing, so it does not wait for or block writers.
    let mut db = if args.dry_run {
        ctx.open_read()?
    } else {
        ctx.open_write()?
    };
    if let Some(codec) = codec {
        if args.dry_run {
            db.check_codec(codec)?;
        } else {
            db.set_codec(codec)?;
        }
    }
    let partitions = stat::select_series_partitions(&mut db, &args.partitions)?;
    let keys = stat::select_partitions(&db, &partitions)?;
    let series_root = db.is_series_root();
    let options = DefragOptions {
        min_fragmented_extents: args.min_extents,
        dry_run: args.dry_run,
        assume_free_bytes,
        codec,
    };
    let mut out = Output::new();
    let mut write_failure = None;
    let mut on_event = |event: Event<'_>| match event {
        Event::Leftover { path, removed } => {
            let verb = if removed { "removed" } else { "would remove" };
            eprintln!("xs: {verb} {}, left by an interrupted defrag", path.display());
        }
        Event::Step { step, .. } => {
            if Some(step) == kill_at {
                kill_self();
            }
        }
        Event::Done(outcome) => {
            // Each line goes out as its partition finishes, so an error later keeps it.
            let name = match (series_root, outcome.path.parent().and_then(|d| d.file_name())) {
                (true, Some(series)) => format!("{}/{}", series.to_string_lossy(), outcome.key),
                _ => outcome.key.to_string(),
            };
            let line = match (&outcome.buckets, &outcome.action) {
                // A bucket partition is skipped for having nothing to remove, not for its extents.
                (Some(_), Action::NotFragmented) => format!(
                    "{name}: skipped, already compact (no garbage, buckets in time order, \
                     summaries, no fragmented extent): {}",
                    state(&outcome.before)
                ),
                (Some(buckets), action) => {
                    describe(&name, &outcome.before, action) + &describe_buckets(buckets, action)
                }
                (None, action) => describe(&name, &outcome.before, action),
            };
            out.buf.extend_from_slice(line.as_bytes());
            out.buf.push(b'\n');
            if let Err(e) = out.flush() {
                write_failure.get_or_insert(e);
            }
        }
    };
    let outcomes = defrag::defrag(&db, &keys, options, &mut on_event)?;
    if let Some(failure) = write_failure {
        return Err(failure);
    }
    if outcomes.is_empty() {
        out.buf
            .extend_from_slice(b"no partitions yet: nothing to defrag\n");
    }
    out.flush()
}

fn extents(f: &Footprint) -> String {
    f.extents.map(|e| e.to_string()).unwrap_or_else(|| "?".into())
}

fn segments(n: u64) -> String {
    if n == 1 {
        "1 data segment".into()
    } else {
        format!("{n} data segments")
    }
}

/// How a partition occupies the disk, for messages.
fn state(before: &Footprint) -> String {
    format!(
        "{} extents, {}, {} physical",
        extents(before),
        segments(before.data_segments),
        human_bytes(before.physical_bytes)
    )
}

fn describe(name: &str, before: &Footprint, action: &Action) -> String {
    let state = state(before);
    match action {
        Action::Rewritten { after } => format!(
            "{name}: defragmented: extents {} → {}, physical {} → {} ({})",
            extents(before),
            extents(after),
            human_bytes(before.physical_bytes),
            human_bytes(after.physical_bytes),
            segments(after.data_segments)
        ),
        Action::WouldRewrite {
            needed_bytes,
            free_bytes,
        } => format!(
            "{name}: would defragment: {} fragmented; {state}; needs {} free, {} available{}",
            before
                .fragmented_extents()
                .map(|n| format!("{n} extents"))
                .unwrap_or_else(|| "unknown extents".into()),
            human_bytes(*needed_bytes),
            human_bytes(*free_bytes),
            if free_bytes < needed_bytes {
                " (too little: defrag would refuse; free some space first)"
            } else {
                ""
            }
        ),
        Action::NotImproved { copy } => format!(
            "{name}: kept as it was: a verified copy had {} extents and {} physical, no better \
             ({}); {state}",
            extents(copy),
            human_bytes(copy.physical_bytes),
            if before.fragmented_extents() == Some(0) {
                "each data segment already lies in one extent"
            } else {
                "the file system has no larger free runs right now"
            }
        ),
        Action::NotFragmented => format!("{name}: skipped, not fragmented enough: {state}"),
        Action::ExtentsUnknown => format!(
            "{name}: skipped, extents unknown (the file system does not support FIEMAP): {state}; \
             --min-extents 0 rewrites it anyway"
        ),
    }
}

/// What a rewrite from partition version `from` to `to` changes in a bucket partition.
fn upgrade(from: u32, to: u32) -> &'static str {
    match (from, is_columnar_version(to)) {
        (f, false) if is_columnar_version(f) => "raw records",
        (COLUMNAR_VERSION, true) => "paged columnar streams",
        (1, true) => "summaries, checksums and columnar records",
        (2, true) => "checksums and columnar records",
        (_, true) => "columnar records",
        (1, false) => "summaries and checksums",
        (_, false) => "checksums",
    }
}

/// What a bucket partition's rewrite removed or would remove (garbage, buckets out of time
/// order) and adds (summaries), appended to `describe`'s line.
fn describe_buckets(state: &BucketState, action: &Action) -> String {
    let (garbage, order) = (human_bytes(state.garbage_bytes), state.out_of_order);
    let (from, to) = (state.version, state.newest_version);
    let done = matches!(action, Action::Rewritten { .. });
    let mut line = if done {
        format!("; garbage {garbage} → 0 B, buckets out of time order {order} → 0")
    } else {
        format!("; {garbage} garbage, {order} buckets out of time order")
    };
    if from != to {
        line += &if done {
            format!(", {} added (partition version {from} → {to})", upgrade(from, to))
        } else {
            format!(
                ", partition version {from} (a rewrite adds {}: version {to})",
                upgrade(from, to)
            )
        };
    }
    line
}

/// Ends the process as `kill -9` would: no destructors, no cleanup (the test hook).
fn kill_self() {
    // SAFETY: getpid and kill take and return plain integers; SIGKILL to ourselves ends the
    // process here.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
}
