//! DPoP (RFC 9449): the proof JWT a request carries to show it holds the client's key, and the
//! server nonces a proof must echo. The key and the signing are the shell's.

use crate::json::Value;

use super::doc::{build, object, text};
use super::jwt::{signing_input, PublicJwk, ES256};
use super::HttpResponse;
use crate::protocol::auth::parse;

/// What one proof is for.
#[derive(Debug, Clone, Copy)]
pub struct ProofFor<'a> {
    /// The request's method (`htm`).
    pub method: &'a str,
    /// The request's URL; its query and fragment are left out of `htu`.
    pub url: &'a str,
    /// Seconds since the epoch (`iat`).
    pub iat: u64,
    /// A unique id from the shell's random source (`jti`).
    pub jti: &'a str,
    /// The last nonce the server gave, echoed.
    pub nonce: Option<&'a str>,
    /// On a resource request: the base64url SHA-256 of the access token sent with it.
    pub ath: Option<&'a str>,
}

/// The name a persisted DPoP key is kept under: one key per MCP server for the origin's clients
/// (the tabs sharing a grant must sign with the key it is bound to).
pub fn key_name(server_url: &str) -> String {
    ["mcp-task-client:dpop ", server_url].concat()
}

/// The `htu` of `url`: without query and fragment (RFC 9449 §4.2).
pub fn htu(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url.get(..end).unwrap_or(url)
}

/// The proof's signing input: header `typ` `dpop+jwt`, ES256 and the public key; claims `jti`,
/// `htm`, `htu`, `iat`, and `nonce`, `ath` when given.
pub fn proof_input(key: &PublicJwk, p: &ProofFor) -> String {
    let header = build(vec![
        ("typ", Some("dpop+jwt".into())),
        ("alg", Some(ES256.into())),
        ("jwk", Some(key.to_json())),
    ]);
    let claims = build(vec![
        ("jti", Some(p.jti.into())),
        ("htm", Some(p.method.into())),
        ("htu", Some(htu(p.url).into())),
        ("iat", Some(Value::from(p.iat))),
        ("nonce", p.nonce.map(Value::from)),
        ("ath", p.ath.map(Value::from)),
    ]);
    signing_input(&header, &claims)
}

/// The nonce an authorization server asks a token request to be sent again with: HTTP 400
/// `use_dpop_nonce` with a `DPoP-Nonce` header (§8). `None`: the answer is not that.
pub fn token_nonce<'a>(resp: &HttpResponse, dpop_nonce: Option<&'a str>) -> Option<&'a str> {
    let asks = resp.status == 400
        && object(&resp.body, "error")
            .ok()
            .and_then(|o| text(&o, "error").ok().flatten())
            .is_some_and(|e| e == "use_dpop_nonce");
    dpop_nonce.filter(|n| asks && is_nonce(n))
}

/// The nonce a resource server asks a request to be sent again with: HTTP 401 with a `DPoP`
/// challenge whose `error` is `use_dpop_nonce`, and a `DPoP-Nonce` header (§9). Not a reason to
/// renew the grant.
pub fn resource_nonce<'a>(
    status: u16,
    www_authenticate: Option<&str>,
    dpop_nonce: Option<&'a str>,
) -> Option<&'a str> {
    let asks = status == 401 && nonce_challenge(www_authenticate);
    dpop_nonce.filter(|n| asks && is_nonce(n))
}

/// Whether a `WWW-Authenticate` header has a `DPoP` challenge with `error="use_dpop_nonce"`.
pub fn nonce_challenge(www_authenticate: Option<&str>) -> bool {
    parse(www_authenticate.unwrap_or_default()).iter().any(|c| {
        c.scheme.eq_ignore_ascii_case("dpop") && c.param("error") == Some("use_dpop_nonce")
    })
}

/// A nonce is `NQCHAR`s (§8.1): printable ASCII but `"` and `\`; anything else is ignored.
fn is_nonce(n: &str) -> bool {
    !n.is_empty()
        && n.bytes()
            .all(|b| (0x21..=0x7e).contains(&b) && b != b'"' && b != b'\\')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::jwt::decoded as decode;

    use crate::auth::jwt::tests::key;

    #[test]
    fn a_proof_names_the_request_without_its_query_and_carries_the_public_key() {
        let p = ProofFor {
            method: "POST",
            url: "https://rs.example/mcp?session=1#frag",
            iat: 1_700_000_000,
            jti: "j-1",
            nonce: Some("n-1"),
            ath: Some("fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"),
        };
        let input = proof_input(&key(), &p);
        let (h, c) = input.split_once('.').unwrap();
        let (h, c) = (decode(h), decode(c));
        assert_eq!(h["typ"], "dpop+jwt");
        assert_eq!(h["alg"], "ES256");
        assert_eq!(h["jwk"], key().to_json());
        assert!(h["jwk"].get("d").is_none(), "never the private key");
        assert_eq!(c["htu"], "https://rs.example/mcp");
        assert_eq!(c["htm"], "POST");
        assert_eq!(c["iat"], 1_700_000_000u64);
        assert_eq!(
            (c["jti"].as_str(), c["nonce"].as_str()),
            (Some("j-1"), Some("n-1"))
        );
        assert_eq!(c["ath"], "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo");
        let token = ProofFor {
            nonce: None,
            ath: None,
            ..p
        };
        let input = proof_input(&key(), &token);
        let c = decode(input.split('.').nth(1).unwrap());
        assert!(c.get("nonce").is_none() && c.get("ath").is_none());
    }

    #[test]
    fn a_resource_server_asks_for_a_nonce_with_a_dpop_challenge() {
        let challenge =
            Some(r#"DPoP error="use_dpop_nonce", error_description="fresh", algs="ES256""#);
        assert_eq!(resource_nonce(401, challenge, Some("n-2")), Some("n-2"));
        assert_eq!(resource_nonce(401, challenge, None), None);
        assert_eq!(resource_nonce(403, challenge, Some("n-2")), None);
        let bearer = Some(r#"Bearer error="use_dpop_nonce""#);
        assert_eq!(resource_nonce(401, bearer, Some("n-2")), None);
        let expired = Some(r#"DPoP error="invalid_token""#);
        assert_eq!(resource_nonce(401, expired, Some("n-2")), None);
        assert_eq!(resource_nonce(401, None, Some("n-2")), None);
    }

    #[test]
    fn a_persisted_key_is_named_for_its_server() {
        assert_eq!(
            key_name("https://a/mcp"),
            "mcp-task-client:dpop https://a/mcp"
        );
        assert_ne!(key_name("https://a/mcp"), key_name("https://b/mcp"));
    }

    #[test]
    fn htu_drops_query_and_fragment_only() {
        assert_eq!(htu("https://a/b/c?d#e"), "https://a/b/c");
        assert_eq!(htu("https://a/b#e?d"), "https://a/b");
        assert_eq!(htu("https://a/b"), "https://a/b");
    }

    #[test]
    fn only_a_use_dpop_nonce_error_with_a_valid_nonce_asks_for_a_retry() {
        let resp = |status, body: &str| HttpResponse {
            status,
            body: body.into(),
        };
        let asks = resp(400, r#"{"error":"use_dpop_nonce"}"#);
        assert_eq!(token_nonce(&asks, Some("abc.1")), Some("abc.1"));
        assert_eq!(token_nonce(&asks, None), None, "no nonce to use");
        assert_eq!(token_nonce(&asks, Some("a b")), None, "not NQCHARs");
        assert_eq!(token_nonce(&asks, Some("a\"b")), None);
        assert_eq!(token_nonce(&asks, Some("")), None);
        let other = resp(400, r#"{"error":"invalid_grant"}"#);
        assert_eq!(token_nonce(&other, Some("n")), None);
        assert_eq!(
            token_nonce(&resp(401, r#"{"error":"use_dpop_nonce"}"#), Some("n")),
            None
        );
        assert_eq!(token_nonce(&resp(400, "not json"), Some("n")), None);
    }
}
