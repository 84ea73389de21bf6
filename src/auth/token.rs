//! Token endpoint requests (code exchange and refresh), client authentication at it, and what a
//! grant keeps: the tokens, their expiry, and the client and endpoint refreshing needs.

use crate::json::Value;

use super::doc::{build, object, required, text};
use super::url::{base64, encode, form};
use super::Millis;
use super::{AuthError, AuthErrorKind, HttpRequest, HttpResponse};
use crate::json::digits::decimal;

/// How this client is known to the authorization server.
#[derive(Clone, PartialEq, Eq)]
pub struct Client {
    pub client_id: String,
    pub client_secret: Option<String>,
    /// `none`, `client_secret_basic`, `client_secret_post` or `private_key_jwt`.
    pub auth_method: String,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("client_id", &self.client_id)
            .field("auth_method", &self.auth_method)
            .finish_non_exhaustive()
    }
}

/// An authorization: tokens and what refreshing them needs. What a host's store keeps.
#[derive(Clone, PartialEq, Eq)]
pub struct Grant {
    pub access_token: String,
    /// The token is DPoP-bound (token type `DPoP`): sent as `Authorization: DPoP`, with a proof.
    pub dpop: bool,
    pub refresh_token: Option<String>,
    /// When the access token expires (ms since the epoch), if the server said.
    pub expires_at: Option<Millis>,
    /// The scopes asked for (space-separated).
    pub scope: Option<String>,
    pub client: Client,
    pub token_endpoint: String,
    /// The authorization server's issuer identifier (empty in grants stored before it was kept).
    pub issuer: String,
    /// The RFC 8707 resource the tokens are for.
    pub resource: String,
}

/// Tokens are secrets: a grant's debug form names none.
impl std::fmt::Debug for Grant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grant")
            .field("expires_at", &self.expires_at)
            .field("refreshable", &self.refresh_token.is_some())
            .field("scope", &self.scope)
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

/// How long before expiry a token is refreshed.
pub const REFRESH_MARGIN_MS: Millis = 30_000;

impl Grant {
    /// The grant as a store keeps it (camelCase JSON).
    pub fn to_json(&self) -> Value {
        let c = &self.client;
        let client = build(vec![
            ("clientId", Some(c.client_id.as_str().into())),
            ("clientSecret", c.client_secret.as_deref().map(Value::from)),
            ("authMethod", Some(c.auth_method.as_str().into())),
        ]);
        build(vec![
            ("accessToken", Some(self.access_token.as_str().into())),
            ("tokenType", self.dpop.then(|| "DPoP".into())),
            (
                "refreshToken",
                self.refresh_token.as_deref().map(Value::from),
            ),
            ("expiresAt", self.expires_at.map(Value::from)),
            ("scope", self.scope.as_deref().map(Value::from)),
            ("client", Some(client)),
            ("tokenEndpoint", Some(self.token_endpoint.as_str().into())),
            ("issuer", Some(self.issuer.as_str().into())),
            ("resource", Some(self.resource.as_str().into())),
        ])
    }

    /// A grant from a store's JSON (`None` when it is not one).
    pub fn from_json(json: &str) -> Option<Grant> {
        let o = object(json, "grant").ok()?;
        let c = o.get("client").and_then(Value::as_object)?;
        Some(Grant {
            access_token: required(&o, "accessToken").ok()?,
            dpop: text(&o, "tokenType").ok()?.is_some_and(|t| t == "DPoP"),
            refresh_token: text(&o, "refreshToken").ok()?,
            expires_at: o.get("expiresAt").and_then(Value::as_u64),
            scope: text(&o, "scope").ok()?,
            client: Client {
                client_id: required(c, "clientId").ok()?,
                client_secret: text(c, "clientSecret").ok()?,
                auth_method: required(c, "authMethod").ok()?,
            },
            token_endpoint: required(&o, "tokenEndpoint").ok()?,
            issuer: text(&o, "issuer").ok()?.unwrap_or_default(),
            resource: required(&o, "resource").ok()?,
        })
    }

    /// Its `Authorization` value.
    pub fn authorization(&self) -> String {
        let scheme = if self.dpop { "DPoP " } else { "Bearer " };
        [scheme, &self.access_token].concat()
    }

    /// Whether the access token should be refreshed before use at `now` (it expires within the
    /// margin, or within a tenth of its life for short-lived tokens — whichever is sooner).
    pub fn needs_refresh(&self, now: Millis, lifetime: Option<Millis>) -> bool {
        let margin = lifetime.map_or(REFRESH_MARGIN_MS, |l| (l / 10).min(REFRESH_MARGIN_MS));
        self.refresh_token.is_some() && self.expires_at.is_some_and(|t| now + margin >= t)
    }

    /// The refresh request (`None` without a refresh token).
    pub fn refresh_request(&self) -> Option<HttpRequest> {
        let rt = self.refresh_token.as_deref()?;
        let pairs = vec![
            ("grant_type", "refresh_token"),
            ("refresh_token", rt),
            ("resource", self.resource.as_str()),
        ];
        Some(token_request(&self.token_endpoint, &self.client, pairs))
    }

    /// The grant after a refresh answered `resp` at `now` (a missing refresh token keeps the old;
    /// `dpop`: the request carried a proof).
    pub fn refreshed(
        &self,
        resp: &HttpResponse,
        now: Millis,
        dpop: bool,
    ) -> Result<Grant, AuthError> {
        let t = read_tokens(resp, now, dpop)?;
        Ok(Grant {
            access_token: t.access_token,
            dpop: t.dpop,
            refresh_token: t.refresh_token.or_else(|| self.refresh_token.clone()),
            expires_at: t.expires_at,
            ..self.clone()
        })
    }
}

/// A token endpoint `POST` from `pairs`, with the client authenticated its way.
pub fn token_request<'a>(
    endpoint: &str,
    client: &'a Client,
    mut pairs: Vec<(&'a str, &'a str)>,
) -> HttpRequest {
    let mut headers = vec![
        (
            "content-type".to_owned(),
            "application/x-www-form-urlencoded".to_owned(),
        ),
        ("accept".to_owned(), "application/json".to_owned()),
    ];
    let secret = client.client_secret.as_deref();
    match (client.auth_method.as_str(), secret) {
        ("client_secret_basic", Some(s)) => {
            let pair = [encode(&client.client_id), encode(s)].join(":");
            headers.push((
                "authorization".into(),
                ["Basic ", &base64(pair.as_bytes(), false)].concat(),
            ));
        }
        ("client_secret_post", Some(s)) => {
            pairs.push(("client_id", &client.client_id));
            pairs.push(("client_secret", s));
        }
        _ => pairs.push(("client_id", &client.client_id)),
    }
    HttpRequest {
        method: "POST",
        url: endpoint.to_owned(),
        headers,
        body: Some(form(&pairs)),
        token: true,
    }
}

/// Tokens as a token endpoint answers them, expiry made absolute.
pub struct Tokens {
    pub access_token: String,
    /// Token type `DPoP`.
    pub dpop: bool,
    pub refresh_token: Option<String>,
    pub expires_at: Option<Millis>,
}

/// Reads a token endpoint answer: a `Bearer` token (or a `DPoP` one when `dpop`: the request
/// carried a proof), or the OAuth error as a typed failure.
pub fn read_tokens(resp: &HttpResponse, now: Millis, dpop: bool) -> Result<Tokens, AuthError> {
    let fail = |m: String| AuthError::new(AuthErrorKind::Token, m);
    if !(200..300).contains(&resp.status) {
        let o = object(&resp.body, "error").unwrap_or_default();
        let why = match (text(&o, "error"), text(&o, "error_description")) {
            (Ok(Some(e)), Ok(Some(d))) => [e, d].join(": "),
            (Ok(Some(e)), Ok(None)) => e,
            _ => "no OAuth error in the body".into(),
        };
        return Err(fail(
            [
                "token endpoint answered HTTP ",
                &decimal(resp.status.into()),
                " (",
                &why,
                ")",
            ]
            .concat(),
        ));
    }
    let read = |body: &str| -> Result<_, String> {
        let o = object(body, "not a document")?;
        let expires_in = o.get("expires_in").and_then(Value::as_f64);
        let refresh = text(&o, "refresh_token")?;
        Ok((
            required(&o, "access_token")?,
            required(&o, "token_type")?,
            expires_in,
            refresh,
        ))
    };
    let (access_token, token_type, expires_in, refresh_token) =
        read(&resp.body).map_err(|e| fail(["token endpoint answer: ", &e].concat()))?;
    let bound = dpop && token_type.eq_ignore_ascii_case("dpop");
    if !bound && !token_type.eq_ignore_ascii_case("bearer") {
        return Err(fail(
            ["token type \"", &token_type, "\" is not Bearer"].concat(),
        ));
    }
    if access_token.is_empty() || access_token.bytes().any(|b| b == b'\r' || b == b'\n') {
        return Err(fail(
            "the access token is empty or not a header value".into(),
        ));
    }
    let expires_at = expires_in
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| now.saturating_add((s.min(1e12) * 1000.0) as Millis));
    Ok(Tokens {
        access_token,
        dpop: bound,
        refresh_token: refresh_token.filter(|r| !r.is_empty()),
        expires_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_round_trip_through_store_json() {
        let g = Grant {
            access_token: "a".into(),
            dpop: true,
            refresh_token: Some("r".into()),
            expires_at: Some(5),
            scope: None,
            client: Client {
                client_id: "c".into(),
                client_secret: None,
                auth_method: "none".into(),
            },
            token_endpoint: "https://as/token".into(),
            issuer: "https://as".into(),
            resource: "https://rs/mcp".into(),
        };
        assert_eq!(Grant::from_json(&g.to_json().to_string()), Some(g));
        for bad in [
            "",
            "[]",
            "{}",
            r#"{"accessToken":1}"#,
            r#"{"accessToken":"a","client":5}"#,
        ] {
            assert_eq!(Grant::from_json(bad), None, "{bad}");
        }
    }

    #[test]
    fn token_answers_are_checked() {
        let answer = |body: &str, dpop| {
            read_tokens(
                &HttpResponse {
                    status: 200,
                    body: body.into(),
                },
                1000,
                dpop,
            )
        };
        let ok = |body: &str| answer(body, false);
        let bound = r#"{"access_token":"a","token_type":"DPoP"}"#;
        assert!(
            ok(bound).is_err(),
            "a DPoP token is refused when no proof was sent"
        );
        assert!(answer(bound, true).unwrap().dpop);
        let bearer = answer(r#"{"access_token":"a","token_type":"Bearer"}"#, true).unwrap();
        assert!(
            !bearer.dpop,
            "a server may answer a proof with a Bearer token"
        );
        let t =
            ok(r#"{"access_token":"a","token_type":"bearer","expires_in":2,"refresh_token":""}"#)
                .unwrap();
        assert_eq!((t.expires_at, t.refresh_token), (Some(3000), None));
        for bad in [
            r#"{"access_token":"a","token_type":"mac"}"#,
            r#"{"access_token":"","token_type":"Bearer"}"#,
            r#"{"access_token":"a\nb","token_type":"Bearer"}"#,
            r#"{"token_type":"Bearer"}"#,
            "[]",
            "",
        ] {
            assert_eq!(
                ok(bad).err().map(|e| e.kind),
                Some(AuthErrorKind::Token),
                "{bad}"
            );
        }
        let huge = ok(r#"{"access_token":"a","token_type":"Bearer","expires_in":1e300}"#).unwrap();
        assert!(huge.expires_at.is_some());
        let e = read_tokens(
            &HttpResponse {
                status: 400,
                body: r#"{"error":"invalid_grant"}"#.into(),
            },
            0,
            false,
        );
        assert!(e.err().unwrap().message.contains("invalid_grant"));
    }
}
