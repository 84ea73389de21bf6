//! The legacy GET listening stream (the session's standalone event stream): opened once the
//! session is ready, reported under its own transmission key like any request, re-opened after it
//! ends (the server's `retry:`, else backoff; `Last-Event-ID` from where it stopped) and given up
//! for the session once the server refuses it. While it is closed it holds no connection.
//!
//! A stream that ran a while and then ended cleanly was cut (a proxy's idle timeout shorter than
//! the server's keep-alive): it is reopened at once (after the server's `retry:` if it sent one),
//! so no push is lost in a pause; a few such cuts in a row are named to the host once. Only
//! streams that fail, or end as soon as they open, back off.

use crate::engine::api::{ClientError, ErrorKind, Millis, Output, SendKey, TransportError};
use crate::engine::scheduler::cadence::backoff_delay;
use crate::engine::scheduler::rng::Rng;
use crate::engine::scheduler::Timer;
use crate::engine::Engine;
use crate::json::digits::decimal;

/// Floor of any reopening delay, whatever the server's `retry:` says (a `retry: 0` must not storm).
const MIN_RECONNECT_MS: Millis = 250;
/// A stream open this long before it ended cleanly was cut, not refused: reopened at once (at
/// most one reopening per this long, so never a storm).
const CUT_AFTER_MS: Millis = 5_000;
/// Cuts in a row before the host hears of them.
const CUTS_NAMED: u32 = 3;

/// Delay before reopening a stream: the server's `retry:` (floored) for the first attempt after a
/// stream that delivered events; once attempts keep failing, the larger of it and our backoff.
fn reconnect_delay(server_ms: Option<Millis>, attempt: u32, rng: &mut Rng) -> Millis {
    match server_ms {
        Some(ms) if attempt == 0 => ms.max(MIN_RECONNECT_MS),
        Some(ms) => ms.max(backoff_delay(attempt, rng)),
        None => backoff_delay(attempt, rng),
    }
}

#[derive(Debug, Default)]
pub(crate) struct Standalone {
    /// The session's headers while the stream is wanted.
    headers: Option<Vec<(String, String)>>,
    /// The open GET.
    key: Option<SendKey>,
    /// Its answer's status, and the `Retry-After` that came with it.
    head: Option<(u16, Option<Millis>)>,
    last_event_id: Option<String>,
    /// The server's SSE `retry:` value.
    retry_ms: Option<Millis>,
    /// Openings since the stream last delivered a message.
    attempt: u32,
    /// The server refused the stream for this session.
    refused: bool,
    /// When the open stream's 2xx head came.
    opened_at: Option<Millis>,
    /// Clean cuts in a row.
    cuts: u32,
    /// The host heard of the cuts.
    named: bool,
}

impl Standalone {
    /// Whether the stream is open and its 2xx head came: it holds a connection.
    pub(super) fn is_flowing(&self) -> bool {
        self.key.is_some() && self.opened_at.is_some()
    }

    /// Whether `key` is the open stream's.
    pub(crate) fn is(&self, key: SendKey) -> bool {
        self.key == Some(key)
    }
}

impl Engine {
    /// Wants the stream open for the session with these headers (a new session: from the start).
    pub(crate) fn listen_standalone(&mut self, headers: Vec<(String, String)>) {
        let s = &mut self.standalone;
        if s.headers.as_ref() == Some(&headers) {
            if s.key.is_none() && !s.refused && self.timers.get(&Timer::Standalone).is_none() {
                self.open_standalone();
            }
            return;
        }
        let old = s.key.take();
        *s = Standalone {
            headers: Some(headers),
            ..Standalone::default()
        };
        if let Some(key) = old {
            self.out.push_back(Output::Abort { key });
        }
        self.timers.clear(&Timer::Standalone);
        self.open_standalone();
    }

    /// The stream's reopening time came, or a response is awaited on it: opens it if it is
    /// closed. Returns whether the session has it (not when the server refused it).
    pub(crate) fn reopen_standalone(&mut self) -> bool {
        let s = &self.standalone;
        if s.headers.is_none() || s.refused {
            return false;
        }
        if s.key.is_none() {
            self.open_standalone();
        }
        true
    }

    fn open_standalone(&mut self) {
        // A server may refuse a GET that overtakes the `initialized` notification.
        if self.session.awaits_initialized() {
            return;
        }
        let Some(headers) = self.standalone.headers.clone() else {
            return;
        };
        let key = self.reqs.key();
        self.standalone.key = Some(key);
        self.standalone.head = None;
        self.standalone.opened_at = None;
        self.out.push_back(Output::Listen {
            key,
            headers,
            last_event_id: self.standalone.last_event_id.clone(),
        });
    }

    /// Stops the stream for good (the session ends).
    pub(crate) fn stop_standalone(&mut self) {
        if let Some(key) = self.standalone.key.take() {
            self.out.push_back(Output::Abort { key });
            // The session ends: what waits for its connection goes nowhere.
            let _ = self.pool.unlisten();
        }
        self.standalone = Standalone::default();
        self.timers.clear(&Timer::Standalone);
    }

    /// A head for `key`: `true` when `key` is the stream's.
    pub(super) fn standalone_head(
        &mut self,
        now: Millis,
        key: SendKey,
        status: u16,
        retry_after: Option<Millis>,
    ) -> bool {
        let s = &mut self.standalone;
        if !s.is(key) {
            return false;
        }
        s.head = Some((status, retry_after));
        s.opened_at = (200..300).contains(&status).then_some(now);
        true
    }

    /// The stream's position moved (its last event id, the server's `retry:`).
    pub(super) fn standalone_cursor(
        &mut self,
        last_event_id: Option<String>,
        retry_ms: Option<Millis>,
    ) {
        let s = &mut self.standalone;
        if last_event_id.is_some() {
            s.last_event_id = last_event_id;
        }
        if retry_ms.is_some() {
            s.retry_ms = retry_ms;
        }
    }

    /// A message came on the stream: the next reopening is a first attempt again.
    pub(super) fn standalone_heard(&mut self) {
        if self.standalone.key.is_some() {
            self.standalone.attempt = 0;
        }
    }

    /// `key` ended (`error`: how it failed): `true` when it was the stream's. A stream the server
    /// answered with 429 or 5xx, or that ended or broke after it ran, is reopened later; one
    /// answered otherwise (an error status, no event stream: the driver reports those with their
    /// status) is given up for the session.
    pub(super) fn standalone_ended(
        &mut self,
        now: Millis,
        key: SendKey,
        error: Option<&TransportError>,
    ) -> bool {
        if !self.standalone.is(key) {
            return false;
        }
        let s = &mut self.standalone;
        s.key = None;
        // Ran a while, then ended cleanly: cut (only a 2xx head starts the clock).
        let life = s.opened_at.map_or(0, |t| now.saturating_sub(t));
        let cut = error.is_none() && life >= CUT_AFTER_MS;
        s.cuts = if cut { s.cuts.saturating_add(1) } else { 0 };
        // A busy answer's `Retry-After` (else the stream's `retry:`), or `None` when refused.
        let asked = match s.head.take() {
            Some((status, after)) if status == 429 || status >= 500 => Some(after.or(s.retry_ms)),
            Some((status, _)) if !(200..300).contains(&status) => None,
            _ if error.is_some_and(|e| e.http_status.is_some()) => None,
            _ => Some(s.retry_ms),
        };
        match asked {
            None => s.refused = true,
            Some(asked) => {
                // A cut stream worked: at once, or after the server's `retry:`.
                let delay = if cut {
                    asked.map_or(0, |ms| ms.max(MIN_RECONNECT_MS))
                } else {
                    reconnect_delay(asked, s.attempt, &mut self.rng)
                };
                s.attempt = if cut { 0 } else { s.attempt.saturating_add(1) };
                self.timers
                    .set(Timer::Standalone, now.saturating_add(delay));
            }
        }
        if s.cuts == CUTS_NAMED && !std::mem::replace(&mut s.named, true) {
            let message = [
                "the listening stream is cut every ",
                &decimal(life / 1_000),
                " s, likely by a proxy idle timeout: reopened at once",
            ]
            .concat();
            self.warn(None, ClientError::new(ErrorKind::Transport, message));
        }
        self.pool_unlisten(now);
        true
    }
}
