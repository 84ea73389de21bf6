//! HTTP header names the dialects send, and the modern Base64 sentinel encoding for header values
//! that are not plain visible ASCII (`Mcp-Name`, `Mcp-Param-*`).

/// Negotiated protocol version, on every request after the handshake (all dialects).
pub const PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// Legacy/draft session id, echoed on every message once the server assigned one.
pub const SESSION_ID: &str = "Mcp-Session-Id";
/// Modern: the JSON-RPC method.
pub const METHOD: &str = "Mcp-Method";
/// Modern: tool name / resource uri / prompt name / task id of the request.
pub const NAME: &str = "Mcp-Name";
/// Modern: prefix of the tool-parameter headers declared with `x-mcp-header`.
pub const PARAM_PREFIX: &str = "Mcp-Param-";

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// A header value as the modern transport wants it: verbatim when it is plain visible ASCII
/// (space and tab allowed inside) without surrounding whitespace, else `=?base64?…?=`.
/// Values that already look like the sentinel are encoded too, so they cannot be misread.
pub fn encode_value(value: &str) -> String {
    let bytes = value.as_bytes();
    let blank = |b: Option<&u8>| matches!(b, Some(b' ' | b'\t'));
    let encoded = !bytes
        .iter()
        .all(|&b| b == b'\t' || (0x20..=0x7e).contains(&b))
        || blank(bytes.first())
        || blank(bytes.last())
        || (value.starts_with(SENTINEL_START) && value.ends_with(SENTINEL_END));
    if encoded {
        [SENTINEL_START, &base64(value.as_bytes()), SENTINEL_END].concat()
    } else {
        value.to_owned()
    }
}

/// RFC 9110 `tchar`: a byte of a token (a header name, an authentication scheme).
pub(crate) fn is_tchar(b: u8) -> bool {
    // `!#$%&'*+-.^_`|~` compared, with ranges (`contains` on a list brings `memchr`).
    b.is_ascii_alphanumeric()
        || matches!(b, b'!' | b'#'..=b'\'' | b'*' | b'+' | b'-' | b'.' | b'^'..=b'`' | b'|' | b'~')
}

/// Standard Base64 with padding (RFC 4648 §4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let byte = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (byte(0) << 16) | (byte(1) << 8) | byte(2);
        // Four 6-bit digits, the highest first; those past the chunk's bytes are padding.
        for i in 0..4 {
            let digit = ALPHABET.get(((n >> (18 - 6 * i)) & 63) as usize);
            let digit = digit.filter(|_| i <= chunk.len()).copied();
            out.push(char::from(digit.unwrap_or(b'=')));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tchar_is_rfc_9110_s_list() {
        for b in 0..=u8::MAX {
            let listed = b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
            assert_eq!(is_tchar(b), listed, "{b}");
        }
    }

    #[test]
    fn plain_ascii_is_verbatim() {
        assert_eq!(encode_value("get_weather"), "get_weather");
        assert_eq!(encode_value("file:///a b.txt"), "file:///a b.txt");
        assert_eq!(encode_value("scope:5b2c-uuid"), "scope:5b2c-uuid");
        assert_eq!(encode_value(""), "");
    }

    #[test]
    fn unsafe_values_use_the_sentinel() {
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(encode_value("\r"), "=?base64?DQ==?=");
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, expected) in vectors {
            assert_eq!(base64(input.as_bytes()), expected, "{input}");
        }
    }
}
