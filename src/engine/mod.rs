//! Sans-IO task engine: session and dialect negotiation, request ids, task registry, poll
//! scheduler, subscriptions and result cache. No clock, no randomness source, no I/O of its own.

pub mod api;
