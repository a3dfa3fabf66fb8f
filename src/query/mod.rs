//! Queries over stored rows beyond reading them out: time-bucketed aggregations (bars, VWAP),
//! as-of lookups, and the equality filter they share with `range`.

pub mod agg;
pub mod asof_join;
pub mod filter;

use std::borrow::Cow;

use crate::db::schema::valid_column_name;
use crate::import::dialect::alias;

/// The stored column name a query means by `name`: `name` itself, or, for header text that is
/// not a usable name (`Adj Close`), the alias `xs import` gave it (`adj_close`). `exists` says
/// whether a stored name exists. `Err` when the text could mean two columns (`adj_close` and
/// `adj_close_2`, aliased from two similar header texts). An unknown name comes back as it is,
/// for the caller to report.
pub fn stored_name<'a>(name: &'a str, exists: impl Fn(&str) -> bool) -> Result<Cow<'a, str>, String> {
    if name.trim().is_empty() || exists(name) || valid_column_name(name) {
        return Ok(Cow::Borrowed(name));
    }
    let aliased = alias(name, 0);
    if !exists(&aliased) {
        return Ok(Cow::Borrowed(name));
    }
    let second = format!("{aliased}_2");
    if exists(&second) {
        return Err(format!(
            "`{name}` could be column `{aliased}` or `{second}` (both aliased from header text like \
             it); name the column as stored"
        ));
    }
    Ok(Cow::Owned(aliased))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_text_finds_its_alias_unless_ambiguous() {
        let one = |n: &str| ["adj_close", "co_gt", "price"].contains(&n);
        assert_eq!(stored_name("Adj Close", one).unwrap(), "adj_close");
        assert_eq!(stored_name("CO(GT)", one).unwrap(), "co_gt");
        assert_eq!(stored_name("price", one).unwrap(), "price");
        // A valid name is never rewritten, and unknown text is left for the caller to report.
        assert_eq!(stored_name("Price", one).unwrap(), "Price");
        assert_eq!(stored_name("No Such", one).unwrap(), "No Such");
        let two = |n: &str| ["adj_close", "adj_close_2"].contains(&n);
        assert!(stored_name("Adj Close", two)
            .unwrap_err()
            .contains("`adj_close` or `adj_close_2`"));
        assert_eq!(stored_name("adj_close_2", two).unwrap(), "adj_close_2");
    }
}
