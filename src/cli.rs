//! The command line: global options and one subcommand; each subcommand's arguments live in
//! its own file under `cmd/`.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::cmd;

const ABOUT: &str = "A fast, serverless time-series store.

A database is a directory with one sparse file per year; a row's byte offset is computed from
its timestamp, so every read and write is O(1) with no index.";

const EXAMPLES: &str = "Examples:
  xs create trades --granularity 1ms --columns 'price:f64,qty:f64,side:str(4)' --depth 4
  xs -d trades put 2024-08-08T23:54:15.342Z price=61837.63 qty=0.02 side=buy
  xs -d trades range 2024-08-08 2024-08-09 | head
  xs -d trades get 2024-08-08T23:54:15.342Z

Exit codes: 0 success, 1 nothing found (get), 2 usage error, 3 runtime error,
4 import rejected rows, 5 database locked by another writer, 6 damaged data (checksum).";

#[derive(Parser, Debug)]
#[command(name = "xs", version = env!("XS_VERSION"), about = ABOUT, after_help = EXAMPLES, propagate_version = true)]
pub struct Cli {
    /// Database directory; default: the current directory, if it is a database.
    #[arg(short = 'd', long = "db", env = "XS_DB", global = true, value_name = "DIR")]
    pub db: Option<PathBuf>,

    /// Writers (import, put, delete, defrag, alter): when another process holds the writer lock, wait
    /// for it instead of failing with exit 5. Also accepted after the subcommand.
    #[arg(long)]
    pub wait: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    Create(cmd::create::Args),
    Put(cmd::put::Args),
    Get(cmd::get::Args),
    Range(cmd::range::Args),
    Delete(cmd::delete::Args),
    Export(cmd::export::Args),
    Import(Box<cmd::import::Args>),
    Schema(cmd::schema::Args),
    Alter(cmd::alter::Args),
    Stat(cmd::stat::Args),
    Defrag(cmd::defrag::Args),
    Check(cmd::check::Args),
    #[command(hide = true)]
    Generate(cmd::generate::Args),
}
