//! JSON-RPC envelope: never panics; whatever decodes survives an encode/decode round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_task_client::protocol::fuzz_entry;

fuzz_target!(|data: &[u8]| {
    if let Err(broken) = fuzz_entry::jsonrpc(data) {
        panic!("{broken}");
    }
});
