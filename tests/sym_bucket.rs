//! The `sym` suite (tests/sym.rs) against the bucket layout: this target's name ends in `_bucket`,
//! so its databases are created with `XS_LAYOUT=bucket`.

#[path = "sym.rs"]
mod suite;
