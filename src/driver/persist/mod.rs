//! Persistence per scope (server URL + identity): `localStorage` access and the backends of the
//! records tab coordination stores ([`crate::bridge::records`]).

mod host;
mod idb;
pub(crate) mod local;
mod store;

pub(crate) use idb::Idb;
pub use store::*;
