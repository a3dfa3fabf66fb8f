//! `--where col=value`: an equality filter on one column, decided on the stored bytes.

use crate::db::schema::{FieldAt, Schema};

/// Keeps rows whose column `col` holds exactly the encoded `value` (or is null, for an empty
/// value). The value is encoded once with the column's own codec, so `1` and `1.0` match the
/// same f64, and a `str(N)` value compares with its zero padding.
#[derive(Clone, Debug)]
pub struct Filter {
    field: FieldAt,
    want: Vec<u8>,
    want_null: bool,
}

impl Filter {
    /// Parses `col=value` against `schema`; `Err` names the column or the value at fault.
    pub fn parse(schema: &Schema, text: &str) -> Result<Filter, String> {
        let (name, value) = text
            .split_once('=')
            .ok_or_else(|| format!("--where `{text}`: write it as COLUMN=VALUE, e.g. --where side=buy"))?;
        let name = name.trim();
        let name = super::stored_name(name, |n| schema.column_index(n).is_some())
            .map_err(|e| format!("--where: {e}"))?;
        let name = name.as_ref();
        let col = schema.column_index(name).ok_or_else(|| {
            let names: Vec<&str> = schema.columns().iter().map(|c| c.name.as_str()).collect();
            format!(
                "--where: unknown column `{name}`; this database has {}",
                names.join(",")
            )
        })?;
        let mut scratch = schema.new_row();
        schema.set_field(&mut scratch, col, value).map_err(|e| {
            format!(
                "--where {name}={value}: {e} (column `{name}` is {})",
                schema.columns()[col].ty
            )
        })?;
        Ok(Filter {
            field: schema.field_at(col),
            want: schema.field_bytes(&scratch, col).to_vec(),
            want_null: schema.is_null(&scratch, col),
        })
    }

    /// The column this filter looks at.
    pub fn column(&self) -> usize {
        self.field.col
    }

    /// Whether `row` (a stored row of the schema the filter was parsed for) passes.
    #[inline]
    pub fn matches(&self, row: &[u8]) -> bool {
        let null = self.field.is_null(row);
        if null || self.want_null {
            return null == self.want_null;
        }
        self.field.bytes(row) == self.want.as_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_encoded_values_and_nulls() {
        let s = Schema::parse_spec("price:f64,side:str(4)").unwrap();
        let mut row = s.new_row();
        s.set_field(&mut row, 0, "1.5").unwrap();
        s.set_field(&mut row, 1, "buy").unwrap();
        assert!(Filter::parse(&s, "side=buy").unwrap().matches(&row));
        assert!(!Filter::parse(&s, "side=bu").unwrap().matches(&row));
        assert!(Filter::parse(&s, "price=1.50").unwrap().matches(&row));
        assert!(!Filter::parse(&s, "price=").unwrap().matches(&row));
        s.set_null(&mut row, 0);
        assert!(Filter::parse(&s, "price=").unwrap().matches(&row));
        assert!(Filter::parse(&s, "nope=1")
            .unwrap_err()
            .contains("unknown column `nope`"));
        assert!(Filter::parse(&s, "price=abc")
            .unwrap_err()
            .contains("not a valid f64"));
        assert!(Filter::parse(&s, "side").unwrap_err().contains("COLUMN=VALUE"));
    }
}
