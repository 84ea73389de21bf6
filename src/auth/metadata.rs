//! Discovery documents: protected resource metadata (RFC 9728) and authorization server metadata
//! (RFC 8414 / OpenID Connect Discovery), where to look for them, and what makes them usable.

use super::doc::{object, required, text, texts};
use super::url::Url;
use super::{AuthError, AuthErrorKind};

/// RFC 9728 protected resource metadata (the fields a client uses).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceMetadata {
    pub resource: Option<String>,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Option<Vec<String>>,
}

/// RFC 8414 authorization server metadata (the fields a client uses).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub scopes_supported: Option<Vec<String>>,
    pub code_challenge_methods_supported: Option<Vec<String>>,
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    pub client_id_metadata_document_supported: bool,
    /// RFC 9207: the redirect back always carries `iss`.
    pub authorization_response_iss_parameter_supported: bool,
}

/// Where to look for the protected resource metadata of `server`, in order: the challenge's
/// `resource_metadata`, then the path-aware well-known location, then the root one.
pub fn resource_metadata_urls(server: &Url, from_header: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(u) = from_header.and_then(Url::parse) {
        out.push(u.base() + &u.query.map(|q| ["?", &q].concat()).unwrap_or_default());
    }
    const NAME: &str = "oauth-protected-resource";
    if !server.path.is_empty() {
        out.push(server.well_known(NAME));
    }
    out.push(server.root_well_known(NAME));
    out.dedup();
    out
}

/// Where to look for the metadata of the authorization server `issuer`, in the spec's order:
/// RFC 8414 then OpenID with the path inserted, then OpenID with the path appended.
pub fn server_metadata_urls(issuer: &Url) -> Vec<String> {
    const OAUTH: &str = "oauth-authorization-server";
    const OPENID: &str = "openid-configuration";
    if issuer.path.is_empty() {
        return vec![
            issuer.root_well_known(OAUTH),
            issuer.root_well_known(OPENID),
        ];
    }
    vec![
        issuer.well_known(OAUTH),
        issuer.well_known(OPENID),
        [&issuer.base(), "/.well-known/", OPENID].concat(),
    ]
}

impl ResourceMetadata {
    /// Reads and checks a document for `server`: its `resource` must name the server (same
    /// origin, the server's path within it).
    pub fn read(body: &str, server: &Url) -> Result<Self, AuthError> {
        let m = Self::parse(body)
            .map_err(|e| AuthError::metadata(["protected resource metadata: ", &e].concat()))?;
        if let Some(r) = &m.resource {
            if !covers(r, server) {
                return Err(AuthError::new(
                    AuthErrorKind::ResourceMismatch,
                    [
                        "the protected resource metadata is for ",
                        r,
                        ", not ",
                        &server.base(),
                    ]
                    .concat(),
                ));
            }
        }
        Ok(m)
    }

    fn parse(body: &str) -> Result<Self, String> {
        let o = object(body, "not a document")?;
        Ok(Self {
            resource: text(&o, "resource")?,
            authorization_servers: texts(&o, "authorization_servers")?.unwrap_or_default(),
            scopes_supported: texts(&o, "scopes_supported")?,
        })
    }
}

/// Whether a metadata document's `issuer` is the identifier `expected` it was fetched for:
/// identical, or differing only in one trailing `/` (the same well-known location).
fn same_issuer(issuer: &str, expected: &str) -> bool {
    !issuer.is_empty() && bare(issuer) == bare(expected)
}

fn bare(issuer: &str) -> &str {
    issuer.strip_suffix("/").unwrap_or(issuer)
}

/// Whether resource identifier `r` covers the server URL (same origin, path prefix on `/`).
fn covers(r: &str, server: &Url) -> bool {
    let Some(r) = Url::parse(r) else {
        return false;
    };
    r.origin == server.origin
        && (server.path == r.path
            || server
                .path
                .strip_prefix(&r.path)
                .is_some_and(|rest| rest.starts_with('/')))
}

impl ServerMetadata {
    /// Reads and checks a document fetched for the issuer identifier `issuer`: its `issuer` must
    /// be that identifier (RFC 8414 §3.3; a trailing `/` aside), or for a 2025-03-26 server's own
    /// metadata (`origin`: `issuer` is the server's origin, no one named an issuer) any URL on
    /// that origin; endpoints must be secure (or loopback) `http(s)` URLs, and PKCE `S256` must
    /// be advertised.
    pub fn read(body: &str, issuer: &str, origin: bool) -> Result<Self, AuthError> {
        let m = Self::parse(body)
            .map_err(|e| AuthError::metadata(["authorization server metadata: ", &e].concat()))?;
        let same = match origin {
            true => Url::parse(&m.issuer).is_some_and(|u| u.origin == issuer),
            false => same_issuer(&m.issuer, issuer),
        };
        if !same {
            let named = match m.issuer.is_empty() {
                true => "no issuer".to_owned(),
                false => ["issuer \"", &m.issuer, "\""].concat(),
            };
            return Err(AuthError::new(
                AuthErrorKind::IssuerMismatch,
                [
                    "the authorization server metadata names ",
                    &named,
                    ", not \"",
                    issuer,
                    "\" it was fetched for (RFC 8414 §3.3)",
                ]
                .concat(),
            ));
        }
        m.check()?;
        Ok(m)
    }

    fn parse(body: &str) -> Result<Self, String> {
        let o = object(body, "not a document")?;
        Ok(Self {
            issuer: text(&o, "issuer")?.unwrap_or_default(),
            authorization_endpoint: required(&o, "authorization_endpoint")?,
            token_endpoint: required(&o, "token_endpoint")?,
            registration_endpoint: text(&o, "registration_endpoint")?,
            scopes_supported: texts(&o, "scopes_supported")?,
            code_challenge_methods_supported: texts(&o, "code_challenge_methods_supported")?,
            token_endpoint_auth_methods_supported: texts(
                &o,
                "token_endpoint_auth_methods_supported",
            )?,
            client_id_metadata_document_supported: o
                .get("client_id_metadata_document_supported")
                .and_then(crate::json::Value::as_bool)
                .unwrap_or(false),
            authorization_response_iss_parameter_supported: o
                .get("authorization_response_iss_parameter_supported")
                .and_then(crate::json::Value::as_bool)
                .unwrap_or(false),
        })
    }

    fn check(&self) -> Result<(), AuthError> {
        let endpoints = [
            Some(&self.authorization_endpoint),
            Some(&self.token_endpoint),
            self.registration_endpoint.as_ref(),
        ];
        for e in endpoints.into_iter().flatten() {
            if !Url::parse(e).is_some_and(|u| u.is_secure_or_loopback()) {
                return Err(AuthError::metadata(
                    [
                        "authorization server endpoint \"",
                        e,
                        "\" is not an https (or loopback http) URL",
                    ]
                    .concat(),
                ));
            }
        }
        let s256 = self
            .code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|x| x == "S256"));
        if !s256 {
            return Err(AuthError::new(
                AuthErrorKind::NoPkce,
                "the authorization server does not advertise PKCE S256",
            ));
        }
        Ok(())
    }

    /// The endpoints a 2025-03-26 server without metadata has at its origin; PKCE assumed.
    pub fn fallback(origin: &str) -> Self {
        Self {
            issuer: origin.to_owned(),
            authorization_endpoint: [origin, "/authorize"].concat(),
            token_endpoint: [origin, "/token"].concat(),
            registration_endpoint: Some([origin, "/register"].concat()),
            code_challenge_methods_supported: Some(vec!["S256".into()]),
            ..Self::default()
        }
    }

    /// Whether the server lists `scope` among its scopes.
    pub fn supports_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == scope))
    }

    /// How a client holding a secret authenticates: `client_secret_basic` unless only
    /// `client_secret_post` is listed (RFC 8414: absent means basic).
    pub fn secret_method(&self) -> &'static str {
        match &self.token_endpoint_auth_methods_supported {
            Some(m)
                if !m.iter().any(|x| x == "client_secret_basic")
                    && m.iter().any(|x| x == "client_secret_post") =>
            {
                "client_secret_post"
            }
            _ => "client_secret_basic",
        }
    }
}
