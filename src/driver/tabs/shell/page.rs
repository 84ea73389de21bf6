//! Joining the scope: the channel, the presence and leader locks, the page listeners and the
//! ticker, each feeding the tab's machine.

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Interval;
use wasm_bindgen::JsValue;

use super::{lock_base, Tab};
use crate::bridge::channel as wire;
use crate::coord::wire::TabId;
use crate::coord::Input;
use crate::driver::tabs::web::{self, Channel, Held, Listener, LockManager};
use crate::driver::{global, spawn};
use crate::json::digits::decimal;

/// Heartbeat / housekeeping period.
const TICK_MS: u32 = 1_000;

impl Tab {
    /// Opens the channel (with `locks`: coordinated), listens to the page and starts the ticker.
    pub(super) fn join(&self, locks: Option<LockManager>) {
        let weak = self.weak();
        let channel = locks.as_ref().and_then(|_| {
            let host = self.0.conf.shared.host.as_ref();
            Channel::open(host, &lock_base(&self.0.scope), move |text| {
                if let (Some(t), Some(msg)) = (weak.upgrade(), wire::decode(&text)) {
                    Tab(t).feed(Input::Message(msg));
                }
            })
        });
        let weak = self.weak();
        let ticker = Interval::new(TICK_MS, move || {
            if let Some(t) = weak.upgrade() {
                Tab(t).feed(Input::Tick);
            }
        });
        {
            let mut w = self.0.web.borrow_mut();
            w.channel = channel;
            w.locks = locks;
            w.ticker = Some(ticker);
        }
        self.listen_page();
        self.hold_presence();
    }

    fn presence_prefix(&self) -> String {
        [&lock_base(&self.0.scope), "|tab|"].concat()
    }

    /// A lock named after this tab, held for its life: the leader reads who is alive from it.
    /// One lost (a host's lease that lapsed while its store was unreachable) is asked for again.
    fn hold_presence(&self) {
        let Some(locks) = self.0.web.borrow().locks.clone() else {
            return;
        };
        let slot: Rc<RefCell<Option<Held>>> = Rc::default();
        let s2 = slot.clone();
        let id = self.0.coord.borrow().id();
        let name = [self.presence_prefix(), decimal(id)].concat();
        let weak = self.weak();
        let req = web::acquire(
            &locks,
            &name,
            false,
            Box::new(move |h| *s2.borrow_mut() = Some(h)),
            Box::new(move || {
                if let Some(t) = weak.upgrade().filter(|t| !t.coord.borrow().is_closed()) {
                    Tab(t).hold_presence();
                }
            }),
            Box::new(|| {}),
        )
        .ok();
        let mut w = self.0.web.borrow_mut();
        w.presence = Some(slot);
        w.presence_req = req;
    }

    /// Queues for the leader lock (`steal`: take it now), dropping an earlier request.
    pub(super) fn request_lock(&self, steal: bool) {
        let Some(locks) = self.0.web.borrow().locks.clone() else {
            return;
        };
        if let Some(mut old) = self.0.web.borrow_mut().leader_req.take() {
            old.abort();
        }
        let (w1, w2, w3) = (self.weak(), self.weak(), self.weak());
        let epoch = || global::random_seed() >> 11;
        let req = web::acquire(
            &locks,
            &[&lock_base(&self.0.scope), "|leader"].concat(),
            steal,
            Box::new(move |held| {
                if let Some(t) = w1.upgrade() {
                    let tab = Tab(t);
                    {
                        let mut w = tab.0.web.borrow_mut();
                        w.leader_req = None;
                        w.leader_lock = Some(held);
                    }
                    tab.feed(Input::LockGranted { epoch: epoch() });
                }
            }),
            Box::new(move || {
                if let Some(t) = w2.upgrade() {
                    Tab(t).feed(Input::LockLost);
                }
            }),
            // The lock manager refused later (an opaque origin rejects the request): lead alone.
            Box::new(move || {
                if let Some(t) = w3.upgrade() {
                    Tab(t).feed(Input::LockGranted { epoch: epoch() });
                }
            }),
        );
        match req {
            Ok(p) => self.0.web.borrow_mut().leader_req = Some(p),
            // The lock manager refused (e.g. an opaque origin): lead alone.
            Err(_) => self.feed(Input::LockGranted { epoch: epoch() }),
        }
    }

    /// Which tabs hold their presence lock: answered to the machine.
    pub(super) fn query_alive(&self) {
        let Some(locks) = self.0.web.borrow().locks.clone() else {
            return;
        };
        let me = self.clone();
        spawn(async move {
            let Ok(names) = web::held_names(&locks).await else {
                return;
            };
            let prefix = me.presence_prefix();
            let alive: Vec<TabId> = (names.iter())
                .filter_map(|n| n.strip_prefix(&prefix))
                .filter_map(|s| s.parse().ok())
                .collect();
            me.feed(Input::Alive(alive));
        });
    }

    fn listen_page(&self) {
        let mut ls = Vec::new();
        let on = |target: &JsValue, kind: &'static str, input: fn() -> Input| {
            let weak = self.weak();
            Listener::on(target, kind, move |_| {
                if let Some(t) = weak.upgrade() {
                    Tab(t).feed(input());
                }
            })
        };
        let resume = || Input::Resume {
            visible: web::page_visible(),
        };
        if let Some(d) = &web::document() {
            ls.extend(on(d, "visibilitychange", || {
                Input::Visibility(web::page_visible())
            }));
            ls.extend(on(d, "freeze", || Input::Freeze));
            ls.extend(on(d, "resume", resume));
        }
        let g = web::global();
        ls.extend(on(&g, "online", || Input::Online));
        ls.extend(on(&g, "pagehide", || Input::PageHide));
        ls.extend(on(&g, "pageshow", resume));
        self.0.web.borrow_mut().listeners = ls;
    }
}
