//! A request answered HTTP 202 with no response (the spec wants a response; some servers write
//! it into the session's GET listening stream instead). The request stays pending under its own
//! timeout, its response matched by JSON-RPC id on whichever stream brings it; the listening
//! stream is opened at once if it is closed; the host is warned once. Without a listening stream
//! (none in the session, or refused), before the session is ready (era probe, `initialize`) and
//! for a push subscription, a 202 still fails the request at once.

use crate::engine::api::{ClientError, ErrorKind};
use crate::engine::ids::ReqId;
use crate::engine::requests::{Failure, Purpose};
use crate::engine::session::quirks::Quirk;
use crate::engine::Engine;

const WARNING: &str =
    "HTTP 202 without a response to a request: awaiting it on the session's other streams";
const NEVER_CAME: &str = "HTTP 202 without a response, and it never came on another stream";

impl Engine {
    /// Request `n`'s stream ended after HTTP 202, unanswered: keeps it pending for its response
    /// elsewhere. Returns whether it did (else it fails as before).
    pub(super) fn await_elsewhere(&mut self, n: ReqId) -> bool {
        let awaits = self.session.is_ready()
            && (self.reqs.purpose(n)).is_some_and(|p| {
                !matches!(p, Purpose::Probe | Purpose::Initialize | Purpose::Listen)
            });
        // A closed listening stream opens now (its pending reopening then finds it open).
        if !awaits || !self.reopen_standalone() {
            return false;
        }
        if let Some(p) = self.reqs.get_mut(n) {
            p.accepted = true;
        }
        if !self.session.quirks.has(Quirk::AcceptsRequests) {
            self.session.quirks.insert(Quirk::AcceptsRequests);
            self.warn(None, ClientError::new(ErrorKind::Protocol, WARNING));
        }
        true
    }

    /// Request `n` timed out: how, naming a 202 whose response never came.
    pub(super) fn timed_out(&self, n: ReqId) -> Failure {
        if !self.reqs.get(n).is_some_and(|p| p.accepted) {
            return Failure::Timeout;
        }
        let mut error = ClientError::new(ErrorKind::Timeout, NEVER_CAME);
        error.http_status = Some(202);
        Failure::Transport {
            error,
            status: Some(202),
            retry_after: None,
        }
    }
}
