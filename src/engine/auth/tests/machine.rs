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
