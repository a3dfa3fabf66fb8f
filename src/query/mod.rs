//! Queries over stored rows beyond reading them out: time-bucketed aggregations (bars, VWAP),
//! as-of lookups, and the equality filter they share with `range`.

pub mod agg;
pub mod asof;
pub mod filter;
