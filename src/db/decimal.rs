//! Exact decimals for `dec(S)` columns: an i64 holding the value times 10^S. Text is parsed
//! digit by digit (never through f64) and printed with exactly S decimals, so `61837.63000000`
//! comes back as it went in. See docs/FORMAT.md, "Column types".

/// Largest scale: 10^18 is the largest power of ten an i64 holds.
pub const MAX_SCALE: u8 = 18;

/// 10^0 … 10^18.
const POW10: [i64; 19] = {
    let mut p = [1i64; 19];
    let mut i = 1;
    while i < 19 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// 10^`scale` (`scale` ≤ 18).
#[inline]
pub fn pow10(scale: u8) -> i64 {
    POW10[usize::from(scale)]
}

/// Why text is not a value of a `dec(S)` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecError {
    /// Not a plain decimal: `[+-]digits[.digits]` (an exponent, `nan`, `inf`, letters…).
    Unparsable,
    /// More digits after the point than the scale holds (trailing zeros do not count).
    TooManyDecimals { decimals: usize },
    /// The scaled value does not fit an i64.
    OutOfRange,
}

/// The parts of a plain decimal: sign, integer digits, fraction digits (trailing zeros
/// dropped). `None` unless `text` is `[+-]D[.F]`, `[+-].F` or `[+-]D.` with ASCII digits.
#[inline]
fn split(text: &[u8]) -> Option<(bool, &[u8], &[u8])> {
    let (negative, body) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (int, frac) = match memchr::memchr(b'.', body) {
        Some(dot) => (&body[..dot], &body[dot + 1..]),
        None => (body, &body[body.len()..]),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.iter().all(u8::is_ascii_digit) || !frac.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let kept = frac.iter().rposition(|&d| d != b'0').map_or(0, |i| i + 1);
    Some((negative, int, &frac[..kept]))
}

/// Accumulates decimal digits into `acc`, `None` on i128 overflow.
#[inline]
fn push_digits(mut acc: i128, digits: &[u8]) -> Option<i128> {
    for &d in digits {
        acc = acc.checked_mul(10)?.checked_add(i128::from(d - b'0'))?;
    }
    Some(acc)
}

/// Parses a plain decimal into its value times 10^`scale`, exactly: `61837.63000000` at scale
/// 8 is 6183763000000. Signs, `.5`, `5.` and trailing zeros are accepted; more significant
/// decimals than `scale`, exponents, `nan` and `inf` are refused, never rounded. Inlined: the
/// import calls it for every decimal field, and the fast path is shorter than a call.
#[inline]
pub fn parse(text: &[u8], scale: u8) -> Result<i64, DecError> {
    if let Some(v) = parse_short(text, scale) {
        return Ok(v);
    }
    parse_general(text, scale)
}

/// `parse` for every input: the reference that `parse_short` agrees with.
#[inline(never)]
fn parse_general(text: &[u8], scale: u8) -> Result<i64, DecError> {
    let (negative, int, frac) = split(text).ok_or(DecError::Unparsable)?;
    if frac.len() > usize::from(scale) {
        return Err(DecError::TooManyDecimals { decimals: frac.len() });
    }
    // Leading zeros cost nothing; past 19 significant digits no i64 is reached.
    let first = int.iter().position(|&d| d != b'0').unwrap_or(int.len());
    let int = &int[first..];
    if int.len() > 19 {
        return Err(DecError::OutOfRange);
    }
    let magnitude = push_digits(0, int)
        .and_then(|v| push_digits(v, frac))
        .and_then(|v| v.checked_mul(i128::from(pow10(scale - frac.len() as u8))))
        .ok_or(DecError::OutOfRange)?;
    let value = if negative { -magnitude } else { magnitude };
    i64::try_from(value).map_err(|_| DecError::OutOfRange)
}

/// `parse` in one pass for the common case, `[-]digits[.digits]` with at most `scale`
/// decimals and at most 18 digits once scaled (so no overflow is possible); `None` sends
/// everything else to the general path, which gives the same answer or the error. The integer
/// digits and the decimals are read by two tight loops (the per-digit bookkeeping of one loop
/// for both cost twice as many instructions per value, on every decimal of an import).
#[inline]
fn parse_short(text: &[u8], scale: u8) -> Option<i64> {
    let (negative, body) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        _ => (false, text),
    };
    // Wrapping: past 19 digits the value is garbage, and the digit count below refuses it.
    let mut value: u64 = 0;
    let mut i = 0;
    while let Some(&c) = body.get(i) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        value = value.wrapping_mul(10).wrapping_add(u64::from(d));
        i += 1;
    }
    let int_digits = i;
    if i < body.len() {
        if body[i] != b'.' {
            return None;
        }
        i += 1;
        while let Some(&c) = body.get(i) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            value = value.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
    }
    let decimals = body.len() - int_digits - usize::from(int_digits < body.len());
    let digits = int_digits + decimals;
    let scale = usize::from(scale);
    // Digits written plus the zeros the scale adds stay within 18: below 10^18 < 2^63.
    if digits == 0 || decimals > scale || digits + scale - decimals > 18 {
        return None;
    }
    let v = (value * POW10[scale - decimals] as u64) as i64;
    Some(if negative { -v } else { v })
}

/// A comparison literal at `scale`: the largest multiple of 10^-`scale` not above it (its
/// floor, scaled), and whether it is exactly that. A literal of more than 19 integer digits,
/// beyond every stored value, stands as the first value past i64's range on its side. `None`
/// when it is not a plain decimal.
pub fn parse_floor(text: &[u8], scale: u8) -> Option<(i128, bool)> {
    let (negative, int, frac) = split(text)?;
    let first = int.iter().position(|&d| d != b'0').unwrap_or(int.len());
    let int = &int[first..];
    if int.len() > 19 {
        let beyond = i128::from(i64::MAX) + 1;
        return Some(if negative {
            (-beyond - 1, false)
        } else {
            (beyond, false)
        });
    }
    let s = usize::from(scale);
    let (kept, dropped) = frac.split_at(frac.len().min(s));
    let magnitude =
        push_digits(push_digits(0, int)?, kept)?.checked_mul(i128::from(pow10(scale - kept.len() as u8)))?;
    let exact = dropped.is_empty();
    // Truncation is the floor for positives; below zero, an inexact value floors one step down.
    Some(match (negative, exact) {
        (false, _) => (magnitude, exact),
        (true, true) => (-magnitude, true),
        (true, false) => (-magnitude - 1, false),
    })
}

/// Appends `value` / 10^`scale` with exactly `scale` decimals: `-0.50`, `61837.63000000`.
pub fn write(out: &mut Vec<u8>, value: i128, scale: u8) {
    let s = usize::from(scale);
    let digits = value.unsigned_abs().to_string();
    if value < 0 {
        out.push(b'-');
    }
    let d = digits.as_bytes();
    if d.len() <= s {
        out.push(b'0');
        if s > 0 {
            out.push(b'.');
            out.resize(out.len() + s - d.len(), b'0');
            out.extend_from_slice(d);
        }
    } else {
        let (int, frac) = d.split_at(d.len() - s);
        out.extend_from_slice(int);
        if s > 0 {
            out.push(b'.');
            out.extend_from_slice(frac);
        }
    }
}

/// `write` into a new string.
pub fn to_string(value: i128, scale: u8) -> String {
    let mut out = Vec::with_capacity(24);
    write(&mut out, value, scale);
    // Only ASCII digits, `-` and `.` were written.
    String::from_utf8(out).unwrap_or_default()
}

/// `value` / 10^`scale` as the nearest f64 (both are exact in f64 up to 2^53 and IEEE division
/// rounds once; larger values round twice, within an ulp).
#[inline]
pub fn to_f64(value: i64, scale: u8) -> f64 {
    value as f64 / f64_divisor(scale)
}

/// What `to_f64` divides by: loops over many values work it out once.
#[inline]
pub fn f64_divisor(scale: u8) -> f64 {
    pow10(scale) as f64
}

/// `sum` / `n` at the same scale, rounded half away from zero (`n` > 0).
pub fn mean(sum: i128, n: u64) -> i128 {
    let n = i128::from(n);
    let (q, r) = (sum / n, sum % n);
    // |r| ≥ n/2, compared without halving n.
    if 2 * r.abs() >= n {
        q + sum.signum()
    } else {
        q
    }
}

/// The decimals of a plain decimal and its significant digits, or `None` when `text` is not
/// one. For type inference: `("0.0250", …)` has 3 decimals (trailing zeros dropped).
pub fn shape(text: &[u8]) -> Option<Shape> {
    // One pass (inference calls it on every sampled value of a numeric column); `shape_of_parts`
    // is the reference it agrees with.
    let body = match text.first() {
        Some(b'-' | b'+') => &text[1..],
        _ => text,
    };
    let (mut i, mut lead) = (0usize, 0usize);
    while let Some(&c) = body.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        lead += usize::from(c == b'0' && lead == i);
        i += 1;
    }
    let int_len = i;
    let has_point = i < body.len();
    // Digits after the point: all, after leading zeros, and up to the last non-zero one.
    let (mut frac_len, mut frac_lead, mut kept) = (0usize, 0usize, 0usize);
    if has_point {
        if body[i] != b'.' {
            return None;
        }
        for &c in &body[i + 1..] {
            if !c.is_ascii_digit() {
                return None;
            }
            frac_lead += usize::from(c == b'0' && frac_lead == frac_len);
            frac_len += 1;
            if c != b'0' {
                kept = frac_len;
            }
        }
    }
    if int_len == 0 && frac_len == 0 {
        return None;
    }
    let int_digits = int_len - lead;
    let significant = if int_digits > 0 {
        int_digits + kept
    } else {
        kept - frac_lead.min(kept)
    };
    Some(Shape {
        int_digits,
        decimals: kept,
        significant,
        has_point,
        written: frac_len,
    })
}

/// `shape` from `split`'s parts: the reference for the one-pass `shape`.
#[cfg(test)]
fn shape_of_parts(text: &[u8]) -> Option<Shape> {
    let (_, int, frac) = split(text)?;
    let first = int.iter().position(|&d| d != b'0').unwrap_or(int.len());
    let int_digits = int.len() - first;
    let significant = if int_digits > 0 {
        int_digits + frac.len()
    } else {
        frac.len() - frac.iter().position(|&d| d != b'0').unwrap_or(frac.len())
    };
    Some(Shape {
        int_digits,
        decimals: frac.len(),
        significant,
        has_point: memchr::memchr(b'.', text).is_some(),
        written: memchr::memchr(b'.', text).map_or(0, |dot| text.len() - dot - 1),
    })
}

/// What `shape` tells of a plain decimal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Digits before the point, leading zeros dropped.
    pub int_digits: usize,
    /// Digits after the point, trailing zeros dropped.
    pub decimals: usize,
    /// Digits from the first non-zero one to the last non-zero decimal (integer digits all).
    pub significant: usize,
    /// Whether the text has a point (`5.` and `5.00` do; `5` does not).
    pub has_point: bool,
    /// Digits written after the point, trailing zeros included (`61837.63000000`: 8).
    pub written: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path on random short texts of digits, points, signs and other bytes, at every
    /// scale: where it answers, the general path gives the same value; and it answers for
    /// every plain `[-]digits[.digits]` within its bounds.
    #[test]
    fn the_short_path_agrees_with_the_general_path_on_random_texts() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        const ALPHABET: &[u8] = b"0123456789012345678901234567890123456789..-+e x";
        let mut answered = 0u32;
        for _ in 0..400_000 {
            let len = (next() % 24) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                .collect();
            let scale = (next() % 19) as u8;
            let general = parse_general(&text, scale);
            match parse_short(&text, scale) {
                Some(v) => {
                    answered += 1;
                    assert_eq!(
                        Ok(v),
                        general,
                        "{:?} at scale {scale}",
                        String::from_utf8_lossy(&text)
                    );
                }
                None => {
                    // Declined: fine unless it is a plain decimal the fast path must take.
                    let body = text.strip_prefix(b"-").unwrap_or(&text);
                    let dots = body.iter().filter(|&&c| c == b'.').count();
                    let digits = body.iter().filter(|c| c.is_ascii_digit()).count();
                    let decimals = body
                        .iter()
                        .position(|&c| c == b'.')
                        .map_or(0, |p| body.len() - p - 1);
                    let plain = dots <= 1 && digits + dots == body.len() && digits > 0;
                    let fits = decimals <= usize::from(scale) && digits + usize::from(scale) - decimals <= 18;
                    assert!(
                        !(plain && fits),
                        "{:?} at scale {scale}",
                        String::from_utf8_lossy(&text)
                    );
                }
            }
        }
        assert!(answered > 10_000, "{answered}");
    }

    /// The one-pass `shape` against the one from `split`'s parts, on random texts.
    #[test]
    fn shape_in_one_pass_is_shape_of_the_parts_on_random_texts() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        const ALPHABET: &[u8] = b"0000123456789..-+e x";
        let mut plain = 0u32;
        for _ in 0..400_000 {
            let len = (next() % 16) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                .collect();
            let want = shape_of_parts(&text);
            plain += u32::from(want.is_some());
            assert_eq!(shape(&text), want, "{:?}", String::from_utf8_lossy(&text));
        }
        assert!(plain > 10_000, "{plain}");
    }

    fn p(text: &str, scale: u8) -> Result<i64, DecError> {
        parse(text.as_bytes(), scale)
    }

    #[test]
    fn plain_decimals_parse_exactly() {
        assert_eq!(p("61837.63000000", 8), Ok(6_183_763_000_000));
        assert_eq!(p("-0.5", 2), Ok(-50));
        assert_eq!(p("+1.25", 2), Ok(125));
        assert_eq!(p(".5", 1), Ok(5));
        assert_eq!(p("5.", 0), Ok(5));
        assert_eq!(p("5", 3), Ok(5000));
        assert_eq!(p("1.2300000000000000000000", 2), Ok(123));
        assert_eq!(p("-0", 2), Ok(0));
        assert_eq!(p("000000000000000000000000001.5", 1), Ok(15));
        assert_eq!(p("9223372036854775807", 0), Ok(i64::MAX));
        assert_eq!(p("-9223372036854775808", 0), Ok(i64::MIN));
        assert_eq!(p("-9.223372036854775808", 18), Ok(i64::MIN));
        // 0.1 + 0.2 in f64 is 0.30000000000000004; here it is 0.3.
        assert_eq!(p("0.3", 18), Ok(300_000_000_000_000_000));
    }

    #[test]
    fn what_would_need_rounding_or_is_not_a_decimal_is_refused() {
        assert_eq!(p("1.005", 2), Err(DecError::TooManyDecimals { decimals: 3 }));
        assert_eq!(
            p("-0.0000000001", 8),
            Err(DecError::TooManyDecimals { decimals: 10 })
        );
        assert_eq!(p("9223372036854775808", 0), Err(DecError::OutOfRange));
        assert_eq!(p("92233720368.54775808", 8), Err(DecError::OutOfRange));
        assert_eq!(
            p("100000000000000000000000000000000000000000", 0),
            Err(DecError::OutOfRange)
        );
        assert_eq!(p("10", 18), Err(DecError::OutOfRange));
        for bad in [
            "", "-", "+", ".", "1e-5", "1E5", "nan", "NaN", "inf", "-inf", "1.2.3", " 1", "1 ", "1,5", "--1",
            "0x10", "١",
        ] {
            assert_eq!(p(bad, 8), Err(DecError::Unparsable), "{bad:?}");
        }
    }

    #[test]
    fn literals_floor_at_the_scale() {
        let f = |t: &str, s| parse_floor(t.as_bytes(), s);
        assert_eq!(f("1.005", 2), Some((100, false)));
        assert_eq!(f("1.00", 2), Some((100, true)));
        assert_eq!(f("-1.005", 2), Some((-101, false)));
        assert_eq!(f("-1.0000", 2), Some((-100, true)));
        assert_eq!(
            f("9999999999999999999", 2),
            Some((999_999_999_999_999_999_900, true))
        );
        let beyond = i128::from(i64::MAX) + 1;
        assert_eq!(f("99999999999999999999", 2), Some((beyond, false)));
        assert_eq!(
            f("-99999999999999999999999999999999999999999", 0),
            Some((-beyond - 1, false))
        );
        assert_eq!(f("1e3", 2), None);
    }

    #[test]
    fn values_print_with_exactly_scale_decimals() {
        let w = |v: i128, s| to_string(v, s);
        assert_eq!(w(6_183_763_000_000, 8), "61837.63000000");
        assert_eq!(w(-50, 2), "-0.50");
        assert_eq!(w(5, 0), "5");
        assert_eq!(w(-5, 3), "-0.005");
        assert_eq!(w(0, 2), "0.00");
        assert_eq!(w(i128::from(i64::MIN), 18), "-9.223372036854775808");
    }

    #[test]
    fn means_round_half_away_from_zero() {
        assert_eq!(mean(5, 2), 3);
        assert_eq!(mean(-5, 2), -3);
        assert_eq!(mean(4, 3), 1);
        assert_eq!(mean(-4, 3), -1);
        assert_eq!(mean(5, 3), 2);
        assert_eq!(mean(7, 1), 7);
    }

    #[test]
    fn shapes_tell_decimals_and_significant_digits() {
        let s = |t: &str| shape(t.as_bytes());
        assert_eq!(
            s("0.0250").map(|s| (s.int_digits, s.decimals, s.significant)),
            Some((0, 3, 2))
        );
        assert_eq!(s("74.93588199999998").map(|s| s.significant), Some(16));
        assert_eq!(s("5.").map(|s| (s.decimals, s.has_point)), Some((0, true)));
        assert_eq!(s("1e5"), None);
    }

    /// xorshift64*: a fixed-seed stream of test cases, the same on every run.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    /// Property: at every scale, any i64 printed and parsed back is itself, the text has
    /// exactly `scale` decimals, and padding it with zeros or a `+` changes nothing.
    #[test]
    fn every_i64_round_trips_through_text_at_every_scale() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for scale in 0..=MAX_SCALE {
            let edges = [0, 1, -1, i64::MAX, i64::MIN, pow10(scale), -pow10(scale)];
            for i in 0..20_000 {
                let v = match i {
                    i if i < edges.len() => edges[i],
                    // Small magnitudes as often as large ones: shift by a random amount.
                    _ => (rng.next() as i64) >> (rng.next() % 64),
                };
                let text = to_string(i128::from(v), scale);
                assert_eq!(parse(text.as_bytes(), scale), Ok(v), "{text} at {scale}");
                let decimals = text.split_once('.').map_or(0, |(_, f)| f.len());
                assert_eq!(decimals, usize::from(scale), "{text}");
                let padded = format!(
                    "{}{text}{}",
                    if v >= 0 { "+" } else { "" },
                    if scale > 0 { "000" } else { ".000" }
                );
                assert_eq!(parse(padded.as_bytes(), scale), Ok(v), "{padded} at {scale}");
                assert_eq!(parse_floor(text.as_bytes(), scale), Some((i128::from(v), true)));
                if scale < MAX_SCALE {
                    // One more digit than the scale holds is refused, or floors correctly.
                    let finer = format!("{text}{}5", if scale == 0 { "." } else { "" });
                    assert_eq!(
                        parse(finer.as_bytes(), scale),
                        Err(DecError::TooManyDecimals {
                            decimals: usize::from(scale) + 1
                        })
                    );
                    let floor = if v < 0 { i128::from(v) - 1 } else { i128::from(v) };
                    assert_eq!(
                        parse_floor(finer.as_bytes(), scale),
                        Some((floor, false)),
                        "{finer}"
                    );
                }
                let (approx, nearest) = (to_f64(v, scale), text.parse::<f64>().unwrap());
                if v.unsigned_abs() < 1 << 53 {
                    assert_eq!(approx, nearest, "{text}");
                } else {
                    assert!(
                        (approx - nearest).abs() <= nearest.abs() * 2.0 * f64::EPSILON,
                        "{text}"
                    );
                }
            }
        }
    }
}
