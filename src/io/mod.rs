//! Text in and out: time formats, row output, and the parallel read-out of ranges.

pub mod big;
pub mod columnar;
pub mod output;
pub mod stream;
pub mod timefmt;
