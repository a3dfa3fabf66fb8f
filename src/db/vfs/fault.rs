//! Fault injection for `vfs` (feature `faults`): counting, failing and crashing, as the
//! module documentation of `vfs` describes. Operations are serialized by one lock while the
//! feature is active, so the `n`th operation and a crash are well defined across threads.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, OnceLock};

use super::{Op, Target};

/// Exit status of a process that "lost power".
const CRASH_STATUS: i32 = 86;
const PAGE: u64 = 4096;
/// What a disk writes at once: a power loss can cut a page between its sectors.
const SECTOR: u64 = 512;
const OPS: [(Op, &str); 7] = [
    (Op::Write, "write"),
    (Op::Size, "size"),
    (Op::Alloc, "alloc"),
    (Op::Sync, "sync"),
    (Op::Rename, "rename"),
    (Op::Remove, "remove"),
    (Op::Create, "create"),
];

const ERRNOS: [(&str, i32); 5] = [
    ("EIO", libc::EIO),
    ("ENOSPC", libc::ENOSPC),
    ("EDQUOT", libc::EDQUOT),
    ("EROFS", libc::EROFS),
    ("EACCES", libc::EACCES),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Errno(i32),
    Short,
    Crash,
    Torn,
}

enum Mode {
    Off,
    Count,
    Inject {
        /// `None`: the `n`th operation of any kind.
        op: Option<Op>,
        n: u64,
        kind: Kind,
        /// Seeds which pages a `torn` crash keeps (`<op>:<n>:torn:<seed>`); `n` by default.
        seed: u64,
    },
}

/// An unsynced change to a file's bytes: what `[offset, offset + old.len())` held before
/// (zeros past the old end), and the file's length then.
struct Undo {
    offset: u64,
    old: Vec<u8>,
    old_len: u64,
}

struct Tracked {
    /// A duplicate descriptor: the undo works even after xs closed or renamed the file.
    file: File,
    /// Files in the order first changed: seeds torn pages the same way on every run.
    serial: u64,
    undo: Vec<Undo>,
}

/// An unsynced change to a directory, and how to take it back.
enum DirUndo {
    Created(PathBuf),
    Renamed {
        from: PathBuf,
        to: PathBuf,
        /// A hard link to the file `to` named before the rename.
        backup: Option<PathBuf>,
    },
    Removed {
        path: PathBuf,
        backup: PathBuf,
    },
}

#[derive(Default)]
struct State {
    counts: [u64; OPS.len()],
    any: u64,
    fired: bool,
    files: HashMap<(u64, u64), Tracked>,
    /// In order, each with the (device, inode) of its directory.
    dir_ops: Vec<((u64, u64), DirUndo)>,
    backups: u64,
}

pub struct Guard {
    _lock: Option<MutexGuard<'static, State>>,
    pub short: bool,
}

static MODE: OnceLock<Mode> = OnceLock::new();
static STATE: OnceLock<Mutex<State>> = OnceLock::new();

fn mode() -> &'static Mode {
    MODE.get_or_init(|| {
        let Ok(text) = std::env::var("XS_FAULT") else {
            return Mode::Off;
        };
        let mode = parse(&text).unwrap_or_else(|| {
            eprintln!("xs: XS_FAULT={text} is not `count` or `<op>:<n>:<kind>`");
            std::process::exit(2);
        });
        // SAFETY: registering a plain `extern "C"` function that touches only our state.
        unsafe { libc::atexit(at_exit) };
        mode
    })
}

fn parse(text: &str) -> Option<Mode> {
    if text == "count" {
        return Some(Mode::Count);
    }
    let mut parts = text.split(':');
    let (op, n, kind) = (parts.next()?, parts.next()?, parts.next()?);
    let op = match op {
        "any" => None,
        name => Some(OPS.iter().find(|(_, o)| *o == name)?.0),
    };
    let n = n.parse().ok().filter(|&n| n > 0)?;
    let kind = match kind {
        "short" => Kind::Short,
        "crash" => Kind::Crash,
        "torn" => Kind::Torn,
        name => Kind::Errno(ERRNOS.iter().find(|(n, _)| *n == name)?.1),
    };
    let seed = match parts.next() {
        Some(seed) if kind == Kind::Torn => seed.parse().ok()?,
        Some(_) => return None,
        None => n,
    };
    Some(Mode::Inject { op, n, kind, seed })
}

fn state() -> MutexGuard<'static, State> {
    STATE
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn index(op: Op) -> usize {
    OPS.iter().position(|(o, _)| *o == op).unwrap_or(0)
}

/// Called before each operation; the returned guard keeps other threads out until it is done.
pub fn enter(op: Op, target: Target<'_>) -> io::Result<Guard> {
    let mode = mode();
    if matches!(mode, Mode::Off) {
        return Ok(Guard {
            _lock: None,
            short: false,
        });
    }
    let mut st = state();
    let i = index(op);
    st.counts[i] += 1;
    st.any += 1;
    let (n_op, n_any) = (st.counts[i], st.any);
    if std::env::var_os("XS_FAULT_TRACE").is_some() {
        eprintln!(
            "xs-fault: {} #{n_op} (operation {n_any}) {}",
            OPS[i].1,
            describe(&target)
        );
    }
    let mut short = false;
    if let Mode::Inject {
        op: want,
        n,
        kind,
        seed,
    } = *mode
    {
        let nth = match want {
            None => n_any,
            Some(w) if w == op => n_op,
            Some(_) => 0,
        };
        if nth == n && !st.fired {
            st.fired = true;
            eprintln!(
                "xs-fault: injected {} at {} #{n_op} (operation {n_any}) {}",
                kind_name(kind),
                OPS[i].1,
                describe(&target)
            );
            match kind {
                Kind::Errno(errno) => return Err(io::Error::from_raw_os_error(errno)),
                Kind::Short if op == Op::Write => short = true,
                Kind::Short => return Err(io::Error::from_raw_os_error(libc::EIO)),
                Kind::Crash | Kind::Torn => crash(&mut st, kind == Kind::Torn, seed),
            }
        }
        if matches!(kind, Kind::Crash | Kind::Torn) {
            record(&mut st, &target);
        }
    }
    Ok(Guard {
        _lock: Some(st),
        short,
    })
}

fn kind_name(kind: Kind) -> String {
    match kind {
        Kind::Errno(e) => ERRNOS
            .iter()
            .find(|(_, n)| *n == e)
            .map_or_else(|| format!("errno {e}"), |(name, _)| name.to_string()),
        Kind::Short => "a short write".into(),
        Kind::Crash => "a crash".into(),
        Kind::Torn => "a crash with torn pages".into(),
    }
}

fn describe(target: &Target<'_>) -> String {
    let name = |file: &File| {
        use std::os::fd::AsRawFd;
        fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "?".into())
    };
    match target {
        Target::Bytes { file, offset, len } => format!("{} [{offset}, +{len})", name(file)),
        Target::Length { file, len } => format!("{} to {len} bytes", name(file)),
        Target::Allocate { file, offset, len } => format!("{} allocate [{offset}, +{len})", name(file)),
        Target::Sync(file) => name(file),
        Target::SyncAll => "the file system".into(),
        Target::Rename { from, to } => format!("{} -> {}", from.display(), to.display()),
        Target::Remove(path) | Target::Create(path) => path.display().to_string(),
    }
}

fn id(meta: &fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

fn parent_id(path: &Path) -> Option<(u64, u64)> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::metadata(parent).ok().map(|m| id(&m))
}

/// Keeps what the crash model needs to take `target` back.
fn record(st: &mut State, target: &Target<'_>) {
    match *target {
        Target::Bytes { file, offset, len } => note_bytes(st, file, offset, len),
        Target::Length { file, len } => {
            let Ok(meta) = file.metadata() else { return };
            // Growing needs only the old length; shrinking keeps the bytes cut off.
            let from = len.min(meta.len());
            note_bytes(st, file, from, meta.len() - from);
        }
        Target::Allocate { file, .. } => {
            // Only the length may change: keep the old one.
            if let Ok(meta) = file.metadata() {
                note_bytes(st, file, meta.len(), 0);
            }
        }
        Target::Sync(file) => {
            let Ok(meta) = file.metadata() else { return };
            let key = id(&meta);
            st.files.remove(&key);
            if meta.is_dir() {
                let (synced, kept) = std::mem::take(&mut st.dir_ops)
                    .into_iter()
                    .partition(|(dir, _)| *dir == key);
                st.dir_ops = kept;
                drop_backups(synced);
            }
        }
        Target::SyncAll => {
            st.files.clear();
            let all = std::mem::take(&mut st.dir_ops);
            drop_backups(all);
        }
        Target::Rename { from, to } => {
            let Some(dir) = parent_id(to) else { return };
            let backup = fs::symlink_metadata(to)
                .is_ok_and(|m| m.is_file())
                .then(|| backup_of(st, to))
                .flatten();
            st.dir_ops.push((
                dir,
                DirUndo::Renamed {
                    from: from.to_path_buf(),
                    to: to.to_path_buf(),
                    backup,
                },
            ));
        }
        Target::Remove(path) => {
            let Some(dir) = parent_id(path) else { return };
            if let Some(backup) = backup_of(st, path) {
                let path = path.to_path_buf();
                st.dir_ops.push((dir, DirUndo::Removed { path, backup }));
            }
        }
        Target::Create(path) => {
            if fs::symlink_metadata(path).is_err() {
                if let Some(dir) = parent_id(path) {
                    st.dir_ops.push((dir, DirUndo::Created(path.to_path_buf())));
                }
            }
        }
    }
}

fn note_bytes(st: &mut State, file: &File, offset: u64, len: u64) {
    let Ok(meta) = file.metadata() else { return };
    let old_len = meta.len();
    let mut old = vec![0u8; len as usize];
    let stored = old_len.saturating_sub(offset).min(len) as usize;
    if stored > 0 && file.read_exact_at(&mut old[..stored], offset).is_err() {
        return;
    }
    let Ok(dup) = file.try_clone() else { return };
    let serial = st.files.len() as u64;
    st.files
        .entry(id(&meta))
        .or_insert(Tracked {
            file: dup,
            serial,
            undo: Vec::new(),
        })
        .undo
        .push(Undo { offset, old, old_len });
}

/// A hard link to `path` under a hidden name beside it, so a removal or a replacement can be
/// taken back.
fn backup_of(st: &mut State, path: &Path) -> Option<PathBuf> {
    st.backups += 1;
    let name = format!(".xs-fault-backup-{}-{}", std::process::id(), st.backups);
    let backup = path.with_file_name(name);
    fs::hard_link(path, &backup).ok().map(|()| backup)
}

fn drop_backups(ops: Vec<((u64, u64), DirUndo)>) {
    for (_, op) in ops {
        match op {
            DirUndo::Renamed {
                backup: Some(backup), ..
            }
            | DirUndo::Removed { backup, .. } => {
                let _ = fs::remove_file(backup);
            }
            _ => {}
        }
    }
}

/// Power is lost: what was not durable is taken back (all of it, or with `torn`, what the
/// disk had not written back yet), and the process ends at once.
fn crash(st: &mut State, torn: bool, seed: u64) -> ! {
    for tracked in st.files.values() {
        if torn {
            let seed = mix(seed) ^ tracked.serial;
            revert_torn(tracked, seed);
            // The size is metadata, committed apart from the data: half the time the file
            // has the length of its last sync (what lay beyond it is gone).
            if let Some(first) = tracked.undo.first() {
                if mix(seed ^ 0x512e).is_multiple_of(2) {
                    let _ = tracked.file.set_len(first.old_len);
                }
            }
        } else {
            for u in tracked.undo.iter().rev() {
                let stored = u.old_len.saturating_sub(u.offset).min(u.old.len() as u64) as usize;
                restore(&tracked.file, &u.old[..stored], u.offset);
                let _ = tracked.file.set_len(u.old_len);
            }
        }
    }
    let ops = std::mem::take(&mut st.dir_ops);
    // The journal keeps directory changes in order: a torn crash keeps a prefix of them.
    let keep = if torn {
        (mix(seed ^ 0x5eed) % (ops.len() as u64 + 1)) as usize
    } else {
        0
    };
    let (kept, lost) = {
        let mut ops = ops;
        let lost = ops.split_off(keep);
        (ops, lost)
    };
    for (_, op) in lost.into_iter().rev() {
        match op {
            DirUndo::Created(path) => {
                let _ = fs::remove_file(&path).or_else(|_| fs::remove_dir_all(&path));
            }
            DirUndo::Renamed { from, to, backup } => {
                let _ = fs::rename(&to, &from);
                if let Some(backup) = backup {
                    let _ = fs::rename(&backup, &to);
                }
            }
            DirUndo::Removed { path, backup } => {
                let _ = fs::rename(&backup, &path);
            }
        }
    }
    drop_backups(kept);
    // SAFETY: ends the process without unwinding or running exit handlers, like a power cut.
    unsafe { libc::_exit(CRASH_STATUS) }
}

/// Each page of the file keeps a pseudo-random prefix of the writes to it since the last sync,
/// the last write of the prefix itself torn after a pseudo-random 512-byte sector (a disk
/// writes a page sector by sector).
fn revert_torn(tracked: &Tracked, seed: u64) {
    let mut writes: HashMap<u64, u64> = HashMap::new();
    for u in &tracked.undo {
        for (p, _, _) in pages(u) {
            *writes.entry(p).or_default() += 1;
        }
    }
    let mut left = writes.clone();
    for u in tracked.undo.iter().rev() {
        for (p, from, to) in pages(u) {
            let kept = mix(seed ^ p.wrapping_mul(0x9e37_79b9_7f4a_7c15)) % (writes[&p] + 1);
            let nth = left[&p] - 1;
            left.insert(p, nth);
            let from = if nth + 1 == kept {
                // The last write kept on this page: its sectors from a random one on are lost.
                let sectors = (p * PAGE..(p + 1) * PAGE).step_by(SECTOR as usize);
                let cuts: Vec<u64> = sectors.filter(|&c| c > from && c < to).collect();
                let cut = mix(seed ^ p ^ 0x5ec7) % (cuts.len() as u64 + 1);
                cuts.get(cut as usize).copied().unwrap_or(to)
            } else if nth >= kept {
                from
            } else {
                to
            };
            if from < to {
                let bytes = &u.old[(from - u.offset) as usize..(to - u.offset) as usize];
                restore(&tracked.file, bytes, from);
            }
        }
    }
}

/// Puts `old` back at `offset`. Whole pages of zeros become holes again: a page the disk never
/// wrote stays unallocated after a crash (ext4 and XFS allocate at write-back), and xs reads
/// an allocated all-zero directory block as damage, a hole as empty.
fn restore(file: &File, old: &[u8], offset: u64) {
    use std::os::fd::AsRawFd;
    let mut at = 0usize;
    while at < old.len() {
        let pos = offset + at as u64;
        let page_end = ((pos / PAGE + 1) * PAGE - offset).min(old.len() as u64) as usize;
        let chunk = &old[at..page_end];
        let whole_page = pos.is_multiple_of(PAGE) && chunk.len() as u64 == PAGE;
        let punched = whole_page
            && chunk.iter().all(|&b| b == 0)
            // SAFETY: fallocate on a descriptor `file` owns has no memory effects.
            && unsafe {
                libc::fallocate(
                    file.as_raw_fd(),
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    pos as libc::off_t,
                    PAGE as libc::off_t,
                )
            } == 0;
        if !punched {
            let _ = file.write_all_at(chunk, pos);
        }
        at = page_end;
    }
}

/// The pages `u` touches, each as (page, from, to) clipped to `u`.
fn pages(u: &Undo) -> impl Iterator<Item = (u64, u64, u64)> {
    let (start, end) = (u.offset, u.offset + u.old.len() as u64);
    (start / PAGE..end.div_ceil(PAGE)).map(move |p| (p, start.max(p * PAGE), end.min((p + 1) * PAGE)))
}

/// splitmix64.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// At exit: the counts (`XS_FAULT=count`), and no backup links left behind.
extern "C" fn at_exit() {
    let Some(lock) = STATE.get() else { return };
    let Ok(mut st) = lock.try_lock() else { return };
    if matches!(MODE.get(), Some(Mode::Count)) {
        let mut line = String::from("xs-fault-count:");
        for (i, (_, name)) in OPS.iter().enumerate() {
            line.push_str(&format!(" {name}={}", st.counts[i]));
        }
        line.push_str(&format!(" any={}\n", st.any));
        // SAFETY: writes a buffer we own to stderr.
        unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
    }
    let ops = std::mem::take(&mut st.dir_ops);
    drop_backups(ops);
}
