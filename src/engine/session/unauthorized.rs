//! HTTP 401 and 403. A request refused with 401, or with 403 `insufficient_scope` (step-up), is
//! sent once more when the credentials can change (the driver asks the header provider, or
//! OAuth, before every transmission, so a host that refreshes its token or widens its scope there
//! just works); a second refusal, another 403, or a refusal of credentials nothing can change
//! (fixed headers, or none), fails it as `Unauthorized` with the status and the parsed
//! `WWW-Authenticate` challenge, for the host to run its own authorization. Connecting is one
//! request like any other: a refused probe or `initialize` is not followed by another handshake. A 403 without any
//! challenge is no verdict on credentials (servers answer it to a page whose origin they refuse):
//! it fails the request as `Transport`, saying so.

use crate::engine::ids::ReqId;
use crate::json::digits::decimal;
use crate::protocol::auth::AuthChallenge;

use crate::engine::api::{ClientError, ErrorKind, Millis, Output};
use crate::engine::requests::pending::Resent;
use crate::engine::requests::{Failure, Purpose};
use crate::engine::Engine;

const FORBIDDEN: &str =
    "HTTP 403 without an authorization challenge: the server refuses this request \
    (from a page, an Origin check or CORS policy may refuse the page's origin)";

impl Engine {
    /// Request `n` was answered `status` (401 or 403) with this `WWW-Authenticate` header.
    pub(crate) fn unauthorized(
        &mut self,
        now: Millis,
        n: ReqId,
        status: u16,
        www_authenticate: Option<String>,
    ) {
        let Some(p) = self.reqs.get_mut(n) else {
            return;
        };
        // The body is the refusal, not an answer: stop reading it.
        let key = p.key;
        self.out.push_back(Output::Abort { key });
        let step_up = status == 403
            && AuthChallenge::from_header(www_authenticate.as_deref())
                .error
                .as_deref()
                == Some("insufficient_scope");
        let listen = matches!(p.purpose, Purpose::Listen);
        // Resent only when something can change the credentials (a header provider, OAuth).
        let renews = self.cfg.renews_credentials && !listen;
        let nonce = renews && status == 401 && !p.resent.nonce && nonce_asked(&www_authenticate);
        let again = nonce || (renews && (status == 401 || step_up) && !p.resent.reauthorized);
        let resent = Resent {
            reauthorized: p.resent.reauthorized || !nonce,
            nonce: p.resent.nonce || nonce,
        };
        if again && p.stream.resumed {
            p.resent = resent;
            self.reqs.end_key(key);
            return self.resume_stream(n);
        }
        if again {
            if let Some(p) = self.take_pending(n) {
                self.resend(now, p.purpose, resent);
            }
            return;
        }
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
        let failure = Failure::Transport {
            error,
            status: Some(status),
            retry_after: None,
        };
        self.fail(now, n, failure);
    }

    /// Request `n` was answered 403 without a `WWW-Authenticate` challenge.
    pub(crate) fn forbidden(&mut self, now: Millis, n: ReqId) {
        let Some(p) = self.reqs.get_mut(n) else {
            return;
        };
        let key = p.key;
        self.out.push_back(Output::Abort { key });
        let mut error = ClientError::new(ErrorKind::Transport, FORBIDDEN);
        error.http_status = Some(403);
        let failure = Failure::Transport {
            error,
            status: Some(403),
            retry_after: None,
        };
        self.fail(now, n, failure);
    }

    /// Sends a refused request again, marked with why (a second 401 fails it).
    fn resend(&mut self, now: Millis, purpose: Purpose, resent: Resent) {
        self.reqs.set_resending(resent);
        match purpose {
            Purpose::Probe => self.connect(now),
            Purpose::Initialize => match self.session.init_codec {
                Some(c) => self.open_with(now, c),
                None => self.connect(now),
            },
            other => self.dispatch(now, other),
        }
        self.reqs.set_resending(Resent::default());
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
