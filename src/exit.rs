//! Exit codes, in one place (documented in README.md), and the CLI's failure type.

use std::io;

use xs::Error;

/// Everything worked (for `get`: at least one row was found).
pub const SUCCESS: i32 = 0;
/// `get` found no row at any of the requested timestamps.
pub const NOT_FOUND: i32 = 1;
/// Bad arguments or input given on the command line (clap uses 2 as well).
pub const USAGE: i32 = 2;
/// A runtime failure: I/O, a corrupt or foreign database, a failed write.
pub const ERROR: i32 = 3;
/// `import` finished, but rejected rows (beyond `--max-rejects`).
pub const REJECTED: i32 = 4;
/// Another process holds the database's writer lock; retry later or pass `--wait`.
pub const LOCKED: i32 = 5;
/// Stored data failed its checksum (damage, or the torn write of an unfinished import): the
/// damaged rows were not served. `xs check` reports it too.
pub const DAMAGED: i32 = 6;

/// Why a command stops without success: an exit code and, unless quiet, a message.
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: Option<String>,
}

impl Failure {
    pub fn new(code: i32, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: Some(message.into()),
        }
    }

    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(USAGE, message)
    }

    /// Ends with `code` and prints nothing (e.g. `get` finding nothing, a closed pipe).
    pub fn quiet(code: i32) -> Failure {
        Failure { code, message: None }
    }

    /// A failed write to stdout: a closed pipe is a quiet success, anything else an error.
    pub fn output(e: io::Error) -> Failure {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::quiet(SUCCESS)
        } else {
            Failure::new(
                ERROR,
                format!("cannot write to standard output: {}", xs::error::describe_io(&e)),
            )
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let code = match &e {
            Error::Locked { .. } => LOCKED,
            Error::Invalid(_) | Error::DepthFull { .. } | Error::AlreadyExists { .. } => USAGE,
            Error::NotADatabase { .. } => USAGE,
            Error::Io { .. } | Error::BadConfig { .. } | Error::ForeignPartition { .. } => ERROR,
            Error::Defrag { .. } | Error::Symlink { .. } | Error::MissingFile { .. } => ERROR,
            Error::Damaged { .. } | Error::Overflow(_) => ERROR,
            Error::Checksum(_) | Error::DefragDamaged { .. } => DAMAGED,
        };
        Failure::new(code, e.to_string())
    }
}

pub type CliResult<T = ()> = Result<T, Failure>;
