//! The undo journal of a grid partition: an import that merges into stored slots (a unique
//! key) must read a slot to rewrite it, so a write cut by a crash would leave a slot that
//! neither its re-run nor anything else can read. Before it overwrites slots, the import writes
//! their old rows to `.NAME.undo` beside the partition and makes that durable; the next writer
//! that opens the partition writes them back (the partition is then as it was before the
//! interrupted write, and the import's re-run merges into it again). See docs/FORMAT.md,
//! "Undo journal".

use std::fs::File;
use std::path::{Path, PathBuf};

use super::config::sync_dir;
use super::files::{self, Mode};
use super::partition::{read_full_at, Partition};
use super::vfs;
use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"XSUNDO\0\0";
/// Bytes before the entries.
const HEADER_LEN: usize = 48;
/// Where the check (CRC-32 of bytes 0..40 and the entries) is.
const CHECK_AT: usize = 40;
/// Entry kinds: the slot was empty (all zero), or held these rows.
const EMPTY: u8 = 0;
const STORED: u8 = 1;

/// The journal's path for the partition file `partition_path` (`DIR/.NAME.undo`).
pub fn path_for(partition_path: &Path) -> PathBuf {
    let name = partition_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    partition_path.with_file_name(format!(".{name}.undo"))
}

/// A journal being written by an import: the old rows of the slots of one write.
pub struct Journal {
    path: PathBuf,
    file: File,
    /// The entries of the next commit.
    body: Vec<u8>,
    entries: u64,
    /// A commit was made: its slots may have been written since.
    committed: bool,
}

impl Journal {
    /// Creates the (empty) journal of `part`, replacing any stale one: a writer rolled that
    /// back when it opened the partition.
    pub fn create(part: &Partition) -> Result<Journal> {
        let path = path_for(&part.path);
        let file = files::create_temp(&path, 0o644)?;
        if let Some(dir) = path.parent() {
            sync_dir(dir)?;
        }
        Ok(Journal {
            path,
            file,
            body: Vec::new(),
            entries: 0,
            committed: false,
        })
    }

    /// Records that slot `slot_index` held `rows` (`slab_len` bytes, all zero for an empty
    /// slot) before the coming write.
    pub fn add(&mut self, slot_index: u64, rows: &[u8]) {
        self.body.extend_from_slice(&slot_index.to_le_bytes());
        if rows.iter().all(|&b| b == 0) {
            self.body.push(EMPTY);
        } else {
            self.body.push(STORED);
            self.body.extend_from_slice(rows);
        }
        self.entries += 1;
    }

    /// Bytes of entries waiting for the next commit.
    pub fn pending_bytes(&self) -> usize {
        self.body.len()
    }

    /// Makes the entries added since the last commit the journal's content, durably: only then
    /// may their slots be overwritten. The slots of the previous commit are made durable first
    /// (with `sync`), since their old rows are about to leave the journal.
    pub fn commit(&mut self, part: &Partition, sync: bool) -> Result<()> {
        if self.committed && sync {
            part.sync()?;
        }
        let mut bytes = Vec::with_capacity(HEADER_LEN + self.body.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&part.key.start_ns().to_le_bytes());
        bytes.extend_from_slice(&part.slab_len.to_le_bytes());
        bytes.extend_from_slice(&self.entries.to_le_bytes());
        bytes.extend_from_slice(&(self.body.len() as u64).to_le_bytes());
        let check = journal_check(&bytes[..CHECK_AT], &self.body);
        bytes.extend_from_slice(&check.to_le_bytes());
        bytes.resize(HEADER_LEN, 0);
        bytes.extend_from_slice(&self.body);
        let io = |verb, e| Error::io(verb, &self.path, e);
        // Through the storage layer, so the fault harness can cut, fail or lose these too.
        vfs::write_at(&self.file, &bytes, 0).map_err(|e| io("write", e))?;
        vfs::set_len(&self.file, bytes.len() as u64).map_err(|e| io("truncate", e))?;
        // Without it (`--no-sync`) a kill is still covered (the page cache keeps the journal);
        // a power loss is not.
        if sync {
            vfs::sync_data(&self.file).map_err(|e| io("sync", e))?;
        }
        self.body.clear();
        self.entries = 0;
        self.committed = true;
        Ok(())
    }

    /// Removes the journal once the import's writes are durable.
    pub fn remove(self) -> Result<()> {
        drop(self.file);
        vfs::remove_file(&self.path).map_err(|e| Error::io("remove", &self.path, e))
    }
}

fn journal_check(header: &[u8], body: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(header);
    h.update(body);
    h.finalize()
}

/// Rolls back the journal of `part` if there is one (a writer opening the partition): writes
/// every slot's old rows back, makes them durable, and removes the journal. A journal that
/// does not pass its check was cut while it was written, before any slot of its commit was
/// touched (the slots of the commit before it are durable): it is removed unused. Returns the
/// slots rolled back.
pub fn roll_back(part: &Partition) -> Result<u64> {
    let path = path_for(&part.path);
    if !files::exists(&path)? {
        return Ok(0);
    }
    let file = files::open(&path, Mode::Read, "open")?;
    let len = file.metadata().map_err(|e| Error::io("stat", &path, e))?.len();
    let mut bytes = vec![0u8; usize::try_from(len).unwrap_or(0).max(HEADER_LEN)];
    let whole = len as usize >= HEADER_LEN && read_full_at(&file, &mut bytes, 0).is_ok();
    let mut slots = 0;
    if let Some(entries) = whole.then(|| parse(part, &bytes)).flatten() {
        for (slot, rows) in &entries {
            match rows {
                Some(rows) => part.write_slot(*slot, rows)?,
                None => part.write_slot(*slot, &vec![0u8; part.slab_len as usize])?,
            }
        }
        part.sync()?;
        slots = entries.len() as u64;
    }
    drop(file);
    vfs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
    if let Some(dir) = path.parent() {
        sync_dir(dir)?;
    }
    Ok(slots)
}

/// The entries of a journal whose check passes and that belongs to `part`.
#[allow(clippy::type_complexity)]
fn parse<'a>(part: &Partition, bytes: &'a [u8]) -> Option<Vec<(u64, Option<&'a [u8]>)>> {
    let u64_at = |at: usize| -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(b)
    };
    if &bytes[..8] != MAGIC || u64_at(8) != part.key.start_ns() as u64 || u64_at(16) != part.slab_len {
        return None;
    }
    let (count, body_len) = (u64_at(24), usize::try_from(u64_at(32)).ok()?);
    let body = bytes.get(HEADER_LEN..HEADER_LEN.checked_add(body_len)?)?;
    let check = u32::from_le_bytes(bytes[CHECK_AT..CHECK_AT + 4].try_into().ok()?);
    if journal_check(&bytes[..CHECK_AT], body) != check {
        return None;
    }
    let slab = part.slab_len as usize;
    let mut entries = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let slot = u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?);
        let kind = *body.get(at + 8)?;
        at += 9;
        if slot >= part.slots {
            return None;
        }
        match kind {
            EMPTY => entries.push((slot, None)),
            STORED => {
                entries.push((slot, Some(body.get(at..at + slab)?)));
                at += slab;
            }
            _ => return None,
        }
    }
    (entries.len() as u64 == count).then_some(entries)
}
