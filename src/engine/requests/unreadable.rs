//! Messages that are not JSON-RPC. A request refused with an HTTP error whose body is some other
//! JSON (a framework's own error object) or text (an HTML or plain error page) fails with a transport error naming the status and
//! quoting what the server said, never as a protocol error about a missing `jsonrpc`. The era
//! probe falls back to `initialize` on any answer that is not JSON-RPC, whatever its status.
//! Anywhere else JSON that is not JSON-RPC is a protocol warning, once (other text is ignored) (kept until the session is ready);
//! a message over the size limit is warned as it comes.
//! What it says is here; the engine reads such answers in `router.rs`.

/// At most this many bytes of what the server said are quoted.
const QUOTE_MAX: usize = 200;
/// How the probe's failure ends (the era came from `initialize`).
pub(super) const PROBE_FELL_BACK: &str = "; the era was negotiated with initialize";

/// What the server said, bounded (at a character boundary).
pub(super) fn quote(body: &str) -> &str {
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
