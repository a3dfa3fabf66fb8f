//! Text in and out: time formats and row output.

pub mod output;
pub mod timefmt;
