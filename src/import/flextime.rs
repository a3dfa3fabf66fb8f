//! Date-times in the common shapes that are not ISO-8601, read without a pattern: a date in a
//! known field order (`2011/07/31`, `31.07.2011`, `07/31/2011`, `20110731`), then optionally a
//! time (`22:00:00.123`, `22.00.00`, `2200`, `220000`, `220000123`), then optionally a zone
//! (`Z`, `±HH[:MM]`). A time without a date (a time of day) is read the same way. `24:00` is the
//! next midnight. The field order is fixed once per import by the inference, so one row costs
//! one pass over its bytes, without allocating.

use crate::db::time::{days_from_civil, NS_PER_DAY, NS_PER_HOUR, NS_PER_MIN, NS_PER_SEC};

/// Which field of a date is the year, the month and the day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateOrder {
    /// Year first: `2011-07-31`, `2011/07/31`, `20110731`.
    Ymd,
    /// Day first: `31/07/2011`, `31.07.2011`.
    Dmy,
    /// Month first: `07/31/2011`.
    Mdy,
    /// No date: a time of day.
    None,
}

impl DateOrder {
    pub fn describe(self) -> &'static str {
        match self {
            DateOrder::Ymd => "year-month-day",
            DateOrder::Dmy => "day/month/year",
            DateOrder::Mdy => "month/day/year",
            DateOrder::None => "a time of day",
        }
    }
}

/// What a flexible parse found: ns since 1970-01-01 (or since midnight for a time of day), and
/// whether a zone was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flex {
    pub t_ns: i64,
    pub zoned: bool,
}

/// The leading run of ASCII digits of `b` from `at`: (value, digit count); the value saturates.
#[inline]
fn digits(b: &[u8], at: usize) -> (u64, usize) {
    let mut n = 0u64;
    let mut i = at;
    while i < b.len() && b[i].is_ascii_digit() {
        n = n.saturating_mul(10).saturating_add(u64::from(b[i] - b'0'));
        i += 1;
    }
    (n, i - at)
}

/// Days since 1970-01-01 of a valid date, `None` for an impossible one.
fn civil_days(year: u64, month: u64, day: u64) -> Option<i64> {
    let year = i64::try_from(year).ok()?;
    let month = u32::try_from(month).ok()?;
    let day = u32::try_from(day).ok()?;
    if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    Some(days_from_civil(year, month, day))
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The year of a two-digit year after a day and a month with slashes (`1/13/24`, `13/01/24`, as
/// US and UK spreadsheets and weather loggers write them): 00–68 are 2000–2068 and 69–99
/// 1969–1999, as strptime's `%y` reads them.
pub fn century_of(two_digits: u64) -> u64 {
    if two_digits >= 69 {
        1900 + two_digits
    } else {
        2000 + two_digits
    }
}

/// Whether `b` starts with a date of a two-digit year (`1/13/24`), read by `century_of`.
pub fn has_two_digit_year(b: &[u8]) -> bool {
    date_fields(b).is_some_and(|(_, [nx, _, nz], _)| nz == 2 && nx <= 2 && b[nx] == b'/')
}

/// Whether `b` starts with a date that reads with a two-digit year first as well
/// (`24/01/06`: 2024-01-06, as Japanese and Chinese files write it).
pub fn reads_year_first(b: &[u8]) -> bool {
    date_fields(b).is_some_and(|([x, y, z], [nx, _, _], _)| {
        nx == 2 && b[nx] == b'/' && civil_days(century_of(x), y, z).is_some()
    })
}

/// The three numbers of a separated date, in text order, with where the date ends.
/// `None` when `b` does not start with `d{1,4}SEPd{1,2}SEPd{1,4}` (one separator of `-/.`).
#[inline]
pub fn date_fields(b: &[u8]) -> Option<([u64; 3], [usize; 3], usize)> {
    let (a, na) = digits(b, 0);
    if na == 0 || na > 4 {
        return None;
    }
    let sep = *b.get(na)?;
    if !matches!(sep, b'-' | b'/' | b'.') {
        return None;
    }
    let (m, nm) = digits(b, na + 1);
    if nm == 0 || nm > 2 || b.get(na + 1 + nm) != Some(&sep) {
        return None;
    }
    let at = na + 2 + nm;
    let (c, nc) = digits(b, at);
    if nc == 0 || nc > 4 {
        return None;
    }
    Some(([a, m, c], [na, nm, nc], at + nc))
}

/// The month a name starts with (`Jan`, `january`, any case), and the letters it takes.
fn month_name(b: &[u8]) -> Option<(u64, usize)> {
    const MONTHS: [&[u8]; 12] = [
        b"january",
        b"february",
        b"march",
        b"april",
        b"may",
        b"june",
        b"july",
        b"august",
        b"september",
        b"october",
        b"november",
        b"december",
    ];
    let (month, n) = name_at(b, &MONTHS, &[(b"sept", 8)])?;
    Some((month as u64 + 1, n))
}

/// Which of `names` the word at the start of `b` is, whole or cut short to 3 letters or more
/// (any case), or which of the `extra` spellings (text, index): its index and its letters.
fn name_at(b: &[u8], names: &[&[u8]], extra: &[(&[u8], usize)]) -> Option<(usize, usize)> {
    let n = b.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    if n < 3 {
        return None;
    }
    let word: Vec<u8> = b[..n].iter().map(u8::to_ascii_lowercase).collect();
    let index = names
        .iter()
        .position(|name| name.starts_with(&word))
        .or_else(|| {
            extra
                .iter()
                .find(|(text, _)| *text == word.as_slice())
                .map(|&(_, i)| i)
        })?;
    Some((index, n))
}

/// A date with the month as a word, which needs no field order: `02-Jan-2020`, `2 Jan 2020`,
/// `2020-Jan-02`, `Jan 2, 2020`, `January 2 2020`. Days since 1970 and where it ends.
fn named_month_date(b: &[u8]) -> Option<(i64, usize)> {
    let sep = |c: u8| matches!(c, b'-' | b'/' | b'.' | b' ');
    if let Some((month, n)) = month_name(b) {
        // Mon D[,] YYYY
        let mut at = n;
        at += usize::from(b.get(at).is_some_and(|&c| sep(c)));
        let (day, nd) = digits(b, at);
        if nd == 0 || nd > 2 {
            return None;
        }
        at += nd;
        at += usize::from(b.get(at) == Some(&b','));
        if !b.get(at).is_some_and(|&c| sep(c)) {
            return None;
        }
        at += 1;
        let (year, ny) = digits(b, at);
        if ny != 4 {
            return None;
        }
        return Some((civil_days(year, month, day)?, at + ny));
    }
    let (first, n1) = digits(b, 0);
    if n1 == 0 || n1 > 4 || !b.get(n1).is_some_and(|&c| sep(c)) {
        return None;
    }
    let (month, nm) = month_name(&b[n1 + 1..])?;
    let at = n1 + 1 + nm;
    if !b.get(at).is_some_and(|&c| sep(c)) {
        return None;
    }
    let (last, n3) = digits(b, at + 1);
    let (year, day) = match (n1, n3) {
        (4, 1 | 2) => (first, last),
        (1 | 2, 4) => (last, first),
        _ => return None,
    };
    Some((civil_days(year, month, day)?, at + 1 + n3))
}

/// Parses `b` as a date in `order` (absent for `DateOrder::None`), then an optional time and
/// zone. `None` when it does not have that shape or names an impossible date or time.
pub fn parse(b: &[u8], order: DateOrder) -> Option<Flex> {
    let b = if order == DateOrder::None {
        b
    } else {
        skip_weekday(b)
    };
    let mut at;
    let mut day_ns = 0i64;
    if order != DateOrder::None {
        let (compact, n) = digits(b, 0);
        let named = if order == DateOrder::Ymd {
            named_month_date(b)
        } else {
            None
        };
        let days = if let Some((days, end)) = named {
            at = end;
            days
        } else if n == 8 && order == DateOrder::Ymd {
            at = 8;
            civil_days(compact / 10_000, compact / 100 % 100, compact % 100)?
        } else {
            let ([x, y, z], [nx, _, nz], end) = date_fields(b)?;
            at = end;
            let (year, month, day, year_digits) = match order {
                DateOrder::Ymd => (x, y, z, nx),
                DateOrder::Dmy => (z, y, x, nz),
                DateOrder::Mdy => (z, x, y, nz),
                DateOrder::None => return None,
            };
            let year = match year_digits {
                4 => year,
                2 if order != DateOrder::Ymd && b[nx] == b'/' => century_of(year),
                _ => return None,
            };
            civil_days(year, month, day)?
        };
        day_ns = days.checked_mul(NS_PER_DAY)?;
        match b.get(at) {
            None => {
                return Some(Flex {
                    t_ns: day_ns,
                    zoned: false,
                })
            }
            // Kibana's `Jan 1, 2021 @ 00:00:00.000`.
            Some(b' ') if b[at..].starts_with(b" @ ") => at += 3,
            // `D` as kdb+ writes it: 2019.10.01D00:00:02.584432000; `_` as in file names;
            // `-` as DB2 writes it: 2021-01-01-00.00.00.000000.
            Some(b' ' | b'T' | b't' | b'D' | b'_') => at += 1,
            Some(b'-') if b.get(at + 1).is_some_and(u8::is_ascii_digit) => at += 1,
            Some(_) => return None,
        }
    } else {
        at = 0;
    }
    let (mut tod_ns, mut end) = time_of_day(b, at, order != DateOrder::None)?;
    if let Some((pm, after)) = meridiem(&b[end..]) {
        // 12-hour clock: 12:xx AM is just after midnight, 1-11 PM add twelve hours.
        let hour = tod_ns / NS_PER_HOUR;
        if !(1..=12).contains(&hour) {
            return None;
        }
        if pm && hour != 12 {
            tod_ns += 12 * NS_PER_HOUR;
        } else if !pm && hour == 12 {
            tod_ns -= 12 * NS_PER_HOUR;
        }
        end += after;
    }
    let (offset_ns, zoned) = zone(&b[end..])?;
    let t_ns = day_ns.checked_add(tod_ns)?.checked_sub(offset_ns)?;
    Some(Flex { t_ns, zoned })
}

/// `b` past a leading day of the week (`Fri, `, `Friday `, `fri `: as RFC 2822 and
/// JavaScript write dates), which the date itself says; `b` when it has none.
fn skip_weekday(b: &[u8]) -> &[u8] {
    const DAYS: [&[u8]; 7] = [
        b"monday",
        b"tuesday",
        b"wednesday",
        b"thursday",
        b"friday",
        b"saturday",
        b"sunday",
    ];
    let Some((_, n)) = name_at(b, &DAYS, &[(b"tues", 1), (b"thur", 3), (b"thurs", 3)]) else {
        return b;
    };
    let rest = &b[n..];
    let rest = rest.strip_prefix(b",").unwrap_or(rest);
    rest.strip_prefix(b" ").unwrap_or(b)
}

/// `HH:MM[:SS][.f]`, `HH.MM[.SS]`, and after a date also `HHMM`, `HHMMSS[f…]`, from `at`: ns
/// since midnight, and where it ends. Hour 24 is allowed only as `24:00[:00]` (the next midnight).
fn time_of_day(b: &[u8], at: usize, with_date: bool) -> Option<(i64, usize)> {
    let (first, n) = digits(b, at);
    let mut i = at + n;
    let (hour, minute, second, mut frac_ns);
    match n {
        1 | 2 => {
            let sep = *b.get(i)?;
            if sep != b':' && sep != b'.' {
                return None;
            }
            let (m, nm) = digits(b, i + 1);
            if nm != 2 {
                return None;
            }
            i += 1 + nm;
            hour = first;
            minute = m;
            second = if b.get(i) == Some(&sep) && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                let (s, ns) = digits(b, i + 1);
                if ns != 2 {
                    return None;
                }
                i += 1 + ns;
                s
            } else {
                0
            };
            frac_ns = 0;
        }
        4 if with_date => {
            hour = first / 100;
            minute = first % 100;
            second = 0;
            frac_ns = 0;
        }
        6..=15 => {
            // HHMMSS then fraction digits: `170000065` is 17:00:00.065. Only after a date: a
            // lone run of digits is not taken for a time of day.
            if !with_date {
                return None;
            }
            let n_int = 6;
            let mut whole = 0u64;
            for &c in &b[at..at + n_int] {
                whole = whole * 10 + u64::from(c - b'0');
            }
            hour = whole / 10_000;
            minute = whole / 100 % 100;
            second = whole % 100;
            let frac = &b[at + n_int..i];
            if frac.len() > 9 {
                return None;
            }
            frac_ns = 0;
            for &c in frac {
                frac_ns = frac_ns * 10 + i64::from(c - b'0');
            }
            frac_ns *= 10i64.pow(9 - frac.len() as u32);
        }
        _ => return None,
    }
    // A fraction after `HH:MM[:SS]`, or after a compact `HHMMSS` (`20210101T000000.123Z`).
    if (n <= 2 || n == 6)
        && matches!(b.get(i), Some(b'.' | b','))
        && b.get(i + 1).is_some_and(u8::is_ascii_digit)
    {
        let (_, nf) = digits(b, i + 1);
        if nf > 9 {
            return None;
        }
        let mut f = 0i64;
        for &c in &b[i + 1..i + 1 + nf] {
            f = f * 10 + i64::from(c - b'0');
        }
        frac_ns = f * 10i64.pow(9 - nf as u32);
        i += 1 + nf;
    }
    if minute > 59 || second > 59 || hour > 24 || (hour == 24 && (minute, second, frac_ns) != (0, 0, 0)) {
        return None;
    }
    let ns = hour as i64 * NS_PER_HOUR + minute as i64 * NS_PER_MIN + second as i64 * NS_PER_SEC + frac_ns;
    Some((ns, i))
}

/// `AM`/`PM` (any case, `a.m.`/`p.m.` too, one space before it allowed) at the start of `b`:
/// whether it is PM, and the bytes it takes.
fn meridiem(b: &[u8]) -> Option<(bool, usize)> {
    let skip = usize::from(b.first() == Some(&b' '));
    let rest = &b[skip..];
    let lower: Vec<u8> = rest.iter().take(4).map(u8::to_ascii_lowercase).collect();
    for (text, pm) in [
        (&b"a.m."[..], false),
        (b"p.m.", true),
        (b"am", false),
        (b"pm", true),
    ] {
        if lower.starts_with(text) {
            return Some((pm, skip + text.len()));
        }
    }
    // Davis WeatherLink's `12:05a`, `1:20p`: one lowercase letter right after the clock, ending
    // the value (a capital letter there could be a military zone).
    match b {
        b"a" => Some((false, 1)),
        b"p" => Some((true, 1)),
        _ => None,
    }
}

/// `b` (a zone) without the name that follows a numeric offset: Go's `+0000 UTC` and
/// `-0500 EST` (how its times print), RFC 9557's and Java's `+01:00[Europe/Paris]`. The offset
/// says which instant it is; the name only says where.
fn without_zone_name(b: &[u8]) -> &[u8] {
    if !matches!(b.first(), Some(b'+' | b'-')) {
        return b;
    }
    if let Some(open) = b.iter().position(|&c| c == b'[') {
        return if b.ends_with(b"]") { &b[..open] } else { b };
    }
    match b.iter().position(|&c| c == b' ') {
        Some(space)
            if (1..=6).contains(&(b.len() - space - 1))
                && b[space + 1..]
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || b"+-".contains(c)) =>
        {
            &b[..space]
        }
        _ => b,
    }
}

/// An optional zone after the time: nothing, `Z`, `±HH`, `±HHMM`, `±HH:MM`, or `UTC`/`GMT`
/// alone or before such an offset (`GMT+0100`, `UTC-5`), one space before it allowed, and
/// then a parenthesized name (`GMT+0100 (Central European Standard Time)`, as JavaScript
/// writes dates). After a numeric offset a zone name is allowed (`without_zone_name`). Other
/// zone names alone (`EST`, `CET`) mean different offsets to different people, and are
/// refused. Returns the offset (local − UTC) in ns and whether a zone was
/// given.
fn zone(b: &[u8]) -> Option<(i64, bool)> {
    let b = b.strip_prefix(b" ").unwrap_or(b);
    let b = without_zone_name(b);
    let named = b.len() >= 3 && (b[..3].eq_ignore_ascii_case(b"utc") || b[..3].eq_ignore_ascii_case(b"gmt"));
    let b = if named { &b[3..] } else { b };
    // The name JavaScript appends after the offset says no more than the offset does.
    let b = match b.iter().position(|&c| c == b'(') {
        Some(open) if named && b.ends_with(b")") && b[..open].ends_with(b" ") => &b[..open - 1],
        _ => b,
    };
    match b {
        [] if named => Some((0, true)),
        [] => Some((0, false)),
        [b'Z' | b'z'] if !named => Some((0, true)),
        [sign @ (b'+' | b'-'), rest @ ..] => {
            let two = |x: u8, y: u8| -> Option<i64> {
                (x.is_ascii_digit() && y.is_ascii_digit()).then(|| i64::from((x - b'0') * 10 + (y - b'0')))
            };
            let (h, m) = match rest {
                // `UTC+5`: one hour digit, only after a name (`+5` alone is not an offset).
                [h1] if named && h1.is_ascii_digit() => (i64::from(h1 - b'0'), 0),
                [h1, h2] => (two(*h1, *h2)?, 0),
                [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => (two(*h1, *h2)?, two(*m1, *m2)?),
                _ => return None,
            };
            if h > 23 || m > 59 {
                return None;
            }
            let offset = h * NS_PER_HOUR + m * NS_PER_MIN;
            Some((if *sign == b'+' { offset } else { -offset }, true))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY_2011_07_31: i64 = 15_186 * NS_PER_DAY;

    fn at(b: &str, order: DateOrder) -> Option<i64> {
        parse(b.as_bytes(), order).map(|f| f.t_ns)
    }

    #[test]
    fn two_digit_years_after_a_day_and_a_month_with_slashes_take_a_century() {
        let t = DAY_2011_07_31 + 22 * NS_PER_HOUR;
        assert_eq!(at("7/31/11 22:00", DateOrder::Mdy), Some(t));
        assert_eq!(at("31/07/11 10:00 PM", DateOrder::Dmy), Some(t));
        // 69-99 are the 1900s: 1999-12-31 is day 10,956.
        assert_eq!(at("12/31/99", DateOrder::Mdy), Some(10_956 * NS_PER_DAY));
        assert_eq!(at("1/1/69", DateOrder::Mdy), Some(-365 * NS_PER_DAY));
        assert_eq!(
            at("1/1/68", DateOrder::Mdy),
            Some(days_from_civil(2068, 1, 1) * NS_PER_DAY)
        );
        // Year first, dots, dashes, or three digits: not read.
        for v in ["11/07/31", "31.07.11", "31-07-11", "31/07/011"] {
            let order = if v.starts_with("11/") {
                DateOrder::Ymd
            } else {
                DateOrder::Dmy
            };
            assert_eq!(at(v, order), None, "{v}");
        }
        assert!(has_two_digit_year(b"1/13/24 12:05 AM"));
        assert!(!has_two_digit_year(b"1/13/2024") && !has_two_digit_year(b"13.01.24"));
    }

    #[test]
    fn a_lowercase_letter_after_the_clock_is_a_meridiem() {
        // Davis WeatherLink writes `12:05a` and `1:20p`.
        let noon = DAY_2011_07_31 + 12 * NS_PER_HOUR + 5 * NS_PER_MIN;
        assert_eq!(at("7/31/11 12:05p", DateOrder::Mdy), Some(noon));
        assert_eq!(
            at("7/31/11 12:05a", DateOrder::Mdy),
            Some(noon - 12 * NS_PER_HOUR)
        );
        assert_eq!(
            at("1:20p", DateOrder::None),
            Some(13 * NS_PER_HOUR + 20 * NS_PER_MIN)
        );
        for v in ["12:05 a", "12:05A", "12:05ap", "13:05p"] {
            assert_eq!(at(v, DateOrder::None), None, "{v}");
        }
    }

    #[test]
    fn dates_in_every_order_and_times_in_every_shape() {
        let t = DAY_2011_07_31 + 22 * NS_PER_HOUR;
        assert_eq!(at("2011/07/31 22:00:00", DateOrder::Ymd), Some(t));
        assert_eq!(at("20110731 22:00:00", DateOrder::Ymd), Some(t));
        assert_eq!(at("20110731 220000", DateOrder::Ymd), Some(t));
        assert_eq!(at("20110731 2200", DateOrder::Ymd), Some(t));
        // Three digits after a date are no clock here (`2024-03-07-001` is a batch id): the
        // import reads them as one only from a column of them (`TimeFormat::DateAndClock`).
        let bar = DAY_2011_07_31 + 9 * NS_PER_HOUR + 30 * NS_PER_MIN;
        assert_eq!(at("2011-07-31 0930", DateOrder::Ymd), Some(bar));
        assert_eq!(at("20110731 930", DateOrder::Ymd), None);
        assert_eq!(at("2011-07-31-001", DateOrder::Ymd), None);
        assert_eq!(at("930", DateOrder::None), None);
        assert_eq!(at("31/07/2011 22.00.00", DateOrder::Dmy), Some(t));
        assert_eq!(at("31.07.2011 22:00", DateOrder::Dmy), Some(t));
        assert_eq!(at("07/31/2011 22:00", DateOrder::Mdy), Some(t));
        assert_eq!(
            at("2011/07/31 22:00:00.123", DateOrder::Ymd),
            Some(t + 123_000_000)
        );
        assert_eq!(at("20110731 220000065", DateOrder::Ymd), Some(t + 65_000_000));
        assert_eq!(at("2011/07/31", DateOrder::Ymd), Some(DAY_2011_07_31));
        assert_eq!(at("2011-07-31T23:00:00+01:00", DateOrder::Ymd), Some(t));
        assert_eq!(at("2011-07-31 21:00:00.000-0100", DateOrder::Ymd), Some(t));
        // 24:00 is the next midnight; 24:01 and impossible dates are refused.
        assert_eq!(at("07/30/2011 24:00", DateOrder::Mdy), Some(DAY_2011_07_31));
        assert_eq!(at("07/30/2011 24:01", DateOrder::Mdy), None);
        assert_eq!(at("31/07/2011", DateOrder::Mdy), None);
        assert_eq!(at("2011/02/29", DateOrder::Ymd), None);
        assert_eq!(at("11/07/31", DateOrder::Ymd), None);
        assert_eq!(at("2011/07/31x", DateOrder::Ymd), None);
        // A 12-hour clock.
        assert_eq!(at("07/31/2011 10:00:00 PM", DateOrder::Mdy), Some(t));
        assert_eq!(
            at("07/31/2011 12:30 am", DateOrder::Mdy),
            Some(DAY_2011_07_31 + 30 * NS_PER_MIN)
        );
        assert_eq!(
            at("07/31/2011 12:00PM", DateOrder::Mdy),
            Some(DAY_2011_07_31 + 12 * NS_PER_HOUR)
        );
        assert_eq!(at("07/31/2011 13:00 PM", DateOrder::Mdy), None);
        assert_eq!(at("2011.07.31D22:00:00.000000000", DateOrder::Ymd), Some(t));
        // Kibana, file-name and DB2 separators; a compact time with a fraction.
        assert_eq!(at("Jul 31, 2011 @ 22:00:00.000", DateOrder::Ymd), Some(t));
        assert_eq!(at("2011-07-31_22:00:00", DateOrder::Ymd), Some(t));
        assert_eq!(at("2011-07-31-22.00.00.000000", DateOrder::Ymd), Some(t));
        assert_eq!(at("2011-07-31-", DateOrder::Ymd), None);
        assert_eq!(at("20110731T220000.123Z", DateOrder::Ymd), Some(t + 123_000_000));
        // A zone's name after its offset (Go, RFC 9557): the offset places the time.
        assert_eq!(at("2011-07-31 22:00:00 +0000 UTC", DateOrder::Ymd), Some(t));
        assert_eq!(
            at("2011-07-31 17:00:00.5 -0500 EST", DateOrder::Ymd),
            Some(t + 500_000_000)
        );
        assert_eq!(at("2011-08-01 01:00:00 +0300 +03", DateOrder::Ymd), Some(t));
        assert_eq!(
            at("2011-08-01T00:00:00+02:00[Europe/Paris]", DateOrder::Ymd),
            Some(t)
        );
        assert_eq!(at("2011-08-01T00:00:00+02:00[Europe/Paris", DateOrder::Ymd), None);
        assert_eq!(at("2011-07-31 22:00:00 EST", DateOrder::Ymd), None);
        assert_eq!(at("2011-07-31 22:00:00 +0000 Coordinated", DateOrder::Ymd), None);
        // Month names.
        for text in [
            "31-Jul-2011 22:00",
            "31 Jul 2011 22:00:00",
            "2011-Jul-31 22:00",
            "Jul 31, 2011 22:00",
            "July 31 2011 10:00 PM",
        ] {
            assert_eq!(at(text, DateOrder::Ymd), Some(t), "{text}");
        }
        assert_eq!(at("31-Jux-2011", DateOrder::Ymd), None);
        // Zones by name: UTC and GMT, alone or with an offset; a day of the week before.
        for text in [
            "2011-07-31 22:00:00 UTC",
            "2011-07-31 22:00:00UTC",
            "2011-07-31 23:00:00 GMT+0100",
            "2011-07-31 23:00:00 utc+01:00",
            "2011-07-31 17:00:00 UTC-5",
            "Sun, 31 Jul 2011 22:00:00 GMT",
            "Sunday 31 Jul 2011 22:00:00 GMT",
            "SUN, 31 Jul 2011 22:00:00 GMT",
            "Sun Jul 31 2011 23:00:00 GMT+0100 (Central European Summer Time)",
        ] {
            assert_eq!(at(text, DateOrder::Ymd), Some(t), "{text}");
        }
        assert_eq!(at("31.07.2011 23:00:00.000 GMT+0100", DateOrder::Dmy), Some(t));
        // Every day's abbreviations (the day is the date's to say: not checked against it).
        for day in [
            "Mon", "Tue", "Tues", "Wed", "Thu", "Thur", "Thurs", "Fri", "Sat", "Saturday",
        ] {
            assert_eq!(
                at(&format!("{day}, 31 Jul 2011 22:00:00 GMT"), DateOrder::Ymd),
                Some(t),
                "{day}"
            );
        }
        assert_eq!(
            at("Sept 1 2011", DateOrder::Ymd),
            Some(DAY_2011_07_31 + 32 * NS_PER_DAY)
        );
        assert_eq!(at("Su, 31 Jul 2011 22:00:00 GMT", DateOrder::Ymd), None);
        assert!(parse(b"2011-07-31 22:00:00 GMT", DateOrder::Ymd).is_some_and(|f| f.zoned));
        // Names that mean different offsets to different people, and broken zones.
        for text in [
            "2011-07-31 22:00:00 EST",
            "2011-07-31 22:00:00 CET",
            "2011-07-31 22:00:00 UTCZ",
            "2011-07-31 22:00:00 +5",
            "2011-07-31 22:00:00 (UTC)",
            "2011-07-31 22:00:00 UTC (",
            "Sunday, 2011-07-31x",
        ] {
            assert_eq!(at(text, DateOrder::Ymd), None, "{text}");
        }
    }

    #[test]
    fn times_of_day() {
        assert_eq!(
            at("09:01:00", DateOrder::None),
            Some(9 * NS_PER_HOUR + NS_PER_MIN)
        );
        assert_eq!(at("18.00.00", DateOrder::None), Some(18 * NS_PER_HOUR));
        assert_eq!(at("24:00", DateOrder::None), Some(NS_PER_DAY));
        assert_eq!(
            at("9:30:00.5", DateOrder::None),
            Some(9 * NS_PER_HOUR + 30 * NS_PER_MIN + NS_PER_SEC / 2)
        );
        assert_eq!(at("25:00", DateOrder::None), None);
        assert_eq!(at("12:60", DateOrder::None), None);
        assert_eq!(at("2011-07-31", DateOrder::None), None);
    }
}
