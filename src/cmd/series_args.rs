//! `--series`: which series of a series database a read covers.

use xs::Database;

use crate::exit::CliResult;

#[derive(clap::Args, Debug, Default)]
pub struct SeriesArgs {
    /// Only these series (values of the series key; a key of several columns joins them with
    /// `:`, and a value that holds `:` is read the one way that names a stored series).
    /// Repeatable, or comma-separated; a value that holds a comma is taken whole when a series
    /// of that value is stored. Default: every series, merged in time order.
    #[arg(long, value_name = "VALUE[,VALUE…]")]
    pub series: Vec<String>,
}

impl SeriesArgs {
    /// Restricts `db`'s reads to the series asked for; says on stderr which are not stored.
    pub fn apply(&self, db: &mut Database) -> CliResult {
        if self.series.is_empty() {
            return Ok(());
        }
        let mut values = Vec::new();
        for text in &self.series {
            values.extend(split_values(db, text)?);
        }
        // A bad value is a usage error (exit 2); a damaged series keeps its own code.
        let missing = db.select_series(&values)?;
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

/// The values one `--series` names: split at commas, unless the whole text is a stored
/// series' value (`C,D`). When it is, and its parts are stored series too, which is meant
/// cannot be told: refused, rather than read or delete the wrong series.
fn split_values(db: &mut Database, text: &str) -> CliResult<Vec<String>> {
    if !text.contains(',') {
        return Ok(vec![text.to_string()]);
    }
    let parts: Vec<String> = text.split(',').map(str::to_string).collect();
    // Whether `texts` are all stored series; text that names no series of this key (`a:b,c:d`
    // taken whole under a two-column key) is not one.
    let mut stored = |texts: &[String]| db.select_series(texts).is_ok_and(|missing| missing.is_empty());
    if !stored(&[text.to_string()]) {
        return Ok(parts);
    }
    if stored(&parts) {
        return Err(crate::exit::Failure::usage(format!(
            "--series {text}: {} holds a series `{text}` and the series {}: give each series in \
             its own --series (--series {}) to read those; the series `{text}` alone cannot be \
             named while they are stored",
            db.dir().display(),
            parts.join(" and "),
            parts.join(" --series ")
        )));
    }
    Ok(vec![text.to_string()])
}
