//! The unfinished-import marker: `DB/.import-unfinished`, written (and fsynced) before an import
//! writes its first row and removed after its final fsync. While it exists the database may hold
//! a partial import; its text is the command that completes it (imports are idempotent).

use std::fs;
use std::io::Write;
use std::path::Path;

use super::config::sync_dir;
use super::files::{self, Mode};
use crate::error::{Error, Result};

pub const IMPORT_MARKER: &str = ".import-unfinished";

/// The command recorded by an import that did not finish, if any.
/// A link in place of the marker is not read (it is reported when an import writes it).
pub fn unfinished_import(dir: &Path) -> Option<String> {
    let text = files::read_to_string(&dir.join(IMPORT_MARKER)).ok()??;
    Some(text.trim().to_string())
}

/// Records that an import is under way; `rerun` is the command that completes it.
pub fn mark_import_started(dir: &Path, rerun: &str) -> Result<()> {
    let path = dir.join(IMPORT_MARKER);
    let mut file = files::open(&path, Mode::Replace, "create")?;
    writeln!(file, "{rerun}").map_err(|e| Error::io("write", &path, e))?;
    file.sync_all().map_err(|e| Error::io("sync", &path, e))?;
    sync_dir(dir)
}

/// Removes the marker once the import's data is durable.
pub fn clear_import_marker(dir: &Path) -> Result<()> {
    let path = dir.join(IMPORT_MARKER);
    match fs::remove_file(&path) {
        Ok(()) => sync_dir(dir),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io("remove", &path, e)),
    }
}
