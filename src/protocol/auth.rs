//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1): each scheme with its auth-params, quoted
//! strings read with their commas and `\` escapes. [`AuthChallenge`] keeps what a host needs to run
//! its own OAuth: RFC 9728 `resource_metadata`, RFC 6750 `scope`, `error` and `error_description`.

use serde::{Deserialize, Serialize};

use super::headers::is_tchar;

/// One challenge: its scheme and its parameters (names lowercased; a token68 has an empty name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub scheme: String,
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The value of parameter `name` (lowercase).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What an HTTP 401/403 said about authorization: the raw header and its `Bearer` parameters
/// (or those of the first challenge when none is `Bearer`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthChallenge {
    pub www_authenticate: Option<String>,
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl AuthChallenge {
    /// Reads a `WWW-Authenticate` header (absent: every field `None`).
    pub fn from_header(header: Option<&str>) -> Self {
        let Some(raw) = header else {
            return Self::default();
        };
        let all = parse(raw);
        let chosen = all
            .iter()
            .find(|c| c.scheme.eq_ignore_ascii_case("bearer"))
            .or_else(|| all.first());
        let get = |name: &str| chosen.and_then(|c| c.param(name)).map(str::to_owned);
        Self {
            www_authenticate: Some(raw.to_owned()),
            resource_metadata: get("resource_metadata"),
            scope: get("scope"),
            error: get("error"),
            error_description: get("error_description"),
        }
    }
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A cursor over the header's bytes; every slice it takes starts and ends at ASCII bytes.
struct Cursor<'a> {
    s: &'a str,
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }

    fn skip(&mut self, what: impl Fn(u8) -> bool) {
        while self.peek().is_some_and(&what) {
            self.i += 1;
        }
    }

    /// The run of bytes satisfying `what` from here.
    fn take(&mut self, what: impl Fn(u8) -> bool) -> &str {
        let start = self.i;
        self.skip(what);
        self.s.get(start..self.i).unwrap_or_default()
    }

    /// A quoted string (the opening quote is next): unescaped, up to its closing quote or the end.
    fn quoted(&mut self) -> String {
        self.i += 1;
        let mut out = Vec::new();
        while let Some(b) = self.peek() {
            self.i += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    if let Some(n) = self.peek() {
                        out.push(n);
                        self.i += 1;
                    }
                }
                _ => out.push(b),
            }
        }
        super::lossy(&out).into_owned()
    }
}

/// Every challenge in a `WWW-Authenticate` value, leniently: never fails, skips what it cannot read.
pub fn parse(header: &str) -> Vec<Challenge> {
    let mut c = Cursor { s: header, i: 0 };
    let mut out: Vec<Challenge> = Vec::new();
    loop {
        c.skip(|b| is_space(b) || b == b',');
        if c.peek().is_none() {
            break;
        }
        let scheme = c.take(is_tchar).to_owned();
        if scheme.is_empty() {
            // Not a token: skip one character (all of a non-ASCII one).
            c.i += 1;
            while c.i < header.len() && !header.is_char_boundary(c.i) {
                c.i += 1;
            }
            continue;
        }
        let mut challenge = Challenge {
            scheme,
            params: Vec::new(),
        };
        read_params(&mut c, &mut challenge);
        out.push(challenge);
    }
    out
}

/// Reads `name=value` pairs (or one token68) until the next challenge begins.
fn read_params(c: &mut Cursor<'_>, challenge: &mut Challenge) {
    loop {
        let save = c.i;
        c.skip(|b| is_space(b) || b == b',');
        let name = c.take(is_tchar).to_owned();
        let after_name = c.i;
        c.skip(is_space);
        if name.is_empty() || c.peek() != Some(b'=') {
            // A bare token: the next challenge's scheme (or the end).
            c.i = save;
            return;
        }
        c.i += 1;
        let token68 = after_name == c.i - 1
            && matches!(
                c.peek(),
                None | Some(b'=') | Some(b',') | Some(b' ') | Some(b'\t')
            );
        if token68 {
            let pad = c.take(|b| b == b'=');
            challenge
                .params
                .push((String::new(), [name.as_str(), "=", pad].concat()));
            continue;
        }
        c.skip(is_space);
        let value = if c.peek() == Some(b'"') {
            c.quoted()
        } else {
            c.take(|b| b != b',' && !is_space(b)).to_owned()
        };
        challenge.params.push((name.to_ascii_lowercase(), value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_with_quoted_commas_and_escapes() {
        let h = r#"Bearer realm="mcp, prod", error="insufficient_scope", scope="files:read files:write", error_description="need \"write\", sorry", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp""#;
        let a = AuthChallenge::from_header(Some(h));
        assert_eq!(a.www_authenticate.as_deref(), Some(h));
        assert_eq!(a.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(a.scope.as_deref(), Some("files:read files:write"));
        assert_eq!(
            a.error_description.as_deref(),
            Some(r#"need "write", sorry"#)
        );
        assert_eq!(
            a.resource_metadata.as_deref(),
            Some("https://api.example.com/.well-known/oauth-protected-resource/mcp")
        );
    }

    #[test]
    fn several_challenges_pick_bearer() {
        let h = r#"Basic realm="x", Bearer error=invalid_token, resource_metadata="https://a/b", DPoP algs="ES256 PS256""#;
        let all = parse(h);
        let schemes: Vec<&str> = all.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["Basic", "Bearer", "DPoP"]);
        assert_eq!(all[0].param("realm"), Some("x"));
        assert_eq!(all[2].param("algs"), Some("ES256 PS256"));
        let a = AuthChallenge::from_header(Some(h));
        assert_eq!(a.error.as_deref(), Some("invalid_token"));
        assert_eq!(a.resource_metadata.as_deref(), Some("https://a/b"));
        assert_eq!(a.scope, None);
    }

    #[test]
    fn case_spaces_token68_and_bare_schemes() {
        let all = parse(r#"  bearer   SCOPE = "a" ,ERROR=x  , Basic dXNlcjpwYXNz== , Negotiate"#);
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].param("scope"), Some("a"));
        assert_eq!(all[0].param("error"), Some("x"));
        assert_eq!(all[1].param(""), Some("dXNlcjpwYXNz=="));
        assert_eq!(all[2].scheme, "Negotiate");
        assert!(all[2].params.is_empty());
        let a = AuthChallenge::from_header(Some("Bearer"));
        assert_eq!(a.www_authenticate.as_deref(), Some("Bearer"));
        assert_eq!(a.error, None);
        assert_eq!(AuthChallenge::from_header(None), AuthChallenge::default());
    }

    #[test]
    fn garbage_never_panics() {
        for h in [
            "",
            ",,,",
            "=",
            "Bearer =",
            "Bearer a=\"unterminated",
            "Bearer a=\"ends in backslash\\",
            "Bearer é=1, ü",
            "\u{1F600} Bearer scope=\"ok\"",
            "Bearer a=b=c, d",
        ] {
            let _ = parse(h);
            let _ = AuthChallenge::from_header(Some(h));
        }
        let a = AuthChallenge::from_header(Some("\u{1F600} Bearer scope=\"ok\""));
        assert_eq!(a.scope.as_deref(), Some("ok"));
        let u = AuthChallenge::from_header(Some("Bearer a=\"x\\"));
        assert_eq!(u.www_authenticate.as_deref(), Some("Bearer a=\"x\\"));
    }
}
