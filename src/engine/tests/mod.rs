//! Engine tests (native): flows per dialect against the fake server, session details scripted
//! by hand, properties over random interleavings, fuzzing of inputs, replays of real servers'
//! transcripts, and a simulated hour of 1,000 tasks. Scaffolding: `crate::testkit`.

mod connect;
mod scale;
mod tasks;
mod transport;

use scale::faults;
use transport::{push, pushed};

pub(crate) use crate::testkit::cases;
