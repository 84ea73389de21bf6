//! The flow against a fake authorization server whose documents each test shapes, including
//! hostile answers: every failure is a typed [`AuthError`], never a panic.

use std::collections::HashMap;

use crate::json::{json, Value};

use super::token::Grant;
use super::url::{query_pairs, Url};
use super::*;

mod hardened;
mod machine;

const MCP: &str = "https://mcp.example.com/v1/mcp";
const AS: &str = "https://auth.example.com/tenant";
const REDIRECT: &str = "http://127.0.0.1:7777/callback";
/// RFC 7636 appendix B.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/// A fake server: documents by URL, and every request seen.
struct Fake {
    docs: HashMap<String, (u16, String)>,
    seen: Vec<HttpRequest>,
}

impl Fake {
    /// Resource metadata at the path-aware location, metadata at the issuer's RFC 8414 location.
    fn standard() -> Fake {
        let mut f = Fake {
            docs: HashMap::new(),
            seen: Vec::new(),
        };
        f.put(
            "https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp",
            json!({"resource": MCP, "authorization_servers": [AS], "scopes_supported": ["mcp:read"]}),
        );
        f.put(
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant",
            server_doc(json!({})),
        );
        f.put(
            "https://auth.example.com/tenant/register",
            json!({"client_id": "dyn-1"}),
        );
        f.put(
            "https://auth.example.com/tenant/token",
            json!({"access_token": "at-1", "token_type": "Bearer", "expires_in": 60, "refresh_token": "rt-1"}),
        );
        f
    }

    fn put(&mut self, url: &str, body: Value) {
        self.docs.insert(url.into(), (200, body.to_string()));
    }

    fn answer(&mut self, req: &HttpRequest) -> HttpResponse {
        self.seen.push(req.clone());
        let (status, body) = self
            .docs
            .get(&req.url)
            .cloned()
            .unwrap_or((404, String::new()));
        HttpResponse { status, body }
    }

    fn urls(&self) -> Vec<&str> {
        self.seen.iter().map(|r| r.url.as_str()).collect()
    }
}

fn server_doc(extra: Value) -> Value {
    let mut d = json!({
        "issuer": AS,
        "authorization_endpoint": format!("{AS}/authorize"),
        "token_endpoint": format!("{AS}/token"),
        "registration_endpoint": format!("{AS}/register"),
        "code_challenge_methods_supported": ["S256"],
    });
    if let (Some(d), Some(e)) = (d.as_object_mut(), extra.as_object()) {
        d.extend(e.clone());
    }
    d
}

fn config() -> AuthConfig {
    AuthConfig {
        server_url: MCP.into(),
        redirect_uri: REDIRECT.into(),
        client_name: "test".into(),
        ..AuthConfig::default()
    }
}

fn secrets() -> Secrets {
    Secrets {
        verifier: VERIFIER.into(),
        challenge: CHALLENGE.into(),
        state: "st-1".into(),
    }
}

/// Runs a flow to its end; the "user" comes back through `back` (given the authorization URL).
fn run(
    fake: &mut Fake,
    cfg: AuthConfig,
    header: Option<&str>,
    scope: Option<&str>,
    back: impl Fn(&str) -> String,
) -> (Result<Grant, AuthError>, Vec<String>) {
    let (mut flow, mut step) = Flow::start(cfg, secrets(), header, scope);
    let mut authorized = Vec::new();
    for _ in 0..20 {
        step = match step {
            Step::Fetch(req) => flow.on_response(fake.answer(&req), 1_000),
            Step::Authorize(url) => {
                authorized.push(url.clone());
                flow.on_callback(&back(&url))
            }
            Step::Sign(_) => flow.on_signature(&SIGNATURE),
            Step::Done(g) => return (Ok(*g), authorized),
            Step::Failed(e) => return (Err(e), authorized),
        };
    }
    panic!("the flow did not end");
}

/// What the fake shell's key signs anything with.
const SIGNATURE: [u8; 3] = [0xfb, 0xff, 0x01];

/// The authorization server's redirect: code and the request's own state.
fn approve(url: &str) -> String {
    let q = params(url);
    format!("{}?code=c-1&state={}", q["redirect_uri"], q["state"])
}

fn params(url: &str) -> HashMap<String, String> {
    let q = url.split_once('?').map(|(_, q)| q).unwrap_or_default();
    query_pairs(q).into_iter().collect()
}

fn body_params(r: &HttpRequest) -> HashMap<String, String> {
    query_pairs(r.body.as_deref().unwrap_or_default())
        .into_iter()
        .collect()
}

#[test]
fn full_flow_with_dynamic_registration_pkce_state_and_resource() {
    let mut f = Fake::standard();
    let (grant, authorized) = run(&mut f, config(), None, None, approve);
    let g = grant.unwrap();
    assert_eq!(g.access_token, "at-1");
    assert_eq!(g.refresh_token.as_deref(), Some("rt-1"));
    assert_eq!(g.expires_at, Some(61_000));
    assert_eq!(g.client.client_id, "dyn-1");
    assert_eq!(g.resource, MCP);
    assert_eq!(
        f.urls(),
        [
            "https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp",
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant",
            "https://auth.example.com/tenant/register",
            "https://auth.example.com/tenant/token",
        ]
    );
    let reg: Value = serde_json::from_str(f.seen[2].body.as_deref().unwrap()).unwrap();
    assert_eq!(reg["redirect_uris"], json!([REDIRECT]));
    assert_eq!(reg["token_endpoint_auth_method"], "none");
    let a = params(&authorized[0]);
    assert!(authorized[0].starts_with(&format!("{AS}/authorize?")));
    for (k, v) in [
        ("response_type", "code"),
        ("client_id", "dyn-1"),
        ("redirect_uri", REDIRECT),
        ("code_challenge", CHALLENGE),
        ("code_challenge_method", "S256"),
        ("state", "st-1"),
        ("resource", MCP),
        ("scope", "mcp:read"),
    ] {
        assert_eq!(a.get(k).map(String::as_str), Some(v), "{k}");
    }
    let t = body_params(&f.seen[3]);
    assert_eq!(t["grant_type"], "authorization_code");
    assert_eq!(t["code"], "c-1");
    assert_eq!(t["code_verifier"], VERIFIER);
    assert_eq!(t["redirect_uri"], REDIRECT);
    assert_eq!(t["resource"], MCP);
    assert_eq!(t["client_id"], "dyn-1");
    assert!(
        !format!("{g:?}").contains("at-1"),
        "debug output hides tokens"
    );
}

#[test]
fn discovery_order_header_then_path_then_root_then_openid() {
    let mut f = Fake::standard();
    let prm = f
        .docs
        .remove("https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp")
        .unwrap();
    f.docs.insert(
        "https://mcp.example.com/.well-known/oauth-protected-resource".into(),
        prm,
    );
    let meta = f
        .docs
        .remove("https://auth.example.com/.well-known/oauth-authorization-server/tenant")
        .unwrap();
    f.docs.insert(
        "https://auth.example.com/tenant/.well-known/openid-configuration".into(),
        meta,
    );
    let header = "https://mcp.example.com/custom/prm.json";
    let (grant, _) = run(&mut f, config(), Some(header), Some("mcp:write"), approve);
    assert!(grant.is_ok());
    assert_eq!(
        &f.urls()[..6],
        [
            header,
            "https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp",
            "https://mcp.example.com/.well-known/oauth-protected-resource",
            "https://auth.example.com/.well-known/oauth-authorization-server/tenant",
            "https://auth.example.com/.well-known/openid-configuration/tenant",
            "https://auth.example.com/tenant/.well-known/openid-configuration",
        ]
    );
}

#[test]
fn challenge_scope_wins_and_offline_access_is_added_when_offered() {
    let mut f = Fake::standard();
    f.put(
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant",
        server_doc(json!({"scopes_supported": ["mcp:read", "offline_access"]})),
    );
    let (_, authorized) = run(&mut f, config(), None, Some("files:write"), approve);
    assert_eq!(
        params(&authorized[0])["scope"],
        "files:write offline_access"
    );
    let mut plain = Fake::standard();
    plain.docs.insert(
        "https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp".into(),
        (
            200,
            json!({"resource": MCP, "authorization_servers": [AS]}).to_string(),
        ),
    );
    let (_, authorized) = run(&mut plain, config(), None, None, approve);
    assert!(
        !params(&authorized[0]).contains_key("scope"),
        "no scope when none is known"
    );
}

#[test]
fn legacy_server_without_resource_metadata_uses_its_origin_and_fallback_endpoints() {
    let mut f = Fake {
        docs: HashMap::new(),
        seen: Vec::new(),
    };
    f.put(
        "https://mcp.example.com/token",
        json!({"access_token": "x", "token_type": "Bearer"}),
    );
    f.put(
        "https://mcp.example.com/register",
        json!({"client_id": "c"}),
    );
    let (grant, authorized) = run(&mut f, config(), None, None, approve);
    let g = grant.unwrap();
    assert_eq!((g.expires_at, g.refresh_token), (None, None));
    assert!(authorized[0].starts_with("https://mcp.example.com/authorize?"));
    assert_eq!(
        &f.urls()[2..4],
        [
            "https://mcp.example.com/.well-known/oauth-authorization-server",
            "https://mcp.example.com/.well-known/openid-configuration",
        ]
    );
}

#[test]
fn client_choice_preregistered_then_metadata_document_then_registration() {
    let mut f = Fake::standard();
    f.put(
        "https://auth.example.com/.well-known/oauth-authorization-server/tenant",
        server_doc(json!({"client_id_metadata_document_supported": true})),
    );
    let cimd = AuthConfig {
        client_metadata_url: Some("https://app.example.com/client.json".into()),
        ..config()
    };
    let (_, authorized) = run(&mut f, cimd.clone(), None, None, approve);
    assert_eq!(
        params(&authorized[0])["client_id"],
        "https://app.example.com/client.json"
    );
    assert!(!f.urls().iter().any(|u| u.ends_with("/register")));

    let pre = AuthConfig {
        client_id: Some("pre id".into()),
        client_secret: Some("s:1".into()),
        ..cimd
    };
    let mut f = Fake::standard();
    let (grant, _) = run(&mut f, pre, None, None, approve);
    assert_eq!(grant.unwrap().client.auth_method, "client_secret_basic");
    let token = f.seen.last().unwrap();
    let auth = token
        .headers
        .iter()
        .find(|(k, _)| k == "authorization")
        .unwrap();
    assert_eq!(
        auth.1, "Basic cHJlJTIwaWQ6cyUzQTE=",
        "form-encoded id:secret"
    );
    assert!(!body_params(token).contains_key("client_secret"));
}

#[test]
fn registered_secret_and_post_method_are_used() {
    let mut f = Fake::standard();
    f.put(
        "https://auth.example.com/tenant/register",
        json!({"client_id": "c", "client_secret": "s", "token_endpoint_auth_method": "client_secret_post"}),
    );
    let (grant, _) = run(&mut f, config(), None, None, approve);
    let g = grant.unwrap();
    let t = body_params(f.seen.last().unwrap());
    assert_eq!(
        (t["client_id"].as_str(), t["client_secret"].as_str()),
        ("c", "s")
    );
    let r = g.refresh_request().unwrap();
    let p = body_params(&r);
    assert_eq!(
        (p["grant_type"].as_str(), p["refresh_token"].as_str()),
        ("refresh_token", "rt-1")
    );
    assert_eq!(p["resource"], MCP);
    assert_eq!(p["client_secret"], "s");
    let ok = HttpResponse {
        status: 200,
        body: json!({"access_token": "at-2", "token_type": "Bearer", "expires_in": 10}).to_string(),
    };
    let g2 = g.refreshed(&ok, 5_000, false).unwrap();
    assert_eq!(
        (g2.access_token.as_str(), g2.refresh_token.as_deref()),
        ("at-2", Some("rt-1"))
    );
    assert!(g2.needs_refresh(14_500, Some(10_000)));
    assert!(!g2.needs_refresh(13_000, Some(10_000)));
    let refused = HttpResponse {
        status: 400,
        body: r#"{"error":"invalid_grant"}"#.into(),
    };
    assert_eq!(
        g.refreshed(&refused, 0, false).unwrap_err().kind,
        AuthErrorKind::Token
    );
}

fn fails_with(f: &mut Fake, cfg: AuthConfig, back: impl Fn(&str) -> String) -> AuthErrorKind {
    run(f, cfg, None, None, back).0.unwrap_err().kind
}

#[test]
fn hostile_or_broken_servers_fail_typed() {
    use AuthErrorKind::*;
    let prm = "https://mcp.example.com/.well-known/oauth-protected-resource/v1/mcp";
    let asm = "https://auth.example.com/.well-known/oauth-authorization-server/tenant";
    let cases: Vec<(&str, Value, AuthErrorKind)> = vec![
        (
            prm,
            json!({"resource": "https://evil.example.com/v1/mcp", "authorization_servers": [AS]}),
            ResourceMismatch,
        ),
        (
            prm,
            json!({"resource": "https://mcp.example.com/v1/mcpx", "authorization_servers": [AS]}),
            ResourceMismatch,
        ),
        (
            prm,
            json!({"resource": MCP, "authorization_servers": []}),
            Metadata,
        ),
        (
            prm,
            json!({"resource": MCP, "authorization_servers": ["javascript:x"]}),
            Metadata,
        ),
        (prm, json!([1, 2]), Metadata),
        (
            asm,
            server_doc(json!({"code_challenge_methods_supported": ["plain"]})),
            NoPkce,
        ),
        (
            asm,
            server_doc(json!({"code_challenge_methods_supported": null})),
            NoPkce,
        ),
        (
            asm,
            server_doc(json!({"authorization_endpoint": "javascript:alert(1)"})),
            Metadata,
        ),
        (
            asm,
            server_doc(json!({"token_endpoint": "http://evil.example.com/token"})),
            Metadata,
        ),
        (
            asm,
            server_doc(json!({"registration_endpoint": null})),
            NoRegistration,
        ),
        (asm, json!({"issuer": 5}), Metadata),
        (
            "https://auth.example.com/tenant/register",
            json!({"client_id": ""}),
            Registration,
        ),
        (
            "https://auth.example.com/tenant/register",
            json!("nope"),
            Registration,
        ),
        (
            "https://auth.example.com/tenant/token",
            json!({"access_token": "a", "token_type": "DPoP"}),
            Token,
        ),
    ];
    for (url, doc, kind) in cases {
        let mut f = Fake::standard();
        f.put(url, doc.clone());
        assert_eq!(fails_with(&mut f, config(), approve), kind, "{url} {doc}");
    }
    let mut f = Fake::standard();
    f.docs.remove(asm);
    assert_eq!(fails_with(&mut f, config(), approve), Discovery);
    let mut f = Fake::standard();
    f.docs.insert(
        "https://auth.example.com/tenant/register".into(),
        (500, "<html>".into()),
    );
    assert_eq!(fails_with(&mut f, config(), approve), Registration);
    let mut f = Fake::standard();
    f.docs.insert(
        "https://auth.example.com/tenant/token".into(),
        (401, "{".into()),
    );
    assert_eq!(fails_with(&mut f, config(), approve), Token);
}

#[test]
fn the_redirect_back_is_checked() {
    use AuthErrorKind::*;
    let cases: Vec<(String, AuthErrorKind)> = vec![
        (format!("{REDIRECT}?code=c&state=forged"), Callback),
        (format!("{REDIRECT}?code=c"), Callback),
        (format!("{REDIRECT}x?code=c&state=st-1"), Callback),
        (
            "http://127.0.0.1:7778/callback?code=c&state=st-1".into(),
            Callback,
        ),
        (format!("{REDIRECT}?state=st-1"), Callback),
        (
            format!("{REDIRECT}?state=st-1&code=c&iss=https%3A%2F%2Fevil"),
            IssuerMismatch,
        ),
        (
            format!("{REDIRECT}?state=st-1&error=access_denied&error_description=no"),
            Denied,
        ),
        ("%%%\u{0}".into(), Callback),
    ];
    for (back, kind) in cases {
        let mut f = Fake::standard();
        assert_eq!(fails_with(&mut f, config(), |_| back.clone()), kind);
    }
    let ok = |_: &str| format!("{REDIRECT}?state=st-1&code=c&iss={}", url::encode(AS));
    assert!(run(&mut Fake::standard(), config(), None, None, ok)
        .0
        .is_ok());
}

#[test]
fn bad_config_and_answers_out_of_turn_fail_typed() {
    let bad = AuthConfig {
        server_url: "ws://x/".into(),
        ..config()
    };
    let (mut flow, step) = Flow::start(bad, secrets(), None, None);
    assert!(matches!(
        step,
        Step::Failed(AuthError {
            kind: AuthErrorKind::Config,
            ..
        })
    ));
    assert!(matches!(flow.on_callback("http://x/"), Step::Failed(_)));
    let resp = HttpResponse {
        status: 200,
        body: "{}".into(),
    };
    assert!(matches!(flow.on_response(resp, 0), Step::Failed(_)));
    let app = AuthConfig {
        redirect_uri: "com.example.app:/cb".into(),
        ..config()
    };
    assert!(matches!(
        Flow::start(app, secrets(), None, None).1,
        Step::Fetch(_)
    ));
    let (mut flow, _) = Flow::start(config(), secrets(), None, None);
    assert!(
        matches!(flow.on_callback(REDIRECT), Step::Failed(_)),
        "no callback before authorize"
    );
}

#[test]
fn scopes_cover_compares_sets() {
    assert!(scopes_cover(Some("a b"), Some("b a")));
    assert!(scopes_cover(Some("a"), None));
    assert!(!scopes_cover(Some("a"), Some("a c")));
    assert!(!scopes_cover(None, Some("a")));
    assert!(Url::parse(MCP).is_some());
}
