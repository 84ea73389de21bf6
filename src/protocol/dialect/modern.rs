//! Modern dialect.

pub struct Modern;
