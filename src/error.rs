//! The engine's error type: every variant carries what a person needs to act (path, time, value).

use std::io;
use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug)]
pub enum Error {
    /// An operating-system call failed on `path`.
    Io {
        op: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    /// `path` holds no `xs.toml`.
    NotADatabase { path: PathBuf },
    /// A symbolic link where the database keeps one of its files: xs never follows one.
    Symlink { path: PathBuf },
    /// `create` found something at `path` already.
    AlreadyExists { path: PathBuf },
    /// `xs.toml` is unreadable, of an unknown version, or inconsistent.
    BadConfig { path: PathBuf, reason: String },
    /// A file the database needs is missing; `reason` names it and says what to do.
    MissingFile { path: PathBuf, reason: String },
    /// A partition file that is damaged or mid-repair; `reason` says what and what to do.
    Damaged { path: PathBuf, reason: String },
    /// A partition file whose header does not belong to this database.
    ForeignPartition { path: PathBuf, reason: String },
    /// Another process holds the writer lock.
    Locked { path: PathBuf, holder: Option<String> },
    /// A request that cannot be satisfied as asked (bad spec, bad value, misaligned time...).
    Invalid(String),
    /// More rows at one timestamp than the database's depth.
    DepthFull { t_ns: i64, depth: u32 },
    /// An answer the data makes too large for its type (a sum past i64): a runtime error,
    /// not a usage one.
    Overflow(String),
    /// `defrag` refused or failed to rewrite the partition at `path`; `reason` says why and
    /// what to do.
    Defrag { path: PathBuf, reason: String },
    /// `defrag` refused to rewrite the partition at `path` because it holds damaged units.
    DefragDamaged { path: PathBuf, reason: String },
    /// A stored unit failed its check: it is never served as data.
    Checksum(Box<Damage>),
}

/// A stored unit (grid slot, bucket record or directory entry, directory block) that failed
/// its check, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    pub path: PathBuf,
    /// Byte offset of the unit in `path`, and its length.
    pub offset: u64,
    pub len_bytes: u64,
    /// What the unit is ("slot", "record", "directory entry", "directory block").
    pub unit: &'static str,
    /// The times the unit holds: `[from_ns, to_ns)`.
    pub from_ns: i64,
    pub to_ns: i64,
    /// The command of the unfinished import (`.import-unfinished`) or, failing that, of the
    /// unfinished deletes (`.delete-unfinished`) when there is one: the damage is then most
    /// likely its torn write, which its re-run rewrites.
    pub rerun: Option<String>,
    /// What `rerun` completes: "import" or "delete"; or "write" when `rerun` says how an undo
    /// journal beside the partition repairs it.
    pub rerun_of: &'static str,
}

impl Damage {
    /// The times as a person reads them.
    pub fn times(&self) -> String {
        use crate::io::timefmt::format_iso_exact;
        format!(
            "{} to {}",
            format_iso_exact(self.from_ns),
            format_iso_exact(self.to_ns)
        )
    }
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: the {} at byte offset {} ({} bytes), holding times {}, fails its checksum",
            self.path.display(),
            self.unit,
            self.offset,
            self.len_bytes,
            self.times()
        )?;
        match &self.rerun {
            Some(rerun) if self.rerun_of == "write" => write!(
                f,
                "; a write into it did not finish, so this is most likely its torn write: its rows \
                 are not served; {rerun}"
            ),
            Some(rerun) => write!(
                f,
                "; {article} {what} is under way or did not finish (.{what}-unfinished), so this is \
                 most likely its torn write: its rows are not served; once no {what} runs, run it \
                 again to rewrite them: {rerun}",
                article = if self.rerun_of == "import" { "an" } else { "a" },
                what = self.rerun_of
            ),
            None => write!(
                f,
                "; its rows are damaged and are not served: restore the partition from a backup, or \
                 re-import that time range (`xs check` lists every damaged place)"
            ),
        }
    }
}

impl Error {
    /// A unit of `path` (a file in a database directory) that failed its check; notes the
    /// database's unfinished import, or else its unfinished deletes, if any (a delete cut
    /// between its two writes of a slot across a block edge leaves it torn too).
    pub fn damage(
        path: &std::path::Path,
        offset: u64,
        len_bytes: u64,
        unit: &'static str,
        from_ns: i64,
        to_ns: i64,
    ) -> Error {
        use crate::db::marker;
        // The markers sit at the top of the database, above the series directories.
        let top = path
            .ancestors()
            .skip(1)
            .find(|dir| dir.join(crate::db::config::CONFIG_FILE).exists());
        let (mut rerun, mut rerun_of) = match top {
            None => (None, "import"),
            Some(top) => match marker::unfinished_import(top) {
                Some(rerun) => (Some(rerun), "import"),
                None => {
                    let deletes = marker::unfinished_deletes(top);
                    ((!deletes.is_empty()).then(|| deletes.join(" && ")), "delete")
                }
            },
        };
        // Else a write (a `put`) that did not finish may have left the old rows of the slot it
        // was writing in the partition's undo journal, which its repetition puts back first.
        let journal = crate::db::undo::path_for(path);
        if rerun.is_none() && journal.exists() {
            rerun = Some(format!(
                "its undo journal {} holds the slot's old rows: repeat the command that was cut \
                 off (once no xs writes to the database), which puts them back first",
                journal.display()
            ));
            rerun_of = "write";
        }
        Error::Checksum(Box::new(Damage {
            path: path.to_path_buf(),
            offset,
            len_bytes,
            unit,
            from_ns,
            to_ns,
            rerun,
            rerun_of,
        }))
    }

    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Error {
        Error::Io {
            op,
            path: path.into(),
            source,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Io { op, path, source } => {
                write!(f, "cannot {op} {}: {}", path.display(), describe_io(source))
            }
            Error::NotADatabase { path } => write!(
                f,
                "{} is not an xs database (no xs.toml); create one with `xs create` or `xs import`",
                path.display()
            ),
            Error::Symlink { path } => write!(
                f,
                "{} is a symbolic link; xs never follows links inside a database: \
                 replace it with the file itself, or remove it",
                path.display()
            ),
            Error::AlreadyExists { path } => write!(
                f,
                "{} already exists; choose another path or remove it first",
                path.display()
            ),
            Error::BadConfig { path, reason } => {
                write!(f, "bad database config {}: {reason}", path.display())
            }
            Error::Damaged { path, reason } => write!(f, "{}: {reason}", path.display()),
            Error::MissingFile { path, reason } => write!(f, "{} is missing: {reason}", path.display()),
            Error::ForeignPartition { path, reason } => write!(
                f,
                "partition file {} does not belong to this database: {reason}; if an `xs alter` was \
                 running, run this command again; if xs.toml was edited, restore it; if the file was \
                 copied in from another database, move it out of the directory",
                path.display()
            ),
            Error::Locked { path, holder } => {
                write!(f, "database {} is locked by another writer", path.display())?;
                if let Some(holder) = holder {
                    write!(f, " ({holder})")?;
                }
                write!(f, "; retry later, or pass --wait to wait for it")
            }
            Error::Invalid(msg) | Error::Overflow(msg) => f.write_str(msg),
            Error::DepthFull { t_ns, depth } => write!(
                f,
                "timestamp {} already holds {depth} rows, the database depth; \
                 replace them (put without --append) or create a database with a larger --depth",
                crate::io::timefmt::format_iso_exact(*t_ns)
            ),
            Error::Defrag { path, reason } => write!(f, "cannot defrag {}: {reason}", path.display()),
            Error::Checksum(damage) => damage.fmt(f),
            Error::DefragDamaged { path, reason } => write!(f, "cannot defrag {}: {reason}", path.display()),
        }
    }
}

/// An I/O error as a person reads it: the system's text without its "(os error N)" suffix.
pub fn describe_io(e: &io::Error) -> String {
    // A positioned read or write on a named pipe or a socket: xs reads files by offset.
    if e.raw_os_error() == Some(libc::ESPIPE) {
        return "it is not a regular file (a named pipe or a socket?); a database holds only \
                regular files and directories: remove it, or restore the file from a backup"
            .into();
    }
    let text = e.to_string();
    let text = match text.find(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_string(),
        _ => text,
    };
    // The decoders' own words (flate2, zstd) say what broke, not what it means for the file.
    const COMPRESSED: [&str; 4] = [
        "deflate stream",
        "gzip stream",
        "incomplete frame",
        "Data corruption",
    ];
    match COMPRESSED.iter().any(|w| text.contains(w)) {
        true => format!(
            "{text}: the compressed data is cut short or damaged (an interrupted download or \
             copy?); `gzip -t FILE` or `zstd -t FILE` tests it, and a whole copy imports"
        ),
        false => text,
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_compressed_input_is_said_as_such() {
        let cut = io::Error::new(io::ErrorKind::UnexpectedEof, "incomplete deflate stream");
        let text = describe_io(&cut);
        assert!(
            text.starts_with("incomplete deflate stream: the compressed data is cut short"),
            "{text}"
        );
        assert_eq!(
            describe_io(&io::Error::from_raw_os_error(2)),
            "No such file or directory"
        );
    }
}
