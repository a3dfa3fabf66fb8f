//! The `sym` dictionary: one per database, in `sym.dict` at its top (above any series
//! directories), shared by every `sym` column. A `sym` field stores a u32 code; the code is the
//! index of its text in this file. The file is append-only and crash-safe: new entries are
//! written and fsynced, then the header's committed length is moved past them and fsynced, and
//! only then may a partition write use their codes (docs/FORMAT.md, "Symbol dictionary").
//!
//! Only the writer (holding the database's writer lock) appends. A reader loads the committed
//! entries the first time it needs one and checks each entry on its first use; a code past
//! them (written by a writer since), or an entry that fails its check, makes it read the file
//! again once, checking it whole (`text_reloading`).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use super::files::{self, Mode};
use super::vfs;
use crate::error::{Error, Result};

/// The dictionary's file name, at the top of the database directory.
pub const SYM_FILE: &str = "sym.dict";
/// The name the file is created under before its rename.
pub const SYM_TEMP_FILE: &str = ".sym.dict.tmp";
pub const MAGIC: [u8; 8] = *b"XSSYMDIC";
pub const VERSION: u32 = 1;
pub const HEADER_LEN: u64 = 32;
/// Bytes before an entry's text: its length and its CRC-32.
pub const ENTRY_HEAD: usize = 8;
/// Longest `sym` value, in bytes: a length field past it can only be damage.
pub const MAX_SYM_LEN: usize = 65_536;
/// Codes are below this (the top bit is the import's chunk-local marker).
pub const MAX_CODES: u32 = 1 << 31;

/// The index of entry offsets beside the dictionary: a reader finds one entry through it
/// without reading the others (docs/FORMAT.md, "Symbol index"). Only ever a shortcut: an
/// entry found through it is checked against the dictionary, and a reader that finds it
/// missing, short or disagreeing reads the dictionary whole.
pub const INDEX_FILE: &str = "sym.idx";
/// The name the index is written under before its rename, when it is written whole.
pub const INDEX_TEMP_FILE: &str = ".sym.idx.tmp";
pub const INDEX_MAGIC: [u8; 8] = *b"XSSYMIDX";
pub const INDEX_VERSION: u32 = 1;
pub const INDEX_HEADER_LEN: u64 = 16;
/// A record: u64 file offset of entry `code`, u32 `code`, u32 the entry's CRC-32.
pub const INDEX_RECORD_LEN: u64 = 16;
/// Distinct codes a reader looks up through the index before it reads the dictionary whole:
/// one host's rows need two or three; a read over every host needs them all, at once.
const INDEXED_CODES: usize = 64;
/// A dictionary file up to this size is read whole by a reader, index or not.
const READ_WHOLE_BELOW: u64 = 64 << 10;

thread_local! {
    /// `READ_WHOLE_BELOW` unless a test set another size for this thread's reads.
    static WHOLE_BELOW: std::cell::Cell<u64> = const { std::cell::Cell::new(READ_WHOLE_BELOW) };
}

/// Sets the dictionary size up to which this thread's reads load it whole instead of
/// reading entries through `sym.idx` (default `READ_WHOLE_BELOW`), for tests: 0 sends the
/// model test's small dictionaries through the index.
#[doc(hidden)]
pub fn set_read_whole_below(bytes: u64) {
    WHOLE_BELOW.with(|b| b.set(bytes));
}

/// FNV-1a for the text-to-code maps: symbols are short, and the import looks one up per
/// field, where SipHash's setup costs more than the hashing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let start = if self.0 == 0 {
            super::schema::FNV1A64_START
        } else {
            self.0
        };
        self.0 = super::schema::fnv1a64_more(start, bytes);
    }
}

pub type FnvBuild = std::hash::BuildHasherDefault<Fnv>;

/// The committed entries as of one read: texts by code, and codes by text.
///
/// The entries lie back to back in one buffer, as the file holds them (a dictionary of 30,000
/// host names is one allocation, not 30,000), and the table of codes by text is built on the
/// first lookup by text: a reader that only prints values never needs it.
///
/// A reader checks an entry's checksum and UTF-8 the first time it uses it: a read that prints
/// one host of 30,000 checks one entry, not all of them, and its cost does not grow with the
/// number of series. The lengths and the count are checked on load, so every code still finds
/// its own entry. A writer's snapshot, and one read again (`SymDict::reload`), is checked whole.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Entries as in the file: u32 length, u32 CRC-32, the text; a writer's new entries are
    /// appended encoded the same way, so `persist` writes them as they are.
    entries: Vec<u8>,
    /// Where each entry ends in `entries`; entry `i` starts where entry `i - 1` ends.
    ends: Vec<usize>,
    /// One bit per entry, set once its checksum and UTF-8 are checked (or it was pushed).
    checked: Vec<AtomicU64>,
    codes: std::sync::OnceLock<CodeTable>,
}

impl Clone for Snapshot {
    fn clone(&self) -> Snapshot {
        Snapshot {
            entries: self.entries.clone(),
            ends: self.ends.clone(),
            checked: self
                .checked
                .iter()
                .map(|w| AtomicU64::new(w.load(Ordering::Relaxed)))
                .collect(),
            codes: self.codes.clone(),
        }
    }
}

impl Snapshot {
    /// Entries parsed from a file's committed bytes after the header (`count` of them, as the
    /// header says): every length must be in range and inside `body`, and their number must
    /// be `count`. With `check_all`, every entry's checksum and UTF-8 are checked here too;
    /// without, each is checked on its first use. Errors name the entry and its file offset.
    fn parse(entries: Vec<u8>, count: u32, check_all: bool) -> std::result::Result<Snapshot, String> {
        // Each entry takes at least ENTRY_HEAD + 1 bytes: a count past that is damage, and
        // nothing is allocated for it.
        if u64::from(count) * (ENTRY_HEAD as u64 + 1) > entries.len() as u64 {
            return Err(format!(
                "its header counts {count} entries in {} bytes",
                HEADER_LEN + entries.len() as u64
            ));
        }
        let ends = entry_ends(&entries, count as usize)?;
        if ends.len() != count as usize {
            return Err(format!(
                "its header counts {count} entries, its committed bytes hold {}",
                ends.len()
            ));
        }
        let words = ends.len().div_ceil(64);
        let snap = Snapshot {
            entries,
            ends,
            checked: (0..words).map(|_| AtomicU64::new(0)).collect(),
            codes: Default::default(),
        };
        if check_all {
            snap.check_all()?;
        }
        Ok(snap)
    }

    #[inline]
    pub fn text(&self, code: u32) -> Option<&str> {
        let i = code as usize;
        let end = *self.ends.get(i)?;
        let (word, bit) = (&self.checked[i / 64], 1u64 << (i % 64));
        if word.load(Ordering::Relaxed) & bit == 0 {
            self.check_entry(i).ok()?;
            word.fetch_or(bit, Ordering::Relaxed);
        }
        let text = &self.entries[self.start(i) + ENTRY_HEAD..end];
        // SAFETY: the entry's bit is set only once `check_entry` found its text UTF-8, or by
        // `push`, which copied it from a `&str`; entries never change after that.
        Some(unsafe { std::str::from_utf8_unchecked(text) })
    }

    #[inline]
    pub fn code(&self, text: &str) -> Option<u32> {
        self.code_of_bytes(text.as_bytes())
    }

    /// `code` of text not yet checked as UTF-8: a match is, since every stored text is.
    pub fn code_of_bytes(&self, text: &[u8]) -> Option<u32> {
        self.codes.get_or_init(|| CodeTable::of(self)).find(self, text)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Checks every entry not checked yet: the first damaged one is the error.
    pub fn check_all(&self) -> std::result::Result<(), String> {
        for (w, word) in self.checked.iter().enumerate() {
            if word.load(Ordering::Relaxed) == u64::MAX {
                continue;
            }
            let upto = self.ends.len().min((w + 1) * 64);
            for i in w * 64..upto {
                self.check_entry(i)?;
            }
            word.fetch_or(u64::MAX, Ordering::Relaxed);
        }
        Ok(())
    }

    #[inline]
    fn start(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.ends[i - 1]
        }
    }

    /// Entry `i`'s checksum and UTF-8 (its length was checked on load).
    #[cold]
    fn check_entry(&self, i: usize) -> std::result::Result<(), String> {
        let at = self.start(i);
        let entry = &self.entries[at..self.ends[i]];
        let crc = u32::from_le_bytes(le4(&entry[4..]));
        if entry_crc(&entry[..4], &entry[ENTRY_HEAD..]) != crc {
            return Err(damaged_entry(i, at, "fails its checksum"));
        }
        match std::str::from_utf8(&entry[ENTRY_HEAD..]) {
            Ok(_) => Ok(()),
            Err(_) => Err(damaged_entry(i, at, "is not UTF-8")),
        }
    }

    fn push(&mut self, text: &str) -> u32 {
        let code = self.ends.len() as u32;
        encode_entry(text, &mut self.entries);
        self.ends.push(self.entries.len());
        let i = code as usize;
        if i / 64 == self.checked.len() {
            self.checked.push(AtomicU64::new(0));
        }
        *self.checked[i / 64].get_mut() |= 1 << (i % 64);
        // A table built already takes the new code; none is built until a lookup needs it.
        if let Some(mut table) = self.codes.take() {
            table.insert(self, code);
            let _ = self.codes.set(table);
        }
        code
    }

    /// The encoded entries from code `from` on, as `persist` appends them to the file.
    fn entries_from(&self, from: usize) -> &[u8] {
        &self.entries[self.start(from).min(self.entries.len())..]
    }
}

/// Where each entry of `entries` (the bytes after the header) ends, by their lengths: each
/// must be in range and inside `entries`. `expected` entries are room made for.
fn entry_ends(entries: &[u8], expected: usize) -> std::result::Result<Vec<usize>, String> {
    let mut ends = Vec::with_capacity(expected);
    let mut at = 0usize;
    while at < entries.len() {
        if entries.len() - at < ENTRY_HEAD {
            return Err(damaged_entry(ends.len(), at, "is cut short"));
        }
        let len = u32::from_le_bytes(le4(&entries[at..])) as usize;
        if len == 0 || len > MAX_SYM_LEN || len > entries.len() - at - ENTRY_HEAD {
            return Err(damaged_entry(ends.len(), at, &format!("has a bad length {len}")));
        }
        at += ENTRY_HEAD + len;
        ends.push(at);
    }
    Ok(ends)
}

/// The message for entry `i` at `at` bytes into the entries (after the header).
fn damaged_entry(i: usize, at: usize, what: &str) -> String {
    format!(
        "entry {i} at byte offset {} {what}: the dictionary is damaged; restore it from a backup",
        HEADER_LEN + at as u64
    )
}

fn le4(b: &[u8]) -> [u8; 4] {
    b[..4].try_into().unwrap_or_default()
}

/// CRC-32 of an entry: its 4 length bytes, then its text.
fn entry_crc(len: &[u8], text: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(len);
    h.update(text);
    h.finalize()
}

/// Codes by the FNV-1a hash of their text, open addressing with linear probing: a slot holds a
/// code, and a lookup compares the text in the snapshot, so the table allocates once, not per
/// entry. At most half full.
#[derive(Clone, Debug, Default)]
struct CodeTable {
    /// `EMPTY`, or a code.
    slots: Vec<u32>,
}

impl CodeTable {
    const EMPTY: u32 = u32::MAX;

    fn of(snap: &Snapshot) -> CodeTable {
        let mut table = CodeTable {
            slots: vec![Self::EMPTY; (snap.len() * 2).next_power_of_two().max(16)],
        };
        for code in 0..snap.len() as u32 {
            table.place(snap, code);
        }
        table
    }

    fn hash(text: &[u8]) -> usize {
        super::schema::fnv1a64_more(super::schema::FNV1A64_START, text) as usize
    }

    #[inline]
    fn find(&self, snap: &Snapshot, text: &[u8]) -> Option<u32> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut i = Self::hash(text) & mask;
        loop {
            match self.slots[i] {
                Self::EMPTY => return None,
                code if snap.text(code).map(str::as_bytes) == Some(text) => return Some(code),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Adds `code`, whose text is in `snap` and not in the table yet.
    fn insert(&mut self, snap: &Snapshot, code: u32) {
        if (code as usize + 1) * 2 > self.slots.len() {
            *self = CodeTable::of(snap);
            return;
        }
        self.place(snap, code);
    }

    fn place(&mut self, snap: &Snapshot, code: u32) {
        let mask = self.slots.len() - 1;
        let mut i = Self::hash(snap.text(code).unwrap_or_default().as_bytes()) & mask;
        while self.slots[i] != Self::EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = code;
    }
}

/// A database's dictionary, shared by its handles (it rides in the `Schema`).
pub struct SymDict {
    dir: PathBuf,
    writable: bool,
    /// `None` until a reader first needs the entries: a command that prints no `sym` column
    /// never reads the file (a database of 30,000 hosts has a dictionary of half a megabyte).
    /// A writer loads it on open.
    snap: RwLock<Option<Arc<Snapshot>>>,
    /// Writer only: entries `[0, durable)` are committed on disk, `durable..` are not yet.
    durable: Mutex<usize>,
}

impl std::fmt::Debug for SymDict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymDict").field("dir", &self.dir).finish()
    }
}

/// Why a value cannot be a `sym`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymError {
    TooLong(usize),
    NulByte,
    /// A read-only handle met a text the dictionary does not hold.
    Unknown,
    Full,
}

impl SymDict {
    /// The dictionary of the database at `dir` (empty when the file does not exist yet): a
    /// writer's is read and checked here, a reader's when it is first needed (`snapshot`).
    pub fn load(dir: &Path, writable: bool) -> Result<SymDict> {
        let path = dir.join(SYM_FILE);
        let snap = match writable {
            true => Some(Arc::new(match read_file(&path, true) {
                Err(Error::Damaged { .. }) if rewrite_torn_header(&path)? => read_file(&path, true)?,
                read => read?,
            })),
            false => None,
        };
        if let Some(snap) = snap.as_ref().filter(|s| !s.is_empty()) {
            // A database written before the index, or by an xs without it: made whole here,
            // under the writer lock, so that later reads find their entries through it.
            if !index_in_step(dir, snap.len())? {
                write_index(dir, snap, 0)?;
            }
        }
        let durable = snap.as_ref().map_or(0, |s| s.len());
        Ok(SymDict {
            dir: dir.to_path_buf(),
            writable,
            snap: RwLock::new(snap),
            durable: Mutex::new(durable),
        })
    }

    /// A dictionary that is not backed by a file (for schemas built in memory: `persist`
    /// does nothing).
    pub fn in_memory() -> SymDict {
        SymDict {
            dir: PathBuf::new(),
            writable: true,
            snap: RwLock::new(Some(Arc::new(Snapshot::default()))),
            durable: Mutex::new(0),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(SYM_FILE)
    }

    /// The entries as loaded (and as interned by this writer); a reader reads the file the
    /// first time it asks, and fails there if the file is damaged.
    pub fn snapshot(&self) -> Result<Arc<Snapshot>> {
        if let Some(snap) = &*self.snap.read().unwrap_or_else(|e| e.into_inner()) {
            return Ok(Arc::clone(snap));
        }
        let fresh = read_file(&self.path(), false)?;
        let mut guard = self.snap.write().unwrap_or_else(|e| e.into_inner());
        Ok(Arc::clone(guard.get_or_insert_with(|| Arc::new(fresh))))
    }

    /// The entries, or none when they cannot be read: for lookups whose misses are checked
    /// again through `text_reloading`, which says what is wrong.
    pub fn snapshot_or_empty(&self) -> Arc<Snapshot> {
        self.snapshot().unwrap_or_default()
    }

    /// Texts by code for printing: a reader that has not loaded the entries finds each one
    /// through `sym.idx` (a read of one host among 30,000 reads two entries, not half a
    /// megabyte), until it has looked up more than a few codes; else the loaded entries.
    /// Misses (a code past them, damage) go to `text_reloading`, which says what is wrong.
    pub fn texts_or_empty(&self) -> Texts {
        let loaded = self.snap.read().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(snap) = loaded {
            return Texts::Loaded(snap);
        }
        // A small dictionary is read in one go, faster than two entries through the index.
        let large = |dir: &Path| {
            let below = WHOLE_BELOW.with(|b| b.get());
            std::fs::symlink_metadata(dir.join(SYM_FILE)).is_ok_and(|m| m.len() > below)
        };
        if !self.writable && !self.dir.as_os_str().is_empty() && large(&self.dir) {
            if let Ok(Some(indexed)) = Indexed::open(&self.dir) {
                return Texts::Indexed(Arc::new(indexed));
            }
        }
        Texts::Loaded(self.snapshot_or_empty())
    }

    /// The code of `text`, giving it a new one if it has none (a writer's handle; the new entry
    /// is on disk only after `persist`). A read-only handle reads the file again for a text it
    /// does not know, and says `Unknown` if it is still missing.
    pub fn intern(&self, text: &str) -> std::result::Result<u32, SymError> {
        check_text(text)?;
        if let Some(code) = self.snapshot_or_empty().code(text) {
            return Ok(code);
        }
        if !self.writable {
            let _ = self.reload();
            return self.snapshot_or_empty().code(text).ok_or(SymError::Unknown);
        }
        Ok(self.intern_all([text])?[0])
    }

    /// Codes for `texts`, new texts appended in the order given (so that the same imports give
    /// the same codes). Writer only.
    pub fn intern_all<'a>(
        &self,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> std::result::Result<Vec<u32>, SymError> {
        let mut guard = self.snap.write().unwrap_or_else(|e| e.into_inner());
        // A writer's entries are loaded on open; an in-memory dictionary starts empty.
        let snap = Arc::make_mut(guard.get_or_insert_with(Default::default));
        let mut out = Vec::new();
        for text in texts {
            let code = match snap.code(text) {
                Some(code) => code,
                None if snap.len() as u64 >= u64::from(MAX_CODES) => return Err(SymError::Full),
                None => snap.push(text),
            };
            out.push(code);
        }
        Ok(out)
    }

    /// Writes the entries not yet on disk and commits them (fsync, header, fsync): after it
    /// returns, rows may refer to every code handed out so far.
    pub fn persist(&self) -> Result<()> {
        let mut durable = self.durable.lock().unwrap_or_else(|e| e.into_inner());
        let snap = self.snapshot()?;
        if snap.len() == *durable || self.dir.as_os_str().is_empty() {
            return Ok(());
        }
        let path = self.path();
        if !files::exists(&path)? {
            create_file(&self.dir)?;
        }
        let file = files::open(&path, Mode::ReadWrite, "open")?;
        let (count, committed) = read_header(&file, &path)?;
        if count as usize != *durable {
            return Err(Error::Damaged {
                path,
                reason: format!(
                    "the symbol dictionary holds {count} entries, but this writer loaded {}: \
                     another process changed it; no other xs may write to this database meanwhile",
                    *durable
                ),
            });
        }
        // An uncommitted tail (an append a crash cut) is dropped first, so that the file ends
        // exactly at the new commit, as a run that was never cut leaves it.
        let len = file.metadata().map_err(|e| Error::io("look up", &path, e))?.len();
        if len > committed {
            vfs::set_len(&file, committed).map_err(|e| Error::io("truncate", &path, e))?;
        }
        let body = snap.entries_from(*durable);
        vfs::write_at(&file, body, committed).map_err(|e| Error::io("write", &path, e))?;
        vfs::sync_data(&file).map_err(|e| Error::io("sync", &path, e))?;
        // The new entries' index records are durable before the entries are committed, so
        // that every committed entry has its record.
        write_index(&self.dir, &snap, *durable)?;
        let header = encode_header(snap.len() as u32, committed + body.len() as u64);
        vfs::write_at(&file, &header, 0).map_err(|e| Error::io("write", &path, e))?;
        vfs::sync_data(&file).map_err(|e| Error::io("sync", &path, e))?;
        *durable = snap.len();
        Ok(())
    }

    /// Reads the committed entries again and checks them all (a reader, after a writer
    /// appended, or after an entry failed its check on first use: the error then names it).
    pub fn reload(&self) -> Result<()> {
        if self.writable || self.dir.as_os_str().is_empty() {
            return Ok(());
        }
        let fresh = read_file(&self.path(), true)?;
        let mut guard = self.snap.write().unwrap_or_else(|e| e.into_inner());
        if guard.as_ref().is_none_or(|had| fresh.len() >= had.len()) {
            *guard = Some(Arc::new(fresh));
        }
        Ok(())
    }

    /// What is wrong with `sym.idx`, if anything: the first record that is not where and
    /// what the dictionary says (`xs check`). A missing or short index is no problem: readers
    /// then read the dictionary whole, and the next writer writes it. A writer does not
    /// compare the records it finds (only their number), hence the advice to remove it.
    pub fn index_disagreement(&self) -> Result<Option<String>> {
        let path = self.dir.join(INDEX_FILE);
        let Some(file) = files::open_if_exists(&path, Mode::Read)? else {
            return Ok(None);
        };
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut &file, &mut bytes).map_err(|e| Error::io("read", &path, e))?;
        let snap = self.snapshot()?;
        let advice = "readers check each entry it leads to; remove the file, and the next writer \
                      (any import or put) writes it anew";
        if (bytes.len() as u64) < index_end(snap.len()) {
            return Ok(None);
        }
        if bytes[..INDEX_HEADER_LEN as usize] != index_header() {
            return Ok(Some(format!("{}: bad header; {advice}", path.display())));
        }
        let expected = index_records(&snap, 0);
        let actual = &bytes[INDEX_HEADER_LEN as usize..][..expected.len()];
        let wrong = expected
            .chunks_exact(INDEX_RECORD_LEN as usize)
            .zip(actual.chunks_exact(INDEX_RECORD_LEN as usize))
            .position(|(e, a)| e != a);
        Ok(wrong.map(|code| {
            format!(
                "{}: the record of symbol code {code} does not match sym.dict; {advice}",
                path.display()
            )
        }))
    }

    /// The text of `code`, reading the file again once if it is past what was loaded; a code
    /// still unknown is damage (a row that refers to an entry the dictionary lost). `row` names
    /// the row for the message: "a row", or "column `side` of the row at …".
    pub fn text_reloading(&self, code: u32, row: impl FnOnce() -> String) -> Result<Arc<str>> {
        if let Some(t) = self.snapshot()?.text(code) {
            return Ok(Arc::from(t));
        }
        self.reload()?;
        let snap = self.snapshot()?;
        snap.text(code).map(Arc::from).ok_or_else(|| Error::Damaged {
            path: self.path(),
            reason: format!(
                "{} refers to symbol code {code}, but the dictionary holds {} entries: it was \
                     replaced, truncated or removed; restore the database's sym.dict from a backup \
                     (`xs check` lists the rows whose text is lost)",
                row(),
                snap.len()
            ),
        })
    }
}

/// Texts by code, as `SymDict::texts_or_empty` gives them to a reader.
#[derive(Clone, Debug)]
pub enum Texts {
    Loaded(Arc<Snapshot>),
    Indexed(Arc<Indexed>),
}

impl Texts {
    #[inline]
    pub fn text(&self, code: u32) -> Option<&str> {
        match self {
            Texts::Loaded(snap) => snap.text(code),
            Texts::Indexed(indexed) => indexed.text(code),
        }
    }
}

/// A reader's dictionary that reads an entry only when a row needs it: its `sym.idx` record
/// gives the entry's offset, and the entry is checked (its code, length, CRC-32 and UTF-8)
/// before its text is used. Past `INDEXED_CODES` codes, or when an entry cannot be found or
/// checked this way, the dictionary is read whole, as without an index.
#[derive(Debug)]
pub struct Indexed {
    path: PathBuf,
    dict: File,
    index: File,
    count: u32,
    committed: u64,
    /// Codes looked up so far (open addressing; `EMPTY` marks a free slot), each with its
    /// text once read (`None`: it could not be read through the index).
    slots: Vec<(
        std::sync::atomic::AtomicU32,
        std::sync::OnceLock<Option<Box<str>>>,
    )>,
    taken: std::sync::atomic::AtomicUsize,
    whole: std::sync::OnceLock<Option<Snapshot>>,
}

const EMPTY_SLOT: u32 = u32::MAX;

impl Indexed {
    /// The dictionary at `dir` read through its index; `None` when there is no dictionary or
    /// no index covering every committed entry (the dictionary is then read whole). A
    /// damaged dictionary header is an error, as it is to a reader without the index.
    fn open(dir: &Path) -> Result<Option<Indexed>> {
        let path = dir.join(SYM_FILE);
        let Some(dict) = files::open_if_exists(&path, Mode::Read)? else {
            return Ok(None);
        };
        let (count, committed) = read_header(&dict, &path)?;
        let len = dict.metadata().map_err(|e| Error::io("look up", &path, e))?.len();
        if committed > len {
            return Ok(None);
        }
        let Ok(Some((index, index_len))) = open_index(dir, Mode::Read) else {
            return Ok(None);
        };
        if index_len < index_end(count as usize) {
            return Ok(None);
        }
        Ok(Some(Indexed {
            path,
            dict,
            index,
            count,
            committed,
            slots: (0..INDEXED_CODES * 2)
                .map(|_| (std::sync::atomic::AtomicU32::new(EMPTY_SLOT), Default::default()))
                .collect(),
            taken: Default::default(),
            whole: Default::default(),
        }))
    }

    pub fn text(&self, code: u32) -> Option<&str> {
        if let Some(whole) = self.whole.get() {
            return whole.as_ref()?.text(code);
        }
        if code >= self.count || code == EMPTY_SLOT {
            return None;
        }
        let n = self.slots.len();
        let mut i = (code as usize).wrapping_mul(0x9e37_79b9) % n;
        for _ in 0..n {
            let (slot_code, text) = &self.slots[i];
            let mut held = slot_code.load(Ordering::Acquire);
            if held == EMPTY_SLOT {
                if self.taken.fetch_add(1, Ordering::Relaxed) >= INDEXED_CODES {
                    break;
                }
                held = match slot_code.compare_exchange(EMPTY_SLOT, code, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => code,
                    Err(other) => other,
                };
            }
            if held == code {
                return match text.get_or_init(|| self.read_entry(code)) {
                    Some(t) => Some(t),
                    None => self.whole_text(code),
                };
            }
            i = (i + 1) % n;
        }
        self.whole_text(code)
    }

    /// The whole dictionary's text of `code`, read (lengths and count checked, entries on
    /// first use) the first time it is needed.
    #[cold]
    fn whole_text(&self, code: u32) -> Option<&str> {
        self.whole
            .get_or_init(|| read_file(&self.path, false).ok())
            .as_ref()?
            .text(code)
    }

    /// Entry `code` through its index record, checked; `None` if anything disagrees.
    fn read_entry(&self, code: u32) -> Option<Box<str>> {
        let mut record = [0u8; INDEX_RECORD_LEN as usize];
        self.index
            .read_exact_at(&mut record, index_end(code as usize))
            .ok()?;
        let offset = u64::from_le_bytes(record[0..8].try_into().ok()?);
        let crc = u32::from_le_bytes(le4(&record[12..]));
        if u32::from_le_bytes(le4(&record[8..])) != code
            || offset < HEADER_LEN
            || offset.checked_add(ENTRY_HEAD as u64 + 1)? > self.committed
        {
            return None;
        }
        // Most texts are short: one read takes the entry whole.
        let mut entry = vec![0u8; (self.committed - offset).min(256) as usize];
        self.dict.read_exact_at(&mut entry, offset).ok()?;
        let len = u32::from_le_bytes(le4(&entry)) as usize;
        if len == 0 || len > MAX_SYM_LEN || offset + (ENTRY_HEAD + len) as u64 > self.committed {
            return None;
        }
        if entry.len() < ENTRY_HEAD + len {
            let have = entry.len();
            entry.resize(ENTRY_HEAD + len, 0);
            self.dict
                .read_exact_at(&mut entry[have..], offset + have as u64)
                .ok()?;
        }
        entry.truncate(ENTRY_HEAD + len);
        let stored = u32::from_le_bytes(le4(&entry[4..]));
        if stored != crc || entry_crc(&entry[..4], &entry[ENTRY_HEAD..]) != stored {
            return None;
        }
        std::str::from_utf8(&entry[ENTRY_HEAD..]).ok().map(Box::from)
    }
}

fn index_header() -> [u8; INDEX_HEADER_LEN as usize] {
    let mut h = [0u8; INDEX_HEADER_LEN as usize];
    h[0..8].copy_from_slice(&INDEX_MAGIC);
    h[8..12].copy_from_slice(&INDEX_VERSION.to_le_bytes());
    h
}

/// Where the record of entry `code` starts (and the index of `code` entries ends).
fn index_end(code: usize) -> u64 {
    INDEX_HEADER_LEN + code as u64 * INDEX_RECORD_LEN
}

/// The index records of `snap`'s entries `from..`.
fn index_records(snap: &Snapshot, from: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity((snap.len() - from) * INDEX_RECORD_LEN as usize);
    for i in from..snap.len() {
        let at = snap.start(i);
        out.extend_from_slice(&(HEADER_LEN + at as u64).to_le_bytes());
        out.extend_from_slice(&(i as u32).to_le_bytes());
        out.extend_from_slice(&snap.entries[at + 4..at + ENTRY_HEAD]);
    }
    out
}

/// `sym.idx` opened with `mode`, and its length; `None` when it is missing or does not start
/// with its header.
fn open_index(dir: &Path, mode: Mode) -> Result<Option<(File, u64)>> {
    let path = dir.join(INDEX_FILE);
    let Some(file) = files::open_if_exists(&path, mode)? else {
        return Ok(None);
    };
    let len = file.metadata().map_err(|e| Error::io("look up", &path, e))?.len();
    let mut head = [0u8; INDEX_HEADER_LEN as usize];
    let headed = file.read_exact_at(&mut head, 0).is_ok() && head == index_header();
    Ok(headed.then_some((file, len)))
}

/// Whether `sym.idx` holds a header and exactly `count` records (as a writer leaves it).
fn index_in_step(dir: &Path, count: usize) -> Result<bool> {
    Ok(open_index(dir, Mode::Read)?.is_some_and(|(_, len)| len == index_end(count)))
}

/// Writes the index records of `snap`'s entries from `from` on and makes them durable (a
/// writer, before it commits those entries): appended when the index holds exactly the
/// records before `from`, else the whole index is written anew (temporary file, fsync,
/// rename, fsync of the directory).
fn write_index(dir: &Path, snap: &Snapshot, from: usize) -> Result<()> {
    let path = dir.join(INDEX_FILE);
    if from > 0 {
        if let Some((file, len)) = open_index(dir, Mode::ReadWrite)? {
            if len == index_end(from) {
                vfs::write_at(&file, &index_records(snap, from), len)
                    .map_err(|e| Error::io("write", &path, e))?;
                return vfs::sync_data(&file).map_err(|e| Error::io("sync", &path, e));
            }
        }
    }
    let tmp = dir.join(INDEX_TEMP_FILE);
    let file = files::create_temp(&tmp, 0o644)?;
    let mut bytes = index_header().to_vec();
    bytes.extend_from_slice(&index_records(snap, 0));
    vfs::write_at(&file, &bytes, 0).map_err(|e| Error::io("write", &tmp, e))?;
    vfs::sync_all(&file).map_err(|e| Error::io("sync", &tmp, e))?;
    drop(file);
    vfs::rename(&tmp, &path).map_err(|e| Error::io("rename", &tmp, e))?;
    super::config::sync_dir(dir)
}

/// A `sym` value must be non-empty text (empty is null), without NUL, of at most `MAX_SYM_LEN`.
pub fn check_text(text: &str) -> std::result::Result<(), SymError> {
    if text.len() > MAX_SYM_LEN {
        return Err(SymError::TooLong(text.len()));
    }
    if text.as_bytes().contains(&0) {
        return Err(SymError::NulByte);
    }
    Ok(())
}

/// The 32-byte header: magic, version, entry count, committed length, CRC-32 of bytes 0..24.
pub fn encode_header(count: u32, committed: u64) -> [u8; HEADER_LEN as usize] {
    let mut h = [0u8; HEADER_LEN as usize];
    h[0..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&count.to_le_bytes());
    h[16..24].copy_from_slice(&committed.to_le_bytes());
    let crc = crc32fast::hash(&h[0..24]);
    h[24..28].copy_from_slice(&crc.to_le_bytes());
    h
}

/// Appends one entry: u32 length, u32 CRC-32 of the length's 4 bytes and the text, the text.
pub fn encode_entry(text: &str, out: &mut Vec<u8>) {
    let len = (text.len() as u32).to_le_bytes();
    out.extend_from_slice(&len);
    out.extend_from_slice(&entry_crc(&len, text.as_bytes()).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// Decodes a whole file's bytes: the committed entries, in code order. Bytes past the committed
/// length (an append that was never committed) are ignored; anything wrong before it is damage,
/// described with its byte offset.
pub fn decode(bytes: &[u8]) -> std::result::Result<Vec<String>, String> {
    let snap = decode_snapshot(bytes)?;
    Ok((0..snap.len() as u32)
        .map(|code| snap.text(code).unwrap_or_default().to_string())
        .collect())
}

/// `decode`, into a snapshot checked whole.
fn decode_snapshot(bytes: &[u8]) -> std::result::Result<Snapshot, String> {
    if bytes.len() < HEADER_LEN as usize {
        return Err(format!(
            "the file is {} bytes, shorter than its {HEADER_LEN}-byte header",
            bytes.len()
        ));
    }
    let (count, committed) = parse_header(&bytes[..HEADER_LEN as usize])?;
    if committed > bytes.len() as u64 {
        return Err(format!(
            "its header commits {committed} bytes, but the file holds {}: it was truncated",
            bytes.len()
        ));
    }
    Snapshot::parse(
        bytes[HEADER_LEN as usize..committed as usize].to_vec(),
        count,
        true,
    )
}

fn parse_header(h: &[u8]) -> std::result::Result<(u32, u64), String> {
    if h[0..8] != MAGIC {
        return Err("it does not start with XSSYMDIC: not an xs symbol dictionary".into());
    }
    let crc = u32::from_le_bytes(h[24..28].try_into().unwrap_or_default());
    if crc32fast::hash(&h[0..24]) != crc {
        return Err(
            "its header fails its checksum: the dictionary is damaged (if an import or put was cut \
             short, run it again: a writer rewrites a header whose write was cut off); else restore \
             it from a backup"
                .into(),
        );
    }
    let version = u32::from_le_bytes(h[8..12].try_into().unwrap_or_default());
    if version != VERSION {
        return Err(format!(
            "its version is {version}, this xs reads version {VERSION}; use a matching xs release"
        ));
    }
    let count = u32::from_le_bytes(h[12..16].try_into().unwrap_or_default());
    let committed = u64::from_le_bytes(h[16..24].try_into().unwrap_or_default());
    if committed < HEADER_LEN {
        return Err(format!(
            "its header commits {committed} bytes, less than the header"
        ));
    }
    Ok((count, committed))
}

fn read_header(file: &File, path: &Path) -> Result<(u32, u64)> {
    let mut h = [0u8; HEADER_LEN as usize];
    // A reader may meet the writer's header write half done: read it again before calling
    // it damage.
    let mut tries = 0;
    loop {
        file.read_exact_at(&mut h, 0)
            .map_err(|e| Error::io("read", path, e))?;
        match parse_header(&h) {
            Ok(header) => return Ok(header),
            Err(_) if tries < 3 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(reason) => return Err(damaged(path, reason)),
        }
    }
}

/// A writer's repair of a header that fails its checksum because its write was cut short
/// (a full disk, a crash mid-write) after the entries it commits were made durable: when the
/// magic and version are intact and every byte after the header parses as checked entries up
/// to the end of the file (as an append leaves it), the header is written again for those
/// entries. Returns whether it did; anything else stays damage.
fn rewrite_torn_header(path: &Path) -> Result<bool> {
    let file = files::open(path, Mode::ReadWrite, "open")?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut &file, &mut bytes).map_err(|e| Error::io("read", path, e))?;
    let header = &bytes[..bytes.len().min(HEADER_LEN as usize)];
    let intact = header.len() == HEADER_LEN as usize
        && header[0..8] == MAGIC
        && header[8..12] == VERSION.to_le_bytes()
        && parse_header(header).is_err();
    if !intact {
        return Ok(false);
    }
    let body = bytes[HEADER_LEN as usize..].to_vec();
    // The entries' number, by their lengths up to the end; then each is checked whole.
    let Ok(count) = entry_ends(&body, 0).map(|ends| ends.len() as u32) else {
        return Ok(false);
    };
    if Snapshot::parse(body, count, true).is_err() {
        return Ok(false);
    }
    let fixed = encode_header(count, bytes.len() as u64);
    vfs::write_at(&file, &fixed, 0).map_err(|e| Error::io("write", path, e))?;
    vfs::sync_data(&file).map_err(|e| Error::io("sync", path, e))?;
    Ok(true)
}

fn damaged(path: &Path, reason: String) -> Error {
    Error::Damaged {
        path: path.to_path_buf(),
        reason: format!("symbol dictionary: {reason}"),
    }
}

/// Reads the committed entries of `path`, checked whole or on first use (`Snapshot::parse`); a
/// missing file is an empty dictionary.
fn read_file(path: &Path, check_all: bool) -> Result<Snapshot> {
    let Some(file) = files::open_if_exists(path, Mode::Read)? else {
        return Ok(Snapshot::default());
    };
    let (count, committed) = read_header(&file, path)?;
    let len = file.metadata().map_err(|e| Error::io("look up", path, e))?.len();
    if committed > len {
        return Err(damaged(
            path,
            format!("its header commits {committed} bytes, but the file holds {len}: it was truncated"),
        ));
    }
    // Only the committed bytes are read: an uncommitted tail may be torn.
    let mut entries = vec![0u8; (committed - HEADER_LEN) as usize];
    file.read_exact_at(&mut entries, HEADER_LEN)
        .map_err(|e| Error::io("read", path, e))?;
    Snapshot::parse(entries, count, check_all).map_err(|reason| damaged(path, reason))
}

/// Creates an empty dictionary file: written as a temporary file, fsynced, renamed into place,
/// and the directory fsynced, so a crash leaves no file or a whole empty one.
fn create_file(dir: &Path) -> Result<()> {
    let tmp = dir.join(SYM_TEMP_FILE);
    let file = files::create_temp(&tmp, 0o644)?;
    vfs::write_at(&file, &encode_header(0, HEADER_LEN), 0).map_err(|e| Error::io("write", &tmp, e))?;
    vfs::sync_all(&file).map_err(|e| Error::io("sync", &tmp, e))?;
    drop(file);
    let path = dir.join(SYM_FILE);
    vfs::rename(&tmp, &path).map_err(|e| Error::io("rename", &tmp, e))?;
    super::config::sync_dir(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_of(texts: &[&str]) -> Vec<u8> {
        let mut body = Vec::new();
        for t in texts {
            encode_entry(t, &mut body);
        }
        let mut out = encode_header(texts.len() as u32, HEADER_LEN + body.len() as u64).to_vec();
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn entries_round_trip_and_the_layout_is_as_documented() {
        let bytes = file_of(&["BTCUSDT", "é"]);
        assert_eq!(&bytes[0..8], b"XSSYMDIC");
        assert_eq!(bytes[8..12], 1u32.to_le_bytes());
        assert_eq!(bytes[12..16], 2u32.to_le_bytes());
        assert_eq!(bytes[16..24], (32u64 + 8 + 7 + 8 + 2).to_le_bytes());
        assert_eq!(bytes[32..36], 7u32.to_le_bytes());
        let mut h = crc32fast::Hasher::new();
        h.update(&7u32.to_le_bytes());
        h.update(b"BTCUSDT");
        assert_eq!(bytes[36..40], h.finalize().to_le_bytes());
        assert_eq!(decode(&bytes).unwrap(), ["BTCUSDT", "é"]);
    }

    #[test]
    fn an_uncommitted_tail_is_ignored() {
        let mut bytes = file_of(&["a", "bb"]);
        encode_entry("torn", &mut bytes);
        bytes.truncate(bytes.len() - 2);
        assert_eq!(decode(&bytes).unwrap(), ["a", "bb"]);
        // A length field of garbage past the commit is never read.
        bytes.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(&bytes).unwrap(), ["a", "bb"]);
    }

    #[test]
    fn damage_before_the_commit_is_an_error_with_its_offset() {
        let mut bytes = file_of(&["a", "bb", "ccc"]);
        bytes[32 + 9 + 8] ^= 1; // a byte of "bb"
        let e = decode(&bytes).unwrap_err();
        assert!(
            e.contains("entry 1 at byte offset 41") && e.contains("checksum"),
            "{e}"
        );
        let mut bytes = file_of(&["a"]);
        bytes[32..36].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode(&bytes).unwrap_err().contains("bad length"));
        let mut bytes = file_of(&["a"]);
        bytes[5] = b'x';
        assert!(decode(&bytes)
            .unwrap_err()
            .contains("not an xs symbol dictionary"));
        let bytes = file_of(&["abc"]);
        assert!(decode(&bytes[..bytes.len() - 1])
            .unwrap_err()
            .contains("truncated"));
        // A header that counts more entries than its bytes can hold allocates nothing.
        let mut bytes = file_of(&["abc"]);
        let h = encode_header(u32::MAX, bytes.len() as u64);
        bytes[..32].copy_from_slice(&h);
        assert!(decode(&bytes).unwrap_err().contains("counts"));
    }

    #[test]
    fn a_reader_checks_an_entry_on_first_use() {
        let mut bytes = file_of(&["a", "bb", "ccc"]);
        bytes[32 + 9 + 8] ^= 1; // a byte of "bb"
        let body = bytes[32..].to_vec();
        let snap = Snapshot::parse(body.clone(), 3, false).unwrap();
        assert_eq!(snap.text(0), Some("a"));
        assert_eq!(snap.text(2), Some("ccc"));
        assert_eq!(snap.text(1), None);
        assert_eq!(snap.text(1), None, "a failed check is not remembered as passed");
        let e = snap.check_all().unwrap_err();
        assert!(
            e.contains("entry 1 at byte offset 41") && e.contains("checksum"),
            "{e}"
        );
        assert!(Snapshot::parse(body, 3, true).is_err());
        // Lengths are checked on load, whatever is checked later.
        let mut bytes = file_of(&["a", "bb"]);
        bytes[32 + 9] = 3;
        assert!(Snapshot::parse(bytes[32..].to_vec(), 2, false)
            .unwrap_err()
            .contains("entry 1 at byte offset 41 has a bad length 3"));
        // A writer's pushes need no check, and are written as they were encoded.
        let mut snap = Snapshot::parse(file_of(&["a"])[32..].to_vec(), 1, false).unwrap();
        snap.push("zz");
        assert_eq!(snap.text(1), Some("zz"));
        assert_eq!(snap.entries_from(1), &file_of(&["a", "zz"])[32 + 9..]);
        snap.check_all().unwrap();
    }

    /// Property: any set of texts round-trips; any single-byte change before the commit is
    /// refused (never a panic); any cut or garbage past it is ignored.
    #[test]
    fn codec_properties_over_random_dictionaries() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..300 {
            let n = (next() % 12) as usize;
            let texts: Vec<String> = (0..n)
                .map(|_| {
                    let len = 1 + (next() % 40) as usize;
                    (0..len)
                        .map(|_| char::from_u32(1 + (next() % 0x7ff) as u32).unwrap_or('x'))
                        .collect()
                })
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let bytes = file_of(&refs);
            assert_eq!(decode(&bytes).unwrap(), texts);
            // Garbage past the commit.
            let mut longer = bytes.clone();
            let extra = (next() % 64) as usize;
            longer.extend((0..extra).map(|_| next() as u8));
            assert_eq!(decode(&longer).unwrap(), texts);
            // One flipped bit anywhere in the committed bytes but the padding.
            let at = (next() % bytes.len() as u64) as usize;
            if (28..32).contains(&at) {
                continue;
            }
            let mut bad = bytes.clone();
            bad[at] ^= 1 << (next() % 8);
            assert!(decode(&bad).is_err(), "flip at {at} of {texts:?} was accepted");
            // A cut inside the committed bytes.
            let cut = (next() % bytes.len() as u64) as usize;
            assert!(decode(&bytes[..cut]).is_err());
        }
    }

    /// The code table finds every text by its code across its growth, and no other text,
    /// whether it was built before the pushes or after them.
    #[test]
    fn codes_by_text_across_growth() {
        let texts: Vec<String> = (0..5000).map(|i| format!("host_{i}")).collect();
        let mut early = Snapshot::default();
        assert_eq!(early.code("host_0"), None); // builds the table while empty
        for t in &texts {
            early.push(t);
        }
        let mut late = Snapshot::default();
        for t in &texts {
            late.push(t);
        }
        for snap in [&early, &late] {
            for (code, t) in texts.iter().enumerate() {
                assert_eq!(snap.code(t), Some(code as u32), "{t}");
                assert_eq!(snap.text(code as u32), Some(t.as_str()));
            }
            assert_eq!(snap.code("host_5000"), None);
            assert_eq!(snap.code("host"), None);
            assert_eq!(snap.text(5000), None);
        }
    }

    /// A dictionary of `n` texts `host_0` … and a long one (so that a reader does not read
    /// it whole for its size), committed by a writer in two appends.
    fn hosts(dir: &Path, n: usize) -> Vec<String> {
        let mut texts: Vec<String> = (0..n).map(|i| format!("host_{i}")).collect();
        texts.push("~".repeat(READ_WHOLE_BELOW as usize));
        let w = SymDict::load(dir, true).unwrap();
        w.intern_all(texts[..n / 2].iter().map(String::as_str)).unwrap();
        w.persist().unwrap();
        w.intern_all(texts[n / 2..].iter().map(String::as_str)).unwrap();
        w.persist().unwrap();
        texts
    }

    fn indexed(dir: &Path) -> Texts {
        let texts = SymDict::load(dir, false).unwrap().texts_or_empty();
        assert!(matches!(texts, Texts::Indexed(_)), "{texts:?}");
        texts
    }

    #[test]
    fn a_reader_finds_entries_through_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let texts = hosts(dir.path(), 300);
        let index = std::fs::read(dir.path().join(INDEX_FILE)).unwrap();
        assert_eq!(index.len() as u64, index_end(301));
        assert_eq!(&index[..8], b"XSSYMIDX");
        // Record 1: entry 1 starts after entry 0 (8 bytes of head, "host_0").
        assert_eq!(u64::from_le_bytes(index[32..40].try_into().unwrap()), 32 + 8 + 6);
        assert_eq!(u32::from_le_bytes(index[40..44].try_into().unwrap()), 1);
        let r = indexed(dir.path());
        assert_eq!(r.text(257), Some("host_257"));
        assert_eq!(r.text(3), Some("host_3"));
        assert_eq!(r.text(257), Some("host_257"));
        assert_eq!(r.text(301), None, "past the committed entries");
        // Past the codes it looks up one by one, the whole dictionary serves.
        for (code, text) in texts.iter().enumerate().rev() {
            assert_eq!(r.text(code as u32), Some(text.as_str()));
        }
        // A writer's own entries are loaded already; a small dictionary is read whole.
        let w = SymDict::load(dir.path(), true).unwrap();
        assert!(matches!(w.texts_or_empty(), Texts::Loaded(_)));
        let small = tempfile::tempdir().unwrap();
        let w = SymDict::load(small.path(), true).unwrap();
        w.intern_all(["a", "b"]).unwrap();
        w.persist().unwrap();
        let r = SymDict::load(small.path(), false).unwrap().texts_or_empty();
        assert!(matches!(r, Texts::Loaded(_)));
        assert_eq!(r.text(1), Some("b"));
    }

    #[test]
    fn an_index_that_disagrees_is_never_believed() {
        let dir = tempfile::tempdir().unwrap();
        hosts(dir.path(), 20);
        let path = dir.path().join(INDEX_FILE);
        let good = std::fs::read(&path).unwrap();
        let record = |code: u64| index_end(code as usize) as usize;
        // Record 6 where record 5 belongs (a shifted index): its code disagrees.
        let mut shifted = good.clone();
        shifted.copy_within(record(6)..record(7), record(5));
        // A bit of record 5's offset flipped: the bytes there are no entry, or another one
        // whose CRC is not the record's.
        let mut offset = good.clone();
        offset[record(5)] ^= 8;
        // Record 5's CRC flipped.
        let mut crc = good.clone();
        crc[record(5) + 12] ^= 1;
        for (what, bytes) in [("shifted", shifted), ("offset", offset), ("crc", crc)] {
            std::fs::write(&path, &bytes).unwrap();
            let r = indexed(dir.path());
            assert_eq!(r.text(5), Some("host_5"), "{what}");
            assert_eq!(r.text(6), Some("host_6"), "{what}");
            let said = SymDict::load(dir.path(), false).unwrap().index_disagreement();
            assert!(said.unwrap().unwrap().contains("symbol code 5"), "{what}");
        }
        std::fs::write(&path, &good).unwrap();
        let said = SymDict::load(dir.path(), false).unwrap().index_disagreement();
        assert_eq!(said.unwrap(), None);
        // An index short of the committed entries (an older xs appended) is not used.
        std::fs::write(&path, &good[..record(19)]).unwrap();
        let r = SymDict::load(dir.path(), false).unwrap().texts_or_empty();
        assert!(matches!(r, Texts::Loaded(_)));
        assert_eq!(r.text(19), Some("host_19"));
        // A writer makes it whole again; so it does a missing one.
        drop(SymDict::load(dir.path(), true).unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), good);
        std::fs::remove_file(&path).unwrap();
        drop(SymDict::load(dir.path(), true).unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), good);
        // Records past the committed entries (a crash before the commit) are ignored by
        // readers and cut by the next writer.
        let mut longer = good.clone();
        longer.extend_from_slice(&good[record(3)..record(5)]);
        std::fs::write(&path, &longer).unwrap();
        assert_eq!(indexed(dir.path()).text(19), Some("host_19"));
        drop(SymDict::load(dir.path(), true).unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), good);
    }

    #[test]
    fn a_writer_rewrites_a_header_whose_write_was_cut_short() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SYM_FILE);
        let w = SymDict::load(dir.path(), true).unwrap();
        w.intern_all(["a", "bb"]).unwrap();
        w.persist().unwrap();
        drop(w);
        // An append whose entries were made durable, and whose header write stopped halfway
        // (a full disk): the new count, the old committed length, the old CRC.
        let mut bytes = std::fs::read(&path).unwrap();
        encode_entry("ccc", &mut bytes);
        let new = encode_header(3, bytes.len() as u64);
        bytes[..16].copy_from_slice(&new[..16]);
        std::fs::write(&path, &bytes).unwrap();
        let reader = SymDict::load(dir.path(), false).unwrap();
        let e = reader.snapshot().unwrap_err().to_string();
        assert!(
            e.contains("header fails its checksum") && e.contains("run it again"),
            "{e}"
        );
        let w = SymDict::load(dir.path(), true).unwrap();
        assert_eq!(w.snapshot().unwrap().text(2), Some("ccc"));
        bytes[..32].copy_from_slice(&new);
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        // Not when an entry is damaged too: that stays damage.
        let mut bad = bytes.clone();
        bad[..16].copy_from_slice(&encode_header(9, 9)[..16]);
        bad[32 + 8] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        assert!(SymDict::load(dir.path(), true).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), bad);
    }

    #[test]
    fn a_damaged_entry_found_through_the_index_is_damage() {
        let dir = tempfile::tempdir().unwrap();
        hosts(dir.path(), 10);
        let dict = dir.path().join(SYM_FILE);
        let mut bytes = std::fs::read(&dict).unwrap();
        let at = 32 + 8 + 6 + 8; // the text of entry 1
        bytes[at] ^= 1;
        std::fs::write(&dict, &bytes).unwrap();
        let r = SymDict::load(dir.path(), false).unwrap();
        let texts = r.texts_or_empty();
        assert_eq!(texts.text(1), None);
        assert_eq!(texts.text(2), Some("host_2"));
        let e = r.text_reloading(1, String::new).unwrap_err().to_string();
        assert!(e.contains("entry 1 at byte offset 46 fails its checksum"), "{e}");
    }

    #[test]
    fn a_writer_persists_and_a_reader_reloads() {
        let dir = tempfile::tempdir().unwrap();
        let w = SymDict::load(dir.path(), true).unwrap();
        assert_eq!(w.intern("BTCUSDT"), Ok(0));
        assert_eq!(w.intern_all(["DOGEUSDT", "BTCUSDT", "x"]).unwrap(), [1, 0, 2]);
        let r = SymDict::load(dir.path(), false).unwrap();
        assert!(r.snapshot().unwrap().is_empty());
        w.persist().unwrap();
        assert_eq!(&*r.text_reloading(2, String::new).unwrap(), "x");
        assert_eq!(r.intern("DOGEUSDT"), Ok(1));
        assert_eq!(r.intern("nope"), Err(SymError::Unknown));
        assert!(matches!(
            r.text_reloading(3, String::new),
            Err(Error::Damaged { .. })
        ));
        let again = SymDict::load(dir.path(), true).unwrap();
        assert_eq!(again.snapshot().unwrap().text(1), Some("DOGEUSDT"));
        assert_eq!(again.intern("y"), Ok(3));
        again.persist().unwrap();
        assert_eq!(
            decode(&std::fs::read(dir.path().join(SYM_FILE)).unwrap())
                .unwrap()
                .len(),
            4
        );
    }
}
