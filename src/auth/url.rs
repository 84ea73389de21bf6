//! Just enough of URLs for OAuth: split an absolute `http(s)` URL into origin and path, build the
//! RFC 8414 / RFC 9728 well-known locations, and read or write `application/x-www-form-urlencoded`.

use crate::json::digits::hex;

/// An absolute `http`/`https` URL split at its parts (query and fragment kept apart).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    /// `scheme://authority`, scheme and host lowercased.
    pub origin: String,
    /// The path, `""` when the URL has none (never a lone `/`).
    pub path: String,
    /// The query without its `?` (`None`: no `?`).
    pub query: Option<String>,
}

impl Url {
    /// Parses an absolute `http:` or `https:` URL; anything else is `None`.
    pub fn parse(s: &str) -> Option<Url> {
        let s = s.trim();
        let (scheme, rest) = s.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return None;
        }
        let rest = rest.split('#').next().unwrap_or_default();
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        if authority.is_empty() || authority.bytes().any(|b| b"@ \\".contains(&b)) {
            return None;
        }
        let (path, query) = match tail.split_once('?') {
            Some((p, q)) => (p, Some(q.to_owned())),
            None => (tail, None),
        };
        let path = path.trim_end_matches('/');
        Some(Url {
            origin: [scheme.as_str(), "://", &authority.to_ascii_lowercase()].concat(),
            path: path.to_owned(),
            query,
        })
    }

    /// `origin + path`: the URL without query and fragment (no trailing slash).
    pub fn base(&self) -> String {
        [self.origin.as_str(), &self.path].concat()
    }

    /// `origin/.well-known/<name><path>` (RFC 8414 §3.1, RFC 9728 §3.1: the suffix after it).
    pub fn well_known(&self, name: &str) -> String {
        [&self.origin, "/.well-known/", name, &self.path].concat()
    }

    /// `origin/.well-known/<name>` (the host root).
    pub fn root_well_known(&self, name: &str) -> String {
        [&self.origin, "/.well-known/", name].concat()
    }

    /// Whether a secure context would accept it: `https`, or `http` on a loopback host.
    pub fn is_secure_or_loopback(&self) -> bool {
        self.origin.starts_with("https://") || self.is_loopback()
    }

    /// Whether its host is the loopback interface (`localhost`, `127.x.x.x`, `[::1]`).
    pub fn is_loopback(&self) -> bool {
        let host = self.origin.split_once("://").map_or("", |(_, h)| h);
        let host = match host.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or_default(),
            None => host.split(':').next().unwrap_or_default(),
        };
        host == "localhost" || host == "::1" || host.starts_with("127.")
    }
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push('%');
            out.push_str(&hex(b.into(), 2).to_ascii_uppercase());
        }
    }
    out
}

/// `k=v&…` with both sides percent-encoded.
pub fn form(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| [encode(k), encode(v)].join("="))
        .collect::<Vec<_>>()
        .join("&")
}

/// Decodes one form component (`+` is a space; bad escapes are kept as written).
pub fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let hex = |j: usize| b.get(j).and_then(|h| char::from(*h).to_digit(16));
        match (c, hex(i + 1), hex(i + 2)) {
            (b'%', Some(h), Some(l)) => {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The decoded `name=value` pairs of a query string.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(p), String::new()),
        })
        .collect()
}

/// Base64 (RFC 4648): standard with padding, or `url_safe` (base64url without padding, as PKCE
/// and random `state` values use).
pub fn base64(bytes: &[u8], url_safe: bool) -> String {
    let alphabet: &[u8; 64] = if url_safe {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    };
    let sym = |v: u32| char::from(alphabet.get((v & 63) as usize).copied().unwrap_or(b'A'));
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let v = (b(0) << 16) | (b(1) << 8) | b(2);
        out.push(sym(v >> 18));
        out.push(sym(v >> 12));
        for (n, shift) in [(1, 6), (2, 0)] {
            if chunk.len() > n {
                out.push(sym(v >> shift));
            } else if !url_safe {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_builds_well_known_locations() {
        let u = Url::parse("HTTPS://Api.Example.com:8443/v1/mcp/?x=1#f").unwrap();
        assert_eq!(u.origin, "https://api.example.com:8443");
        assert_eq!(u.path, "/v1/mcp");
        assert_eq!(u.query.as_deref(), Some("x=1"));
        assert_eq!(
            u.well_known("oauth-protected-resource"),
            "https://api.example.com:8443/.well-known/oauth-protected-resource/v1/mcp"
        );
        let root = Url::parse("http://127.0.0.1:9/").unwrap();
        assert_eq!(root.path, "");
        assert!(root.is_secure_or_loopback());
        assert!(!Url::parse("http://evil.test/")
            .unwrap()
            .is_secure_or_loopback());
        for bad in [
            "javascript:alert(1)",
            "ftp://x/",
            "https://",
            "/relative",
            "http://a@b/",
        ] {
            assert_eq!(Url::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes(), false), o);
        }
        assert_eq!(base64(&[0xfb, 0xff], true), "-_8");
        assert_eq!(base64(&[0xfb, 0xff], false), "+/8=");
    }

    #[test]
    fn form_encoding_round_trips() {
        let body = form(&[("redirect_uri", "http://localhost:3/cb?a=b c"), ("é", "&=")]);
        assert_eq!(
            body,
            "redirect_uri=http%3A%2F%2Flocalhost%3A3%2Fcb%3Fa%3Db%20c&%C3%A9=%26%3D"
        );
        let back = query_pairs(&body);
        assert_eq!(back[0].1, "http://localhost:3/cb?a=b c");
        assert_eq!(back[1], ("é".to_owned(), "&=".to_owned()));
        assert_eq!(decode("%zz%4+"), "%zz%4 ");
        assert_eq!(
            query_pairs("a&&b=1"),
            [("a".into(), "".into()), ("b".into(), "1".into())]
        );
    }
}
