//! One module per subcommand. Each turns its arguments into engine calls and owns stdout.

pub mod alter;
pub mod check;
pub mod create;
pub mod defrag;
pub mod delete;
pub mod export;
pub mod generate;
pub mod get;
pub mod get_join;
pub mod import;
pub mod join_input;
pub mod output_args;
pub mod put;
pub mod range;
pub mod schema;
pub mod series_args;
pub mod stat;
pub mod stat_many;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use xs::db::config::CONFIG_FILE;
use xs::db::lock::LockWait;
use xs::io::timefmt::TimeArg;
use xs::{Access, Database};

use crate::cli::{Cli, Command};
use crate::exit::{CliResult, Failure};

/// What every subcommand may need from the global options.
pub struct Context {
    pub db: Option<PathBuf>,
    pub wait: bool,
}

impl Context {
    /// The database directory: `--db`/`XS_DB`, else the current directory if it is a database.
    pub fn db_dir(&self) -> CliResult<PathBuf> {
        if let Some(dir) = &self.db {
            return Ok(dir.clone());
        }
        if Path::new(CONFIG_FILE).exists() {
            return Ok(PathBuf::from("."));
        }
        Err(Failure::usage(
            "no database given and the current directory is not one; pass -d DIR (or set XS_DB), \
             or cd into a database directory",
        ))
    }

    pub fn open_read(&self) -> CliResult<Database> {
        let dir = self.db_dir()?;
        let db = Database::open(&dir, Access::Read, &mut |_| {})?;
        warn_unfinished_operations(&dir);
        Ok(db)
    }

    /// Opens for writing; the lock is taken now and held until the database is dropped.
    pub fn open_write(&self) -> CliResult<Database> {
        let dir = self.db_dir()?;
        let wait = if self.wait { LockWait::Yes } else { LockWait::No };
        let mut on_wait = |holder: Option<&str>| {
            let holder = holder.map(|h| format!(" ({h})")).unwrap_or_default();
            eprintln!("xs: waiting for the writer lock on {}{holder}…", dir.display());
        };
        let db = Database::open(&dir, Access::Write(wait), &mut on_wait)?;
        warn_unfinished_operations(&dir);
        Ok(db)
    }
}

/// Every command but import itself says on stderr when an import was interrupted (and every
/// command, when a delete was).
pub fn warn_unfinished_operations(dir: &Path) {
    let import = xs::db::marker::unfinished_import(dir);
    if import.is_none() && xs::db::marker::unfinished_deletes(dir).is_empty() {
        // Nothing to say. Asked first, as it is cheap: reading `/proc/locks` can take
        // milliseconds (the kernel waits for an RCU grace period), on every command.
        return;
    }
    // A marker beside a live writer is its own: the operation is under way, not abandoned.
    if let Some(pid) = xs::db::lock::active_writer(dir).filter(|&pid| pid != std::process::id()) {
        eprintln!(
            "xs: note: a write into {} is under way (pid {pid}); this read may see some of its rows \
             and not others",
            dir.display()
        );
        return;
    }
    warn_unfinished_deletes(dir);
    if let Some(rerun) = import {
        eprintln!(
            "xs: warning: an import into {} did not finish; complete it by running again: {rerun}",
            dir.display()
        );
    }
}

/// `--wait`, on the commands that take the writer lock (readers never wait).
#[derive(clap::Args, Debug, Default, Clone, Copy)]
pub struct WaitArg {
    /// When another process holds the writer lock, wait for it instead of failing with exit 5.
    #[arg(long)]
    pub wait: bool,
}

pub fn run(cli: Cli) -> CliResult {
    // `--wait` before the subcommand works too (`xs -d DB --wait import …`).
    let wait = cli.wait
        || match &cli.command {
            // The values take anything that starts with a hyphen: `--wait` after them is
            // still the option (put drops it from the values).
            Command::Put(a) => a.wait.wait || a.values.iter().any(|v| v == "--wait"),
            Command::Delete(a) => a.wait.wait,
            Command::Import(a) => a.wait.wait,
            Command::Defrag(a) => a.wait.wait,
            Command::Alter(a) => a.wait.wait,
            _ => false,
        };
    let ctx = Context { db: cli.db, wait };
    match cli.command {
        Command::Create(args) => create::run(&ctx, args),
        Command::Put(args) => put::run(&ctx, args),
        Command::Get(args) => get::run(&ctx, args),
        Command::Range(args) => range::run(&ctx, args),
        Command::Delete(args) => delete::run(&ctx, args),
        Command::Export(args) => export::run(&ctx, args),
        Command::Import(args) => import::run(&ctx, *args),
        Command::Schema(args) => schema::run(&ctx, args),
        Command::Stat(args) => stat::run(&ctx, args),
        Command::Defrag(args) => defrag::run(&ctx, args),
        Command::Check(args) => check::run(&ctx, args),
        Command::Alter(args) => alter::run(&ctx, args),
        Command::Generate(args) => generate::run(args),
    }
}

/// A time argument for clap: ISO-8601 or an epoch number with a unit. One written without a
/// zone is a wall-clock time, placed once the database is open (`place`).
pub fn parse_time(text: &str) -> Result<TimeArg, String> {
    xs::io::timefmt::parse_time_arg(text)
}

/// `t` in UTC ns: a wall-clock time is read in the database's `timezone` (UTC without one),
/// as its imports read the same text, so `get` finds the row an import stored from it.
pub fn place(db: &xs::Database, t: TimeArg) -> CliResult<i64> {
    t.in_zone(&db.config().timezone).map_err(Failure::usage)
}

/// Buffered stdout that flushes in large writes and maps write errors to failures
/// (a closed pipe ends quietly with exit 0).
pub struct Output {
    out: io::Stdout,
    pub buf: Vec<u8>,
    /// Whether stdout's pipe (if it is one) was already offered a larger capacity.
    pipe_grown: bool,
}

/// Bytes collected before one write to stdout.
const OUTPUT_FLUSH_BYTES: usize = 1 << 20;

impl Output {
    pub fn new() -> Output {
        Output {
            out: io::stdout(),
            // Small at first (heap, not a fresh mapping): a one-row `get` stays cheap; the
            // buffer grows to the flush size when there is more to say.
            buf: Vec::with_capacity(16 * 1024),
            pipe_grown: false,
        }
    }

    /// Before the first large write: when stdout is a pipe, asks for a 1 MiB pipe buffer
    /// instead of the default 64 KiB. A megabyte written into a 64 KiB pipe wakes the reader
    /// and puts this process to sleep 16 times; `xs range … | tool` on a trade day spent a
    /// third of its time there. Best effort: a refusal (a lower `fs.pipe-max-size`) changes
    /// nothing.
    fn grow_pipe(&mut self) {
        if std::mem::replace(&mut self.pipe_grown, true) {
            return;
        }
        use std::os::fd::AsRawFd;
        let fd = self.out.as_raw_fd();
        // SAFETY: fstat and fcntl on a descriptor this process owns, with a valid out pointer.
        unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(fd, &mut st) == 0 && st.st_mode & libc::S_IFMT == libc::S_IFIFO {
                libc::fcntl(fd, libc::F_SETPIPE_SZ, OUTPUT_FLUSH_BYTES as libc::c_int);
            }
        }
    }

    /// Writes `bytes` straight to stdout after whatever is buffered (for large formatted blocks).
    pub fn write_block(&mut self, bytes: &[u8]) -> CliResult {
        if self.buf.len() + bytes.len() <= OUTPUT_FLUSH_BYTES {
            self.buf.extend_from_slice(bytes);
            return Ok(());
        }
        self.grow_pipe();
        let mut lock = self.out.lock();
        lock.write_all(&self.buf).map_err(Failure::output)?;
        self.buf.clear();
        lock.write_all(bytes).map_err(Failure::output)
    }

    pub fn flush(&mut self) -> CliResult {
        let mut lock = self.out.lock();
        lock.write_all(&self.buf).map_err(Failure::output)?;
        self.buf.clear();
        lock.flush().map_err(Failure::output)
    }
}

/// Output as a plain byte sink (the columnar writers, files and stdout alike): large writes go
/// straight out, small ones are buffered; errors stay `io::Error` for the caller to describe.
impl Write for Output {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.buf.len() + bytes.len() <= OUTPUT_FLUSH_BYTES {
            self.buf.extend_from_slice(bytes);
            return Ok(());
        }
        self.grow_pipe();
        let mut lock = self.out.lock();
        lock.write_all(&self.buf)?;
        self.buf.clear();
        lock.write_all(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut lock = self.out.lock();
        lock.write_all(&self.buf)?;
        self.buf.clear();
        lock.flush()
    }
}

/// Says on stderr when a delete was interrupted: its window may be partly deleted.
pub fn warn_unfinished_deletes(dir: &Path) {
    for rerun in xs::db::marker::unfinished_deletes(dir) {
        eprintln!(
            "xs: warning: a delete in {} did not finish, so its window may be partly deleted; \
             complete it by running again: {rerun}",
            dir.display()
        );
    }
}
