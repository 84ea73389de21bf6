//! Incremental Server-Sent Events decoder.
