//! Learning the HTTP version of a page's link when the browser did not tell (the server is on
//! another origin that sends no `Timing-Allow-Origin`, so Resource Timing hides it). The link
//! starts as HTTP/1.1 with a probe's budget of held `tasks/result` requests: as many as the
//! browser's six connections per origin.
//!
//! A browser gives an origin's HTTP/1.1 connections to requests in the order they were made. So
//! a status request made after six streams that still hold theirs (held results, made before it;
//! the listening stream once its head came) can only be answered over a seventh: if its head
//! comes and none of the six ends within [`REPORT_LAG_MS`] after (an end the page reports late
//! happened before the head), the link multiplexes. It becomes `Link::Http2`: no connection
//! model, the HTTP/2 budget, every running task holds its result. If instead such a request has
//! no head for [`STALL_MS`] while the six stay open (over HTTP/2 a status request is answered in
//! milliseconds), it waits in the browser's queue: the link is HTTP/1.1 for good, and the held
//! results of tasks not waiting for input close, their tasks polled. A late report or a slow
//! server never proves HTTP/2; at worst they prove HTTP/1.1, the assumption the client had.

use crate::engine::api::{Millis, SendKey};

/// Longest a page may take to report an end that already happened on the network (its main
/// thread busy): a witness still open this long after a head was open when the head came.
pub(super) const REPORT_LAG_MS: Millis = 500;
/// A status request made behind six open streams and unanswered this long waits in the browser.
pub(crate) const STALL_MS: Millis = 250;

#[derive(Debug, Default)]
pub(crate) struct Probe {
    /// Held results made and not yet over: each holds a connection, or waits ahead of any
    /// request made after it.
    pub(super) witnesses: Vec<SendKey>,
    /// Status requests made behind six witnesses (since one last ended), and when.
    pub(super) armed: Vec<(SendKey, Millis)>,
    /// When the first armed request's head has stood long enough.
    pub(super) proof: Option<Millis>,
}

impl Probe {
    /// `key`'s head came: an armed request's proof starts to stand.
    pub(super) fn headed(&mut self, now: Millis, key: SendKey) {
        if let Some(i) = self.armed.iter().position(|(k, _)| *k == key) {
            self.armed.swap_remove(i);
            self.proof.get_or_insert(now.saturating_add(REPORT_LAG_MS));
        }
    }

    /// `key`'s stream is over: if it was a witness, what was armed or standing proves nothing.
    pub(super) fn ended(&mut self, key: SendKey) {
        self.armed.retain(|(k, _)| *k != key);
        if let Some(i) = self.witnesses.iter().position(|k| *k == key) {
            self.witnesses.swap_remove(i);
            self.unwitnessed();
        }
    }

    /// A witness ended (or the listening stream closed).
    pub(super) fn unwitnessed(&mut self) {
        self.armed.clear();
        self.proof = None;
    }
}
