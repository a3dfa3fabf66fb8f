//! Opening files inside a database directory without following symbolic links.
//!
//! Every file xs opens or creates in a database (`xs.toml`, `.lock`, the import marker,
//! partition files, their temporary and defrag copies) goes through here: it is opened with
//! `O_NOFOLLOW`, so a link planted in the directory can neither redirect a write outside the
//! database nor feed it another database's file. Temporary files are also created with
//! `O_EXCL` after the stale one is unlinked (`unlink` removes a link, never its target). The
//! database path itself may be a symbolic link: only the last component is checked.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::vfs;
use crate::error::{Error, Result};

/// What a file is opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Read only; the file must exist.
    Read,
    /// Read and write; the file must exist.
    ReadWrite,
    /// Read and write, created (mode 0644 before the umask) when missing, never truncated.
    Create,
    /// Write only, created when missing, truncated.
    Replace,
}

/// Opens `path` (inside a database) without following a symbolic link in its last component:
/// a link is `Error::Symlink`; other failures are `Error::Io` with the verb `op`.
pub fn open(path: &Path, mode: Mode, op: &'static str) -> Result<File> {
    let mut options = OpenOptions::new();
    match mode {
        Mode::Read => options.read(true),
        Mode::ReadWrite => options.read(true).write(true),
        // Replace truncates after opening, so the truncation is a change `vfs` sees.
        Mode::Create | Mode::Replace => options.read(true).write(true).create(true).truncate(false),
    };
    // O_NONBLOCK: a named pipe put in place of a database file opens at once instead of
    // waiting for a writer that never comes (its first read then fails, see `describe_io`);
    // a regular file ignores the flag.
    options
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK);
    let file = match mode {
        Mode::Read | Mode::ReadWrite => options.open(path),
        Mode::Create | Mode::Replace => vfs::create(path, || options.open(path)),
    }
    .map_err(|e| classify(op, path, e))?;
    if mode == Mode::Replace {
        vfs::set_len(&file, 0).map_err(|e| Error::io("truncate", path, e))?;
    }
    Ok(file)
}

/// Creates the temporary file `path` afresh: whatever is there (a stale copy, or a link) is
/// unlinked first, then the file is created with `O_CREAT | O_EXCL | O_NOFOLLOW`, so it is a
/// new inode that nobody else can have pointed anywhere. `mode` is the permission bits (before
/// the umask).
pub fn create_temp(path: &Path, mode: u32) -> Result<File> {
    if fs::symlink_metadata(path).is_ok() {
        match vfs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("remove the stale temporary file", path, e)),
        }
    }
    vfs::create(path, || {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)
    })
    .map_err(|e| classify("create", path, e))
}

/// Creates a scratch file in the directory `dir` that has no name, so nothing is left behind
/// however the process ends: `O_TMPFILE` (with `O_EXCL`: it can never be linked in), or where
/// the file system lacks it, a `.scratch-PID.tmp` made by `create_temp` and unlinked at once.
pub fn create_unnamed(dir: &Path) -> Result<File> {
    let unnamed = OpenOptions::new()
        .read(true)
        .write(true)
        .mode(0o600)
        .custom_flags(libc::O_TMPFILE | libc::O_EXCL | libc::O_CLOEXEC)
        .open(dir);
    match unnamed {
        Ok(file) => Ok(file),
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::EOPNOTSUPP) | Some(libc::EISDIR) | Some(libc::EINVAL)
            ) =>
        {
            let path = dir.join(format!(".scratch-{}.tmp", std::process::id()));
            let file = create_temp(&path, 0o600)?;
            vfs::remove_file(&path).map_err(|e| Error::io("remove the scratch file", &path, e))?;
            Ok(file)
        }
        Err(e) => Err(Error::io("create a scratch file in", dir, e)),
    }
}

/// Whether `path` exists, without following a link: `Ok(false)` when nothing is there, and
/// `Error::Symlink` when a link is.
pub fn exists(path: &Path) -> Result<bool> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(Error::Symlink {
            path: path.to_path_buf(),
        }),
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io("look up", path, e)),
    }
}

/// Whether `path` is a directory, looked up without following a link: a link in its place
/// (which could lead writes outside the database) is an error, and so is a file.
pub fn is_dir(path: &Path) -> Result<bool> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(Error::Symlink {
            path: path.to_path_buf(),
        }),
        Ok(meta) if meta.is_dir() => Ok(true),
        Ok(_) => Err(Error::Invalid(format!(
            "{} is a file where xs keeps a directory; move it out of the database",
            path.display()
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io("look up", path, e)),
    }
}

/// The names in the directory `path` (not `.` and `..`; names that are not UTF-8 are left
/// out, as no file xs writes has one), or `Ok(None)` when nothing is there. The directory is
/// opened with `O_NOFOLLOW`, so a link in its place is `Error::Symlink` and a file is an error,
/// as in `is_dir`, and no check-then-open race lets a link in. Four system calls for a small
/// directory, against six for a look-up and `fs::read_dir`: a read over 30,000 series lists
/// each series' directory.
pub fn list_dir(path: &Path) -> Result<Option<Vec<String>>> {
    use std::os::fd::AsRawFd;
    let dir = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(dir) => dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        // A link (ELOOP) or a file (ENOTDIR): `is_dir` says which, in its words.
        Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP) | Some(libc::ENOTDIR)) => {
            return match is_dir(path)? {
                false => Ok(None),
                true => Err(Error::io("read directory", path, e)),
            };
        }
        Err(e) => return Err(Error::io("read directory", path, e)),
    };
    let mut names = Vec::new();
    // A series' directory holds a few files: one call fills this, one more says the end.
    let mut buf = [0u8; 4096];
    loop {
        // SAFETY: getdents64 writes at most `buf.len()` bytes into `buf`, which outlives the call.
        let n = unsafe { libc::syscall(libc::SYS_getdents64, dir.as_raw_fd(), buf.as_mut_ptr(), buf.len()) };
        if n < 0 {
            return Err(Error::io("read directory", path, io::Error::last_os_error()));
        }
        if n == 0 {
            return Ok(Some(names));
        }
        // Records of `struct linux_dirent64`: inode (8), offset (8), record length (2),
        // type (1), then the name, NUL-terminated.
        let mut at = 0;
        while at + 19 <= n as usize {
            let len = usize::from(u16::from_ne_bytes([buf[at + 16], buf[at + 17]]));
            if len < 19 || at + len > n as usize {
                return Err(Error::io(
                    "read directory",
                    path,
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        "a directory entry runs past its block",
                    ),
                ));
            }
            let name = &buf[at + 19..at + len];
            let name = &name[..memchr::memchr(0, name).unwrap_or(name.len())];
            if name != b"." && name != b".." {
                if let Ok(name) = std::str::from_utf8(name) {
                    names.push(name.to_owned());
                }
            }
            at += len;
        }
    }
}

/// Makes the directory `path`; one made meanwhile by another process is fine.
pub fn create_dir(path: &Path) -> Result<()> {
    match vfs::create_dir(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && is_dir(path)? => Ok(()),
        Err(e) => Err(Error::io("create directory", path, e)),
    }
}

/// Removes the directory `path` and everything in it (links are removed, never followed);
/// a missing one is fine.
pub fn remove_dir_all(path: &Path) -> Result<()> {
    match vfs::remove_dir_all(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io("remove directory", path, e)),
    }
}

/// `open`, or `Ok(None)` when `path` is missing.
pub fn open_if_exists(path: &Path, mode: Mode) -> Result<Option<File>> {
    match open(path, mode, "open") {
        Ok(file) => Ok(Some(file)),
        Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads the whole text file `path` without following a link. `Ok(None)` when it is missing.
pub fn read_to_string(path: &Path) -> Result<Option<String>> {
    use std::io::Read;
    let Some(mut file) = open_if_exists(path, Mode::Read)? else {
        return Ok(None);
    };
    // A named pipe would read as empty text (the config, a marker): refused by its kind.
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(Error::io(
            "read",
            path,
            io::Error::from_raw_os_error(libc::ESPIPE),
        ));
    }
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| Error::io("read", path, e))?;
    Ok(Some(text))
}

/// `ELOOP` from `O_NOFOLLOW` (or `EEXIST` from `O_EXCL`) on a link becomes `Error::Symlink`.
fn classify(op: &'static str, path: &Path, e: io::Error) -> Error {
    let maybe_link = matches!(e.raw_os_error(), Some(libc::ELOOP) | Some(libc::EEXIST));
    if maybe_link && fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Error::Symlink {
            path: path.to_path_buf(),
        };
    }
    Error::io(op, path, e)
}

/// Raises the soft limit on open files to the hard one (an import of many series keeps many
/// partitions open) and returns the limit now in force.
pub fn raise_open_file_limit() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    limit.rlim_cur
}

/// Makes every write to the file system holding `dir` durable (`syncfs`): data, inodes and
/// directory entries, with one journal commit.
pub fn sync_file_system(dir: &Path) -> Result<()> {
    let handle = File::open(dir).map_err(|e| Error::io("open", dir, e))?;
    vfs::sync_file_system(&handle).map_err(|e| Error::io("sync the file system of", dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_refused_and_temp_files_replace_them() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path().join("outside");
        fs::write(&outside, "keep").unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        for mode in [Mode::Read, Mode::ReadWrite, Mode::Create, Mode::Replace] {
            let err = open(&link, mode, "open").unwrap_err();
            assert!(matches!(err, Error::Symlink { .. }), "{mode:?}: {err}");
        }
        assert!(matches!(exists(&link), Err(Error::Symlink { .. })));
        assert!(matches!(read_to_string(&link), Err(Error::Symlink { .. })));
        let file = create_temp(&link, 0o644).unwrap();
        drop(file);
        assert!(!fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&outside).unwrap(), "keep");
        assert!(!exists(&tmp.path().join("none")).unwrap());
        assert_eq!(read_to_string(&tmp.path().join("none")).unwrap(), None);
    }

    #[test]
    fn a_listing_holds_every_name_and_follows_no_link() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("d");
        fs::create_dir(&dir).unwrap();
        assert_eq!(list_dir(&dir).unwrap(), Some(vec![]));
        // More names than one 4 KiB read holds, some long, one not UTF-8 (left out).
        let mut want: Vec<String> = (0..300)
            .map(|i| format!("{i:04}-{}", "x".repeat(i % 60)))
            .collect();
        for name in &want {
            fs::write(dir.join(name), "").unwrap();
        }
        use std::os::unix::ffi::OsStrExt;
        fs::write(dir.join(std::ffi::OsStr::from_bytes(b"bad\xff")), "").unwrap();
        let mut got = list_dir(&dir).unwrap().unwrap();
        got.sort();
        want.sort();
        assert_eq!(got, want);
        assert_eq!(list_dir(&tmp.path().join("none")).unwrap(), None);
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&dir, &link).unwrap();
        assert!(matches!(list_dir(&link), Err(Error::Symlink { .. })));
        let file = dir.join("0000-");
        assert!(matches!(list_dir(&file), Err(Error::Invalid(_))));
    }
}
