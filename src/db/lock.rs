//! The writer lock: an exclusive `flock` on `DB/.lock`, held for the life of the handle.
//! Readers take no lock, so they never block writers.

use std::fs::File;
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

use super::files::{self, Mode};
use crate::error::{Error, Result};

pub const LOCK_FILE: &str = ".lock";

/// What a writer does when another process holds the lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockWait {
    /// Fail at once with `Error::Locked`.
    No,
    /// Block until the lock is free; `on_wait` is told who holds it first.
    Yes,
}

#[derive(Debug)]
pub struct WriteLock {
    _file: File,
}

impl WriteLock {
    /// Takes the lock; with `LockWait::Yes`, calls `on_wait(holder)` once before blocking.
    pub fn acquire(dir: &Path, wait: LockWait, on_wait: &mut dyn FnMut(Option<&str>)) -> Result<WriteLock> {
        let path = dir.join(LOCK_FILE);
        let mut file = files::open(&path, Mode::Create, "open lock file")?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let holder = read_holder(&mut file);
                match wait {
                    LockWait::No => {
                        return Err(Error::Locked {
                            path: dir.to_path_buf(),
                            holder,
                        })
                    }
                    LockWait::Yes => {
                        on_wait(holder.as_deref());
                        lock_blocking(&file).map_err(|e| Error::io("lock", &path, e))?;
                    }
                }
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io("lock", &path, e)),
        }
        // Best effort: the holder's pid only improves the message a second writer sees.
        let _ = super::vfs::set_len(&file, 0);
        let _ = super::vfs::write_at(&file, format!("pid {}", std::process::id()).as_bytes(), 0);
        Ok(WriteLock { _file: file })
    }
}

/// A blocking `flock`, again when a signal interrupts it (the kernel does not restart it
/// for a handler installed without `SA_RESTART`, and a wait may last long).
fn lock_blocking(file: &File) -> std::io::Result<()> {
    loop {
        match file.lock() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

fn read_holder(file: &mut File) -> Option<String> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.take(64).read_to_string(&mut text).ok()?;
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// Path of the lock file of a database directory.
pub fn lock_path(dir: &Path) -> PathBuf {
    dir.join(LOCK_FILE)
}

/// The pid of a process holding the writer lock of `dir` right now, found in `/proc/locks`
/// (Linux): asking with a lock of our own could make a writer starting at that moment fail.
/// `None` when no one holds it, or it cannot be told.
pub fn active_writer(dir: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(lock_path(dir)).ok()?;
    if !meta.is_file() {
        return None;
    }
    let (major, minor) = (libc::major(meta.dev()), libc::minor(meta.dev()));
    let device = format!("{major:02x}:{minor:02x}:{}", meta.ino());
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        // `1: FLOCK  ADVISORY  WRITE 12519 fe:00:10387548 0 EOF`
        let fields: Vec<&str> = line.split_whitespace().collect();
        let is_ours =
            fields.len() >= 6 && fields[1] == "FLOCK" && fields[3] == "WRITE" && fields[5] == device;
        is_ours.then(|| fields[4].parse().ok()).flatten()
    })
}
