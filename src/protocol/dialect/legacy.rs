//! Legacy dialect.

pub struct Legacy;
