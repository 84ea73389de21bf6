//! The calls' sub-machines wired to the engine: the tools cache, the listening stream, the host's
//! inputs and the receiver say what they need; this is where it is done (requests sent, timers
//! set, events emitted).

use crate::json::Value;

use super::tools::{Attempt, Page};
use crate::engine::api::{ClientError, Millis};
use crate::engine::requests::{Answer, Failure, Purpose};
use crate::engine::scheduler::Timer;
use crate::engine::session::quirks::Quirk;
use crate::engine::Engine;

impl Engine {
    /// Starts a `tools/list` (all pages) unless one is running; `force` refetches a loaded cache.
    pub(crate) fn fetch_tools(&mut self, now: Millis, force: bool) {
        if self.tools.begin(force || !self.tools_known()) {
            self.dispatch(now, Purpose::Tools { cursor: None });
        }
    }

    /// The backoff after a failed `tools/list` passed: ask again.
    pub(crate) fn retry_tools(&mut self, now: Millis) {
        if self.tools.retry() {
            self.dispatch(now, Purpose::Tools { cursor: None });
        }
    }

    pub(crate) fn on_tools_page(&mut self, now: Millis, res: Answer) {
        let page = match res {
            Ok(v) => self.tools.on_page(&v),
            Err(f) => return self.tools_error(now, &f),
        };
        match page {
            Ok(Page::Next(cursor)) => self.dispatch(
                now,
                Purpose::Tools {
                    cursor: Some(cursor),
                },
            ),
            Ok(Page::Done(all)) => self.tools_settled(now, Ok(all), true),
            Err(error) => {
                let f = Failure::Transport {
                    error,
                    status: None,
                    retry_after: None,
                };
                self.tools_error(now, &f);
            }
        }
    }

    /// A `tools/list` attempt failed: say so and try again with backoff, a few times, unless
    /// the server has no such method.
    fn tools_error(&mut self, now: Millis, f: &Failure) {
        match self.tools.attempt_failed(f, &mut self.rng) {
            Attempt::GiveUp { absent } => self.tools_failed(now, f.client_error(), absent),
            Attempt::Retry(delay) => {
                self.warn(None, f.client_error());
                self.timers.set(Timer::Tools, now.saturating_add(delay));
            }
        }
    }

    /// The listing failed for good: waiting operations get the error; waiting calls go on
    /// without it. `never`: the server has no `tools/list` (no later call asks again).
    pub(crate) fn tools_failed(&mut self, now: Millis, error: ClientError, never: bool) {
        if never {
            self.session.quirks.insert(Quirk::NoToolsList);
        }
        self.warn(None, error.clone());
        self.tools_settled(now, Err(error), false);
    }

    /// Whether there is nothing to ask: the tools are listed, or the server lists none.
    pub(super) fn tools_known(&self) -> bool {
        self.tools.loaded() || self.session.quirks.has(Quirk::NoToolsList)
    }

    fn tools_settled(&mut self, now: Millis, result: Result<Value, ClientError>, loaded: bool) {
        let (ops, waiting) = self.tools.settle(loaded);
        self.timers.clear(&Timer::Tools);
        for op in ops {
            self.reply(op, result.clone());
        }
        for c in waiting {
            if let Some(call) = self.calls.get_mut(&c) {
                call.tools_checked = true;
            }
            self.dispatch(now, Purpose::Call(c));
        }
    }
}
