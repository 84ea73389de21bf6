//! Bindings to `io.js`, the client's I/O in JavaScript: it starts fetches and reads their bodies,
//! opens the WebSocket and runs the timer, reporting each step to the driver's sink as plain values
//! ([`report`]), flattens the `headers` option's collections, keeps small texts in `localStorage`
//! (or this page's memory) and reads the globals the driver uses (the clock, random bits,
//! `localStorage`, the `WebSocket` constructor, a thrown value's message). It decides nothing:
//! limits, framing, retries and errors are the driver's.

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/driver/io.js")]
extern "C" {
    /// One client's I/O; its sink is `sink(kind, key, value)`.
    #[derive(Clone)]
    pub type Io;
    #[wasm_bindgen(constructor)]
    pub fn new(sink: &Function) -> Io;
    /// Starts a request (`pairs`: name, value, …; `low`: at the browser's low priority):
    /// `undefined` once started, else `[index of the refused pair, or -1 without a global fetch;
    /// the error]`.
    #[wasm_bindgen(method)]
    pub fn fetch(
        this: &Io,
        key: f64,
        url: &str,
        method: &str,
        pairs: &Array,
        body: &JsValue,
        low: bool,
    ) -> JsValue;
    /// Reads the body of a request whose head was reported.
    #[wasm_bindgen(method)]
    pub fn read(this: &Io, key: f64);
    #[wasm_bindgen(method)]
    pub fn abort(this: &Io, key: f64);
    /// Opens the socket; returns what the constructor threw, if it did.
    #[wasm_bindgen(method)]
    pub fn open(this: &Io, ctor: &Function, url: &str, subprotocol: Option<&str>) -> JsValue;
    /// Sends a text frame; returns what `send` threw, if it did.
    #[wasm_bindgen(method)]
    pub fn send(this: &Io, text: &str) -> JsValue;
    #[wasm_bindgen(method)]
    pub fn close(this: &Io);
    #[wasm_bindgen(method)]
    pub fn arm(this: &Io, ms: f64);
    #[wasm_bindgen(method)]
    pub fn disarm(this: &Io);
    #[wasm_bindgen(method)]
    pub fn shut(this: &Io);
    /// Calls `cb(1, key, value)` or `cb(0, key, reason)` once `v` settles (in a later microtask).
    pub fn settled(v: &JsValue, cb: &JsValue, key: f64);
    /// Whether `v` is a promise or another thenable (an object with a `then` function).
    pub fn thenable(v: &JsValue) -> bool;
    /// A response's status.
    pub fn status(res: &JsValue) -> u16;
    /// A response header's value.
    pub fn header(res: &JsValue, name: &str) -> Option<String>;
    /// A header collection's name/value pairs, flat; throws what is wrong with its shape.
    #[wasm_bindgen(catch, js_name = headerPairs)]
    pub fn header_pairs(headers: &JsValue) -> Result<Array, JsValue>;
    /// Milliseconds since the Unix epoch: `performance.timeOrigin + performance.now()` where that is
    /// a positive number, else `Date.now()`.
    pub fn now() -> f64;
    /// 64 random bits from `crypto.getRandomValues`; without it, 32 from `Math.random` above the
    /// clock's bits.
    pub fn seed() -> u64;
    /// A readable message for a thrown value.
    pub fn describe(e: &JsValue) -> String;
    /// The global `WebSocket` constructor, if any.
    #[wasm_bindgen(js_name = webSocket)]
    pub fn web_socket() -> Option<Function>;
    /// `globalThis.localStorage` when reading it gives an object (it throws where storage is
    /// blocked).
    #[wasm_bindgen(js_name = localStorage)]
    pub fn local_storage() -> JsValue;
    /// The text stored under `key`: its `localStorage` item where storage works and has one, else
    /// what this page remembered.
    pub fn recall(key: &str) -> Option<String>;
    /// Stores `value` under `key` in this page's memory and, where storage works, `localStorage`.
    pub fn remember(key: &str, value: &str);
    /// `key`'s text in this tab's `sessionStorage` (it survives reloads), where storage works.
    #[wasm_bindgen(js_name = sessionItem)]
    pub fn session_item(key: &str) -> Option<String>;
    /// Keeps `value` under `key` in this tab's `sessionStorage`, where storage works.
    #[wasm_bindgen(js_name = setSessionItem)]
    pub fn set_session_item(key: &str, value: &str);
    /// Node or Electron's main process: a `process.versions.node` and no `document`.
    #[wasm_bindgen(js_name = inNode)]
    pub fn in_node() -> bool;
    /// What the page's navigation and resource timing show of the origin of `url`
    /// (`scheme://host[:port]`, any case): 2 reached over HTTP/2 or HTTP/3, 1 over HTTP/1, 0 untold.
    #[wasm_bindgen(js_name = nextHop)]
    pub fn next_hop(url: &str) -> u32;
}

/// What the sink hears (`kind`), numbered as in `io.js`.
pub mod report {
    /// `(key, response)`: status and headers; the body waits for [`Io::read`](super::Io::read).
    pub const HEAD: u32 = 0;
    /// `(key, Uint8Array)`.
    pub const CHUNK: u32 = 1;
    pub const END: u32 = 2;
    /// `(key, error)`: `fetch` rejected.
    pub const FETCH_FAILED: u32 = 3;
    /// `(key, error)`: reading the body failed.
    pub const READ_FAILED: u32 = 4;
    /// The body yielded something other than bytes or text.
    pub const NOT_BYTES: u32 = 5;
    pub const OPEN: u32 = 6;
    /// `(0, text)`.
    pub const FRAME: u32 = 7;
    pub const CLOSED: u32 = 8;
    pub const TIMER: u32 = 9;
}
