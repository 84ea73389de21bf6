//! Incremental Server-Sent Events decoder (the WHATWG `text/event-stream` parsing rules) for
//! response bodies read chunk by chunk.
//!
//! Bytes may be split anywhere — inside a UTF-8 sequence, between CR and LF, inside the BOM —
//! and decode the same. Lines end in LF, CRLF or CR; one leading BOM is dropped; `:` lines are
//! comments; a field without a colon has an empty value; one space after the colon is stripped.
//! `id` values containing NUL are ignored, `retry` takes ASCII digits only. An event whose data
//! is empty is not dispatched (MCP priming events), but its `id` still becomes the last event id.
//! Invalid UTF-8 decodes to U+FFFD. Memory stays bounded: a line or an event's data longer than
//! the limit is an [`SseError::TooLarge`], after which the decoder refuses further input.

use std::fmt;

use crate::json::digits;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event` field, `message` when none was given.
    pub event: String,
    /// The `data` lines joined with `\n`; never empty.
    pub data: String,
    /// The last event id in force when this event was dispatched (`None` if none or empty).
    pub id: Option<String>,
}

/// Why decoding stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    /// A line or an event's data exceeded the limit; the stream cannot be trusted any further.
    TooLarge { limit: usize },
    /// The stream ended inside an event; the partial event (`pending_bytes`) was discarded.
    Truncated { pending_bytes: usize },
}

impl SseError {
    /// What went wrong, in words (the `Display` text).
    pub fn message(&self) -> String {
        match self {
            SseError::TooLarge { limit } => [
                "SSE line or event exceeds the ",
                &digits::decimal(*limit as u64),
                "-byte limit",
            ]
            .concat(),
            SseError::Truncated { pending_bytes } => [
                "SSE stream ended inside an event (",
                &digits::decimal(*pending_bytes as u64),
                " bytes discarded)",
            ]
            .concat(),
        }
    }
}

impl fmt::Display for SseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for SseError {}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Default limit for one line or one event's data: 16 MiB.
pub const DEFAULT_LIMIT: usize = 16 * 1024 * 1024;

/// The incremental decoder; feed it with [`SseDecoder::push`], end with [`SseDecoder::finish`].
#[derive(Debug, Clone)]
pub struct SseDecoder {
    limit: usize,
    /// At the start of a stream: the bytes seen so far while they could still be a BOM.
    start: Option<Vec<u8>>,
    /// Bytes of the current, not yet terminated line.
    line: Vec<u8>,
    /// The previous chunk ended in CR: a leading LF of the next one belongs to it.
    after_cr: bool,
    data: String,
    event: String,
    /// The id buffer: the last `id` field seen, not yet dispatched.
    id_buffer: String,
    last_event_id: String,
    retry_ms: Option<u64>,
    failed: bool,
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::with_limit(DEFAULT_LIMIT)
    }
}

impl SseDecoder {
    /// A decoder with the [`DEFAULT_LIMIT`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A decoder refusing lines or event data longer than `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        Self {
            limit,
            start: Some(Vec::new()),
            line: Vec::new(),
            after_cr: false,
            data: String::new(),
            event: String::new(),
            id_buffer: String::new(),
            last_event_id: String::new(),
            retry_ms: None,
            failed: false,
        }
    }

    /// The id to send as `Last-Event-ID` when resuming (`None` if none or reset to empty).
    pub fn last_event_id(&self) -> Option<&str> {
        Some(self.last_event_id.as_str()).filter(|id| !id.is_empty())
    }

    /// The reconnection delay the server asked for with `retry:`, in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Decodes a chunk, returning the events it completed.
    /// On error the events completed earlier in this chunk are lost; see [`SseDecoder::push_into`].
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut out = Vec::new();
        self.push_into(bytes, &mut out)?;
        Ok(out)
    }

    /// Decodes a chunk, appending completed events to `out` (also those before an error).
    pub fn push_into(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if self.failed {
            return Err(self.too_large());
        }
        let Some(mut head) = self.start.take() else {
            return self.feed(bytes, out);
        };
        // Only the bytes that may still be a BOM are held (never a copy of a whole chunk).
        let take = BOM.len().saturating_sub(head.len()).min(bytes.len());
        let (first, rest) = bytes.split_at(take);
        head.extend_from_slice(first);
        if head.len() < BOM.len() && BOM.starts_with(&head) {
            self.start = Some(head);
            return Ok(());
        }
        if head != BOM {
            self.feed(&head, out)?;
        }
        self.feed(rest, out)
    }

    /// Ends the stream. A partial event is discarded (and reported); the decoder is then ready
    /// for a new stream, keeping the last event id and retry delay for the reconnection.
    pub fn finish(&mut self) -> Result<(), SseError> {
        if self.failed {
            return Err(self.too_large());
        }
        let held = self.start.as_ref().map_or(0, Vec::len);
        let pending_bytes = held + self.line.len() + self.data.len();
        self.start = Some(Vec::new());
        self.line.clear();
        self.data.clear();
        self.event.clear();
        self.id_buffer.clone_from(&self.last_event_id);
        self.after_cr = false;
        match pending_bytes {
            0 => Ok(()),
            pending_bytes => Err(SseError::Truncated { pending_bytes }),
        }
    }

    fn too_large(&self) -> SseError {
        SseError::TooLarge { limit: self.limit }
    }

    /// Splits `bytes` into lines (the first continuing `self.line`) and processes each.
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        let mut rest = bytes;
        loop {
            // An LF right after a CR (in this chunk or the one before) ends no line of its own.
            if self.after_cr && !rest.is_empty() {
                self.after_cr = false;
                rest = without_first(rest, b'\n');
            }
            let Some(end) = rest.iter().position(|&b| b == b'\n' || b == b'\r') else {
                break;
            };
            let (head, tail) = rest.split_at(end);
            self.after_cr = tail.first() == Some(&b'\r');
            rest = tail.get(1..).unwrap_or_default();
            let result = if self.line.is_empty() {
                self.process_line(head, out)
            } else if self.line.len() + head.len() > self.limit {
                Err(self.too_large())
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(head);
                let result = self.process_line(&line, out);
                line.clear();
                self.line = line;
                result
            };
            if let Err(e) = result {
                self.failed = true;
                return Err(e);
            }
        }
        // Checked before buffering: an oversized chunk is refused, not copied.
        if self.line.len() + rest.len() > self.limit {
            self.failed = true;
            return Err(self.too_large());
        }
        self.line.extend_from_slice(rest);
        Ok(())
    }

    /// Interprets one complete line (without its terminator).
    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if line.len() > self.limit {
            return Err(self.too_large());
        }
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => return Ok(()),
            Some(colon) => {
                let (field, value) = line.split_at(colon);
                let value = value.get(1..).unwrap_or_default();
                (field, without_first(value, b' '))
            }
            None => (line, &[][..]),
        };
        match field {
            b"event" => replace(&mut self.event, value),
            b"data" => {
                push_text(&mut self.data, value);
                self.data.push('\n');
                // Past the limit the decoder refuses all further input: what it holds is moot.
                if self.data.len() > self.limit {
                    return Err(self.too_large());
                }
            }
            // Compared byte by byte: `contains` would bring `memchr` into the binary.
            b"id" if value.iter().all(|&b| b != 0) => replace(&mut self.id_buffer, value),
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // ASCII digits: valid UTF-8.
                if let Some(ms) = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok()) {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// End of an event (an empty line): record its id; dispatch it unless its data is empty.
    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        self.last_event_id.clone_from(&self.id_buffer);
        let mut data = std::mem::take(&mut self.data);
        let event = std::mem::take(&mut self.event);
        // Each data line ended in LF: the last LF goes, and no data or one empty line is no event.
        if data.len() <= 1 {
            return;
        }
        data.truncate(data.len() - 1);
        out.push(SseEvent {
            event: if event.is_empty() {
                "message".to_owned()
            } else {
                event
            },
            data,
            id: self.last_event_id().map(str::to_owned),
        });
    }
}

/// `bytes` without its first byte when that is `byte`.
fn without_first(bytes: &[u8], byte: u8) -> &[u8] {
    match bytes.split_first() {
        Some((&first, rest)) if first == byte => rest,
        _ => bytes,
    }
}

/// `buffer` set to the text of `value`.
fn replace(buffer: &mut String, value: &[u8]) {
    buffer.clear();
    push_text(buffer, value);
}

/// Appends `bytes` as text (invalid UTF-8 as U+FFFD).
fn push_text(out: &mut String, bytes: &[u8]) {
    out.push_str(&super::lossy(bytes));
}

#[cfg(test)]
mod tests;
