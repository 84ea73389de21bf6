//! `Auto` and the draft dialect: the negotiation falls back to `initialize` with the legacy
//! codec, then consults [`draft::detect`] on the answer. A draft receiver (it declares `tasks`
//! the draft's way) is spoken to in the draft dialect; a server that gives no sign either way is
//! said once (a warning naming `dialect: "draft"`), since only the caller can know.

use serde_json::Value;

use crate::protocol::dialect::draft::{self, Detection};
use crate::protocol::dialect::{codec, Codec};
use crate::protocol::model::Dialect;

use super::api::{ClientError, DialectChoice, ErrorKind};
use super::Engine;

/// The warning for a server that may speak the draft without saying so.
const SILENT_HINT: &str = "the server declares no task support, so calls run without tasks; \
if it implements the SEP-1686 draft (requestor-named tasks, which need not be declared), \
connect with dialect: \"draft\"";

impl Engine {
    /// The codec to read an `initialize` answer (`capabilities`) with, and the warning to give
    /// once the session is ready. Only `Auto` sessions on their first handshake are re-read.
    pub(crate) fn auto_draft(
        &self,
        c: &'static dyn Codec,
        capabilities: &Value,
    ) -> (&'static dyn Codec, Option<ClientError>) {
        let first_auto_legacy = self.cfg.dialect == DialectChoice::Auto
            && c.dialect() == Dialect::Legacy
            && self.session.epoch == 0;
        if !first_auto_legacy {
            return (c, None);
        }
        match draft::detect(self.session.protocol_version(), capabilities) {
            Detection::Draft => (codec(Dialect::Draft), None),
            Detection::Silent => (c, Some(ClientError::new(ErrorKind::Protocol, SILENT_HINT))),
            Detection::Other => (c, None),
        }
    }
}
