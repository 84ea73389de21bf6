//! Session and task export/import (persistence, tabs) and how an ended subscription reads.

pub mod snapshot;
pub mod verdict;
