//! Time as text: ISO-8601/RFC 3339 and epoch numbers with a unit, parsed and printed without
//! allocation. This is the fast path for the common formats; strftime patterns go via chrono.

use crate::db::time::{
    civil_from_days, days_from_civil, days_in_month, NS_PER_DAY, NS_PER_HOUR, NS_PER_MIN, NS_PER_MS,
    NS_PER_SEC, NS_PER_US,
};

/// Units of an epoch number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpochUnit {
    S,
    Ms,
    Us,
    Ns,
}

impl EpochUnit {
    pub fn ns(self) -> i64 {
        match self {
            EpochUnit::S => NS_PER_SEC,
            EpochUnit::Ms => NS_PER_MS,
            EpochUnit::Us => NS_PER_US,
            EpochUnit::Ns => 1,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            EpochUnit::S => "s",
            EpochUnit::Ms => "ms",
            EpochUnit::Us => "us",
            EpochUnit::Ns => "ns",
        }
    }

    pub fn parse(text: &str) -> Option<EpochUnit> {
        match text {
            "s" => Some(EpochUnit::S),
            "ms" => Some(EpochUnit::Ms),
            "us" | "µs" => Some(EpochUnit::Us),
            "ns" => Some(EpochUnit::Ns),
            _ => None,
        }
    }
}

/// A time argument as written: an instant, or a wall-clock time that a zone places.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeArg {
    /// An epoch number, `now`, or an ISO time with `Z` or an offset: UTC ns.
    Instant(i64),
    /// An ISO date or time without a zone or offset, in ns as if it were UTC. A database with
    /// a `timezone` reads it in that zone, as its imports read the same text.
    Wall(i64),
}

impl TimeArg {
    /// UTC ns, a wall-clock time read in `zone`. A wall time the zone skips (clocks forward)
    /// or shows twice (clocks back) is refused with the offsets that name it, as imports
    /// refuse it without `--dst`.
    pub fn in_zone(self, zone: &crate::db::time::Zone) -> Result<i64, String> {
        use crate::import::timeparse::{local_to_utc, Dst, TimeError};
        let wall = match self {
            TimeArg::Instant(t) => return Ok(t),
            TimeArg::Wall(t) => t,
        };
        let shown = || format_iso_exact(wall).trim_end_matches('Z').to_string();
        let with_offset = |dst: Dst| {
            let utc = local_to_utc(wall, zone, dst).unwrap_or(wall);
            let minutes = (wall - utc) / NS_PER_MIN;
            let sign = if minutes < 0 { '-' } else { '+' };
            format!(
                "{}{sign}{:02}:{:02}",
                shown(),
                minutes.abs() / 60,
                minutes.abs() % 60
            )
        };
        local_to_utc(wall, zone, Dst::Refuse).map_err(|e| match e {
            TimeError::DstGap(_) => format!(
                "time `{}` does not exist in {} (the clocks skip it); write it with an offset, \
                 such as {}",
                shown(),
                zone.describe(),
                with_offset(Dst::Earlier)
            ),
            TimeError::DstOverlap(_) => format!(
                "time `{}` occurs twice in {} (the clocks go back); write it with an offset: \
                 {} (the first) or {} (the second)",
                shown(),
                zone.describe(),
                with_offset(Dst::Earlier),
                with_offset(Dst::Later)
            ),
            _ => format!(
                "time `{}` in {} is outside what xs can represent, 1677-09-21 to 2262-04-11",
                shown(),
                zone.describe()
            ),
        })
    }

    /// UTC ns, a wall-clock time read as UTC: for a database without a `timezone`.
    pub fn utc(self) -> i64 {
        match self {
            TimeArg::Instant(t) | TimeArg::Wall(t) => t,
        }
    }
}

/// Parses a time argument: an ISO-8601 date or datetime (`2024-02-29`, `2024-02-29T13:45:00.5Z`,
/// `2024-02-29 13:45:00+02:00`; written without a zone, a wall-clock time) or an epoch number
/// with a unit (`1700000000s`, `1700000000123ms`, `…us`, `…ns`).
pub fn parse_time_arg(text: &str) -> Result<TimeArg, String> {
    let text = text.trim();
    if text == "now" {
        return chrono::Utc::now()
            .timestamp_nanos_opt()
            .map(TimeArg::Instant)
            .ok_or_else(|| "the clock reads a time xs cannot represent".to_string());
    }
    if let Some(t) = parse_fractional_epoch(text) {
        return t.map(TimeArg::Instant);
    }
    let digits_end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(text.len(), |(i, _)| i);
    if digits_end > 0 && digits_end < text.len() && !text[digits_end..].starts_with('-') {
        if let Some(unit) = EpochUnit::parse(&text[digits_end..]) {
            return parse_epoch(&text[..digits_end], unit)
                .map(TimeArg::Instant)
                .ok_or_else(|| format!("time `{text}` is out of range"));
        }
    }
    if digits_end == text.len() && !text.is_empty() {
        return Err(format!(
            "time `{text}` has no unit: write it as {text}s, {text}ms, {text}us or {text}ns, or as ISO-8601"
        ));
    }
    let parsed = parse_iso(text.as_bytes()).map(|t| match is_wall_clock(text) {
        true => TimeArg::Wall(t),
        false => TimeArg::Instant(t),
    });
    parsed.ok_or_else(|| {
        // A time that reads in another year (2000, a leap year) is one xs cannot represent:
        // say so, rather than that it cannot be read.
        let year = text
            .get(..4)
            .filter(|y| y.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|y| y.parse::<i64>().ok());
        let other_year = year.is_some() && parse_iso(format!("2000{}", &text[4..]).as_bytes()).is_some();
        let storable =
            year.is_some_and(|y| (crate::db::time::MIN_YEAR..=crate::db::time::MAX_YEAR).contains(&y));
        match other_year {
            // `2023-02-29`: a day its year does not have.
            true if storable => format!(
                "time `{text}` names a day that {} does not have; check the date",
                year.unwrap_or_default()
            ),
            true => format!(
                "time `{text}` is outside what xs can represent, 1677-09-21 to 2262-04-11 \
                 (nanoseconds since 1970 in 64 bits); stored times are of the years 1678 to {}",
                crate::db::time::MAX_YEAR
            ),
            false => format!(
                "cannot read time `{text}`: use ISO-8601 (2024-01-31, 2024-01-31T12:00:00.250Z, \
                 2024-01-31 12:00:00+01:00) or an epoch number with a unit (1706702400s, 1706702400250ms)"
            ),
        }
    })
}

/// Whether an ISO date or time (one `parse_iso` reads) names no zone: no `Z` and no offset
/// after the clock (the date's own hyphens are before it).
fn is_wall_clock(text: &str) -> bool {
    let clock = text.get(11..).unwrap_or("");
    !clock.ends_with(['Z', 'z']) && !clock.contains(['+', '-'])
}

/// An epoch number with a fraction and a unit (`1704067200.25s`, `1704067200250.5ms`): `None`
/// when `text` is not of that shape, else the time or why it cannot be one.
fn parse_fractional_epoch(text: &str) -> Option<Result<i64, String>> {
    let (number, unit) = ["ns", "us", "µs", "ms", "s"]
        .iter()
        .find_map(|u| text.strip_suffix(u).map(|n| (n, EpochUnit::parse(u))))?;
    let unit = unit?;
    let (whole, fraction) = number.split_once('.')?;
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let unsigned = whole.strip_prefix('-').unwrap_or(whole);
    if unsigned.is_empty() || fraction.is_empty() || !digits(unsigned) || !digits(fraction) {
        return None;
    }
    let scale = unit.ns();
    // The fraction in ns: its digits beyond the unit's nanoseconds must be zeros.
    let places = scale.ilog10() as usize;
    let (kept, rest) = fraction.split_at(fraction.len().min(places));
    if rest.bytes().any(|b| b != b'0') {
        return Some(Err(format!(
            "time `{text}` is finer than a nanosecond: give at most {places} decimals of {}",
            unit.name()
        )));
    }
    let frac_ns = if kept.is_empty() {
        0
    } else {
        let padded = format!("{kept:0<places$}");
        padded.parse::<i64>().ok()?
    };
    let value = unsigned
        .parse::<i64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .and_then(|n| n.checked_add(frac_ns))
        .map(|n| if whole.starts_with('-') { -n } else { n });
    Some(value.ok_or_else(|| format!("time `{text}` is out of range")))
}

/// Parses a signed decimal integer scaled by `unit`; `None` on junk or overflow.
pub fn parse_epoch(digits: &str, unit: EpochUnit) -> Option<i64> {
    let n: i64 = digits.parse().ok()?;
    n.checked_mul(unit.ns())
}

fn num(b: &[u8]) -> Option<i64> {
    if b.is_empty() {
        return None;
    }
    let mut n = 0i64;
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n * 10 + i64::from(c - b'0');
    }
    Some(n)
}

/// Parses ISO-8601 / RFC 3339: `YYYY-MM-DD`, optionally followed by `T` or a space and
/// `HH:MM[:SS[.fraction]]`, optionally `Z` or an offset `±HH[:MM]`. Naive times are UTC.
/// `None` on anything else, including out-of-range fields, results outside i64 nanoseconds,
/// and fraction digits below one nanosecond that are not all zero (see `parse_iso_below_ns`).
pub fn parse_iso(b: &[u8]) -> Option<i64> {
    match parse_iso_below_ns(b)? {
        (t, false) => Some(t),
        (_, true) => None,
    }
}

/// As `parse_iso`, with any number of fraction digits: the time rounded down to the
/// nanosecond, and whether that dropped a digit that is not zero (the time is then not on the
/// nanosecond grid, and the caller decides whether rounding down is wanted).
pub fn parse_iso_below_ns(b: &[u8]) -> Option<(i64, bool)> {
    let mut below_ns = false;
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = num(&b[0..4])?;
    let month = u32::try_from(num(&b[5..7])?).ok()?;
    let day = u32::try_from(num(&b[8..10])?).ok()?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut ns = i128::from(days_from_civil(year, month, day)) * i128::from(NS_PER_DAY);
    let mut rest = &b[10..];
    if !rest.is_empty() && (rest[0] == b'T' || rest[0] == b't' || rest[0] == b' ') {
        let t = &rest[1..];
        if t.len() < 5 || t[2] != b':' {
            return None;
        }
        let hour = num(&t[0..2])?;
        let minute = num(&t[3..5])?;
        let mut second = 0;
        rest = &t[5..];
        if rest.first() == Some(&b':') {
            if rest.len() < 3 {
                return None;
            }
            second = num(&rest[1..3])?;
            rest = &rest[3..];
            if rest.first() == Some(&b'.') || rest.first() == Some(&b',') {
                let frac_len = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
                if frac_len == 0 {
                    return None;
                }
                // Digits past the ninth are below a nanosecond: dropped (rounding down, as the
                // fraction only adds), and reported when one of them is not zero.
                let kept = frac_len.min(9);
                below_ns = rest[1 + kept..1 + frac_len].iter().any(|&c| c != b'0');
                let frac = num(&rest[1..1 + kept])?;
                ns += i128::from(frac * 10i64.pow(9 - kept as u32));
                rest = &rest[1 + frac_len..];
            }
        }
        // 24:00:00 is not accepted; leap seconds (:60) are not representable in UTC epochs.
        if hour > 23 || minute > 59 || second > 59 {
            return None;
        }
        ns += i128::from(hour * NS_PER_HOUR + minute * NS_PER_MIN + second * NS_PER_SEC);
        match rest {
            [] => {}
            [b'Z'] | [b'z'] => {}
            [sign @ (b'+' | b'-'), tz @ ..] => {
                let (oh, om) = match tz {
                    [h1, h2] => (num(&[*h1, *h2])?, 0),
                    [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => (num(&[*h1, *h2])?, num(&[*m1, *m2])?),
                    _ => return None,
                };
                if oh > 23 || om > 59 {
                    return None;
                }
                let offset = i128::from(oh * NS_PER_HOUR + om * NS_PER_MIN);
                // Local time = UTC + offset, so UTC = local - offset.
                ns -= if *sign == b'+' { offset } else { -offset };
            }
            _ => return None,
        }
    } else if !rest.is_empty() {
        return None;
    }
    i64::try_from(ns).ok().map(|t| (t, below_ns))
}

/// Appends `t_ns` as ISO-8601 UTC with `frac_digits` (0-9) fraction digits:
/// `2017-09-01T00:01:00.493Z` for 3.
pub fn write_iso(out: &mut Vec<u8>, t_ns: i64, frac_digits: u32) {
    let days = t_ns.div_euclid(NS_PER_DAY);
    let ns_of_day = t_ns.rem_euclid(NS_PER_DAY);
    let (year, month, day) = civil_from_days(days);
    let secs = ns_of_day / NS_PER_SEC;
    let (hour, minute, second) = (secs / 3600, secs / 60 % 60, secs % 60);
    push_digits(out, year as u64, 4);
    out.push(b'-');
    push_digits(out, u64::from(month), 2);
    out.push(b'-');
    push_digits(out, u64::from(day), 2);
    out.push(b'T');
    push_digits(out, hour as u64, 2);
    out.push(b':');
    push_digits(out, minute as u64, 2);
    out.push(b':');
    push_digits(out, second as u64, 2);
    if frac_digits > 0 {
        out.push(b'.');
        let frac = (ns_of_day % NS_PER_SEC) as u64 / 10u64.pow(9 - frac_digits.min(9));
        push_digits(out, frac, frac_digits.min(9) as usize);
    }
    out.push(b'Z');
}

/// ISO-8601 UTC as a String (see `write_iso`).
pub fn format_iso(t_ns: i64, frac_digits: u32) -> String {
    let mut out = Vec::with_capacity(32);
    write_iso(&mut out, t_ns, frac_digits);
    // write_iso emits ASCII only.
    String::from_utf8(out).unwrap_or_default()
}

/// ISO-8601 UTC with as many fraction digits as `t_ns` needs (0, 3, 6 or 9), for messages.
pub fn format_iso_exact(t_ns: i64) -> String {
    let frac_ns = t_ns.rem_euclid(NS_PER_SEC);
    let digits = [0, 3, 6, 9]
        .into_iter()
        .find(|d| frac_ns % 10i64.pow(9 - d) == 0)
        .unwrap_or(9);
    format_iso(t_ns, digits)
}

/// Appends `value` zero-padded to `width` digits (more if it needs them).
fn push_digits(out: &mut Vec<u8>, value: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut v = value;
    let mut i = buf.len();
    while v > 0 {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    let start = i.min(buf.len() - width);
    out.extend_from_slice(&buf[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A time argument in UTC, as a database without a `timezone` reads it.
    fn arg_utc(text: &str) -> Result<i64, String> {
        parse_time_arg(text).map(TimeArg::utc)
    }

    #[test]
    fn a_time_argument_without_a_zone_is_a_wall_clock_time_its_zone_places() {
        use crate::db::time::Zone;
        let t = parse_iso(b"2024-02-29T13:45:00Z").unwrap();
        for wall in [
            "2024-02-29T13:45:00",
            "2024-02-29 13:45",
            "2024-02-29t13:45:00.000",
        ] {
            assert_eq!(parse_time_arg(wall), Ok(TimeArg::Wall(t)), "{wall}");
        }
        assert_eq!(
            parse_time_arg("2024-02-29"),
            Ok(TimeArg::Wall(t - 13 * NS_PER_HOUR - 45 * NS_PER_MIN))
        );
        for instant in [
            "2024-02-29T13:45:00Z",
            "2024-02-29 15:45:00+02:00",
            "2024-02-29T08:45-0500",
        ] {
            assert_eq!(parse_time_arg(instant), Ok(TimeArg::Instant(t)), "{instant}");
        }
        assert!(matches!(parse_time_arg("1700000000s"), Ok(TimeArg::Instant(_))));
        assert!(matches!(parse_time_arg("now"), Ok(TimeArg::Instant(_))));
        // A wall time moves by the zone's offset; an instant never does.
        let plus2 = Zone::parse("+02:00").unwrap();
        assert_eq!(TimeArg::Wall(t).in_zone(&plus2), Ok(t - 2 * NS_PER_HOUR));
        assert_eq!(TimeArg::Instant(t).in_zone(&plus2), Ok(t));
        assert_eq!(TimeArg::Wall(t).in_zone(&Zone::Utc), Ok(t));
        let berlin = Zone::parse("Europe/Berlin").unwrap();
        let skipped = parse_time_arg("2024-03-31 02:30")
            .unwrap()
            .in_zone(&berlin)
            .unwrap_err();
        assert_eq!(
            skipped,
            "time `2024-03-31T02:30:00` does not exist in Europe/Berlin (the clocks skip it); \
             write it with an offset, such as 2024-03-31T02:30:00+01:00"
        );
        let twice = parse_time_arg("2024-10-27 02:30")
            .unwrap()
            .in_zone(&berlin)
            .unwrap_err();
        assert!(
            twice
                .ends_with("2024-10-27T02:30:00+02:00 (the first) or 2024-10-27T02:30:00+01:00 (the second)"),
            "{twice}"
        );
    }

    #[test]
    fn epoch_numbers_with_fractions_and_now() {
        let t = 1_704_067_200_000_000_000;
        assert_eq!(arg_utc("1704067200.25s"), Ok(t + 250_000_000));
        assert_eq!(arg_utc("1704067200250.5ms"), Ok(t + 250_500_000));
        assert_eq!(arg_utc("1704067200250000.125us"), Ok(t + 250_000_125));
        assert_eq!(arg_utc("1704067200.000000001s"), Ok(t + 1));
        assert_eq!(arg_utc("1704067200.5000000000s"), Ok(t + 500_000_000));
        assert_eq!(arg_utc("-1.5s"), Ok(-1_500_000_000));
        let finer = arg_utc("1704067200.0000000001s").unwrap_err();
        assert!(finer.contains("finer than a nanosecond"), "{finer}");
        assert!(arg_utc("1.5ns").is_err());
        assert!(arg_utc("1.s").is_err() && arg_utc(".5s").is_err());
        let now = chrono::Utc::now().timestamp_nanos_opt().unwrap();
        let got = arg_utc("now").unwrap();
        assert!((got - now).abs() < 60_000_000_000, "{got} vs {now}");
    }

    #[test]
    fn iso_forms_parse() {
        let t = 1_709_214_300_000_000_000; // 2024-02-29T13:45:00Z
        assert_eq!(parse_iso(b"2024-02-29T13:45:00Z"), Some(t));
        assert_eq!(parse_iso(b"2024-02-29 13:45:00"), Some(t));
        assert_eq!(parse_iso(b"2024-02-29T13:45Z"), Some(t));
        assert_eq!(parse_iso(b"2024-02-29T15:45:00+02:00"), Some(t));
        assert_eq!(parse_iso(b"2024-02-29T12:45:00-0100"), Some(t));
        assert_eq!(parse_iso(b"2024-02-29T14:45:00+01"), Some(t));
        assert_eq!(parse_iso(b"2024-02-29T13:45:00.5Z"), Some(t + 500_000_000));
        assert_eq!(
            parse_iso(b"2024-02-29T13:45:00.123456789Z"),
            Some(t + 123_456_789)
        );
        assert_eq!(
            parse_iso(b"2024-02-29"),
            Some(t - 13 * NS_PER_HOUR - 45 * NS_PER_MIN)
        );
        assert_eq!(parse_iso(b"1969-12-31T23:59:59.999Z"), Some(-NS_PER_MS));
    }

    #[test]
    fn a_time_of_a_year_xs_cannot_store_says_so() {
        for text in [
            "1500-01-01",
            "1677-09-20T23:59:59Z",
            "2262-04-12",
            "9999-12-31 00:00",
        ] {
            let err = arg_utc(text).unwrap_err();
            assert!(
                err.contains("is outside what xs can represent, 1677-09-21 to 2262-04-11"),
                "{text}: {err}"
            );
        }
        assert!(arg_utc("1678-01-01").is_ok());
        // A malformed date is one, whatever its year.
        for text in ["2024-13-01", "2262-02-30", "1677-12-31T25:00:00Z", "1500-01-01x"] {
            let err = arg_utc(text).unwrap_err();
            assert!(err.starts_with("cannot read time"), "{text}: {err}");
        }
        // A day its year lacks is said as such, not as a year xs cannot store.
        let err = arg_utc("2023-02-29").unwrap_err();
        assert_eq!(
            err,
            "time `2023-02-29` names a day that 2023 does not have; check the date"
        );
    }

    #[test]
    fn iso_takes_any_fraction_and_says_when_digits_fall_below_a_nanosecond() {
        let t = parse_iso(b"2024-02-29T13:45:00Z").unwrap();
        assert_eq!(
            parse_iso(b"2024-02-29T13:45:00.1234567890000Z"),
            Some(t + 123_456_789)
        );
        assert_eq!(
            parse_iso_below_ns(b"2024-02-29T13:45:00.1234567890000Z"),
            Some((t + 123_456_789, false))
        );
        assert_eq!(
            parse_iso_below_ns(b"2024-02-29T13:45:00.12345678900001+00:00"),
            Some((t + 123_456_789, true)),
            "rounded down, and said"
        );
        assert_eq!(parse_iso(b"2024-02-29T13:45:00.12345678900001Z"), None);
        // Before 1970 the fraction still counts up from the second: rounding down drops it.
        assert_eq!(
            parse_iso_below_ns(b"1969-12-31T23:59:59.9999999999Z"),
            Some((-1, true))
        );
    }

    #[test]
    fn bad_iso_is_refused() {
        for bad in [
            "2023-02-29",
            "2024-13-01",
            "2024-01-01T24:00:00",
            "2024-01-01T12:00:00.1234567891Z",
            "2024-01-01T12:00:00X",
            "2024-01-01T12",
            "9999-01-01",
            "1600-01-01",
            "",
            "2024-1-01",
        ] {
            assert_eq!(
                parse_iso(bad.as_bytes()).filter(|t| crate::db::time::in_storable_range(*t)),
                None,
                "{bad}"
            );
        }
    }

    #[test]
    fn time_args_take_units() {
        assert_eq!(arg_utc("1700000000s"), Ok(1_700_000_000 * NS_PER_SEC));
        assert_eq!(arg_utc("1700000000123ms"), Ok(1_700_000_000_123 * NS_PER_MS));
        assert_eq!(arg_utc("-5us"), Ok(-5000));
        assert_eq!(arg_utc("7ns"), Ok(7));
        assert!(arg_utc("1700000000").unwrap_err().contains("no unit"));
        assert!(arg_utc("99999999999999999999s").is_err());
        assert_eq!(arg_utc("2024-02-29"), Ok(1_709_164_800 * NS_PER_SEC));
    }

    #[test]
    fn iso_prints_with_the_asked_precision() {
        let t = 1_504_224_060_493_000_000;
        assert_eq!(format_iso(t, 3), "2017-09-01T00:01:00.493Z");
        assert_eq!(format_iso(t, 0), "2017-09-01T00:01:00Z");
        assert_eq!(format_iso(-1, 9), "1969-12-31T23:59:59.999999999Z");
        assert_eq!(format_iso_exact(t), "2017-09-01T00:01:00.493Z");
        assert_eq!(format_iso_exact(t - 493_000_000), "2017-09-01T00:01:00Z");
        assert_eq!(format_iso_exact(t + 1_000), "2017-09-01T00:01:00.493001Z");
        for t in [-3_000_000_000_000_000_007i64, 0, 1, 7_000_000_000_000_000_003] {
            assert_eq!(parse_iso(format_iso(t, 9).as_bytes()), Some(t));
        }
    }
}
