//! `ClientCore`: what the package's JS `McpTaskClient` (`npm/client.js`) calls. The JS class
//! checks the caller's arguments and types and owns the callbacks and promises; these methods take
//! checked values (plain, or the JSON text of several) and hand the work to the client's state
//! ([`ClientInner`]). What fails
//! throws an `ErrorInfo` (the JS client makes the `McpTaskError`). Not part of the public API.

use std::rc::Rc;

use js_sys::Function;
use wasm_bindgen::prelude::*;

use super::handle::{self, TaskHandle};
use super::types::{ErrorInfo, ErrorKind};
use super::{from_js, invalid, settings, to_js, ClientInner, Run};
use crate::driver::era::{self, EraKey};
use crate::driver::tabs::{Link, Requestor};
use crate::driver::{DriverOptions, HeaderSource, Host};
use crate::engine::api::{DialectChoice, End, InputId, OpId};

/// One connected (or connecting) client, held by its JS `McpTaskClient`.
#[wasm_bindgen(skip_typescript)]
pub struct ClientCore {
    pub(super) inner: Rc<ClientInner>,
}

#[wasm_bindgen]
impl ClientCore {
    /// Starts connecting with `settings` (the JSON text of the URL and the plain options, checked
    /// by the caller, see [`settings::read`]), the `headers`, `WebSocket` and `auth` options as
    /// given, `coord` (with `persist`: the coordination host standing in for the browser's
    /// locks, channel and storage, or `undefined`) and `emit`, which hears everything the JS
    /// client must act on (see [`super::Heard`]). Throws the `ErrorInfo` of an option that
    /// cannot be used.
    #[wasm_bindgen(skip_typescript)]
    pub fn open(
        settings: JsValue,
        headers: JsValue,
        websocket: Option<Function>,
        auth: JsValue,
        coord: JsValue,
        emit: super::Emit,
    ) -> Result<ClientCore, JsValue> {
        let mut s = settings::read(&from_js(&settings).unwrap_or_default()).map_err(invalid)?;
        #[cfg(feature = "tabs")]
        if let Some(shared) = s.shared.as_mut() {
            shared.host = coord.is_object().then_some(coord);
        }
        #[cfg(not(feature = "tabs"))]
        let _ = coord;
        let url = std::mem::take(&mut s.url);
        let headers = HeaderSource::from_js(&headers).map_err(invalid)?;
        let headers =
            settings::auth(&auth, &url, &s.config.client_name, headers).map_err(invalid)?;
        let identity = s.shared.as_ref().and_then(|s| s.identity.as_deref());
        let era = (s.config.dialect == DialectChoice::Auto).then(|| EraKey::new(&url, identity));
        s.config.known_era = era.as_ref().and_then(EraKey::recall);
        let inner = ClientInner::new(emit, s.answers_input, era);
        // The driver holds the client strongly until `close()` (like an open socket does).
        let me = inner.clone();
        let host: Host = Rc::new(move |ev| me.on_event(ev));
        let opts = DriverOptions {
            url,
            transport: s.transport,
            config: s.config,
            headers,
            websocket,
        };
        let linked = inner.clone();
        Link::connect(
            opts,
            s.shared,
            host,
            Box::new(move |link| match link {
                Ok(link) => linked.linked(link),
                Err(e) => linked.connect_failed(|| e.into()),
            }),
        );
        Ok(ClientCore { inner })
    }

    /// `request` (`what` 0) or `callTool` (1), or `watch` (2). `args` is the JSON text of the
    /// checked arguments: `name` (the method, tool or task id) and a call's options (see
    /// [`settings::call_options`]) or whether a watch's signal already `aborted`; `params` the
    /// JSON text of a call's params (an object). `handle` (made by the JS client) hears the
    /// subscription; returns its id. A call throws an `ErrorInfo` when nothing starts; a watch
    /// whose signal already aborted has no id (the handle has ended). One export for the three:
    /// each export is a shim in the wasm and a method in the glue.
    #[wasm_bindgen(skip_typescript)]
    pub fn call(
        &self,
        handle: TaskHandle,
        what: u8,
        args: JsValue,
        params: JsValue,
    ) -> Result<Option<f64>, JsValue> {
        let args = from_js(&args).unwrap_or_default();
        let name = settings::string(&args, "name")
            .unwrap_or_default()
            .to_owned();
        if what == 2 {
            if settings::flag(&args, "aborted") == Some(true) {
                // Ends at once, without involving the engine.
                handle::finish(&handle, Some(name), End::Aborted, None);
                return Ok(None);
            }
            let id = name.clone();
            let watch = Box::new(move |e: &mut dyn Requestor, now| e.watch(now, &id));
            return self.inner.start(handle, Some(name), watch).map(Some);
        }
        let tool = what == 1;
        let params = from_js(&params).unwrap_or_default();
        let options = settings::call_options(&args);
        let start = Box::new(move |e: &mut dyn Requestor, now| match tool {
            true => e.call_tool(now, &name, params, options),
            false => e.request(now, &name, params, options),
        });
        self.inner.start(handle, None, start).map(Some)
    }

    /// What the JS client and its handles read, tell or start (one export for all: each export is
    /// a shim in the wasm and a method in the glue): `what` (the numbers are spelled again in
    /// `npm/client.js`) 0 to 6 reads ([`read`](Self::read)), 7 to 11 tells
    /// ([`tell`](Self::tell)), 12 to 15 starts a one-shot operation ([`op`](Self::op)), 16 and 17
    /// ask for the stored tasks ([`stored`](Self::stored), `of` the task id); what cannot start
    /// throws an `ErrorInfo`. `of` is a number (a subscription, input request or operation key)
    /// but for 17.
    #[wasm_bindgen(skip_typescript)]
    pub fn ask(&self, what: u8, of: JsValue, value: JsValue) -> Result<JsValue, JsValue> {
        let id = of.as_f64().unwrap_or(-1.0);
        match what {
            0..=6 => Ok(self.read(what, id, value)),
            7..=11 => {
                self.tell(what, id, value);
                Ok(JsValue::UNDEFINED)
            }
            12..=15 => {
                self.op(what, id, value.as_string())?;
                Ok(JsValue::UNDEFINED)
            }
            _ => {
                let then = value.unchecked_into();
                let forget = (what == 17).then(|| of.as_string().unwrap_or_default());
                self.stored(forget, then)?;
                Ok(JsValue::UNDEFINED)
            }
        }
    }
}

impl ClientCore {
    /// What [`ask`](Self::ask) reads, `null` where there is nothing: `what` 0 subscription `id`'s
    /// task id (set once the server made a task), 1 its last status, 2 its last snapshot, 3 the
    /// client's latest snapshot of task `value` (if it tracks it), 4 the dialect the session
    /// speaks (once known), 5 the role (`"solo"`, `"leader"`, `"follower"` or `"electing"`), 6 the
    /// storage (`"redis"`, `"indexedDB"`, `"localStorage"`, `"memory"`; none without `persist`).
    fn read(&self, what: u8, id: f64, value: JsValue) -> JsValue {
        let inner = &self.inner;
        let read = match what {
            0..=2 => return inner.read_sub(id, what),
            3 => {
                let id = value.as_string().unwrap_or_default();
                let t = inner.driver().and_then(|d| d.read(|e| e.task(&id)));
                t.map(|t| to_js(&t))
            }
            4 => {
                let d = inner.driver().and_then(|d| d.read(|e| e.dialect()));
                d.map(|d| era::name(d).into())
            }
            5 => Some(JsValue::from_str(
                inner.driver().map_or("solo", |l| l.role()),
            )),
            _ => inner
                .driver()
                .and_then(|l| l.storage())
                .map(JsValue::from_str),
        };
        read.unwrap_or(JsValue::NULL)
    }

    /// What the JS client tells through [`ask`](Self::ask): 7 `connect`'s signal aborted: it fails
    /// (once), and what was opened closes; 8 stop waiting on subscription `id`: it ends `aborted`
    /// (nothing is sent); 9 or 10 the answer to input request `id`: how the `onInput` handler's
    /// result settled (9 resolved with `value`, 10 rejected with or threw `value`); 11 close: every
    /// subscription and the session end, the transport closes, then the function `value` is
    /// called.
    fn tell(&self, what: u8, id: f64, value: JsValue) {
        let inner = &self.inner;
        match what {
            7 => {
                let why = || ErrorInfo::new(ErrorKind::Aborted, "connect was aborted");
                inner.connect_failed(why);
            }
            8 => inner.stop(id),
            9 => inner.answered(InputId(id as u64), super::handled(Ok(value))),
            10 => inner.answered(InputId(id as u64), super::handled(Err(value))),
            _ => {
                let me = inner.clone();
                let closed: Function = value.unchecked_into();
                inner.shut(Box::new(move || {
                    me.hush();
                    let _ = closed.call0(&JsValue::UNDEFINED);
                }));
            }
        }
    }

    /// Starts, through [`ask`](Self::ask), one-shot operation `what` with `arg`; its reply comes
    /// under `key`: 12 `tasks/list` (`arg`: the cursor), 13 `tools/list`, 14 cancel task `arg`,
    /// 15 delete task `arg`.
    fn op(&self, what: u8, key: f64, arg: Option<String>) -> Result<(), JsValue> {
        let run: Run<OpId> = match what {
            12 => Box::new(move |e, now| e.list_tasks(now, arg.as_deref())),
            13 => Box::new(|e, now| e.list_tools(now)),
            14 => Box::new(move |e, now| e.cancel(now, arg.as_deref().unwrap_or_default())),
            _ => Box::new(move |e, now| e.delete_task(now, arg.as_deref().unwrap_or_default())),
        };
        self.inner.one_shot(key, run)
    }
}

/// What a closed client's operations throw.
pub(super) fn closed() -> JsValue {
    to_js(&ErrorInfo::new(ErrorKind::Closed, "the client is closed"))
}
