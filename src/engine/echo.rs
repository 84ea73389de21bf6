//! Unchanged poll answers. Most status polls answer exactly what the previous one did; an answer
//! byte-identical to the last one applied for the task (apart from the JSON-RPC id) carries the
//! same state, so it is not decoded, parsed or merged again: only the next poll is scheduled.
//! Any other news about the task (a push, a cancel answer, an outcome) forgets the stored answer.

use super::api::{Millis, SendKey};
use super::requests::Purpose;
use super::tasks::Source;
use super::Engine;

/// `body` split around the value of its first `"id"` member when that value is the number `n`:
/// the text before the number and the text after it.
fn split_at_id(body: &str, n: i64) -> Option<(&str, &str)> {
    let mut digits = [0u8; 20];
    let mut len = 0;
    let mut v = n.unsigned_abs();
    loop {
        let slot = digits.get_mut(len)?;
        *slot = b'0' + (v % 10) as u8;
        len += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let digits = digits.get(..len)?;
    let at = body.find(r#""id""#)?;
    let rest = body.get(at + 4..)?.trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let rest = if n < 0 { rest.strip_prefix('-')? } else { rest };
    let value = rest.as_bytes().get(..len)?;
    if !value.iter().eq(digits.iter().rev()) {
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
    let start = body.len() - rest.len() - usize::from(n < 0);
    Some((body.get(..start)?, after))
}

impl Engine {
    /// The answer on `via` is the pending status request's, identical to the task's last applied
    /// one: the request is done and the next poll scheduled. `false`: decode it as usual.
    pub(crate) fn unchanged_poll(&mut self, now: Millis, via: SendKey, body: &str) -> bool {
        let Some(&n) = self.reqs.keys.get(&via) else {
            return false;
        };
        let Some(Purpose::Get(t)) = self.reqs.pending.get(&n).map(|p| &p.purpose) else {
            return false;
        };
        let Some(e) = self.tasks.get(t) else {
            return false;
        };
        let Some(echo) = e.poll_echo.as_deref() else {
            return false;
        };
        // Only the plain case: something to schedule, nothing that a poll result decides.
        let plain = !e.subs.is_empty()
            && !e.is_terminal()
            && !e.past_deadline
            && e.snapshot
                .as_ref()
                .is_some_and(|s| s.input_requests.is_empty());
        let same = plain
            && split_at_id(body, n).is_some_and(|(a, b)| {
                echo.len() == a.len() + b.len()
                    && echo.as_bytes().get(..a.len()) == Some(a.as_bytes())
                    && echo.as_bytes().get(a.len()..) == Some(b.as_bytes())
            });
        if !same {
            return false;
        }
        let Some(Purpose::Get(t)) = self.take_pending(n).map(|p| p.purpose) else {
            return false;
        };
        if let Some(e) = self.tasks.get_mut(&t) {
            e.poll.in_flight = false;
            e.poll.last_answered = Some(now);
            e.poll.errors = 0;
        }
        self.schedule_poll(now, &t, Source::Poll);
        true
    }

    /// The text of a status answer about to be decoded, kept (without its id) once applied.
    pub(crate) fn echo_of(body: &str, n: i64) -> Option<String> {
        split_at_id(body, n).map(|(a, b)| {
            let mut s = String::with_capacity(a.len() + b.len());
            s.push_str(a);
            s.push_str(b);
            s
        })
    }
}

#[cfg(test)]
mod tests {
    use super::split_at_id;

    #[test]
    fn the_id_value_is_found_exactly() {
        let b = r#"{"jsonrpc":"2.0","id":12,"result":{"taskId":"t"}}"#;
        assert_eq!(
            split_at_id(b, 12),
            Some((r#"{"jsonrpc":"2.0","id":"#, r#","result":{"taskId":"t"}}"#))
        );
        assert_eq!(split_at_id(b, 1), None);
        assert_eq!(split_at_id(b, 123), None);
        let spaced = r#"{"result":{}, "id" :  -7 }"#;
        assert_eq!(
            split_at_id(spaced, -7),
            Some((r#"{"result":{}, "id" :  "#, " }"))
        );
        assert_eq!(split_at_id(r#"{"id":7.5}"#, 7), None);
        assert_eq!(split_at_id(r#"{"id":"7"}"#, 7), None);
        assert_eq!(split_at_id(r#"{"id":"#, 7), None);
        assert_eq!(split_at_id("", 0), None);
        assert_eq!(split_at_id(r#"{"id":0}"#, 0), Some((r#"{"id":"#, "}")));
    }
}
