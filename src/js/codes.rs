//! The numbers `ClientCore` and the JS client (`npm/client.js`) exchange, defined once here;
//! client.js spells each again as a constant of the same name, and `tests/wasm_wire.rs` reads
//! client.js and checks both agree.

/// Defines each code as a `u8` constant and lists the group (name, value) for the check.
macro_rules! codes {
    ($(#[$doc:meta])* $group:ident { $($name:ident = $value:literal),+ $(,)? }) => {
        $(pub const $name: u8 = $value;)+
        $(#[$doc])*
        pub const $group: &[(&str, u8)] = &[$((stringify!($name), $value)),+];
    };
}

codes!(
    /// What the JS client hears: the first argument of its `emit(what, id, value)` callback.
    HEARD {
        READY = 0,
        FAILED = 1,
        SESSION = 2,
        WARNING = 3,
        TRANSITION = 4,
        INPUT = 5,
        WITHDRAWN = 6,
        ONCE = 7,
        REPLIED = 8,
        REFUSED = 9,
    }
);

codes!(
    /// What `ClientCore::call` starts.
    CALLS { REQUEST = 0, TOOL = 1, WATCH = 2 }
);

codes!(
    /// What `ClientCore::ask` reads (to `STORAGE`), tells (to `CLOSE`), starts (the one-shot
    /// operations, to `DELETE`) and asks of the stored tasks.
    ASKS {
        SUB_ID = 0,
        SUB_STATUS = 1,
        SUB_TASK = 2,
        TRACKED = 3,
        DIALECT = 4,
        ROLE = 5,
        STORAGE = 6,
        ABANDON = 7,
        STOP = 8,
        RESOLVED = 9,
        REJECTED = 10,
        CLOSE = 11,
        LIST_TASKS = 12,
        LIST_TOOLS = 13,
        CANCEL = 14,
        DELETE = 15,
        RESUME = 16,
        FORGET = 17,
    }
);
