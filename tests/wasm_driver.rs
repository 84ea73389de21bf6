//! wasm-level tests of the driver and the JS face's WebAssembly side, run by `scripts/test-js.sh` in Node, headless
//! Chromium and a dedicated worker (same binary; `WASM_BINDGEN_USE_BROWSER` /
//! `WASM_BINDGEN_USE_DEDICATED_WORKER`). Real-server tests read the URLs the script baked in at
//! compile time (`MCP_TEST_HTTP_URL`: ts-sdk, `MCP_TEST_WS_URL`: python-ws) and say so when skipped.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use futures::channel::mpsc;
use futures::StreamExt;
use js_sys::{Array, Function, Reflect, Uint8Array};
use mcp_task_client::bridge::body::Framing;
use mcp_task_client::bridge::retry_after::retry_after_ms;
use mcp_task_client::driver::headers::HeaderSource;
use mcp_task_client::driver::io::{self, report, Io};
use mcp_task_client::driver::timer::Timer;
use mcp_task_client::driver::{global, Driver, DriverOptions, Host, TransportKind};
use mcp_task_client::engine::api::{CallOptions, ClientError, Config, End, ErrorKind, Event};
use mcp_task_client::js::ClientCore;
use mcp_task_client::json::json;
use mcp_task_client::protocol::model::{Outcome, TaskStatus};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

// The test's own JS helpers are made at run time, not shipped as an `inline_js` module: every JS
// module of this binary is one more request in the burst that loads it, and the runner's server
// (four threads, each held by an open connection) can leave one request of a larger burst unanswered.
// `scripts/test-js.sh` checks the binary's module count before running it in Chromium.

/// A `Response` whose body yields `chunks` one by one (1 ms apart), then ends.
fn chunked_response(chunks: Array, content_type: &str) -> JsValue {
    let make = Function::new_with_args(
        "chunks, contentType",
        r#"
        const enc = new TextEncoder();
        const stream = new ReadableStream({
          async pull(ctrl) {
            if (chunks.length === 0) { ctrl.close(); return; }
            await new Promise((r) => setTimeout(r, 1));
            const c = chunks.shift();
            ctrl.enqueue(typeof c === "string" ? enc.encode(c) : c);
          },
        });
        return new Response(stream, { headers: { "content-type": contentType } });"#,
    );
    make.call2(&JsValue::NULL, &chunks, &content_type.into())
        .unwrap()
}

/// Starts `io.fetch` with the global `fetch` answering `response` (restored before it returns).
fn fetch_answering(io: &Io, key: f64, response: &JsValue) -> JsValue {
    let start = Function::new_with_args(
        "io, key, response",
        r#"
        const real = globalThis.fetch;
        globalThis.fetch = async () => response;
        try { return io.fetch(key, "http://127.0.0.1:9/", "POST", ["x-a", "1"], "{}"); }
        finally { globalThis.fetch = real; }"#,
    );
    start
        .call3(&JsValue::NULL, io, &key.into(), response)
        .unwrap()
}

/// Whether the global scope is a window (not in Node or a worker).
fn has_window() -> bool {
    Reflect::has(&js_sys::global(), &"window".into()).unwrap()
}

fn chunks(parts: &[&str]) -> Array {
    parts.iter().map(|p| JsValue::from_str(p)).collect()
}

#[wasm_bindgen_test]
fn globals_come_from_the_global_scope() {
    let d = (global::now() as f64 - js_sys::Date::now()).abs();
    assert!(d < 1000.0, "now() is Date.now()");
    assert_ne!(
        global::random_seed(),
        global::random_seed(),
        "crypto.getRandomValues seeds"
    );
    wasm_bindgen_test::console_log!("window present: {}", has_window());
}

type Seen = Rc<RefCell<Vec<(u32, f64, JsValue)>>>;
type Sink = Closure<dyn Fn(u32, f64, JsValue)>;

/// An `Io` whose reports are recorded (and signalled on `tx` when one of `until` arrives).
fn recording_io(until: &'static [u32]) -> (Io, Seen, mpsc::UnboundedReceiver<u32>, Sink) {
    let seen: Seen = Rc::default();
    let (tx, rx) = mpsc::unbounded();
    let s = seen.clone();
    let sink = Sink::new(move |kind, key, v| {
        assert!(kind <= report::TIMER, "a known report");
        s.borrow_mut().push((kind, key, v));
        if until.contains(&kind) {
            let _ = tx.unbounded_send(kind);
        }
    });
    let io = Io::new(sink.as_ref().unchecked_ref());
    (io, seen, rx, sink)
}

#[wasm_bindgen_test]
async fn one_timer_fires_once_and_rearms() {
    let (io, seen, mut rx, _sink) = recording_io(&[report::TIMER]);
    let mut t = Timer::default();
    let now = global::now();
    t.arm(&io, now + 5_000, now);
    t.arm(&io, now + 20, now); // re-armed earlier: only this one may fire
    t.arm(&io, now + 20, now); // same deadline: no second timeout
    assert_eq!(rx.next().await, Some(report::TIMER));
    t.fired();
    sleep(80).await;
    assert_eq!(seen.borrow().len(), 1, "one timeout fired");
    t.arm(&io, global::now() + 10, global::now());
    t.arm(&io, u64::MAX, global::now()); // disarmed: nothing more fires
    sleep(60).await;
    assert_eq!(seen.borrow().len(), 1, "a disarmed timer stays quiet");
    io.shut();
}

async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |res, _| {
        let set_timeout: Function = Reflect::get(&js_sys::global(), &"setTimeout".into())
            .unwrap()
            .into();
        set_timeout.call2(&JsValue::NULL, &res, &ms.into()).unwrap();
    });
    JsFuture::from(p).await.unwrap();
}

#[wasm_bindgen_test]
async fn io_reports_a_body_chunk_by_chunk_after_its_head() {
    let (io, seen, mut rx, _sink) = recording_io(&[report::HEAD, report::END, report::NOT_BYTES]);
    let resp = chunked_response(
        chunks(&["id: 1\r", "\ndata: {\"a\":", "1}\r\n\r\n"]),
        "text/event-stream; charset=utf-8",
    );
    assert!(fetch_answering(&io, 7.0, &resp).is_undefined(), "started");
    assert_eq!(rx.next().await, Some(report::HEAD));
    {
        let seen = seen.borrow();
        let (_, key, res) = &seen[0];
        assert_eq!(*key, 7.0);
        assert_eq!(io::status(res), 200);
        assert_eq!(
            Framing::of(io::header(res, "content-type").as_deref()),
            Framing::Sse
        );
        assert_eq!(io::header(res, "mcp-session-id"), None);
    }
    sleep(20).await;
    assert_eq!(seen.borrow().len(), 1, "the body waits for read()");
    io.read(7.0);
    assert_eq!(rx.next().await, Some(report::END));
    let sizes: Vec<_> = seen
        .borrow()
        .iter()
        .filter(|(k, _, _)| *k == report::CHUNK)
        .map(|(_, _, v)| Uint8Array::from(v.clone()).length())
        .collect();
    assert_eq!(sizes, vec![6, 12, 6], "chunks arrive as sent");

    // A chunk that is neither bytes nor text; then an aborted body reports nothing more.
    let odd: Array = [JsValue::from_f64(1.0)].into_iter().collect();
    let resp = chunked_response(odd, "application/json");
    assert!(fetch_answering(&io, 8.0, &resp).is_undefined());
    assert_eq!(rx.next().await, Some(report::HEAD));
    io.read(8.0);
    assert_eq!(rx.next().await, Some(report::NOT_BYTES));
    let resp = chunked_response(chunks(&["{", "}"]), "application/json");
    assert!(fetch_answering(&io, 9.0, &resp).is_undefined());
    assert_eq!(rx.next().await, Some(report::HEAD));
    let before = seen.borrow().len();
    io.read(9.0);
    io.abort(9.0);
    sleep(30).await;
    assert_eq!(
        seen.borrow().len(),
        before,
        "an aborted request reports nothing"
    );
    io.shut();
}

/// `Retry-After` as an HTTP date goes through the host's `Date.parse` (the rest of its reading is
/// tested natively, `bridge::retry_after`).
#[wasm_bindgen_test]
fn retry_after_reads_an_http_date_with_the_hosts_parser() {
    let now = 1_700_000_000_000;
    let date = js_sys::Date::new(&JsValue::from_f64(now as f64 + 4000.0));
    let http_date: String = date.to_utc_string().into();
    let d = retry_after_ms(None, Some(&http_date), now, js_sys::Date::parse);
    assert!(matches!(d, Some(3000..=4000)), "{d:?} from {http_date}");
    let epoch = Some("Thu, 01 Jan 1970 00:00:00 GMT");
    assert_eq!(
        retry_after_ms(None, epoch, now, js_sys::Date::parse),
        Some(0)
    );
    assert_eq!(
        retry_after_ms(None, Some("Mon, 99 Foo"), now, js_sys::Date::parse),
        None
    );
}

#[wasm_bindgen_test]
async fn header_sources_fixed_and_async() {
    let obj = js_sys::JSON::parse(r#"{"Authorization":"Bearer x","X-N":3,"skip":null}"#).unwrap();
    let h = resolved(HeaderSource::from_js(&obj).unwrap())
        .await
        .unwrap();
    assert_eq!(
        h,
        vec![
            ("Authorization".into(), "Bearer x".into()),
            ("X-N".into(), "3".into())
        ]
    );
    let arr = js_sys::JSON::parse(r#"[["a","1"],["b","2"]]"#).unwrap();
    assert_eq!(
        resolved(HeaderSource::from_js(&arr).unwrap())
            .await
            .unwrap()
            .len(),
        2
    );
    assert!(HeaderSource::from_js(&JsValue::from_str("nope")).is_err());
    assert!(HeaderSource::from_js(&js_sys::JSON::parse(r#"[["a"]]"#).unwrap()).is_err());

    let f = Function::new_no_args("return Promise.resolve({ authorization: 'Bearer t' })");
    let h = resolved(HeaderSource::from_js(&f).unwrap()).await.unwrap();
    assert_eq!(h, vec![("authorization".into(), "Bearer t".into())]);
    let f = Function::new_no_args("return Promise.reject(new Error('no token'))");
    let e = resolved(HeaderSource::from_js(&f).unwrap())
        .await
        .unwrap_err();
    assert!(e.contains("no token"), "{e}");
    let f = Function::new_no_args("throw new Error('sync boom')");
    let e = resolved(HeaderSource::from_js(&f).unwrap())
        .await
        .unwrap_err();
    assert!(e.contains("sync boom"), "{e}");
}

/// The one value a callback-taking call reports, awaited.
async fn awaited<T: 'static>(start: impl FnOnce(Box<dyn FnOnce(T)>)) -> T {
    let (tx, rx) = futures::channel::oneshot::channel();
    start(Box::new(move |v| {
        let _ = tx.send(v);
    }));
    rx.await.expect("the callback ran")
}

/// Why a provider gave no headers, as text.
#[cfg(feature = "oauth")]
fn no_headers(e: mcp_task_client::driver::headers::NoHeaders) -> String {
    e.message
}

#[cfg(not(feature = "oauth"))]
fn no_headers(e: String) -> String {
    e
}

/// The headers `source` gives for one request, as name/value pairs.
async fn resolved(source: HeaderSource) -> Result<Vec<(String, String)>, String> {
    let flat = awaited(|then| source.resolve_with("POST", then))
        .await
        .map_err(no_headers)?;
    let strings: Vec<String> = flat.iter().filter_map(|s| s.as_string()).collect();
    Ok(strings
        .chunks(2)
        .map(|p| (p[0].clone(), p[1].clone()))
        .collect())
}

/// A driver started with `opts`, or why it could not start.
async fn connected(opts: DriverOptions, host: Host) -> Result<Driver, ClientError> {
    awaited(|then| Driver::connect(opts, host, then)).await
}

/// Connects a driver whose events go into a channel.
async fn driver(url: &str, transport: TransportKind) -> (Driver, mpsc::UnboundedReceiver<Event>) {
    let (tx, rx) = mpsc::unbounded();
    let host: Host = Rc::new(move |ev| {
        let _ = tx.unbounded_send(ev);
    });
    let opts = DriverOptions {
        url: url.into(),
        transport,
        config: Config::default(),
        headers: HeaderSource::None,
        websocket: None,
    };
    let d = connected(opts, host).await.expect("connects");
    (d, rx)
}

/// Runs `long_job` as a task to the end through the driver; returns the statuses seen.
async fn long_job(url: &str, transport: TransportKind) -> Vec<TaskStatus> {
    let (d, mut rx) = driver(url, transport).await;
    let args = json!({ "steps": 2, "stepMs": 100 });
    let sub = d.op(|e, now| e.call_tool(now, "long_job", args, CallOptions::default()));
    let mut statuses = Vec::new();
    let mut connected = false;
    while let Some(ev) = rx.next().await {
        match ev {
            Event::Connected { .. } => connected = true,
            Event::Status { sub: s, task } if s == sub => statuses.push(task.status),
            Event::Done { sub: s, end, .. } if s == sub => {
                let End::Finished { task, outcome } = end else {
                    panic!("ended {end:?}")
                };
                assert_eq!(task.map(|t| t.status), Some(TaskStatus::Completed));
                let Some(Outcome::Result { result }) = outcome else {
                    panic!("no result")
                };
                assert!(
                    result.to_string().contains("long_job done: 2 steps"),
                    "{result}"
                );
                break;
            }
            _ => {}
        }
    }
    assert!(connected);
    awaited(|then| d.close(Box::new(move || then(())))).await;
    assert!(d.is_closed());
    statuses
}

#[wasm_bindgen_test]
async fn driver_runs_a_task_over_streamable_http() {
    let Some(url) = option_env!("MCP_TEST_HTTP_URL") else {
        return wasm_bindgen_test::console_log!("skipped: MCP_TEST_HTTP_URL unset");
    };
    let statuses = long_job(url, TransportKind::Http).await;
    assert_eq!(statuses.first(), Some(&TaskStatus::Working));
    assert_eq!(statuses.last(), Some(&TaskStatus::Completed));
}

#[wasm_bindgen_test]
async fn driver_runs_a_task_over_websocket() {
    let Some(url) = option_env!("MCP_TEST_WS_URL") else {
        return wasm_bindgen_test::console_log!("skipped: MCP_TEST_WS_URL unset");
    };
    if global::websocket_ctor().is_none() {
        panic!("no global WebSocket: run Node with --experimental-websocket (NODE_ARGS)");
    }
    let statuses = long_job(url, TransportKind::WebSocket).await;
    assert_eq!(statuses.last(), Some(&TaskStatus::Completed));
}

#[wasm_bindgen_test]
async fn refused_connections_are_typed_errors() {
    let Some(port) = option_env!("MCP_TEST_CLOSED_PORT") else {
        return wasm_bindgen_test::console_log!("skipped: MCP_TEST_CLOSED_PORT unset");
    };
    if global::websocket_ctor().is_some() {
        let (tx, _rx) = mpsc::unbounded();
        let host: Host = Rc::new(move |ev| {
            let _ = tx.unbounded_send(ev);
        });
        let opts = DriverOptions {
            url: format!("ws://127.0.0.1:{port}/mcp"),
            transport: TransportKind::WebSocket,
            config: Config::default(),
            headers: HeaderSource::None,
            websocket: None,
        };
        let Err(e) = connected(opts, host).await else {
            panic!("a closed port accepted a WebSocket")
        };
        assert_eq!(e.kind, ErrorKind::Transport);
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    let (_core, mut heard) = open_core(&url);
    let (what, info) = heard.next().await.expect("connect settles");
    assert_eq!(what, FAILED, "nothing listens");
    let kind = Reflect::get(&info, &"kind".into()).unwrap();
    assert_eq!(kind.as_string().as_deref(), Some("transport"), "{info:?}");
}

/// `ClientCore`'s reports (see `Heard` in src/js/mod.rs): connect resolves, connect rejects.
const READY: u8 = 0;
const FAILED: u8 = 1;

/// Opens a `ClientCore` on `url` with no options, as the JS client does; its reports arrive on
/// the receiver as `(what, value)`.
fn open_core(url: &str) -> (ClientCore, mpsc::UnboundedReceiver<(u8, JsValue)>) {
    let (tx, rx) = mpsc::unbounded();
    let emit = Closure::<dyn Fn(f64, f64, JsValue)>::new(move |what: f64, _id: f64, v| {
        let _ = tx.unbounded_send((what as u8, v));
    })
    .into_js_value();
    let u = JsValue::UNDEFINED;
    // The JSON text of the URL and the (absent) options, as the JS client writes it.
    let settings = js_sys::JSON::stringify(
        &js_sys::Object::from_entries(
            &[Array::of2(&"url".into(), &url.into())]
                .iter()
                .collect::<Array>(),
        )
        .unwrap(),
    )
    .unwrap();
    let no_coord = u.clone();
    let core = ClientCore::open(
        settings.into(),
        u.clone(),
        None,
        u,
        no_coord,
        emit.unchecked_into(),
    )
    .expect("the options are fine");
    (core, rx)
}

// Declared, never used: wasm-bindgen then ships `extras.js` beside `handle.js`, which imports it, and
// the glue does not import it itself (one module fewer in the burst that loads the glue's imports).
#[wasm_bindgen(module = "/src/js/npm/extras.js")]
extern "C" {
    #[allow(dead_code)]
    type McpTaskError;
}

#[wasm_bindgen(module = "/src/js/npm/handle.js")]
extern "C" {
    /// The package's handle class, as the JS client makes one.
    #[wasm_bindgen(js_name = TaskHandle)]
    type JsTaskHandle;
    #[wasm_bindgen(constructor, js_class = TaskHandle)]
    fn new(port: &JsValue, signal: &JsValue, first: &JsValue) -> JsTaskHandle;
}

/// Calls `obj[name](...args)` and awaits the promise it returns.
async fn call(obj: &JsValue, name: &str, args: &[JsValue]) -> Result<JsValue, JsValue> {
    let f: Function = Reflect::get(obj, &name.into())?.dyn_into()?;
    let p = f.apply(obj, &args.iter().collect::<Array>())?;
    JsFuture::from(js_sys::Promise::from(p)).await
}

#[wasm_bindgen_test]
async fn js_face_calls_a_tool_and_refuses_once_closed() {
    let Some(url) = option_env!("MCP_TEST_HTTP_URL") else {
        return wasm_bindgen_test::console_log!("skipped: MCP_TEST_HTTP_URL unset");
    };
    let (core, mut heard) = open_core(url);
    loop {
        let (what, _) = heard.next().await.expect("connect settles");
        assert_ne!(what, FAILED, "connects");
        if what == READY {
            break;
        }
    }
    let u = JsValue::UNDEFINED;
    let call = || {
        let handle: JsValue = JsTaskHandle::new(&u, &u, &u).into();
        let h = handle.clone().unchecked_into();
        // `call` 1: `callTool`, its arguments and params as the JS client writes them.
        let params = JsValue::from_str(r#"{"text":"wasm"}"#);
        core.call(h, 1, r#"{"name":"quick"}"#.into(), params)
            .map(|_| handle)
    };
    let handle = call().unwrap();
    let r = self::call(&handle, "result", &[]).await.unwrap();
    let text = js_sys::JSON::stringify(&r).unwrap().as_string().unwrap();
    assert!(text.contains("quick: wasm"), "{text}");
    // A handle whose signal already aborted ends at once, its result an `McpTaskError`.
    let stopped: JsValue = JsTaskHandle::new(&u, &u, &u).into();
    let h = stopped.clone().unchecked_into();
    // `call` 2: `watch`.
    let watch = core.call(
        h,
        2,
        r#"{"name":"some-task","aborted":true}"#.into(),
        u.clone(),
    );
    assert!(matches!(watch, Ok(None)));
    let e = self::call(&stopped, "result", &[]).await.unwrap_err();
    // The package's error class, known by its name (`McpTaskError` above stays unused).
    let class = e.unchecked_ref::<js_sys::Object>().constructor().name();
    assert!(e.is_instance_of::<js_sys::Error>(), "{e:?}");
    assert_eq!(class, "McpTaskError", "{e:?}");
    let kind = |e: &JsValue| Reflect::get(e, &"kind".into()).unwrap().as_string();
    let (closed, done) = futures::channel::oneshot::channel();
    let closed = RefCell::new(Some(closed));
    let on_closed = Closure::<dyn Fn()>::new(move || {
        if let Some(tx) = closed.borrow_mut().take() {
            let _ = tx.send(());
        }
    });
    // `ask` 11: close, then call the function.
    core.ask(11, JsValue::UNDEFINED, on_closed.as_ref().clone())
        .unwrap();
    done.await.unwrap();
    // `ask` 13: `tools/list`.
    let e = core.ask(13, 1.0.into(), JsValue::UNDEFINED).unwrap_err();
    assert_eq!(kind(&e).as_deref(), Some("closed"));
    let e = call().unwrap_err();
    assert_eq!(kind(&e).as_deref(), Some("closed"));
}
