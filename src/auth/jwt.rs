//! Compact JWS (RFC 7515) for the JWTs the client signs: DPoP proofs and client assertions. The
//! header and claims are built here; the signature over [`signing_input`] is the shell's (Web
//! Crypto, ES256: the raw 64-byte `r‖s` it returns is the JWS signature as is).

use crate::json::Value;

use super::doc::build;
use super::url::base64;

/// The one algorithm the client signs with (ECDSA P-256 SHA-256).
pub const ES256: &str = "ES256";

/// A P-256 public key as a JWK (`x`, `y`: base64url coordinates, as Web Crypto exports them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicJwk {
    pub x: String,
    pub y: String,
}

impl PublicJwk {
    /// The public JWK (never a private member).
    pub fn to_json(&self) -> Value {
        build(vec![
            ("kty", Some("EC".into())),
            ("crv", Some("P-256".into())),
            ("x", Some(self.x.as_str().into())),
            ("y", Some(self.y.as_str().into())),
        ])
    }

    /// What the RFC 7638 thumbprint hashes: the required members in lexicographic order, no
    /// whitespace (its base64url SHA-256 is the key's `jkt`).
    pub fn thumbprint_input(&self) -> String {
        let members = build(vec![
            ("crv", Some("P-256".into())),
            ("kty", Some("EC".into())),
            ("x", Some(self.x.as_str().into())),
            ("y", Some(self.y.as_str().into())),
        ]);
        crate::protocol::text(&members)
    }
}

/// `base64url(header) . base64url(claims)`: the bytes to sign.
pub fn signing_input(header: &Value, claims: &Value) -> String {
    let part = |v: &Value| base64(crate::protocol::text(v).as_bytes(), true);
    [part(header), ".".into(), part(claims)].concat()
}

/// The compact JWT from its signing input and signature.
pub fn compact(signing_input: &str, signature: &[u8]) -> String {
    [signing_input, ".", &base64(signature, true)].concat()
}

/// One base64url part of a JWT, decoded as JSON (tests read what was built).
#[cfg(test)]
pub fn decoded(part: &str) -> Value {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let (mut bits, mut n, mut out) = (0u32, 0, Vec::new());
    for b in part.bytes() {
        bits = (bits << 6) | alphabet.iter().position(|&a| a == b).unwrap() as u32;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    crate::json::parse(std::str::from_utf8(&out).unwrap()).unwrap()
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::json::json;

    /// RFC 7515 appendix A.3's key (P-256).
    pub fn key() -> PublicJwk {
        PublicJwk {
            x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU".into(),
            y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0".into(),
        }
    }

    #[test]
    fn the_thumbprint_input_is_canonical() {
        assert_eq!(
            key().thumbprint_input(),
            r#"{"crv":"P-256","kty":"EC","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#
        );
        assert_eq!(key().to_json()["kty"], "EC");
        assert!(key().to_json().get("d").is_none());
    }

    #[test]
    fn signing_input_and_compact_form_are_base64url_without_padding() {
        let input = signing_input(&json!({"alg": "ES256"}), &json!({"a": "b?>"}));
        assert_eq!(input, "eyJhbGciOiJFUzI1NiJ9.eyJhIjoiYj8-In0");
        let jwt = compact(&input, &[0xfb, 0xff]);
        assert_eq!(jwt, "eyJhbGciOiJFUzI1NiJ9.eyJhIjoiYj8-In0.-_8");
        assert_eq!(jwt.split('.').count(), 3);
        assert_eq!(decoded(jwt.split('.').nth(1).unwrap()), json!({"a": "b?>"}));
    }
}
