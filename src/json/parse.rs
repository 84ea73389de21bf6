//! JSON text (RFC 8259) read into a [`Value`] over the text already in memory. On wasm this
//! spares handing each message to the host's `JSON.parse` and walking its objects back one host
//! call at a time; integers are read exactly, beyond 2^53 too. A number with a fraction or an
//! exponent, or an integer beyond `i64`/`u64`, is read by [`float`]: on wasm the host's
//! `Number()` (the binary then carries no float parser) and, as `JSON.parse` reads it, an integral
//! one becomes an integer; natively `str::parse::<f64>`, a float as serde_json reads it.
//!
//! It reads what `JSON.parse` reads, as `JSON.parse` and a JS string's UTF-8 encoding give it:
//! a repeated key keeps its first position and its last value, and an escaped UTF-16 surrogate
//! without its other half is U+FFFD. Nesting deeper than [`MAX_DEPTH`] is refused.

use super::{digits, Map, Value};

/// Nesting deeper than this is refused: the reader recurses once per level.
const MAX_DEPTH: u32 = 512;

/// Parses JSON text into a value; the error says what is wrong and at which byte.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut reader = Reader {
        text,
        at: 0,
        too_deep: false,
    };
    reader.document().ok_or_else(|| {
        let why = match reader.too_deep {
            true => "nested too deeply",
            false => "unexpected input",
        };
        [why, " at byte ", &digits::decimal(reader.at as u64)].concat()
    })
}

/// What was read, or `None` where the text is not JSON (or nested too deeply).
type Read<T> = Option<T>;

/// A position in the text being read.
struct Reader<'a> {
    text: &'a str,
    at: usize,
    /// Reading stopped at the nesting limit.
    too_deep: bool,
}

impl<'a> Reader<'a> {
    /// One value and nothing after it but whitespace.
    fn document(&mut self) -> Read<Value> {
        let value = self.value(0)?;
        self.skip_space();
        (self.at == self.text.len()).then_some(value)
    }

    /// The next byte; 0 at the end (a NUL is nowhere valid outside a string either).
    fn peek(&self) -> u8 {
        self.text.as_bytes().get(self.at).copied().unwrap_or(0)
    }

    /// The text from the current position.
    fn rest(&self) -> &'a [u8] {
        self.text.as_bytes().get(self.at..).unwrap_or_default()
    }

    fn skip_space(&mut self) {
        while let b' ' | b'\t' | b'\n' | b'\r' = self.peek() {
            self.at += 1;
        }
    }

    /// Consumes `b` after whitespace, if it is next.
    fn eat(&mut self, b: u8) -> bool {
        self.skip_space();
        let next = self.peek() == b;
        self.at += usize::from(next);
        next
    }

    /// Fails unless `b` is next after whitespace, which it consumes.
    fn expect(&mut self, b: u8) -> Read<()> {
        self.eat(b).then_some(())
    }

    /// A value after whitespace, `depth` containers deep.
    fn value(&mut self, depth: u32) -> Read<Value> {
        if depth > MAX_DEPTH {
            self.too_deep = true;
            return None;
        }
        self.skip_space();
        match self.peek() {
            b'{' => self.container(depth, b'}'),
            b'[' => self.container(depth, b']'),
            b'"' => self.string().map(Value::String),
            b'-' | b'0'..=b'9' => self.number(),
            _ => self.word(),
        }
    }

    /// `null`, `false` or `true`.
    fn word(&mut self) -> Read<Value> {
        const WORDS: [&[u8]; 3] = [b"null", b"false", b"true"];
        let rest = self.rest();
        let i = WORDS.iter().position(|w| rest.starts_with(w))?;
        self.at += WORDS.get(i).map_or(0, |w| w.len());
        Some(match i {
            0 => Value::Null,
            _ => Value::Bool(i == 2),
        })
    }

    /// An array or an object at its `[` or `{`, ending at `close`.
    fn container(&mut self, depth: u32, close: u8) -> Read<Value> {
        self.at += 1;
        let object = close == b'}';
        let mut items = Vec::new();
        let mut members = Map::new();
        if !self.eat(close) {
            loop {
                let key = match object {
                    true => Some(self.key()?),
                    false => None,
                };
                let item = self.value(depth + 1)?;
                match key {
                    Some(key) => members.insert(key, item),
                    None => items.push(item),
                }
                if self.eat(close) {
                    break;
                }
                self.expect(b',')?;
            }
        }
        Some(match object {
            true => Value::Object(members),
            false => Value::Array(items),
        })
    }

    /// An object member's key and its `:`, after whitespace.
    fn key(&mut self) -> Read<String> {
        self.skip_space();
        if self.peek() != b'"' {
            return None;
        }
        let key = self.string()?;
        self.expect(b':')?;
        Some(key)
    }

    /// A string at its `"`: its text, escapes decoded.
    fn string(&mut self) -> Read<String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let start = self.at;
            let plain = (self.rest().iter()).position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
            self.at += plain;
            // Both ends are at ASCII bytes, so on character boundaries.
            out.push_str(self.text.get(start..self.at).unwrap_or_default());
            let end = self.peek();
            self.at += 1;
            match end {
                b'"' => return Some(out),
                b'\\' => self.escape(&mut out)?,
                _ => return None,
            }
        }
    }

    /// The escape after a `\`, appended to `out`.
    fn escape(&mut self, out: &mut String) -> Read<()> {
        let b = self.peek();
        self.at += 1;
        let code = match super::unescape(b) {
            Some(c) => u32::from(c),
            None if b == b'u' => self.utf16()?,
            None => return None,
        };
        out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
        Some(())
    }

    /// The code point of the UTF-16 escaped after `\u`: a surrogate pair when a high surrogate
    /// is followed by an escaped low one; a lone surrogate is no code point (U+FFFD).
    fn utf16(&mut self) -> Read<u32> {
        let unit = self.hex4()?;
        if (0xD800..0xDC00).contains(&unit) && self.rest().starts_with(b"\\u") {
            let high_end = self.at;
            self.at += 2;
            let low = self.hex4()?;
            if (0xDC00..0xE000).contains(&low) {
                return Some(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
            }
            // Not its other half: that escape is read on its own.
            self.at = high_end;
        }
        Some(unit)
    }

    /// Four hexadecimal digits.
    fn hex4(&mut self) -> Read<u32> {
        let digits = self.rest().get(..4)?;
        self.at += 4;
        (digits.iter()).try_fold(0, |n, &b| Some(n * 16 + char::from(b).to_digit(16)?))
    }

    /// Consumes ASCII digits; fails unless there is one.
    fn digits(&mut self) -> Read<()> {
        let n = self
            .rest()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        self.at += n;
        (n > 0).then_some(())
    }

    /// A number at its `-` or first digit: an integer exactly when it is one in `i64::MIN..=u64::MAX`.
    fn number(&mut self) -> Read<Value> {
        let start = self.at;
        self.at += usize::from(self.peek() == b'-');
        match self.peek() {
            b'0' => self.at += 1,
            _ => self.digits()?,
        }
        let mut integer = true;
        if self.peek() == b'.' {
            self.at += 1;
            integer = false;
            self.digits()?;
        }
        if let b'e' | b'E' = self.peek() {
            self.at += 1;
            integer = false;
            if let b'+' | b'-' = self.peek() {
                self.at += 1;
            }
            self.digits()?;
        }
        let literal = self.text.get(start..self.at).unwrap_or_default();
        if integer {
            if let Some(i) = super::parse_i64(literal) {
                return Some(i.into());
            }
            if let Ok(u) = literal.parse::<u64>() {
                return Some(u.into());
            }
        }
        Some(float(literal))
    }
}

/// A number literal read as a double by the host, as `JSON.parse` reads it.
#[cfg(target_arch = "wasm32")]
fn float(literal: &str) -> Value {
    super::host::number_text(literal)
}

/// A number literal read as a double (beyond the doubles: `null`).
#[cfg(not(target_arch = "wasm32"))]
fn float(literal: &str) -> Value {
    literal.parse::<f64>().map_or(Value::Null, Value::from)
}

#[cfg(test)]
mod tests;
