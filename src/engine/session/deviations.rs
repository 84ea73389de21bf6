//! What a server does off the protocol that the client works around, said to the host once per
//! kind for the engine's life. Before the session is ready the first such warning is kept and
//! said once it is (the host reads a warning while connecting as the connect failing); another
//! kind seen meanwhile is said when it happens again.

use super::Session;
use crate::engine::api::ClientError;

/// A kind of deviation the client works around.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Deviation {
    /// `server/discover` was answered with something other than JSON-RPC, or not at all.
    Probe,
    /// A message that is not JSON-RPC (read as what it is where it answers a request).
    NotJsonRpc,
    /// Sessions die right after they are made (a balancer without affinity).
    NoAffinity,
    /// A page's `server/discover` got no response while `initialize` did (a CORS allow-list
    /// without the 2026-07-28 headers).
    ModernRefused,
}

/// The kinds said so far, and the warning waiting for the session.
#[derive(Debug, Default)]
pub(super) struct Deviations {
    said: u8,
    held: Option<ClientError>,
}

impl Deviations {
    /// Whether `d` was not said yet; `say`: it is now.
    fn first(&mut self, d: Deviation, say: bool) -> bool {
        let bit = 1 << d as u8;
        let new = self.said & bit == 0;
        if say {
            self.said |= bit;
        }
        new
    }
}

impl Session {
    /// Whether the host hears of deviation `d` now (`Some(true)`), once the session is ready
    /// (`Some(false)`: its warning is kept with [`Session::keep_deviation`]), or heard of this
    /// kind before (`None`).
    pub(super) fn deviation(&mut self, d: Deviation) -> Option<bool> {
        let ready = self.is_ready();
        let seen = &mut self.deviations;
        seen.first(d, ready || seen.held.is_none()).then_some(ready)
    }

    /// Keeps the first deviation's warning while connecting.
    pub(super) fn keep_deviation(&mut self, warning: ClientError) {
        self.deviations.held.get_or_insert(warning);
    }

    /// The session is ready: the warning kept while connecting, to be said now.
    pub(super) fn held_deviation(&mut self) -> Option<ClientError> {
        self.deviations.held.take()
    }
}
