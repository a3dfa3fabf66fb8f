//! Unique keys: the rows of one series at one timestamp, merged by the unique key's values.
//! An incoming row whose key is stored replaces that row; a new key is added. The result is
//! ordered by key, so the stored bytes and every read are the same whatever order the rows
//! arrived in (docs/FORMAT.md, "Series and unique keys").

use std::cmp::Ordering;

use super::schema::{Schema, Value};
use super::series::compare_values;
use crate::error::Result;

/// What a merge did to the stored rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// Stored rows replaced by an incoming row with the same key.
    pub replaced: u64,
}

/// The unique key's values of `row`; a `sym` code its dictionary lost is an error.
pub fn key_of(schema: &Schema, columns: &[usize], row: &[u8]) -> Result<Vec<Value>> {
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
) -> Result<Merged> {
    // (key, arrival: stored rows first, then incoming in order, row)
    let mut all: Vec<(Vec<Value>, usize, bool, &'a [u8])> = Vec::new();
    for row in old {
        all.push((key_of(schema, columns, row)?, all.len(), false, row));
    }
    for row in new {
        all.push((key_of(schema, columns, row)?, all.len(), true, row));
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
    Ok(merged)
}

/// What `patch_rows` did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Patched {
    /// Rows out (stored rows, updated or not, and added rows).
    pub rows: usize,
    /// Stored rows (or earlier incoming ones) an incoming row updated.
    pub updated: u64,
    /// Indices (into `new`) of rows refused: no unique key and several rows at the time, so
    /// which one to update cannot be told.
    pub ambiguous: Vec<usize>,
}

/// `--update-columns`: applies incoming rows of one timestamp, in input order, to its stored
/// rows, each incoming row changing only its `given` columns. With a unique key (`columns`)
/// an incoming row updates the row with its key or adds one, and the result is in key order
/// (as `merge_rows` leaves it); without one a timestamp holds one row, which an incoming row
/// updates (or adds), and a timestamp with several rows is ambiguous. Added rows keep their
/// other columns null. The rows out are appended to `out` (row after row).
pub fn patch_rows<'a>(
    schema: &Schema,
    columns: &[usize],
    old: impl IntoIterator<Item = &'a [u8]>,
    new: impl IntoIterator<Item = (&'a [u8], &'a [usize])>,
    out: &mut Vec<u8>,
) -> Result<Patched> {
    let mut rows: Vec<Vec<u8>> = old.into_iter().map(<[u8]>::to_vec).collect();
    let mut done = Patched::default();
    let patch = |row: &mut Vec<u8>, from: &[u8], given: &[usize]| {
        for &c in given {
            schema.copy_field(row, from, c);
        }
    };
    if columns.is_empty() {
        for (i, (row, given)) in new.into_iter().enumerate() {
            match rows.len() {
                0 => rows.push(row.to_vec()),
                1 => {
                    patch(&mut rows[0], row, given);
                    done.updated += 1;
                }
                _ => done.ambiguous.push(i),
            }
        }
    } else {
        // Keyed rows, kept sorted by key so each incoming row finds its own by binary search.
        let mut keyed = rows
            .drain(..)
            .map(|r| Ok((key_of(schema, columns, &r)?, r)))
            .collect::<Result<Vec<(Vec<Value>, Vec<u8>)>>>()?;
        keyed.sort_by(|a, b| compare_values(&a.0, &b.0));
        for (row, given) in new {
            let key = key_of(schema, columns, row)?;
            match keyed.binary_search_by(|(k, _)| compare_values(k, &key)) {
                Ok(at) => {
                    patch(&mut keyed[at].1, row, given);
                    done.updated += 1;
                }
                Err(at) => keyed.insert(at, (key, row.to_vec())),
            }
        }
        rows = keyed.into_iter().map(|(_, r)| r).collect();
    }
    done.rows = rows.len();
    for r in rows {
        out.extend_from_slice(&r);
    }
    Ok(done)
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
        )
        .unwrap();
        assert_eq!(m.replaced, 1);
        let got: Vec<(Value, Value)> = out
            .iter()
            .map(|r| (s.value(r, 0).unwrap(), s.value(r, 1).unwrap()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Value::UInt(1), Value::Int(10)),
                (Value::UInt(3), Value::Int(33)),
                (Value::UInt(5), Value::Int(55)),
            ]
        );
    }

    #[test]
    fn updates_change_only_the_given_columns_by_key() {
        let s = Schema::parse_spec("id:u32,v:i32,w:i32").unwrap();
        let stored = |id: &str, v: &str, w: &str| {
            let mut r = row(&s, id, v);
            s.set_field(&mut r, 2, w).unwrap();
            r
        };
        let old = [stored("5", "50", "500"), stored("1", "10", "100")];
        // Only `id` and `w` given: `v` of a stored row is kept, of a new row null.
        let new = [
            stored("5", "", "555"),
            stored("3", "", "333"),
            stored("3", "", "334"),
        ];
        let given: &[usize] = &[0, 2];
        let mut out = Vec::new();
        let p = patch_rows(
            &s,
            &[0],
            old.iter().map(Vec::as_slice),
            new.iter().map(|r| (r.as_slice(), given)),
            &mut out,
        )
        .unwrap();
        assert_eq!((p.rows, p.updated, p.ambiguous.len()), (3, 2, 0));
        let got: Vec<Vec<Value>> = out
            .chunks(s.row_len())
            .map(|r| (0..3).map(|c| s.value(r, c).unwrap()).collect())
            .collect();
        assert_eq!(
            got,
            vec![
                vec![Value::UInt(1), Value::Int(10), Value::Int(100)],
                vec![Value::UInt(3), Value::Null, Value::Int(334)],
                vec![Value::UInt(5), Value::Int(50), Value::Int(555)],
            ]
        );
    }

    #[test]
    fn without_a_key_one_row_is_updated_and_several_are_ambiguous() {
        let s = Schema::parse_spec("v:i32,w:i32").unwrap();
        let update = [row(&s, "", "9")];
        let given: &[usize] = &[1];
        let new = || update.iter().map(|r| (r.as_slice(), given));
        let one = [row(&s, "1", "2")];
        let mut out = Vec::new();
        let p = patch_rows(&s, &[], one.iter().map(Vec::as_slice), new(), &mut out).unwrap();
        assert_eq!((p.rows, p.updated), (1, 1));
        assert_eq!(
            (s.value(&out, 0).unwrap(), s.value(&out, 1).unwrap()),
            (Value::Int(1), Value::Int(9))
        );
        let two = [row(&s, "1", "2"), row(&s, "3", "4")];
        out.clear();
        let p = patch_rows(&s, &[], two.iter().map(Vec::as_slice), new(), &mut out).unwrap();
        assert_eq!((p.rows, p.updated, p.ambiguous), (2, 0, vec![0]));
        assert_eq!(out, [two[0].clone(), two[1].clone()].concat());
    }
}
