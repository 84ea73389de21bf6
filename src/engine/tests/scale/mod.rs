//! Many tasks and random ones: properties, fuzzing, a simulated hour, the heap per task,
//! transcript replays, the browser fault matrix, batches and backlogs.

mod backlog;
mod batch;
pub(super) mod faults;
mod heap;
mod hour;
mod props;
mod replay;
