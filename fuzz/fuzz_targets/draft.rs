//! Draft dialect: every parse function takes any JSON without panicking, and a parsed task
//! builds requests addressing the same task id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_task_client::protocol::fuzz_entry;
use mcp_task_client::protocol::model::Dialect;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = fuzz_entry::dialect(Dialect::Draft, data) {
        panic!("{broken}");
    }
});
