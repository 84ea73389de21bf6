//! Streams, sockets and held results: 202-accepted answers, listening streams, resumed
//! streams, the WebSocket link, held `tasks/result` and the pushes that race or replace them.

mod accepted;
mod budget;
mod cut;
mod listen;
mod multiplex;
pub(super) mod push;
pub(super) mod pushed;
mod race;
mod released;
mod retried;
mod socket;
mod standalone;
mod streams;
