//! JSON below every room: the crate's own [`Value`] (with `json!` and the [`ToJson`] forms of
//! the types JS receives), its compact text ([`text`]), and reading JSON text ([`parse`], in Rust
//! on every target: integers exact, other numbers read as `JSON.parse` reads them on wasm, as
//! serde_json does natively).

#[cfg(target_arch = "wasm32")]
mod host;
#[cfg(target_arch = "wasm32")]
pub use host::parse_written;
pub mod digits;
mod literal;
mod names;
mod parse;
mod serde_impls;
mod to_json;
mod value;
mod write;
pub use literal::json;
pub(crate) use names::wire_names;
pub use parse::parse;
pub use to_json::{json_text, Object, ToJson};
pub use value::{Entry, Map, Number, Value};
pub use write::{push_quoted, push_value, text};

/// A serde type's value, through serde_json's text (for tests comparing with derived impls).
#[cfg(test)]
pub fn to_value<T: serde::Serialize + ?Sized>(t: &T) -> Result<Value, serde_json::Error> {
    serde_json::from_str(&serde_json::to_string(t)?)
}

/// A serde type read from a value, through serde_json's text (for tests).
#[cfg(test)]
pub fn from_value<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, serde_json::Error> {
    serde_json::from_str(&text(&v))
}

/// JSON's two-character escapes: each letter after the `\\` and the byte it stands for (`/`
/// is read, never written: [`push_quoted`] leaves it plain).
const SHORT_ESCAPES: &[u8; 16] = b"\"\"\\\\//b\x08f\x0cn\nr\rt\t";

/// The byte the escape `\\letter` stands for.
fn unescape(letter: u8) -> Option<u8> {
    escape_pair_half(letter, 0)
}

/// The letter of `byte`'s two-character escape.
fn escape_letter(byte: u8) -> Option<u8> {
    escape_pair_half(byte, 1)
}

/// The other half of the first escape pair holding `known` at `at` (0: letter, 1: byte).
fn escape_pair_half(known: u8, at: usize) -> Option<u8> {
    let pair = SHORT_ESCAPES
        .chunks(2)
        .find(|pair| pair.get(at) == Some(&known))?;
    pair.get(1 - at).copied()
}

/// The integer a decimal text spells, read as `str::parse::<i64>` reads it (an optional sign,
/// then digits) by the unsigned parser, the one the binary carries.
pub fn parse_i64(text: &str) -> Option<i64> {
    match text.strip_prefix("-") {
        Some(digits) if !digits.starts_with("+") => {
            0i64.checked_sub_unsigned(digits.parse::<u64>().ok()?)
        }
        Some(_) => None,
        None => i64::try_from(text.parse::<u64>().ok()?).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parse_i64_reaches_both_ends() {
        assert_eq!(parse_i64("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_i64("+9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64("9223372036854775808"), None);
        assert_eq!(parse_i64("-+1"), None);
    }

    proptest! {
        /// The same integer as `str::parse::<i64>`, or none where it has none.
        #[test]
        fn parse_i64_reads_as_std(text in "[-+]{0,2}[0-9]{0,20}", n in any::<i64>()) {
            prop_assert_eq!(parse_i64(&text), text.parse::<i64>().ok());
            prop_assert_eq!(parse_i64(&n.to_string()), Some(n));
        }
    }
}
