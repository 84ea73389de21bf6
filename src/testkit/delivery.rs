//! The harness's delivery queue entry: inputs due at a time, earliest first.

use crate::engine::api::{Input, Millis};

/// Inputs due at a time, in the order they were scheduled (a min-heap entry).
pub(crate) struct Delivery {
    pub(super) at: Millis,
    pub(super) seq: u64,
    pub(super) inputs: Vec<Input>,
}

impl PartialEq for Delivery {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl Eq for Delivery {}

impl PartialOrd for Delivery {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Delivery {
    /// Reversed: the earliest (then first scheduled) is the heap's top.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}
