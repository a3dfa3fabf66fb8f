//! The `alter` suite (tests/alter.rs) against the bucket layout: this target's name ends in `_bucket`,
//! so its databases are created with `XS_LAYOUT=bucket`.

#[path = "alter.rs"]
mod suite;
