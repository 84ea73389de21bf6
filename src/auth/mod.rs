//! MCP authorization as a client (OAuth 2.1), sans-IO: every decision is here, every request and
//! the user's visit to the authorization page are the shell's.
//!
//! A [`Flow`] starts from a 401/403 challenge and walks: protected resource metadata (RFC 9728:
//! the challenge's `resource_metadata`, else the well-known locations) → authorization server
//! metadata (RFC 8414, then OpenID discovery; a server without either gets the 2025-03-26
//! fallback endpoints) → the client (a pre-registered id, else a Client ID Metadata Document URL
//! when the server supports them, else dynamic registration, RFC 7591) → the authorization URL
//! (PKCE `S256`, `state`, `resource` per RFC 8707) → the code exchange; a machine client (the
//! `client_credentials` grant) goes from the metadata to the token endpoint. It asks with [`Step`]s and
//! ends in a [`Grant`]: the tokens with what refreshing them needs ([`token`]). What a request
//! refused later calls for is [`renewal`]'s decision; refreshing a grant several clients share
//! through a store, [`shared`]'s.
//!
//! The shell supplies [`Secrets`] (random verifier and state, the verifier's SHA-256 challenge) and
//! the time; the flow never reads a clock or a random source.

pub mod assertion;
mod doc;
pub mod dpop;
mod flow;
pub mod jwt;
pub mod metadata;
pub mod renewal;
pub mod shared;
pub mod token;
pub mod url;

#[cfg(test)]
mod tests;

pub use flow::Flow;

/// A time: milliseconds since the Unix epoch, passed in by the shell.
pub type Millis = u64;
pub use token::{Client, Grant};

/// What the host configured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthConfig {
    /// The MCP server's URL (the protected resource).
    pub server_url: String,
    /// Where the authorization server sends the user back; compared exactly.
    pub redirect_uri: String,
    /// A pre-registered client id (first choice).
    pub client_id: Option<String>,
    /// Its secret, for hosts that can keep one (never a browser).
    pub client_secret: Option<String>,
    /// The URL of this client's metadata document, used as its id where supported.
    pub client_metadata_url: Option<String>,
    /// The name sent with dynamic registration.
    pub client_name: String,
    /// Scopes to ask for when neither the challenge nor the resource names any.
    pub scope: Option<String>,
    /// A machine client without a user: the `client_credentials` grant with the pre-registered
    /// id and secret, no authorization page (no redirect URI needed).
    pub client_credentials: bool,
    /// The client authenticates with a JWT signed by its private key (`private_key_jwt`, RFC 7523)
    /// instead of a secret; the shell holds the key and signs.
    pub private_key_jwt: bool,
    /// The key's id (`kid`), for a server that knows several of the client's keys.
    pub key_id: Option<String>,
    /// Sender-constrained tokens (DPoP, RFC 9449): token requests carry a proof and a `DPoP`
    /// token type is accepted.
    pub dpop: bool,
}

/// One-time values from the shell's random source: the PKCE verifier, its `S256` challenge
/// (base64url SHA-256, no padding) and the `state`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secrets {
    pub verifier: String,
    pub challenge: String,
    pub state: String,
}

/// An HTTP request the shell makes for the flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    /// A token endpoint request: with DPoP on, the shell adds a proof.
    pub token: bool,
}

impl HttpRequest {
    fn get(url: String) -> Self {
        Self {
            method: "GET",
            url,
            headers: vec![("accept".into(), "application/json".into())],
            body: None,
            token: false,
        }
    }
}

/// What came back (a network failure is status 0 with an empty body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub body: String,
}

/// What the flow wants next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Make this request and hand the answer to [`Flow::on_response`].
    Fetch(HttpRequest),
    /// Send the user to this URL; hand the URL they come back on to [`Flow::on_callback`].
    Authorize(String),
    /// Sign this JWS signing input with the client's private key (ES256); hand the signature to
    /// [`Flow::on_signature`].
    Sign(String),
    /// Authorized.
    Done(Box<Grant>),
    /// Gave up.
    Failed(AuthError),
}

/// Why authorization failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthErrorKind {
    /// The configuration cannot work (e.g. the server URL is not http(s)).
    Config,
    /// No metadata document was found where the spec says to look.
    Discovery,
    /// A metadata document is malformed or unsafe.
    Metadata,
    /// The protected resource metadata names another resource.
    ResourceMismatch,
    /// Another authorization server than the one expected (a mix-up): the metadata's `issuer`
    /// is not the identifier it was fetched for (RFC 8414 §3.3), or the redirect back lacks the
    /// `iss` the server promised or names another issuer (RFC 9207).
    IssuerMismatch,
    /// The authorization server does not support PKCE `S256`.
    NoPkce,
    /// No way to identify the client: no id, no metadata document support, no registration.
    NoRegistration,
    /// Dynamic registration was refused or answered nonsense.
    Registration,
    /// The user or the server refused the authorization (`error` on the redirect).
    Denied,
    /// The redirect back does not belong to this flow (URI or `state` differ, no code).
    Callback,
    /// The token endpoint refused or answered nonsense.
    Token,
    /// More scope was asked for than a new authorization gave.
    InsufficientScope,
}

/// A typed authorization failure with a message for people (never containing a token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthError {
    pub kind: AuthErrorKind,
    pub message: String,
}

impl AuthError {
    pub fn new(kind: AuthErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    fn metadata(message: String) -> Self {
        Self::new(AuthErrorKind::Metadata, message)
    }
}

impl std::fmt::Display for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Whether `have` (space-separated scopes) includes every scope in `want`.
pub fn scopes_cover(have: Option<&str>, want: Option<&str>) -> bool {
    let have: Vec<&str> = have.unwrap_or_default().split_whitespace().collect();
    want.unwrap_or_default()
        .split_whitespace()
        .all(|w| have.contains(&w))
}
