//! Engine tests (native): flows per dialect against the fake server, session details scripted
//! by hand, properties over random interleavings, fuzzing of inputs, replays of real servers'
//! transcripts, and a simulated hour of 1,000 tasks. Scaffolding: `engine::testkit`.

mod connect;
mod scale;
mod tasks;
mod transport;

use scale::faults;
use transport::{push, pushed};

/// `PROPTEST_CASES` overrides the number of property cases (e.g. for a long soak run).
pub(crate) fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
