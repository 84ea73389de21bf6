//! Status polls from one encoding per session. A session's `tasks/get` differs from task to task
//! only where the task id stands (in the params, and in a header like `Mcp-Name`), so it is
//! encoded once with a stand-in id and each poll puts its task's id where the stand-in stood: a
//! poll is one string assembly, not a JSON value built and serialized (and no per-task copy).
//!
//! The template is checked when made: encoded with a second stand-in, it must give exactly that
//! encoding. A dialect whose poll does not take the id that way gets no template, and its polls
//! are encoded whole.

use std::rc::Rc;

use super::ids::ReqId;
use super::requests::{push_int, Encoded};
use crate::protocol::dialect::{Codec, SessionInfo};
use crate::protocol::headers::encode_value;

/// Stand-in task ids, bare and as JSON strings: plain ASCII, so JSON and header encoding leave
/// them as they are.
const STAND_INS: [(&str, &str); 2] = [
    (
        "mcp-task-client/stand-in-1",
        "\"mcp-task-client/stand-in-1\"",
    ),
    (
        "mcp-task-client/stand-in-2",
        "\"mcp-task-client/stand-in-2\"",
    ),
];

/// Headers as a transmission shares them.
type Headers = Rc<[(String, String)]>;

/// The message's start, up to its id.
const START: &str = r#"{"jsonrpc":"2.0","id":"#;

/// The start of a message without an id: what follows is the rest of a message with one.
const AFTER_ID: &str = r#"{"jsonrpc":"2.0","#;

/// A status poll's encoding in one session generation, with holes for the task id.
#[derive(Debug)]
pub(crate) struct PollText {
    epoch: u64,
    /// `None`: the dialect's poll does not fit a template (each poll is encoded whole).
    parts: Option<Parts>,
}

#[derive(Debug)]
struct Parts {
    /// The message after its id, cut where the task id (a JSON string) goes.
    pieces: Vec<Box<str>>,
    /// The headers; those at `named` carry the task id (encoded), the others are shared.
    headers: Headers,
    named: Vec<usize>,
}

impl PollText {
    /// The template of `codec`'s status poll in session `s` (generation `epoch`).
    fn new(codec: &dyn Codec, s: &SessionInfo, epoch: u64) -> PollText {
        PollText {
            epoch,
            parts: Parts::new(codec, s),
        }
    }

    /// The body and headers of the status poll of task `task_id` as request `id` (`None`: no
    /// template, encode it whole).
    fn fill(&self, id: ReqId, task_id: &str) -> Option<(String, Headers)> {
        let parts = self.parts.as_ref()?;
        let escaped = needs_escape(task_id).then(|| serde_json::to_string(task_id).ok());
        let quoted_len = task_id.len() + 2;
        let mut body = String::with_capacity(
            START.len()
                + 20
                + parts
                    .pieces
                    .iter()
                    .map(|p| p.len() + quoted_len)
                    .sum::<usize>(),
        );
        body.push_str(START);
        push_int(&mut body, id);
        body.push(',');
        for (i, piece) in parts.pieces.iter().enumerate() {
            if i > 0 {
                match &escaped {
                    Some(e) => body.push_str(e.as_deref()?),
                    None => {
                        body.push('"');
                        body.push_str(task_id);
                        body.push('"');
                    }
                }
            }
            body.push_str(piece);
        }
        let headers = if parts.named.is_empty() {
            Rc::clone(&parts.headers)
        } else {
            let name = encode_value(task_id);
            (parts.headers.iter().enumerate())
                .map(|(i, (k, v))| {
                    let v = if parts.named.contains(&i) { &name } else { v };
                    (k.clone(), v.clone())
                })
                .collect::<Vec<_>>()
                .into()
        };
        Some((body, headers))
    }
}

/// The body and headers of task `task_id`'s status poll as request `id` in session `s` (of
/// generation `epoch`): filled into the session's template, made first when `text` holds none
/// for this generation; encoded whole when the dialect's poll has no template.
pub(crate) fn poll_message(
    text: &mut Option<PollText>,
    codec: &dyn Codec,
    s: &SessionInfo,
    epoch: u64,
    id: ReqId,
    task_id: &str,
) -> (String, Headers) {
    if text.as_ref().is_none_or(|p| p.epoch != epoch) {
        *text = Some(PollText::new(codec, s, epoch));
    }
    text.as_ref()
        .and_then(|p| p.fill(id, task_id))
        .unwrap_or_else(|| {
            let enc = Encoded::new(codec.build_get(s, task_id));
            (enc.body(Some(id)), Rc::clone(enc.headers()))
        })
}

impl Parts {
    fn new(codec: &dyn Codec, s: &SessionInfo) -> Option<Parts> {
        let [(ida, qa), (idb, qb)] = STAND_INS;
        let (ea, eb) = (
            Encoded::new(codec.build_get(s, ida)),
            Encoded::new(codec.build_get(s, idb)),
        );
        let (ta, tb) = (ea.body(None), eb.body(None));
        let pieces: Vec<Box<str>> = (ta.strip_prefix(AFTER_ID)?.split(qa))
            .map(Box::from)
            .collect();
        let same = ea.expects_response()
            && pieces.len() > 1
            && tb
                .strip_prefix(AFTER_ID)
                .is_some_and(|t| joins(&pieces, qb, t));
        let (ha, hb) = (ea.headers(), eb.headers());
        if !same || ha.len() != hb.len() {
            return None;
        }
        let mut named = Vec::new();
        for (i, ((ka, va), (kb, vb))) in ha.iter().zip(hb.iter()).enumerate() {
            if ka != kb {
                return None;
            }
            if *va == encode_value(ida) && *vb == encode_value(idb) {
                named.push(i);
            } else if va != vb {
                return None;
            }
        }
        Some(Parts {
            pieces,
            headers: Rc::clone(ha),
            named,
        })
    }
}

/// Whether `text` is `pieces` joined by `sep`.
fn joins(pieces: &[Box<str>], sep: &str, mut text: &str) -> bool {
    for (i, piece) in pieces.iter().enumerate() {
        let rest = if i > 0 {
            text.strip_prefix(sep)
        } else {
            Some(text)
        };
        match rest.and_then(|r| r.strip_prefix(&**piece)) {
            Some(r) => text = r,
            None => return false,
        }
    }
    text.is_empty()
}

/// Whether `s` needs escaping as a JSON string (serde_json escapes quotes, backslashes, controls).
fn needs_escape(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::dialect::codec;
    use crate::protocol::model::Dialect;
    use serde_json::json;

    fn check(task_id: &str) {
        let (info, caps) = (json!({"name": "c", "version": "1"}), json!({"tasks": {}}));
        for d in [Dialect::Legacy, Dialect::Modern, Dialect::Draft] {
            for session_id in [None, Some("s-1")] {
                let s = SessionInfo {
                    protocol_version: "2025-11-25",
                    client_info: &info,
                    client_capabilities: &caps,
                    session_id,
                };
                let c = codec(d);
                let t = PollText::new(c, &s, 1);
                assert!(t.parts.is_some(), "{d:?}: no template");
                let whole = Encoded::new(c.build_get(&s, task_id));
                let (body, headers) = t.fill(ReqId(42), task_id).expect("template");
                assert_eq!(body, whole.body(Some(ReqId(42))), "{d:?} {task_id:?}");
                assert_eq!(&headers[..], &whole.headers()[..], "{d:?} {task_id:?}");
            }
        }
    }

    #[test]
    fn a_filled_template_is_the_whole_encoding() {
        for id in [
            "t1",
            "",
            "a\"b\\c",
            "tab\there",
            "é🦀",
            "\u{1}x",
            " lead",
            "mcp-task-client/stand-in-1",
        ] {
            check(id);
        }
    }

    proptest::proptest! {
        #[test]
        fn any_task_id_fills_in_exactly(id in "\\PC{0,12}|[\\x00-\\x7f]{0,12}") {
            check(&id);
        }
    }
}
