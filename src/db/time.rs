//! Calendar and partition arithmetic on i64 nanoseconds since 1970-01-01T00:00:00Z (UTC only).
//!
//! Civil-date conversion follows Howard Hinnant's `days_from_civil` / `civil_from_days`
//! algorithms: exact for the proleptic Gregorian calendar, no tables, no allocation.

use std::fmt;

pub const NS_PER_US: i64 = 1_000;
pub const NS_PER_MS: i64 = 1_000_000;
pub const NS_PER_SEC: i64 = 1_000_000_000;
pub const NS_PER_MIN: i64 = 60 * NS_PER_SEC;
pub const NS_PER_HOUR: i64 = 60 * NS_PER_MIN;
pub const NS_PER_DAY: i64 = 24 * NS_PER_HOUR;

/// First year whose every instant fits in i64 nanoseconds (i64 ends in 1677 and 2262).
pub const MIN_YEAR: i64 = 1678;
/// Last year whose every instant fits in i64 nanoseconds.
pub const MAX_YEAR: i64 = 2261;
/// Earliest storable timestamp: 1678-01-01T00:00:00Z.
pub const MIN_TIME_NS: i64 = -9_214_560_000 * NS_PER_SEC;
/// First timestamp past the storable range: 2262-01-01T00:00:00Z.
pub const END_TIME_NS: i64 = 9_214_646_400 * NS_PER_SEC;

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1..=12, day 1..=31).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// (year, month 1..=12, day 1..=31) of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32; // 1..=31 by construction
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32; // 1..=12 by construction
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// Whether `t_ns` lies in the storable range [1678-01-01, 2262-01-01).
pub fn in_storable_range(t_ns: i64) -> bool {
    (MIN_TIME_NS..END_TIME_NS).contains(&t_ns)
}

/// How much time one partition file covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Period {
    Year,
    Month,
    Day,
}

impl Period {
    pub fn name(self) -> &'static str {
        match self {
            Period::Year => "year",
            Period::Month => "month",
            Period::Day => "day",
        }
    }

    pub fn parse(text: &str) -> Option<Period> {
        match text {
            "year" => Some(Period::Year),
            "month" => Some(Period::Month),
            "day" => Some(Period::Day),
            _ => None,
        }
    }

    /// The longest partition of this period in nanoseconds (a leap year, a 31-day month).
    pub fn max_len_ns(self) -> i64 {
        match self {
            Period::Year => 366 * NS_PER_DAY,
            Period::Month => 31 * NS_PER_DAY,
            Period::Day => NS_PER_DAY,
        }
    }
}

impl fmt::Display for Period {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One partition: a calendar year, month or day (UTC). `month`/`day` are 0 where the period
/// does not use them. Ordered by time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PartitionKey {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub period: Period,
}

impl PartitionKey {
    /// The partition holding `t_ns`. The caller keeps `t_ns` within the storable range.
    pub fn of(period: Period, t_ns: i64) -> PartitionKey {
        let (year, month, day) = civil_from_days(t_ns.div_euclid(NS_PER_DAY));
        match period {
            Period::Year => PartitionKey {
                year,
                month: 0,
                day: 0,
                period,
            },
            Period::Month => PartitionKey {
                year,
                month,
                day: 0,
                period,
            },
            Period::Day => PartitionKey {
                year,
                month,
                day,
                period,
            },
        }
    }

    /// First nanosecond of the partition. Fits i64 for years in [MIN_YEAR, MAX_YEAR].
    pub fn start_ns(&self) -> i64 {
        days_from_civil(self.year, self.month.max(1), self.day.max(1)) * NS_PER_DAY
    }

    /// First nanosecond after the partition (may be END_TIME_NS for the last year).
    pub fn end_ns(&self) -> i64 {
        self.next().start_ns()
    }

    pub fn next(&self) -> PartitionKey {
        let mut k = *self;
        match self.period {
            Period::Year => k.year += 1,
            Period::Month => {
                if k.month == 12 {
                    k.year += 1;
                    k.month = 1;
                } else {
                    k.month += 1;
                }
            }
            Period::Day => {
                if k.day < days_in_month(k.year, k.month) {
                    k.day += 1;
                } else {
                    k.day = 1;
                    if k.month == 12 {
                        k.year += 1;
                        k.month = 1;
                    } else {
                        k.month += 1;
                    }
                }
            }
        }
        k
    }

    /// File name, derived from numbers only: `2017.xs`, `2017-03.xs`, `2017-03-05.xs`.
    pub fn file_name(&self) -> String {
        format!("{self}.xs")
    }

    /// Inverse of `file_name` for this period; `None` for any other name.
    pub fn parse_file_name(period: Period, name: &str) -> Option<PartitionKey> {
        let stem = name.strip_suffix(".xs")?;
        PartitionKey::parse(period, stem)
    }

    /// Parses `2017`, `2017-03` or `2017-03-05` (the form the period uses).
    pub fn parse(period: Period, text: &str) -> Option<PartitionKey> {
        let parts: Vec<&str> = text.split('-').collect();
        let wanted = match period {
            Period::Year => 1,
            Period::Month => 2,
            Period::Day => 3,
        };
        if parts.len() != wanted
            || parts
                .iter()
                .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
        {
            return None;
        }
        let year: i64 = parts[0].parse().ok()?;
        if parts[0].len() != 4 || !(MIN_YEAR..=MAX_YEAR).contains(&year) {
            return None;
        }
        let month: u32 = if wanted >= 2 { parts[1].parse().ok()? } else { 0 };
        let day: u32 = if wanted == 3 { parts[2].parse().ok()? } else { 0 };
        if wanted >= 2 && (parts[1].len() != 2 || !(1..=12).contains(&month)) {
            return None;
        }
        if wanted == 3 && (parts[2].len() != 2 || day < 1 || day > days_in_month(year, month)) {
            return None;
        }
        Some(PartitionKey {
            year,
            month,
            day,
            period,
        })
    }
}

impl fmt::Display for PartitionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.period {
            Period::Year => write!(f, "{:04}", self.year),
            Period::Month => write!(f, "{:04}-{:02}", self.year, self.month),
            Period::Day => write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day),
        }
    }
}

/// A granularity: a positive duration in nanoseconds that divides one day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Granularity(i64);

impl Granularity {
    pub fn from_ns(ns: i64) -> Option<Granularity> {
        (ns > 0 && NS_PER_DAY % ns == 0).then_some(Granularity(ns))
    }

    pub fn ns(self) -> i64 {
        self.0
    }

    /// Digits of second fractions needed to print any multiple of this granularity exactly.
    pub fn fraction_digits(self) -> u32 {
        let mut digits = 0;
        let mut unit = NS_PER_SEC;
        while self.0 % unit != 0 {
            digits += 1;
            unit /= 10;
        }
        digits
    }
}

impl fmt::Display for Granularity {
    /// The largest unit that expresses the value exactly: `1ms`, `250ms`, `1m`, `1d`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_duration(self.0))
    }
}

const UNITS: [(&str, i64); 7] = [
    ("d", NS_PER_DAY),
    ("h", NS_PER_HOUR),
    ("m", NS_PER_MIN),
    ("s", NS_PER_SEC),
    ("ms", NS_PER_MS),
    ("us", NS_PER_US),
    ("ns", 1),
];

/// Formats a positive duration with the largest unit that expresses it exactly.
pub fn format_duration(ns: i64) -> String {
    for (name, unit) in UNITS {
        if ns % unit == 0 {
            return format!("{}{}", ns / unit, name);
        }
    }
    format!("{ns}ns")
}

/// Parses a duration like `1ns`, `10us`, `1µs`, `250ms`, `5s`, `1m`, `1min`, `2h`, `1d`.
pub fn parse_duration(text: &str) -> Option<i64> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let count: i64 = digits.parse().ok()?;
    let unit_ns = match unit {
        "ns" => 1,
        "us" | "µs" => NS_PER_US,
        "ms" => NS_PER_MS,
        "s" => NS_PER_SEC,
        "m" | "min" => NS_PER_MIN,
        "h" => NS_PER_HOUR,
        "d" => NS_PER_DAY,
        "w" => 7 * NS_PER_DAY,
        _ => return None,
    };
    count.checked_mul(unit_ns).filter(|&ns| ns > 0)
}

/// Why `parse_duration` refused `text`, when it is a number and a unit all the same: too
/// long for 64 bits of nanoseconds, or zero. `None` for text of no duration's shape.
pub fn duration_refusal(text: &str) -> Option<String> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (digits, unit) = text.split_at(split);
    if digits.is_empty() || parse_duration(&format!("1{unit}")).is_none() {
        return None;
    }
    Some(match digits.trim_start_matches('0').is_empty() {
        true => format!("duration `{text}` is zero: give a positive one"),
        false => {
            format!("duration `{text}` is too long: at most 106751d (2^63 nanoseconds, about 292 years)")
        }
    })
}

/// How naive times (without a zone in the text) are placed.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Zone {
    #[default]
    Utc,
    /// A fixed offset, local − UTC, in ns.
    Fixed(i64),
    /// An IANA zone, with its daylight-saving changes.
    Named(chrono_tz::Tz),
}

impl Zone {
    /// `UTC`, `±HH:MM` (or `±HH`, `±HHMM`), or an IANA name such as `America/New_York`.
    pub fn parse(text: &str) -> Option<Zone> {
        if text.eq_ignore_ascii_case("utc") || text == "Z" {
            return Some(Zone::Utc);
        }
        if let [sign @ (b'+' | b'-'), rest @ ..] = text.as_bytes() {
            let two = |x: &[u8]| std::str::from_utf8(x).ok()?.parse::<i64>().ok();
            let (h, m) = match rest {
                [_, _] => (two(rest)?, 0),
                [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => (two(&[*h1, *h2])?, two(&[*m1, *m2])?),
                _ => return None,
            };
            if h > 23 || m > 59 {
                return None;
            }
            let ns = (h * 3600 + m * 60) * 1_000_000_000;
            return Some(Zone::Fixed(if *sign == b'-' { -ns } else { ns }));
        }
        text.parse::<chrono_tz::Tz>().ok().map(Zone::Named)
    }

    /// The zone as `parse` reads it back (`America/New_York`, `-05:00`, `UTC`): the
    /// spelling of `--timezone` and of the config's `timezone`.
    pub fn spelling(&self) -> String {
        match self {
            Zone::Utc => "UTC".into(),
            Zone::Fixed(ns) => {
                let minutes = ns.abs() / 60_000_000_000;
                let sign = if *ns < 0 { '-' } else { '+' };
                format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
            }
            Zone::Named(tz) => tz.name().to_string(),
        }
    }

    /// The zone for messages: an offset reads `UTC-05:00`.
    pub fn describe(&self) -> String {
        match self {
            Zone::Fixed(_) => format!("UTC{}", self.spelling()),
            other => other.spelling(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duration_refused_for_its_size_says_so() {
        assert_eq!(parse_duration("106751d"), Some(106_751 * NS_PER_DAY));
        assert_eq!(parse_duration("106752d"), None);
        let too_long = duration_refusal("1000000d").unwrap();
        assert!(too_long.contains("too long: at most 106751d"), "{too_long}");
        assert!(duration_refusal("0s").unwrap().contains("is zero"));
        assert_eq!(duration_refusal("5 parsecs"), None);
        assert_eq!(duration_refusal("h"), None);
    }

    #[test]
    fn civil_round_trips_over_the_storable_range() {
        let first = days_from_civil(MIN_YEAR, 1, 1);
        let last = days_from_civil(MAX_YEAR, 12, 31);
        for days in (first..=last).step_by(37) {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(days_from_civil(2024, 2, 29)), (2024, 2, 29));
    }

    #[test]
    fn storable_bounds_are_year_starts() {
        assert_eq!(MIN_TIME_NS, days_from_civil(MIN_YEAR, 1, 1) * NS_PER_DAY);
        assert_eq!(END_TIME_NS, days_from_civil(MAX_YEAR + 1, 1, 1) * NS_PER_DAY);
    }

    #[test]
    fn partition_keys_cover_time_without_gaps() {
        for period in [Period::Year, Period::Month, Period::Day] {
            let mut key = PartitionKey::of(period, MIN_TIME_NS);
            let mut n = 0;
            while key.year < MAX_YEAR && n < 1000 {
                n += 1;
                let next = key.next();
                assert_eq!(key.end_ns(), next.start_ns());
                assert_eq!(PartitionKey::of(period, key.end_ns() - 1), key);
                assert_eq!(PartitionKey::parse_file_name(period, &key.file_name()), Some(key));
                key = next;
            }
        }
    }

    #[test]
    fn durations_parse_and_print() {
        assert_eq!(parse_duration("1ms"), Some(NS_PER_MS));
        assert_eq!(parse_duration("10µs"), Some(10 * NS_PER_US));
        assert_eq!(parse_duration("1min"), Some(NS_PER_MIN));
        assert_eq!(parse_duration("0s"), None);
        assert_eq!(parse_duration("1y"), None);
        assert_eq!(parse_duration("ms"), None);
        assert_eq!(format_duration(250 * NS_PER_MS), "250ms");
        assert_eq!(format_duration(NS_PER_DAY), "1d");
        assert!(Granularity::from_ns(7 * NS_PER_SEC).is_none());
        assert_eq!(Granularity::from_ns(10 * NS_PER_MS).unwrap().fraction_digits(), 2);
        assert_eq!(Granularity::from_ns(NS_PER_MIN).unwrap().fraction_digits(), 0);
        assert_eq!(Granularity::from_ns(1).unwrap().fraction_digits(), 9);
    }
}
