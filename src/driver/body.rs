//! Incremental reading of a fetch `Response` body: whole JSON bodies (bounded) or SSE events.

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{ReadableStreamDefaultReader, Response};

use super::global::describe;

/// How a response body is framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `text/event-stream`: decode events as they arrive.
    Sse,
    /// Anything else: one JSON message (or nothing).
    Whole,
}

impl Framing {
    pub fn of(resp: &Response) -> Self {
        let ct = resp
            .headers()
            .get("content-type")
            .ok()
            .flatten()
            .unwrap_or_default();
        if ct.to_ascii_lowercase().contains("text/event-stream") {
            Self::Sse
        } else {
            Self::Whole
        }
    }
}

/// Pulls chunks from `response.body` through its default reader.
pub struct BodyReader {
    reader: Option<ReadableStreamDefaultReader>,
}

impl BodyReader {
    pub fn new(resp: &Response) -> Self {
        let reader = resp.body().map(|b| {
            b.get_reader()
                .unchecked_into::<ReadableStreamDefaultReader>()
        });
        Self { reader }
    }

    /// The next chunk, `Ok(None)` at the end of the body.
    pub async fn next(&mut self) -> Result<Option<Vec<u8>>, String> {
        let Some(reader) = &self.reader else {
            return Ok(None);
        };
        let step = JsFuture::from(reader.read())
            .await
            .map_err(|e| describe(&e))?;
        let done = Reflect::get(&step, &JsValue::from_str("done"))
            .map(|d| d.is_truthy())
            .unwrap_or(true);
        if done {
            self.reader = None;
            return Ok(None);
        }
        let value = Reflect::get(&step, &JsValue::from_str("value")).unwrap_or(JsValue::UNDEFINED);
        if value.is_instance_of::<Uint8Array>() || js_sys::ArrayBuffer::is_view(&value) {
            Ok(Some(Uint8Array::new(&value).to_vec()))
        } else if let Some(s) = value.as_string() {
            Ok(Some(s.into_bytes()))
        } else {
            Err("response body yielded a non-byte chunk".into())
        }
    }

    /// Stops reading and releases the stream (used when a body is too large).
    pub fn cancel(&mut self) {
        if let Some(r) = self.reader.take() {
            let _ = r.cancel();
        }
    }
}

/// Reads a whole body, refusing more than `limit` bytes. A body that came in one chunk is that
/// chunk's buffer (no copy).
pub async fn read_whole(reader: &mut BodyReader, limit: usize) -> Result<Vec<u8>, String> {
    let mut buf = Vec::new();
    while let Some(chunk) = reader.next().await? {
        if buf.len() + chunk.len() > limit {
            reader.cancel();
            return Err(format!("response body exceeds the {limit}-byte limit"));
        }
        if buf.is_empty() {
            buf = chunk;
        } else {
            buf.extend_from_slice(&chunk);
        }
    }
    Ok(buf)
}

/// A body worth handing to the engine as a message: JSON-looking, non-empty text. Valid UTF-8
/// with nothing to trim becomes the message in its own buffer (no copy).
pub fn as_message(bytes: Vec<u8>) -> Option<String> {
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    let t = text.trim_start_matches('\u{feff}').trim();
    if !(t.starts_with('{') || t.starts_with('[')) {
        return None;
    }
    Some(if t.len() == text.len() {
        text
    } else {
        t.to_string()
    })
}
