//! Engine tests (native): flows per dialect, properties over random interleavings, fuzzing of
//! inputs, and a simulated hour of 1,000 tasks.

mod flows;
mod hour;
mod props;
mod replay;
