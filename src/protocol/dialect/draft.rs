//! Draft dialect.

pub struct Draft;
