//! Engine tests (native): flows per dialect against the fake server, session details scripted
//! by hand, properties over random interleavings, fuzzing of inputs, replays of real servers'
//! transcripts, and a simulated hour of 1,000 tasks. Scaffolding: `engine::testkit`.

mod absent;
mod accepted;
mod affinity;
mod backlog;
mod batch;
mod cadence;
mod cut;
mod deviations;
#[cfg(feature = "draft")]
mod draft;
mod faults;
mod flows;
mod heap;
mod hour;
mod initialized;
mod inputs;
mod listen;
mod multiplex;
mod negotiate;
#[cfg(any(not(feature = "receiver"), not(feature = "draft")))]
mod optional;
mod phases;
mod props;
mod push;
mod pushed;
mod race;
mod refused;
mod released;
mod replay;
mod retried;
mod session;
mod settle;
mod socket;
mod standalone;
mod streams;
mod unreached;
mod verdicts;

pub(crate) use super::testkit::cases;
