//! The `client_credentials` grant: a machine client goes from the metadata straight to the token
//! endpoint, authenticating as the server lists (`client_secret_basic` unless only `_post`).

use super::*;

const ASM: &str = "https://auth.example.com/.well-known/oauth-authorization-server/tenant";

fn machine() -> AuthConfig {
    AuthConfig {
        redirect_uri: String::new(),
        client_id: Some("svc".into()),
        client_secret: Some("s3cret".into()),
        client_credentials: true,
        ..config()
    }
}

#[test]
fn a_machine_client_asks_the_token_endpoint_with_its_secret_and_no_page() {
    for (methods, basic) in [(json!(null), true), (json!(["client_secret_post"]), false)] {
        let mut f = Fake::standard();
        f.put(
            ASM,
            server_doc(json!({ "token_endpoint_auth_methods_supported": methods })),
        );
        let (grant, authorized) = run(&mut f, machine(), None, None, approve);
        let g = grant.unwrap();
        assert!(authorized.is_empty(), "no authorization page");
        assert_eq!(g.access_token, "at-1");
        assert_eq!(
            f.urls().last().copied(),
            Some("https://auth.example.com/tenant/token")
        );
        assert!(!f.urls().iter().any(|u| u.ends_with("/register")));
        let req = f.seen.last().unwrap();
        let body = body_params(req);
        assert_eq!(body["grant_type"], "client_credentials");
        assert_eq!(body["resource"], MCP);
        assert_eq!(body["scope"], "mcp:read");
        assert!(!body.contains_key("code_verifier"));
        let header = req.headers.iter().find(|(k, _)| k == "authorization");
        if basic {
            // base64("svc:s3cret")
            assert_eq!(
                header.map(|(_, v)| v.as_str()),
                Some("Basic c3ZjOnMzY3JldA==")
            );
            assert!(!body.contains_key("client_secret"));
        } else {
            assert!(header.is_none());
            assert_eq!(
                (body["client_id"].as_str(), body["client_secret"].as_str()),
                ("svc", "s3cret")
            );
        }
    }
}

#[test]
fn a_machine_client_with_a_private_key_sends_a_signed_assertion_instead_of_a_secret() {
    let mut f = Fake::standard();
    let cfg = AuthConfig {
        client_secret: None,
        private_key_jwt: true,
        key_id: Some("k1".into()),
        ..machine()
    };
    let (grant, authorized) = run(&mut f, cfg, None, None, approve);
    let g = grant.unwrap();
    assert!(authorized.is_empty(), "no authorization page");
    assert_eq!(g.client.auth_method, "private_key_jwt");
    let req = f.seen.last().unwrap();
    assert_eq!(req.url, "https://auth.example.com/tenant/token");
    assert!(!req.headers.iter().any(|(k, _)| k == "authorization"));
    let body = body_params(req);
    assert_eq!(body["grant_type"], "client_credentials");
    assert_eq!(
        body["client_assertion_type"],
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    );
    assert!(!body.contains_key("client_secret"));
    let parts: Vec<&str> = body["client_assertion"].split('.').collect();
    assert_eq!(parts.len(), 3);
    assert_eq!(parts[2], "-_8B", "the shell's signature, base64url");
    let header = super::super::jwt::decoded(parts[0]);
    let claims = super::super::jwt::decoded(parts[1]);
    assert_eq!(
        (header["alg"].as_str(), header["kid"].as_str()),
        (Some("ES256"), Some("k1"))
    );
    assert_eq!(
        (claims["iss"].as_str(), claims["sub"].as_str()),
        (Some("svc"), Some("svc"))
    );
    assert_eq!(
        claims["aud"], AS,
        "the audience is the authorization server's issuer"
    );
    assert_eq!(claims["iat"], 1u64, "the flow's clock: 1,000 ms");
}

#[test]
fn a_signature_out_of_turn_fails() {
    let (mut flow, _) = Flow::start(machine(), secrets(), None, None);
    assert!(matches!(flow.on_signature(&[1]), Step::Failed(_)));
}

#[test]
fn a_machine_client_needs_an_id_and_a_secret() {
    let cfg = AuthConfig {
        client_secret: None,
        ..machine()
    };
    let (_, step) = Flow::start(cfg, secrets(), None, None);
    assert!(matches!(
        step,
        Step::Failed(AuthError {
            kind: AuthErrorKind::Config,
            ..
        })
    ));
}
