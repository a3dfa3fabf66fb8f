//! Schema inference for `xs import` into a database that does not exist yet: from the header
//! and a sample of records, guess the time column and its format, the column types, the
//! granularity, the depth and the partition period; estimate the physical footprint; and say
//! what was guessed, with the equivalent `xs create` command.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};

use super::dialect::{self, date_in_name};
use super::flextime::{self, DateOrder};
use super::midnight::MidnightWatch;
use super::timeparse::{
    epoch_magnitude, is_epoch_number, split_interval, unit_by_magnitude, unit_word, zone_after, Dst,
    TimeError, TimeFormat, TimeParser, TimeSpec, Zone,
};
use super::{DateSource, Sample};
use crate::db::config::{
    choose_period, human_bytes, Config, DayMonth, Layout, RecordCodec, MAX_DEPTH, MAX_PARTITION_BYTES,
};
use crate::db::partition::HEADER_LEN;
use crate::db::schema::{Column, ColumnType, Schema, MAX_STR_LEN};
use crate::db::syms::FnvBuild;
use crate::db::time::{
    format_duration, Granularity, PartitionKey, Period, NS_PER_DAY, NS_PER_HOUR, NS_PER_MIN, NS_PER_MS,
    NS_PER_SEC, NS_PER_US,
};
use crate::db::BLOCK_LEN;
use crate::error::{Error, Result};
use crate::io::timefmt::EpochUnit;

/// How the notes say a time unit came from `--time-unit` (or, said otherwise, a file's schema).
const UNIT_GIVEN: &str = "as given by --time-unit";

/// What the user fixed; everything else is guessed.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    /// The time column, or several joined with a space (`Date`, `Time`).
    pub time_columns: Vec<String>,
    /// The date of times of day (ns of that midnight).
    pub date_ns: Option<i64>,
    /// The zone of naive times, and what to do in daylight-saving changes.
    pub zone: Zone,
    pub dst: Dst,
    /// Values read as null besides the defaults.
    pub nulls: Vec<Vec<u8>>,
    pub time_unit: Option<EpochUnit>,
    pub time_format: Option<String>,
    pub granularity: Option<Granularity>,
    pub depth: Option<u32>,
    pub period: Option<Period>,
    /// The layout; `None`: grid for regular series, bucket for sparse or bursty ones.
    pub layout: Option<Layout>,
    /// Bucket width in ns (bucket layout); `None`: chosen from the sample's row rate.
    pub bucket_ns: Option<i64>,
    /// How bucket records are stored; `None`: columnar.
    pub codec: Option<RecordCodec>,
    /// `name:type` pairs that replace guessed types.
    pub types: Vec<(String, ColumnType)>,
    /// `--series-by`: the series key (empty: none); `None`: inferred.
    pub series: Option<Vec<String>>,
    /// `--unique-by`: the unique key (empty: none); `None`: inferred.
    pub unique: Option<Vec<String>>,
    /// `time_columns`, and `time_unit`, were read from a Parquet or Arrow input's schema, not
    /// given by the user: the notes say where they come from.
    pub time_column_from_schema: bool,
    pub time_unit_from_schema: bool,
}

/// The estimated disk use of the chosen settings.
#[derive(Clone, Debug)]
pub struct Footprint {
    /// Input bytes per row in the sample.
    pub input_bytes_per_row: f64,
    /// Allocated 4 KiB blocks per row the sample would take.
    pub disk_bytes_per_row: f64,
    /// Rows one 4 KiB block could hold, and how many the sample puts in one on average.
    pub rows_per_block_max: f64,
    pub rows_per_block_sample: f64,
    /// Estimated rows and disk bytes for the whole first input, when its size is known.
    pub est_rows: Option<u64>,
    pub est_disk_bytes: Option<u64>,
}

impl Footprint {
    /// Physical size over input size.
    pub fn ratio(&self) -> f64 {
        self.disk_bytes_per_row / self.input_bytes_per_row.max(1.0)
    }
}

/// The inferred database and how it was decided.
#[derive(Clone, Debug)]
pub struct Inference {
    pub config: Config,
    pub time_format: TimeFormat,
    /// The input columns that make the time (two when a date and a time column are joined).
    pub time_columns: Vec<String>,
    /// Where times of day get their date.
    pub date: DateSource,
    /// One line per guess, to print.
    pub notes: Vec<String>,
    pub footprint: Option<Footprint>,
}

impl Inference {
    /// The `xs create` command that makes the same database.
    pub fn create_command(&self, dir: &str) -> String {
        let c = &self.config;
        let mut cmd = if c.layout == Layout::Bucket {
            format!(
                "xs create {} --layout bucket --bucket {} --codec {} --granularity {} --columns '{}' --partition {} --time-column {}",
                shell_word(dir),
                format_duration(c.bucket_ns),
                c.codec.name(),
                c.granularity,
                c.schema.spec(),
                c.period,
                c.time_column
            )
        } else {
            format!(
                "xs create {} --granularity {} --columns '{}' --depth {} --partition {} --time-column {}",
                shell_word(dir),
                c.granularity,
                c.schema.spec(),
                c.depth,
                c.period,
                c.time_column
            )
        };
        if !c.keys.series.is_empty() {
            cmd.push_str(&format!(" --series-by {}", c.keys.series.join(",")));
        }
        if !c.keys.unique.is_empty() {
            cmd.push_str(&format!(" --unique-by {}", c.keys.unique.join(",")));
        }
        if c.timezone != Zone::Utc {
            cmd.push_str(&format!(" --timezone {}", shell_word(&c.timezone.spelling())));
        }
        cmd
    }
}

/// Quotes `word` for a POSIX shell when it needs it.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@,+".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// How likely a column name is to be the time: 3 exact, 2 `date` (below `timestamp`: of the two,
/// the one with the time of day) or contains `time`, 1 contains `date` or `ts`.
fn time_name_score(name: &str) -> u8 {
    let lower = name.to_ascii_lowercase();
    const EXACT: [&str; 8] = [
        "time",
        "timestamp",
        "ts",
        "datetime",
        "t",
        "date_time",
        "time_stamp",
        "epoch",
    ];
    if EXACT.contains(&lower.as_str()) {
        3
    } else if lower == "date" || lower.contains("time") {
        2
    } else if names_a_date(&lower) || lower.split(['_', '-', '.']).any(|p| p == "ts") {
        1
    } else {
        0
    }
}

/// The day (since 1970) of a value that is a time with its date and time of day: an ISO or
/// other date-time, or an epoch number of nine digits or more (its unit by its size).
fn day_of_a_time(v: &[u8]) -> Option<i64> {
    let v = v.trim_ascii();
    let t_ns = if is_epoch_number(v) && v.iter().all(u8::is_ascii_digit) {
        let ns_per = match v.len() {
            9..=10 => 1_000_000_000,
            11..=13 => 1_000_000,
            14..=16 => 1_000,
            17..=19 => 1,
            _ => return None,
        };
        i64::try_from(epoch_magnitude(v)).ok()?.checked_mul(ns_per)?
    } else if dialect::is_date_only(v) || dialect::is_time_only(v) {
        return None;
    } else {
        crate::io::timefmt::parse_iso(v).or_else(|| read_in_any_order(v))?
    };
    Some(t_ns.div_euclid(NS_PER_DAY))
}

/// A date or date-time read with its year first, its day first or its month first, in that
/// order: the instant of the first that reads.
fn read_in_any_order(v: &[u8]) -> Option<i64> {
    [DateOrder::Ymd, DateOrder::Dmy, DateOrder::Mdy]
        .into_iter()
        .find_map(|o| flextime::parse(v, o))
        .map(|f| f.t_ns)
}

/// Whether column `clock` holds times of day on the dates of column `date` (the row's
/// `event_time` beside its `date`): in nine of ten of the first rows with both, its time
/// falls on that date or a day beside it (a zone apart), and it has more values than there
/// are dates (times within the days, not one load time for all or one time a day).
fn times_on_the_dates(sample: &Sample, date: usize, clock: usize) -> bool {
    let pairs: Vec<(i64, i64, &[u8])> = sample
        .rows
        .iter()
        .take(200)
        .filter_map(|r| {
            let d = r.get(date)?.trim_ascii();
            let day = read_in_any_order(d)?.div_euclid(NS_PER_DAY);
            let c = r.get(clock)?.trim_ascii();
            Some((day, day_of_a_time(c)?, c))
        })
        .collect();
    let on_the_date = pairs.iter().filter(|(d, c, _)| (d - c).abs() <= 1).count();
    let dates: std::collections::HashSet<i64> = pairs.iter().map(|p| p.0).collect();
    let times: std::collections::HashSet<&[u8]> = pairs.iter().map(|p| p.2).collect();
    pairs.len() >= 2 && on_the_date * 10 >= pairs.len() * 9 && times.len() > dates.len()
}

/// Whether a lowercase column name has a word that is a date (`trade_date`, `TradeDate`,
/// `date_utc`, `dated`, `Buchungsdatum`), not one that merely holds the letters
/// (`updated_at`, `validated`, `candidate`, `last_update`).
fn names_a_date(lower: &str) -> bool {
    const NOT_DATES: [&str; 5] = ["update", "validate", "candidate", "mandate", "liquidate"];
    // German, Dutch and Swedish `Datum` (`Buchungsdatum`) and Spanish `fecha` too.
    let date = |w: &str| {
        w.starts_with("date")
            || (w.ends_with("date") && !NOT_DATES.iter().any(|n| w.ends_with(n)))
            || w.contains("datum")
            || w.starts_with("fecha")
    };
    lower.split(|c: char| !c.is_ascii_alphanumeric()).any(date)
}

/// Whether a parse read a time: digits below a nanosecond still make one (the import rejects
/// or, with `--floor-time`, rounds it).
fn readable(parsed: std::result::Result<(i64, bool), TimeError>) -> bool {
    match parsed {
        Ok(_) => true,
        Err(e) => e.below_ns_time().is_some(),
    }
}

/// The clock format a `--time-format` keyword names: `hhmm`, `hhmmss`, `hhmmssmmm`, and
/// `hhmmss` with 3, 6 or 9 `f` for a fraction of as many digits (any case).
pub fn clock_keyword(pattern: &str) -> Option<TimeFormat> {
    let lower = pattern.to_ascii_lowercase();
    if lower == "hhmm" {
        return Some(TimeFormat::ClockMinutes);
    }
    let frac = match lower.strip_prefix("hhmmss")? {
        "" => 0,
        "mmm" => 3,
        f if matches!(f.len(), 3 | 6 | 9) && f.bytes().all(|c| c == b'f') => f.len() as u8,
        _ => return None,
    };
    Some(TimeFormat::Clock { frac })
}

/// Date-times written as one number, `YYYYMMDDHH[MM[SS[mmm]]]` (`202101011230`): a year from
/// 1900 to 2100 leading every value of one length. Read as epoch numbers they would land in
/// the 1970s or past 2030, so they are never taken for those.
fn compact_date_time(values: &[&[u8]], mostly: &dyn Fn(&TimeFormat) -> bool) -> Option<(TimeFormat, String)> {
    let len = values.first()?.len();
    let (pattern, shape) = match len {
        10 => ("%Y%m%d%H", "YYYYMMDDHH"),
        12 => ("%Y%m%d%H%M", "YYYYMMDDHHMM"),
        14 => ("%Y%m%d%H%M%S", "YYYYMMDDHHMMSS"),
        17 => ("%Y%m%d%H%M%S%3f", "YYYYMMDDHHMMSSmmm"),
        _ => return None,
    };
    let plausible = |v: &&[u8]| {
        v.len() == len
            && v.iter().all(u8::is_ascii_digit)
            && (1900..=2100).contains(&epoch_magnitude(&v[..4]))
    };
    if !values.iter().all(plausible) {
        return None;
    }
    let f = TimeFormat::Strftime(pattern.into());
    mostly(&f).then(|| {
        (
            f,
            format!("date-times written {shape} (--time-format '{pattern}')"),
        )
    })
}

/// `detect_time_format` of the time, from the columns `columns` of the input: for a date
/// column joined with a time column (`--time-column Date,Time`) whose joined text reads in no
/// format of its own, also a date and a count of seconds (or milliseconds) since that day's
/// midnight (`2024-03-07 34224.685659`; `2024-03-07 0930` is a clock, read first).
pub fn detect_columns_time_format(
    columns: usize,
    values: &[&[u8]],
    unit: Option<EpochUnit>,
    pattern: Option<&str>,
) -> std::result::Result<Option<(TimeFormat, String)>, String> {
    // `--time-format hhmm` over a date and a time column: the dates' format, the clocks HHMM.
    if columns >= 2 && pattern.is_some_and(|p| p.eq_ignore_ascii_case("hhmm")) {
        return date_and_day_number(values, unit, true);
    }
    let found = detect_time_format(values, unit, pattern);
    if columns < 2 || pattern.is_some() {
        return found;
    }
    if let Ok(Some((format, _))) = &found {
        // Minute bars' `1000` … `1559` read after a date as HHMM, but their `930` does not: a
        // reading of every value as a date and a clock wins over one that rejects some.
        let present = present_values(values);
        if present.iter().all(|v| readable(format.parse(v))) {
            return found;
        }
        return match date_and_day_number(values, unit, false) {
            Ok(Some(clocks @ (TimeFormat::DateAndClock(_), _))) => Ok(Some(clocks)),
            _ => found,
        };
    }
    match date_and_day_number(values, unit, false)? {
        Some(joined) => Ok(Some(joined)),
        None => found,
    }
}

/// A date, a space and a number of seconds since its midnight (`detect_columns_time_format`):
/// the format when nine in ten values read so (the others are rejected rows). The unit is
/// `unit`, else seconds unless the median passes a day's (then milliseconds), so one outlier
/// does not change it. `Err` where the numbers are clock digits or spreadsheet day
/// fractions, which read as seconds would be wrong.
fn date_and_day_number(
    values: &[&[u8]],
    unit: Option<EpochUnit>,
    clocks_given: bool,
) -> std::result::Result<Option<(TimeFormat, String)>, String> {
    let values = present_values(values);
    let (mut dates, mut numbers) = (Vec::new(), Vec::new());
    for v in &values {
        let Some(at) = v.iter().rposition(|&c| c == b' ') else {
            continue;
        };
        let (date, number) = (v[..at].trim_ascii(), &v[at + 1..]);
        if !date.is_empty() && date.len() <= 32 && is_epoch_number(number) && !number.starts_with(b"-") {
            dates.push(date);
            numbers.push(number);
        }
    }
    if dates.is_empty() {
        return Ok(None);
    }
    let Ok(Some((date, date_how))) = detect_time_format(&dates, None, None) else {
        return Ok(None);
    };
    if date.is_time_of_day() {
        return Ok(None);
    }
    let mut magnitudes: Vec<u64> = numbers.iter().map(|v| epoch_magnitude(v)).collect();
    magnitudes.sort_unstable();
    // Whole numbers below 2400 whose last two digits never pass 59 are as likely clock times
    // written HHMM (`930`) as seconds before 00:40; 20 distinct ones or more, several to a
    // date, are minute bars' clocks (seconds would have shown a 60 by now).
    let whole = numbers.iter().all(|v| v.iter().all(u8::is_ascii_digit));
    if clocks_given || (unit.is_none() && whole && magnitudes.iter().all(|&n| n < 2400 && n % 100 < 60)) {
        let mut distinct = magnitudes.clone();
        distinct.dedup();
        let seen = distinct.len() >= 20 && repeats(&dates) && *distinct.last().unwrap_or(&0) >= 100;
        if clocks_given || seen {
            let f = TimeFormat::DateAndClock(Box::new(date));
            let good = values.iter().filter(|v| readable(f.parse(v))).count();
            if values.len() - good <= unreadable_allowed(values.len()) {
                return Ok(Some((
                    f,
                    match clocks_given {
                        true => {
                            format!("a date ({date_how}) and clock times written HHMM (--time-format hhmm)")
                        }
                        false => format!(
                            "a date ({date_how}) and clock times written HHMM: numbers from {} to \
                             {} whose last two digits never pass 59 ({} values), not seconds \
                             since midnight; pass --time-unit s if they are",
                            distinct[0],
                            distinct[distinct.len() - 1],
                            distinct.len()
                        ),
                    },
                )));
            }
        }
        if clocks_given {
            return Ok(None);
        }
        return Err(format!(
            "its numbers after the dates run from {} to {} and their last two digits never pass \
             59: clock times written HHMM or seconds since midnight, and the sample has too few \
             (xs reads 20 distinct or more, several to a date, as clocks) to tell: pass \
             --time-format hhmm if they are clock times, --time-unit s if they are seconds since \
             midnight",
            magnitudes[0],
            magnitudes[magnitudes.len() - 1]
        ));
    }
    let median = magnitudes[magnitudes.len() / 2];
    if unit.is_none() && magnitudes.last() < Some(&2) {
        return Err(
            "its numbers after the dates are all below 2, as a spreadsheet's fractions of a day are: \
             write the times of day as `HH:MM:SS`, or pass --time-unit s if they are seconds since midnight"
                .into(),
        );
    }
    let (unit, how) = match unit {
        Some(u) => (u, UNIT_GIVEN),
        None if median <= 86_400 => (EpochUnit::S, "by their magnitude; pass --time-unit to choose"),
        None if median < 86_400_000 => (EpochUnit::Ms, "by their magnitude; pass --time-unit to choose"),
        None => return Ok(None),
    };
    let f = TimeFormat::DateAndDayEpoch(Box::new(date), unit);
    let good = values.iter().filter(|v| readable(f.parse(v))).count();
    Ok(
        (good > 0 && values.len() - good <= unreadable_allowed(values.len())).then(|| {
            (
                f,
                format!(
                    "a date ({date_how}) and {} since its midnight ({how})",
                    unit_word(unit)
                ),
            )
        }),
    )
}

/// Months written `YYYY-MM` or `YYYY/MM` (ISO 8601's reduced precision, as monthly economic
/// series and the classic airline-passengers file write them) or with their name (`Jan 2021`,
/// as statistics offices write them), ISO weeks (`2021-W05`) and days of the year
/// (`2021-032`): the first value picks the shape, most of the sample has to read in it. A
/// month is stored at its first day's midnight, a week at its Monday's.
fn year_month(values: &[&[u8]], mostly: &dyn Fn(&TimeFormat) -> bool) -> Option<(TimeFormat, String)> {
    let first = *values.first()?;
    let (pattern, what) = match (first.len(), first.get(4), first.get(5)) {
        (6 | 7, Some(b'-'), _) => ("%Y-%m", "months written YYYY-MM"),
        (6 | 7, Some(b'/'), _) => ("%Y/%m", "months written YYYY/MM"),
        // ISO 8601's week and ordinal dates.
        (8, Some(b'-'), Some(b'W')) => ("%G-W%V", "ISO weeks written YYYY-Www"),
        (8, Some(b'-'), Some(c)) if c.is_ascii_digit() => ("%Y-%j", "days of the year written YYYY-DDD"),
        // A month's name and the year (`Jan 2021`, `January 2021`, `Jan-2021`, `2021-Jan`).
        (8..=14, _, _) if first.iter().any(u8::is_ascii_alphabetic) => {
            // The first value picks the pattern; the sample then has to agree. chrono's `%B`
            // reads a month's full name and its abbreviation.
            let f = ["%B %Y", "%B-%Y", "%Y-%B", "%Y %B"]
                .into_iter()
                .find(|p| TimeFormat::Strftime((*p).into()).parse(first).is_ok())?;
            (f, "months written with their name and the year")
        }
        _ => return None,
    };
    let f = TimeFormat::Strftime(pattern.into());
    mostly(&f).then(|| {
        let stored = match pattern {
            "%G-W%V" => ", each stored at its Monday",
            "%Y-%j" => "",
            _ => ", each stored at its first day",
        };
        let how = format!("{what}{stored} (--time-format '{pattern}')");
        (f, how)
    })
}

/// Times of day written as clock digits, `HHMMSS` without their separators (`93000` is
/// 09:30:00), or with 3, 6 or 9 digits of fraction after them (`HHMMSSmmm`, and NYSE TAQ's
/// `HHMMSSfffffffff`): every value has minutes and seconds below 60. Where the numbers
/// could also be seconds (or milliseconds) since midnight, enough distinct values settle it
/// (such counts soon pass a 60 in those places); too few is a refusal that names both flags.
fn clock_digits(values: &[&[u8]]) -> std::result::Result<Option<(TimeFormat, String)>, String> {
    let (short, long) = (
        values.iter().map(|v| v.len()).min(),
        values.iter().map(|v| v.len()).max(),
    );
    let frac = match (short, long) {
        (Some(5..=6), Some(5..=6)) => 0u8,
        (Some(8..=9), Some(8..=9)) => 3,
        (Some(11..=12), Some(11..=12)) => 6,
        (Some(14..=15), Some(14..=15)) => 9,
        _ => return Ok(None),
    };
    if !values
        .iter()
        .all(|v| crate::import::timeparse::parse_clock(v, frac).is_ok())
    {
        return Ok(None);
    }
    let f = TimeFormat::Clock { frac };
    let max = values.iter().map(|v| epoch_magnitude(v)).max().unwrap_or(0);
    let unit = match frac {
        0 => EpochUnit::S,
        3 => EpochUnit::Ms,
        6 => EpochUnit::Us,
        _ => EpochUnit::Ns,
    };
    let since_midnight = max < (86_400 * crate::db::time::NS_PER_SEC / unit.ns()) as u64;
    let mut distinct: Vec<&[u8]> = values.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    if !since_midnight || distinct.len() >= 20 {
        let how = match since_midnight {
            false => format!(
                "{}: too large for {} since midnight",
                f.describe(),
                unit_word(unit)
            ),
            true => format!(
                "{}: minutes and seconds below 60 in every one of {} values",
                f.describe(),
                distinct.len()
            ),
        };
        return Ok(Some((f, how)));
    }
    let keyword = match frac {
        3 => "hhmmssmmm".to_string(),
        _ => format!("hhmmss{}", "f".repeat(usize::from(frac))),
    };
    Err(format!(
        "its numbers read as {} and as {} since midnight, and the sample has too few to tell; \
         pass --time-format {keyword} or --time-unit {}",
        f.describe(),
        unit_word(unit),
        unit.name()
    ))
}

/// The date order a `--time-format` keyword names (`ymd`, `dmy`, `mdy`, any case): the
/// detected shapes read in that order, whatever their separators, time, clock and zone.
pub fn date_order_keyword(pattern: &str) -> Option<DateOrder> {
    match pattern.to_ascii_lowercase().as_str() {
        "ymd" => Some(DateOrder::Ymd),
        "dmy" => Some(DateOrder::Dmy),
        "mdy" => Some(DateOrder::Mdy),
        _ => None,
    }
}

/// The values of a sample that are neither empty nor a null's spelling.
fn present_values<'a>(values: &[&'a [u8]]) -> Vec<&'a [u8]> {
    values
        .iter()
        .copied()
        .filter(|v| !v.is_empty() && !dialect::is_default_null(v))
        .collect()
}

/// How many of `n` present sample values a format found without being asked for may fail to
/// read: a tenth, and at least one in samples of three or more.
fn unreadable_allowed(n: usize) -> usize {
    (n / 10).max(usize::from(n >= 3))
}

/// The time format a column's non-empty sample values share, if any, allowing a tenth of them
/// (at least one, in samples of three or more) to be unreadable: a corrupt row or a year 9999
/// does not hide the format, and the import rejects those rows with their reason. `Err` when
/// dates read both as day/month and month/day and nothing in the sample tells which.
pub fn detect_time_format(
    values: &[&[u8]],
    unit: Option<EpochUnit>,
    pattern: Option<&str>,
) -> std::result::Result<Option<(TimeFormat, String)>, String> {
    let values = present_values(values);
    // A format the user gives needs to read only half of them: the rest are rejected with
    // their reason (a `2021-02-30` is no date in any format).
    let allowed_bad = match pattern {
        Some(_) => values.len() / 2,
        None => unreadable_allowed(values.len()),
    };
    let enough = |good: usize| good > 0 && values.len() - good <= allowed_bad;
    let good = |f: &TimeFormat| {
        if *f == TimeFormat::Iso {
            // The import's parser, which reuses the day of the previous value: same answers.
            let spec = TimeSpec::utc(TimeFormat::Iso);
            let mut parser = TimeParser::new(&spec, None);
            return values.iter().filter(|v| readable(parser.parse(v))).count();
        }
        values.iter().filter(|v| readable(f.parse(v))).count()
    };
    let mostly = |f: &TimeFormat| enough(good(f));
    if values.is_empty() {
        return Ok(None);
    }
    if let Some(p) = pattern {
        if let Some(f) = clock_keyword(p) {
            return Ok(mostly(&f).then(|| (f.clone(), format!("{} (--time-format {p})", f.describe()))));
        }
        let keyword = match p.to_ascii_lowercase().as_str() {
            "quarter" => Some(TimeFormat::Quarter),
            "excel" => Some(TimeFormat::SerialDays),
            _ => None,
        };
        if let Some(f) = keyword {
            return Ok(mostly(&f).then(|| (f.clone(), format!("{} (--time-format {p})", f.describe()))));
        }
        if let Some(order) = date_order_keyword(p) {
            let f = TimeFormat::Flex(order);
            if mostly(&f) {
                let how = format!("dates read as {} (--time-format {p})", order.describe());
                return Ok(Some((f, how)));
            }
            return interval_format(&values, unit, pattern);
        }
        let f = TimeFormat::Strftime(p.to_string());
        if mostly(&f) {
            return Ok(Some((f, format!("times read with the pattern `{p}`"))));
        }
        return interval_format(&values, unit, pattern);
    }
    if let Some(found) = year_month(&values, &mostly) {
        return Ok(Some(found));
    }
    // Cheap first: a quarter has 6 or 7 bytes, one a `Q`.
    let quarter_like = |v: &&[u8]| matches!(v.len(), 6 | 7) && v.iter().any(|&c| c == b'Q' || c == b'q');
    if values.iter().any(quarter_like) && mostly(&TimeFormat::Quarter) {
        return Ok(Some((TimeFormat::Quarter, TimeFormat::Quarter.describe())));
    }
    let mut epoch_magnitudes: Vec<u64> = values
        .iter()
        .filter(|v| is_epoch_number(v))
        .map(|v| epoch_magnitude(v))
        .collect();
    if enough(epoch_magnitudes.len()) {
        // `20240131`: a date, not epoch seconds of 1970.
        let compact = TimeFormat::Flex(DateOrder::Ymd);
        if unit.is_none() && values.iter().all(|v| v.len() == 8) && mostly(&compact) {
            return Ok(Some((compact, "dates written YYYYMMDD".into())));
        }
        if unit.is_none() {
            if let Some(found) = compact_date_time(&values, &mostly) {
                return Ok(Some(found));
            }
            // Of the numbers only: a trailer (`END`) is rejected by the import with its reason.
            let numbers: Vec<&[u8]> = values.iter().copied().filter(|v| is_epoch_number(v)).collect();
            if let Some(found) = clock_digits(&numbers)? {
                return Ok(Some(found));
            }
        }
        let negative = values.iter().any(|v| v.starts_with(b"-"));
        let max = epoch_magnitudes.iter().copied().max().unwrap_or(0);
        let day_in = |u: EpochUnit| (NS_PER_DAY / u.ns()) as u64;
        // Below one day: a time of day, not a time in 1970.
        let time_of_day_unit = match unit {
            Some(u) if !negative && max <= day_in(u) => Some((u, UNIT_GIVEN)),
            None if !negative && max < day_in(EpochUnit::Ms) => Some(if max >= day_in(EpochUnit::S) {
                (EpochUnit::Ms, "by their magnitude; pass --time-unit to choose")
            } else {
                (EpochUnit::S, "by their magnitude; pass --time-unit to choose")
            }),
            _ => None,
        };
        if let Some((u, how)) = time_of_day_unit {
            let f = TimeFormat::DayEpoch(u);
            if mostly(&f) {
                return Ok(Some((f, format!("{} since midnight ({how})", unit_word(u)))));
            }
        }
        // Around zero, some below it (an oscilloscope's seconds from its trigger): as epoch
        // seconds all would fall within a day of 1970, and no date places them.
        if unit.is_none() && negative && max < day_in(EpochUnit::S) {
            let shown: Vec<String> = [values.first(), values.last()]
                .into_iter()
                .flatten()
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .collect();
            return Err(format!(
                "it holds numbers around zero, some below it ({}): read as epoch seconds they \
                 would all fall within a day of 1970-01-01, so they are likely times elapsed from \
                 a start (a trigger, a run), which xs cannot place. Add the start's time to each \
                 and import the result, or pass --time-unit if they are epoch times",
                shown.join(" … ")
            ));
        }
        let given = unit.is_some();
        let (unit, how) = match unit {
            Some(u) => (u, UNIT_GIVEN),
            None => {
                // The median, so that one outlier cannot change the unit of every row.
                epoch_magnitudes.sort_unstable();
                let typical = epoch_magnitudes[epoch_magnitudes.len() / 2];
                (
                    unit_by_magnitude(typical),
                    "by their magnitude; pass --time-unit to choose",
                )
            }
        };
        let f = TimeFormat::Epoch(unit);
        if mostly(&f) {
            return Ok(Some((
                f,
                format!("epoch numbers read as {} ({how})", unit_word(unit)),
            )));
        }
        if let (false, Some(mixed)) = (given, mixed_magnitudes(&values)) {
            return Err(mixed);
        }
        return Ok(None);
    }
    let candidates = [
        TimeFormat::Iso,
        TimeFormat::Flex(DateOrder::Ymd),
        TimeFormat::Flex(DateOrder::Dmy),
        TimeFormat::Flex(DateOrder::Mdy),
        TimeFormat::Flex(DateOrder::None),
    ];
    // ISO first: when it reads every value (the common case) nothing else is tried.
    let iso = good(&candidates[0]);
    if iso == values.len() {
        return Ok(Some((TimeFormat::Iso, "ISO-8601 times".into())));
    }
    let counts: Vec<usize> = std::iter::once(iso)
        .chain(candidates[1..].iter().map(good))
        .collect();
    let best = counts.iter().copied().max().unwrap_or(0);
    if !enough(best) {
        return interval_format(&values, unit, pattern);
    }
    let (dmy, mdy) = (counts[2], counts[3]);
    // Two-digit years are read with a century: the report says which.
    let two_digit_years = values.iter().any(|v| flextime::has_two_digit_year(v));
    // Unless some date has a middle field above 12 or a last one above 31, each reads with its
    // two digits first as well (`24/01/06`, year first): which one is meant, no value tells.
    let year_first_too = two_digit_years
        && values
            .iter()
            .filter(|v| flextime::has_two_digit_year(v))
            .all(|v| flextime::reads_year_first(v));
    let pick = |i: usize, how: String| {
        if (i == 2 || i == 3) && year_first_too {
            let (order, keyword) = if i == 2 {
                ("day/month/year", "dmy")
            } else {
                ("month/day/year", "mdy")
            };
            let example = values
                .iter()
                .find(|v| flextime::has_two_digit_year(v))
                .unwrap_or(&values[0]);
            return Err(format!(
                "dates such as `{}` read with a two-digit year last ({order}) and first (year/month/day), \
                 and the sample does not tell which; pass --time-format {keyword} or --time-format '%y/%m/%d'",
                String::from_utf8_lossy(example)
            ));
        }
        let how = if (i == 2 || i == 3) && two_digit_years {
            format!(
                "{how}; two-digit years: 00-68 read as 2000-2068, 69-99 as 1969-1999, as \
                 strptime's %y (pass --time-format to read them otherwise)"
            )
        } else {
            how
        };
        Ok(Some((candidates[i].clone(), how)))
    };
    if let Some(i) = (0..2).find(|&i| counts[i] == best) {
        return pick(
            i,
            if i == 0 {
                "ISO-8601 times".into()
            } else {
                "dates with the year first or the month as a word".into()
            },
        );
    }
    if dmy == best && mdy == best {
        // Every date reads both ways: the order that keeps the rows in time order wins.
        let backward = |order: DateOrder| {
            let times: Vec<i64> = values
                .iter()
                .filter_map(|v| flextime::parse(v, order).map(|f| f.t_ns))
                .collect();
            times.windows(2).filter(|w| w[1] < w[0]).count()
        };
        let (bd, bm) = (backward(DateOrder::Dmy), backward(DateOrder::Mdy));
        // `01.02.2024` is day first wherever dates are written with dots (DIN 5008 and most of
        // Europe); no locale writes the month first between dots.
        let dotted = |v: &&[u8]| {
            let digits = v.iter().take_while(|c| c.is_ascii_digit()).count();
            (1..=2).contains(&digits) && v.get(digits) == Some(&b'.')
        };
        if bd == bm && values.iter().filter(|v| !v.is_empty()).all(dotted) {
            return pick(
                2,
                "dates read as day/month/year (written with dots, as day-first dates are; every \
                 day is 12 or less, so pass --time-format mdy if the month comes first)"
                    .into(),
            );
        }
        if bd == bm {
            return Err(format!(
                "dates such as `{}` read both as day/month/year and month/day/year, and the sample does \
                 not tell which; pass --time-format dmy (day first) or --time-format mdy (month first)",
                String::from_utf8_lossy(values[0])
            ));
        }
        let i = if bd < bm { 2 } else { 3 };
        return pick(
            i,
            format!(
                "dates read as {} (every day is 12 or less; this order keeps the rows in time order; \
                 pass --time-format {} for the other)",
                candidates[i].describe(),
                if i == 2 { "mdy" } else { "dmy" }
            ),
        );
    }
    let i = counts.iter().position(|&c| c == best).unwrap_or(0);
    let how = match i {
        2 => "dates read as day/month/year (days above 12 were seen first; pass --time-format mdy for \
              the other order)"
            .into(),
        3 => "dates read as month/day/year (days above 12 were seen second; pass --time-format dmy \
              for the other order)"
            .into(),
        _ => "times of day".into(),
    };
    pick(i, how)
}

/// Why a column of epoch numbers reads in no one unit, when its numbers are times of these
/// decades in two units or more (a file of seconds joined to one of milliseconds).
fn mixed_magnitudes(values: &[&[u8]]) -> Option<String> {
    let units = [EpochUnit::S, EpochUnit::Ms, EpochUnit::Us, EpochUnit::Ns];
    let plausible = super::timeparse::plausible_times();
    let mut examples: [Option<&[u8]>; 4] = [None; 4];
    for v in values
        .iter()
        .filter(|v| is_epoch_number(v) && !v.starts_with(b"-"))
    {
        let magnitude = epoch_magnitude(v);
        let unit = unit_by_magnitude(magnitude);
        let at = units.iter().position(|&u| u == unit)?;
        let time = i64::try_from(magnitude)
            .ok()
            .and_then(|m| m.checked_mul(unit.ns()));
        if time.is_some_and(|t| plausible.contains(&t)) {
            examples[at].get_or_insert(v);
        }
    }
    let seen: Vec<String> = units
        .iter()
        .zip(examples)
        .filter_map(|(&u, e)| e.map(|e| format!("{} such as `{}`", unit_word(u), String::from_utf8_lossy(e))))
        .collect();
    (seen.len() >= 2).then(|| {
        format!(
            "holds epoch numbers of {} magnitudes, {}: xs reads one unit per column. Import the \
             rows of each unit in a command of their own, or give --time-unit (rows in another \
             unit are then rejected)",
            seen.len(),
            seen.join(" and ")
        )
    })
}

/// The format of intervals (`START - END`, see `TimeFormat::Interval`) whose starts share a
/// format that also reads their ends, with the same tolerance as `detect_time_format`.
fn interval_format(
    values: &[&[u8]],
    unit: Option<EpochUnit>,
    pattern: Option<&str>,
) -> std::result::Result<Option<(TimeFormat, String)>, String> {
    // Each start without the zone ENTSO-E writes after it (`(CEST)`), read by the interval.
    let starts: Vec<&[u8]> = values
        .iter()
        .filter_map(|v| split_interval(v))
        .map(|(start, _)| zone_after(start).map_or(start, |(time, _)| time))
        .collect();
    if starts.len() * 10 < values.len() * 9 {
        return Ok(None);
    }
    let (inner, how) = match detect_time_format(&starts, unit, pattern)? {
        // Dates and times only: `10 - 20` is a range of numbers, and a start that is itself an
        // interval is no time.
        Some((TimeFormat::Interval(_) | TimeFormat::Epoch(_) | TimeFormat::DayEpoch(_), _)) | None => {
            return Ok(None)
        }
        Some(found) => found,
    };
    let f = TimeFormat::Interval(Box::new(inner));
    let good = values.iter().filter(|v| readable(f.parse(v))).count();
    // A format the user gives needs to read only half of them: the rest are rejected with
    // their reason (a `2021-02-30` is no date in any format).
    let allowed_bad = match pattern {
        Some(_) => values.len() / 2,
        None => unreadable_allowed(values.len()),
    };
    Ok((good > 0 && values.len() - good <= allowed_bad).then(|| {
        (
            f,
            format!("intervals `START - END`, stored at their start: {how}"),
        )
    }))
}

/// The sample values of the columns `idx`, joined with a space when several: one per sampled
/// record (empty where a record lacks the column, or one of several), borrowed from the sample
/// for one column.
pub fn time_values<'s>(sample: &'s Sample, idx: &[usize]) -> Vec<Cow<'s, [u8]>> {
    if let [i] = idx {
        return sample
            .rows
            .iter()
            .map(|r| Cow::Borrowed(r.get(*i).map_or(&b""[..], <[u8]>::trim_ascii)))
            .collect();
    }
    sample
        .rows
        .iter()
        .map(|r| {
            let mut v = Vec::new();
            // A record without one of the parts (a footer's `Summe;;300,0` under `Datum;Uhrzeit`)
            // has no time to read: absent, it does not count against the format; the import
            // rejects it with its reason.
            if idx
                .iter()
                .any(|&i| r.get(i).is_none_or(|f| f.trim_ascii().is_empty()))
            {
                return Cow::Owned(v);
            }
            for (k, &i) in idx.iter().enumerate() {
                if k > 0 {
                    v.push(b' ');
                }
                if let Some(f) = r.get(i) {
                    v.extend_from_slice(f.trim_ascii());
                }
            }
            Cow::Owned(v)
        })
        .collect()
}

/// A date-only and a time-only column to join (`Date`, `Time`), if the sample has them: the
/// date's index first.
fn date_time_pair(sample: &Sample) -> Option<(usize, usize)> {
    // Nine in ten of column i's values in the rows where column `beside` has one: a footer
    // (`Summe;;12.345,67` under `Datum;Uhrzeit;Preis`) is no row of a date and a time.
    let mostly = |i: usize, beside: usize, test: &dyn Fn(&[u8]) -> bool| {
        let vals = || {
            sample
                .rows
                .iter()
                .filter(move |r| r.get(beside).is_some_and(|v| !v.trim_ascii().is_empty()))
                .filter_map(move |r| r.get(i))
                .filter(|v| !v.is_empty())
        };
        // The first values decide most columns at once; the whole sample only the likely ones.
        let (head, head_good) = vals()
            .take(20)
            .fold((0, 0), |(n, g), v| (n + 1, g + usize::from(test(v))));
        head > 0 && head_good * 10 >= head * 9 && {
            let (n, good) = vals().fold((0, 0), |(n, g), v| (n + 1, g + usize::from(test(v))));
            good * 10 >= n * 9
        }
    };
    // `0930` (or `930`, as minute bars write it), `093000` and `093000123` (milliseconds after
    // the seconds, as Chinese futures feeds write them) beside a date are clock times too, in
    // a column named like a time (elsewhere four digits are as likely a count).
    let clock = |v: &[u8]| {
        let v = v.trim_ascii();
        let (hour, rest) = match v.len() {
            // The first hour's minutes of a 24-hour day of bars (`0` … `59`).
            1 | 2 => (&b"0"[..], v),
            3 => (&v[..1], &v[1..]),
            4 | 6 => (&v[..2], &v[2..]),
            9 => (&v[..2], &v[2..6]),
            _ => return false,
        };
        v.iter().all(u8::is_ascii_digit)
            && epoch_magnitude(hour) < 24
            && rest.chunks(2).all(|pair| epoch_magnitude(pair) < 60)
    };
    // `13.21` and `11,06` read as a time of day (`H.MM`), but beside a date they are far more
    // often a price or a rate: such a column is joined only under a name that says clock.
    let plain_number = |v: &[u8]| {
        let v = v.trim_ascii();
        !v.contains(&b':') && v.iter().filter(|&&b| b == b'.' || b == b',').count() < 2
    };
    // Three digits or fewer beside a date (`930`, `5`) are a clock only where the dates repeat,
    // as a day's minute bars do (one row a date with `118` is a quantity, `ResponseTime`), and
    // some have three digits or more (`0` … `23` are hours, not minutes past midnight).
    let short_clocks = |i: usize| sample.rows.column(i + 1).any(|v| v.trim_ascii().len() <= 3);
    // Several rows share a date: taken alone, the dates would stack them at its midnight. (A
    // daily table's `Sunrise` beside unique dates is a column, not the time of its row.)
    let shared = |d: usize| {
        let dates: Vec<&[u8]> = sample.rows.column(d).map(<[u8]>::trim_ascii).collect();
        repeats(&dates)
    };
    let clocks_fit = |i: usize| shared(i) && sample.rows.column(i + 1).any(|v| v.trim_ascii().len() >= 3);
    let adjacent = (0..sample.names.len().saturating_sub(1))
        .find(|&i| {
            let name = sample.names[i + 1].to_ascii_lowercase();
            let clock_name = names_a_clock(&name);
            mostly(i, i + 1, &dialect::is_date_only)
                && !names_a_duration(&name)
                && ((mostly(i + 1, i, &dialect::is_time_only)
                    && (clock_name || (!mostly(i + 1, i, &plain_number) && shared(i))))
                    || (time_name_score(&sample.names[i + 1]) >= 2
                        && mostly(i + 1, i, &clock)
                        && (!short_clocks(i) || clocks_fit(i))))
        })
        .map(|i| (i, i + 1));
    // Apart, or the time of day first (`Date,Symbol,Time,Price`; `Time,Date,Value`): the nearest
    // column of clock times, written with a colon, beside dates that repeat (taken alone, they
    // would stack a day's rows at its midnight). A daily table's `Sunrise` stays a column.
    let apart = || {
        // Candidates first, a column at a time (half of their values will do here): pairs of
        // every two columns of a wide table would cost its width squared.
        let n = sample.names.len();
        let dates: Vec<usize> = (0..n)
            .filter(|&d| half_present(&present_in(sample, d), &dialect::is_date_only))
            .collect();
        let clocks: Vec<usize> = (0..n)
            .filter(|&t| !dates.contains(&t) && half_present(&present_in(sample, t), &is_colon_clock))
            .collect();
        let mut pairs: Vec<(usize, usize)> = dates
            .iter()
            .flat_map(|&d| clocks.iter().map(move |&t| (d, t)))
            .filter(|&(d, t)| t != d + 1)
            .collect();
        pairs.sort_by_key(|&(d, t)| (d, t.abs_diff(d)));
        pairs.into_iter().find(|&(d, t)| {
            let name = sample.names[t].to_ascii_lowercase();
            !names_a_duration(&name)
                && mostly(d, t, &dialect::is_date_only)
                && mostly(t, d, &is_colon_clock)
                && shared(d)
        })
    };
    adjacent.or_else(apart)
}

/// Whether a lowercase column name says it holds clock times (`Time`, `Uhrzeit`, `heure`).
fn names_a_clock(lower: &str) -> bool {
    lower.contains("time")
        || name_words(lower).any(|w| {
            w.ends_with("zeit") || ["uhr", "heure", "hora", "ora", "clock", "hhmm", "hhmmss"].contains(&w)
        })
}

/// Whether a lowercase column name says it holds spans of time (`duration`, `elapsed`,
/// `runtime`, Strava's `Moving Time`), which are written as times are but are not the time of
/// their row. (Not `interval`: ENTSO-E's time intervals are the time.)
fn names_a_duration(lower: &str) -> bool {
    // And the statistics of spans: Google Analytics' `Avg. Time on Page` (`00:03:51`).
    const SPANS: [&str; 19] = [
        "duration",
        "elapsed",
        "runtime",
        "uptime",
        "downtime",
        "dauer",
        "duree",
        "length",
        "moving",
        "cumulative",
        "lap",
        "pace",
        "avg",
        "average",
        "mean",
        "median",
        "total",
        "spent",
        "engagement",
    ];
    // Words that start so (`ElapsedTime`, `lap_time`), or compounds that end so
    // (`tripduration`, `Laufdauer`); not `space` or `overlap`.
    name_words(lower).any(|w| {
        SPANS.iter().any(|s| w.starts_with(s))
            || ["duration", "dauer", "elapsed"].iter().any(|s| w.ends_with(s))
    })
}

/// Whether `value` starts with a year (four digits and `-`, `/` or `.`) that xs cannot store.
fn outside_storable_years(value: &str) -> bool {
    let b = value.trim().as_bytes();
    b.len() > 4
        && b[..4].iter().all(u8::is_ascii_digit)
        && matches!(b[4], b'-' | b'/' | b'.')
        && !(crate::db::time::MIN_YEAR..=crate::db::time::MAX_YEAR)
            .contains(&(epoch_magnitude(&b[..4]) as i64))
}

/// A column of dates alone (other than the time's own, `column`) holding a date that is not
/// `day` (days since 1970, the file name's): its name and that date's text.
fn other_dates_beside(sample: &Sample, column: &str, day: i64) -> Option<(String, String)> {
    (0..sample.names.len())
        .filter(|&i| !column.split("`+`").any(|c| c == sample.names[i]))
        .find_map(|i| {
            let dates = dates_alone(sample, i)?;
            let (format, _) = detect_time_format(&dates, None, None).ok()??;
            if format.is_time_of_day() {
                return None;
            }
            let other = dates.iter().find(|v| {
                format
                    .parse(v)
                    .is_ok_and(|(t, _)| t.div_euclid(NS_PER_DAY) != day)
            })?;
            Some((
                sample.names[i].clone(),
                String::from_utf8_lossy(other).into_owned(),
            ))
        })
}

/// The date for times of day: `--date`, else the file name's, else an error naming `--date`.
fn date_for_times_of_day(
    sample: &Sample,
    o: &Overrides,
    column: &str,
) -> Result<(DateSource, Option<i64>, String)> {
    if let Some(ns) = o.date_ns {
        return Ok((DateSource::Given(ns), Some(ns), "date as given by --date".into()));
    }
    let from_name = date_in_name(&sample.source_name);
    if let Some((date, other)) = from_name
        .as_ref()
        .and_then(|(days, _)| other_dates_beside(sample, column, *days))
    {
        let text = from_name.as_ref().map_or("", |(_, text)| text.as_str());
        return Err(Error::Invalid(format!(
            "{}: column `{column}` holds times of day and the file name's date is `{text}`, \
             but column `{date}` holds other dates (`{other}`): taken with the file name's \
             date, their rows would be stored on the wrong day. Pass --time-column \
             {date},{column} to read each row's time from both, or --date to place every \
             row on one day",
            sample.source_name
        )));
    }
    match from_name {
        Some((days, text)) => Ok((
            DateSource::FileName,
            Some(days * NS_PER_DAY),
            format!(
                "column `{column}` holds times of day: the date is taken from the file name (`{text}`); \
                 pass --date to choose"
            ),
        )),
        None => {
            // A column of dates that was not joined with the times (Wind and CTP ticks write
            // `20240102` beside `93000500`, the hour without its zero): say how to join them.
            let dates = (0..sample.names.len()).find(|&i| dates_alone(sample, i).is_some());
            let join = dates.map_or(String::new(), |i| {
                let date = &sample.names[i];
                format!(
                    "; or, if column `{date}` holds their dates, pass --time-column {date},{column} \
                     (a clock written as digits is read beside a date with two digits for the \
                     hour: `093000500`, not `93000500`), or --time-column {date} to store each \
                     row at its day's midnight"
                )
            });
            // A column named as a date whose values xs does not read alone (`1/4/21`, a
            // two-digit year): --date would place every row on one day.
            let named_date = (dates.is_none())
                .then(|| {
                    (0..sample.names.len()).find(|&i| {
                        sample.names[i] != column && names_a_date(&sample.names[i].to_ascii_lowercase())
                    })
                })
                .flatten()
                .map_or(String::new(), |i| {
                    let date = &sample.names[i];
                    format!(
                        "; or, if column `{date}` holds their dates, pass --time-column \
                         {date},{column} with a --time-format for both (such as \
                         '%m/%d/%y %I:%M:%S %p' for `1/4/21 9:30:00 AM`)"
                    )
                });
            let join = format!("{join}{named_date}");
            // Days since 1899-12-30 with the time in the fraction (`44197.5`) fit below a day
            // of seconds too: Excel's serial dates, from 1954 to 2119 here.
            let values = || {
                sample
                    .column_index(column)
                    .into_iter()
                    .flat_map(|i| sample.rows.column(i))
            };
            let excel = values().any(|v| !v.is_empty())
                && values().filter(|v| !v.is_empty()).all(|v| {
                    std::str::from_utf8(v)
                        .ok()
                        .and_then(|t| t.trim().parse::<f64>().ok())
                        .is_some_and(|d| (20_000.0..80_000.0).contains(&d))
                });
            let excel = if excel {
                "; if they are Excel serial dates (days since 1899-12-30, the time of day in the \
                 fraction), pass --time-format excel"
            } else {
                ""
            };
            let alone = if sample.names.len() == 1 {
                "; the input has no other column, so if these are values, it holds no times at all"
            } else {
                ""
            };
            Err(Error::Invalid(format!(
                "{}: column `{column}` holds times of day without a date, and the file name holds \
                 none; pass --date YYYY-MM-DD (the day they fall on) so that they are not stored \
                 in 1970{excel}{join}{alone}",
                sample.source_name
            )))
        }
    }
}

/// The order of day and month `format` reads dates in, when it is one of the two.
fn day_month_of(format: &TimeFormat) -> Option<DayMonth> {
    match format {
        TimeFormat::Flex(DateOrder::Dmy) => Some(DayMonth::DayFirst),
        TimeFormat::Flex(DateOrder::Mdy) => Some(DayMonth::MonthFirst),
        TimeFormat::Interval(inner) => day_month_of(inner),
        _ => None,
    }
}

/// The time format for importing `sample` into an existing database whose time column is
/// `time_idx` of the input: as given, else detected. Returns it with where times of day get
/// their date, and a note to print when the guess matters.
///
/// `recorded`: the order of day and month the database's first import read its dates in.
/// Dates that read both ways (every day 12 or less: a daily file of the 1st to the 12th) read
/// in it, as the first file's did, rather than being refused.
pub fn existing_time_format(
    sample: &Sample,
    time_idx: &[usize],
    o: &Overrides,
    pattern: Option<&str>,
    recorded: Option<DayMonth>,
) -> Result<(TimeFormat, DateSource, Option<String>)> {
    let values = time_values(sample, time_idx);
    let refs: Vec<&[u8]> = values.iter().map(|v| v.as_ref()).collect();
    let detected = match periods(&sample.names, time_idx, &refs, o, pattern) {
        Some(found) => found.map(Some),
        None => detect_columns_time_format(time_idx.len(), &refs, o.time_unit, pattern),
    };
    let detected = match (detected, recorded, pattern) {
        (Err(refused), Some(order), None) => match detect_time_format(&refs, o.time_unit, Some(order.name()))
        {
            Ok(Some((format, _))) => Ok(Some((
                format,
                format!(
                    "dates read as {}, as this database records (every day in the sample is 12 or \
                     less; pass --time-format for another order)",
                    match order {
                        DayMonth::DayFirst => "day/month/year",
                        DayMonth::MonthFirst => "month/day/year",
                    }
                ),
            ))),
            _ => Err(refused),
        },
        (detected, _, _) => detected,
    }
    .map_err(Error::Invalid)?;
    let (format, note) = match detected {
        Some((format, how)) => {
            let note = matches!(
                format,
                TimeFormat::Epoch(_)
                    | TimeFormat::DayEpoch(_)
                    | TimeFormat::Flex(_)
                    | TimeFormat::Interval(_)
            )
            .then_some(how);
            (format, note)
        }
        // Mixed or unreadable: follow the first value; rows that do not fit are rejected.
        None => match refs.iter().find(|v| !v.is_empty()) {
            Some(v) if is_epoch_number(v) => (
                TimeFormat::Epoch(
                    o.time_unit
                        .unwrap_or_else(|| unit_by_magnitude(epoch_magnitude(v))),
                ),
                None,
            ),
            _ => match o.time_unit {
                Some(u) => (TimeFormat::Epoch(u), None),
                None => (TimeFormat::Iso, None),
            },
        },
    };
    if format.is_time_of_day() {
        let column = time_idx
            .iter()
            .filter_map(|&i| sample.names.get(i).map(String::as_str))
            .collect::<Vec<_>>()
            .join("+");
        let (date, _, how) = date_for_times_of_day(sample, o, &column)?;
        // As for a new database: times of day that cross midnight cannot take one date.
        let tods: Vec<Option<i64>> = refs
            .iter()
            .map(|v| format.parse(v).ok().map(|(t, _)| t))
            .collect();
        if let Some((from, to)) = midnight_crossing(sample, o, time_idx, &tods) {
            return Err(Error::Invalid(crosses_midnight(
                &column,
                &clock_of_day(from),
                &clock_of_day(to),
            )));
        }
        let note = note.map_or(how.clone(), |n| format!("{n}; {how}"));
        return Ok((format, date, Some(note)));
    }
    Ok((format, DateSource::None, note))
}

/// The finest step the text of the times can express: the epoch unit, or the ISO fraction.
fn text_precision_ns(values: &[&[u8]], format: &TimeFormat) -> Option<i64> {
    match format {
        TimeFormat::Epoch(unit) => {
            let frac = values
                .iter()
                .map(|v| match crate::import::timeparse::sci_to_plain(v) {
                    // Scientific notation pads its digits (NumPy writes 18): only the digits
                    // that are not trailing zeros tell the precision.
                    Some(plain) => plain.iter().position(|&c| c == b'.').map_or(0, |p| {
                        plain.len() - p - 1 - plain.iter().rev().take_while(|&&c| c == b'0').count()
                    }),
                    None => v.iter().position(|&c| c == b'.').map_or(0, |p| v.len() - p - 1),
                })
                .max()
                .unwrap_or(0);
            let mut ns = unit.ns();
            for _ in 0..frac {
                ns = (ns / 10).max(1);
            }
            Some(ns)
        }
        TimeFormat::Iso => {
            let mut finest = NS_PER_DAY;
            for v in values.iter().filter(|v| v.len() > 10) {
                let t = &v[11..];
                let colons = t
                    .iter()
                    .take_while(|c| !matches!(c, b'Z' | b'z' | b'+' | b'-'))
                    .filter(|&&c| c == b':')
                    .count();
                let step = if colons <= 1 {
                    NS_PER_MIN
                } else {
                    match t.iter().position(|&c| c == b'.' || c == b',') {
                        None => NS_PER_SEC,
                        Some(p) => {
                            let digits = t[p + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                            10i64.pow(9u32.saturating_sub(digits.min(9) as u32))
                        }
                    }
                };
                finest = finest.min(step);
            }
            Some(finest)
        }
        TimeFormat::Clock { frac } => Some(NS_PER_SEC / 10i64.pow(u32::from(*frac))),
        TimeFormat::ClockMinutes | TimeFormat::DateAndClock(_) => Some(60 * NS_PER_SEC),
        TimeFormat::Strftime(_)
        | TimeFormat::Flex(_)
        | TimeFormat::DayEpoch(_)
        | TimeFormat::Quarter
        | TimeFormat::SerialDays
        | TimeFormat::DateAndDayEpoch(..)
        | TimeFormat::Interval(_) => None,
    }
}

fn gcd(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.abs()
}

/// Granularity from the sample: the step of a regular series (nearly all gaps between
/// distinct times equal the common divisor of the times), else the precision of the text
/// (epoch unit, ISO fraction digits), else the coarsest round unit that divides every time.
/// `groups` holds the times of each series (one group without a series key): gaps are
/// measured inside a series, never between the interleaved rows of several.
fn infer_granularity(groups: &[Vec<i64>], precision_ns: Option<i64>) -> (i64, String) {
    let mut g = NS_PER_DAY;
    for &t in groups.iter().flatten() {
        g = gcd(g, t.rem_euclid(NS_PER_DAY));
    }
    let (mut distinct_count, mut regular_gaps) = (0usize, 0usize);
    let mut all_distinct: Vec<i64> = Vec::new();
    for times in groups {
        // Sorted and deduplicated in place: a set of 60,000 sampled times cost more than all
        // the rest of inference.
        let mut distinct = times.clone();
        distinct.sort_unstable();
        distinct.dedup();
        regular_gaps += distinct.windows(2).filter(|w| w[1] - w[0] == g).count();
        distinct_count += distinct.len();
        all_distinct.extend(distinct);
    }
    all_distinct.sort_unstable();
    all_distinct.dedup();
    let gaps = distinct_count.saturating_sub(groups.len());
    if distinct_count >= 8 && gaps > 0 && regular_gaps * 10 >= gaps * 9 {
        return (
            g,
            format!(
                "granularity {}: the sample is a regular series with that step",
                format_duration(g)
            ),
        );
    }
    // Many distinct times that all fall on a step coarser than the text's precision: a series
    // on that grid whose sample does not show consecutive steps (30,000 hosts every 5 minutes
    // fill a whole sample window with one timestamp).
    if let Some(p) = precision_ns {
        if all_distinct.len() >= 16 && g > p && g % p == 0 {
            return (
                g,
                format!(
                    "granularity {}: every time in the sample falls on that step; pass --granularity to choose",
                    format_duration(g)
                ),
            );
        }
    }
    let p = precision_ns.filter(|p| g % p == 0).unwrap_or_else(|| {
        [
            NS_PER_DAY,
            NS_PER_HOUR,
            NS_PER_MIN,
            NS_PER_SEC,
            NS_PER_MS,
            NS_PER_US,
            1,
        ]
        .into_iter()
        .find(|unit| g % unit == 0)
        .unwrap_or(1)
    });
    (
        p,
        format!(
            "granularity {}: the precision of the timestamps; pass --granularity to choose",
            format_duration(p)
        ),
    )
}

/// Where the sample's times of day (one per sampled record, in file order) cross midnight,
/// unless a series explains their fall. Followed as one series first; if that crosses, per
/// series of each column that could be the key (the columns of --series-by, else each text
/// column): a file sorted by series (TAQ: each symbol from 04:00 to 20:00) crosses nothing
/// per symbol. The import follows the series of the key it takes, row by row.
fn midnight_crossing(
    sample: &Sample,
    o: &Overrides,
    time_idx: &[usize],
    row_times: &[Option<i64>],
) -> Option<(i64, i64)> {
    let crossing = |key: &[usize]| {
        let mut ids: HashMap<Vec<&[u8]>, usize> = HashMap::new();
        let mut watch = MidnightWatch::default();
        let found = row_times.iter().enumerate().find_map(|(r, t)| {
            let t = (*t)?;
            let value: Vec<&[u8]> = key
                .iter()
                .map(|&i| sample.rows.field_of(r, i).unwrap_or_default().trim_ascii())
                .collect();
            let next = ids.len();
            watch.see(*ids.entry(value).or_insert(next), t, r)
        });
        found.map(|c| (c.from, c.to))
    };
    let whole = crossing(&[])?;
    let keys: Vec<Vec<usize>> = match &o.series {
        Some(given) => {
            let key: Vec<usize> = given
                .iter()
                .filter_map(|name| sample.column_index(name))
                .collect();
            if key.is_empty() {
                Vec::new()
            } else {
                vec![key]
            }
        }
        None => (0..sample.names.len())
            .filter(|i| !time_idx.contains(i) && series_text(&sample.rows.column(*i).collect::<Vec<_>>()))
            .map(|i| vec![i])
            .collect(),
    };
    if keys.iter().any(|key| crossing(key).is_none()) {
        return None;
    }
    Some(whole)
}

/// The refusal for times of day that cross midnight: one date would put the rows after it a
/// day early.
fn crosses_midnight(column: &str, from: &str, to: &str) -> String {
    format!("column `{column}` holds times of day that go back from {from} to {to}: {PAST_MIDNIGHT}")
}

/// Whether times of day that go from `last` to `next` went back over midnight: by more than
/// half a day (times out of order within a day go back less).
pub fn went_back_over_midnight(last: i64, next: i64) -> bool {
    last.saturating_sub(next) > NS_PER_DAY / 2
}

/// Why times of day that go back over midnight cannot all take one date, and what to do.
pub const PAST_MIDNIGHT: &str = "the file crosses midnight, and with one date for every row \
     those after it would be stored a day early. Split the file at midnight and date each part \
     (--date), or give each row its full time";

/// The clock time of day of `t` (`23:59:59.900`), as the refusals of a crossing write it.
pub fn clock_of_day(t: i64) -> String {
    let iso = crate::io::timefmt::format_iso_exact(t);
    iso.get(11..).unwrap_or(&iso).trim_end_matches('Z').to_string()
}

/// The values of column `i` of the sample, trimmed, blanks left out, when there are some and
/// every one is a date alone (`2024-01-02`): a date column that the column beside it may
/// complete with the time of day.
/// Whether some value comes more than once (several rows to a date).
fn repeats(values: &[&[u8]]) -> bool {
    values.len() > values.iter().collect::<std::collections::HashSet<_>>().len()
}

fn dates_alone(sample: &Sample, i: usize) -> Option<Vec<&[u8]>> {
    let dates: Vec<&[u8]> = sample
        .rows
        .column(i)
        .map(<[u8]>::trim_ascii)
        .filter(|v| !v.is_empty())
        .collect();
    (!dates.is_empty() && dates.iter().all(|v| dialect::is_date_only(v))).then_some(dates)
}

/// Why a column of dates alone is not the time when the column after it holds the hour of
/// each row (`Date,Hour` = `2024-01-01,5`, `OPR_DT,OPR_HR`, as load and price tables are
/// written): every row of a day would be stored at its midnight. The message names the flags
/// that join them.
fn hour_beside(sample: &Sample, idx: &[usize]) -> Option<String> {
    // Not `hours`: hours worked beside a date are a quantity, not the hour of the row.
    const HOUR_WORDS: [&str; 11] = [
        "hour",
        "hr",
        "he",
        "hour_ending",
        "hourending",
        "hour_beginning",
        "hb",
        "stunde",
        "heure",
        "hora",
        "uur",
    ];
    let [date] = idx else { return None };
    let hour = date + 1;
    let name = sample.names.get(hour)?;
    let lower = name.to_ascii_lowercase();
    if !HOUR_WORDS.contains(&lower.as_str()) && !name_words(&lower).any(|w| HOUR_WORDS.contains(&w)) {
        return None;
    }
    let dates = dates_alone(sample, *date)?;
    let hours = day_numbers(sample, hour)?;
    if hours.iter().any(|&h| h > 24) {
        return None;
    }
    let example = String::from_utf8_lossy(dates[0]);
    let pattern = if crate::io::timefmt::parse_iso(dates[0].trim_ascii()).is_some() {
        "'%Y-%m-%d %H'".to_string()
    } else {
        "with the date's pattern and %H".to_string()
    };
    let date_name = &sample.names[*date];
    let start = format!(
        "column `{date_name}` holds dates alone (`{example}`) and the column after it, `{name}`, the \
         hour of each row: taken alone, the dates would put every row of a day at its midnight."
    );
    let join = format!("Join them with --time-column {date_name},{name} --time-format {pattern}");
    Some(if hours.contains(&24) {
        // Hour-ending tables (1 to 24).
        format!(
            "{start} {join}: its hours run to 24, each hour's end, and each row is stored at the \
             end of its hour as written (24 is the next midnight)"
        )
    } else {
        format!("{start} {join}")
    })
}

/// The lowercase words of a column name (`OPR_HR` → `opr`, `hr`).
fn name_words(lower: &str) -> impl Iterator<Item = &str> {
    lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// The numbers of column `i` when every value is a whole number of at most three digits and
/// they are not all the same: what numbers the hours or periods of a day.
fn day_numbers(sample: &Sample, i: usize) -> Option<Vec<u64>> {
    let numbers: Vec<u64> = sample
        .rows
        .column(i)
        .map(<[u8]>::trim_ascii)
        .filter(|v| !v.is_empty())
        .map(|v| (v.len() <= 3 && v.iter().all(u8::is_ascii_digit)).then(|| epoch_magnitude(v)))
        .collect::<Option<_>>()?;
    let first = *numbers.first()?;
    numbers.iter().any(|&n| n != first).then_some(numbers)
}

/// Why a column of dates alone is not the time when the column after it numbers the periods of
/// each day (`SETTLEMENT_DATE,SETTLEMENT_PERIOD` = `2021-01-01,17`: half hours 1 to 48; `Date,
/// Interval`): every row of a day would be stored at its midnight, and no time format reads a
/// period's number.
fn period_beside(sample: &Sample, idx: &[usize]) -> Option<String> {
    const PERIOD_WORDS: [&str; 5] = ["period", "interval", "slot", "sp", "settlementperiod"];
    let [date] = idx else { return None };
    let name = sample.names.get(date + 1)?;
    let lower = name.to_ascii_lowercase();
    if !name_words(&lower).any(|w| PERIOD_WORDS.contains(&w)) {
        return None;
    }
    let dates = dates_alone(sample, *date)?;
    let numbers = day_numbers(sample, date + 1)?;
    // A day has at most 288 five-minute periods; several rows share a date.
    let most = *numbers.iter().max()?;
    let shared = repeats(&dates);
    if most > 288 || !shared {
        return None;
    }
    let least = numbers.iter().min()?;
    let date_name = &sample.names[*date];
    Some(format!(
        "column `{date_name}` holds dates alone (`{}`) and the column after it, `{name}`, numbers \
         the periods of each day ({least} to {most}): taken alone, the dates would put every row of a \
         day at its midnight, and xs reads no period numbers as times. Write each row's time (its \
         date and the start of its period) into a column and import that, or pass --time-column \
         {date_name} to store the rows of a day at its midnight",
        String::from_utf8_lossy(dates[0]),
    ))
}

/// Why a column of dates alone is not the time when the column after it is named like a time
/// and holds digits that are no clock xs reads beside a date (Wind and CTP ticks' `93000500`,
/// the hour without its zero; readable ones are joined by `date_time_pair`): every row of a
/// day would be stored at its midnight.
fn clock_beside(sample: &Sample, idx: &[usize]) -> Option<String> {
    let [date] = idx else { return None };
    let name = sample.names.get(date + 1)?;
    if !name.to_ascii_lowercase().contains("time") {
        return None;
    }
    let digits = |v: &[u8]| (3..=9).contains(&v.len()) && v.iter().all(u8::is_ascii_digit);
    let clocks: Vec<&[u8]> = sample
        .rows
        .column(date + 1)
        .map(<[u8]>::trim_ascii)
        .filter(|v| !v.is_empty())
        .collect();
    if clocks.is_empty() {
        return None;
    }
    if let Some(why) = seconds_beside(sample, *date, name) {
        return Some(why);
    }
    if !clocks.iter().all(|v| digits(v)) {
        return None;
    }
    let dates = dates_alone(sample, *date)?;
    let date_name = &sample.names[*date];
    Some(format!(
        "column `{date_name}` holds dates alone (`{}`) and the column after it, `{name}`, digits \
         (`{}`) that xs does not read as a time of day beside them: taken alone, the dates would \
         put every row of a day at its midnight. Write the times with two digits for the hour \
         (`093000500`, `09:30:00.500`) and pass --time-column {date_name},{name}, or pass \
         --time-column {date_name} to store each row at its day's midnight",
        String::from_utf8_lossy(dates[0]),
        String::from_utf8_lossy(clocks[0]),
    ))
}

/// A column name's letters and digits alone, lower-case: `Time of Day` is `timeofday`.
fn squeezed(name: &str) -> String {
    name.to_ascii_lowercase()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

/// Why a column of dates alone is not the time when the column after it, `name`, is named
/// for the time of day and holds numbers since midnight (`34224.685659`), several rows to a
/// date: taken alone, the dates would store the rows of a day at its midnight. Only where
/// the two joined read as a date and seconds since midnight, which the message names.
fn seconds_beside(sample: &Sample, date: usize, name: &str) -> Option<String> {
    const TIME_OF_DAY: [&str; 9] = [
        "time",
        "timeofday",
        "tod",
        "secondsaftermidnight",
        "secondssincemidnight",
        "uhrzeit",
        "zeit",
        "heure",
        "hora",
    ];
    if !TIME_OF_DAY.contains(&squeezed(name).as_str()) {
        return None;
    }
    let dates = dates_alone(sample, date)?;
    let shared = repeats(&dates);
    if !shared {
        return None;
    }
    let joined = time_values(sample, &[date, date + 1]);
    let refs: Vec<&[u8]> = joined.iter().map(|v| v.as_ref()).collect();
    let (format, _) = date_and_day_number(&refs, None, false).ok()??;
    let TimeFormat::DateAndDayEpoch(_, unit) = format else {
        return None;
    };
    let date_name = &sample.names[date];
    let example = sample
        .rows
        .column(date + 1)
        .map(<[u8]>::trim_ascii)
        .find(|v| !v.is_empty())?;
    Some(format!(
        "column `{date_name}` holds dates alone (`{}`) and the column after it, `{name}`, \
         numbers (`{}`) that read as {} since midnight, several rows to a date: taken alone, \
         the dates would put every row of a day at its midnight. Pass --time-column \
         {date_name},{name} to read each row's time from both (--time-unit to choose the \
         unit), or --time-column {date_name} to store each row at its day's midnight",
        String::from_utf8_lossy(dates[0]),
        String::from_utf8_lossy(example),
        unit_word(unit),
    ))
}

/// Column `i`'s sampled values without their spaces, the empty ones left out.
fn present_in(sample: &Sample, i: usize) -> Vec<&[u8]> {
    sample
        .rows
        .column(i)
        .map(<[u8]>::trim_ascii)
        .filter(|v| !v.is_empty())
        .collect()
}

/// Whether `test` holds for at least half of `values` (and there are some).
fn half_present(values: &[&[u8]], test: &dyn Fn(&[u8]) -> bool) -> bool {
    !values.is_empty() && values.iter().filter(|v| test(v)).count() * 2 >= values.len()
}

/// A clock time written with a colon (`20:00`, `9:30:15`): not a price such as `13.21`.
fn is_colon_clock(v: &[u8]) -> bool {
    v.contains(&b':') && dialect::is_time_only(v)
}

/// Why a column of dates alone is not the time when another column holds clock times (`20:00`)
/// in at least half of its values, though not nine in ten as `date_time_pair` joins them, and
/// several rows share a date: taken alone, the dates would stack a day's rows at its midnight.
fn clock_elsewhere(sample: &Sample, idx: &[usize]) -> Option<String> {
    let [date] = idx else { return None };
    let present = present_in(sample, *date);
    let dates: Vec<&[u8]> = present
        .iter()
        .copied()
        .filter(|v| dialect::is_date_only(v))
        .collect();
    if !half_present(&present, &dialect::is_date_only) || !repeats(&dates) {
        return None;
    }
    let (name, example) = (0..sample.names.len()).filter(|&t| t != *date).find_map(|t| {
        let vals = present_in(sample, t);
        let distinct = vals.iter().any(|v| *v != vals[0]);
        (distinct
            && !names_a_duration(&sample.names[t].to_ascii_lowercase())
            && half_present(&vals, &is_colon_clock))
        .then(|| (&sample.names[t], vals.iter().find(|v| is_colon_clock(v)).copied()))
    })?;
    let date_name = &sample.names[*date];
    Some(format!(
        "column `{date_name}` holds dates alone (`{}`) and column `{name}` times of day (`{}`), \
         and several rows share a date: taken alone, the dates would put every row of a day at \
         its midnight. Pass --time-column {date_name},{name} to join them, or --time-column \
         {date_name} to store each row at its day's midnight",
        String::from_utf8_lossy(dates[0]),
        String::from_utf8_lossy(example.unwrap_or_default()),
    ))
}

/// Why a column of dates alone is not the time when the column after it is named for a
/// time within the day and holds values that xs does not read as one (Excel's day fractions
/// `0.5` under `Time`, `Minute` = `135`, `QH` = `37`, `12:05a`): several rows share each date,
/// and taken alone the dates would store them all at its midnight. The catch-all after
/// `hour_beside`, `period_beside` and `clock_beside`, whose messages say more.
fn within_day_beside(sample: &Sample, idx: &[usize]) -> Option<String> {
    // The whole name (its letters and digits) says a time within the day: not `min_temp`,
    // `quarter` (of a year) or `timezone`.
    const WITHIN_DAY: [&str; 19] = [
        "time",
        "timeslot",
        "timeofday",
        "tod",
        "minute",
        "minutes",
        "min",
        "mins",
        "minofday",
        "minuteofday",
        "mod",
        "qh",
        "quarterhour",
        "hh",
        "halfhour",
        "uhrzeit",
        "zeit",
        "heure",
        "hora",
    ];
    let [date] = idx else { return None };
    let name = sample.names.get(date + 1)?;
    if !WITHIN_DAY.contains(&squeezed(name).as_str()) {
        return None;
    }
    let dates = dates_alone(sample, *date)?;
    let values: Vec<&[u8]> = sample
        .rows
        .column(date + 1)
        .map(<[u8]>::trim_ascii)
        .filter(|v| !v.is_empty())
        .collect();
    let first = *values.first()?;
    let shared = repeats(&dates);
    // Values a time within the day could be written as: numbers from 0 to a day's minutes
    // (or a day's fraction), or text with a clock's colon.
    let within_a_day = |v: &&[u8]| {
        v.contains(&b':')
            || std::str::from_utf8(v)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
                .is_some_and(|x| (0.0..=1440.0).contains(&x))
    };
    if !shared || values.iter().all(|v| *v == first) || !values.iter().all(within_a_day) {
        return None;
    }
    let date_name = &sample.names[*date];
    Some(format!(
        "column `{date_name}` holds dates alone (`{}`) and the column after it, `{name}`, values \
         (`{}`) that xs does not read as a time of day beside them, though several rows share a \
         date: taken alone, the dates would put every row of a day at its midnight. Write each \
         row's time (its date and time of day) into one column and import that, or pass \
         --time-column {date_name} to store each row at its day's midnight",
        String::from_utf8_lossy(dates[0]),
        String::from_utf8_lossy(first),
    ))
}

/// What whole numbers below 2400 whose last two digits never pass 59 are, where they read
/// as seconds since midnight: clock times written `HHMM` (`930` … `1559`, a day of minute
/// bars) with 20 distinct values or more (seconds would have shown a 60 by now); fewer cannot
/// tell the two apart, and are not placed on a guess.
enum Hhmm {
    /// Clocks: how they read, for the report.
    Clocks(String),
    /// Either: why they are refused.
    Ambiguous(String),
}

fn hhmm_numbers(label: &str, refs: &[&[u8]]) -> Option<Hhmm> {
    let mut numbers: Vec<u64> = refs
        .iter()
        .map(|v| v.trim_ascii())
        .filter(|v| !v.is_empty())
        .map(|v| (v.len() <= 4 && v.iter().all(u8::is_ascii_digit)).then(|| epoch_magnitude(v)))
        .collect::<Option<_>>()?;
    numbers.sort_unstable();
    numbers.dedup();
    let clock = numbers.iter().all(|&n| n < 2400 && n % 100 < 60);
    if !clock || numbers.last()? < &100 {
        return None;
    }
    let (low, high) = (numbers[0], numbers[numbers.len() - 1]);
    if numbers.len() < 20 {
        return Some(Hhmm::Ambiguous(format!(
            "column `{label}` holds numbers from {low} to {high} whose last two digits never pass \
             59, which read both as clock times written HHMM and as seconds since midnight, and \
             the sample has too few ({}) to tell: pass --time-format hhmm if they are clock \
             times, --time-unit s if they are seconds since midnight",
            numbers.len()
        )));
    }
    Some(Hhmm::Clocks(format!(
        "clock times written HHMM: numbers from {low} to {high} whose last two digits never \
         pass 59 ({} values), not seconds since midnight; pass --time-unit s if they are",
        numbers.len()
    )))
}

/// Why numbers that read as seconds since midnight of the file name's date are rather
/// spreadsheet serial times (days since 1899-12-30 and their fraction, `45360.010417`): their
/// whole days are that date's serial day.
fn serial_days(sample: &Sample, label: &str, refs: &[&[u8]]) -> Option<String> {
    let (day, text) = dialect::date_in_name(&sample.source_name)?;
    const EXCEL_EPOCH_DAYS: i64 = 25_569; // 1970-01-01 as a serial day
    let serial = day + EXCEL_EPOCH_DAYS;
    let values: Vec<&[u8]> = refs
        .iter()
        .map(|v| v.trim_ascii())
        .filter(|v| !v.is_empty())
        .collect();
    let whole_day = |v: &&[u8]| {
        let whole = v.split(|&b| b == b'.').next().unwrap_or_default();
        !whole.is_empty()
            && whole.iter().all(u8::is_ascii_digit)
            && (epoch_magnitude(whole) as i64 - serial).abs() <= 1
    };
    if values.is_empty() || !values.iter().all(whole_day) {
        return None;
    }
    Some(format!(
        "column `{label}` holds numbers such as `{}` whose whole part is the serial day of the \
         file name's date `{text}` ({serial}): spreadsheet serial times (days since 1899-12-30), \
         not seconds since midnight; pass --time-format excel (or --time-unit s if they are \
         seconds since midnight after all)",
        String::from_utf8_lossy(values[0]),
    ))
}

/// Whether every value is `NN.NN.NN` with a day and a month first (`02.01.24`): a German
/// date with a two-digit year as much as a time of day.
fn dotted_dates(values: &[&[u8]]) -> bool {
    let two = |v: &[u8], i: usize| {
        (v[i].is_ascii_digit() && v[i + 1].is_ascii_digit()).then(|| (v[i] - b'0') * 10 + (v[i + 1] - b'0'))
    };
    let mut any = false;
    values.iter().filter(|v| !v.is_empty()).all(|v| {
        any = true;
        v.len() == 8
            && v[2] == b'.'
            && v[5] == b'.'
            && two(v, 0).is_some_and(|d| (1..=31).contains(&d))
            && two(v, 3).is_some_and(|m| (1..=12).contains(&m))
            && two(v, 6).is_some()
    }) && any
}

/// A column's type from its sample values.
fn infer_type(values: &[&[u8]]) -> (ColumnType, &'static str) {
    // Each test is a pass over the values that stops at the first one failing it (the integer
    // pass: at the first value that is no integer): no copies of the values are made (a sample
    // holds tens of thousands). Values that are not UTF-8 are left out; numbers and booleans
    // are read without spaces around them, text keeps them.
    let present = || values.iter().map(|v| v.trim_ascii()).filter(|v| !v.is_empty());
    fn text(v: &[u8]) -> Option<&str> {
        std::str::from_utf8(v).ok()
    }
    if !present().any(|v| text(v).is_some()) {
        return (
            ColumnType::F64,
            "no values in the sample; while it holds none, `xs alter --widen NAME:TYPE` gives it any type",
        );
    }
    let is_bool = |v: &[u8]| matches!(v, b"true" | b"false" | b"TRUE" | b"FALSE" | b"True" | b"False");
    if present().all(|v| is_bool(v) || text(v).is_none()) {
        return (ColumnType::Bool, "");
    }
    let is_int = |v: &[u8]| {
        let d = v.strip_prefix(b"-").unwrap_or(v);
        !d.is_empty() && d.len() <= 20 && d.iter().all(u8::is_ascii_digit)
    };
    // Whether the values are integers, one of them written with a leading zero, and which
    // types hold them all: one pass (cpu-only tables have ten integer columns to type).
    let (mut all_ints, mut leading_zero, mut all_i64, mut all_u64) = (true, false, true, true);
    for v in present() {
        leading_zero |= v.len() >= 2 && v[0] == b'0';
        if is_int(v) {
            // Up to 18 digits fit an i64; longer ones are read to find out.
            if v.len() - usize::from(v[0] == b'-') > 18 {
                let t = text(v).unwrap_or_default();
                all_i64 &= t.parse::<i64>().is_ok();
                all_u64 &= t.parse::<u64>().is_ok();
            } else if v[0] == b'-' {
                all_u64 = false;
            }
        } else if text(v).is_some() {
            all_ints = false;
            break;
        }
    }
    if all_ints {
        // Integers written with leading zeros (`0001`, `000001`) are identifiers: station and
        // stock codes, postcodes. As numbers their zeros would be lost (`0001` and `001` one
        // value), so they stay text.
        if leading_zero {
            let (text_type, _) = text_type(values);
            return (
                text_type,
                "integers written with leading zeros (`0001`): identifiers, stored as text so that \
                 the zeros stay; pass --columns NAME:i64 to store them as numbers",
            );
        }
        if all_i64 {
            return (ColumnType::I64, "");
        }
        if all_u64 {
            return (ColumnType::U64, "");
        }
    }
    if let Some(scale) = dec_scale(present()) {
        return (
            ColumnType::Dec(scale),
            "exact decimals, as many digits after the point as the sample shows at most; a later \
             value with more is rejected, never rounded: pass --columns 'NAME:dec(S)' for more, or \
             NAME:f64",
        );
    }
    let is_f64 = |v: &[u8]| is_plain_decimal(v) || text(v).is_none_or(|t| t.parse::<f64>().is_ok());
    // Numbers with more digits than a binary float keeps (integers past u64: token amounts in
    // wei, 30-digit ids) stay text: as f64, two of them could read back as one.
    let mut rounded = false;
    if present().all(is_f64) {
        if present().filter_map(text).all(f64_holds) {
            return (ColumnType::F64, "");
        }
        rounded = true;
    }
    let (text_type, why) = text_type(values);
    if rounded {
        return (
            text_type,
            "numbers with more digits than f64 keeps, such as integers past u64: stored as text \
             so no digit is lost (an f64 column, --columns NAME:f64, rounds long decimals and \
             refuses whole numbers past 2^53)",
        );
    }
    (text_type, why)
}

/// Whether the nearest `f64` to the number `v` prints back as the same number, to the digits
/// written: always for 15 significant digits or fewer without an exponent, and for what a
/// program printed from a float (`74.93588199999998`, `1.000000000000000056e-01`); never past
/// f64's range (`1e999`, `1e-400`).
/// `nan`, `inf` and what is no number are held (nothing to lose).
fn f64_holds(v: &str) -> bool {
    if v.bytes().filter(u8::is_ascii_digit).count() <= 15 && !v.contains(['e', 'E']) {
        return true;
    }
    let Ok(f) = v.parse::<f64>() else {
        return true;
    };
    if !f.is_finite() {
        return false;
    }
    let Some(written) = decimal_digits(v) else {
        return true;
    };
    if written.0.is_empty() {
        return f == 0.0;
    }
    // The stored f64 printed to as many significant digits as were written: the same digits
    // when nothing was lost (`%.17g` and numpy's `%.18e` print a float's exact expansion).
    let printed = format!("{:.*e}", written.0.len() - 1, f);
    decimal_digits(&printed).is_some_and(|stored| stored == written)
}

/// A number `[±]D[.D][e±X]` as its significant digits (no leading or trailing zeros) and the
/// power of ten of the first one, and its sign: `-0.0120e2` → ("12", 0, true).
fn decimal_digits(v: &str) -> Option<(String, i64, bool)> {
    let (negative, body) = match v.as_bytes().first()? {
        b'-' => (true, &v[1..]),
        b'+' => (false, &v[1..]),
        _ => (false, v),
    };
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(k) => (&body[..k], body[k + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let all: String = int.chars().chain(frac.chars()).collect();
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0').to_string();
    let power = int.len() as i64 - lead as i64 - 1 + exp;
    Some((digits, power, negative))
}

/// The text type of a column's sample values: `sym` for repeated text, else `str(N)`.
fn text_type(values: &[&[u8]]) -> (ColumnType, &'static str) {
    let raw = || {
        values
            .iter()
            .filter(|v| !v.trim_ascii().is_empty())
            .filter_map(|v| std::str::from_utf8(v).ok())
    };
    let longest = raw().map(str::len).max().unwrap_or(1);
    let mut distinct = std::collections::HashSet::new();
    let count = raw().count();
    // Repeated text: at most a few distinct values, or each value seen `SYM_REPEATS` times on
    // average (symbols, sides, exchanges, hostnames).
    let cap = CATEGORICAL_MAX_VALUES.max(count / SYM_REPEATS);
    let repeated = raw().all(|v| {
        distinct.insert(v);
        distinct.len() <= cap
    });
    if repeated && is_repeated(distinct.len(), count) {
        // A dictionary code in the row: any later value fits, however long (issue 15).
        return (
            ColumnType::Sym,
            "repeated text, stored once in the database's dictionary and as a 4-byte code in \
             each row; any length fits",
        );
    }
    let n = (longest * 2)
        .next_power_of_two()
        .clamp(4, usize::from(MAX_STR_LEN));
    (ColumnType::Str(n as u16), "")
}

/// Significant digits beyond which a decimal reads as a binary float's output
/// (`74.93588199999998`), better kept as f64: 15 is the most every f64 holds exactly.
const DEC_MAX_SIGNIFICANT: usize = 15;

/// The scale of a `dec(S)` column that holds every one of `values` exactly, when all are plain
/// decimals (`[+-]digits.digits`) and some have a point: S is the most digits written after a
/// point (trailing zeros count: `61837.63000000` asks for 8, so it prints back as written), and
/// the longest integer part plus S stays within 18 digits. `None` for whole numbers (integers),
/// exponents, `nan`, `inf`, text, and float output with more than 15 significant digits.
/// Values that are not UTF-8 are left out (only those are checked for it: a plain decimal is
/// ASCII).
fn dec_scale<'v>(values: impl Iterator<Item = &'v [u8]>) -> Option<u8> {
    let (mut int_digits, mut scale) = (0usize, 0usize);
    for v in values {
        let Some(shape) = crate::db::decimal::shape(v) else {
            if std::str::from_utf8(v).is_err() {
                continue;
            }
            return None;
        };
        if shape.significant > DEC_MAX_SIGNIFICANT {
            return None;
        }
        int_digits = int_digits.max(shape.int_digits);
        scale = scale.max(shape.written);
        if int_digits + scale > usize::from(crate::db::decimal::MAX_SCALE) {
            return None;
        }
    }
    u8::try_from(scale).ok().filter(|&s| s > 0)
}

/// `-12.5`, `3`, `.5`: a decimal that `f64` surely reads, told without parsing it.
fn is_plain_decimal(v: &[u8]) -> bool {
    let d = v.strip_prefix(b"-").unwrap_or(v);
    let mut digits = 0usize;
    let mut points = 0usize;
    for &c in d {
        match c {
            b'0'..=b'9' => digits += 1,
            b'.' => points += 1,
            _ => return false,
        }
    }
    digits > 0 && points <= 1
}

/// Distinct values a text column may show in a sample of `MIN_ROWS_TO_JUDGE` rows or more
/// and still count as categorical.
const CATEGORICAL_MAX_VALUES: usize = 16;
/// Past `CATEGORICAL_MAX_VALUES`, text is `sym` when its values repeat this often on average.
const SYM_REPEATS: usize = 4;

/// Whether `count` text values with `distinct` different ones are repeated text (`sym`): at
/// least `MIN_ROWS_TO_JUDGE` of them, and at most a few different ones or each seen
/// `SYM_REPEATS` times on average.
pub fn is_repeated(distinct: usize, count: usize) -> bool {
    count >= MIN_ROWS_TO_JUDGE && distinct <= CATEGORICAL_MAX_VALUES.max(count / SYM_REPEATS)
}

/// What to do about a time that ends in a zone abbreviation (`2024-03-05 09:30:00 EST`), which
/// xs does not read because one can name several zones; empty for any other text.
fn zone_abbreviation_hint(value: &str) -> String {
    let Some((time, word)) = value.trim().rsplit_once(' ') else {
        return String::new();
    };
    let is_abbreviation = (2..=5).contains(&word.len())
        && word.bytes().all(|b| b.is_ascii_uppercase())
        && !["UTC", "GMT", "AM", "PM"].contains(&word)
        && time.bytes().any(|b| b.is_ascii_digit());
    if !is_abbreviation {
        return String::new();
    }
    // Only the offsets of abbreviations that name one offset; `CST`, `IST`… get a placeholder.
    let offset = match word {
        "EST" | "CDT" => "-05:00",
        "EDT" => "-04:00",
        "MDT" => "-06:00",
        "MST" | "PDT" => "-07:00",
        "PST" => "-08:00",
        "CET" | "WEST" => "+01:00",
        "CEST" | "EET" => "+02:00",
        "EEST" | "MSK" => "+03:00",
        "JST" | "KST" => "+09:00",
        "AEST" => "+10:00",
        "AEDT" => "+11:00",
        _ => "±HH:MM",
    };
    let (offset, sed) = if offset.starts_with('±') {
        ("the offset it stands for (`±HH:MM`)".to_string(), String::new())
    } else {
        (
            format!("`{offset}`"),
            format!(" (`sed 's/ {word},/{offset},/'` where a comma follows it)"),
        )
    };
    format!(
        "they end with the zone abbreviation `{word}`, which xs does not read, as one \
         abbreviation can name several zones (`CST` is US Central or China, `PST` also \
         Philippine time). Replace each abbreviation by its UTC offset, ` {word}` by {offset}{sed}, \
         and import the result"
    )
}

/// Infers a database for the sample.
pub fn infer(sample: &Sample, o: &Overrides) -> Result<Inference> {
    // A column's type depends on its own values alone: found on a second thread while this
    // one chooses the time and the series, and taken last. The import's other cores idle
    // until the inference is done (docs/BENCHMARKS.md, "The import's types found beside").
    std::thread::scope(|scope| {
        let typing = std::thread::Builder::new()
            .name("infer-types".into())
            .spawn_scoped(scope, || column_verdicts(sample, o));
        infer_with(sample, o, move || match typing {
            Ok(handle) => match handle.join() {
                Ok(verdicts) => verdicts,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            // No second thread to be had: the types are found in the loop, one by one.
            Err(_) => Vec::new(),
        })
    })
}

/// A column's type as its sample shows it, for a column whose type is not given: the type,
/// why (for the notes; empty when there is nothing to say), and the null tokens met.
struct Verdict<'s> {
    ty: ColumnType,
    why: &'static str,
    nulls: Vec<&'s [u8]>,
}

/// `column_verdict` of every column but those whose type is given and those given or named
/// as the time (`None` for these): the time is most likely among the time-named ones, and
/// typing 60,000 timestamps as text would make the types the last to be ready. A time-named
/// column that is not the time is typed when the inference comes to it.
fn column_verdicts<'s>(sample: &'s Sample, o: &Overrides) -> Vec<Option<Verdict<'s>>> {
    let given: Vec<usize> = (o.types.iter().map(|(name, _)| name))
        .chain(&o.time_columns)
        .filter_map(|name| sample.column_index(name))
        .collect();
    // One buffer for every column's values: a fresh one per column would be mapped and
    // page-faulted in again each time.
    let mut present = Vec::new();
    (0..sample.names.len())
        .map(|i| {
            let typed = !given.contains(&i) && time_name_score(&sample.names[i]) == 0;
            typed.then(|| column_verdict(sample, o, i, &mut present))
        })
        .collect()
}

/// Whether `v` is null: a default null token, or one given with `--null`.
fn is_null_token(o: &Overrides, v: &[u8]) -> bool {
    dialect::is_default_null(v) || o.nulls.iter().any(|n| n == v)
}

/// The type of column `i` from its values that are not null (`present` is scratch).
fn column_verdict<'s>(
    sample: &'s Sample,
    o: &Overrides,
    i: usize,
    present: &mut Vec<&'s [u8]>,
) -> Verdict<'s> {
    // The null tokens met, collected in the same pass as the values.
    let mut nulls: Vec<&[u8]> = Vec::new();
    present.clear();
    for v in sample.rows.column(i) {
        if is_null_token(o, v) {
            nulls.push(v);
        } else {
            present.push(v);
        }
    }
    let (mut ty, mut why) = infer_type(present);
    // A weak null (a lone `.`, `-`, `?`) is null only beside numbers or booleans: a column of
    // dashes alone, or of dashes and words (a log's missing user), is text.
    let weak = |v: &[u8]| dialect::WEAK_NULLS.contains(&v) && !o.nulls.iter().any(|n| n == v);
    if nulls.iter().any(|v| weak(v)) && (present.is_empty() || ty.is_text()) {
        present.extend(nulls.iter().filter(|v| weak(v)));
        nulls.retain(|v| !weak(v));
        (ty, why) = infer_type(present);
    }
    Verdict { ty, why, nulls }
}

/// `infer`, given the columns' verdicts (`column_verdicts`; empty: each found when needed).
fn infer_with<'s>(
    sample: &'s Sample,
    o: &Overrides,
    verdicts: impl FnOnce() -> Vec<Option<Verdict<'s>>>,
) -> Result<Inference> {
    let names = &sample.names;
    if names.is_empty() {
        return Err(Error::Invalid(format!(
            "{}: no column names and no rows (an empty input?) to infer a database from: give a \
             header, or --columns with --no-header",
            sample.source_name
        )));
    }
    if sample.rows.is_empty() {
        return Err(Error::Invalid(format!(
            "{}: no data rows to infer a database from; create it with `xs create`, then import",
            sample.source_name
        )));
    }
    let mut notes = Vec::new();
    let spec = |format: TimeFormat| TimeSpec {
        format,
        zone: o.zone.clone(),
        dst: o.dst,
        unit_by_magnitude: false,
        format_detected: false,
        refuse_naive: false,
    };

    // The time: the named column(s), else a date column joined with the time-of-day column
    // beside it, else the best-named column whose values read as times and fit a grid, else
    // the first that reads as times.
    let mut candidates: Vec<Vec<usize>> = if o.time_columns.is_empty() {
        // A span (`Elapsed Time`, `Moving Time`: seconds or `HH:MM:SS` of a workout) reads as
        // times of day, and --date would then store it as the clock.
        let mut singles: Vec<usize> = (0..names.len())
            .filter(|&i| !names_a_duration(&names[i].to_ascii_lowercase()))
            .collect();
        singles.sort_by_key(|&i| std::cmp::Reverse(time_name_score(&names[i])));
        // Of the named columns, one of dates alone (`date`) comes after one whose values hold
        // a time of day on those dates (`event_time`, `ts_ms`): the rows of a day would all be
        // stored at its midnight. Not after a load time (`load_ts`, one for the whole file, or
        // of other days).
        if let Some(date) = singles
            .iter()
            .position(|&i| time_name_score(&names[i]) > 0 && dates_alone(sample, i).is_some())
        {
            let on_its_dates =
                |&i: &usize| time_name_score(&names[i]) > 0 && times_on_the_dates(sample, singles[date], i);
            if let Some(clock) = singles[date + 1..].iter().position(on_its_dates) {
                let clock = singles.remove(date + 1 + clock);
                singles.insert(date, clock);
            }
        }
        let mut c: Vec<Vec<usize>> = Vec::new();
        if let Some((d, t)) = date_time_pair(sample) {
            c.push(vec![d, t]);
        }
        c.extend(singles.into_iter().map(|i| vec![i]));
        c
    } else {
        let idx = o
            .time_columns
            .iter()
            .map(|name| {
                sample.column_index(name).ok_or_else(|| {
                    Error::Invalid(format!(
                        "--time-column `{name}` is not among the input columns: {}",
                        names.join(",")
                    ))
                })
            })
            .collect::<Result<Vec<usize>>>()?;
        vec![idx]
    };
    candidates.dedup();
    let mut readable = Vec::new();
    let mut chosen = None;
    // Why a column that holds times could not be used: one named like a time (or given) says
    // so before anything else; others only when no column reads as times at all.
    let mut refusal = None;
    let mut weak_refusal = None;
    // A given or time-named column whose values read in no format: its name and one value,
    // for the message when no column reads as times.
    let mut unreadable = None;
    // Unnamed numbers since midnight (pass 1) only when no other column reads as times
    // (pass 0): a pandas index in the first column is not the time.
    for (pass, idx) in (0..2).flat_map(|pass| candidates.iter().map(move |idx| (pass, idx))) {
        if chosen.is_some() {
            break;
        }
        let label = idx
            .iter()
            .map(|&i| names[i].as_str())
            .collect::<Vec<_>>()
            .join("`+`");
        let values = time_values(sample, idx);
        let refs: Vec<&[u8]> = values.iter().map(|v| v.as_ref()).collect();
        let named = !o.time_columns.is_empty() || idx.iter().any(|&i| time_name_score(&names[i]) > 0);
        let detected = match periods(names, idx, &refs, o, o.time_format.as_deref()) {
            Some(found) => found.map(Some),
            None => detect_columns_time_format(idx.len(), &refs, o.time_unit, o.time_format.as_deref()),
        };
        let (mut format, mut how) = match detected {
            Ok(Some(found)) => found,
            Ok(None) => {
                if named && unreadable.is_none() {
                    // A value that does not read (as ISO, or with the pattern given) is the one
                    // to show; how many of them do read tells a few bad rows from a bad format.
                    let given = o
                        .time_format
                        .as_deref()
                        .map(|p| TimeFormat::Strftime(p.to_string()));
                    let reads = |v: &[u8]| match &given {
                        Some(f) => self::readable(f.parse(v)),
                        None => self::readable(TimeFormat::Iso.parse(v)),
                    };
                    let present: Vec<&&[u8]> = refs.iter().filter(|v| !v.is_empty()).collect();
                    let good = present.iter().filter(|v| reads(v)).count();
                    if let Some(v) = present.iter().find(|v| !reads(v)).or(present.first()) {
                        let value = String::from_utf8_lossy(v).into_owned();
                        unreadable = Some((label.clone(), value, good, present.len()));
                    }
                }
                continue;
            }
            Err(e) => {
                if !o.time_columns.is_empty() || time_name_score(&names[idx[0]]) > 0 || idx.len() > 1 {
                    refusal.get_or_insert(format!("column `{label}`: {e}"));
                } else {
                    // Said only when no column reads as times.
                    weak_refusal.get_or_insert(format!("column `{label}`: {e}"));
                }
                continue;
            }
        };
        // A column named like a time that holds times xs cannot place (dates that read both
        // day and month first) is the time: another column's numbers are not taken for epoch
        // seconds in its stead (Yahoo's `Date,…,Volume` with `1/2/2024`).
        if refusal.is_some() && !named {
            continue;
        }
        if let (TimeFormat::DayEpoch(_), [only], true) = (&format, &idx[..], o.time_columns.is_empty()) {
            let name = names[*only].to_ascii_lowercase();
            // Row numbers and ids count up from 1 like seconds since midnight: never a time.
            // The header's own text too: HOBO's `#` is aliased `column_1`.
            let text = sample
                .header_text
                .get(*only)
                .map(|t| t.trim().to_ascii_lowercase());
            if is_id_name(&name) || text.as_deref().is_some_and(is_id_name) {
                continue;
            }
            // A column named like a time whose values no format reads is the time, though it
            // cannot be used: a counter beside it (`Sample`) is no time of day.
            if !named && unreadable.is_some() {
                continue;
            }
            let hhmm = o
                .time_unit
                .is_none()
                .then(|| hhmm_numbers(&label, &refs))
                .flatten();
            let refused = match hhmm {
                // Minute bars' clocks, in a column named like a time: read as such.
                Some(Hhmm::Clocks(clocks)) if named => {
                    (format, how) = (TimeFormat::ClockMinutes, clocks);
                    None
                }
                Some(Hhmm::Clocks(clocks)) => Some(format!(
                    "column `{label}` holds {clocks}; pass --time-column {label} to read them as \
                     the time"
                )),
                Some(Hhmm::Ambiguous(why)) => Some(why),
                None => o
                    .time_unit
                    .is_none()
                    .then(|| serial_days(sample, &label, &refs))
                    .flatten(),
            };
            if let Some(why) = refused {
                if named {
                    refusal.get_or_insert(why);
                } else {
                    weak_refusal.get_or_insert(why);
                }
                continue;
            }
            // A date column holds no time of day: small numbers there are likely a spreadsheet's
            // serial days (44197 is 2021-01-01), read only when asked: Stata and SAS count days
            // from 1960, others from 1970.
            if name.contains("date") && !name.contains("time") && o.time_unit.is_none() {
                let example = refs
                    .iter()
                    .find(|v| !v.is_empty())
                    .map(|v| String::from_utf8_lossy(v));
                refusal.get_or_insert(format!(
                    "column `{}` holds numbers such as {} where dates belong: read as seconds since \
                     midnight they would all fall on one day. If they are spreadsheet serial dates \
                     (days since 1899-12-30), pass --time-format excel; if they are times of day, \
                     pass --time-column {} --time-unit s (or ms) with --date",
                    names[*only],
                    example.unwrap_or_default(),
                    names[*only]
                ));
                continue;
            }
        }
        // Digits that read only as clock times (`HHMMSS`) in a column named for dates are no
        // time of day either (a file name's date would otherwise date them).
        if let (TimeFormat::Clock { .. }, [only], true) = (&format, &idx[..], o.time_columns.is_empty()) {
            let name = names[*only].to_ascii_lowercase();
            if name.contains("date") && !name.contains("time") {
                let example = refs
                    .iter()
                    .find(|v| !v.is_empty())
                    .map(|v| String::from_utf8_lossy(v));
                refusal.get_or_insert(format!(
                    "column `{}` holds numbers such as {} where dates belong, which read only as \
                     clock times (HHMMSS); give their pattern as --time-format ('%Y%m%d' for \
                     dates written YYYYMMDD, '%Y%m' for months written YYYYMM), or pass \
                     --time-column {} with --date if they are times of day",
                    names[*only],
                    example.unwrap_or_default(),
                    names[*only]
                ));
                continue;
            }
        }
        if let (Some(hours), true) = (
            hour_beside(sample, idx)
                .or_else(|| period_beside(sample, idx))
                .or_else(|| clock_beside(sample, idx))
                .or_else(|| within_day_beside(sample, idx))
                .or_else(|| clock_elsewhere(sample, idx)),
            o.time_columns.is_empty(),
        ) {
            refusal.get_or_insert(hours);
            continue;
        }
        if format.is_time_of_day() && o.time_columns.is_empty() && dotted_dates(&refs) {
            let says_time = idx.iter().any(|&i| {
                let lower = names[i].to_lowercase();
                lower.contains("time") || lower.contains("zeit") || lower.contains("heure")
            });
            if !says_time {
                let example = refs
                    .iter()
                    .find(|v| !v.is_empty())
                    .map(|v| String::from_utf8_lossy(v));
                // A time of day in the next column (`Datum;Zeit` = `02.01.24;09.30.00`): both.
                let next = idx[0] + 1;
                let clock = sample
                    .rows
                    .column(next)
                    .find(|v| !v.trim_ascii().is_empty())
                    .and_then(|v| match v.trim_ascii() {
                        [_, _, b':', _, _, b':', _, _] => Some("%H:%M:%S"),
                        [_, _, b'.', _, _, b'.', _, _] => Some("%H.%M.%S"),
                        [_, _, b':', _, _] => Some("%H:%M"),
                        _ => None,
                    })
                    .filter(|_| {
                        sample
                            .rows
                            .column(next)
                            .all(|v| v.trim_ascii().is_empty() || dialect::is_time_only(v))
                    });
                let dates = match (clock, names.get(next)) {
                    (Some(clock), Some(time)) => format!(
                        "--time-column {label},{time} --time-format '%d.%m.%y {clock}' if they are \
                         dates, with the time of day beside them"
                    ),
                    _ => "--time-format '%d.%m.%y' if they are dates".to_string(),
                };
                refusal.get_or_insert(format!(
                    "column `{label}` holds values such as `{}`, which read both as times of day \
                     (HH.MM.SS) and as dates with a two-digit year (DD.MM.YY): pass {dates}",
                    example.unwrap_or_default()
                ));
                continue;
            }
        }
        if let TimeFormat::DayEpoch(_) = format {
            // A counter or a price below 86,400,000 is not a time of day: an unnamed column must
            // be the first one (where Lean, AlgoSeek and LOBSTER files keep it), hold numbers in
            // order, and no other column may read as times.
            let nums: Vec<u64> = refs
                .iter()
                .filter(|v| !v.is_empty())
                .map(|v| epoch_magnitude(v))
                .collect();
            // Nor one that stands still: LOBSTER's order book files hold no time, and their
            // first column, a price level, was stored as the one millisecond it reads as.
            let still = nums.len() >= 3 && nums.iter().all(|&v| v == nums[0]);
            if !named && (pass == 0 || idx[..] != [0] || still || nums.windows(2).any(|w| w[1] < w[0])) {
                continue;
            }
            // Numbers that go up by one from row to row count the rows (`sample`, `step`, a
            // headerless counter): read as seconds since midnight they were stored at 00:00:01,
            // 00:00:02, … of the file name's date.
            let steps_of_one = nums.windows(2).filter(|w| w[1] == w[0] + 1).count();
            let whole = refs.iter().all(|v| v.trim_ascii().iter().all(u8::is_ascii_digit));
            if !named && whole && nums.len() >= 3 && steps_of_one * 10 >= (nums.len() - 1) * 9 {
                weak_refusal.get_or_insert(format!(
                    "column `{label}` counts up by one from row to row ({}, {}, {}, …): a row \
                     number, not a time; if it holds seconds since midnight, pass --time-column \
                     {label} --time-unit s (and --date YYYY-MM-DD when the file name holds no date)",
                    nums[0], nums[1], nums[2]
                ));
                continue;
            }
        } else if pass == 1 {
            continue;
        }
        let (date, date_ns, date_note) = if format.is_time_of_day() {
            match date_for_times_of_day(sample, o, &label) {
                Ok(d) => (d.0, d.1, Some(d.2)),
                Err(e) => {
                    if named {
                        refusal.get_or_insert(e.to_string());
                    } else {
                        weak_refusal.get_or_insert(e.to_string());
                    }
                    continue;
                }
            }
        } else {
            (DateSource::None, None, None)
        };
        let time_spec = spec(format.clone());
        let mut parser = TimeParser::new(&time_spec, date_ns);
        // Per sampled record (the stretches of the file are cut by record index), and readable.
        let row_times: Vec<Option<i64>> = refs
            .iter()
            .map(|v| match parser.parse(v) {
                Ok((t, _)) => Some(t),
                Err(e) => e.below_ns_time(),
            })
            .collect();
        let times: Vec<i64> = row_times.iter().flatten().copied().collect();
        // Times of day that fall back by more than half a day in file order cross midnight:
        // dated by one day, the rows after it would sit a day early.
        if let Some((from, to)) = format
            .is_time_of_day()
            .then(|| midnight_crossing(sample, o, idx, &row_times))
            .flatten()
        {
            let iso = crate::io::timefmt::format_iso_exact;
            refusal.get_or_insert(crosses_midnight(&label, &iso(from), &iso(to)));
            continue;
        }
        // A column not named like a time must at least hold plausible times (after 1980, and
        // not more than ten years from now), so that ids and counters are not taken for epoch
        // seconds: Binance's headerless trade ids (4.3e9) read as seconds fall in 2106.
        // Dates written with separators (`1949-01-01`, `1949-01`) look like no id: they need
        // no such bound, and the years of a year column have their name.
        let plausible = crate::import::timeparse::plausible_times();
        let numbers = || {
            !matches!(&format, TimeFormat::Strftime(p) if p == "%Y" || p == "%Y%m")
                && refs.iter().any(|v| is_epoch_number(v))
        };
        if !named && numbers() && times.iter().any(|t| !plausible.contains(t)) {
            continue;
        }
        // Named like a time, epoch numbers read by their size may still count from another
        // epoch: LabVIEW's and classic Mac OS's seconds since 1904 (3.69e9 for 2021) fall in
        // 2087 read from 1970. Seconds decades ahead are refused unless --time-unit says so.
        if let (Some(&late), TimeFormat::Epoch(unit @ EpochUnit::S), None) = (
            times
                .iter()
                .find(|&&t| t > *plausible.end())
                .filter(|_| numbers()),
            &format,
            o.time_unit,
        ) {
            let example = refs
                .iter()
                .find(|v| is_epoch_number(v))
                .map(|v| String::from_utf8_lossy(v));
            refusal.get_or_insert(format!(
                "column `{label}` holds numbers such as `{}` that, read as {} since 1970 (by their \
                 size), fall in {}, decades from now: if they count seconds from 1904 (LabVIEW, \
                 classic Mac OS), subtract 2082844800 from each and import the result; if they are \
                 times since 1970 after all, pass --time-unit to say their unit",
                example.unwrap_or_default(),
                unit_word(*unit),
                crate::io::timefmt::format_iso_exact(late)
                    .get(..4)
                    .unwrap_or_default()
            ));
            continue;
        }
        let precision = text_precision_ns(&refs, &format);
        let (series_idx, series_note) = choose_series(sample, o, idx, &row_times)?;
        // Each row's series, and the times by series: found once, for the granularity here
        // and the depth and the bucket below.
        let series = match series_idx.is_empty() {
            true => Vec::new(),
            false => series_numbers(sample, &series_idx, row_times.len()),
        };
        let groups = series_groups(&series, &row_times);
        let (g, g_note) = match o.granularity {
            Some(g) => (g.ns(), format!("granularity {g} as given")),
            None => infer_granularity(&groups, precision),
        };
        readable.push((idx.clone(), g));
        let Some(granularity) = Granularity::from_ns(g) else {
            continue;
        };
        // The bucket layout stores any granularity; only a grid can be too large.
        let fits = o.layout != Some(Layout::Grid) || choose_period(granularity, 1 + 8, None).is_some();
        if fits {
            let joined_note = (idx.len() > 1 && o.time_columns.is_empty()).then(|| {
                format!(
                    "time from columns `{label}` joined: a date column and a time-of-day column side by side \
                     (pass --time-column to choose)"
                )
            });
            chosen = Some((
                idx.clone(),
                format,
                how,
                (times, row_times),
                granularity,
                g_note,
                (date, date_ns, date_note),
                joined_note,
                (series_idx, series_note, series, groups),
            ));
            break;
        }
    }
    let Some((
        time_idx,
        format,
        how,
        (times, row_times),
        granularity,
        g_note,
        (date, _, date_note),
        joined_note,
        (series_idx, series_note, series, groups),
    )) = chosen
    else {
        if let Some(refusal) = refusal {
            return Err(Error::Invalid(refusal));
        }
        return Err(match readable.first() {
            // A column named like a time whose values no format reads says more than another
            // column's numbers that could be times (IB's `DateTime` of `20210104;093000`
            // beside an `IBCommission` of -1.00).
            None if unreadable.is_some() => {
                let (label, value, good, all) = unreadable.unwrap_or_default();
                let named = if o.time_columns.is_empty() {
                    ", named like a time,"
                } else {
                    ""
                };
                let advice = match (zone_abbreviation_hint(&value), o.time_format.as_deref()) {
                    (hint, _) if !hint.is_empty() => format!("xs cannot place: {hint}"),
                    (_, Some(p)) => format!(
                        "do not read with --time-format '{p}': only {good} of the sample's {all} \
                         values do (half are needed); check the pattern against the values"
                    ),
                    (_, None) if outside_storable_years(&value) => format!(
                        "lie outside the years {} to {}, the times xs can store \
                         (nanoseconds since 1970 in 64 bits); no format reads them: leave those \
                         rows out of the input",
                        crate::db::time::MIN_YEAR,
                        crate::db::time::MAX_YEAR
                    ),
                    (_, None) if good > 0 => format!(
                        "are no valid ISO-8601 times, though {good} of the sample's {all} values \
                         are: too many to reject as bad rows. If the others are times, give their \
                         format as --time-format; the rows it does not read are rejected"
                    ),
                    (_, None) => "read in no format xs knows; give it as --time-format \
                         (a strftime pattern such as '%d.%m.%Y %H:%M:%S')"
                        .to_string(),
                };
                Error::Invalid(format!(
                    "column `{label}`{named} holds times such as `{value}` that {advice}"
                ))
            }
            None if weak_refusal.is_some() => Error::Invalid(weak_refusal.unwrap_or_default()),
            None => Error::Invalid(format!(
                "found no column whose values read as times (columns: {}); name it with \
                 --time-column, and give --time-format or --time-unit if needed",
                names.join(",")
            )),
            Some((idx, g)) => {
                let g = *g;
                let others: Vec<&str> = names
                    .iter()
                    .enumerate()
                    .filter(|(j, n)| !idx.contains(j) && time_name_score(n) > 0)
                    .map(|(_, n)| n.as_str())
                    .collect();
                let hint = if others.is_empty() {
                    String::new()
                } else {
                    format!(" (candidates: {})", others.join(", "))
                };
                Error::Invalid(format!(
                    "the times in column `{}` have a precision of {}: a grid with that step has {} slots \
                     per day, past the safe file size of {} even with day partitions. Choose a coarser \
                     time column with --time-column{hint}, or round the times down onto a coarser grid \
                     with e.g. --granularity 1us --floor-time (rows that then share a time are kept up \
                     to --depth)",
                    names[idx[0]],
                    format_duration(g),
                    NS_PER_DAY / g.max(1),
                    human_bytes(MAX_PARTITION_BYTES)
                ))
            }
        });
    };
    let time_columns: Vec<String> = time_idx.iter().map(|&i| names[i].clone()).collect();
    let time_name = if time_idx.len() == 1 {
        names[time_idx[0]].clone()
    } else {
        dialect::unique_name(names, &time_columns.join("_"))
    };
    let guessed = if o.time_column_from_schema {
        "the file's schema has it"
    } else if !o.time_columns.is_empty() {
        "as given"
    } else {
        "guessed; pass --time-column to choose"
    };
    // The unit a schema gives reaches the formats as if given by --time-unit.
    let how = match o.time_unit_from_schema {
        true => how.replace(UNIT_GIVEN, "the unit the file's schema gives"),
        false => how,
    };
    notes.extend(joined_note);
    notes.push(format!("time column `{time_name}` ({guessed}): {how}"));
    notes.extend(date_note);
    if o.date_ns.is_some() && !format.is_time_of_day() {
        notes.push("--date is not used: the times carry their date".into());
    }
    if o.zone != Zone::Utc {
        notes.push(format!("times without a zone are read in {}", o.zone.describe()));
    }
    notes.extend(series_note);
    notes.push(g_note);

    // Depth: the most rows of one series at one (floored) time in the sample, with headroom.
    let g = granularity.ns();
    let mut floored: Vec<i64> = times.iter().map(|t| t - t.rem_euclid(g)).collect();
    floored.sort_unstable();
    let stretches = series_segments(sample, &series, &row_times, g);
    let mut max_per_time = 0usize;
    for series_times in &groups {
        let mut floored: Vec<i64> = series_times.iter().map(|t| t - t.rem_euclid(g)).collect();
        floored.sort_unstable();
        let mut run = 0usize;
        for (k, t) in floored.iter().enumerate() {
            run = if k > 0 && floored[k - 1] == *t { run + 1 } else { 1 };
            max_per_time = max_per_time.max(run);
        }
    }
    let depth = match o.depth {
        Some(d) => {
            notes.push(format!("depth {d} as given"));
            d
        }
        None => {
            let d = if max_per_time <= 1 {
                1
            } else {
                (max_per_time * 2).next_power_of_two().min(MAX_DEPTH as usize) as u32
            };
            notes.push(format!(
                "depth {d}: at most {max_per_time} row(s) share a timestamp in the sample{}; rows beyond \
                 the depth are rejected, pass --depth to choose",
                if d > 1 { ", doubled for headroom" } else { "" }
            ));
            d
        }
    };

    // Column types.
    let mut types = Vec::with_capacity(o.types.len());
    for (name, ty) in &o.types {
        match sample.column_index(name) {
            Some(i) => types.push((i, *ty)),
            None => {
                return Err(Error::Invalid(format!(
                    "--columns names `{name}`, which is not an input column ({})",
                    names.join(",")
                )))
            }
        }
    }
    let mut columns = Vec::new();
    let mut verdicts = verdicts();
    let mut present: Vec<&[u8]> = Vec::new();
    let mut unnamed = Vec::new();
    let header = sample.header_text.iter().any(|t| !t.is_empty());
    for (i, name) in names.iter().enumerate() {
        if time_idx.contains(&i) {
            continue;
        }
        let given = types.iter().find(|(n, _)| *n == i).map(|(_, t)| *t);
        // A field without a name and without a value in the sample (`a;b;;`: lines that end in
        // delimiters) is no column: imports skip it, and reject a row with a value there.
        if given.is_none()
            && header
            && sample.header_text.get(i).is_some_and(String::is_empty)
            && sample.rows.column(i).all(|v| v.trim_ascii().is_empty())
        {
            unnamed.push(format!("`{name}`"));
            continue;
        }
        let (ty, nulls) = match given {
            Some(t) => (
                t,
                sample
                    .rows
                    .column(i)
                    .filter(|v| is_null_token(o, v))
                    .collect::<Vec<_>>(),
            ),
            None => {
                let Verdict { ty: t, why, nulls } = verdicts
                    .get_mut(i)
                    .and_then(Option::take)
                    .unwrap_or_else(|| column_verdict(sample, o, i, &mut present));
                let t = if matches!(t, ColumnType::Str(_)) && series_idx.contains(&i) {
                    // A series key's text repeats in every row of its series, though a sample
                    // of 30,000 hosts shows each only a few times: a 4-byte code, not str(N).
                    notes.push(format!(
                        "column `{name}`: sym (the series key: each value repeats in every row \
                         of its series; stored once in the database's dictionary)"
                    ));
                    ColumnType::Sym
                } else {
                    if !why.is_empty() {
                        // The hints (`--columns 'NAME:dec(S)'`) name the column, to run as printed.
                        let why = why.replace("NAME:", &format!("{name}:"));
                        notes.push(format!("column `{name}`: {t} ({why})"));
                    }
                    t
                };
                (t, nulls)
            }
        };
        if !ty.is_text() {
            let seen: BTreeSet<&str> = nulls.iter().filter_map(|v| std::str::from_utf8(v).ok()).collect();
            if !seen.is_empty() {
                notes.push(format!(
                    "column `{name}`: {} read as null{}",
                    seen.iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if o.nulls.is_empty() {
                        " (pass --null to add tokens)"
                    } else {
                        ""
                    }
                ));
            }
        }
        columns.push(Column {
            name: name.clone(),
            ty,
        });
    }
    if !unnamed.is_empty() {
        notes.push(format!(
            "{} (unnamed in the header) hold no value in the sample (the lines end in delimiters): \
             not stored; a row with a value there is rejected",
            unnamed.join(", ")
        ));
    }
    if columns.is_empty() {
        return Err(Error::Invalid(format!(
            "{}: no column besides the time (`{}`): xs stores values at times, so the input needs \
             at least one more column; if a column was taken as part of the time, name the time \
             with --time-column",
            sample.source_name,
            time_idx
                .iter()
                .map(|&i| names[i].as_str())
                .collect::<Vec<_>>()
                .join("`+`")
        )));
    }
    let schema = Schema::new(columns).map_err(Error::Invalid)?;
    let row_len = schema.row_len();
    let grid_period = choose_period(granularity, u64::from(depth) * row_len as u64, o.period);
    let mut grid = Config {
        layout: Layout::Grid,
        bucket_ns: 0,
        granularity,
        period: grid_period.unwrap_or(Period::Day),
        depth,
        time_column: time_name,
        schema,
        keys: Default::default(),
        codec: RecordCodec::Raw,
        timezone: o.zone.clone(),
        date_order: day_month_of(&format),
        // The dialect's, set by the import that creates the database.
        decimal_comma: false,
    };
    grid.keys.series = series_idx.iter().map(|&i| names[i].clone()).collect();
    let (unique, unique_note) = choose_unique(sample, o, &grid, &time_idx, &series_idx, &row_times)?;
    grid.keys.unique = unique;
    notes.extend(unique_note);
    grid.check_keys().map_err(Error::Invalid)?;
    // The footprint estimates look at one series' rows; with several they are not made (a
    // per-ticker file under a series key is one series).
    let one_series = series_idx.is_empty() || {
        let mut rows = sample.rows.iter();
        let first = rows.next();
        rows.all(|r| {
            series_idx
                .iter()
                .all(|&i| Some(r.get(i)) == first.as_ref().map(|f| f.get(i)))
        })
    };
    let grid_footprint = grid_period
        .filter(|_| one_series)
        .and_then(|_| estimate_footprint(&grid, &floored, sample));
    let layout = match o.layout {
        Some(layout) => {
            notes.push(format!("layout {} as given", layout.name()));
            layout
        }
        None => match (&grid_footprint, grid_period) {
            (_, None) => {
                notes.push(format!(
                    "layout bucket: a grid at {granularity} granularity would pass the safe file size of {}",
                    human_bytes(MAX_PARTITION_BYTES)
                ));
                Layout::Bucket
            }
            (f, Some(_)) if floored.len() >= MIN_ROWS_TO_JUDGE && slot_density(&stretches, g) < 0.5 => {
                let size = f
                    .as_ref()
                    .map(|f| format!("; a grid would take about {:.1}× the input on disk", f.ratio()))
                    .unwrap_or_default();
                notes.push(format!(
                    "layout bucket: the sample's times are irregular, {:.1}% of the {granularity} steps they \
                     span hold a row{}{size}, buckets store each row with its exact time instead. Pass \
                     --layout grid to choose the grid",
                    100.0 * slot_density(&stretches, g),
                    if one_series { "" } else { " of its series" }
                ));
                Layout::Bucket
            }
            // A regular series: the grid stores each row raw in its slot, columnar buckets
            // compress each column (sensor readings to a few bytes a row), so they win unless
            // raw storage or grid slots were asked for.
            (f, Some(_)) if o.codec != Some(RecordCodec::Raw) && o.depth.is_none() => {
                let size = f
                    .as_ref()
                    .map(|f| format!(" (about {:.2}× the input here)", f.ratio()))
                    .unwrap_or_default();
                notes.push(format!(
                    "layout bucket, codec columnar: the times are regular, but a grid keeps every row \
                     raw{size}; columnar buckets compress each column on its own, usually to a small \
                     fraction of that. Pass --layout grid for raw slots read in place"
                ));
                Layout::Bucket
            }
            _ => Layout::Grid,
        },
    };
    let codec = o.codec.unwrap_or(RecordCodec::Columnar);
    if o.codec.is_some() {
        codec
            .check_layout(layout)
            .map_err(|e| Error::Invalid(format!("--codec: {e}; drop --layout grid or --depth")))?;
    }
    if layout == Layout::Grid {
        let period = grid_period.ok_or_else(|| {
            Error::Invalid(format!(
                "rows of {row_len} bytes × depth {depth} at {granularity} granularity make even a day \
                 partition larger than {}; use a coarser --granularity or a smaller --depth, or --layout bucket",
                human_bytes(MAX_PARTITION_BYTES)
            ))
        })?;
        if period != Period::Year && o.period.is_none() {
            notes.push(format!(
                "{period} partitions: a year file would pass the safe size of {}",
                human_bytes(MAX_PARTITION_BYTES)
            ));
        }
        grid.period = period;
        return Ok(Inference {
            config: grid,
            time_format: format,
            time_columns,
            date,
            notes,
            footprint: grid_footprint,
        });
    }
    // Bucket: depth does not apply; the width follows the sample's data rate.
    notes.retain(|n| !n.starts_with("depth ") || n.ends_with("as given"));
    for note in notes.iter_mut().filter(|n| n.starts_with("depth ")) {
        note.push_str(", but unused: the bucket layout holds any number of rows per timestamp");
    }
    let bucket_ns = match o.bucket_ns {
        Some(ns) => {
            crate::db::config::check_bucket_width(ns, granularity.ns()).map_err(Error::Invalid)?;
            notes.push(format!("bucket {} as given", format_duration(ns)));
            ns
        }
        None if codec == RecordCodec::Columnar => {
            // Rows counted as 2 bytes each (a row length of 0 and the time offset).
            let ns = choose_bucket(&stretches, 0, granularity.ns(), COLUMNAR_BUCKET_ROWS * 2.0);
            notes.push(format!(
                "bucket {}: about {} rows per bucket at the sample's rate (columns compress better in \
                 larger buckets; a point read decodes one); pass --bucket to choose",
                format_duration(ns),
                (bucket_bytes(&stretches, 0, g, ns) / 2).max(1)
            ));
            ns
        }
        None => {
            let ns = choose_bucket(&stretches, row_len, granularity.ns(), RAW_BUCKET_BYTES);
            notes.push(format!(
                "bucket {}: about {} KiB of rows per bucket at the sample's rate (a point read reads one \
                 bucket); pass --bucket to choose",
                format_duration(ns),
                bucket_bytes(&stretches, row_len, g, ns).div_ceil(1024).max(1)
            ));
            ns
        }
    };
    if o.codec.is_some() {
        notes.push(format!("codec {} as given", codec.name()));
    } else if notes.iter().all(|n| !n.contains("codec columnar")) {
        notes.push(
            "codec columnar: each column of a bucket's rows is compressed on its own; pass --codec raw \
             for the fastest point reads"
                .into(),
        );
    }
    let mut config = Config {
        layout: Layout::Bucket,
        bucket_ns,
        codec,
        depth: 1,
        period: o.period.unwrap_or(Period::Year),
        ..grid
    };
    if config
        .max_partition_bytes(config.period)
        .is_none_or(|b| b > MAX_PARTITION_BYTES)
    {
        config.period = Period::Day;
    }
    // The estimate counts raw rows: a columnar database's size shows only once encoded.
    let footprint = if one_series && codec == RecordCodec::Raw {
        estimate_bucket_footprint(&config, &floored, sample)
    } else {
        None
    };
    Ok(Inference {
        config,
        time_format: format,
        time_columns,
        date,
        notes,
        footprint,
    })
}

/// Share of the granularity steps between the first and last sorted time that hold a row:
/// about 1 for a regular series, the grid's fill for sparse ones.
/// Over a sample of several stretches of the file, the steps inside each stretch count.
fn slot_density(segments: &[Vec<i64>], g: i64) -> f64 {
    let (mut steps, mut distinct) = (0.0, 0usize);
    for sorted_times in segments {
        let (Some(&first), Some(&last)) = (sorted_times.first(), sorted_times.last()) else {
            continue;
        };
        steps += ((last - first) / g.max(1)) as f64 + 1.0;
        distinct += 1 + sorted_times.windows(2).filter(|w| w[0] != w[1]).count();
    }
    if steps == 0.0 {
        return 1.0;
    }
    distinct as f64 / steps
}

/// The sample's times cut into the stretches of the file they were read from (the head, and
/// each window of a sample across the file) and, with a series key, into series (`series`:
/// each row's, from `series_numbers`; empty without a key); each floored to `g` and sorted.
fn series_segments(sample: &Sample, series: &[u32], row_times: &[Option<i64>], g: i64) -> Vec<Vec<i64>> {
    let mut bounds = sample.segment_starts.clone();
    if bounds.first() != Some(&0) {
        bounds.insert(0, 0);
    }
    bounds.push(row_times.len());
    let mut out = Vec::new();
    for w in bounds.windows(2) {
        let (from, to) = (w[0].min(row_times.len()), w[1].min(row_times.len()));
        if series.is_empty() {
            // One series: no key to hash per row.
            let mut t: Vec<i64> = row_times[from.min(to)..to]
                .iter()
                .flatten()
                .map(|t| t - t.rem_euclid(g))
                .collect();
            if !t.is_empty() {
                t.sort_unstable();
                out.push(t);
            }
            continue;
        }
        let mut by_series: HashMap<u32, Vec<i64>> = HashMap::new();
        for (r, t) in row_times.iter().enumerate().take(to).skip(from) {
            let Some(t) = t else { continue };
            by_series.entry(series[r]).or_default().push(t - t.rem_euclid(g));
        }
        for (_, mut t) in by_series {
            t.sort_unstable();
            out.push(t);
        }
    }
    out.sort();
    out
}

/// Each sample row's series (rows `0..rows`) as a number, in order of first appearance: rows
/// of one series share it. One pass of a fast hash over borrowed values (with a one-column
/// key, the usual one, without an allocation per row).
fn series_numbers(sample: &Sample, series_idx: &[usize], rows: usize) -> Vec<u32> {
    let value = |r: usize, i: usize| sample.rows.get(r).and_then(|rec| rec.get(i)).unwrap_or(&b""[..]);
    let mut numbers = Vec::with_capacity(rows);
    if series_idx.is_empty() {
        numbers.resize(rows, 0);
    } else if let [only] = series_idx {
        let mut index: HashMap<&[u8], u32, FnvBuild> = HashMap::default();
        for r in 0..rows {
            let next = index.len() as u32;
            numbers.push(*index.entry(value(r, *only)).or_insert(next));
        }
    } else {
        let mut index: HashMap<Vec<&[u8]>, u32, FnvBuild> = HashMap::default();
        for r in 0..rows {
            let next = index.len() as u32;
            numbers.push(*index.entry(series_value(sample, series_idx, r)).or_insert(next));
        }
    }
    numbers
}

/// The series key's values of sample row `r` (empty without a key).
fn series_value<'a>(sample: &'a Sample, series_idx: &[usize], r: usize) -> Vec<&'a [u8]> {
    series_idx
        .iter()
        .map(|&i| sample.rows.get(r).and_then(|rec| rec.get(i)).unwrap_or(&b""[..]))
        .collect()
}

/// The sample's times by series (`series`: each row's, from `series_numbers`; empty without a
/// key, one group), in sample order.
fn series_groups(series: &[u32], row_times: &[Option<i64>]) -> Vec<Vec<i64>> {
    if series.is_empty() {
        // One series: no key to hash per row.
        return vec![row_times.iter().flatten().copied().collect()];
    }
    // A series' group is made at its first row with a time, in that order.
    let mut groups: Vec<Vec<i64>> = Vec::new();
    let mut group_of: Vec<Option<usize>> = Vec::new();
    for (r, t) in row_times.iter().enumerate() {
        let Some(t) = t else { continue };
        let n = series[r] as usize;
        if group_of.len() <= n {
            group_of.resize(n + 1, None);
        }
        let g = *group_of[n].get_or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(*t);
    }
    groups
}

/// Years (`Year` = `1880`), which their magnitude reads as seconds since midnight, and months
/// written as one number (`month` = `202101`, which reads as a clock time, 20:21:01): the
/// format that reads them as such, when the column is named so, no format or unit is given,
/// and every value has the shape; `Err` when the columns after a year hold the rest of the
/// date.
fn periods(
    names: &[String],
    idx: &[usize],
    refs: &[&[u8]],
    o: &Overrides,
    pattern: Option<&str>,
) -> Option<std::result::Result<(TimeFormat, String), String>> {
    let ([only], None, None) = (idx, o.time_unit, pattern) else {
        return None;
    };
    let all = |shape: &dyn Fn(&[u8]) -> bool| {
        let mut values = refs
            .iter()
            .filter(|v| !v.is_empty() && !dialect::is_default_null(v));
        values.clone().next().is_some() && values.all(|v| shape(v))
    };
    let name = names[*only].trim().to_lowercase();
    // Annual series also write the year where the date goes (Eurostat's `TIME_PERIOD`).
    const YEARS: [&str; 10] = [
        "year",
        "yr",
        "yyyy",
        "jahr",
        "annee",
        "année",
        "anno",
        "date",
        "period",
        "time_period",
    ];
    // `date` too: `201901` where a date belongs is a month, not the clock time 20:19:01.
    const MONTHS: [&str; 8] = [
        "month",
        "yyyymm",
        "yearmonth",
        "year_month",
        "ym",
        "period",
        "date",
        "time_period",
    ];
    // Storable years only: `1230` in a `date` column beside `time` is more likely a day of
    // the year written MMDD than the year 1230.
    let year = |v: &[u8]| {
        v.len() == 4
            && v.iter().all(u8::is_ascii_digit)
            && (crate::db::time::MIN_YEAR..=crate::db::time::MAX_YEAR).contains(&(epoch_magnitude(v) as i64))
    };
    if YEARS.contains(&name.as_str()) && all(&year) {
        if let Some(refused) = parts_of_date_beside(names, *only) {
            return Some(Err(refused));
        }
        return Some(Ok((
            TimeFormat::Strftime("%Y".into()),
            "years, each stored at its January 1st (--time-format '%Y')".into(),
        )));
    }
    let year_month = |v: &[u8]| {
        v.len() == 6
            && v.iter().all(u8::is_ascii_digit)
            && (1800..=2200).contains(&epoch_magnitude(&v[..4]))
            && (1..=12).contains(&epoch_magnitude(&v[4..]))
    };
    if MONTHS.contains(&name.as_str()) && all(&year_month) {
        return Some(Ok((
            TimeFormat::Strftime("%Y%m".into()),
            "months written YYYYMM, each stored at its first day (--time-format '%Y%m')".into(),
        )));
    }
    None
}

/// When the columns beside a year column `year` hold the rest of its date (`Year,Month,Day`),
/// the refusal that names the flags joining them; alone, the year is the time.
fn parts_of_date_beside(names: &[String], year: usize) -> Option<String> {
    let named = |i: usize, words: &[&str]| {
        names
            .get(i)
            .is_some_and(|n| words.contains(&n.trim().to_lowercase().as_str()))
    };
    const MONTH: [&str; 4] = ["month", "mon", "mo", "mm"];
    const DAY: [&str; 3] = ["day", "dd", "dom"];
    const DAY_OF_YEAR: [&str; 4] = ["doy", "day_of_year", "dayofyear", "yday"];
    const WEEK: [&str; 8] = [
        "week",
        "wk",
        "week_no",
        "weekno",
        "week_number",
        "weeknumber",
        "kw",
        "woche",
    ];
    const PARTS_OF_YEAR: [&str; 6] = ["quarter", "qtr", "q", "half", "semester", "half_year"];
    if named(year + 1, &PARTS_OF_YEAR) {
        // No pattern reads `2021 3` as a quarter: said, not stored at January 1st.
        let part = &names[year + 1];
        return Some(format!(
            "it holds years, and `{part}` numbers the parts of each year: taken alone, the years \
             would put every row of a year at its January 1st. Write each row's period as a date \
             (or as `2021Q3` for quarters, which --time-format quarter reads) and import that, or \
             pass --time-column {} to store the rows of a year at its January 1st",
            names[year]
        ));
    }
    let (parts, pattern) = if named(year + 1, &WEEK) {
        (1, "%G %V")
    } else if named(year + 1, &MONTH) && named(year + 2, &DAY) {
        (2, "%Y %m %d")
    } else if named(year + 1, &MONTH) {
        (1, "%Y %m")
    } else if named(year + 1, &DAY_OF_YEAR) {
        (1, "%Y %j")
    } else {
        return None;
    };
    let rest = &names[year + 1..=year + parts];
    Some(format!(
        "it holds years, and the date goes on in {}: pass --time-column {},{} --time-format \
         '{pattern}' to join them",
        rest.iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(" and "),
        names[year],
        rest.join(",")
    ))
}

/// Whether a column name says it counts rows or names them (`id`, `order_id`, `index`, `seq`):
/// such a column is never a time of day, however its numbers look.
fn is_id_name(lower: &str) -> bool {
    const IDS: [&str; 14] = [
        "id", "index", "idx", "seq", "sequence", "no", "nr", "n", "#", "row", "num", "number", "count", "key",
    ];
    IDS.contains(&lower)
        || lower.ends_with("_id")
        || lower.ends_with(" id")
        || lower.starts_with("id_")
        || (lower.ends_with("id") && lower.len() > 2 && !lower.ends_with("mid"))
}

/// Names that say a column tells series apart.
const SERIES_NAMES: [&str; 40] = [
    "symbol",
    "symbols",
    "name",
    "stock",
    "coin",
    "security",
    "contract",
    "product",
    "machine",
    "server",
    "site",
    "city",
    "sym",
    "ticker",
    "instrument",
    "asset",
    "pair",
    "market",
    "host",
    "hostname",
    "device",
    "sensor",
    "station",
    "node",
    "series",
    // Instrument identifiers: per-instrument files name them so.
    "isin",
    "cusip",
    "sedol",
    "figi",
    "ric",
    "code",
    "ts_code",
    "currency",
    "ccy",
    // Places and meters, one file each.
    "country",
    "region",
    "location",
    "meter",
    "tag",
    "well",
];

/// The series key: as given, else a text column whose values repeat across timestamps while
/// rows that share a timestamp mostly differ in it (hosts, symbols). Returns its columns (in
/// the sample) and a note.
fn choose_series(
    sample: &Sample,
    o: &Overrides,
    time_idx: &[usize],
    row_times: &[Option<i64>],
) -> Result<(Vec<usize>, Option<String>)> {
    if let Some(given) = &o.series {
        let mut idx = Vec::new();
        for name in given {
            let i = sample.column_index(name).ok_or_else(|| {
                Error::Invalid(format!(
                    "--series-by names `{name}`, which is not an input column ({})",
                    sample.names.join(",")
                ))
            })?;
            if time_idx.contains(&i) {
                return Err(Error::Invalid(format!(
                    "--series-by names `{name}`, the time column; name the columns that tell series apart"
                )));
            }
            idx.push(i);
        }
        let note = (!idx.is_empty()).then(|| format!("series key `{}` as given", given.join(",")));
        return Ok((idx, note));
    }
    // Rows that share their timestamp with another row.
    // (Sorted by time, then row: one sort instead of a map of vectors, 60,000 allocations.)
    let mut by_time: Vec<(i64, usize)> = row_times
        .iter()
        .enumerate()
        .filter_map(|(r, t)| t.map(|t| (t, r)))
        .collect();
    by_time.sort_unstable();
    let rows_of: Vec<usize> = by_time.iter().map(|&(_, r)| r).collect();
    let mut shared: Vec<&[usize]> = Vec::new();
    let mut k = 0;
    while k < by_time.len() {
        let end = k + by_time[k..].iter().take_while(|e| e.0 == by_time[k].0).count();
        if end - k > 1 {
            shared.push(&rows_of[k..end]);
        }
        k = end;
    }
    let shared_rows: usize = shared.iter().map(|rows| rows.len()).sum();
    let rows = row_times.iter().flatten().count();
    if rows < MIN_ROWS_TO_JUDGE {
        return Ok(named_series(sample, time_idx));
    }
    // Rows that share timestamps are the evidence for a column not named like a series; a
    // column named like one (`symbol`) needs only values that come back over time.
    let shared_evidence = shared_rows * 10 >= rows;
    let mut best: Option<(f64, f64, usize, usize)> = None; // score, share, column, distinct values

    // Per column, reused: each row's value as a number (rows without a time have none), and
    // each value's first time and whether it comes again at another time. Numbers, not the
    // values, are compared and sorted below (30,000 hosts' names would be compared byte by byte).
    let mut ids: Vec<u32> = Vec::with_capacity(row_times.len());
    let mut seen: Vec<(i64, bool)> = Vec::new();
    let mut id_of: HashMap<&[u8], u32, FnvBuild> = HashMap::default();
    let mut group_ids: Vec<u32> = Vec::new();
    for i in 0..sample.names.len() {
        if time_idx.contains(&i) {
            continue;
        }
        let values: Vec<&[u8]> = sample.rows.iter().map(|r| r.get(i).unwrap_or(&b""[..])).collect();
        if !series_text(&values) {
            continue;
        }
        ids.clear();
        seen.clear();
        id_of.clear();
        for (r, t) in row_times.iter().enumerate() {
            let Some(t) = *t else {
                ids.push(u32::MAX);
                continue;
            };
            let next = seen.len() as u32;
            let id = *id_of.entry(values[r]).or_insert(next);
            if id == next {
                seen.push((t, false));
            } else {
                let (first, again) = &mut seen[id as usize];
                *again |= *first != t;
            }
            ids.push(id);
        }
        let distinct = seen.len();
        let recurring = seen.iter().filter(|(_, again)| *again).count();
        let named = SERIES_NAMES.contains(&sample.names[i].to_ascii_lowercase().as_str());
        // Series values come back over time; a value per row (an id) does not.
        if distinct < 2 || (distinct < 3 && !named) || recurring * 10 < distinct {
            continue;
        }
        if !shared_evidence {
            if named && best.is_none() {
                best = Some((1.0, 0.0, i, distinct));
            }
            continue;
        }
        // The share of shared timestamps whose rows differ in this column, and the share of
        // their rows that it tells apart (a host: all of them; a region: few).
        let (mut apart, mut unique_rows) = (0usize, 0usize);
        for rows in &shared {
            apart += usize::from(rows.iter().any(|&r| ids[r] != ids[rows[0]]));
            group_ids.clear();
            group_ids.extend(rows.iter().map(|&r| ids[r]));
            group_ids.sort_unstable();
            let vals = &group_ids;
            unique_rows += (0..vals.len())
                .filter(|&k| (k == 0 || vals[k - 1] != vals[k]) && vals.get(k + 1) != Some(&vals[k]))
                .count();
        }
        let share = apart as f64 / shared.len() as f64;
        let told_apart = unique_rows as f64 / shared_rows as f64;
        // A column named like a series wins over one that only behaves like it.
        let score = share + told_apart + if named { 1.0 } else { 0.0 };
        if share >= 0.5 && best.is_none_or(|(b, ..)| score > b) {
            best = Some((score, share, i, distinct));
        }
    }
    Ok(match best {
        Some((_, _, i, distinct)) if !shared_evidence => (
            vec![i],
            Some(format!(
                "series key `{}` (guessed): a column named like one, with {distinct} values in the \
                 sample that come back over time; each series is stored apart (pass --series-by to \
                 choose, --series-by none for one series)",
                sample.names[i]
            )),
        ),
        Some((_, share, i, distinct)) => {
            let mut key = vec![i];
            key.extend(second_series_column(sample, time_idx, &shared, i));
            let names: Vec<&str> = key.iter().map(|&k| sample.names[k].as_str()).collect();
            let pair = match key.len() {
                1 => String::new(),
                _ => format!(
                    "; with `{}`, as each `{}` holds several rows at one time that `{}` tells apart \
                     (one series per pair)",
                    names[1], names[0], names[1]
                ),
            };
            (
                key,
                Some(format!(
                    "series key `{}` (guessed): {distinct} values in the sample, repeated over time, \
                     and {:.0}% of the timestamps that several rows share have several of them{pair}; \
                     each series is stored apart (pass --series-by to choose, --series-by none for \
                     one series)",
                    names.join(","),
                    100.0 * share
                )),
            )
        }
        None => named_series(sample, time_idx),
    })
}

/// A second column of a guessed series key: where the rows of one value of column `first`
/// still share their timestamps, the text column that tells them all apart (a long-format
/// metrics table, `timestamp,instance,metric,value`: each instance has a row per metric at
/// each time, and a later file of another metric replaced them). Only when it does so at
/// nearly every such timestamp: a trades feed's `side` tells a burst of one order's trades
/// (one side) apart at few.
fn second_series_column(
    sample: &Sample,
    time_idx: &[usize],
    shared: &[&[usize]],
    first: usize,
) -> Option<usize> {
    let column =
        |i: usize| -> Vec<&[u8]> { sample.rows.iter().map(|r| r.get(i).unwrap_or(&b""[..])).collect() };
    // The `first` values as numbers: rows are grouped by them below, not by comparing text.
    let mut id_of: HashMap<&[u8], u32, FnvBuild> = HashMap::default();
    let firsts: Vec<u32> = column(first)
        .into_iter()
        .map(|v| {
            let next = id_of.len() as u32;
            *id_of.entry(v).or_insert(next)
        })
        .collect();
    // The rows of each shared timestamp that also share their `first` value.
    let mut still: Vec<Vec<usize>> = Vec::new();
    for rows in shared {
        let mut rows: Vec<usize> = rows.to_vec();
        rows.sort_by_key(|&r| firsts[r]);
        for run in rows.chunk_by(|&a, &b| firsts[a] == firsts[b]) {
            if run.len() > 1 {
                still.push(run.to_vec());
            }
        }
    }
    if still.len() * 2 < shared.len() {
        return None;
    }
    // Names that come back over time, as the first column's do: not an id per row (a trade
    // id tells every row apart, and would make a series of each).
    let recurs = |j: usize| {
        let values = column(j);
        let mut distinct: Vec<&[u8]> = values.iter().copied().filter(|v| !v.is_empty()).collect();
        let present = distinct.len();
        distinct.sort_unstable();
        distinct.dedup();
        distinct.len() >= 2 && distinct.len() * 4 <= present
    };
    (0..sample.names.len())
        .filter(|&j| j != first && !time_idx.contains(&j))
        .filter(|&j| !is_id_name(&sample.names[j].to_ascii_lowercase()))
        .filter(|&j| series_text(&column(j)) && recurs(j))
        .find(|&j| {
            let values = column(j);
            let told_apart = still
                .iter()
                .filter(|rows| {
                    let mut vals: Vec<&[u8]> = rows.iter().map(|&r| values[r]).collect();
                    vals.sort_unstable();
                    vals.windows(2).all(|w| w[0] != w[1])
                })
                .count();
            told_apart * 10 >= still.len() * 9
        })
}

/// Whether a column's values could tell series apart: text, not numbers (ids and prices are
/// not series), none longer than 64 bytes. Empty values do not count.
fn series_text(values: &[&[u8]]) -> bool {
    let texts = values.iter().filter(|v| !v.is_empty()).count();
    if texts == 0 || values.iter().any(|v| v.len() > 64) {
        return false;
    }
    let is_number = |v: &[u8]| {
        // Codes written with leading zeros (`0001`) are names, not numbers.
        let code = v.len() >= 2 && v[0] == b'0' && v[1].is_ascii_digit();
        // The plain-decimal test first: it settles most numbers without parsing; then names,
        // which a glance at their first character settles.
        !code
            && (is_plain_decimal(v)
                || (!starts_like_a_name(v)
                    && std::str::from_utf8(v).is_ok_and(|s| s.trim().parse::<f64>().is_ok())))
    };
    // Decided as soon as numbers are more than half: a column of numbers stops halfway.
    let mut numbers = 0usize;
    for v in values {
        numbers += usize::from(is_number(v));
        if numbers * 2 > texts {
            return false;
        }
    }
    true
}

/// Whether `v` cannot read as a float (`f64`'s `from_str` after `str::trim`), by its first
/// character after spaces and a sign: a printable ASCII one that starts no number, `inf` or
/// `nan` (`host_0`, `AAPL`). Others, and what is not ASCII, are left to the parse.
fn starts_like_a_name(v: &[u8]) -> bool {
    let t = v.trim_ascii_start();
    let t = t.strip_prefix(b"+").or_else(|| t.strip_prefix(b"-")).unwrap_or(t);
    t.first().is_some_and(|&c| {
        (0x21..=0x7e).contains(&c) && !c.is_ascii_digit() && !matches!(c, b'.' | b'i' | b'I' | b'n' | b'N')
    })
}

/// A text column named like a series key (`symbol`, `ticker`, `host` …) is one even where the
/// sample cannot show it: a per-ticker file holds one symbol, and a database made from it
/// without a series key would let the next ticker's file replace its rows. A unique key found
/// beside it does not keep them apart: per-ticker files number their rows each from 1 (a later
/// ticker's `id` 1 at the same time replaced the first ticker's).
fn named_series(sample: &Sample, time_idx: &[usize]) -> (Vec<usize>, Option<String>) {
    let found = (0..sample.names.len()).find(|&i| {
        if time_idx.contains(&i) || !SERIES_NAMES.contains(&sample.names[i].to_ascii_lowercase().as_str()) {
            return false;
        }
        let values: Vec<&[u8]> = sample.rows.iter().map(|r| r.get(i).unwrap_or(&b""[..])).collect();
        let mut distinct: Vec<&[u8]> = values.iter().copied().filter(|v| !v.is_empty()).collect();
        let present = distinct.len();
        distinct.sort_unstable();
        distinct.dedup();
        // Values that come back (or one value): not a name per row.
        series_text(&values) && (distinct.len() == 1 || distinct.len() * 2 <= present)
    });
    match found {
        Some(i) => (
            vec![i],
            Some(format!(
                "series key `{}` (guessed): a text column named like one; each series is stored \
                 apart, so a later file of other `{}` values keeps these rows (pass --series-by to \
                 choose, --series-by none for one series)",
                sample.names[i], sample.names[i]
            )),
        ),
        _ => (Vec::new(), None),
    }
}

/// The unique key: as given, else an integer column named like an id whose values are all
/// distinct within each series in the sample (`trade_id`, `update_id`).
fn choose_unique(
    sample: &Sample,
    o: &Overrides,
    config: &Config,
    time_idx: &[usize],
    series_idx: &[usize],
    row_times: &[Option<i64>],
) -> Result<(Vec<String>, Option<String>)> {
    if let Some(given) = &o.unique {
        for name in given {
            if sample.column_index(name).is_none() {
                return Err(Error::Invalid(format!(
                    "--unique-by names `{name}`, which is not an input column ({})",
                    sample.names.join(",")
                )));
            }
        }
        let note = (!given.is_empty()).then(|| format!("unique key `{}` as given", given.join(",")));
        return Ok((given.clone(), note));
    }
    let integer = |i: usize| {
        config
            .schema
            .column_index(&sample.names[i])
            .map(|c| config.schema.columns()[c].ty)
            .is_some_and(|ty| {
                matches!(
                    ty,
                    ColumnType::I64 | ColumnType::U64 | ColumnType::I32 | ColumnType::U32
                )
            })
    };
    Ok(
        match unique_column(sample, time_idx, series_idx, row_times, &integer) {
            Some(i) => {
                let name = &sample.names[i];
                (
                    vec![name.clone()],
                    Some(format!(
                        "unique key `{name}` (guessed): an integer id, distinct in every sampled row; a row \
                     whose id is stored replaces it, so re-imports and overlapping files never double \
                     or lose rows (pass --unique-by to choose, --unique-by none for no key)"
                    )),
                )
            }
            None => (Vec::new(), None),
        },
    )
}

/// The first column named like an id (`id`, `…_id`, `…Id`, `seq`) that `integer` says holds
/// integers and whose values are all distinct within each series over at least
/// `MIN_ROWS_TO_JUDGE` sampled rows with a time.
fn unique_column(
    sample: &Sample,
    time_idx: &[usize],
    series_idx: &[usize],
    row_times: &[Option<i64>],
    integer: &dyn Fn(usize) -> bool,
) -> Option<usize> {
    let id_like = |name: &str| {
        let n = name.to_ascii_lowercase();
        n == "id"
            || n.ends_with("_id")
            || n.ends_with("id") && name.ends_with("Id")
            || n == "seq"
            || n == "sequence"
    };
    let mut series: Option<Vec<u32>> = None;
    for (i, name) in sample.names.iter().enumerate() {
        if time_idx.contains(&i) || series_idx.contains(&i) || !id_like(name) || !integer(i) {
            continue;
        }
        // Distinct ids within each series. Ids that rise in each series, as feeds number
        // them, are: `rising` holds while every id is at most 18 digits and above the last
        // id of its series (`last_id`). Else the (series, id) pairs are sorted and compared
        // with their neighbours (a tree of 60,000 entries cost more than the rest of the
        // inference).
        let series = series.get_or_insert_with(|| series_numbers(sample, series_idx, row_times.len()));
        let mut keys: Vec<(u32, &[u8])> = Vec::new();
        let mut unique = true;
        let mut last_id: Vec<Option<u64>> = Vec::new();
        let mut rising = true;
        for (r, t) in row_times.iter().enumerate() {
            if t.is_none() {
                continue;
            }
            let Some(v) = sample
                .rows
                .get(r)
                .and_then(|rec| rec.get(i))
                .filter(|v| !v.is_empty())
            else {
                unique = false;
                break;
            };
            keys.push((series[r], v));
            if rising {
                let n = series[r] as usize;
                if last_id.len() <= n {
                    last_id.resize(n + 1, None);
                }
                let id = (v.len() <= 18 && v.iter().all(u8::is_ascii_digit))
                    .then(|| v.iter().fold(0u64, |a, d| a * 10 + u64::from(d - b'0')));
                rising = id.is_some() && (last_id[n].is_none() || id > last_id[n]);
                last_id[n] = id;
            }
        }
        if unique && !rising {
            keys.sort_unstable();
            unique = keys.windows(2).all(|w| w[0] != w[1]);
        }
        if unique && keys.len() >= MIN_ROWS_TO_JUDGE {
            return Some(i);
        }
    }
    None
}

/// Sample rows needed before irregular times choose the bucket layout: a handful of rows
/// always looks sparse.
const MIN_ROWS_TO_JUDGE: usize = 64;

/// Bucket widths considered by the inference: round values that divide one day.
const NICE_BUCKETS_NS: [i64; 22] = [
    1_000_000,
    10_000_000,
    100_000_000,
    200_000_000,
    500_000_000,
    NS_PER_SEC,
    2 * NS_PER_SEC,
    5 * NS_PER_SEC,
    10 * NS_PER_SEC,
    15 * NS_PER_SEC,
    30 * NS_PER_SEC,
    60 * NS_PER_SEC,
    120 * NS_PER_SEC,
    300 * NS_PER_SEC,
    600 * NS_PER_SEC,
    900 * NS_PER_SEC,
    1800 * NS_PER_SEC,
    3600 * NS_PER_SEC,
    7200 * NS_PER_SEC,
    6 * 3600 * NS_PER_SEC,
    12 * 3600 * NS_PER_SEC,
    NS_PER_DAY,
];

/// Bytes of rows (time offset included) per bucket of `bucket_ns` at the sample's rate. A
/// stretch spans its times and one granularity step `g` more: the rows of its last time take
/// a step too, and a stretch of one time (a series seen once in a window of the sample, as each
/// of 30,000 hosts is) says one row per step, not one row per nanosecond.
fn bucket_bytes(segments: &[Vec<i64>], row_len: usize, g: i64, bucket_ns: i64) -> u64 {
    let (mut rows, mut span_ns) = (0usize, 0i64);
    for sorted_times in segments {
        if let (Some(&first), Some(&last)) = (sorted_times.first(), sorted_times.last()) {
            rows += sorted_times.len();
            // Times from 1678 to 2261 span more than i64 nanoseconds hold: saturated.
            span_ns = span_ns
                .saturating_add(last.saturating_sub(first))
                .saturating_add(g.max(1));
        }
    }
    if rows == 0 {
        return 0;
    }
    let per_ns = rows as f64 * (row_len + 2) as f64 / span_ns.max(1) as f64;
    (per_ns * bucket_ns as f64) as u64
}

/// Bytes of raw rows per bucket `choose_bucket` aims at: a point read reads one bucket.
const RAW_BUCKET_BYTES: f64 = 2048.0;
/// Rows per columnar bucket `choose_bucket` aims at: pco and zstd need a few thousand values
/// to compress well (trades: 0.10 of the CSV at ~1,200 rows a bucket, 0.16 at ~100), and a
/// point read decodes the whole bucket.
const COLUMNAR_BUCKET_ROWS: f64 = 2048.0;

/// The bucket width nearest (on a log scale) to `target_bytes` of rows (of `row_len` bytes and
/// a 2-byte time offset) per bucket, a multiple of the granularity; the granularity itself
/// when no round width fits.
fn choose_bucket(segments: &[Vec<i64>], row_len: usize, granularity_ns: i64, target_bytes: f64) -> i64 {
    let per_bucket = |ns: i64| bucket_bytes(segments, row_len, granularity_ns, ns).max(1) as f64;
    NICE_BUCKETS_NS
        .iter()
        .copied()
        .filter(|&ns| crate::db::config::check_bucket_width(ns, granularity_ns).is_ok())
        .min_by(|&a, &b| {
            let da = (per_bucket(a) / target_bytes).ln().abs();
            let db = (per_bucket(b) / target_bytes).ln().abs();
            da.total_cmp(&db)
        })
        .unwrap_or(granularity_ns)
}

/// Bytes the bucket layout would take for the sample, scaled to the input: rows with their
/// time offsets, a record byte per bucket, and the directory blocks the buckets touch.
fn estimate_bucket_footprint(config: &Config, sorted_times: &[i64], sample: &Sample) -> Option<Footprint> {
    if sorted_times.is_empty() || sample.bytes == 0 {
        return None;
    }
    let row_len = config.schema.row_len() as u64;
    let units = config.units_per_bucket();
    let width = crate::db::bucket::offset_width(units - 1) as u64;
    let entry_len = crate::db::summary::SummaryLayout::new(&config.schema).entry_len() as u64;
    let mut buckets = BTreeSet::new();
    let mut dir_blocks = BTreeSet::new();
    let mut last = None;
    for &t in sorted_times {
        let key = PartitionKey::of(config.period, t);
        let b = ((t - key.start_ns()) / config.bucket_ns) as u64;
        // Sorted times mostly repeat the last bucket: no set lookups for those.
        if last == Some((key, b)) {
            continue;
        }
        last = Some((key, b));
        buckets.insert((key, b));
        dir_blocks.insert((key, (HEADER_LEN + b * entry_len) / BLOCK_LEN));
    }
    let rows = sorted_times.len() as f64;
    let bytes =
        rows * (row_len + width) as f64 + buckets.len() as f64 + (dir_blocks.len() as u64 * BLOCK_LEN) as f64;
    let input_bytes_per_row = sample.bytes as f64 / rows;
    let disk_bytes_per_row = bytes / rows;
    let est_rows = (sample.source_len_bytes > 0 && !sample.compressed)
        .then(|| (sample.source_len_bytes as f64 / input_bytes_per_row) as u64);
    Some(Footprint {
        input_bytes_per_row,
        disk_bytes_per_row,
        rows_per_block_max: 0.0,
        rows_per_block_sample: 0.0,
        est_rows,
        est_disk_bytes: est_rows.map(|r| (r as f64 * disk_bytes_per_row) as u64),
    })
}

/// Blocks the sample's rows would allocate, scaled to the input.
fn estimate_footprint(config: &Config, sorted_times: &[i64], sample: &Sample) -> Option<Footprint> {
    if sorted_times.is_empty() || sample.bytes == 0 {
        return None;
    }
    let row_len = config.schema.row_len() as u64;
    // The slot stride of the partitions created now: rows, then the slot's check.
    let slab_len = config.slab_len() + crate::db::partition::SLOT_CHECK_LEN;
    let g = config.granularity.ns();
    let mut blocks = BTreeSet::new();
    let mut last = None;
    let mut k = 0u64;
    for (i, &t) in sorted_times.iter().enumerate() {
        k = if i > 0 && sorted_times[i - 1] == t {
            k + 1
        } else {
            0
        };
        if k >= u64::from(config.depth) {
            continue;
        }
        let key = PartitionKey::of(config.period, t);
        let slot = ((t - key.start_ns()) / g) as u64;
        let from = HEADER_LEN + slot * slab_len + k * row_len;
        for b in from / BLOCK_LEN..=(from + row_len - 1) / BLOCK_LEN {
            // Sorted times mostly repeat the last block: no set lookup for those.
            if last != Some((key, b)) {
                blocks.insert((key, b));
                last = Some((key, b));
            }
        }
    }
    let rows = sorted_times.len() as f64;
    let input_bytes_per_row = sample.bytes as f64 / rows;
    let disk_bytes_per_row = (blocks.len() as u64 * BLOCK_LEN) as f64 / rows;
    let est_rows = (sample.source_len_bytes > 0 && !sample.compressed)
        .then(|| (sample.source_len_bytes as f64 / input_bytes_per_row) as u64);
    Some(Footprint {
        input_bytes_per_row,
        disk_bytes_per_row,
        // Rows of depth-1 slots, each followed by its check.
        rows_per_block_max: BLOCK_LEN as f64 / (row_len + crate::db::partition::SLOT_CHECK_LEN) as f64,
        rows_per_block_sample: rows / blocks.len().max(1) as f64,
        est_rows,
        est_disk_bytes: est_rows.map(|r| (r as f64 * disk_bytes_per_row) as u64),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn span_names_are_told_from_clock_names() {
        for span in [
            "elapsed time",
            "moving time",
            "tripduration",
            "laufdauer",
            "lap_time",
            "duration_s",
            "elapsedtime",
            "avg. time on page",
            "average engagement time",
        ] {
            assert!(super::names_a_duration(span), "{span}");
        }
        for other in [
            "time",
            "mtu (cet/cest)",
            "time interval",
            "space",
            "overlap",
            "date",
            "timestamp",
        ] {
            assert!(!super::names_a_duration(other), "{other}");
        }
        for clock in ["time", "uhrzeit", "heure", "hora", "time (hh:mm)"] {
            assert!(super::names_a_clock(clock), "{clock}");
        }
        for other in ["close", "kurs", "price", "value"] {
            assert!(!super::names_a_clock(other), "{other}");
        }
    }

    #[test]
    fn clock_keywords_name_the_digits_of_the_fraction() {
        for (keyword, frac) in [
            ("hhmmss", 0),
            ("HHMMSSmmm", 3),
            ("hhmmssfff", 3),
            ("hhmmssffffff", 6),
            ("hhmmssfffffffff", 9),
        ] {
            assert_eq!(
                super::clock_keyword(keyword),
                Some(super::TimeFormat::Clock { frac }),
                "{keyword}"
            );
        }
        assert_eq!(
            super::clock_keyword("HHMM"),
            Some(super::TimeFormat::ClockMinutes)
        );
        for keyword in ["hhmmssff", "hhmmssfffffff", "hhmmssmmmm", "hhm", "hhmmm"] {
            assert_eq!(super::clock_keyword(keyword), None, "{keyword}");
        }
    }

    #[test]
    fn one_unreadable_time_does_not_hide_the_format() {
        let iso: Vec<&[u8]> = vec![b"2020-01-01", b"2020-01-02", b"9999-01-01", b"2020-01-03"];
        assert!(matches!(
            detect_time_format(&iso, None, None),
            Ok(Some((TimeFormat::Iso, _)))
        ));
        let epoch: Vec<&[u8]> = vec![b"1600000000000", b"1600000000001", b"x", b"1600000000002"];
        let (format, _) = detect_time_format(&epoch, None, None).unwrap().expect("epoch ms");
        assert!(matches!(format, TimeFormat::Epoch(EpochUnit::Ms)));
        let mixed: Vec<&[u8]> = vec![b"2020-01-01", b"a", b"b", b"2020-01-03"];
        assert!(
            detect_time_format(&mixed, None, None).unwrap().is_none(),
            "half unreadable is not a time column"
        );
    }

    #[test]
    fn intervals_are_read_at_their_start() {
        let detect = |values: &[&str], pattern: Option<&str>| {
            let values: Vec<&[u8]> = values.iter().map(|v| v.as_bytes()).collect();
            detect_time_format(&values, None, pattern)
        };
        let entsoe = [
            "12.01.2020 23:00 - 13.01.2020 00:00",
            "13.01.2020 00:00 - 13.01.2020 01:00",
        ];
        let (f, how) = detect(&entsoe, None).unwrap().expect("an interval format");
        assert_eq!(
            f,
            TimeFormat::Interval(Box::new(TimeFormat::Flex(DateOrder::Dmy)))
        );
        assert!(how.starts_with("intervals `START - END`, stored at their start: dates read as day/month"));
        assert_eq!(
            f.parse(entsoe[1].as_bytes()),
            Ok((1_578_873_600_000_000_000, true))
        );
        // Through a `--time-format` keyword too.
        let (f, _) = detect(&entsoe, Some("dmy")).unwrap().expect("an interval format");
        assert_eq!(
            f,
            TimeFormat::Interval(Box::new(TimeFormat::Flex(DateOrder::Dmy)))
        );
        let iso = [
            "2020-01-01T00:00Z/2020-01-01T01:00Z",
            "2020-01-01T01:00Z/2020-01-01T02:00Z",
        ];
        let (f, _) = detect(&iso, None).unwrap().expect("an interval format");
        assert_eq!(f, TimeFormat::Interval(Box::new(TimeFormat::Iso)));
        assert_eq!(
            f.parse(b"2020-01-01T01:00Z / 2020-01-01T00:00Z"),
            Err(TimeError::IntervalBackwards)
        );
        // Times of day may wrap past midnight.
        let f = TimeFormat::Interval(Box::new(TimeFormat::Flex(DateOrder::None)));
        assert!(f.is_time_of_day());
        assert_eq!(
            f.parse("23:00 \u{2013} 00:00".as_bytes()),
            Ok((23 * 3_600_000_000_000, true))
        );
        // Words around a dash are no interval; nor is an interval of intervals.
        assert_eq!(detect(&["buy - market", "sell - limit"], None), Ok(None));
        assert_eq!(
            detect(&["2020-01-01 - 2020-01-02 - 2020-01-03"; 3], None),
            Ok(None)
        );
        // Ranges of numbers are not epoch intervals.
        assert_eq!(
            detect(&["10 - 20", "20 - 30", "1600000000 - 1600000060"], None),
            Ok(None)
        );
    }

    use super::*;

    fn sample(text: &str) -> Sample {
        let mut lines = text.lines();
        let names = lines.next().unwrap().split(',').map(String::from).collect();
        let rows = lines.map(|l| l.split(',').map(str::as_bytes).collect()).collect();
        Sample {
            names,
            rows,
            bytes: text.len() as u64,
            source_name: "test".into(),
            ..Sample::default()
        }
    }

    /// `unique_column` over `time,sym,id` rows of `ids` (the series alternating `a`, `b`).
    fn unique_id_of(ids: &[u64]) -> Option<usize> {
        let rows: Vec<String> = (ids.iter().enumerate())
            .map(|(k, id)| format!("{k},{},{id}", if k % 2 == 0 { "a" } else { "b" }))
            .collect();
        let s = sample(&format!("time,sym,id\n{}", rows.join("\n")));
        let times: Vec<Option<i64>> = (0..ids.len() as i64).map(Some).collect();
        unique_column(&s, &[0], &[1], &times, &|i| i == 2)
    }

    #[test]
    fn ids_are_a_unique_key_when_distinct_in_each_series_rising_or_not() {
        // Rising in each series, the same ids in both: distinct per series.
        let twice: Vec<u64> = (0..100).map(|k| 1000 + k / 2).collect();
        assert_eq!(unique_id_of(&twice), Some(2));
        // Distinct but not in order: the sort finds no repeat either.
        let shuffled: Vec<u64> = (0..100u64).map(|k| (k * 37) % 101).collect();
        assert_eq!(unique_id_of(&shuffled), Some(2));
        // A repeat within one series, after ids that rose: no key.
        let mut repeat: Vec<u64> = (0..100).collect();
        repeat[98] = 40;
        assert_eq!(unique_id_of(&repeat), None);
        // An id equal to the one before it in its series (rows 2 and 4 are both series `a`).
        let mut again: Vec<u64> = (0..100).collect();
        again[4] = 2;
        assert_eq!(unique_id_of(&again), None);
        // Rising ids of 19 digits are left to the sort, which finds them distinct, and a
        // repeat among them.
        let long: Vec<u64> = (0..100).map(|k| 1_000_000_000_000_000_000 + k).collect();
        assert_eq!(unique_id_of(&long), Some(2));
        let mut long_repeat = long.clone();
        long_repeat[98] = long[40];
        assert_eq!(unique_id_of(&long_repeat), None);
        // Too few rows to judge.
        assert_eq!(unique_id_of(&twice[..10]), None);
    }

    #[test]
    fn plain_decimals_are_what_f64_reads() {
        for v in [
            "0",
            "-12.5",
            ".5",
            "5.",
            "-0.000001",
            "123456789012345678901234567890",
        ] {
            assert!(is_plain_decimal(v.as_bytes()), "{v}");
            assert!(v.parse::<f64>().is_ok(), "{v}");
        }
        for v in ["", "-", ".", "1.2.3", "1e5", "inf", "+1", "1,5", " 1"] {
            assert!(!is_plain_decimal(v.as_bytes()), "{v}");
        }
    }

    #[test]
    fn names_with_the_letters_of_date_are_not_dates() {
        for name in [
            "trade_date",
            "tradedate",
            "date_utc",
            "dated",
            "Datum",
            "Buchungsdatum",
            "Fecha",
        ] {
            assert!(names_a_date(&name.to_ascii_lowercase()), "{name}");
        }
        for name in [
            "updated_at",
            "validated",
            "candidate",
            "last_update",
            "lastupdate",
        ] {
            assert!(!names_a_date(name), "{name}");
        }
        assert_eq!(time_name_score("updated_at"), 0);
        assert_eq!(time_name_score("TradeDate"), 1);
    }

    /// `series_text` skips parsing a value that `starts_like_a_name`: no such value may read
    /// as a float. Every first byte, with the characters that matter around it (spaces, signs,
    /// the letters of `inf` and `nan`, digits, a point, a byte of a UTF-8 space).
    #[test]
    fn values_that_start_like_a_name_never_read_as_floats() {
        let around: &[u8] = b" \t\x0b+-.05eEiInNfahx_\xc2\xa0";
        let parses = |v: &[u8]| std::str::from_utf8(v).is_ok_and(|s| s.trim().parse::<f64>().is_ok());
        let mut names = 0;
        for first in 0..=255u8 {
            for &b in around {
                for &c in around {
                    for v in [[first, b, c], [b, first, c], [b, c, first]] {
                        if starts_like_a_name(&v) {
                            names += 1;
                            assert!(!parses(&v), "{:?} reads as a float", String::from_utf8_lossy(&v));
                        }
                    }
                }
            }
        }
        for v in [
            "inf",
            "-Infinity",
            "+nan",
            "NaN",
            " 1e5",
            ".5",
            "-.5e-3",
            "\u{a0}7",
        ] {
            assert!(!starts_like_a_name(v.as_bytes()) && parses(v.as_bytes()), "{v}");
        }
        for v in ["host_0", "AAPL", "us-west-1", "-x", "+a", " zz"] {
            assert!(starts_like_a_name(v.as_bytes()) && !parses(v.as_bytes()), "{v}");
        }
        assert!(names > 10_000, "{names} names met");
    }

    #[test]
    fn numbers_f64_would_round_are_text() {
        for v in [
            "74.93588199999998",
            "0.1",
            "1e-7",
            "-1.5E300",
            "123456789012345",
            "nan",
            "1.50000000000000000000",
            "1.000000000000000056e-01",
            "0.10000000000000001",
            "4.9e-324",
            "0.00000000000000000000",
        ] {
            assert!(f64_holds(v), "{v}");
        }
        for v in [
            "18446744073709551617",
            "1000000000000000000001",
            "0.12345678901234567890",
            "9007199254740993.5",
            "1e999",
            "1e-400",
        ] {
            assert!(!f64_holds(v), "{v}");
        }
        let ints = |vs: &[&str]| infer_type(&vs.iter().map(|v| v.as_bytes()).collect::<Vec<_>>());
        // Wei amounts past u64: two that differ in the last digit must not become one f64.
        let (t, why) = ints(&["12000000000000000000001", "12000000000000000000002", "5"]);
        assert!(matches!(t, ColumnType::Str(_)), "{t:?}");
        assert!(why.contains("NAME:f64"), "{why}");
        assert_eq!(ints(&["18446744073709551615", "1"]).0, ColumnType::U64);
        assert_eq!(ints(&["74.93588199999998", "1e5", "2"]).0, ColumnType::F64);
        // The edges of i64 and u64, decided in one pass with the leading zeros.
        assert_eq!(
            ints(&["9223372036854775807", "-9223372036854775808"]).0,
            ColumnType::I64
        );
        assert_eq!(
            ints(&["-999999999999999999", "999999999999999999"]).0,
            ColumnType::I64
        );
        assert_eq!(ints(&["9223372036854775808", "0"]).0, ColumnType::U64);
        assert_ne!(ints(&["9223372036854775808", "-1"]).0, ColumnType::U64);
        assert_ne!(ints(&["9223372036854775808", "-1"]).0, ColumnType::I64);
        assert!(matches!(ints(&["7", "007"]).0, ColumnType::Str(_)));
        assert_eq!(ints(&["-07", "7"]).0, ColumnType::I64);
        assert_eq!(ints(&[" 12 ", "", "-3"]).0, ColumnType::I64);
    }

    #[test]
    fn infers_types_time_granularity_and_depth() {
        let s = sample(
            "id,trade_time,price,side,ok\n1,1723161255342,1.5,buy,true\n2,1723161255342,2,sell,false\n3,1723161255343,3,buy,true\n",
        );
        // Raw records: the grid, whose depth is inferred.
        let raw = Overrides {
            codec: Some(RecordCodec::Raw),
            ..Overrides::default()
        };
        let inf = infer(&s, &raw).unwrap();
        assert_eq!(inf.config.time_column, "trade_time");
        assert_eq!(inf.time_format, TimeFormat::Epoch(EpochUnit::Ms));
        assert_eq!(inf.config.granularity.ns(), NS_PER_MS);
        assert_eq!(inf.config.depth, 4);
        assert_eq!(
            inf.config.schema.spec(),
            "id:i64,price:dec(1),side:str(8),ok:bool"
        );
    }

    #[test]
    fn plain_decimals_become_dec_and_float_output_stays_f64() {
        let scale = |vals: &[&str]| dec_scale(vals.iter().map(|v| v.as_bytes()));
        assert_eq!(scale(&["61837.63000000", "0.02000000", "61837"]), Some(8));
        assert_eq!(scale(&["-0.5", "+1.25", ".5", "5."]), Some(2));
        // Whole numbers are integers; exponents, nan, inf and text are not decimals.
        assert_eq!(scale(&["1", "2"]), None);
        assert_eq!(scale(&["5."]), None);
        for odd in ["1e-5", "nan", "inf", "-inf", "1.5x", ""] {
            assert_eq!(scale(&["1.5", odd]), None, "{odd}");
        }
        // 18 digits in all at most; binary-float output (16-17 significant digits) stays f64.
        assert_eq!(scale(&["1234567890.5", "0.00000001"]), Some(8));
        assert_eq!(scale(&["1234567890.5", "0.000000001"]), None);
        assert_eq!(scale(&["0.5", "0.000000000000000001"]), Some(18));
        assert_eq!(scale(&["73.96732207", "74.93588199999998"]), None);
        assert_eq!(scale(&["0.30000000000000004"]), None);
    }

    #[test]
    fn regular_series_get_their_step() {
        let mut text = String::from("time,v\n");
        for i in 0..20 {
            text.push_str(&format!("2024-01-01T00:{:02}:{:02}Z,1\n", i / 6, (i % 6) * 10));
        }
        let inf = infer(&sample(&text), &Overrides::default()).unwrap();
        assert_eq!(inf.config.granularity.ns(), 10 * NS_PER_SEC);
        assert_eq!(inf.config.depth, 1);
    }

    #[test]
    fn times_that_all_fall_on_a_coarse_step_get_it() {
        // Stretches of a 5-minute series far apart (a sample across the file): no two
        // consecutive steps, yet every time is on the 5-minute grid.
        let mut text = String::from("time,host,v\n");
        for k in 0..20 {
            for host in 0..50 {
                text.push_str(&format!("{},h{host},1\n", 1_700_000_100 + k * 7 * 300));
            }
        }
        let inf = infer(&sample(&text), &Overrides::default()).unwrap();
        assert_eq!(inf.config.granularity.ns(), 300 * NS_PER_SEC, "{:?}", inf.notes);
    }

    #[test]
    fn nanosecond_times_say_what_to_do_on_a_grid() {
        let s = sample("local_ts_ns,v\n1723161254087896568,1\n1723161254347673567,2\n");
        let grid = Overrides {
            layout: Some(Layout::Grid),
            ..Overrides::default()
        };
        let err = infer(&s, &grid).unwrap_err().to_string();
        assert!(err.contains("--floor-time"), "{err}");
        assert!(err.contains("1ns"), "{err}");
    }

    #[test]
    fn nanosecond_times_are_stored_in_buckets() {
        let s = sample("local_ts_ns,v\n1723161254087896568,1\n1723161254347673567,2\n");
        let inf = infer(&s, &Overrides::default()).unwrap();
        assert_eq!(inf.config.layout, Layout::Bucket);
        assert_eq!(inf.config.granularity.ns(), 1);
        assert!(
            inf.notes.iter().any(|n| n.starts_with("layout bucket")),
            "{:?}",
            inf.notes
        );
        assert!(inf.create_command("x").contains("--layout bucket --bucket"));
    }

    #[test]
    fn repeated_text_is_sym_and_unrepeated_text_str() {
        // `host` has 25 values in 100 rows: past the few of a category, but each seen 4 times.
        let mut text = String::from("time,side,host,note\n");
        for i in 0..100 {
            let side = if i % 3 == 0 { "buy" } else { "sell" };
            text.push_str(&format!("{},{side},h{},n{i}\n", 1_609_459_200 + i, i % 25));
        }
        let inf = infer(&sample(&text), &Overrides::default()).unwrap();
        assert_eq!(inf.config.schema.spec(), "side:sym,host:sym,note:str(8)");
        assert!(inf.create_command("x").contains("side:sym,host:sym,note:str(8)"));
        // 26 values in 100 rows repeat too rarely, unless they are the series key.
        let text = text.replacen(",h0,", ",hx,", 1);
        let one_series = Overrides {
            series: Some(Vec::new()),
            ..Overrides::default()
        };
        let inf = infer(&sample(&text), &one_series).unwrap();
        assert_eq!(inf.config.schema.spec(), "side:sym,host:str(8),note:str(8)");
        let by_host = Overrides {
            series: Some(vec!["host".to_string()]),
            ..Overrides::default()
        };
        let inf = infer(&sample(&text), &by_host).unwrap();
        assert_eq!(inf.config.schema.spec(), "side:sym,host:sym,note:str(8)");
        assert!(
            inf.notes
                .iter()
                .any(|n| n.starts_with("column `host`: sym (the series key")),
            "{:?}",
            inf.notes
        );
    }

    #[test]
    fn types_found_beside_the_time_choice_are_the_ones_found_in_turn() {
        // The columns' types come from a second thread (`column_verdicts`), or one by one in
        // the loop when there is none: the same database and the same notes either way, with
        // a time-named column that is not the time (typed in the loop), null tokens, a weak
        // null beside numbers, text, a series key and types given.
        let mut text = String::from("time,elapsed_time,price,side,qty,note,host\n");
        for i in 0..400 {
            let qty = match i % 7 {
                0 => "NA".to_string(),
                3 => "-".to_string(),
                5 => "x".to_string(),
                _ => (i % 13).to_string(),
            };
            text.push_str(&format!(
                "{},{},{}.{:02},{},{qty},n{},h{}\n",
                1_609_459_200 + i / 4,
                i * 3,
                100 + i % 9,
                i % 100,
                if i % 3 == 0 { "buy" } else { "sell" },
                i % 50,
                i % 4
            ));
        }
        // `x` is text, unless it is a null token.
        let given = Overrides {
            types: vec![("price".to_string(), ColumnType::F64)],
            nulls: vec![b"x".to_vec()],
            ..Overrides::default()
        };
        for (o, qty) in [(Overrides::default(), ",qty:sym,"), (given, ",qty:i64,")] {
            let s = sample(&text);
            // Each verdict is its own column's: the time-named columns (and a given type)
            // are left to the loop.
            let mut present = Vec::new();
            for (i, verdict) in column_verdicts(&s, &o).into_iter().enumerate() {
                let left = i < 2 || (i == 2 && !o.types.is_empty());
                assert_eq!(verdict.is_none(), left, "column {i}");
                if let Some(v) = verdict {
                    let own = column_verdict(&s, &o, i, &mut present);
                    assert_eq!((v.ty, v.why, v.nulls), (own.ty, own.why, own.nulls), "column {i}");
                }
            }
            let beside = infer(&s, &o).unwrap();
            let in_turn = infer_with(&s, &o, Vec::new).unwrap();
            assert_eq!(beside.config, in_turn.config);
            assert_eq!(beside.notes, in_turn.notes);
            assert_eq!(beside.time_columns, ["time"]);
            let spec = beside.config.schema.spec();
            assert!(spec.starts_with("elapsed_time:i64,price:"), "{spec}");
            assert!(spec.contains(qty) && spec.contains(",host:sym"), "{spec}");
        }
    }

    #[test]
    fn many_hosts_seen_once_per_window_get_a_bucket_of_their_own_rate() {
        // 300 hosts every 5 minutes; the sample's 20 windows of the file each hold one
        // timestamp of 100 of them (as 4,000 of 30,000 hosts fill a window of cpu.csv), so
        // each host's stretch in a window is one row.
        let mut text = String::from("time,hostname,usage\n");
        let mut segment_starts = Vec::new();
        let mut rows = 0;
        for w in 0..20i64 {
            segment_starts.push(rows);
            let minutes = 5 * (w * w + 1);
            let t = format!(
                "2021-01-0{}T{:02}:{:02}:00Z",
                1 + minutes / 1440,
                minutes / 60 % 24,
                minutes % 60
            );
            for k in 0..100 {
                text.push_str(&format!("{t},host_{},{}\n", (w * 37 + k) % 300, k % 90));
                rows += 1;
            }
        }
        let mut s = sample(&text);
        s.segment_starts = segment_starts;
        s.spread = true;
        let inf = infer(&s, &Overrides::default()).unwrap();
        assert_eq!(inf.config.series_columns().len(), 1, "{:?}", inf.notes);
        assert_eq!(inf.config.granularity.ns(), 300 * NS_PER_SEC, "{:?}", inf.notes);
        // One row per 5 minutes a host: a day (288 rows) is the widest bucket, nearest the
        // aim of ~2,000 rows; one row per nanosecond used to give 5-minute buckets of 1 row.
        assert_eq!(inf.config.bucket_ns, NS_PER_DAY, "{:?}", inf.notes);
        assert!(
            inf.notes
                .iter()
                .any(|n| n.starts_with("bucket 1d: about 288 rows per bucket")),
            "{:?}",
            inf.notes
        );
    }

    #[test]
    fn bursty_ticks_choose_buckets_and_regular_series_columnar_buckets_or_a_raw_grid() {
        // 200 trades at irregular ms times over ~40 s.
        let mut ticks = String::from("time,price\n");
        let mut t = 1_609_459_200_000i64;
        for i in 0..200 {
            t += 1 + (i * 7919 % 400);
            ticks.push_str(&format!("{t},{i}.5\n"));
        }
        let inf = infer(&sample(&ticks), &Overrides::default()).unwrap();
        assert_eq!(inf.config.layout, Layout::Bucket, "{:?}", inf.notes);
        assert_eq!(inf.config.codec, RecordCodec::Columnar);
        // ~5 trades a second: ~2,000 rows a bucket is 5 to 10 minutes.
        assert!(
            inf.config.bucket_ns >= 300 * NS_PER_SEC,
            "{}",
            inf.config.bucket_ns
        );
        let raw = Overrides {
            codec: Some(RecordCodec::Raw),
            ..Overrides::default()
        };
        let inf = infer(&sample(&ticks), &raw).unwrap();
        assert_eq!(
            (inf.config.layout, inf.config.codec),
            (Layout::Bucket, RecordCodec::Raw)
        );
        assert!(inf.config.bucket_ns >= NS_PER_SEC, "{}", inf.config.bucket_ns);
        let mut regular = String::from("time,temp\n");
        for i in 0..200 {
            regular.push_str(&format!("{},{i}.5\n", 1_609_459_200 + i));
        }
        let inf = infer(&sample(&regular), &Overrides::default()).unwrap();
        assert_eq!(inf.config.layout, Layout::Bucket, "{:?}", inf.notes);
        assert_eq!(inf.config.codec, RecordCodec::Columnar);
        assert!(inf
            .notes
            .iter()
            .any(|n| n.starts_with("layout bucket, codec columnar: the times are regular")));
        let inf = infer(&sample(&regular), &raw).unwrap();
        assert_eq!(inf.config.layout, Layout::Grid, "{:?}", inf.notes);
    }
}
