//! The bridge against the host values it reads: HTTP exchanges, the socket, options, records, and
//! the readers of the package's own JSON against every shape the package writes.

mod exchange;
#[cfg(feature = "tabs")]
mod readers;
#[cfg(feature = "tabs")]
mod records;
#[cfg(feature = "tabs")]
mod samples;
mod settings;
mod socket;
