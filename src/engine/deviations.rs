//! What a server does off the protocol that the client works around, said to the host once per
//! kind for the engine's life. Before the session is ready such a warning is kept and said once
//! it is: the host reads a warning while connecting as the connect failing.

use super::api::ClientError;
use super::Engine;

/// A kind of deviation the client works around.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Deviation {
    /// `server/discover` was answered with something other than JSON-RPC, or not at all.
    Probe,
    /// A message that is not JSON-RPC (read as what it is where it answers a request).
    NotJsonRpc,
    /// Sessions die right after they are made (a balancer without affinity).
    NoAffinity,
}

/// The kinds said so far, and the warnings waiting for the session.
#[derive(Debug, Default)]
pub(crate) struct Deviations {
    said: u8,
    held: Vec<ClientError>,
}

impl Deviations {
    /// Whether `d` is new (it is remembered as said).
    fn first(&mut self, d: Deviation) -> bool {
        let bit = 1 << d as u8;
        let new = self.said & bit == 0;
        self.said |= bit;
        new
    }
}

impl Engine {
    /// The server deviated (`d`): the host hears `warning` unless it heard of this kind before.
    pub(crate) fn deviated(&mut self, d: Deviation, warning: ClientError) {
        if !self.session.deviations.first(d) {
            return;
        }
        match self.session.is_ready() {
            true => self.warn(None, warning),
            false => self.session.deviations.held.push(warning),
        }
    }

    /// The session is ready: the warnings kept while connecting are said.
    pub(crate) fn say_deviations(&mut self) {
        for warning in std::mem::take(&mut self.session.deviations.held) {
            self.warn(None, warning);
        }
    }
}
