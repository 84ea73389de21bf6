//! The authorization flow from a challenge to a grant, one [`Step`] at a time.

use crate::json::Value;

use super::assertion::{assertion_input, JWT_BEARER, PRIVATE_KEY_JWT};
use super::doc::{build, object, required, text};
use super::jwt::compact;
use super::metadata::{
    resource_metadata_urls, server_metadata_urls, ResourceMetadata, ServerMetadata,
};
use super::token::{read_tokens, token_request, Client, Grant};
use super::url::{form, query_pairs, Url};
use super::Millis;
use super::{AuthConfig, AuthError, AuthErrorKind, HttpRequest, HttpResponse, Secrets, Step};
use crate::json::digits::decimal;

/// Where the flow stands.
#[derive(Debug)]
enum Phase {
    /// Looking for protected resource metadata at `urls[i]`.
    Resource { urls: Vec<String>, i: usize },
    /// Looking for authorization server metadata at `urls[i]`; `legacy`: the server had no
    /// resource metadata, so its origin is the authorization server (2025-03-26).
    Server {
        urls: Vec<String>,
        i: usize,
        legacy: bool,
    },
    /// Waiting for dynamic registration's answer.
    Register,
    /// Waiting for the user to come back.
    Authorize,
    /// Waiting for the client assertion's signature (`private_key_jwt`).
    Sign { input: String },
    /// Waiting for the code exchange's answer.
    Token,
    /// Done or failed: nothing more to do.
    Over,
}

/// One authorization, from a challenge to a [`Grant`] (see the module docs).
#[derive(Debug)]
pub struct Flow {
    cfg: AuthConfig,
    secrets: Secrets,
    server: Url,
    /// The challenge's `scope`, first choice.
    challenge_scope: Option<String>,
    resource: Option<ResourceMetadata>,
    /// The issuer identifier whose metadata is looked for.
    issuer: String,
    meta: Option<ServerMetadata>,
    client: Option<Client>,
    scope: Option<String>,
    /// The time of the last answer (a client assertion's `iat`).
    now: Millis,
    phase: Phase,
}

impl Flow {
    /// Starts after a challenge with its `resource_metadata` and `scope` parameters.
    pub fn start(
        cfg: AuthConfig,
        secrets: Secrets,
        resource_metadata: Option<&str>,
        challenge_scope: Option<&str>,
    ) -> (Flow, Step) {
        let server = Url::parse(&cfg.server_url);
        let redirect_ok = match cfg.client_credentials {
            true => cfg.client_id.is_some() && (cfg.client_secret.is_some() || cfg.private_key_jwt),
            false => {
                Url::parse(&cfg.redirect_uri).is_some()
                    || cfg
                        .redirect_uri
                        .split_once(':')
                        .is_some_and(|(s, _)| is_private_scheme(s))
            }
        };
        let mut flow = Flow {
            cfg,
            secrets,
            server: server.clone().unwrap_or(Url {
                origin: String::new(),
                path: String::new(),
                query: None,
            }),
            challenge_scope: challenge_scope
                .filter(|s| !s.trim().is_empty())
                .map(str::to_owned),
            resource: None,
            issuer: String::new(),
            meta: None,
            client: None,
            scope: None,
            now: 0,
            phase: Phase::Over,
        };
        let Some(server) = server.filter(|_| redirect_ok) else {
            let e = AuthError::new(
                AuthErrorKind::Config,
                "the server URL must be http(s) and the redirect URI absolute (client_credentials: \
                 a client id and a secret or private key)",
            );
            return (flow, Step::Failed(e));
        };
        let urls = resource_metadata_urls(&server, resource_metadata);
        let first = urls.first().cloned().unwrap_or_default();
        flow.phase = Phase::Resource { urls, i: 0 };
        (flow, Step::Fetch(HttpRequest::get(first)))
    }

    /// The answer to the last [`Step::Fetch`], at `now`.
    pub fn on_response(&mut self, resp: HttpResponse, now: Millis) -> Step {
        self.now = now;
        let ok = (200..300).contains(&resp.status);
        let step = match std::mem::replace(&mut self.phase, Phase::Over) {
            Phase::Resource { .. } if ok => self.on_resource(&resp.body),
            Phase::Resource { urls, i } => match urls.get(i + 1).cloned() {
                Some(next) => self.fetch(Phase::Resource { urls, i: i + 1 }, &next),
                None => {
                    // No resource metadata: a 2025-03-26 server is its own authorization server.
                    let origin = Url {
                        path: String::new(),
                        query: None,
                        ..self.server.clone()
                    };
                    self.issuer = origin.origin.clone();
                    self.next_server(server_metadata_urls(&origin), 0, true)
                }
            },
            Phase::Server { legacy, .. } if ok => {
                match ServerMetadata::read(&resp.body, &self.issuer, legacy) {
                    Ok(m) => self.on_server(m),
                    Err(e) => Err(e),
                }
            }
            Phase::Server { urls, i, legacy } => match urls.get(i + 1) {
                Some(_) => self.next_server(urls, i + 1, legacy),
                None if legacy => self.on_server(ServerMetadata::fallback(&self.server.origin)),
                None => Err(AuthError::new(
                    AuthErrorKind::Discovery,
                    "no authorization server metadata at any well-known location",
                )),
            },
            Phase::Register => self.on_registered(&resp),
            Phase::Token => self.on_tokens(&resp, now),
            Phase::Authorize | Phase::Sign { .. } | Phase::Over => Err(out_of_turn()),
        };
        step.unwrap_or_else(Step::Failed)
    }

    /// The signature of the last [`Step::Sign`]'s input: the machine token request, its client
    /// authenticated by the signed assertion.
    pub fn on_signature(&mut self, signature: &[u8]) -> Step {
        let (Phase::Sign { input }, Some(meta), Some(client)) = (
            std::mem::replace(&mut self.phase, Phase::Over),
            &self.meta,
            &self.client,
        ) else {
            return Step::Failed(out_of_turn());
        };
        let jwt = compact(&input, signature);
        let resource = self.resource_id();
        let mut pairs = vec![
            ("grant_type", "client_credentials"),
            ("resource", resource.as_str()),
            ("client_assertion_type", JWT_BEARER),
            ("client_assertion", jwt.as_str()),
        ];
        if let Some(s) = &self.scope {
            pairs.push(("scope", s));
        }
        self.phase = Phase::Token;
        Step::Fetch(token_request(&meta.token_endpoint, client, pairs))
    }

    /// The URL the user came back on after [`Step::Authorize`].
    pub fn on_callback(&mut self, callback: &str) -> Step {
        if !matches!(self.phase, Phase::Authorize) {
            return Step::Failed(out_of_turn());
        }
        self.phase = Phase::Over;
        self.exchange(callback).unwrap_or_else(Step::Failed)
    }

    fn fetch(&mut self, phase: Phase, url: &str) -> Result<Step, AuthError> {
        self.phase = phase;
        Ok(Step::Fetch(HttpRequest::get(url.to_owned())))
    }

    fn next_server(
        &mut self,
        urls: Vec<String>,
        i: usize,
        legacy: bool,
    ) -> Result<Step, AuthError> {
        let url = urls.get(i).cloned().unwrap_or_default();
        self.fetch(Phase::Server { urls, i, legacy }, &url)
    }

    fn on_resource(&mut self, body: &str) -> Result<Step, AuthError> {
        let m = ResourceMetadata::read(body, &self.server)?;
        let (named, issuer) = m
            .authorization_servers
            .first()
            .and_then(|s| Some((s.clone(), Url::parse(s)?)))
            .ok_or_else(|| {
                AuthError::new(
                    AuthErrorKind::Metadata,
                    "the protected resource metadata names no usable authorization server",
                )
            })?;
        self.resource = Some(m);
        self.issuer = named;
        self.next_server(server_metadata_urls(&issuer), 0, false)
    }

    /// The resource the tokens are for: the metadata's `resource`, else the server URL.
    fn resource_id(&self) -> String {
        self.resource
            .as_ref()
            .and_then(|r| r.resource.clone())
            .unwrap_or_else(|| self.server.base())
    }

    /// Scope: the challenge's, else the resource's `scopes_supported`, else the configured one;
    /// `offline_access` added when the authorization server offers it (for a refresh token).
    fn choose_scope(&self, meta: &ServerMetadata) -> Option<String> {
        let listed = self
            .resource
            .as_ref()
            .and_then(|r| r.scopes_supported.as_ref())
            .filter(|s| !s.is_empty())
            .map(|s| s.join(" "));
        let mut scope = self
            .challenge_scope
            .clone()
            .or(listed)
            .or_else(|| self.cfg.scope.clone())?;
        let has = scope.split_whitespace().any(|s| s == "offline_access");
        if !has && meta.supports_scope("offline_access") {
            scope.push_str(" offline_access");
        }
        Some(scope)
    }

    fn on_server(&mut self, meta: ServerMetadata) -> Result<Step, AuthError> {
        self.scope = self.choose_scope(&meta);
        let cfg = &self.cfg;
        let client = if let Some(id) = &cfg.client_id {
            Some(Client {
                client_id: id.clone(),
                client_secret: cfg.client_secret.clone(),
                auth_method: match (cfg.private_key_jwt, &cfg.client_secret) {
                    (true, _) => PRIVATE_KEY_JWT.to_owned(),
                    (false, Some(_)) => meta.secret_method().to_owned(),
                    (false, None) => "none".to_owned(),
                },
            })
        } else {
            cfg.client_metadata_url
                .as_ref()
                .filter(|_| meta.client_id_metadata_document_supported)
                .map(|url| Client {
                    client_id: url.clone(),
                    client_secret: None,
                    auth_method: "none".into(),
                })
        };
        let registration = meta.registration_endpoint.clone();
        self.meta = Some(meta);
        if let Some(c) = client {
            self.client = Some(c);
            return match self.cfg.client_credentials {
                true => self.machine_token(),
                false => self.authorize(),
            };
        }
        let Some(endpoint) = registration else {
            return Err(AuthError::new(
                AuthErrorKind::NoRegistration,
                "no client id, no client metadata document support and no dynamic registration",
            ));
        };
        let strings =
            |v: &[&str]| Value::from(v.iter().map(|s| Value::from(*s)).collect::<Vec<_>>());
        let doc = build(vec![
            ("client_name", Some(self.cfg.client_name.as_str().into())),
            ("redirect_uris", Some(strings(&[&self.cfg.redirect_uri]))),
            (
                "grant_types",
                Some(strings(&["authorization_code", "refresh_token"])),
            ),
            ("response_types", Some(strings(&["code"]))),
            ("token_endpoint_auth_method", Some("none".into())),
            (
                "application_type",
                Some(application_type(&self.cfg.redirect_uri).into()),
            ),
            ("scope", self.scope.as_deref().map(Value::from)),
        ]);
        self.phase = Phase::Register;
        Ok(Step::Fetch(HttpRequest {
            method: "POST",
            url: endpoint,
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("accept".into(), "application/json".into()),
            ],
            body: Some(crate::protocol::text(&doc)),
            token: false,
        }))
    }

    fn on_registered(&mut self, resp: &HttpResponse) -> Result<Step, AuthError> {
        let fail = |m: String| AuthError::new(AuthErrorKind::Registration, m);
        if !(200..300).contains(&resp.status) {
            return Err(fail(
                [
                    "dynamic registration answered HTTP ",
                    &decimal(resp.status.into()),
                ]
                .concat(),
            ));
        }
        let read = |body: &str| -> Result<_, String> {
            let o = object(body, "not a document")?;
            let id = required(&o, "client_id")?;
            Ok((
                id,
                text(&o, "client_secret")?,
                text(&o, "token_endpoint_auth_method")?,
            ))
        };
        let (client_id, secret, method) =
            read(&resp.body).map_err(|e| fail(["dynamic registration answer: ", &e].concat()))?;
        if client_id.is_empty() {
            return Err(fail("dynamic registration gave an empty client id".into()));
        }
        let secret = secret.filter(|s| !s.is_empty());
        let method = match (method, &secret, &self.meta) {
            (Some(m), _, _) => m,
            (None, Some(_), Some(meta)) => meta.secret_method().to_owned(),
            _ => "none".to_owned(),
        };
        self.client = Some(Client {
            client_id,
            client_secret: secret,
            auth_method: method,
        });
        self.authorize()
    }

    fn authorize(&mut self) -> Result<Step, AuthError> {
        let (Some(meta), Some(client)) = (&self.meta, &self.client) else {
            return Err(out_of_turn());
        };
        let resource = self.resource_id();
        let mut pairs = vec![
            ("response_type", "code"),
            ("client_id", client.client_id.as_str()),
            ("redirect_uri", self.cfg.redirect_uri.as_str()),
            ("code_challenge", self.secrets.challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", self.secrets.state.as_str()),
            ("resource", resource.as_str()),
        ];
        if let Some(s) = &self.scope {
            pairs.push(("scope", s));
        }
        let endpoint = &meta.authorization_endpoint;
        let sep = if endpoint.bytes().any(|b| b == b'?') {
            "&"
        } else {
            "?"
        };
        let url = [endpoint, sep, &form(&pairs)].concat();
        self.phase = Phase::Authorize;
        Ok(Step::Authorize(url))
    }

    /// A machine client asks the token endpoint for its token (the `client_credentials` grant);
    /// with `private_key_jwt`, once its assertion (audience: the issuer) is signed.
    fn machine_token(&mut self) -> Result<Step, AuthError> {
        let (Some(meta), Some(client)) = (&self.meta, &self.client) else {
            return Err(out_of_turn());
        };
        if client.auth_method == PRIVATE_KEY_JWT {
            let input = assertion_input(
                &client.client_id,
                self.cfg.key_id.as_deref(),
                &meta.issuer,
                self.now / 1000,
                &self.secrets.state,
            );
            self.phase = Phase::Sign {
                input: input.clone(),
            };
            return Ok(Step::Sign(input));
        }
        let resource = self.resource_id();
        let mut pairs = vec![
            ("grant_type", "client_credentials"),
            ("resource", resource.as_str()),
        ];
        if let Some(s) = &self.scope {
            pairs.push(("scope", s));
        }
        let req = token_request(&meta.token_endpoint, client, pairs);
        self.phase = Phase::Token;
        Ok(Step::Fetch(req))
    }

    /// Checks the redirect back and asks for the code exchange.
    fn exchange(&mut self, callback: &str) -> Result<Step, AuthError> {
        let bad = |m: &str| AuthError::new(AuthErrorKind::Callback, m);
        let (Some(meta), Some(client)) = (&self.meta, &self.client) else {
            return Err(out_of_turn());
        };
        let (base, query) = split_query(callback);
        let (want, _) = split_query(&self.cfg.redirect_uri);
        if base != want {
            return Err(bad("the redirect came back to another URI"));
        }
        let params = query_pairs(query);
        let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        if get("state") != Some(self.secrets.state.as_str()) {
            return Err(bad("the redirect's state is not this flow's"));
        }
        check_iss(get("iss"), meta)?;
        if let Some(e) = get("error") {
            let d = get("error_description")
                .map(|d| [": ", d].concat())
                .unwrap_or_default();
            return Err(AuthError::new(
                AuthErrorKind::Denied,
                ["authorization refused: ", e, &d].concat(),
            ));
        }
        let code = get("code")
            .filter(|c| !c.is_empty())
            .ok_or_else(|| bad("no code"))?;
        let resource = self.resource_id();
        let pairs = vec![
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", self.cfg.redirect_uri.as_str()),
            ("code_verifier", self.secrets.verifier.as_str()),
            ("resource", resource.as_str()),
        ];
        let req = token_request(&meta.token_endpoint, client, pairs);
        self.phase = Phase::Token;
        Ok(Step::Fetch(req))
    }

    fn on_tokens(&mut self, resp: &HttpResponse, now: Millis) -> Result<Step, AuthError> {
        let t = read_tokens(resp, now, self.cfg.dpop)?;
        let (Some(meta), Some(client)) = (&self.meta, &self.client) else {
            return Err(out_of_turn());
        };
        Ok(Step::Done(Box::new(Grant {
            access_token: t.access_token,
            dpop: t.dpop,
            refresh_token: t.refresh_token,
            expires_at: t.expires_at,
            scope: self.scope.clone(),
            client: client.clone(),
            token_endpoint: meta.token_endpoint.clone(),
            issuer: meta.issuer.clone(),
            resource: self.resource_id(),
        })))
    }
}

/// A URL split at its `?` (fragment dropped).
fn split_query(u: &str) -> (&str, &str) {
    let u = u.split('#').next().unwrap_or_default();
    u.split_once('?').unwrap_or((u, ""))
}

/// RFC 9207: a redirect's `iss` must be the authorization server's issuer, compared as strings;
/// one that promised `iss` must send it.
fn check_iss(iss: Option<&str>, meta: &ServerMetadata) -> Result<(), AuthError> {
    let message = match iss {
        None if meta.authorization_response_iss_parameter_supported => [
            "the redirect carries no iss although the authorization server \"",
            &meta.issuer,
            "\" promises one (RFC 9207: a possible mix-up)",
        ]
        .concat(),
        Some(iss) if iss != meta.issuer => [
            "the redirect's iss \"",
            iss,
            "\" is not the authorization server's issuer \"",
            &meta.issuer,
            "\" (RFC 9207: a possible mix-up)",
        ]
        .concat(),
        _ => return Ok(()),
    };
    Err(AuthError::new(AuthErrorKind::IssuerMismatch, message))
}

/// SEP-837's `application_type` for dynamic registration: `native` for a loopback or
/// private-scheme redirect (an app on the user's device), `web` for any other http(s) one.
fn application_type(redirect_uri: &str) -> &'static str {
    match Url::parse(redirect_uri) {
        Some(u) if !u.is_loopback() => "web",
        _ => "native",
    }
}

/// Private-use URI schemes (RFC 8252 §7.1: reverse domain names, e.g. `com.example.app`).
fn is_private_scheme(s: &str) -> bool {
    s.bytes().any(|b| b == b'.')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
}

fn out_of_turn() -> AuthError {
    AuthError::new(
        AuthErrorKind::Callback,
        "an answer arrived that the flow did not ask for",
    )
}
