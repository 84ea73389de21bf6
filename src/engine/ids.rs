//! The engine's own internal ids, one type each so that one is never passed for another. Each is
//! allocated by counting up from 1; none is ever chosen by a server.

macro_rules! counted_id {
    ($(#[$doc:meta])* $name:ident($int:ty)) => {
        $(#[$doc])*
        #[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub(crate) struct $name(pub(crate) $int);

        impl $name {
            /// The first id handed out.
            pub(super) const FIRST: $name = $name(1);

            /// Hands out this id and moves `self` on to the next one.
            pub(super) fn take_next(&mut self) -> $name {
                let id = *self;
                self.0 = self.0.wrapping_add(1);
                id
            }
        }
    };
}

counted_id!(
    /// A JSON-RPC request id (a number on the wire).
    ReqId(u64)
);
impl ReqId {
    /// The id as a JSON-RPC number (ids count up from 1: far below `i64::MAX`).
    pub(crate) fn wire(self) -> i64 {
        self.0 as i64
    }
}

counted_id!(
    /// A call: a request the caller waits on, which may still become a task.
    CallId(u64)
);
counted_id!(
    /// A tracked task's slot: its timers are keyed by slot rather than by task id (cheap to hash,
    /// and a timer fits in 8 bytes). Slots count past 4 billion tasks only by wrapping around.
    Slot(u32)
);
