//! Engine tests (native): flows per dialect against the fake server, session details scripted
//! by hand, properties over random interleavings, fuzzing of inputs, replays of real servers'
//! transcripts, and a simulated hour of 1,000 tasks. Scaffolding: `engine::testkit`.

mod absent;
mod draft;
mod faults;
mod flows;
mod hour;
mod listen;
mod negotiate;
mod props;
mod replay;
mod session;
mod streams;
