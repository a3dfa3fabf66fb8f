//! xs: a serverless time-series store. A database is a directory of sparse partition files in
//! which a row's byte offset is computed from its timestamp, so every read and write is O(1)
//! with no index. This crate is the engine; the `xs` binary is a thin CLI over it.

pub mod check;
pub mod db;
pub mod error;
pub mod import;
pub mod io;
pub mod query;

pub use db::{Access, Database, PutMode};
pub use error::{Error, Result};
