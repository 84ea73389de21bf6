//! HTTP 401 and 403. A request refused with 401, or with 403 `insufficient_scope` (step-up), is
//! sent once more when the credentials can change (the driver asks the header provider, or
//! OAuth, before every transmission, so a host that refreshes its token or widens its scope there
//! just works); a second refusal, another 403, or a refusal of credentials nothing can change
//! (fixed headers, or none), fails it as `Unauthorized` with the status and the parsed
//! `WWW-Authenticate` challenge, for the host to run its own authorization. Connecting is one
//! request like any other: a refused probe or `initialize` is not followed by another handshake. A 403 without any
//! challenge is no verdict on credentials (servers answer it to a page whose origin they refuse):
//! it fails the request as `Transport`, saying so.

use crate::json::digits::decimal;
use crate::protocol::auth::AuthChallenge;

use crate::engine::api::{ClientError, ErrorKind};
use crate::engine::requests::pending::Resent;
use crate::engine::requests::Failure;

const FORBIDDEN: &str =
    "HTTP 403 without an authorization challenge: the server refuses this request \
    (from a page, an Origin check or CORS policy may refuse the page's origin)";

/// A request already `resent` was answered `status` (401 or 403) with this `WWW-Authenticate`
/// header; `renews`: something can change its credentials (a header provider, OAuth). How it is
/// marked when it is to be sent once more.
pub(super) fn again(
    status: u16,
    www_authenticate: &Option<String>,
    renews: bool,
    resent: Resent,
) -> Option<Resent> {
    let step_up = status == 403
        && AuthChallenge::from_header(www_authenticate.as_deref())
            .error
            .as_deref()
            == Some("insufficient_scope");
    let nonce = renews && status == 401 && !resent.nonce && nonce_asked(www_authenticate);
    let again = nonce || (renews && (status == 401 || step_up) && !resent.reauthorized);
    again.then_some(Resent {
        reauthorized: resent.reauthorized || !nonce,
        nonce: resent.nonce || nonce,
    })
}

/// How a request refused for good with `status` (401 or 403) and this `WWW-Authenticate` header
/// fails: `Unauthorized`, with the status and the parsed challenge.
pub(super) fn refused(status: u16, www_authenticate: Option<String>) -> Failure {
    let auth = AuthChallenge::from_header(www_authenticate.as_deref());
    let mut message = [
        "HTTP ",
        &decimal(status.into()),
        ": the server refused the credentials",
    ]
    .concat();
    if let Some(e) = &auth.error {
        message.push_str(" (");
        message.push_str(e);
        message.push(')');
    }
    let mut error = ClientError::new(ErrorKind::Unauthorized, message);
    error.http_status = Some(status);
    error.auth = Some(Box::new(auth));
    Failure::Transport {
        error,
        status: Some(status),
        retry_after: None,
    }
}

/// How a request answered 403 without a `WWW-Authenticate` challenge fails.
pub(super) fn forbidden() -> Failure {
    let mut error = ClientError::new(ErrorKind::Transport, FORBIDDEN);
    error.http_status = Some(403);
    Failure::Transport {
        error,
        status: Some(403),
        retry_after: None,
    }
}

/// Whether a 401's challenge asks for a DPoP nonce (RFC 9449 §9): a resend with it, once, on top
/// of the one after a renewal. Only the full build sends DPoP proofs.
#[cfg(feature = "oauth")]
fn nonce_asked(www_authenticate: &Option<String>) -> bool {
    crate::auth::dpop::nonce_challenge(www_authenticate.as_deref())
}

#[cfg(not(feature = "oauth"))]
fn nonce_asked(_: &Option<String>) -> bool {
    false
}
