//! The import's `sym` encoding. Chunks are parsed in parallel, so a text the dictionary does
//! not hold yet gets a chunk-local code (top bit set, the index of its first appearance in the
//! chunk); once a batch is parsed, `resolve` gives those texts dictionary codes chunk by chunk,
//! in input order, and patches the rows. The same imports in the same order thus give the
//! same codes, whatever the threads did. Known texts are found in a snapshot of the dictionary
//! without any lock.

use std::collections::HashMap;
use std::sync::Arc;

use crate::db::schema::{ColumnType, FieldError, Schema};
use crate::db::syms::{check_text, FnvBuild, Snapshot, SymDict, SymError};
use crate::error::{Error, Result};

/// The mark of a chunk-local code.
pub const LOCAL: u32 = 1 << 31;

/// One chunk's `sym` encoder.
pub struct ChunkSyms {
    snap: Arc<Snapshot>,
    local: HashMap<Box<[u8]>, u32, FnvBuild>,
    /// The chunk's new texts, by local index.
    pub texts: Vec<String>,
}

impl ChunkSyms {
    /// An import writes, so its dictionary was read (and checked) when it opened the database.
    pub fn new(dict: &SymDict) -> ChunkSyms {
        ChunkSyms {
            snap: dict.snapshot_or_empty(),
            local: HashMap::default(),
            texts: Vec::new(),
        }
    }

    /// The code of a non-empty field: the dictionary's, or a chunk-local one.
    #[inline]
    pub fn code(&mut self, text: &[u8]) -> Result<u32, FieldError> {
        if let Some(s) = self.snap.code_of_bytes(text) {
            return Ok(s);
        }
        if let Some(&i) = self.local.get(text) {
            return Ok(LOCAL | i);
        }
        let s = std::str::from_utf8(text).map_err(|_| FieldError::NotUtf8 { ty: ColumnType::Sym })?;
        check_text(s).map_err(FieldError::Sym)?;
        let i = self.texts.len() as u32;
        if i >= LOCAL {
            return Err(FieldError::Sym(SymError::Full));
        }
        self.texts.push(s.to_string());
        self.local.insert(text.into(), i);
        Ok(LOCAL | i)
    }

    /// The text of a code this encoder gave.
    pub fn text(&self, code: u32) -> &str {
        if code & LOCAL != 0 {
            &self.texts[(code & !LOCAL) as usize]
        } else {
            self.snap.text(code).unwrap_or_default()
        }
    }
}

/// Gives the chunk-local texts of one chunk dictionary codes (appended in their order) and
/// rewrites its rows' local codes. `offsets` are the value offsets of the `sym` columns.
pub fn resolve(schema: &Schema, sym_cols: &[usize], texts: &[String], rows: &mut [u8]) -> Result<()> {
    let Some(dict) = schema.syms() else {
        return Ok(());
    };
    if texts.is_empty() {
        return Ok(());
    }
    let codes = dict
        .intern_all(texts.iter().map(String::as_str))
        .map_err(|e| Error::Invalid(format!("cannot store a sym value: {}", FieldError::Sym(e))))?;
    let row_len = schema.row_len();
    let fields: Vec<_> = sym_cols.iter().map(|&c| schema.field_at(c)).collect();
    for row in rows.chunks_exact_mut(row_len) {
        for f in &fields {
            if f.is_null(row) {
                continue;
            }
            let at = f.offset;
            let code = u32::from_le_bytes(crate::db::schema::le(&row[at..at + 4]));
            if code & LOCAL != 0 {
                row[at..at + 4].copy_from_slice(&codes[(code & !LOCAL) as usize].to_le_bytes());
            }
        }
    }
    Ok(())
}
