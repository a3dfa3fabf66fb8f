//! The time column of an import: epoch numbers in a unit, ISO-8601 (the fast byte parser of
//! `io::timefmt`), or a strftime pattern (chrono). The format is fixed once per import from
//! the options or a sample, so each row pays for one parser only.

use super::flextime::{self, DateOrder};
use crate::db::time::{in_storable_range, MAX_YEAR, MIN_YEAR, NS_PER_DAY};
use crate::io::timefmt::{parse_iso, parse_iso_below_ns, EpochUnit};

/// How the time column is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeFormat {
    /// A decimal number (optionally with a fraction) of this unit since 1970-01-01 UTC.
    Epoch(EpochUnit),
    /// ISO-8601 / RFC 3339; naive times are UTC.
    Iso,
    /// A chrono strftime pattern; with `%z`-style zones when the pattern has one, else UTC.
    Strftime(String),
    /// A date in this field order, optionally a time and a zone (`flextime`); with
    /// `DateOrder::None`, a time of day (`09:30:00`, `18.00.00`).
    Flex(DateOrder),
    /// A time of day as a number of this unit since midnight (`0` … one day).
    DayEpoch(EpochUnit),
    /// A time of day as the digits of a clock, `HHMMSS` with `frac` more digits of the
    /// second (0 or 3: `93000`, `093000500`), the leading zero of the hour optional.
    Clock { frac: u8 },
    /// A time of day as the digits of a clock without seconds, `HHMM`, its leading zeros
    /// optional (`930`, `1559`, and `5` for 00:05: minute bars written as numbers).
    ClockMinutes,
    /// A date, a space and a `ClockMinutes` clock (`2024-03-08 930`): what `--time-column
    /// Date,Time` joins when `Time` holds minute bars' clocks written as numbers.
    DateAndClock(Box<TimeFormat>),
    /// A quarter of a year, `1990Q1`, `1990-Q1`, `1990 Q1` or `Q1 1990` (economic series):
    /// stored at its first day, 00:00.
    Quarter,
    /// A spreadsheet's serial date-time: days since 1899-12-30 (the 1900 date system of Excel,
    /// LibreOffice and Google Sheets), the fraction the time of day, to the millisecond.
    SerialDays,
    /// A date, a space and a number of this unit since its midnight (`2024-03-07 34237`):
    /// what `--time-column Date,Time` joins when `Time` counts the seconds of the day.
    DateAndDayEpoch(Box<TimeFormat>, EpochUnit),
    /// An interval, `START - END` (ENTSO-E's `MTU` column), `START – END` or ISO 8601's
    /// `START/END`, both ends in this format: stored at its start, the end read to check it.
    Interval(Box<TimeFormat>),
}

/// An interval's end written with the zone it is in after it, as ENTSO-E's exports do
/// (`27/10/2024 02:00:00 (CEST)`, the repeated hour of a daylight-saving change told apart
/// by `(CET)`): the end without it, and the zone's offset from UTC in ns, `None` for
/// `(CET/CEST)`, which says the times are local but not which offset. Only the European
/// abbreviations that name one offset each, and UTC and GMT, are read (`CST` is US Central
/// or China).
pub fn zone_after(b: &[u8]) -> Option<(&[u8], Option<i64>)> {
    let open = b.iter().rposition(|&c| c == b'(')?;
    let (time, zone) = (b[..open].trim_ascii(), b[open..].strip_suffix(b")")?);
    const H: i64 = 3_600_000_000_000;
    let offset = match &zone[1..] {
        b"UTC" | b"GMT" | b"WET" => Some(0),
        b"CET" | b"WEST" => Some(H),
        b"CEST" | b"EET" => Some(2 * H),
        b"EEST" => Some(3 * H),
        b"CET/CEST" | b"EET/EEST" | b"WET/WEST" => None,
        _ => return None,
    };
    Some((time, offset))
}

/// One end of an interval in `inner`'s format, with the zone after it read (`zone_after`):
/// placed at that offset, no longer naive.
fn zoned_end(inner: &TimeFormat, b: &[u8]) -> Result<(i64, bool), TimeError> {
    match zone_after(b) {
        None => inner.parse(b),
        Some((time, None)) => inner.parse(time),
        Some((time, Some(offset))) => match inner.parse(time)? {
            (t, true) => Ok((t - offset, false)),
            zoned => Ok(zoned),
        },
    }
}

/// The two ends of an interval written `START - END`, `START – END` (an en dash) or, with
/// exactly one slash, `START/END`; `None` without a separator.
pub fn split_interval(b: &[u8]) -> Option<(&[u8], &[u8])> {
    for sep in [&b" - "[..], " \u{2013} ".as_bytes()] {
        if let Some(at) = b.windows(sep.len()).position(|w| w == sep) {
            return Some((b[..at].trim_ascii(), b[at + sep.len()..].trim_ascii()));
        }
    }
    let mut slashes = b.iter().enumerate().filter(|(_, &c)| c == b'/');
    match (slashes.next(), slashes.next()) {
        (Some((at, _)), None) => Some((b[..at].trim_ascii(), b[at + 1..].trim_ascii())),
        _ => None,
    }
}

pub use crate::db::time::Zone;

impl Zone {
    /// The zone a column's header text states for its times: an offset after `UTC` or `GMT`
    /// (`Timestamp (UTC+01:00)`, HOBO's `Date Time, GMT-05:00`, `GMT+1`) or an IANA name
    /// (`Date (Europe/Berlin)`). `None` when it states none, or UTC itself.
    pub fn in_header(text: &str) -> Option<Zone> {
        use chrono::{Offset, TimeZone};
        // A zone's name first: `Etc/GMT+5` is UTC−5 (those names invert the sign).
        let named = text
            .split(|c: char| c.is_whitespace() || "()[],;".contains(c))
            .filter(|word| word.contains('/'))
            .find_map(|word| word.parse::<chrono_tz::Tz>().ok());
        if let Some(tz) = named {
            // A name for UTC itself states no zone to place the times in.
            let offset = |t: chrono::NaiveDateTime| tz.offset_from_utc_datetime(&t).fix().local_minus_utc();
            let utc = [chrono::NaiveDateTime::MIN, chrono::NaiveDateTime::MAX]
                .into_iter()
                .chain(chrono::DateTime::from_timestamp(1_700_000_000, 0).map(|t| t.naive_utc()))
                .all(|t| offset(t) == 0);
            return (!utc).then_some(Zone::Named(tz));
        }
        // Else the one offset written after `UTC` or `GMT`. A header that also names UTC or GMT
        // alone (`converted from GMT+2 to UTC`) or gives two offsets (winter and summer) does
        // not say which applies: none is taken. `UTC+00:00` is UTC.
        let upper = text.to_ascii_uppercase().replace('\u{2212}', "-");
        let mut marks: Vec<usize> = upper
            .match_indices("UTC")
            .chain(upper.match_indices("GMT"))
            .map(|(at, _)| at)
            .collect();
        marks.sort_unstable();
        let mut found: Option<Zone> = None;
        for at in marks {
            let rest = upper[at + 3..].trim_start();
            // UTC or GMT alone: another zone may be meant by the offset beside it.
            let sign = rest.chars().next().filter(|c| matches!(c, '+' | '-'))?;
            let digits: String = rest[1..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ':')
                .collect();
            let offset = match digits.len() {
                1 => format!("{sign}0{digits}"),
                4 if digits.as_bytes()[1] == b':' => format!("{sign}0{digits}"),
                _ => format!("{sign}{digits}"),
            };
            let zone = Zone::parse(&offset)?;
            if found.as_ref().is_some_and(|f| *f != zone) {
                return None;
            }
            found = Some(zone);
        }
        found.filter(|z| *z != Zone::Fixed(0))
    }
}

/// Which instant a local time means when a daylight-saving change makes it ambiguous (it occurs
/// twice) or skips it; `Refuse` rejects such rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Dst {
    #[default]
    Refuse,
    Earlier,
    Later,
}

/// Everything needed to turn the time field(s) of a row into UTC ns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeSpec {
    pub format: TimeFormat,
    /// The zone of times written without one.
    pub zone: Zone,
    pub dst: Dst,
    /// Epoch numbers are in the unit their magnitude said (no `--time-unit`): one of another
    /// magnitude (a seconds file among milliseconds ones in one command) is refused, never
    /// read 1000 times too early.
    pub unit_by_magnitude: bool,
    /// The format was detected in the first input, not given: a later input whose times are
    /// written otherwise is read in its own (`import::later_time_format`).
    pub format_detected: bool,
    /// Sampled times carry a zone or an offset and none was given (`--timezone`, the header,
    /// the database): a time without one (a date alone aside) cannot be placed and is
    /// refused, never guessed to be UTC.
    pub refuse_naive: bool,
}

impl TimeSpec {
    pub fn utc(format: TimeFormat) -> TimeSpec {
        TimeSpec {
            format,
            zone: Zone::Utc,
            dst: Dst::Refuse,
            unit_by_magnitude: false,
            format_detected: false,
            refuse_naive: false,
        }
    }
}

/// Why a time field could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeError {
    Unparsable,
    /// A readable time outside 1678..=2261 (the years that fit i64 nanoseconds).
    OutOfRange {
        year: Option<i64>,
    },
    /// A time of day past 24:00.
    BeyondDay,
    /// An interval whose end comes before its start.
    IntervalBackwards,
    /// A local time that a daylight-saving change skips in this zone.
    DstGap(String),
    /// A local time that occurs twice in this zone.
    DstOverlap(String),
    /// A time written with digits below one nanosecond that are not all zero: not on the
    /// nanosecond grid. `floored_ns` is the time rounded down to the nanosecond (in UTC once
    /// placed by `TimeParser`), for `--floor-time`.
    BelowNanosecond {
        floored_ns: i64,
        naive: bool,
    },
    /// An epoch number of another magnitude than the unit read from the others' says.
    Magnitude {
        unit: EpochUnit,
    },
    /// An epoch number that reads as a plausible date written `YYYYMMDD` (`20240305`) among
    /// numbers whose magnitude said another unit: read as epoch, it would be a time in 1970.
    DateNumber {
        unit: EpochUnit,
    },
    /// An epoch number with fewer digits than any plausible time of the unit its magnitude
    /// chose from the others (`0` among milliseconds of 2024): a placeholder for a missing
    /// time, or a count, that read as epoch would be a time in 1970.
    Small {
        unit: EpochUnit,
    },
    /// A time without a zone or offset where every sampled time has one (`refuse_naive`).
    Naive,
}

impl TimeError {
    /// The time rounded down to the nanosecond, when the only fault is digits below one.
    pub fn below_ns_time(&self) -> Option<i64> {
        match self {
            TimeError::BelowNanosecond { floored_ns, .. } => Some(*floored_ns),
            _ => None,
        }
    }
}

impl std::fmt::Display for TimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeError::Unparsable => f.write_str("unreadable time"),
            TimeError::OutOfRange { year: Some(y) } => {
                write!(f, "year {y} is outside the storable range {MIN_YEAR}-{MAX_YEAR}")
            }
            TimeError::OutOfRange { year: None } => {
                write!(f, "time is outside the storable range {MIN_YEAR}-{MAX_YEAR}")
            }
            TimeError::BeyondDay => f.write_str("a time of day past 24:00"),
            TimeError::IntervalBackwards => f.write_str("the interval ends before it starts"),
            TimeError::DstGap(zone) => write!(
                f,
                "this local time does not exist in {zone} (skipped by a daylight-saving change); \
                 pass --dst earlier or --dst later to place it"
            ),
            TimeError::DstOverlap(zone) => write!(
                f,
                "this local time occurs twice in {zone} (a daylight-saving change); pass --dst \
                 earlier or --dst later to choose"
            ),
            TimeError::Magnitude { unit } => write!(
                f,
                "an epoch number of another magnitude than the {} the others were read as: \
                 import the files of each unit in a command of their own, or give --time-unit",
                unit_word(*unit)
            ),
            TimeError::DateNumber { unit } => write!(
                f,
                "a number that reads as a date written YYYYMMDD among epoch {} (as {} it would \
                 be a time in 1970): import the dates in a command of their own, or give \
                 --time-unit to read every number as an epoch time",
                unit_word(*unit),
                unit_word(*unit)
            ),
            TimeError::Small { unit } => write!(
                f,
                "an epoch number far smaller than the epoch {} the others were read as (as {} it \
                 would be a time in 1970, such as a 0 written for a missing time): correct or \
                 drop the row, or give --time-unit to store every number as what it says",
                unit_word(*unit),
                unit_word(*unit)
            ),
            TimeError::Naive => f.write_str(
                "a time without a zone or offset among times that carry one: it cannot be \
                 placed; pass --timezone with the zone it is in (--timezone UTC if it is UTC)",
            ),
            TimeError::BelowNanosecond { .. } => f.write_str(
                "the time has fraction digits below one nanosecond, finer than xs stores; pass \
                 --floor-time to round it down",
            ),
        }
    }
}

impl TimeFormat {
    /// Parses one field: the time in ns and whether it was naive (no zone given, read as UTC).
    pub fn parse(&self, b: &[u8]) -> Result<(i64, bool), TimeError> {
        let (t_ns, naive) = match self {
            TimeFormat::Epoch(unit) => (parse_epoch_bytes(b, *unit)?, false),
            TimeFormat::Iso => match parse_iso_below_ns(b) {
                Some((t, false)) => (t, iso_is_naive(b)),
                Some((t, true)) if in_storable_range(t) => {
                    return Err(TimeError::BelowNanosecond {
                        floored_ns: t,
                        naive: iso_is_naive(b),
                    })
                }
                Some(_) => return Err(TimeError::OutOfRange { year: None }),
                None => return Err(iso_failure(b)),
            },
            TimeFormat::Strftime(pattern) => parse_strftime(b, pattern)?,
            TimeFormat::Flex(order) => match flextime::parse(b, *order) {
                Some(f) => (f.t_ns, !f.zoned),
                None => return Err(TimeError::Unparsable),
            },
            TimeFormat::DayEpoch(unit) => {
                let t = parse_epoch_bytes(b, *unit)?;
                if !(0..=NS_PER_DAY).contains(&t) {
                    return Err(TimeError::BeyondDay);
                }
                return Ok((t, true));
            }
            TimeFormat::Clock { frac } => return parse_clock(b, *frac).map(|t| (t, true)),
            TimeFormat::ClockMinutes => return parse_clock_minutes(b).map(|t| (t, true)),
            TimeFormat::DateAndClock(date) => date_and_time_of_day(date, b, parse_clock_minutes)?,
            TimeFormat::DateAndDayEpoch(date, unit) => {
                date_and_time_of_day(date, b, |t| Ok(TimeFormat::DayEpoch(*unit).parse(t)?.0))?
            }
            TimeFormat::Quarter => (parse_quarter(b)?, true),
            TimeFormat::SerialDays => (parse_serial_days(b)?, true),
            TimeFormat::Interval(inner) => {
                let (start, end) = split_interval(b).ok_or(TimeError::Unparsable)?;
                let (t, naive) = zoned_end(inner, start)?;
                let (end, _) = zoned_end(inner, end)?;
                // Times of day may wrap past midnight (`23:00 - 00:00`).
                if end < t && !inner.is_time_of_day() {
                    return Err(TimeError::IntervalBackwards);
                }
                (t, naive)
            }
        };
        if !in_storable_range(t_ns) {
            return Err(TimeError::OutOfRange { year: None });
        }
        Ok((t_ns, naive))
    }

    pub fn describe(&self) -> String {
        match self {
            TimeFormat::Epoch(unit) => format!("epoch {}", unit_word(*unit)),
            TimeFormat::Iso => "ISO-8601".into(),
            TimeFormat::Strftime(p) => format!("the pattern `{p}`"),
            TimeFormat::Flex(DateOrder::None) => "times of day".into(),
            TimeFormat::Flex(order) => format!("dates {}", order.describe()),
            TimeFormat::DayEpoch(unit) => format!("{} since midnight", unit_word(*unit)),
            TimeFormat::DateAndDayEpoch(date, unit) => {
                format!(
                    "{} and {} since their midnight",
                    date.describe(),
                    unit_word(*unit)
                )
            }
            TimeFormat::Clock { frac: 0 } => "clock times written HHMMSS".into(),
            TimeFormat::Clock { frac: 3 } => "clock times written HHMMSSmmm".into(),
            TimeFormat::Clock { frac } => {
                format!("clock times written HHMMSS{}", "f".repeat(usize::from(*frac)))
            }
            TimeFormat::ClockMinutes => "clock times written HHMM".into(),
            TimeFormat::DateAndClock(date) => {
                format!("{} and clock times written HHMM", date.describe())
            }
            TimeFormat::Quarter => "quarters (`1990Q1`), each stored at its first day".into(),
            TimeFormat::SerialDays => "spreadsheet serial days (since 1899-12-30)".into(),
            TimeFormat::Interval(inner) => {
                format!("intervals of {}, stored at their start", inner.describe())
            }
        }
    }

    /// Times that carry no date: they need one from `--date` or the file name.
    pub fn is_time_of_day(&self) -> bool {
        match self {
            TimeFormat::Flex(DateOrder::None)
            | TimeFormat::DayEpoch(_)
            | TimeFormat::Clock { .. }
            | TimeFormat::ClockMinutes => true,
            TimeFormat::Strftime(p) => !pattern_has_date(p),
            TimeFormat::Interval(inner) => inner.is_time_of_day(),
            _ => false,
        }
    }
}

pub fn unit_word(unit: EpochUnit) -> &'static str {
    match unit {
        EpochUnit::S => "seconds",
        EpochUnit::Ms => "milliseconds",
        EpochUnit::Us => "microseconds",
        EpochUnit::Ns => "nanoseconds",
    }
}

/// Whether `b` looks like an epoch number: optional sign, digits, optional fraction; or the
/// same in scientific notation with an exponent of 0 to 30 (`1.7043552e+09`, as NumPy's
/// `savetxt` and R write floats).
pub fn is_epoch_number(b: &[u8]) -> bool {
    if b.iter().any(|&c| c == b'e' || c == b'E') {
        return sci_to_plain(b).is_some();
    }
    let b = b.strip_prefix(b"-").unwrap_or(b);
    let (int, frac) = match b.iter().position(|&c| c == b'.') {
        Some(p) => (&b[..p], Some(&b[p + 1..])),
        None => (b, None),
    };
    !int.is_empty()
        && int.iter().all(u8::is_ascii_digit)
        && frac.is_none_or(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit))
}

/// The unit an epoch number of this magnitude most likely has, for times of the storable range:
/// seconds below 1e11, milliseconds below 1e14, microseconds below 1e17, else nanoseconds.
pub fn unit_by_magnitude(max_abs: u64) -> EpochUnit {
    if max_abs < 100_000_000_000 {
        EpochUnit::S
    } else if max_abs < 100_000_000_000_000 {
        EpochUnit::Ms
    } else if max_abs < 100_000_000_000_000_000 {
        EpochUnit::Us
    } else {
        EpochUnit::Ns
    }
}

/// An epoch number in scientific notation (`-1.7043552e+09`) written out (`-1704355200`),
/// exactly: the point moves, no float is involved. `None` for anything else, and for an
/// exponent below 0 or above 30 (no time needs more digits than 30).
pub fn sci_to_plain(b: &[u8]) -> Option<Vec<u8>> {
    let e = b.iter().position(|&c| c == b'e' || c == b'E')?;
    let (mantissa, exp) = (&b[..e], &b[e + 1..]);
    let exp = exp.strip_prefix(b"+").unwrap_or(exp);
    if exp.is_empty() || exp.len() > 2 || !exp.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let shift = usize::from(exp.iter().fold(0u8, |n, &c| n * 10 + (c - b'0')));
    let (sign, body) = match mantissa.strip_prefix(b"-") {
        Some(rest) => (&b"-"[..], rest),
        None => (&b""[..], mantissa),
    };
    let (int, frac) = match body.iter().position(|&c| c == b'.') {
        Some(p) => (&body[..p], &body[p + 1..]),
        None => (body, &b""[..]),
    };
    let digits = |d: &[u8]| d.iter().all(u8::is_ascii_digit);
    if shift > 30
        || int.is_empty()
        || !digits(int)
        || !digits(frac)
        || (frac.is_empty() && body.len() != int.len())
    {
        return None;
    }
    let mut out = Vec::with_capacity(sign.len() + int.len() + frac.len().max(shift) + 1);
    out.extend_from_slice(sign);
    out.extend_from_slice(int);
    let moved = frac.len().min(shift);
    out.extend_from_slice(&frac[..moved]);
    out.resize(out.len() + shift - moved, b'0');
    if moved < frac.len() {
        out.push(b'.');
        out.extend_from_slice(&frac[moved..]);
    }
    Some(out)
}

/// The integer part's absolute value of an epoch number (saturating).
pub fn epoch_magnitude(b: &[u8]) -> u64 {
    if let Some(plain) = b
        .iter()
        .any(|&c| c == b'e' || c == b'E')
        .then(|| sci_to_plain(b))
        .flatten()
    {
        return epoch_magnitude(&plain);
    }
    let b = b.strip_prefix(b"-").unwrap_or(b);
    let mut n: u64 = 0;
    for &c in b.iter().take_while(|c| c.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(u64::from(c - b'0'));
    }
    n
}

/// A per-chunk parser of one time format: ISO times of the common shape
/// `YYYY-MM-DD[T ]HH:MM:SS[.f…][Z]` reuse the day of the previous row when the date repeats.
pub struct TimeParser<'a> {
    format: &'a TimeFormat,
    spec: &'a TimeSpec,
    /// Local midnight (as naive ns) of the day that times of day fall on.
    date_ns: i64,
    date: [u8; 10],
    day_ns: Option<i64>,
    /// ISO times read as UTC: the fast path's result is final.
    iso_utc: bool,
    /// Epoch times (always UTC): the unit, for the plain-digits fast path.
    epoch: Option<EpochUnit>,
    /// The digits an epoch number of that unit has when its unit came from the magnitude.
    epoch_digits: (usize, usize),
    /// `plausible_times()`, read from the clock once per parser, not once per number.
    plausible: std::ops::RangeInclusive<i64>,
}

impl<'a> TimeParser<'a> {
    /// A parser of `spec`; `date_ns` (ns of a midnight) places times of day.
    pub fn new(spec: &'a TimeSpec, date_ns: Option<i64>) -> TimeParser<'a> {
        TimeParser {
            format: &spec.format,
            spec,
            date_ns: date_ns.unwrap_or(0),
            date: [0; 10],
            day_ns: None,
            iso_utc: spec.format == TimeFormat::Iso && spec.zone == Zone::Utc,
            epoch: match spec.format {
                TimeFormat::Epoch(unit) => Some(unit),
                _ => None,
            },
            epoch_digits: match spec.format {
                // The digits of the magnitudes `unit_by_magnitude` takes for each unit; seconds
                // with fewer than 7 (before 1970-04-27) are no time of an epoch seconds file.
                TimeFormat::Epoch(unit) if spec.unit_by_magnitude => match unit {
                    EpochUnit::S => (7, 11),
                    EpochUnit::Ms => (12, 14),
                    EpochUnit::Us => (15, 17),
                    EpochUnit::Ns => (18, 20),
                },
                _ => (1, usize::MAX),
            },
            plausible: plausible_times(),
        }
    }

    /// `parse`, retried without the blanks around the text when that fails: a time field
    /// padded with spaces still reads.
    #[inline(always)]
    pub fn parse_padded(&mut self, b: &[u8]) -> Result<(i64, bool), TimeError> {
        self.parse(b).or_else(|e| {
            let trimmed = b.trim_ascii();
            if trimmed.len() == b.len() {
                Err(e)
            } else {
                self.parse(trimmed)
            }
        })
    }

    /// The time in UTC ns and whether it was naive (then placed in the spec's zone).
    // The common case (ISO in UTC) inlined into the caller's loop, the rest called: with the
    // whole parser inlined or called, the import's per-row loop costs about 10% more.
    #[inline(always)]
    pub fn parse(&mut self, b: &[u8]) -> Result<(i64, bool), TimeError> {
        if self.iso_utc {
            if let Some(t) = self.fast_iso(b) {
                if t.1 && self.spec.refuse_naive {
                    return Err(TimeError::Naive);
                }
                return Ok(t);
            }
        } else if let Some(unit) = self.epoch {
            if let Some(t) = fast_epoch(b, unit).filter(|&t| in_storable_range(t)) {
                if let Some(e) = self.refused_epoch(unit, b.len(), t / unit.ns(), Some(t)) {
                    return Err(e);
                }
                return Ok((t, false));
            }
        }
        self.parse_other(b)
    }

    /// Whether the format is epoch numbers (read by `epoch_int`).
    pub fn is_epoch(&self) -> bool {
        self.epoch.is_some()
    }

    /// An epoch number already read as an integer (a Parquet or Arrow column) in UTC ns,
    /// when the format is epoch numbers and it is in range: what `parse` gives for its digits.
    /// `None` leaves it to `parse` of its text, for the same result or error.
    #[inline]
    pub fn epoch_int(&self, v: i64) -> Option<i64> {
        // One that is refused is left to `parse`, which says why.
        let unit = self.epoch?;
        let t = v.checked_mul(unit.ns()).filter(|&t| in_storable_range(t))?;
        let digits = v.unsigned_abs().checked_ilog10().map_or(1, |d| d as usize + 1);
        self.refused_epoch(unit, digits, v, Some(t))
            .is_none()
            .then_some(t)
    }

    /// Why an epoch number of `digits` integer digits, `v` in `unit` (the time `t`, when its
    /// digits are plain), is no time of an input whose unit its magnitude chose: a plausible
    /// time in another unit (`Magnitude`), a date written `YYYYMMDD` (`DateNumber`), or too few
    /// digits for any (`Small`). `None`: it is the time it says.
    #[inline(always)]
    fn refused_epoch(&self, unit: EpochUnit, digits: usize, v: i64, t: Option<i64>) -> Option<TimeError> {
        let (fewest, most) = self.epoch_digits;
        if (digits < fewest || digits > most) && self.other_magnitude_is_a_time(v) {
            return Some(TimeError::Magnitude { unit });
        }
        if digits == 8 && t.is_some_and(|t| self.is_date_number(v, t)) {
            return Some(TimeError::DateNumber { unit });
        }
        (digits < fewest).then_some(TimeError::Small { unit })
    }

    #[inline(never)]
    fn parse_other(&mut self, b: &[u8]) -> Result<(i64, bool), TimeError> {
        match self.parse_placed(b) {
            // Rounded down to the nanosecond, the time is placed like any other.
            Err(TimeError::BelowNanosecond { floored_ns, naive }) => {
                let (t, _) = self.place(floored_ns, naive)?;
                Err(TimeError::BelowNanosecond { floored_ns: t, naive })
            }
            other => other,
        }
    }

    fn parse_placed(&mut self, b: &[u8]) -> Result<(i64, bool), TimeError> {
        let (t, naive) = match self.format {
            TimeFormat::Iso => match self.fast_iso(b) {
                Some(t) => t,
                None => self.format.parse(b)?,
            },
            f if f.is_time_of_day() => {
                let (tod, _) = f.parse(b)?;
                (self.date_ns + tod, true)
            }
            TimeFormat::Epoch(unit) => {
                let (t, naive) = self.format.parse(b)?;
                // Not plain digits (`-1`, `0.0`, `1709625600.5`): the integer part's digits
                // against the unit's, as `parse` counts them.
                let digits = epoch_magnitude(b.trim_ascii())
                    .checked_ilog10()
                    .map_or(1, |d| d as usize + 1);
                if let Some(e) = self.refused_epoch(*unit, digits, t / unit.ns(), None) {
                    return Err(e);
                }
                (t, naive)
            }
            f => f.parse(b)?,
        };
        // A date alone is a day, read as UTC's among times with offsets; a time is not.
        if naive && self.spec.refuse_naive && !super::dialect::is_date_only(b) {
            return Err(TimeError::Naive);
        }
        self.place(t, naive)
    }

    /// Whether the epoch number `v`, read in the unit of its own magnitude, is a plausible
    /// time: `1717200000` among milliseconds is seconds of 2024 (`Magnitude`); `0` or `60`
    /// among them is no time in any unit (`Small`).
    #[cold]
    fn other_magnitude_is_a_time(&self, v: i64) -> bool {
        let unit = unit_by_magnitude(v.unsigned_abs());
        v.checked_mul(unit.ns())
            .is_some_and(|t| self.plausible.contains(&t))
    }

    /// Whether the 8-digit epoch number `v` (read as the time `t`) is rather a date written
    /// `YYYYMMDD` among numbers whose unit their magnitude chose: `20240305` among seconds of
    /// 2024 is 5 March 2024, not a moment of August 1970. Kept when `t` itself is plausible or
    /// the digits are no plausible date; with `--time-unit` every number is what it says.
    #[cold]
    fn is_date_number(&self, v: i64, t: i64) -> bool {
        if !self.spec.unit_by_magnitude || self.plausible.contains(&t) {
            return false;
        }
        let (year, month, day) = (v / 10_000, (v / 100 % 100) as u32, (v % 100) as u32);
        chrono::NaiveDate::from_ymd_opt(year as i32, month, day)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .and_then(|d| d.and_utc().timestamp_nanos_opt())
            .is_some_and(|ns| self.plausible.contains(&ns))
    }

    /// A wall-clock time without a zone (an Arrow timestamp without a time zone, as pandas
    /// and DuckDB write naive times) → UTC, placed in the spec's zone as a naive text time is.
    pub fn naive_to_utc(&self, t: i64) -> Result<i64, TimeError> {
        self.place(t, true).map(|(t, _)| t)
    }

    /// A time read from the text → UTC: naive times are placed in the spec's zone.
    fn place(&self, t: i64, naive: bool) -> Result<(i64, bool), TimeError> {
        if !naive || self.spec.zone == Zone::Utc {
            if !in_storable_range(t) {
                return Err(TimeError::OutOfRange { year: None });
            }
            return Ok((t, naive));
        }
        let utc = local_to_utc(t, &self.spec.zone, self.spec.dst)?;
        if !in_storable_range(utc) {
            return Err(TimeError::OutOfRange { year: None });
        }
        Ok((utc, true))
    }

    #[inline(always)]
    fn fast_iso(&mut self, b: &[u8]) -> Option<(i64, bool)> {
        if b.len() < 19 || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
            return None;
        }
        let day_ns = match self.day_ns {
            Some(d) if b[..10] == self.date => d,
            _ => {
                let d = parse_iso(&b[..10])?;
                self.date.copy_from_slice(&b[..10]);
                self.day_ns = Some(d);
                d
            }
        };
        let two = |i: usize| -> Option<i64> {
            let (h, l) = (b[i].wrapping_sub(b'0'), b[i + 1].wrapping_sub(b'0'));
            (h <= 9 && l <= 9).then(|| i64::from(h * 10 + l))
        };
        let (hour, minute, second) = (two(11)?, two(14)?, two(17)?);
        if hour > 23 || minute > 59 || second > 59 {
            return None;
        }
        let mut rest = &b[19..];
        let mut frac_ns = 0i64;
        if let [b'.', tail @ ..] = rest {
            let n = tail.iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 || n > 9 {
                return None;
            }
            for &c in &tail[..n] {
                frac_ns = frac_ns * 10 + i64::from(c - b'0');
            }
            frac_ns *= 10i64.pow(9 - n as u32);
            rest = &tail[n..];
        }
        let naive = match rest {
            [] => true,
            [b'Z'] | [b'z'] => false,
            _ => return None,
        };
        let t = day_ns.checked_add((hour * 3600 + minute * 60 + second) * 1_000_000_000 + frac_ns)?;
        in_storable_range(t).then_some((t, naive))
    }
}

/// A naive local time (ns as if UTC) in `zone` → UTC ns.
pub fn local_to_utc(local_ns: i64, zone: &Zone, dst: Dst) -> Result<i64, TimeError> {
    use chrono::{LocalResult, Offset, TimeZone};
    match zone {
        Zone::Utc => Ok(local_ns),
        Zone::Fixed(offset) => local_ns
            .checked_sub(*offset)
            .ok_or(TimeError::OutOfRange { year: None }),
        Zone::Named(tz) => {
            let naive = chrono::DateTime::from_timestamp_nanos(local_ns).naive_utc();
            let offset_ns = |o: &chrono_tz::TzOffset| i64::from(o.fix().local_minus_utc()) * 1_000_000_000;
            let pick = |earlier: i64, later: i64| match dst {
                Dst::Earlier => Ok(earlier),
                Dst::Later => Ok(later),
                Dst::Refuse => Err(()),
            };
            match tz.offset_from_local_datetime(&naive) {
                LocalResult::Single(o) => Ok(local_ns - offset_ns(&o)),
                LocalResult::Ambiguous(a, b) => {
                    let (x, y) = (local_ns - offset_ns(&a), local_ns - offset_ns(&b));
                    pick(x.min(y), x.max(y)).map_err(|()| TimeError::DstOverlap(tz.name().into()))
                }
                LocalResult::None => {
                    // Read with the offset in force before the gap (earlier) or after it (later).
                    let day = chrono::Duration::hours(12);
                    let before = tz.offset_from_utc_datetime(&(naive - day));
                    let after = tz.offset_from_utc_datetime(&(naive + day));
                    pick(local_ns - offset_ns(&before), local_ns - offset_ns(&after))
                        .map_err(|()| TimeError::DstGap(tz.name().into()))
                }
            }
        }
    }
}

/// Parses `[-]digits[.digits]` scaled by `unit` into ns; fraction digits finer than 1 ns are
/// refused rather than silently dropped.
/// `parse_epoch_bytes` for the common case, plain digits (at most 18, so a u64 cannot
/// overflow), without its 128-bit arithmetic; `None` sends anything else to the general path.
#[inline(always)]
/// The times an epoch number may mean when nothing names it a time: 1980 to ten years from
/// now. Ids and counters read as epoch seconds fall outside (Binance's trade ids: 2106).
pub fn plausible_times() -> std::ops::RangeInclusive<i64> {
    use crate::db::time::NS_PER_SEC;
    const FROM_NS: i64 = 315_532_800 * NS_PER_SEC;
    const TEN_YEARS_NS: i64 = 10 * 366 * 86_400 * NS_PER_SEC;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    FROM_NS..=now.saturating_add(TEN_YEARS_NS)
}

fn fast_epoch(b: &[u8], unit: EpochUnit) -> Option<i64> {
    if b.is_empty() || b.len() > 18 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + u64::from(d);
    }
    (v as i64).checked_mul(unit.ns())
}

pub fn parse_epoch_bytes(b: &[u8], unit: EpochUnit) -> Result<i64, TimeError> {
    if let Some(plain) = b
        .iter()
        .any(|&c| c == b'e' || c == b'E')
        .then(|| sci_to_plain(b))
        .flatten()
    {
        return parse_epoch_bytes(&plain, unit);
    }
    let (negative, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() {
        return Err(TimeError::Unparsable);
    }
    let unit_ns = i128::from(unit.ns());
    let mut int: i128 = 0;
    let mut i = 0;
    while i < digits.len() && digits[i].is_ascii_digit() {
        int = int * 10 + i128::from(digits[i] - b'0');
        if int > i128::from(i64::MAX) {
            return Err(TimeError::OutOfRange { year: None });
        }
        i += 1;
    }
    if i == 0 {
        return Err(TimeError::Unparsable);
    }
    let mut ns = int * unit_ns;
    if i < digits.len() {
        if digits[i] != b'.' || i + 1 == digits.len() {
            return Err(TimeError::Unparsable);
        }
        let frac = &digits[i + 1..];
        let mut scale = unit_ns;
        for &c in frac {
            if !c.is_ascii_digit() {
                return Err(TimeError::Unparsable);
            }
            if c != b'0' && scale < 10 {
                return Err(TimeError::Unparsable);
            }
            scale /= 10;
            ns += i128::from(c - b'0') * scale;
        }
    }
    if negative {
        ns = -ns;
    }
    i64::try_from(ns).map_err(|_| TimeError::OutOfRange { year: None })
}

/// A failed ISO parse: out of range when it starts with a year outside the storable years.
fn iso_failure(b: &[u8]) -> TimeError {
    if b.len() >= 5 && b[4] == b'-' && b[..4].iter().all(u8::is_ascii_digit) {
        let year = b[..4].iter().fold(0i64, |n, &c| n * 10 + i64::from(c - b'0'));
        if !(MIN_YEAR..=MAX_YEAR).contains(&year) {
            return TimeError::OutOfRange { year: Some(year) };
        }
    }
    TimeError::Unparsable
}

/// An ISO time with neither `Z` nor an offset after the date.
fn iso_is_naive(b: &[u8]) -> bool {
    !b[10..]
        .iter()
        .any(|&c| c == b'Z' || c == b'z' || c == b'+' || c == b'-')
}

/// Whether a strftime pattern holds a date (or a whole epoch time), not only a time of day.
fn pattern_has_date(pattern: &str) -> bool {
    const DATE: [&str; 21] = [
        "%Y", "%y", "%C", "%m", "%b", "%B", "%h", "%d", "%e", "%j", "%D", "%F", "%x", "%c", "%+", "%s", "%G",
        "%g", "%U", "%W", "%V",
    ];
    DATE.iter().any(|d| pattern.contains(d))
}

/// The time of day of the clock digits `HHMMSS` followed by `frac` digits of the second (at
/// most 3), in ns; the hour may lack its leading zero. `240000…` is the next midnight.
pub fn parse_clock(b: &[u8], frac: u8) -> Result<i64, TimeError> {
    let frac = usize::from(frac.min(9));
    if b.len() < 5 + frac || b.len() > 6 + frac || !b.iter().all(u8::is_ascii_digit) {
        return Err(TimeError::Unparsable);
    }
    let n = epoch_magnitude(b);
    let scale = 10u64.pow(frac as u32);
    let (whole, part) = (n / scale, n % scale);
    let (h, m, s) = (whole / 10_000, whole / 100 % 100, whole % 100);
    if m >= 60 || s >= 60 || h > 24 || (h == 24 && (m, s, part) != (0, 0, 0)) {
        return Err(TimeError::Unparsable);
    }
    let ns = ((h * 60 + m) * 60 + s) as i64 * crate::db::time::NS_PER_SEC
        + (part * (1_000_000_000 / scale)) as i64;
    Ok(ns)
}

/// `DATE TIME` as `--time-column Date,Time` joins it: the date in `date`'s format, alone (its
/// midnight, naive; a date-time is not what is joined here), then a time of day that
/// `of_day` reads as ns since midnight. Naive.
fn date_and_time_of_day(
    date: &TimeFormat,
    b: &[u8],
    of_day: impl Fn(&[u8]) -> Result<i64, TimeError>,
) -> Result<(i64, bool), TimeError> {
    let at = b.iter().rposition(|&c| c == b' ').ok_or(TimeError::Unparsable)?;
    let (day, naive) = date.parse(b[..at].trim_ascii())?;
    if !naive || day.rem_euclid(NS_PER_DAY) != 0 {
        return Err(TimeError::Unparsable);
    }
    let t = day
        .checked_add(of_day(&b[at + 1..])?)
        .ok_or(TimeError::OutOfRange { year: None })?;
    Ok((t, true))
}

/// A clock written `HHMM`, its leading zeros optional (`930` is 09:30, `5` 00:05; `2400`,
/// the next midnight): ns since midnight.
pub fn parse_clock_minutes(b: &[u8]) -> Result<i64, TimeError> {
    if !(1..=4).contains(&b.len()) || !b.iter().all(u8::is_ascii_digit) {
        return Err(TimeError::Unparsable);
    }
    let n = epoch_magnitude(b);
    let (h, m) = (n / 100, n % 100);
    if m >= 60 || h > 24 || (h == 24 && m != 0) {
        return Err(TimeError::Unparsable);
    }
    Ok((h * 60 + m) as i64 * 60 * crate::db::time::NS_PER_SEC)
}

/// The first day of the quarter `b` writes: `YYYY` and `QN` (`N` from 1 to 4, `Q` in any
/// case) in either order, joined directly or by one `-`, `/`, `_` or space.
pub fn parse_quarter(b: &[u8]) -> Result<i64, TimeError> {
    let quarter = |q: &[u8]| match q {
        [b'Q' | b'q', n @ b'1'..=b'4'] => Some(u32::from(n - b'0')),
        _ => None,
    };
    let year = |y: &[u8]| {
        (y.len() == 4 && y.iter().all(u8::is_ascii_digit))
            .then(|| y.iter().fold(0i32, |n, &c| n * 10 + i32::from(c - b'0')))
    };
    let (y, q) = match b.len() {
        6 => (
            year(&b[..4]).zip(quarter(&b[4..])),
            year(&b[2..]).zip(quarter(&b[..2])),
        ),
        7 if matches!(b[4], b'-' | b'/' | b'_' | b' ') => (year(&b[..4]).zip(quarter(&b[5..])), None),
        7 if matches!(b[2], b'-' | b'/' | b'_' | b' ') => (None, year(&b[3..]).zip(quarter(&b[..2]))),
        _ => (None, None),
    };
    let (year, q) = y.or(q).ok_or(TimeError::Unparsable)?;
    let day = chrono::NaiveDate::from_ymd_opt(year, 3 * q - 2, 1).ok_or(TimeError::Unparsable)?;
    day.and_time(chrono::NaiveTime::MIN)
        .and_utc()
        .timestamp_nanos_opt()
        .ok_or(TimeError::OutOfRange {
            year: Some(i64::from(year)),
        })
}

/// The time a spreadsheet's serial number `b` writes (`44197.75` is 2021-01-01 18:00): days
/// since 1899-12-30, the fraction of a day rounded to the millisecond (spreadsheets keep times
/// as binary fractions, `0.0416666666666667` for 01:00, and show milliseconds at most). Days
/// before 61 are refused: Excel counts a 29 February 1900 that never was.
pub fn parse_serial_days(b: &[u8]) -> Result<i64, TimeError> {
    const DAY_MS: i128 = 86_400_000;
    let (int, frac) = match b.iter().position(|&c| c == b'.') {
        Some(p) => (&b[..p], &b[p + 1..]),
        None => (b, &b[b.len()..]),
    };
    let digits = |d: &[u8]| d.iter().all(u8::is_ascii_digit);
    if int.is_empty() || int.len() > 7 || frac.len() > 18 || !digits(int) || !digits(frac) {
        return Err(TimeError::Unparsable);
    }
    let days = int.iter().fold(0i128, |n, &c| n * 10 + i128::from(c - b'0'));
    if days < 61 {
        return Err(TimeError::Unparsable);
    }
    let scale = 10i128.pow(frac.len() as u32);
    let part = frac.iter().fold(0i128, |n, &c| n * 10 + i128::from(c - b'0'));
    // Rounded half up to the millisecond.
    let ms = (part * DAY_MS * 2 + scale) / (2 * scale);
    // 1899-12-30 is 25,569 days before 1970-01-01.
    let since_epoch_ms = (days - 25_569) * DAY_MS + ms;
    i64::try_from(since_epoch_ms * 1_000_000).map_err(|_| TimeError::OutOfRange { year: None })
}

/// The date `text` writes in `pattern`, a pattern of a date alone. A pattern without the day
/// (`%Y-%m`, `%b %Y`) names a month, one without the month either (`%Y`) a year, and a week
/// without its day (`%G-W%V`) that week: monthly, yearly and weekly series are stored at the
/// first day of each period (a week's Monday), which chrono leaves unset.
fn period_start(text: &str, pattern: &str) -> Option<chrono::NaiveDate> {
    use chrono::format::{parse, Parsed, StrftimeItems};
    let mut p = Parsed::new();
    parse(&mut p, text, StrftimeItems::new(pattern)).ok()?;
    let week = p.week_from_sun().is_some() || p.week_from_mon().is_some() || p.isoweek().is_some();
    if week && p.weekday().is_none() {
        // A week without its day (`2021-W05`, `%G-W%V`): its Monday, as ISO 8601 counts.
        p.set_weekday(chrono::Weekday::Mon).ok()?;
    }
    if p.day().is_none() && p.ordinal().is_none() && !week {
        if p.month().is_none() {
            p.set_month(1).ok()?;
        }
        p.set_day(1).ok()?;
    }
    p.to_naive_date().ok()
}

/// Whether a strftime pattern reads a time of day (an hour at least).
fn pattern_has_time(pattern: &str) -> bool {
    const TIME: [&str; 10] = ["%H", "%I", "%k", "%l", "%T", "%R", "%X", "%r", "%s", "%c"];
    TIME.iter().any(|t| pattern.contains(t))
}

fn parse_strftime(b: &[u8], pattern: &str) -> Result<(i64, bool), TimeError> {
    let text = std::str::from_utf8(b).map_err(|_| TimeError::Unparsable)?;
    let fraction;
    let (text, pattern) = match fraction_digits(text, pattern) {
        Some(read) => {
            fraction = read;
            (fraction.0.as_str(), fraction.1.as_str())
        }
        None => (text, pattern),
    };
    if !pattern_has_date(pattern) {
        // A time of day: ns since midnight, placed on a date by `TimeParser`.
        let t = chrono::NaiveTime::parse_from_str(text, pattern).map_err(|_| TimeError::Unparsable)?;
        let since_midnight = t - chrono::NaiveTime::MIN;
        let ns = since_midnight
            .num_nanoseconds()
            .ok_or(TimeError::OutOfRange { year: None })?;
        return Ok((ns, true));
    }
    let zoned = pattern.contains("%z") || pattern.contains("%:z") || pattern.contains("%#z");
    if zoned {
        let t = chrono::DateTime::parse_from_str(text, pattern).map_err(|_| TimeError::Unparsable)?;
        let ns = t
            .timestamp_nanos_opt()
            .ok_or(TimeError::OutOfRange { year: None })?;
        return Ok((ns, false));
    }
    let naive = naive_date_time(text, pattern)
        .or_else(|| hour_24(text, pattern))
        .ok_or(TimeError::Unparsable)?;
    let ns = naive
        .and_utc()
        .timestamp_nanos_opt()
        .ok_or(TimeError::OutOfRange { year: None })?;
    Ok((ns, true))
}

/// `%f` as Python's strptime (and most users) read it: the digits of a fraction of a second
/// (`09:30:01,083` under `%H:%M:%S,%f` is 83 ms), where chrono reads a count of nanoseconds
/// (83 ns). Returns `text` and `pattern` rewritten for chrono's `%.f`, a dot put before the
/// digits; `None` when `pattern` has no `%f` or its part before the `%f` does not read.
fn fraction_digits(text: &str, pattern: &str) -> Option<(String, String)> {
    use chrono::format::{parse_and_remainder, Parsed, StrftimeItems};
    // The first `%f` that is a directive (`%%f` is a percent sign and an `f`).
    let mut at = None;
    let mut i = 0;
    let p = pattern.as_bytes();
    while i + 1 < p.len() {
        if p[i] == b'%' {
            if p[i + 1] == b'f' {
                at = Some(i);
                break;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    let at = at?;
    let mut parsed = Parsed::new();
    let rest = parse_and_remainder(&mut parsed, text, StrftimeItems::new(&pattern[..at])).ok()?;
    let cut = text.len() - rest.len();
    Some((
        format!("{}.{rest}", &text[..cut]),
        format!("{}%.f{}", &pattern[..at], &pattern[at + 2..]),
    ))
}

/// The date and time `text` writes in `pattern`, a pattern with a date and no zone.
fn naive_date_time(text: &str, pattern: &str) -> Option<chrono::NaiveDateTime> {
    match chrono::NaiveDateTime::parse_from_str(text, pattern) {
        Ok(t) => Some(t),
        // chrono makes no time of an hour alone (`%Y%m%d%H`): its minute is 0.
        Err(_) if pattern_has_time(pattern) && !pattern.contains("%M") => {
            chrono::NaiveDateTime::parse_from_str(&format!("{text}\u{1}00"), &format!("{pattern}\u{1}%M"))
                .ok()
        }
        // A pattern of a date alone: its midnight. (One with a time is never cut to its date.)
        Err(_) if !pattern_has_time(pattern) => {
            period_start(text, pattern).map(|d| d.and_time(chrono::NaiveTime::MIN))
        }
        Err(_) => None,
    }
}

/// The hour 24 that hour-ending tables write for a day's last hour (`2024-01-01 24`, or
/// `24:00` under `%H:%M`), which chrono refuses: the next midnight. Each `24` of `text` is
/// tried as the hour, from the right; it is the hour when `text` with `00` there reads as a
/// midnight that `pattern` writes back exactly so (a `24` in the day or the year does not).
fn hour_24(text: &str, pattern: &str) -> Option<chrono::NaiveDateTime> {
    use std::fmt::Write;
    if !pattern.contains("%H") {
        return None;
    }
    text.rmatch_indices("24").find_map(|(at, _)| {
        let midnight = format!("{}00{}", &text[..at], &text[at + 2..]);
        let t = naive_date_time(&midnight, pattern)?;
        // With `write!`: `to_string` panics where the pattern writes what a naive time lacks.
        let mut written = String::new();
        let exact = t.time() == chrono::NaiveTime::MIN
            && write!(written, "{}", t.format(pattern)).is_ok()
            && written == midnight;
        exact
            .then(|| t.checked_add_signed(chrono::TimeDelta::days(1)))
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_numbers_in_scientific_notation_are_written_out_exactly() {
        let plain = |v: &str| sci_to_plain(v.as_bytes()).map(|p| String::from_utf8(p).unwrap());
        assert_eq!(plain("1.7043552e+09").as_deref(), Some("1704355200"));
        assert_eq!(
            plain("1.704355201500000000e+09").as_deref(),
            Some("1704355201.500000000")
        );
        assert_eq!(plain("-1.5E3").as_deref(), Some("-1500"));
        assert_eq!(plain("17e0").as_deref(), Some("17"));
        for bad in [
            "1.5e-03", "1.5e", "e5", "1.e5", ".5e5", "1.5e+100", "1,5e3", "1.5x3", "1.5e+3.0",
        ] {
            assert_eq!(plain(bad), None, "{bad}");
        }
        // The time is the plain number's, to the nanosecond: no float rounds it.
        assert_eq!(
            parse_epoch_bytes(b"1.704355201123456789e+09", EpochUnit::S),
            Ok(1_704_355_201_123_456_789)
        );
        assert_eq!(
            parse_epoch_bytes(b"1.7043552012e+12", EpochUnit::Ms),
            Ok(1_704_355_201_200_000_000)
        );
        assert!(is_epoch_number(b"1.7043552e+09") && !is_epoch_number(b"2.5E-03"));
        assert_eq!(epoch_magnitude(b"-1.7043552e+09"), 1_704_355_200);
    }

    /// The time `text` reads as under the strftime `pattern`, written in ISO.
    fn read_with(pattern: &str, text: &str) -> Result<String, TimeError> {
        TimeFormat::Strftime(pattern.into())
            .parse(text.as_bytes())
            .map(|(t, _)| crate::io::timefmt::format_iso_exact(t))
    }

    /// A xorshift generator: the same numbers from a seed on every run.
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    #[test]
    fn clock_digits_take_a_fraction_of_up_to_nine_digits() {
        const S: i64 = 1_000_000_000;
        let at = |h: i64, m: i64, s: i64| ((h * 60 + m) * 60 + s) * S;
        assert_eq!(parse_clock(b"093000", 0), Ok(at(9, 30, 0)));
        assert_eq!(parse_clock(b"93000123", 3), Ok(at(9, 30, 0) + 123_000_000));
        assert_eq!(parse_clock(b"093000123456", 6), Ok(at(9, 30, 0) + 123_456_000));
        // NYSE TAQ: HHMMSS and nanoseconds.
        assert_eq!(
            parse_clock(b"195959999999999", 9),
            Ok(at(19, 59, 59) + 999_999_999)
        );
        assert_eq!(parse_clock(b"40000012345678", 9), Ok(at(4, 0, 0) + 12_345_678));
        for (bad, frac) in [
            ("096000000000000", 9),
            ("250000000000000", 9),
            ("0930001234567", 9),
            ("0930001", 6),
        ] {
            assert!(parse_clock(bad.as_bytes(), frac).is_err(), "{bad}");
        }
    }

    #[test]
    fn hour_24_is_the_next_midnight() {
        let at = read_with;
        let t = |s: &str| Ok(s.to_string());
        assert_eq!(at("%Y-%m-%d %H", "2024-01-24 24"), t("2024-01-25T00:00:00Z"));
        assert_eq!(at("%Y-%m-%d %H", "2024-12-31 24"), t("2025-01-01T00:00:00Z"));
        assert_eq!(
            at("%Y-%m-%d %H:%M", "2024-02-28 24:00"),
            t("2024-02-29T00:00:00Z")
        );
        assert_eq!(at("%m/%d/%Y %H", "01/24/2024 24"), t("2024-01-25T00:00:00Z"));
        assert_eq!(at("%Y-%m-%d %H", "2024-01-24 23"), t("2024-01-24T23:00:00Z"));
        // Only a whole midnight: 24:30 is no time, and a 24 elsewhere is no hour.
        for bad in ["2024-01-24 24:30", "2024-01-32 24:00", "2024-01-24 25:00"] {
            assert_eq!(at("%Y-%m-%d %H:%M", bad), Err(TimeError::Unparsable), "{bad}");
        }
        assert_eq!(at("%Y-%m-%d", "2024-01-24"), t("2024-01-24T00:00:00Z"));
        // The last day chrono can write has no next midnight: no time, not a panic.
        assert_eq!(at("%Y-%m-%d %H", "+262142-12-31 24"), Err(TimeError::Unparsable));
    }

    /// Random instants on the millisecond, written as a spreadsheet writes them (days, then 10
    /// decimals of the day: 15 significant digits), and random quarters in every spelling,
    /// read back against chrono's calendar.
    #[test]
    fn serial_days_and_quarters_read_back_what_was_written() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15u64);
        const DAY_MS: i64 = 86_400_000;
        let (from, to) = (-25_508 * DAY_MS, 84_000 * DAY_MS); // 1900-03-01 to 2199
        for _ in 0..100_000 {
            let t_ms = from + (next() % (to - from) as u64) as i64;
            let days = t_ms.div_euclid(DAY_MS) + 25_569;
            let fraction = t_ms.rem_euclid(DAY_MS) as f64 / DAY_MS as f64;
            let text = format!("{days}{}", &format!("{fraction:.10}")[1..]);
            assert_eq!(parse_serial_days(text.as_bytes()), Ok(t_ms * 1_000_000), "{text}");
        }
        for _ in 0..20_000 {
            let year = 1678 + (next() % (2262 - 1678)) as i32;
            let q = 1 + (next() % 4) as u32;
            let letter = if next().is_multiple_of(2) { 'Q' } else { 'q' };
            let sep = ["", "-", "/", "_", " "][(next() % 5) as usize];
            let text = if next().is_multiple_of(2) {
                format!("{year}{sep}{letter}{q}")
            } else {
                format!("{letter}{q}{sep}{year}")
            };
            let first = chrono::NaiveDate::from_ymd_opt(year, 3 * q - 2, 1).unwrap();
            let expected = first
                .and_time(chrono::NaiveTime::MIN)
                .and_utc()
                .timestamp_nanos_opt();
            assert_eq!(parse_quarter(text.as_bytes()).ok(), expected, "{text}");
        }
    }

    #[test]
    fn the_epoch_fast_path_agrees_with_the_general_parser() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1Du64);
        let alphabet = b"0123456789000999-+. x";
        for round in 0..200_000 {
            let len = (next() % 22) as usize;
            // Mostly digits; sometimes a sign, a point or junk anywhere.
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    let k = if round % 3 == 0 {
                        next() % alphabet.len() as u64
                    } else {
                        next() % 10
                    };
                    alphabet[k as usize]
                })
                .collect();
            for unit in [EpochUnit::S, EpochUnit::Ms, EpochUnit::Us, EpochUnit::Ns] {
                let spec = TimeSpec::utc(TimeFormat::Epoch(unit));
                let general = TimeFormat::Epoch(unit).parse(&text);
                let mut parser = TimeParser::new(&spec, None);
                let fast = parser.parse(&text);
                assert_eq!(fast, general, "{:?} in {unit:?}", String::from_utf8_lossy(&text));
                if let Some(t) = fast_epoch(&text, unit) {
                    assert_eq!(
                        Ok(t),
                        parse_epoch_bytes(&text, unit),
                        "{:?}",
                        String::from_utf8_lossy(&text)
                    );
                }
            }
        }
    }

    #[test]
    fn epochs_parse_in_every_unit() {
        let f = |text: &str, unit| parse_epoch_bytes(text.as_bytes(), unit);
        assert_eq!(f("1723161255", EpochUnit::S), Ok(1_723_161_255_000_000_000));
        assert_eq!(f("1723161255.342", EpochUnit::S), Ok(1_723_161_255_342_000_000));
        assert_eq!(f("1723161255342", EpochUnit::Ms), Ok(1_723_161_255_342_000_000));
        assert_eq!(
            f("1723161255342001", EpochUnit::Us),
            Ok(1_723_161_255_342_001_000)
        );
        assert_eq!(f("-1", EpochUnit::Ns), Ok(-1));
        assert_eq!(f("1.5", EpochUnit::Ns), Err(TimeError::Unparsable));
        assert_eq!(f("12x", EpochUnit::S), Err(TimeError::Unparsable));
        assert!(f("99999999999999999999", EpochUnit::S).is_err());
        assert_eq!(unit_by_magnitude(1_723_161_255), EpochUnit::S);
        assert_eq!(unit_by_magnitude(1_723_161_255_342), EpochUnit::Ms);
        assert_eq!(unit_by_magnitude(1_723_161_255_342_000), EpochUnit::Us);
        assert_eq!(unit_by_magnitude(1_723_161_255_342_000_000), EpochUnit::Ns);
    }

    #[test]
    fn the_fast_iso_path_agrees_with_the_full_parser() {
        let iso = TimeFormat::Iso;
        let spec = TimeSpec::utc(TimeFormat::Iso);
        let mut p = TimeParser::new(&spec, None);
        for text in [
            "2024-08-08T23:54:15Z",
            "2024-08-08T23:54:15.5Z",
            "2024-08-08 23:54:15.123456789",
            "2024-08-08T23:54:16.1234567890Z",
            "2024-08-08T24:00:00Z",
            "2024-08-09T00:00:00+01:00",
            "2024-02-30T00:00:00Z",
            "2261-12-31T23:59:59.999999999Z",
            "1678-01-01T00:00:00Z",
            "2024-08-08T23:54:15.Z",
            "2024-08-08T23:54:1xZ",
            "2024-08-08T23:54",
        ] {
            assert_eq!(p.parse(text.as_bytes()), iso.parse(text.as_bytes()), "{text}");
        }
    }

    #[test]
    fn zones_stated_in_headers() {
        let hour = 3_600_000_000_000;
        let z = Zone::in_header;
        assert_eq!(z("Timestamp (UTC+01:00)"), Some(Zone::Fixed(hour)));
        assert_eq!(z("Date Time, GMT-05:00"), Some(Zone::Fixed(-5 * hour)));
        assert_eq!(z("time_gmt+1"), Some(Zone::Fixed(hour)));
        assert_eq!(
            z("Zeit (UTC \u{2212}0530)"),
            Some(Zone::Fixed(-(5 * hour + hour / 2)))
        );
        assert_eq!(
            z("Date (Europe/Berlin)"),
            Some(Zone::Named(chrono_tz::Europe::Berlin))
        );
        assert_eq!(z("time (Etc/GMT+5)"), Some(Zone::Named(chrono_tz::Etc::GMTPlus5)));
        assert_eq!(z("Time UTC+00:00 (local UTC+02:00)"), None);
        assert_eq!(z("Time (converted from GMT+2 to UTC)"), None);
        assert_eq!(z("Zeit (UTC+01:00 / UTC+02:00 Sommerzeit)"), None);
        assert_eq!(z("t (UTC+1, GMT+01:00)"), Some(Zone::Fixed(hour)));
        assert_eq!(
            z("(GMT+0 / Europe/London)"),
            Some(Zone::Named(chrono_tz::Europe::London))
        );
        for none in [
            "time",
            "time (UTC)",
            "Timestamp UTC+00:00",
            "a/b",
            "utc_time",
            "Etc/UTC",
            "GMT+99",
        ] {
            assert_eq!(z(none), None, "{none}");
        }
    }

    #[test]
    fn interval_ends_with_a_zone_after_them_are_placed_at_its_offset() {
        let f = TimeFormat::Interval(Box::new(TimeFormat::Flex(DateOrder::Dmy)));
        let at = |text: &str| f.parse(text.as_bytes());
        // 2024-10-27 02:00 in Berlin, twice: 00:00Z in summer time, 01:00Z in winter time.
        let day = 1_729_987_200_000_000_000;
        let h = 3_600_000_000_000;
        assert_eq!(
            at("27/10/2024 02:00:00 (CEST) - 27/10/2024 02:15:00 (CEST)"),
            Ok((day, false))
        );
        assert_eq!(
            at("27/10/2024 02:00:00 (CET) - 27/10/2024 02:15:00 (CET)"),
            Ok((day + h, false))
        );
        // No offset in `(CET/CEST)`: naive, for --timezone to place.
        assert_eq!(
            at("27/10/2024 02:00:00 - 27/10/2024 03:00:00 (CET/CEST)"),
            Ok((day + 2 * h, true))
        );
        // An abbreviation that names several zones stays unreadable.
        assert!(at("27/10/2024 02:00:00 (CST) - 27/10/2024 02:15:00 (CST)").is_err());
        assert_eq!(zone_after(b"01:00 (UTC)"), Some((&b"01:00"[..], Some(0))));
        assert_eq!(zone_after(b"01:00"), None);
    }

    #[test]
    fn percent_f_reads_the_digits_of_a_fraction() {
        // chrono alone read `083` as 83 ns; Python's strptime, and users, as 83 ms.
        let at = |text: &str, pattern: &str| TimeFormat::Strftime(pattern.into()).parse(text.as_bytes());
        let second = 1_609_752_601_000_000_000;
        assert_eq!(
            at("2021-01-04 09:30:01,083", "%Y-%m-%d %H:%M:%S,%f"),
            Ok((second + 83_000_000, true))
        );
        assert_eq!(
            at("2021-01-04 09:30:01.083", "%Y-%m-%d %H:%M:%S.%f"),
            Ok((second + 83_000_000, true))
        );
        // NinjaTrader's seven digits (100 ns), and a pattern that goes on after the fraction.
        assert_eq!(
            at("20210104 093001 1230000", "%Y%m%d %H%M%S %f"),
            Ok((second + 123_000_000, true))
        );
        assert_eq!(
            at("09:30:01.5 04/01/2021", "%H:%M:%S.%f %d/%m/%Y"),
            Ok((second + 500_000_000, true))
        );
        // `%.f` and `%%f` keep their meaning.
        assert_eq!(
            at("2021-01-04 09:30:01.25", "%Y-%m-%d %H:%M:%S%.f"),
            Ok((second + 250_000_000, true))
        );
        assert_eq!(
            at("2021-01-04 09:30:01 %f", "%Y-%m-%d %H:%M:%S %%f"),
            Ok((second, true))
        );
    }

    #[test]
    fn iso_and_strftime_report_naive_and_range() {
        assert_eq!(
            TimeFormat::Iso.parse(b"2024-08-08 23:54:15"),
            Ok((1_723_161_255_000_000_000, true))
        );
        assert_eq!(
            TimeFormat::Iso.parse(b"2024-08-08T23:54:15Z"),
            Ok((1_723_161_255_000_000_000, false))
        );
        assert_eq!(
            TimeFormat::Iso.parse(b"9999-01-01"),
            Err(TimeError::OutOfRange { year: Some(9999) })
        );
        let f = TimeFormat::Strftime("%d/%m/%Y %H:%M:%S".into());
        assert_eq!(
            f.parse(b"08/08/2024 23:54:15"),
            Ok((1_723_161_255_000_000_000, true))
        );
        let d = TimeFormat::Strftime("%Y%m%d".into());
        assert_eq!(d.parse(b"20240808"), Ok((1_723_075_200_000_000_000, true)));
    }

    #[test]
    fn months_quarters_and_years_are_placed_at_their_first_day() {
        let at = read_with;
        let day = |d: &str| Ok(format!("{d}T00:00:00Z"));
        assert_eq!(at("%Y-%m", "1949-01"), day("1949-01-01"));
        assert_eq!(at("%Y/%m", "2021/12"), day("2021-12-01"));
        assert_eq!(at("%Y%m", "202102"), day("2021-02-01"));
        assert_eq!(at("%b %Y", "Mar 2020"), day("2020-03-01"));
        assert_eq!(at("%Y", "1880"), day("1880-01-01"));
        // A day of the year names its own day; a week alone its Monday.
        assert_eq!(at("%Y-%j", "2021-032"), day("2021-02-01"));
        assert_eq!(at("%G-W%V", "2021-W05"), day("2021-02-01"));
        assert_eq!(at("%G-W%V-%u", "2021-W05-3"), day("2021-02-03"));
        assert_eq!(at("%Y-%m-%d", "2021-02-03"), day("2021-02-03"));
        for bad in ["1949-13", "1949-1x", "1949", "1949-01-02"] {
            assert_eq!(at("%Y-%m", bad), Err(TimeError::Unparsable), "{bad}");
        }
        for (text, first_day) in [
            ("1990Q1", "1990-01-01"),
            ("1990-Q2", "1990-04-01"),
            ("1990 q3", "1990-07-01"),
            ("Q4 1990", "1990-10-01"),
            ("Q4-2021", "2021-10-01"),
            ("q12021", "2021-01-01"),
        ] {
            let t = parse_quarter(text.as_bytes()).map(crate::io::timefmt::format_iso_exact);
            assert_eq!(t, day(first_day), "{text}");
        }
        for bad in ["1990Q5", "1990Q0", "1990Q", "90Q1", "1990-Q1-", "1990--Q1", "Q1"] {
            assert_eq!(parse_quarter(bad.as_bytes()), Err(TimeError::Unparsable), "{bad}");
        }
        let serial =
            |text: &str| parse_serial_days(text.as_bytes()).map(crate::io::timefmt::format_iso_exact);
        assert_eq!(serial("44197"), day("2021-01-01"));
        assert_eq!(serial("44197.0"), day("2021-01-01"));
        assert_eq!(serial("44197.0416666667"), Ok("2021-01-01T01:00:00Z".into()));
        assert_eq!(serial("44197.75"), Ok("2021-01-01T18:00:00Z".into()));
        assert_eq!(serial("44197.500011574"), Ok("2021-01-01T12:00:01Z".into()));
        assert_eq!(serial("61"), day("1900-03-01"));
        for bad in ["60", "-1", "4.4e4", "44197.", "", "1e5", "44197,5"] {
            let expected = if bad == "44197." {
                day("2021-01-01")
            } else {
                Err(TimeError::Unparsable)
            };
            assert_eq!(serial(bad), expected, "{bad}");
        }
        // `%Y` takes any number of digits: year 49 is outside the storable years.
        assert_eq!(at("%Y-%m", "49-01"), Err(TimeError::OutOfRange { year: None }));
    }

    #[test]
    fn a_small_number_among_epochs_by_magnitude_is_no_time() {
        let by_magnitude = |unit| TimeSpec {
            unit_by_magnitude: true,
            ..TimeSpec::utc(TimeFormat::Epoch(unit))
        };
        let ms = by_magnitude(EpochUnit::Ms);
        let mut p = TimeParser::new(&ms, None);
        assert_eq!(p.parse(b"1709625600000"), Ok((1_709_625_600_000_000_000, false)));
        for small in [&b"0"[..], b"-1", b"60", b"0.0", b"99999999999"] {
            assert_eq!(
                p.parse(small),
                Err(TimeError::Small { unit: EpochUnit::Ms }),
                "{small:?}"
            );
        }
        // What else it may be is said first: seconds of 2024 (with a fraction too), a date.
        for seconds in [&b"1709625600"[..], b"1709625600.5"] {
            assert_eq!(
                p.parse(seconds),
                Err(TimeError::Magnitude { unit: EpochUnit::Ms })
            );
        }
        assert_eq!(
            p.parse(b"20240305"),
            Err(TimeError::DateNumber { unit: EpochUnit::Ms })
        );
        assert_eq!(p.epoch_int(0), None);
        assert_eq!(p.epoch_int(1_709_625_600_000), Some(1_709_625_600_000_000_000));
        // Seconds: before 1970-04-27 (fewer than 7 digits) no time of an epoch seconds file.
        let s = by_magnitude(EpochUnit::S);
        let mut p = TimeParser::new(&s, None);
        assert_eq!(p.parse(b"999999"), Err(TimeError::Small { unit: EpochUnit::S }));
        assert_eq!(p.parse(b"1000000"), Ok((1_000_000_000_000_000, false)));
        // Given the unit, every number is the time it says.
        let given = TimeSpec::utc(TimeFormat::Epoch(EpochUnit::Ms));
        let mut p = TimeParser::new(&given, None);
        assert_eq!(p.parse(b"0"), Ok((0, false)));
        assert_eq!(p.epoch_int(0), Some(0));
    }
}
