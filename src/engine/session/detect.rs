//! `Auto` and the draft dialect: the negotiation falls back to `initialize` with the legacy
//! codec, then consults [`draft::detect`] on the answer. A draft receiver (it declares `tasks`
//! the draft's way) is spoken to in the draft dialect; a server that gives no sign either way is
//! said once (a warning naming `dialect: "draft"`), since only the caller can know. A build
//! without the `draft` feature never picks the draft and gives no such warning.

use crate::json::Value;

#[cfg(feature = "draft")]
use crate::protocol::dialect::draft::{self, Detection, Draft};
use crate::protocol::dialect::Codec;
#[cfg(feature = "draft")]
use crate::protocol::model::Dialect;

use super::Session;
use crate::engine::api::ClientError;
#[cfg(feature = "draft")]
use crate::engine::api::{DialectChoice, ErrorKind};

/// The warning for a server that may speak the draft without saying so.
#[cfg(feature = "draft")]
const SILENT_HINT: &str = "the server declares no task support, so calls run without tasks; \
if it implements the SEP-1686 draft (requestor-named tasks, which need not be declared), \
connect with dialect: \"draft\"";

impl Session {
    /// The codec to read an `initialize` answer (`capabilities`) with, and the warning to give
    /// once the session is ready. Only `Auto` sessions on their first handshake are re-read.
    #[cfg(feature = "draft")]
    pub(super) fn auto_draft(
        &self,
        c: &'static dyn Codec,
        capabilities: &Value,
    ) -> (&'static dyn Codec, Option<ClientError>) {
        let first_auto_legacy =
            self.choice == DialectChoice::Auto && c.dialect() == Dialect::Legacy && self.epoch == 0;
        if !first_auto_legacy {
            return (c, None);
        }
        match draft::detect(self.protocol_version(), capabilities) {
            Detection::Draft => (&Draft, None),
            Detection::Silent => (c, Some(ClientError::new(ErrorKind::Protocol, SILENT_HINT))),
            Detection::Other => (c, None),
        }
    }

    /// Without the draft dialect the codec `initialize` was sent with reads its answer.
    #[cfg(not(feature = "draft"))]
    pub(super) fn auto_draft(
        &self,
        c: &'static dyn Codec,
        _capabilities: &Value,
    ) -> (&'static dyn Codec, Option<ClientError>) {
        (c, None)
    }
}
