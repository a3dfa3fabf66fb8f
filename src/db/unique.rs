//! Unique keys: the rows of one series at one timestamp, merged by the unique key's values.
//! An incoming row whose key is stored replaces that row; a new key is added. The result is
//! ordered by key, so the stored bytes and every read are the same whatever order the rows
//! arrived in (docs/FORMAT.md, "Series and unique keys").

use std::cmp::Ordering;

use super::schema::{Schema, Value};
use super::series::compare_values;

/// What a merge did to the stored rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Stored rows replaced by an incoming row with the same key.
    pub replaced: u64,
}

/// The unique key's values of `row`.
pub fn key_of(schema: &Schema, columns: &[usize], row: &[u8]) -> Vec<Value> {
    columns.iter().map(|&c| schema.value(row, c)).collect()
}

/// Merges `old` (stored rows of one timestamp) with `new` (incoming rows of it, in input
/// order) into `out`: one row per key, the last incoming row of a key winning over earlier
/// ones and over the stored one, ordered by key.
pub fn merge_rows<'a>(
    schema: &Schema,
    columns: &[usize],
    old: impl IntoIterator<Item = &'a [u8]>,
    new: impl IntoIterator<Item = &'a [u8]>,
    out: &mut Vec<&'a [u8]>,
) -> Merged {
    // (key, arrival: stored rows first, then incoming in order, row)
    let mut all: Vec<(Vec<Value>, usize, bool, &'a [u8])> = Vec::new();
    for row in old {
        all.push((key_of(schema, columns, row), all.len(), false, row));
    }
    for row in new {
        all.push((key_of(schema, columns, row), all.len(), true, row));
    }
    all.sort_by(|a, b| compare_values(&a.0, &b.0).then(a.1.cmp(&b.1)));
    out.clear();
    let mut merged = Merged::default();
    let mut i = 0;
    while i < all.len() {
        let mut j = i + 1;
        while j < all.len() && compare_values(&all[i].0, &all[j].0) == Ordering::Equal {
            j += 1;
        }
        // The last arrival of the key wins; stored rows it displaces were replaced.
        let last = &all[j - 1];
        if last.2 {
            merged.replaced += all[i..j].iter().filter(|r| !r.2).count() as u64;
        }
        out.push(last.3);
        i = j;
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(schema: &Schema, id: &str, v: &str) -> Vec<u8> {
        let mut r = schema.new_row();
        schema.set_field(&mut r, 0, id).unwrap();
        schema.set_field(&mut r, 1, v).unwrap();
        r
    }

    #[test]
    fn incoming_keys_replace_and_add_in_key_order() {
        let s = Schema::parse_spec("id:u32,v:i32").unwrap();
        let old = [row(&s, "5", "50"), row(&s, "1", "10")];
        let new = [row(&s, "3", "30"), row(&s, "5", "55"), row(&s, "3", "33")];
        let mut out = Vec::new();
        let m = merge_rows(
            &s,
            &[0],
            old.iter().map(Vec::as_slice),
            new.iter().map(Vec::as_slice),
            &mut out,
        );
        assert_eq!(m.replaced, 1);
        let got: Vec<(Value, Value)> = out.iter().map(|r| (s.value(r, 0), s.value(r, 1))).collect();
        assert_eq!(
            got,
            vec![
                (Value::UInt(1), Value::Int(10)),
                (Value::UInt(3), Value::Int(33)),
                (Value::UInt(5), Value::Int(55)),
            ]
        );
    }
}
