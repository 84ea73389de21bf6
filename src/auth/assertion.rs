//! `private_key_jwt` client authentication (RFC 7523 §2.2, OpenID Connect Core §9): a short-lived
//! JWT the client signs with its private key, sent as `client_assertion`. The signing is the shell's.

use crate::json::Value;

use super::doc::build;
use super::jwt::{signing_input, ES256};

/// The token endpoint authentication method.
pub const PRIVATE_KEY_JWT: &str = "private_key_jwt";

/// `client_assertion_type` for a JWT assertion.
pub const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How long an assertion is valid (seconds).
pub const LIFETIME_S: u64 = 60;

/// The assertion's signing input: header ES256 with the key id; claims `iss` = `sub` = the
/// client id, `aud` = the authorization server's issuer, `jti`, `iat`, `exp` a minute later.
pub fn assertion_input(
    client_id: &str,
    kid: Option<&str>,
    audience: &str,
    iat: u64,
    jti: &str,
) -> String {
    let header = build(vec![
        ("alg", Some(ES256.into())),
        ("typ", Some("JWT".into())),
        ("kid", kid.map(Value::from)),
    ]);
    let claims = build(vec![
        ("iss", Some(client_id.into())),
        ("sub", Some(client_id.into())),
        ("aud", Some(audience.into())),
        ("jti", Some(jti.into())),
        ("iat", Some(Value::from(iat))),
        ("exp", Some(Value::from(iat.saturating_add(LIFETIME_S)))),
    ]);
    signing_input(&header, &claims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::jwt::decoded;

    #[test]
    fn an_assertion_names_the_client_as_issuer_and_subject_and_the_server_as_audience() {
        let input = assertion_input("cc-1", Some("k1"), "https://as.example", 1_000, "j-9");
        let (h, c) = input.split_once('.').unwrap();
        let (h, c) = (decoded(h), decoded(c));
        assert_eq!(
            (h["alg"].as_str(), h["kid"].as_str()),
            (Some("ES256"), Some("k1"))
        );
        assert_eq!(
            (c["iss"].as_str(), c["sub"].as_str()),
            (Some("cc-1"), Some("cc-1"))
        );
        assert_eq!(c["aud"], "https://as.example");
        assert_eq!(c["jti"], "j-9");
        assert_eq!(
            (c["iat"].as_u64(), c["exp"].as_u64()),
            (Some(1_000), Some(1_060))
        );
        let no_kid = assertion_input("cc-1", None, "https://as.example", 1_000, "j-9");
        assert!(decoded(no_kid.split('.').next().unwrap())
            .get("kid")
            .is_none());
    }
}
