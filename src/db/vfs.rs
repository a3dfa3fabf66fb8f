//! Every change xs makes to the files of a database goes through here: positioned writes, sizes,
//! `fallocate`, fsyncs, renames, removals and creations. Reads need no wrapper.
//!
//! The point of one place is fault injection. Built with the cargo feature `faults` (off by
//! default; without it each function is the plain system call), the environment variable
//! `XS_FAULT` makes the storage layer misbehave the way disks and crashes do:
//!
//! - `XS_FAULT=count`: nothing fails; at exit, stderr gets one line
//!   `xs-fault-count: write=N size=N alloc=N sync=N rename=N remove=N create=N any=N`.
//!   With `XS_FAULT_TRACE=1` every operation is also printed as it happens.
//! - `XS_FAULT=<op>:<n>:<kind>`: the `n`th (1-based) operation of kind `op` (`write`, `size`,
//!   `alloc`, `sync`, `rename`, `remove`, `create`, or `any` for the `n`th of all) fails once:
//!   - an errno name (`EIO`, `ENOSPC`, `EDQUOT`, `EROFS`, `EACCES`): it returns that error and
//!     changes nothing;
//!   - `short`: a write stores only its first half, then fails with `ENOSPC` (a full disk);
//!   - `crash`: power is lost before the operation: every change not yet made durable is
//!     undone (data written since the file's last fsync, and creations, renames and removals
//!     since their directory's last fsync), then the process ends with exit status 86;
//!   - `torn`: the same power loss, but the disk had written back part of what was pending:
//!     each 4 KiB page keeps a prefix of its unsynced writes, the last of them cut after one
//!     of its 512-byte sectors, each file half the time the length of its last sync, and the
//!     directories a prefix of their unsynced changes, chosen pseudo-randomly, seeded by `n`
//!     or by `S` in `<op>:<n>:torn:<S>`.
//!
//!   Whenever a fault fires, stderr gets a line starting `xs-fault: injected`.
//!
//! What the crash model leaves out: sectors written out of order within a page, `fsync` of a
//! file is taken to persist all of it but none of its directory entry, a `syncfs` persists
//! everything, removed inodes come back whole, pages of zeros come back as holes (never as
//! allocated zeros), and reordering across files is limited to what each file's and
//! directory's own syncs allow.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// The kinds of change that can be made to fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Write,
    Size,
    Alloc,
    Sync,
    Rename,
    Remove,
    Create,
}

/// What an operation is about to change (for the crash model's undo records).
#[cfg_attr(not(feature = "faults"), allow(dead_code))]
enum Target<'a> {
    /// `len` bytes of `file` from `offset` (a write, a punched hole, an allocation).
    Bytes {
        file: &'a File,
        offset: u64,
        len: u64,
    },
    /// The length of `file`, to become `len`.
    Length {
        file: &'a File,
        len: u64,
    },
    /// Blocks allocated (`fallocate` mode 0): the contents stay, the file may grow.
    Allocate {
        file: &'a File,
        offset: u64,
        len: u64,
    },
    /// An fsync or fdatasync of a file or a directory.
    Sync(&'a File),
    /// A `syncfs`.
    SyncAll,
    Rename {
        from: &'a Path,
        to: &'a Path,
    },
    Remove(&'a Path),
    Create(&'a Path),
}

/// `pwrite` of all of `buf` at `offset`.
pub fn write_at(file: &File, buf: &[u8], offset: u64) -> io::Result<()> {
    let guard = fault::enter(
        Op::Write,
        Target::Bytes {
            file,
            offset,
            len: buf.len() as u64,
        },
    )?;
    if guard.short {
        file.write_all_at(&buf[..buf.len() / 2], offset)?;
        return Err(io::Error::from_raw_os_error(libc::ENOSPC));
    }
    file.write_all_at(buf, offset)
}

/// `ftruncate`: grows (sparse) or shrinks `file` to `len` bytes.
pub fn set_len(file: &File, len: u64) -> io::Result<()> {
    let _guard = fault::enter(Op::Size, Target::Length { file, len })?;
    file.set_len(len)
}

/// `fallocate(mode)` over `[offset, offset + len)`: allocation (mode 0) or punching a hole.
pub fn fallocate(file: &File, mode: libc::c_int, offset: u64, len: u64) -> io::Result<()> {
    let invalid = || io::Error::from(io::ErrorKind::InvalidInput);
    let off = libc::off_t::try_from(offset).map_err(|_| invalid())?;
    let n = libc::off_t::try_from(len).map_err(|_| invalid())?;
    let target = if mode & libc::FALLOC_FL_PUNCH_HOLE != 0 {
        Target::Bytes { file, offset, len }
    } else {
        Target::Allocate { file, offset, len }
    };
    let _guard = fault::enter(Op::Alloc, target)?;
    // SAFETY: fallocate on a valid descriptor owned by `file` has no memory effects.
    if unsafe { libc::fallocate(file.as_raw_fd(), mode, off, n) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `fdatasync`.
pub fn sync_data(file: &File) -> io::Result<()> {
    let _guard = fault::enter(Op::Sync, Target::Sync(file))?;
    file.sync_data()
}

/// `fsync` (of a file or an open directory).
pub fn sync_all(file: &File) -> io::Result<()> {
    let _guard = fault::enter(Op::Sync, Target::Sync(file))?;
    file.sync_all()
}

/// `syncfs` of the file system holding the open file or directory `handle`.
pub fn sync_file_system(handle: &File) -> io::Result<()> {
    let _guard = fault::enter(Op::Sync, Target::SyncAll)?;
    // SAFETY: syncfs only takes a file descriptor, which `handle` keeps open.
    if unsafe { libc::syncfs(handle.as_raw_fd()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `rename(from, to)`, replacing `to`.
pub fn rename(from: &Path, to: &Path) -> io::Result<()> {
    let _guard = fault::enter(Op::Rename, Target::Rename { from, to })?;
    std::fs::rename(from, to)
}

/// `unlink(path)`.
pub fn remove_file(path: &Path) -> io::Result<()> {
    let _guard = fault::enter(Op::Remove, Target::Remove(path))?;
    std::fs::remove_file(path)
}

/// `rm -r path`: a directory and what it holds, links removed, never followed.
pub fn remove_dir_all(path: &Path) -> io::Result<()> {
    let _guard = fault::enter(Op::Remove, Target::Remove(path))?;
    std::fs::remove_dir_all(path)
}

/// Opens `path` with `open`, which may create it.
pub fn create(path: &Path, open: impl FnOnce() -> io::Result<File>) -> io::Result<File> {
    let _guard = fault::enter(Op::Create, Target::Create(path))?;
    open()
}

/// `mkdir(path)`.
pub fn create_dir(path: &Path) -> io::Result<()> {
    let _guard = fault::enter(Op::Create, Target::Create(path))?;
    std::fs::create_dir(path)
}

/// `mkdir -p path`, each directory made through `create_dir`.
pub fn create_dir_all(path: &Path) -> io::Result<()> {
    if path.as_os_str().is_empty() || path.is_dir() {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        create_dir_all(parent)?;
    }
    match create_dir(path) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => Ok(()),
        other => other,
    }
}

/// Without the feature: no state, no checks; `enter` compiles to nothing.
#[cfg(not(feature = "faults"))]
mod fault {
    use super::{Op, Target};

    pub struct Guard {
        pub short: bool,
    }

    #[inline(always)]
    pub fn enter(_: Op, _: Target<'_>) -> std::io::Result<Guard> {
        Ok(Guard { short: false })
    }
}

#[cfg(feature = "faults")]
mod fault;
