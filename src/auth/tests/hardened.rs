//! The mix-up defences and what registration declares: the redirect's `iss` (RFC 9207), the
//! metadata's `issuer` (RFC 8414 §3.3) and SEP-837's `application_type`.

use super::*;

const ASM: &str = "https://auth.example.com/.well-known/oauth-authorization-server/tenant";
const TOKEN: &str = "https://auth.example.com/tenant/token";

/// The authorization server's redirect with code, state and `iss` (when given).
fn approve_with(iss: Option<&str>) -> impl Fn(&str) -> String + '_ {
    move |url| {
        let iss = iss
            .map(|i| format!("&iss={}", url::encode(i)))
            .unwrap_or_default();
        format!("{}{iss}", approve(url))
    }
}

/// A standard server whose metadata says (or not) that redirects carry `iss`.
fn promising(iss_supported: Option<bool>) -> Fake {
    let mut f = Fake::standard();
    let extra = match iss_supported {
        Some(b) => json!({ "authorization_response_iss_parameter_supported": b }),
        None => json!({}),
    };
    f.put(ASM, server_doc(extra));
    f
}

#[test]
fn the_redirects_iss_is_required_when_promised_and_compared_as_a_string() {
    let evil = "https://evil.example.com";
    let slash = format!("{AS}/");
    // (advertised, iss on the redirect, accepted)
    let cases: Vec<(Option<bool>, Option<&str>, bool)> = vec![
        (Some(true), Some(AS), true),
        (Some(true), None, false),
        (Some(true), Some(evil), false),
        (Some(true), Some(&slash), false),
        (None, None, true),
        (Some(false), None, true),
        (None, Some(AS), true),
        (None, Some(evil), false),
    ];
    for (advertised, iss, accepted) in cases {
        let mut f = promising(advertised);
        let (grant, authorized) = run(&mut f, config(), None, None, approve_with(iss));
        assert_eq!(authorized.len(), 1, "{advertised:?} {iss:?}");
        let token_asked = f.urls().contains(&TOKEN);
        match grant {
            Ok(_) => assert!(accepted && token_asked, "{advertised:?} {iss:?}"),
            Err(e) => {
                assert!(!accepted && !token_asked, "{advertised:?} {iss:?}: {e}");
                assert_eq!(e.kind, AuthErrorKind::IssuerMismatch);
                assert!(e.message.contains("iss"), "{}", e.message);
                if let Some(iss) = iss {
                    assert!(e.message.contains(iss) && e.message.contains(AS), "{}", e);
                }
            }
        }
    }
}

#[test]
fn metadata_naming_another_issuer_is_refused_before_any_endpoint_is_used() {
    for issuer in [json!("https://evil.example.com"), json!(null), json!("")] {
        let mut f = Fake::standard();
        f.put(ASM, server_doc(json!({ "issuer": issuer })));
        let (grant, authorized) = run(&mut f, config(), None, None, approve);
        let e = grant.unwrap_err();
        assert_eq!(e.kind, AuthErrorKind::IssuerMismatch, "{issuer}");
        assert!(e.message.contains(AS), "names the expected issuer: {e}");
        if let Some(named) = issuer.as_str().filter(|s| !s.is_empty()) {
            assert!(
                e.message.contains(named),
                "names the metadata's issuer: {e}"
            );
        }
        assert!(authorized.is_empty());
        assert_eq!(f.urls().last(), Some(&ASM), "nothing after the metadata");
    }
    // Only a trailing slash apart: the same well-known location, the same issuer.
    let mut f = Fake::standard();
    f.put(ASM, server_doc(json!({ "issuer": format!("{AS}/") })));
    assert!(run(&mut f, config(), None, None, approve).0.is_ok());
}

#[test]
fn a_2025_03_26_servers_own_metadata_must_name_an_issuer_on_its_origin() {
    let mut f = Fake::standard();
    f.docs.clear();
    let origin = "https://mcp.example.com";
    let doc = |issuer: &str| {
        json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{origin}/authorize"),
            "token_endpoint": format!("{origin}/token"),
            "registration_endpoint": format!("{origin}/register"),
            "code_challenge_methods_supported": ["S256"],
        })
    };
    let at = "https://mcp.example.com/.well-known/oauth-authorization-server";
    f.put(at, doc("https://other.example.com"));
    let e = run(&mut f, config(), None, None, approve).0.unwrap_err();
    assert_eq!(e.kind, AuthErrorKind::IssuerMismatch);
    assert!(e.message.contains("https://other.example.com") && e.message.contains(origin));
    f.put(&format!("{origin}/register"), json!({ "client_id": "c" }));
    f.put(
        &format!("{origin}/token"),
        json!({ "access_token": "a", "token_type": "Bearer" }),
    );
    // No one named an issuer: one on the server's own origin is the server's word.
    for issuer in [origin.to_owned(), format!("{origin}/oauth")] {
        f.put(at, doc(&issuer));
        assert!(
            run(&mut f, config(), None, None, approve).0.is_ok(),
            "{issuer}"
        );
    }
}

#[test]
fn registration_declares_a_native_or_web_application() {
    for (redirect, kind) in [
        (REDIRECT, "native"),
        ("http://localhost:3000/callback", "native"),
        ("http://[::1]:8080/cb", "native"),
        ("com.example.app:/oauth/cb", "native"),
        ("https://app.example.com/oauth/cb", "web"),
        ("http://app.example.com/cb", "web"),
    ] {
        let mut f = Fake::standard();
        let cfg = AuthConfig {
            redirect_uri: redirect.into(),
            ..config()
        };
        let (mut flow, mut step) = Flow::start(cfg, secrets(), None, None);
        let mut registration = None;
        while let Step::Fetch(req) = step {
            let resp = f.answer(&req);
            if req.method == "POST" {
                registration = req.body;
                break;
            }
            step = flow.on_response(resp, 0);
        }
        let doc: Value = serde_json::from_str(&registration.unwrap_or_default()).unwrap();
        assert_eq!(doc["application_type"], kind, "{redirect}");
        assert_eq!(doc["redirect_uris"], json!([redirect]));
    }
}
