//! The legacy GET listening stream (the session's standalone event stream): opened once the
//! session is ready, reported under its own transmission key like any request, re-opened after it
//! ends (the server's `retry:`, else backoff; `Last-Event-ID` from where it stopped) and given up
//! for the session once the server refuses it. While it is closed it holds no connection.
//!
//! A stream that ran a while and then ended cleanly was cut (a proxy's idle timeout shorter than
//! the server's keep-alive): it is reopened at once (after the server's `retry:` if it sent one),
//! so no push is lost in a pause; a few such cuts in a row are named to the host once. Only
//! streams that fail, or end as soon as they open, back off.

use std::collections::VecDeque;

use super::pending::Requests;
use super::pool::Pool;
use crate::engine::api::{ClientError, ErrorKind, Millis, Output, SendKey, TransportError};
use crate::engine::scheduler::cadence::backoff_delay;
use crate::engine::scheduler::rng::Rng;
use crate::engine::scheduler::{Timer, Timers};
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

/// Where an opened stream goes: its key from the requests' counter, its output onto the engine's
/// queue.
type Outlet<'a> = (&'a mut Requests, &'a mut VecDeque<Output>);

/// What wanting the stream for a session's headers asks of the engine.
enum Want {
    /// The same session: open it now when `open`.
    Same { open: bool },
    /// A new session: abort the old stream, if one was open; clear a pending reopening; open
    /// it.
    New { abort: Option<SendKey> },
}

impl Standalone {
    /// Whether `key` is the open stream's.
    pub(super) fn is(&self, key: SendKey) -> bool {
        self.key == Some(key)
    }

    /// Wants the stream open for the session with these headers (a new session: from the
    /// start); `reopening`: a reopening is already due.
    fn want(&mut self, headers: Vec<(String, String)>, reopening: bool) -> Want {
        if self.headers.as_ref() == Some(&headers) {
            let open = self.key.is_none() && !self.refused && !reopening;
            return Want::Same { open };
        }
        let abort = self.key.take();
        *self = Standalone {
            headers: Some(headers),
            ..Standalone::default()
        };
        Want::New { abort }
    }

    /// Wants the stream open for the session with these headers (a new session: from the
    /// start). `opens`: a GET may go now.
    pub(crate) fn listen(
        &mut self,
        headers: Vec<(String, String)>,
        opens: bool,
        timers: &mut Timers,
        (reqs, out): Outlet,
    ) {
        let reopening = timers.get(&Timer::Standalone).is_some();
        match self.want(headers, reopening) {
            Want::Same { open } => {
                if open {
                    self.open(opens, (reqs, out));
                }
            }
            Want::New { abort } => {
                if let Some(key) = abort {
                    out.push_back(Output::Abort { key });
                }
                timers.clear(&Timer::Standalone);
                self.open(opens, (reqs, out));
            }
        }
    }

    /// The stream's reopening time came, or a response is awaited on it: opens it if it is
    /// closed (when `opens`: a GET may go now). Returns whether the session has it (not when the
    /// server refused it).
    pub(crate) fn reopen(&mut self, opens: bool, to: Outlet) -> bool {
        if self.headers.is_none() || self.refused {
            return false;
        }
        if self.key.is_none() {
            self.open(opens, to);
        }
        true
    }

    /// Opens the stream when it is wanted and `opens` (a server may refuse a GET that overtakes
    /// the `initialized` notification).
    fn open(&mut self, opens: bool, (reqs, out): Outlet) {
        let Some(headers) = self.headers.clone().filter(|_| opens) else {
            return;
        };
        let key = reqs.key();
        self.key = Some(key);
        self.head = None;
        self.opened_at = None;
        out.push_back(Output::Listen {
            key,
            headers,
            last_event_id: self.last_event_id.clone(),
        });
    }

    /// Stops the stream for good (the session ends): the open stream is aborted, and its
    /// connection goes nowhere (what waits for it goes nowhere either).
    pub(crate) fn stop(
        &mut self,
        pool: &mut Pool,
        timers: &mut Timers,
        out: &mut VecDeque<Output>,
    ) {
        let key = self.key.take();
        *self = Standalone::default();
        if let Some(key) = key {
            out.push_back(Output::Abort { key });
            let _ = pool.unlisten();
        }
        timers.clear(&Timer::Standalone);
    }

    /// A head for `key`: `true` when `key` is the stream's.
    pub(super) fn headed(
        &mut self,
        now: Millis,
        key: SendKey,
        status: u16,
        retry_after: Option<Millis>,
    ) -> bool {
        if !self.is(key) {
            return false;
        }
        self.head = Some((status, retry_after));
        self.opened_at = (200..300).contains(&status).then_some(now);
        true
    }

    /// The stream's position moved (its last event id, the server's `retry:`).
    pub(super) fn moved_on(&mut self, last_event_id: Option<String>, retry_ms: Option<Millis>) {
        if last_event_id.is_some() {
            self.last_event_id = last_event_id;
        }
        if retry_ms.is_some() {
            self.retry_ms = retry_ms;
        }
    }

    /// A message came on the stream: the next reopening is a first attempt again.
    pub(super) fn heard(&mut self) {
        if self.key.is_some() {
            self.attempt = 0;
        }
    }

    /// `key` ended (`error`: how it failed): `None` when it was not the stream's, else whether
    /// the host hears of its cuts now (how long it lived). A stream the server answered with 429 or 5xx, or that ended or broke
    /// after it ran, is reopened later (its timer set); one answered otherwise (an error status,
    /// no event stream: the driver reports those with their status) is given up for the
    /// session.
    pub(super) fn ended(
        &mut self,
        now: Millis,
        key: SendKey,
        error: Option<&TransportError>,
        (rng, timers): (&mut Rng, &mut Timers),
    ) -> Option<Option<Millis>> {
        if !self.is(key) {
            return None;
        }
        self.key = None;
        // Ran a while, then ended cleanly: cut (only a 2xx head starts the clock).
        let life = self.opened_at.map_or(0, |t| now.saturating_sub(t));
        let cut = error.is_none() && life >= CUT_AFTER_MS;
        self.cuts = if cut { self.cuts.saturating_add(1) } else { 0 };
        // A busy answer's `Retry-After` (else the stream's `retry:`), or `None` when refused.
        let asked = match self.head.take() {
            Some((status, after)) if status == 429 || status >= 500 => {
                Some(after.or(self.retry_ms))
            }
            Some((status, _)) if !(200..300).contains(&status) => None,
            _ if error.is_some_and(|e| e.http_status.is_some()) => None,
            _ => Some(self.retry_ms),
        };
        match asked {
            None => self.refused = true,
            Some(asked) => {
                // A cut stream worked: at once, or after the server's `retry:`.
                let delay = if cut {
                    asked.map_or(0, |ms| ms.max(MIN_RECONNECT_MS))
                } else {
                    reconnect_delay(asked, self.attempt, rng)
                };
                self.attempt = if cut {
                    0
                } else {
                    self.attempt.saturating_add(1)
                };
                timers.set(Timer::Standalone, now.saturating_add(delay));
            }
        }
        let named = self.cuts == CUTS_NAMED && !std::mem::replace(&mut self.named, true);
        Some(named.then_some(life))
    }
}

/// What the host hears of a stream cut again and again after `life` ms.
pub(super) fn cuts_named(life: Millis) -> ClientError {
    let message = [
        "the listening stream is cut every ",
        &decimal(life / 1_000),
        " s, likely by a proxy idle timeout: reopened at once",
    ]
    .concat();
    ClientError::new(ErrorKind::Transport, message)
}
