//! `xs alter`: add a nullable column, widen a column, rename a column, set the zone of
//! imported local times (engine: `db::alter`).

use std::time::Instant;

use xs::db::alter::{self, Change, Step};
use xs::db::schema::ColumnType;

use super::Context;
use crate::exit::{CliResult, Failure};

const EXAMPLES: &str = "Examples:
  xs -d trades alter --add 'fee:dec(8)'      # stored rows read null
  xs -d trades alter --widen 'symbol:str(16)' --widen id:i64
  xs -d trades alter --widen 'qty:dec(10)'   # a larger scale
  xs -d sensors alter --widen 'hum:dec(1)'   # an integer column that now gets decimals
  xs -d trades alter --rename px=price       # only xs.toml changes
  xs -d nyse alter --timezone America/New_York  # for later imports of local times";

/// Test hook: `XS_ALTER_KILL_AT=<step>` makes the process SIGKILL itself when a rewriting alter
/// reaches that step (marked, wrote, committed, renamed: the first of each), to test recovery.
const KILL_AT_ENV: &str = "XS_ALTER_KILL_AT";

/// Change the schema: add nullable columns, widen columns, rename columns; set the zone of
/// imported local times.
///
/// Widening turns str(N) into a larger str(M), an integer into a wider one (i8→i16→i32→i64,
/// u8→u16→u32→u64, an unsigned one into a strictly wider signed one) or into dec(S) or f64
/// (i8, i16, u8 and u16 also into f32), and dec(S) into a larger scale; anything that could
/// lose a value is refused, as is a stored value that would not fit the new type (a dec past
/// its range, an integer past 2^53 that no f64 holds exactly: nothing is changed then). A
/// column that holds no value yet (an `f64` inferred from a first file where it was empty)
/// takes any type; one that holds a value is refused before anything is written.
/// --widen and --rename name the columns as they are before the alter; added columns go after
/// the others. A rename (also of the time column, and in the series and unique keys) changes
/// only xs.toml. Adding or widening rewrites every partition: the new files are written beside
/// the old ones and replace them after xs.toml is renamed into place, so a kill at any point
/// leaves the old schema or the new one; the next writer finishes or undoes what was cut.
/// Needs free space for a copy of every partition (the old files go only after the commit).
/// Holds the writer lock.
#[derive(clap::Args, Debug)]
#[command(after_help = EXAMPLES)]
pub struct Args {
    #[command(flatten)]
    pub wait: super::WaitArg,

    /// Add a column NAME of TYPE (any type create takes), nullable; repeatable.
    #[arg(long, value_name = "NAME:TYPE", value_parser = parse_column)]
    pub add: Vec<(String, ColumnType)>,

    /// Widen column NAME to TYPE; repeatable.
    #[arg(long, value_name = "NAME:TYPE", value_parser = parse_column)]
    pub widen: Vec<(String, ColumnType)>,

    /// Rename column OLD to NEW; repeatable.
    #[arg(long, value_name = "OLD=NEW", value_parser = parse_rename)]
    pub rename: Vec<(String, String)>,

    /// The zone later imports read times written without one in: an IANA name
    /// (`America/New_York`), an offset (`-05:00`) or UTC. Stored rows do not move.
    #[arg(long, value_name = "ZONE", allow_hyphen_values = true)]
    pub timezone: Option<String>,
}

fn parse_column(text: &str) -> Result<(String, ColumnType), String> {
    let (name, ty) = text
        .split_once(':')
        .ok_or_else(|| format!("`{text}` has no type: write NAME:TYPE, e.g. fee:dec(8)"))?;
    let ty = ColumnType::parse(ty).map_err(|e| format!("column `{name}`: {e}"))?;
    Ok((name.trim().to_string(), ty))
}

fn parse_rename(text: &str) -> Result<(String, String), String> {
    let (from, to) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}`: write OLD=NEW, e.g. px=price"))?;
    Ok((from.trim().to_string(), to.trim().to_string()))
}

pub fn run(ctx: &Context, args: Args) -> CliResult {
    let kill_at = std::env::var(KILL_AT_ENV).ok();
    let mut changes = Vec::new();
    changes.extend(args.add.into_iter().map(|(name, ty)| Change::Add { name, ty }));
    changes.extend(
        args.widen
            .into_iter()
            .map(|(name, ty)| Change::Widen { name, ty }),
    );
    changes.extend(
        args.rename
            .into_iter()
            .map(|(from, to)| Change::Rename { from, to }),
    );
    if let Some(text) = &args.timezone {
        let zone = super::create::parse_zone(text)?;
        changes.push(Change::Timezone { zone });
    }
    if changes.is_empty() {
        return Err(Failure::usage(
            "alter: nothing to change; give --add NAME:TYPE, --widen NAME:TYPE, --rename OLD=NEW \
             or --timezone ZONE (see xs alter --help)",
        ));
    }
    let started = Instant::now();
    let db = ctx.open_write()?;
    let plan = alter::plan(db.dir(), db.config(), &changes)?;
    let mut on_step = |step: Step| {
        let name = match step {
            Step::Marked => "marked",
            Step::Wrote(_) => "wrote",
            Step::Committed => "committed",
            Step::Renamed(_) => "renamed",
        };
        if kill_at.as_deref() == Some(name) {
            kill_self();
        }
    };
    let outcome = alter::alter(&db, &plan, &mut on_step)?;
    let spec = outcome.config.schema.spec();
    if plan.rewrite {
        eprintln!(
            "altered {}: {spec}; rewrote {} partition(s) ({} rows) in {:.2} s",
            db.dir().display(),
            outcome.partitions,
            outcome.rows,
            started.elapsed().as_secs_f64()
        );
    } else {
        eprintln!("altered {}: {spec}; only xs.toml changed", db.dir().display());
    }
    if plan.new.timezone != plan.old.timezone {
        eprintln!(
            "  imports and time arguments now read times written without a zone in {} (was {}); \
             stored rows do not move",
            plan.new.timezone.describe(),
            plan.old.timezone.describe()
        );
    }
    Ok(())
}

fn kill_self() {
    // SAFETY: getpid and kill take and return plain integers; SIGKILL to ourselves ends the
    // process at once, as a `kill -9` from outside would.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
}
