//! Learning that a page's link multiplexes when the browser did not tell (the server is on
//! another origin that sends no `Timing-Allow-Origin`, so Resource Timing hides the HTTP version).
//! Over HTTP/1.1 a browser opens at most six connections per origin: a response head for a
//! request that the connection model (`pool.rs`) still queues behind six busy ones, with no
//! aborted response draining to explain it, means more requests were in flight at once than
//! HTTP/1.1 allows. [`OVERTAKES_FOR_HTTP2`] of them before an end empties the model's line switch
//! the link to [`Link::Http2`]: no connection model any more, the HTTP/2 budget of held
//! `tasks/result` requests, and the running tasks hold theirs. One overtake alone may be an end
//! the driver has not reported yet; on a real HTTP/1.1 link two in one queue are not.

use super::api::{Link, Millis};
use super::Engine;

/// Heads past the model's line that prove the link multiplexes.
pub(crate) const OVERTAKES_FOR_HTTP2: u32 = 2;

impl Engine {
    /// After a head: the link switches to HTTP/2 once the heads prove it multiplexes.
    pub(crate) fn learn_link(&mut self, now: Millis) {
        if !self.cfg.link_unseen || self.pool.overtakes() < OVERTAKES_FOR_HTTP2 {
            return;
        }
        self.cfg.link = Link::Http2;
        self.cfg.link_unseen = false;
        let admitted = self.pool.unlimit();
        self.admitted(now, admitted);
        for task_id in self.tasks.followed() {
            self.hold_again(now, &task_id);
        }
    }
}
