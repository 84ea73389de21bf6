//! SSE decoder: never panics, and decodes the same in one piece and in chunks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_task_client::protocol::fuzz_entry;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = fuzz_entry::sse(data) {
        panic!("{broken}");
    }
});
