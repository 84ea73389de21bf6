//! A request answered HTTP 202 with no response (the spec wants a response; some servers write
//! it into the session's GET listening stream instead). The request stays pending under its own
//! timeout, its response matched by JSON-RPC id on whichever stream brings it; the listening
//! stream is opened at once if it is closed; the host is warned once. Without a listening stream
//! (none in the session, or refused), before the session is ready (era probe, `initialize`) and
//! for a push subscription, a 202 still fails the request at once.

use super::pending::Requests;
use crate::engine::api::{ClientError, ErrorKind};
use crate::engine::ids::ReqId;
use crate::engine::requests::Failure;

pub(super) const WARNING: &str =
    "HTTP 202 without a response to a request: awaiting it on the session's other streams";
const NEVER_CAME: &str = "HTTP 202 without a response, and it never came on another stream";

impl Requests {
    /// Request `n` timed out: how, naming a 202 whose response never came.
    pub(super) fn timed_out(&self, n: ReqId) -> Failure {
        if !self.get(n).is_some_and(|p| p.accepted) {
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
