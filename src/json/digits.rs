//! Integers written as text without `core::fmt`. The client's messages are joined from parts
//! (`[..].concat()`) and these: `format!`, `write!` and `to_string()` on a number would bring
//! the formatting machinery (`fmt::write`, `Formatter::pad_integral`, the `Display` impls, an
//! `Arguments` built at each call) into the wasm binary.

/// `n` in decimal, as `n.to_string()` writes it.
pub fn decimal(n: u64) -> String {
    zero_padded(n, 1)
}

/// `n` in decimal with a leading `-` when negative, as `n.to_string()` writes it.
pub fn signed(n: i64) -> String {
    let mut out = String::new();
    push_signed(&mut out, n);
    out
}

/// Appends `n` in decimal, as [`signed`] writes it.
pub fn push_signed(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    push_in_radix(out, n.unsigned_abs(), 10, 1);
}

/// `n` in decimal, zeros in front up to `width` digits: `format!("{n:0width$}")`.
pub fn zero_padded(n: u64, width: usize) -> String {
    let mut out = String::new();
    push_padded(&mut out, n, width);
    out
}

/// Appends `n` in decimal, as [`zero_padded`] writes it.
pub fn push_padded(out: &mut String, n: u64, width: usize) {
    push_in_radix(out, n, 10, width);
}

/// `n` in lowercase hexadecimal, zeros in front up to `width` digits: `format!("{n:0width$x}")`.
pub fn hex(n: u64, width: usize) -> String {
    let mut out = String::new();
    push_in_radix(&mut out, n, 16, width);
    out
}

/// Appends `n`'s digits in `radix` (at most 16), at least `width` of them and at least one: the
/// higher digits first (recursively), then the last.
fn push_in_radix(out: &mut String, n: u64, radix: u64, width: usize) {
    if n >= radix || width > 1 {
        push_in_radix(out, n / radix, radix, width.saturating_sub(1));
    }
    let digit = (n % radix) as u8;
    out.push(char::from(if digit < 10 {
        b'0' + digit
    } else {
        b'a' + digit - 10
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_ends_and_padding() {
        assert_eq!(decimal(0), "0");
        assert_eq!(decimal(u64::MAX), "18446744073709551615");
        assert_eq!(signed(i64::MIN), "-9223372036854775808");
        assert_eq!(signed(-7), "-7");
        assert_eq!(zero_padded(7, 3), "007");
        assert_eq!(zero_padded(0, 0), "0");
        assert_eq!(zero_padded(12345, 2), "12345");
        assert_eq!(hex(0, 16), "0000000000000000");
        assert_eq!(hex(u64::MAX, 16), "ffffffffffffffff");
        assert_eq!(hex(0xab, 1), "ab");
    }

    proptest::proptest! {
        /// The same text as std's formatting, for any integer and width.
        #[test]
        fn agrees_with_std(n in proptest::prelude::any::<u64>(), i in proptest::prelude::any::<i64>(), width in 0usize..24) {
            proptest::prop_assert_eq!(decimal(n), n.to_string());
            proptest::prop_assert_eq!(signed(i), i.to_string());
            let mut appended = "x".to_owned();
            push_signed(&mut appended, i);
            proptest::prop_assert_eq!(appended, format!("x{i}"));
            proptest::prop_assert_eq!(zero_padded(n, width), format!("{n:0width$}"));
            proptest::prop_assert_eq!(hex(n, width), format!("{n:0width$x}"));
        }
    }
}
