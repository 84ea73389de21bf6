//! Learning the HTTP version of a page's link when the browser did not tell (the server is on
//! another origin that sends no `Timing-Allow-Origin`, so Resource Timing hides it). The link
//! starts as HTTP/1.1 with its budget of three: two running tasks hold their results, the others
//! are polled. Once more tasks are tracked than the browser has connections per origin (so a seventh request
//! will come), one probe starts: running tasks hold their `tasks/result`, as many as the six
//! connections. It is bounded: it decides within [`PROBE_MS`] or ends as HTTP/1.1. Its witnesses
//! are made once: one that ends (its task's outcome came) proves nothing, and from then on the
//! held results leave a connection free, so the polls made after it find one instead of waiting
//! in the browser for the next task's end.
//!
//! A browser gives an origin's HTTP/1.1 connections to requests in the order they were made. So
//! a status request made after six streams that still hold theirs (held results, made before it;
//! the listening stream, asked for before it) can only be answered over a seventh: if its head
//! comes and none of the six ends within [`REPORT_LAG_MS`] after (an end the page reports late
//! happened before the head), the link multiplexes. It becomes `Link::Http2`: no connection
//! model, the HTTP/2 budget, every running task holds its result. If instead such a request has
//! no head for [`STALL_MS`] while the six stay open (over HTTP/2 a status request is answered in
//! milliseconds), it waits in the browser's queue: the link is HTTP/1.1 for good, with its
//! budget. A late report or a slow server never proves HTTP/2; at worst they prove HTTP/1.1, the
//! assumption the client had.
//!
//! Found HTTP/1.1 (or out of time), the held results beyond the two its budget lets running
//! tasks hold close (tasks waiting for input keep theirs), their tasks polled: connections free
//! at once. That is only
//! safe on a server that keeps a task's result after answering it: each held result the browser
//! was given may have reached the server, and closing its stream does not always stop the answer
//! (a proxy on the way keeps its own request to the server open), so a server that consumes a
//! task when it answers could lose it. Hence the probe only starts once the server was seen to
//! keep results: a fetched result asked again is answered ([`Probe::kept`]). A server that
//! consumes them (or does not answer) is never probed: its link stays assumed HTTP/1.1.

use crate::engine::api::{Link, Millis, SendKey};

/// Longest a page may take to report an end that already happened on the network (its main
/// thread busy): a witness still open this long after a head was open when the head came.
pub(super) const REPORT_LAG_MS: Millis = 500;
/// A status request made behind six open streams and unanswered this long waits in the browser
/// (a loaded page or server answers an HTTP/2 request in hundreds of ms; concluding HTTP/1.1
/// from one is safe, but gives up held results for the server's life in the page).
pub(crate) const STALL_MS: Millis = 500;
/// A probe undecided this long after it started ends as HTTP/1.1 (the assumption).
pub(crate) const PROBE_MS: Millis = 10_000;
/// Held results of running tasks a link found HTTP/1.1 keeps where running tasks hold none (its
/// pushes bring the ends): below its budget of 3, a slot stays free for a task waiting for input.
pub(crate) const KEPT_ON_HTTP1: usize = 2;

#[derive(Debug, Default)]
pub(crate) struct Probe {
    /// Held results made and not yet over: each holds a connection, or waits ahead of any
    /// request made after it.
    witnesses: Vec<SendKey>,
    /// Status requests made behind six witnesses (since one last ended), and when.
    armed: Vec<(SendKey, Millis)>,
    /// When the first armed request's head has stood long enough.
    proof: Option<Millis>,
    /// When the probe started: running tasks hold their results from then on.
    started: Option<Millis>,
    /// Every connection was held once: from then on held results leave one free.
    filled: bool,
    /// What the link was found to be, until the driver takes it.
    learnt: Option<Link>,
    /// Whether the server keeps a task's result after answering it (a fetched result asked again
    /// was answered), once known.
    keeps: Option<bool>,
    /// A task whose result was fetched, to ask again; emptied once asked.
    fetched: Option<String>,
}

impl Probe {
    /// A held result went to the browser: a witness while it holds its connection.
    pub(super) fn witness(&mut self, key: SendKey) {
        self.witnesses.push(key);
    }

    /// A status request went to the browser at `now`: armed when the witnesses and the listening
    /// stream (`listening`) hold all `connections`.
    pub(super) fn made(&mut self, now: Millis, key: SendKey, listening: bool, connections: usize) {
        if self.witnesses.len() + usize::from(listening) >= connections {
            self.armed.push((key, now));
        }
    }

    /// When the probe next decides something: a proof standing, an armed request stalling, or
    /// the probe's deadline.
    pub(super) fn due(&self) -> Option<Millis> {
        let stall = (self.armed.iter())
            .map(|(_, at)| at.saturating_add(STALL_MS))
            .min();
        [self.proof, stall, self.deadline()]
            .into_iter()
            .flatten()
            .min()
    }

    /// What the link was found to be by `now`: `Http2` once a proof stood, `Http1` once an armed
    /// request stalled or the probe ran out of time; `None` while undecided.
    pub(super) fn verdict(&self, now: Millis) -> Option<Link> {
        if self.proof.is_some_and(|at| at <= now) {
            return Some(Link::Http2);
        }
        let stalled = (self.armed.iter()).any(|(_, at)| at.saturating_add(STALL_MS) <= now);
        let expired = self.deadline().is_some_and(|at| at <= now);
        (stalled || expired).then_some(Link::Http1)
    }

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

    /// The probe starts at `now` (running tasks hold their results from then on).
    pub(super) fn start(&mut self, now: Millis) {
        self.started = Some(now);
    }

    /// The probe did not start after all (nothing to hold).
    pub(super) fn unstart(&mut self) {
        self.started = None;
    }

    /// Whether the probe started.
    pub(super) fn started(&self) -> bool {
        self.started.is_some()
    }

    /// The witnesses were made: from now on held results leave a connection free.
    pub(super) fn fill(&mut self) {
        self.filled = true;
    }

    /// Whether the probe started and still holds every connection it can.
    pub(super) fn fills(&self) -> bool {
        self.started() && !self.filled
    }

    /// When the probe, undecided, ends as HTTP/1.1: [`PROBE_MS`] after it started.
    pub(super) fn deadline(&self) -> Option<Millis> {
        self.started.map(|at| at.saturating_add(PROBE_MS))
    }

    /// The result of `task_id` was fetched: `true` while whether the server keeps results is to
    /// be learnt (the first result fetched is asked again).
    pub(super) fn fetched(&mut self, task_id: &str) -> bool {
        if self.keeps.is_some() {
            return false;
        }
        self.fetched.get_or_insert_with(|| task_id.to_owned());
        true
    }

    /// The fetched result to ask again, once: until answered, results count as not kept.
    pub(super) fn ask(&mut self) -> Option<String> {
        let task_id = self.fetched.take()?;
        self.keeps.get_or_insert(false);
        Some(task_id)
    }

    /// A fetched result asked again was answered (`true`) or not.
    pub(super) fn kept(&mut self, kept: bool) {
        self.keeps = Some(kept);
    }

    /// Whether the server was seen to keep results: closing a held result loses nothing.
    pub(super) fn keeps(&self) -> bool {
        self.keeps == Some(true)
    }

    /// The probe is over: the link was found to be `link`, kept until [`Probe::take_learnt`].
    pub(super) fn decided(link: Link) -> Self {
        Probe {
            learnt: Some(link),
            ..Probe::default()
        }
    }

    /// The link found, once.
    pub(super) fn take_learnt(&mut self) -> Option<Link> {
        self.learnt.take()
    }
}
