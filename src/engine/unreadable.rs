//! Messages that are not JSON-RPC. A request refused with an HTTP error whose body is some other
//! JSON (a framework's own error object) fails with a transport error naming the status and
//! quoting what the server said, never as a protocol error about a missing `jsonrpc`. The era
//! probe falls back to `initialize` on any answer that is not JSON-RPC, whatever its status.
//! Anywhere else such a message is a protocol warning, once (kept until the session is ready);
//! a message over the size limit is warned as it comes.

use crate::json::digits::decimal;
use crate::protocol::jsonrpc::DecodeError;

use super::api::{ClientError, ErrorKind, Millis, SendKey};
use super::deviations::Deviation;
use super::ids::ReqId;
use super::requests::{Failure, Purpose};
use super::routing::names_dead_session;
use super::Engine;

/// At most this many bytes of what the server said are quoted.
const QUOTE_MAX: usize = 200;

impl Engine {
    /// `body`, arriving on `via`, is not JSON-RPC (`e` says why).
    pub(crate) fn not_json_rpc(
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
            (Some(n), Some(s)) if s >= 400 || probe => {
                if probe {
                    let warning = [
                        "server/discover was answered with HTTP ",
                        &decimal(s.into()),
                        " and a body that is not JSON-RPC (",
                        &quote(body),
                        "); the era was negotiated with initialize",
                    ]
                    .concat();
                    self.deviated(
                        Deviation::Probe,
                        ClientError::new(ErrorKind::Protocol, warning),
                    );
                }
                self.refused_with(now, n, s, body)
            }
            _ => self.deviated(Deviation::NotJsonRpc, error),
        }
    }

    /// Request `n` was answered with HTTP `status` and `body`, which is not JSON-RPC: on a session,
    /// a 404 (or a 400 naming the session) means the session is gone; else the request fails.
    fn refused_with(&mut self, now: Millis, n: ReqId, status: u16, body: &str) {
        let Some(p) = self.reqs.get(n) else {
            return;
        };
        let said = quote(body);
        let dead = match status {
            404 => true,
            400 => names_dead_session(&said),
            _ => false,
        };
        if p.sessioned && dead {
            return self.session_lost(now, n);
        }
        let retry_after = p.retry_after;
        let message = [
            "HTTP ",
            &decimal(status.into()),
            ": the server said ",
            &said,
        ]
        .concat();
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

/// What the server said, bounded: the `message` of a JSON object that has one, else the text.
fn quote(body: &str) -> String {
    let json = crate::json::parse(body).ok();
    let message = json.as_ref().and_then(|v| v.get("message")?.as_str());
    let text = message.unwrap_or(body).trim_ascii();
    let mut end = text.len().min(QUOTE_MAX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = text.get(..end).unwrap_or_default();
    let more = if end < text.len() { "…" } else { "" };
    ["\"", cut, more, "\""].concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_is_the_message_of_an_error_object_or_the_bounded_text() {
        let framework = r#"{"code":-32015,"data":null,"message":"Bad Request: no"}"#;
        assert_eq!(quote(framework), "\"Bad Request: no\"");
        assert_eq!(quote("  plain text "), "\"plain text\"");
        let long = "é".repeat(QUOTE_MAX);
        let q = quote(&long);
        assert!(q.len() <= QUOTE_MAX + 2 + "…".len(), "{}", q.len());
        assert!(q.ends_with("…\""), "{q}");
    }
}
