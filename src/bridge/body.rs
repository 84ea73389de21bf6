//! Response bodies as their chunks arrive: whole JSON bodies (bounded) or SSE events.

use crate::json::digits::decimal;

/// How a response body is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `text/event-stream`: decode events as they arrive.
    Sse,
    /// Anything else: one JSON message (or nothing).
    Whole,
}

impl Framing {
    /// The framing a `Content-Type` announces.
    pub fn of(content_type: Option<&str>) -> Self {
        let ct = content_type.unwrap_or_default();
        if crate::protocol::find(&ct.to_ascii_lowercase(), "text/event-stream").is_some() {
            Self::Sse
        } else {
            Self::Whole
        }
    }
}

/// Adds a chunk to a whole body, refusing more than `limit` bytes. A body that came in one
/// chunk is that chunk's buffer (no copy).
pub fn push_whole(buf: &mut Vec<u8>, chunk: Vec<u8>, limit: usize) -> Result<(), String> {
    if buf.len() + chunk.len() > limit {
        return Err([
            "response body exceeds the ",
            &decimal(limit as u64),
            "-byte limit",
        ]
        .concat());
    }
    if buf.is_empty() {
        *buf = chunk;
    } else {
        buf.extend_from_slice(&chunk);
    }
    Ok(())
}

/// A body handed to the engine as a message: non-empty text (a byte order mark and whitespace
/// around it dropped; the engine reads what is not JSON). Valid UTF-8 with nothing to trim
/// becomes the message in its own buffer (no copy).
pub fn as_text(bytes: Vec<u8>) -> Option<String> {
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => crate::protocol::lossy(e.as_bytes()).into_owned(),
    };
    let mut t = text.as_str();
    while let Some(rest) = t.strip_prefix("\u{feff}") {
        t = rest;
    }
    let t = t.trim_ascii();
    if t.is_empty() {
        return None;
    }
    Some(if t.len() == text.len() {
        text
    } else {
        t.to_owned()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_event_stream_is_decoded_as_events() {
        assert_eq!(Framing::of(Some("application/json")), Framing::Whole);
        assert_eq!(Framing::of(None), Framing::Whole);
        assert_eq!(Framing::of(Some("Text/Event-Stream")), Framing::Sse);
        assert_eq!(
            Framing::of(Some("text/event-stream; charset=utf-8")),
            Framing::Sse
        );
        assert_eq!(Framing::of(Some("text/plain")), Framing::Whole);
    }

    #[test]
    fn whole_bodies_are_bounded_and_trimmed() {
        let mut buf = Vec::new();
        push_whole(&mut buf, b"{\"jsonrpc\":".to_vec(), 1024).unwrap();
        push_whole(&mut buf, b"\"2.0\",\"id\":1,\"result\":{}}".to_vec(), 1024).unwrap();
        assert_eq!(
            as_text(buf).unwrap(),
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#
        );
        let mut buf = Vec::new();
        push_whole(&mut buf, b"0123456789".to_vec(), 15).unwrap();
        push_whole(&mut buf, b"01234".to_vec(), 15).expect("exactly the limit");
        let e = push_whole(&mut buf, b"5".to_vec(), 15).unwrap_err();
        assert_eq!(buf.len(), 15, "a refused chunk is not kept");
        assert!(e.contains("15-byte limit"), "{e}");
        assert_eq!(
            as_text(b"<html>nope</html>".to_vec()).as_deref(),
            Some("<html>nope</html>"),
            "text that is not JSON reaches the engine, which quotes it"
        );
        assert_eq!(as_text(b" \n".to_vec()), None, "nothing but white space");
        assert_eq!(
            as_text(b"\xef\xbb\xbf {\"a\":1}\n".to_vec()).as_deref(),
            Some("{\"a\":1}"),
            "a byte order mark and white space are trimmed"
        );
        assert_eq!(
            as_text(b"{\"a\":\"\xff\"}".to_vec()).as_deref(),
            Some("{\"a\":\"\u{fffd}\"}"),
            "invalid UTF-8 is replaced, not refused"
        );
    }
}
