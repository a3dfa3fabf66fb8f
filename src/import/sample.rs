//! The records of an inference sample, held flat: every field's bytes in one buffer and the
//! field and record boundaries in two index vectors. Tens of thousands of sampled records then
//! cost three allocations instead of one per field, and reading a column walks memory in order.

/// Sampled records, in the order they were read.
#[derive(Clone, Debug, Default)]
pub struct SampleRows {
    /// The records' text (unquoted fields copied one by one, plain records whole).
    bytes: Vec<u8>,
    /// Start and end of each field in `bytes`, record after record. u32 is enough: `push`
    /// refuses to let `bytes` pass `u32::MAX` (samples are a few MiB).
    fields: Vec<(u32, u32)>,
    /// Index in `fields` just past each record's last field.
    record_ends: Vec<usize>,
}

/// One sampled record.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    rows: &'a SampleRows,
    /// Index in `rows.fields` of its first field, and one past its last.
    first: usize,
    end: usize,
}

impl<'a> Record<'a> {
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.end - self.first
    }

    pub fn is_empty(&self) -> bool {
        self.first == self.end
    }

    /// The bytes of field `i`, if the record has that many fields.
    pub fn get(&self, i: usize) -> Option<&'a [u8]> {
        let at = self.first.checked_add(i).filter(|&at| at < self.end)?;
        Some(self.rows.field(at))
    }

    /// Its fields in order.
    pub fn fields(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let rows = self.rows;
        (self.first..self.end).map(move |at| rows.field(at))
    }
}

impl SampleRows {
    /// Number of records.
    pub fn len(&self) -> usize {
        self.record_ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.record_ends.is_empty()
    }

    fn field(&self, at: usize) -> &[u8] {
        let (start, end) = self.fields[at];
        // u32 → usize widens on every target xs builds for (64-bit).
        &self.bytes[start as usize..end as usize]
    }

    /// Appends a record of `fields`; false (and nothing appended) once the sample's text would
    /// pass 4 GiB.
    pub fn push<'f>(&mut self, fields: impl IntoIterator<Item = &'f [u8]>) -> bool {
        let (bytes_len, fields_len) = (self.bytes.len(), self.fields.len());
        for field in fields {
            self.bytes.extend_from_slice(field);
            match (
                u32::try_from(self.bytes.len() - field.len()),
                u32::try_from(self.bytes.len()),
            ) {
                (Ok(start), Ok(end)) => self.fields.push((start, end)),
                _ => {
                    self.bytes.truncate(bytes_len);
                    self.fields.truncate(fields_len);
                    return false;
                }
            }
        }
        self.record_ends.push(self.fields.len());
        true
    }

    /// Appends a record whose fields all lie in `text` at `spans` (offsets into `text`, in
    /// order): the text is copied once. False (and nothing appended) as for `push`.
    pub fn push_spans(&mut self, text: &[u8], spans: impl IntoIterator<Item = (usize, usize)>) -> bool {
        let Ok(base) = u32::try_from(self.bytes.len()) else {
            return false;
        };
        if u32::try_from(self.bytes.len() + text.len()).is_err() {
            return false;
        }
        self.bytes.extend_from_slice(text);
        for (start, end) in spans {
            // Both fit: they are at most `text.len()`, and base + text.len() fits u32.
            self.fields.push((base + start as u32, base + end as u32));
        }
        self.record_ends.push(self.fields.len());
        true
    }

    /// Keeps the first `records` records (their text stays in the buffer, unused).
    pub fn truncate(&mut self, records: usize) {
        if records < self.record_ends.len() {
            self.record_ends.truncate(records);
            self.fields
                .truncate(self.record_ends.last().copied().unwrap_or(0));
        }
    }

    /// The bytes of field `i` of `record`.
    pub fn field_of(&self, record: usize, i: usize) -> Option<&[u8]> {
        let (start, stop) = self.fields[self.field_index(record, i)?];
        Some(&self.bytes[start as usize..stop as usize])
    }

    /// Replaces field `i` of `record` with `value`, no longer than it (a decimal comma read as
    /// a point, thousands dots dropped: `1.234,5` → `1234.5`). False when it is longer.
    pub fn shorten_field(&mut self, record: usize, i: usize, value: &[u8]) -> bool {
        let Some(at) = self.field_index(record, i) else {
            return false;
        };
        let (start, stop) = self.fields[at];
        if value.len() > (stop - start) as usize {
            return false;
        }
        self.bytes[start as usize..start as usize + value.len()].copy_from_slice(value);
        self.fields[at].1 = start + value.len() as u32;
        true
    }

    fn field_index(&self, record: usize, i: usize) -> Option<usize> {
        let first = if record == 0 {
            0
        } else {
            *self.record_ends.get(record - 1)?
        };
        let end = *self.record_ends.get(record)?;
        first.checked_add(i).filter(|&at| at < end)
    }

    /// The first field that is not UTF-8 text: its column (index in its record) and bytes.
    pub fn first_non_utf8(&self) -> Option<(usize, &[u8])> {
        // Whole text first: the common case is one check of valid UTF-8.
        if std::str::from_utf8(&self.bytes).is_ok() {
            return None;
        }
        let mut first = 0;
        for &end in &self.record_ends {
            for at in first..end {
                let field = self.field(at);
                if std::str::from_utf8(field).is_err() {
                    return Some((at - first, field));
                }
            }
            first = end;
        }
        None
    }

    /// Record `i`.
    pub fn get(&self, i: usize) -> Option<Record<'_>> {
        let end = *self.record_ends.get(i)?;
        let first = if i == 0 { 0 } else { self.record_ends[i - 1] };
        Some(Record {
            rows: self,
            first,
            end,
        })
    }

    /// Every record in order.
    pub fn iter(&self) -> impl Iterator<Item = Record<'_>> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Field `i` of every record that has it, in order.
    pub fn column(&self, i: usize) -> impl Iterator<Item = &[u8]> + '_ {
        let mut first = 0usize;
        self.record_ends.iter().filter_map(move |&end| {
            let at = first.saturating_add(i);
            first = end;
            (at < end).then(|| self.field(at))
        })
    }

    /// The most fields any record has.
    pub fn max_width(&self) -> usize {
        self.iter().map(|r| r.len()).max().unwrap_or(0)
    }
}

impl<'f> FromIterator<Vec<&'f [u8]>> for SampleRows {
    fn from_iter<I: IntoIterator<Item = Vec<&'f [u8]>>>(records: I) -> SampleRows {
        let mut rows = SampleRows::default();
        for record in records {
            rows.push(record);
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_keep_their_fields_and_widths() {
        let mut rows = SampleRows::default();
        assert!(rows.push([&b"2024-01-01"[..], b"1,5", b""]));
        assert!(rows.push([&b"x"[..]]));
        assert!(rows.push(std::iter::empty()));
        assert_eq!(rows.len(), 3);
        let first = rows.get(0).unwrap();
        assert_eq!(first.len(), 3);
        assert_eq!(first.get(0), Some(&b"2024-01-01"[..]));
        assert_eq!(first.get(1), Some(&b"1,5"[..]));
        assert_eq!(first.get(2), Some(&b""[..]));
        assert_eq!(first.get(3), None);
        assert_eq!(rows.get(1).unwrap().fields().collect::<Vec<_>>(), vec![&b"x"[..]]);
        assert!(rows.get(2).unwrap().is_empty());
        assert!(rows.get(3).is_none());
        assert_eq!(rows.column(1).collect::<Vec<_>>(), vec![&b"1,5"[..]]);
        assert_eq!(rows.max_width(), 3);
    }

    #[test]
    fn a_record_copied_whole_keeps_its_fields_apart() {
        let mut rows = SampleRows::default();
        assert!(rows.push([&b"a"[..]]));
        assert!(rows.push_spans(b"t;2,6;x", [(0, 1), (2, 5), (6, 7)]));
        assert!(rows.shorten_field(1, 1, b"26"));
        assert!(!rows.shorten_field(1, 2, b"xy"));
        let r = rows.get(1).unwrap();
        assert_eq!(r.fields().collect::<Vec<_>>(), vec![&b"t"[..], b"26", b"x"]);
        assert_eq!(rows.column(0).collect::<Vec<_>>(), vec![&b"a"[..], b"t"]);
        assert_eq!(rows.field_of(1, 1), Some(&b"26"[..]));
        assert!(rows.field_of(1, 3).is_none());
        assert!(rows.field_of(2, 0).is_none());
        assert!(!rows.shorten_field(2, 0, b""));
    }
}
