//! `--series`: which series of a series database a read covers.

use xs::Database;

use crate::exit::CliResult;

#[derive(clap::Args, Debug, Default)]
pub struct SeriesArgs {
    /// Only these series (values of the series key; a key of several columns joins them with
    /// `:`). Repeatable, or comma-separated. Default: every series, merged in time order.
    #[arg(long, value_name = "VALUE[,VALUE…]", value_delimiter = ',')]
    pub series: Vec<String>,
}

impl SeriesArgs {
    /// Restricts `db`'s reads to the series asked for; says on stderr which are not stored.
    pub fn apply(&self, db: &mut Database) -> CliResult {
        if self.series.is_empty() {
            return Ok(());
        }
        // A bad value is a usage error (exit 2); a damaged series keeps its own code.
        let missing = db.select_series(&self.series)?;
        for text in missing {
            eprintln!(
                "xs: warning: {} holds no series `{text}` (key {}); `xs stat` lists the series",
                db.dir().display(),
                db.config().keys.series.join(",")
            );
        }
        Ok(())
    }
}
