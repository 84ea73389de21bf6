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
        let mut chosen: Option<Challenge> = None;
        read(raw, |c| {
            let bearer = c.scheme.eq_ignore_ascii_case("bearer");
            if bearer || chosen.is_none() {
                chosen = Some(c);
            }
            !bearer
        });
        let get = |name: &str| {
            chosen
                .as_ref()
                .and_then(|c| c.param(name))
                .map(str::to_owned)
        };
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

fn is_space_or_comma(b: u8) -> bool {
    is_space(b) || b == b','
}

/// Where the run of bytes from `i` satisfying `what` ends. Runs of these classes start and end
/// at ASCII bytes (or the end), so they slice the text at character boundaries.
fn run(b: &[u8], mut i: usize, what: fn(u8) -> bool) -> usize {
    while b.get(i).is_some_and(|&c| what(c)) {
        i += 1;
    }
    i
}

/// The text between two ends of runs (see [`run`]).
fn part(text: &str, from: usize, to: usize) -> &str {
    text.get(from..to).unwrap_or_default()
}

/// Every challenge in a `WWW-Authenticate` value, leniently: never fails, skips what it cannot read.
pub fn parse(header: &str) -> Vec<Challenge> {
    let mut out = Vec::new();
    read(header, |c| {
        out.push(c);
        true
    });
    out
}

/// Hands each challenge of a `WWW-Authenticate` value to `each` (see [`parse`]) while it
/// returns `true`.
fn read(header: &str, mut each: impl FnMut(Challenge) -> bool) {
    let b = header.as_bytes();
    let mut i = run(b, 0, is_space_or_comma);
    while i < b.len() {
        let end = run(b, i, is_tchar);
        if end == i {
            // Not a token: skip one character (all of a non-ASCII one).
            i += 1;
            while i < b.len() && !header.is_char_boundary(i) {
                i += 1;
            }
        } else {
            let mut challenge = Challenge {
                scheme: part(header, i, end).to_owned(),
                params: Vec::new(),
            };
            i = read_params(header, end, &mut challenge);
            if !each(challenge) {
                return;
            }
        }
        i = run(b, i, is_space_or_comma);
    }
}

/// Reads `name=value` pairs (or one token68) from `i` until the next challenge begins (where it
/// returns).
fn read_params(header: &str, mut i: usize, challenge: &mut Challenge) -> usize {
    let b = header.as_bytes();
    loop {
        let name = run(b, i, is_space_or_comma);
        let name_end = run(b, name, is_tchar);
        let eq = run(b, name_end, is_space);
        if name_end == name || b.get(eq) != Some(&b'=') {
            // A bare token: the next challenge's scheme (or the end).
            return i;
        }
        let after = b.get(eq + 1).copied();
        if eq == name_end && after.is_none_or(|c| c == b'=' || is_space_or_comma(c)) {
            // A token68 (`=` padding included), under no name.
            i = run(b, eq, |c| c == b'=');
            challenge
                .params
                .push((String::new(), part(header, name, i).to_owned()));
            continue;
        }
        let start = run(b, eq + 1, is_space);
        let value = if b.get(start) == Some(&b'"') {
            let (value, end) = unquote(header, start + 1);
            i = end;
            value
        } else {
            i = run(b, start, |c| !is_space_or_comma(c));
            part(header, start, i).to_owned()
        };
        let name = part(header, name, name_end).to_ascii_lowercase();
        challenge.params.push((name, value));
    }
}

/// A quoted string's text from `i` (after its opening quote), unescaped, and where it ends (past
/// its closing quote, or at the end). An escaped character stands for itself; a backslash at the
/// end stands for nothing.
fn unquote(text: &str, mut i: usize) -> (String, usize) {
    let b = text.as_bytes();
    let mut out = String::new();
    loop {
        let end = run(b, i, |c| c != b'"' && c != b'\\');
        out.push_str(part(text, i, end));
        i = end + 1;
        match b.get(end) {
            Some(b'\\') => {
                // The escaped character starts the next run, unless it would end that run.
                if let Some(&c @ (b'"' | b'\\')) = b.get(i) {
                    out.push(char::from(c));
                    i += 1;
                }
            }
            Some(_) => return (out, i),
            None => return (out, end),
        }
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
        let e = parse("Bearer a=\"\\\u{e9}x\\\"y\\\\z\\\u{1F600}\", b=1");
        assert_eq!(e[0].param("a"), Some("\u{e9}x\"y\\z\u{1F600}"));
        assert_eq!(e[0].param("b"), Some("1"));
        let u = AuthChallenge::from_header(Some("Bearer a=\"x\\"));
        assert_eq!(u.www_authenticate.as_deref(), Some("Bearer a=\"x\\"));
    }
}
