//! The unfinished-import marker: `DB/.import-unfinished`, written (and fsynced) before an import
//! writes its first row and removed after its final fsync. While it exists the database may hold
//! a partial import; its text is the command that completes it (imports are idempotent).

use std::path::Path;

use super::config::sync_dir;
use super::files;
use super::vfs;
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
    // Replaced whole, never truncated and rewritten in place: a crash or a full disk in
    // between would leave an empty or cut command, which tells the user nothing.
    replace_marker(dir, IMPORT_MARKER, &format!("{rerun}\n"))
}

/// Removes the marker once the import's data is durable.
pub fn clear_import_marker(dir: &Path) -> Result<()> {
    let path = dir.join(IMPORT_MARKER);
    match vfs::remove_file(&path) {
        Ok(()) => sync_dir(dir),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io("remove", &path, e)),
    }
}

/// The unfinished-delete marker: one line per `delete` under way or killed, each the command
/// that completes it (a delete is idempotent: running it again deletes what is left).
pub const DELETE_MARKER: &str = ".delete-unfinished";

/// The commands of deletes that did not finish, in the order they started.
pub fn unfinished_deletes(dir: &Path) -> Vec<String> {
    let Ok(Some(text)) = files::read_to_string(&dir.join(DELETE_MARKER)) else {
        return Vec::new();
    };
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// The command that deletes `[from_ns, to_ns)` from the database at `dir`.
pub fn delete_command(dir: &Path, from_ns: i64, to_ns: i64) -> String {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    format!(
        "xs -d {} delete {} {}",
        shell_quote(&dir.display().to_string()),
        crate::io::timefmt::format_iso_exact(from_ns),
        crate::io::timefmt::format_iso_exact(to_ns)
    )
}

/// Records (durably, before the first change) that the delete `rerun` is under way.
pub fn mark_delete_started(dir: &Path, rerun: &str) -> Result<()> {
    let mut lines = unfinished_deletes(dir);
    if !lines.iter().any(|l| l == rerun) {
        lines.push(rerun.to_string());
    }
    write_delete_marker(dir, &lines)
}

/// Drops `rerun` from the marker once its changes are durable; removes the marker when no
/// other unfinished delete is recorded.
pub fn clear_delete(dir: &Path, rerun: &str) -> Result<()> {
    let lines: Vec<String> = unfinished_deletes(dir)
        .into_iter()
        .filter(|l| l != rerun)
        .collect();
    if !lines.is_empty() {
        return write_delete_marker(dir, &lines);
    }
    let path = dir.join(DELETE_MARKER);
    match vfs::remove_file(&path) {
        Ok(()) => sync_dir(dir),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io("remove", &path, e)),
    }
}

fn write_delete_marker(dir: &Path, lines: &[String]) -> Result<()> {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    replace_marker(dir, DELETE_MARKER, &text)
}

/// Replaces the marker `name` with `text` atomically: temp file, fsync, rename, fsync of the
/// directory.
pub(crate) fn replace_marker(dir: &Path, name: &str, text: &str) -> Result<()> {
    let path = dir.join(name);
    // A link in place of the marker is refused, as for every database file.
    files::exists(&path)?;
    let tmp = dir.join(format!("{name}.tmp"));
    let file = files::create_temp(&tmp, 0o644)?;
    vfs::write_at(&file, text.as_bytes(), 0).map_err(|e| Error::io("write", &tmp, e))?;
    vfs::sync_all(&file).map_err(|e| Error::io("sync", &tmp, e))?;
    vfs::rename(&tmp, &path).map_err(|e| Error::io("rename", &path, e))?;
    sync_dir(dir)
}

/// `text` as one shell word.
pub fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@".contains(&b))
    {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}
