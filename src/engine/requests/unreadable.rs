//! Messages that are not JSON-RPC. A request refused with an HTTP error whose body is some other
//! JSON (a framework's own error object) or text (an HTML or plain error page) fails with a transport error naming the status and
//! quoting what the server said, never as a protocol error about a missing `jsonrpc`. The era
//! probe falls back to `initialize` on any answer that is not JSON-RPC, whatever its status.
//! Anywhere else JSON that is not JSON-RPC is a protocol warning, once (other text is ignored) (kept until the session is ready);
//! a message over the size limit is warned as it comes.

use crate::json::digits::decimal;
use crate::protocol::jsonrpc::DecodeError;

use crate::engine::api::{ClientError, ErrorKind, Millis, SendKey};
use crate::engine::ids::ReqId;
use crate::engine::requests::{Failure, Purpose};
use crate::engine::session::deviations::Deviation;
use crate::engine::Engine;

/// At most this many bytes of what the server said are quoted.
const QUOTE_MAX: usize = 200;
/// How the probe's failure ends (the era came from `initialize`).
const PROBE_FELL_BACK: &str = "; the era was negotiated with initialize";

impl Engine {
    /// `body`, arriving on `via`, is not JSON-RPC (`e` says why).
    pub(super) fn not_json_rpc(
        &mut self,
        now: Millis,
        via: Option<SendKey>,
        body: &str,
        e: DecodeError,
    ) {
        let error = ClientError::new(ErrorKind::Protocol, e.message());
        if matches!(e, DecodeError::TooLarge { .. }) {
            return self.warn(None, error);
        }
        let n = via.and_then(|k| self.reqs.id_of(k));
        let status = n.and_then(|n| self.reqs.get(n)).and_then(|p| p.http_status);
        let probe = n.is_some_and(|n| self.reqs.purpose(n) == Some(&Purpose::Probe));
        match (n, status) {
            (Some(n), Some(s)) if s >= 400 || probe => self.refused_with(now, n, s, body, probe),
            // Text that is not JSON beside an answer that needs none (a 202's "Accepted").
            _ if !matches!(body.trim_ascii().as_bytes().first(), Some(b'{' | b'[')) => {}
            _ => self.deviated(Deviation::NotJsonRpc, error),
        }
    }

    /// Request `n` was answered with HTTP `status` and `body`, which is not JSON-RPC: it fails
    /// (the `probe`'s failure is a deviation the host hears of once connected), unless it is a
    /// 404 on a session, which its stream's end reads as the session gone.
    fn refused_with(&mut self, now: Millis, n: ReqId, status: u16, body: &str, probe: bool) {
        let Some(p) = self.reqs.get(n) else {
            return;
        };
        if p.sessioned && status == 404 {
            return;
        }
        let said = quote(body);
        let retry_after = p.retry_after;
        let message = ["HTTP ", &decimal(status.into()), ", not JSON-RPC: ", said].concat();
        if probe {
            let warning = ["server/discover: ", &message, PROBE_FELL_BACK].concat();
            let warning = ClientError::new(ErrorKind::Protocol, warning);
            self.deviated(Deviation::Probe, warning);
        }
        let mut error = ClientError::new(ErrorKind::Transport, message);
        error.http_status = Some(status);
        let status = Some(status);
        self.fail(
            now,
            n,
            Failure::Transport {
                error,
                status,
                retry_after,
            },
        );
    }
}

/// What the server said, bounded (at a character boundary).
fn quote(body: &str) -> &str {
    let text = body.trim_ascii();
    let mut end = text.len().min(QUOTE_MAX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_is_the_text_bounded_at_a_character_boundary() {
        assert_eq!(quote("  {\"message\":\"no\"} "), "{\"message\":\"no\"}");
        let long = "é".repeat(QUOTE_MAX);
        let q = quote(&long);
        assert_eq!(q.len(), QUOTE_MAX);
        assert!(long.starts_with(q));
    }
}
