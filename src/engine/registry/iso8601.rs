//! A small, tolerant ISO 8601 / RFC 3339 timestamp parser (no dependencies): accepts `Z`/`z`,
//! `±HH:MM`, `±HHMM`, `±HH`, no offset (UTC), a `T`, `t` or space separator, any number of
//! fractional digits (nanoseconds included) and a bare date.

use crate::engine::api::Millis;
use crate::json::digits::push_padded;

/// Milliseconds since the Unix epoch, or `None` when the text is not a timestamp we understand
/// (or lies before 1970). Surrounding ASCII whitespace is ignored.
pub(crate) fn parse_millis(text: &str) -> Option<Millis> {
    let mut p = Cursor {
        b: text.trim_ascii().as_bytes(),
        i: 0,
    };
    let (year, month, day) = p.date()?;
    let (mut clock, mut millis, mut offset_min) = (0i64, 0i64, 0i64);
    if let Some(&sep) = p.peek() {
        if !matches!(sep, b'T' | b't' | b' ') {
            return None;
        }
        p.i += 1;
        (clock, millis) = p.time()?;
        offset_min = p.offset()?;
    }
    if p.peek().is_some() {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + clock - offset_min * 60;
    // A four-digit year keeps this far inside i64 (|secs| < 2^38): no overflow to check.
    let ms = secs * 1000 + millis;
    u64::try_from(ms).ok()
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    /// `YYYY-MM-DD`, a real calendar day.
    fn date(&mut self) -> Option<(i64, u32, u32)> {
        let year = i64::from(self.digits(4)?);
        self.eat(b'-')?;
        let month = self.digits(2)?;
        self.eat(b'-')?;
        let day = self.digits(2)?;
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        Some((year, month, day))
    }

    /// `HH:MM[:SS[.fff…]]` (`24:00:00` and a leap second allowed): seconds into the day and
    /// milliseconds.
    fn time(&mut self) -> Option<(i64, i64)> {
        let hour = i64::from(self.digits(2)?);
        self.eat(b':')?;
        let minute = i64::from(self.digits(2)?);
        let (mut second, mut millis) = (0i64, 0i64);
        if self.eat(b':').is_some() {
            second = i64::from(self.digits(2)?);
            if matches!(self.peek(), Some(b'.') | Some(b',')) {
                self.i += 1;
                millis = self.fraction()?;
            }
        }
        if hour > 24
            || minute > 59
            || second > 60
            || (hour == 24 && (minute, second, millis) != (0, 0, 0))
        {
            return None;
        }
        Some((hour * 3600 + minute * 60 + second, millis))
    }

    /// Fractional seconds (at least one digit, any number) as whole milliseconds.
    fn fraction(&mut self) -> Option<i64> {
        let start = self.i;
        // The place value of the next digit in milliseconds: 100, 10, 1, then 0 (cut off).
        let (mut frac, mut place) = (0i64, 100i64);
        while let Some(d) = self.peek().filter(|c| c.is_ascii_digit()) {
            frac += place * i64::from(d - b'0');
            place /= 10;
            self.i += 1;
        }
        (self.i > start).then_some(frac)
    }

    /// The offset from UTC in minutes: none, `Z`/`z`, `±HH:MM`, `±HHMM` or `±HH`.
    fn offset(&mut self) -> Option<i64> {
        let sign = match self.peek() {
            None => return Some(0),
            Some(b'Z') | Some(b'z') => {
                self.i += 1;
                return Some(0);
            }
            Some(&sign @ (b'+' | b'-')) => sign,
            Some(_) => return None,
        };
        self.i += 1;
        let oh = i64::from(self.digits(2)?);
        // `±HH:MM` or `±HHMM`: the colon is optional.
        let _ = self.eat(b':');
        let om = if self.peek().is_some() {
            i64::from(self.digits(2)?)
        } else {
            0
        };
        if oh > 23 || om > 59 {
            return None;
        }
        let total = oh * 60 + om;
        Some(if sign == b'+' { total } else { -total })
    }

    fn peek(&self) -> Option<&u8> {
        self.b.get(self.i)
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek() == Some(&c)).then(|| self.i += 1)
    }

    /// Exactly `n` ASCII digits as a number.
    fn digits(&mut self, n: usize) -> Option<u32> {
        let digits = self.b.get(self.i..self.i + n)?;
        self.i += n;
        digits.iter().try_fold(0, |acc, &d| {
            d.is_ascii_digit().then(|| acc * 10 + u32::from(d - b'0'))
        })
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (month 1..=12).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    // Shift the year so it starts in March: the leap day is then the year's last day.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let m = i64::from(m);
    let shifted_month = if m > 2 { m - 3 } else { m + 9 };
    let day_of_year = (153 * shifted_month + 2) / 5 + i64::from(d) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The instant `text` names when it is written exactly as [`format_millis`] writes it (read on
/// every status: checked by shape, without writing the instant back out).
pub(super) fn canonical_millis(text: &str) -> Option<Millis> {
    let b = text.as_bytes();
    let shape = b.len() == CANONICAL_LEN
        && b.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'.',
            23 => c == b'Z',
            _ => c.is_ascii_digit(),
        });
    // `24:00:00.000` and a leap second parse, but name instants written otherwise.
    if !shape || b.get(11..13)? > b"23".as_slice() || b.get(17..19)? > b"59".as_slice() {
        return None;
    }
    parse_millis(text)
}

/// The length of [`format_millis`]'s text (`2026-12-01T17:05:51.000Z`) for years up to 9999.
const CANONICAL_LEN: usize = 24;

/// `millis` since the Unix epoch as ISO 8601 UTC with milliseconds (`2026-12-01T17:05:51.000Z`).
pub(crate) fn format_millis(millis: Millis) -> String {
    let secs = millis / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm, unsigned form).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    let mut out = String::with_capacity(CANONICAL_LEN);
    let parts = [
        (year, 4, b'-'),
        (month, 2, b'-'),
        (day, 2, b'T'),
        (rem / 3600, 2, b':'),
        (rem / 60 % 60, 2, b':'),
        (rem % 60, 2, b'.'),
        (millis % 1000, 3, b'Z'),
    ];
    for (n, width, after) in parts {
        push_padded(&mut out, n, width);
        out.push(char::from(after));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{canonical_millis, format_millis, parse_millis as p};

    #[test]
    fn format_pads_every_field_and_widens_only_the_year() {
        for at in [
            0,
            999,
            1_000,
            86_399_999,
            1_709_251_199_999,
            4_102_444_799_999,
            253_402_300_799_999,
            253_402_300_800_000,
        ] {
            let secs = at / 1000;
            let text = format_millis(at);
            assert_eq!(
                text.len(),
                24 + usize::from(at >= 253_402_300_800_000),
                "{text}"
            );
            assert!(
                text.ends_with(&format!("{:02}.{:03}Z", secs % 60, at % 1000)),
                "{text}"
            );
        }
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(1_709_251_199_999), "2024-02-29T23:59:59.999Z");
        assert_eq!(
            format_millis(253_402_300_800_000),
            "10000-01-01T00:00:00.000Z"
        );
    }

    /// Canonical means: written back exactly as read.
    #[test]
    fn canonical_is_what_format_writes_back() {
        let oracle = |t: &str| p(t).filter(|&at| format_millis(at) == t);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut texts = vec![
            "2024-02-29T23:59:59.999Z".to_owned(),
            "2025-02-29T10:00:00.000Z".into(),
            "2026-12-01T24:00:00.000Z".into(),
            "2016-12-31T23:59:60.000Z".into(),
            "2026-12-01t17:05:51.000z".into(),
            "2026-12-01T17:05:51.000+00:00".into(),
            "1969-12-31T23:59:59.999Z".into(),
            "2026-13-01T00:00:00.000Z".into(),
            "2026-12-01T17:60:00.000Z".into(),
            "2026-12-01 17:05:51.000Z".into(),
        ];
        for _ in 0..2_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let text = format_millis(seed % 4_102_444_800_000);
            // The text itself, and with one digit or separator changed.
            let mut bytes = text.clone().into_bytes();
            let at = (seed >> 40) as usize % bytes.len();
            bytes[at] = b"0123456789-:T.Z"[(seed >> 20) as usize % 15];
            texts.push(text);
            texts.extend(String::from_utf8(bytes));
        }
        for t in &texts {
            assert_eq!(canonical_millis(t), oracle(t), "{t}");
        }
    }

    #[test]
    fn epoch_and_known_instants() {
        assert_eq!(p("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(p("2025-11-25T10:30:00Z"), Some(1_764_066_600_000));
        assert_eq!(p("2000-02-29T00:00:00Z"), Some(951_782_400_000));
        assert_eq!(p("2024-12-31T23:59:59.999Z"), Some(1_735_689_599_999));
    }

    #[test]
    fn offsets_fractions_and_separators() {
        let z = p("2025-11-25T10:30:00Z");
        assert_eq!(p("2025-11-25T10:30:00+00:00"), z);
        assert_eq!(p("2025-11-25T11:30:00+01:00"), z);
        assert_eq!(p("2025-11-25T05:00:00-0530"), z);
        assert_eq!(p("2025-11-25T12:30:00+02"), z);
        assert_eq!(p("2025-11-25 10:30:00"), z);
        assert_eq!(p("2025-11-25t10:30:00z"), z);
        assert_eq!(p("2025-11-25T10:30Z"), z);
        assert_eq!(p("2025-11-25T10:30:00.123456789Z"), z.map(|v| v + 123));
        assert_eq!(p("2025-11-25T10:30:00.5+00:00"), z.map(|v| v + 500));
        assert_eq!(p("2025-11-25"), p("2025-11-25T00:00:00Z"));
    }

    #[test]
    fn rejects_garbage_without_panicking() {
        for bad in [
            "",
            "x",
            "2025",
            "2025-13-01T00:00:00Z",
            "2025-02-30T00:00:00Z",
            "2025-11-25T25:00:00Z",
            "2025-11-25T10:30:00.Z",
            "2025-11-25T10:30:00+",
            "2025-11-25T10:30:00Zjunk",
            "1969-12-31T23:59:59Z",
            "２０２５-11-25",
            "2025-11-25T10:30:00+99:00",
        ] {
            assert_eq!(p(bad), None, "{bad}");
        }
    }

    #[test]
    fn iso8601_round_trips_through_the_parser() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(1_764_608_751_123), "2025-12-01T17:05:51.123Z");
        assert_eq!(format_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
        for t in [
            1,
            59_999,
            1_709_164_800_000,
            4_102_444_799_999,
            253_402_300_799_999,
        ] {
            assert_eq!(p(&format_millis(t)), Some(t), "{t}");
        }
    }
}
