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
use super::{auth_option, codes, from_js, invalid, to_js, ClientInner, Run};
use crate::bridge::era::EraKey;
use crate::bridge::settings;
use crate::driver::tabs::{Link, Requestor, SharedOptions};
use crate::driver::{era, link};
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
        let settings = from_js(&settings).unwrap_or_default();
        let mut s = settings::read(&settings, link::seen, link::stored).map_err(invalid)?;
        let url = std::mem::take(&mut s.url);
        let headers = HeaderSource::from_js(&headers).map_err(invalid)?;
        let headers =
            auth_option::read(&auth, &url, &s.config.client_name, headers).map_err(invalid)?;
        s.config.renews_credentials = headers.renews_credentials();
        let identity = s.shared.as_ref().and_then(|s| s.identity.as_deref());
        let era = (s.config.dialect == DialectChoice::Auto).then(|| EraKey::new(&url, identity));
        s.config.known_era = era.as_ref().and_then(era::recall);
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
        #[cfg(not(feature = "tabs"))]
        let _ = coord;
        let shared = s.shared.map(|sharing| SharedOptions {
            sharing,
            #[cfg(feature = "tabs")]
            host: coord.is_object().then_some(coord),
        });
        let linked = inner.clone();
        Link::connect(
            opts,
            shared,
            host,
            Box::new(move |link| match link {
                Ok(link) => linked.linked(link),
                Err(e) => linked.connect_failed(|| e.into()),
            }),
        );
        Ok(ClientCore { inner })
    }

    /// `request` (`what` `REQUEST`) or `callTool` (`TOOL`), or `watch` (`WATCH`). `args` is the JSON text of the
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
        if what == codes::WATCH {
            if settings::flag(&args, "aborted") == Some(true) {
                // Ends at once, without involving the engine.
                handle::finish(&handle, Some(name), End::Aborted, None);
                return Ok(None);
            }
            let id = name.clone();
            let watch = Box::new(move |e: &mut dyn Requestor, now| e.watch(now, &id));
            return self.inner.start(handle, Some(name), watch).map(Some);
        }
        let tool = what == codes::TOOL;
        let params = from_js(&params).unwrap_or_default();
        let options = settings::call_options(&args);
        let start = Box::new(move |e: &mut dyn Requestor, now| match tool {
            true => e.call_tool(now, &name, params, options),
            false => e.request(now, &name, params, options),
        });
        self.inner.start(handle, None, start).map(Some)
    }

    /// What the JS client and its handles read, tell or start (one export for all: each export is
    /// a shim in the wasm and a method in the glue): `what` (one of [`codes::ASKS`]) `SUB_ID` to
    /// `STORAGE` reads ([`read`](Self::read)), `ABANDON` to `CLOSE` tells ([`tell`](Self::tell)),
    /// `LIST_TASKS` to `DELETE` starts a one-shot operation ([`op`](Self::op)), `RESUME` and
    /// `FORGET` ask for the stored tasks ([`stored`](Self::stored), `of` the task id); what cannot
    /// start throws an `ErrorInfo`. `of` is a number (a subscription, input request or operation
    /// key) but for `FORGET`.
    #[wasm_bindgen(skip_typescript)]
    pub fn ask(&self, what: u8, of: JsValue, value: JsValue) -> Result<JsValue, JsValue> {
        let id = of.as_f64().unwrap_or(-1.0);
        match what {
            codes::SUB_ID..=codes::STORAGE => Ok(self.read(what, id, value)),
            codes::ABANDON..=codes::CLOSE => {
                self.tell(what, id, value);
                Ok(JsValue::UNDEFINED)
            }
            codes::LIST_TASKS..=codes::DELETE => {
                self.op(what, id, value.as_string())?;
                Ok(JsValue::UNDEFINED)
            }
            _ => {
                let then = value.unchecked_into();
                let forget = (what == codes::FORGET).then(|| of.as_string().unwrap_or_default());
                self.stored(forget, then)?;
                Ok(JsValue::UNDEFINED)
            }
        }
    }
}

impl ClientCore {
    /// What [`ask`](Self::ask) reads, `null` where there is nothing: `SUB_ID` subscription `id`'s
    /// task id (set once the server made a task), `SUB_STATUS` its last status, `SUB_TASK` its
    /// last snapshot, `TRACKED` the client's latest snapshot of task `value` (if it tracks it),
    /// `DIALECT` the dialect the session speaks (once known), `ROLE` the role (`"solo"`,
    /// `"leader"`, `"follower"` or `"electing"`), `STORAGE` the storage (`"redis"`,
    /// `"indexedDB"`, `"localStorage"`, `"memory"`; none without `persist`).
    fn read(&self, what: u8, id: f64, value: JsValue) -> JsValue {
        let inner = &self.inner;
        let read = match what {
            codes::SUB_ID..=codes::SUB_TASK => return inner.read_sub(id, what),
            codes::TRACKED => {
                let id = value.as_string().unwrap_or_default();
                let t = inner.driver().and_then(|d| d.read(|e| e.task(&id)));
                t.map(|t| to_js(&t))
            }
            codes::DIALECT => {
                let d = inner.driver().and_then(|d| d.read(|e| e.dialect()));
                d.map(|d| d.name().into())
            }
            codes::ROLE => Some(JsValue::from_str(
                inner.driver().map_or("solo", |l| l.role()),
            )),
            _ => inner
                .driver()
                .and_then(|l| l.storage())
                .map(JsValue::from_str),
        };
        read.unwrap_or(JsValue::NULL)
    }

    /// What the JS client tells through [`ask`](Self::ask): `ABANDON` `connect`'s signal aborted:
    /// it fails (once), and what was opened closes; `STOP` stop waiting on subscription `id`: it
    /// ends `aborted` (nothing is sent); `RESOLVED` or `REJECTED` the answer to input request `id`:
    /// how the `onInput` handler's result settled (resolved with `value`, or rejected with or
    /// threw `value`); `CLOSE`: every subscription and the session end, the transport closes, then
    /// the function `value` is called.
    fn tell(&self, what: u8, id: f64, value: JsValue) {
        let inner = &self.inner;
        match what {
            codes::ABANDON => {
                let why = || ErrorInfo::new(ErrorKind::Aborted, "connect was aborted");
                inner.connect_failed(why);
            }
            codes::STOP => inner.stop(id),
            codes::RESOLVED => inner.answered(InputId(id as u64), super::handled(Ok(value))),
            codes::REJECTED => inner.answered(InputId(id as u64), super::handled(Err(value))),
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
    /// under `key`: `LIST_TASKS` `tasks/list` (`arg`: the cursor), `LIST_TOOLS` `tools/list`,
    /// `CANCEL` cancel task `arg`, `DELETE` delete task `arg`.
    fn op(&self, what: u8, key: f64, arg: Option<String>) -> Result<(), JsValue> {
        let run: Run<OpId> = match what {
            codes::LIST_TASKS => Box::new(move |e, now| e.list_tasks(now, arg.as_deref())),
            codes::LIST_TOOLS => Box::new(|e, now| e.list_tools(now)),
            codes::CANCEL => {
                Box::new(move |e, now| e.cancel(now, arg.as_deref().unwrap_or_default()))
            }
            _ => Box::new(move |e, now| e.delete_task(now, arg.as_deref().unwrap_or_default())),
        };
        self.inner.one_shot(key, run)
    }
}

/// What a closed client's operations throw.
pub(super) fn closed() -> JsValue {
    to_js(&ErrorInfo::new(ErrorKind::Closed, "the client is closed"))
}
