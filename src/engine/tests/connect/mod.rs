//! First contact and the session: era negotiation, servers off the protocol at connect,
//! refusals, re-initialization, requests that got no response, flows per dialect.

mod absent;
mod affinity;
mod deviations;
#[cfg(feature = "draft")]
mod draft;
mod flows;
mod initialized;
mod negotiate;
#[cfg(any(not(feature = "receiver"), not(feature = "draft")))]
mod optional;
mod refused;
mod session;
mod unreached;
