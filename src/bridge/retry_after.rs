//! `Retry-After` as a server sends it: `retry-after-ms` (milliseconds), or `Retry-After` (seconds,
//! fractions too, or an HTTP date), as the delay the engine holds requests for.

/// Delay asked by `retry-after-ms` (ms) or `Retry-After` (seconds or an HTTP date), in ms from `now`.
/// `parse_date` reads a date as ms since the epoch (not finite: no date), as the host's
/// `Date.parse` does: no date parser in the binary.
#[inline]
pub fn retry_after_ms(
    ms_header: Option<&str>,
    header: Option<&str>,
    now: u64,
    parse_date: impl FnOnce(&str) -> f64,
) -> Option<u64> {
    if let Some(ms) = ms_header.and_then(|h| decimal(h, 1)) {
        return Some(ms);
    }
    let h = header?.trim_ascii();
    if let Some(ms) = decimal(h, 1000) {
        return Some(ms);
    }
    // An HTTP date ("Sun, 06 Nov 1994 08:49:37 GMT"); `Date.parse` alone accepts stray numbers.
    let date_like = h.bytes().any(|b| b == b':') && h.bytes().any(|b| b.is_ascii_alphabetic());
    if !date_like {
        return None;
    }
    let at = parse_date(h);
    if at.is_finite() {
        return Some((at - now as f64).max(0.0) as u64);
    }
    None
}

/// `digits[.digits]` times `scale` (1 or 1000), truncated to an integer; no float parsing.
fn decimal(s: &str, scale: u64) -> Option<u64> {
    let mut value = 0u64;
    // The weight of the next digit; `None` before the dot.
    let mut unit = None;
    let mut digits = 0;
    for b in s.trim_ascii().bytes() {
        if b == b'.' && unit.is_none() && digits > 0 {
            unit = Some(scale);
            continue;
        }
        if !b.is_ascii_digit() {
            return None;
        }
        let d = u64::from(b - b'0');
        value = match &mut unit {
            None => value.checked_mul(10)?.checked_add(d * scale)?,
            Some(unit) => {
                *unit /= 10;
                value.checked_add(d * *unit)?
            }
        };
        digits += 1;
    }
    (digits > 0).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host date parser that knows one date: the epoch + 60 s.
    fn one_date(h: &str) -> f64 {
        match h {
            "Thu, 01 Jan 1970 00:01:00 GMT" => 60_000.0,
            _ => f64::NAN,
        }
    }

    fn delay(ms: Option<&str>, header: Option<&str>) -> Option<u64> {
        retry_after_ms(ms, header, 10_000, one_date)
    }

    #[test]
    fn retry_after_ms_wins_over_retry_after() {
        assert_eq!(delay(Some("250"), Some("9")), Some(250));
        assert_eq!(delay(Some("12.9"), None), Some(12));
        assert_eq!(delay(Some("-5"), Some("2")), Some(2000));
        assert_eq!(delay(Some("-5"), Some("soon")), None);
    }

    #[test]
    fn seconds_are_decimal_and_truncated_to_ms() {
        assert_eq!(delay(None, Some("3")), Some(3000));
        assert_eq!(delay(None, Some(" 1.5 ")), Some(1500));
        assert_eq!(delay(None, Some("0.0015")), Some(1));
        assert_eq!(delay(None, Some("1.")), Some(1000));
        assert_eq!(delay(None, Some(".5")), None);
        assert_eq!(delay(None, Some("-5")), None);
        assert_eq!(delay(None, Some("1.2.3")), None);
        assert_eq!(delay(None, None), None);
    }

    #[test]
    fn seconds_beyond_u64_are_no_delay_rather_than_a_wrap() {
        assert_eq!(delay(None, Some("99999999999999999999")), None);
        assert_eq!(delay(None, Some("18446744073709552")), None);
    }

    #[test]
    fn an_http_date_is_the_time_left_until_it() {
        assert_eq!(
            delay(None, Some("Thu, 01 Jan 1970 00:01:00 GMT")),
            Some(50_000)
        );
        let past = retry_after_ms(
            None,
            Some("Thu, 01 Jan 1970 00:01:00 GMT"),
            90_000,
            one_date,
        );
        assert_eq!(past, Some(0));
        assert_eq!(delay(None, Some("Sun, 06 Nov 1994 08:49:37 GMT")), None);
    }

    #[test]
    fn only_date_like_text_reaches_the_date_parser() {
        let unasked = |h: &str| -> f64 { panic!("{h} is no date") };
        assert_eq!(retry_after_ms(None, Some("12 34"), 0, unasked), None);
        assert_eq!(retry_after_ms(None, Some("soon"), 0, unasked), None);
        assert_eq!(retry_after_ms(None, Some("10:30"), 0, unasked), None);
    }
}
