//! Unchanged poll answers. Most status polls answer exactly what the previous one did; an answer
//! byte-identical to the last one applied for the task (apart from the JSON-RPC id) carries the
//! same state, so it is not decoded, parsed or merged again: only the next poll is scheduled.
//! Any other news about the task (a push, a cancel answer, an outcome) forgets the stored answer.

use std::hash::{BuildHasher, Hasher};
use std::num::NonZeroU32;

use super::api::{Millis, SendKey};
use super::hash::{for_words, IdHash};
use super::ids::ReqId;
use super::requests::Purpose;
use super::Engine;
use crate::json::digits::decimal;

/// A fingerprint of a status answer without its JSON-RPC id (its length and two 64-bit hashes of
/// its text, eight bytes per step): the answer applied last for a task, compared with the next
/// one. A task keeps 24 bytes instead of the answer's text; a changed answer of the same length
/// passes for the same only if both hashes collide (only the server writes the answers, and it
/// can state any status anyway). Its length is never 0 (an answer is a JSON object), so a task
/// without one costs nothing more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PollEcho {
    len: NonZeroU32,
    fnv: u64,
    mix: u64,
}

impl PollEcho {
    /// The echo of answer `body` to request `n` (`None` when its id is not the plain number `n`).
    pub(crate) fn of(body: &str, n: ReqId) -> Option<PollEcho> {
        split_at_id(body, n).and_then(|(a, b)| Self::of_parts(a, b))
    }

    /// Two independent chains over the words of both parts (the split point counts too): FNV-1a
    /// style, and the maps' hasher.
    fn of_parts(a: &str, b: &str) -> Option<PollEcho> {
        let len = NonZeroU32::new(u32::try_from(a.len() + b.len()).ok()?)?;
        let mut fnv: u64 = 0xcbf2_9ce4_8422_2325;
        let mut mix = IdHash.build_hasher();
        mix.write_u64(a.len() as u64);
        for part in [a, b] {
            for_words(part.as_bytes(), |w| {
                fnv = (fnv.rotate_left(29) ^ w).wrapping_mul(0x0000_0100_0000_01b3);
                mix.write_u64(w);
            });
        }
        Some(PollEcho {
            len,
            fnv,
            mix: mix.finish(),
        })
    }

    /// Whether answer `body` to request `n` is this answer again.
    fn matches(&self, body: &str, n: ReqId) -> bool {
        split_at_id(body, n).is_some_and(|(a, b)| {
            a.len() + b.len() == self.len.get() as usize
                && Self::of_parts(a, b).as_ref() == Some(self)
        })
    }
}

/// `body` split around the value of its first `"id"` member when that value is the number `n`:
/// the text before the number and the text after it.
fn split_at_id(body: &str, n: ReqId) -> Option<(&str, &str)> {
    let digits = decimal(n.0);
    let len = digits.len();
    // The first `"id"` (a byte scan: no searcher to set up for a short body).
    let at = (body.as_bytes().windows(4)).position(|w| w.first_chunk() == Some(b"\"id\""))?;
    let rest = body.get(at + 4..)?.trim_ascii_start();
    let rest = rest.strip_prefix(":")?.trim_ascii_start();
    if rest.as_bytes().get(..len)? != digits.as_bytes() {
        return None;
    }
    let after = rest.get(len..)?;
    if after
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E'))
    {
        return None;
    }
    let start = body.len() - rest.len();
    Some((body.get(..start)?, after))
}

impl Engine {
    /// The answer on `via` is the pending status request's, identical to the task's last applied
    /// one: the request is done and the next poll scheduled. `false`: decode it as usual.
    pub(crate) fn unchanged_poll(&mut self, now: Millis, via: SendKey, body: &str) -> bool {
        let Some(n) = self.reqs.id_of(via) else {
            return false;
        };
        let Some(Purpose::Get(t)) = self.reqs.purpose(n) else {
            return false;
        };
        let Some(e) = self.tasks.get(t) else {
            return false;
        };
        let Some(echo) = e.poll_echo.as_ref() else {
            return false;
        };
        // Only the plain case: something to schedule, nothing that a poll result decides.
        let plain = !e.subs.is_empty()
            && e.phase.runs_in_time()
            && e.snapshot
                .as_ref()
                .is_some_and(|s| s.input_requests().is_empty());
        if !(plain && echo.matches(body, n)) {
            return false;
        }
        let Some(Purpose::Get(t)) = self.take_pending(n).map(|p| p.purpose) else {
            return false;
        };
        self.poll_unchanged(now, &t);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{split_at_id, PollEcho};
    use crate::engine::ids::ReqId;

    #[test]
    fn an_echo_matches_the_same_answer_under_another_id_only() {
        let first = r#"{"jsonrpc":"2.0","id":4,"result":{"taskId":"t","status":"working"}}"#;
        let again = r#"{"jsonrpc":"2.0","id":9,"result":{"taskId":"t","status":"working"}}"#;
        let moved = r#"{"jsonrpc":"2.0","id":9,"result":{"taskId":"t","status":"wOrking"}}"#;
        let longer = r#"{"jsonrpc":"2.0","id":9,"result":{"taskId":"t","status":"working" }}"#;
        let echo = PollEcho::of(first, ReqId(4)).expect("plain id");
        assert!(echo.matches(again, ReqId(9)));
        assert!(
            !echo.matches(again, ReqId(4)),
            "the id must be the request's"
        );
        assert!(!echo.matches(moved, ReqId(9)), "one byte changed");
        assert!(!echo.matches(longer, ReqId(9)), "one byte more");
        assert!(PollEcho::of(first, ReqId(5)).is_none());
    }

    #[test]
    fn the_id_value_is_found_exactly() {
        let b = r#"{"jsonrpc":"2.0","id":12,"result":{"taskId":"t"}}"#;
        assert_eq!(
            split_at_id(b, ReqId(12)),
            Some((r#"{"jsonrpc":"2.0","id":"#, r#","result":{"taskId":"t"}}"#))
        );
        assert_eq!(split_at_id(b, ReqId(1)), None);
        assert_eq!(split_at_id(b, ReqId(123)), None);
        let spaced = r#"{"result":{}, "id" :  7 }"#;
        assert_eq!(
            split_at_id(spaced, ReqId(7)),
            Some((r#"{"result":{}, "id" :  "#, " }"))
        );
        assert_eq!(split_at_id(r#"{"id":-7}"#, ReqId(7)), None);
        assert_eq!(split_at_id(r#"{"id":7.5}"#, ReqId(7)), None);
        assert_eq!(split_at_id(r#"{"id":"7"}"#, ReqId(7)), None);
        assert_eq!(split_at_id(r#"{"id":"#, ReqId(7)), None);
        assert_eq!(split_at_id("", ReqId(0)), None);
        assert_eq!(
            split_at_id(r#"{"id":0}"#, ReqId(0)),
            Some((r#"{"id":"#, "}"))
        );
    }
}
