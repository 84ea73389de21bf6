//! Joining the scope: the channel, the presence and leader locks, the page listeners and the
//! ticker.

use std::cell::RefCell;
use std::rc::Rc;

use gloo_timers::callback::Interval;
use wasm_bindgen::JsValue;

use super::{lock_base, Tab};
use crate::driver::tabs::web::{self, Channel, Held, Listener};
use crate::driver::tabs::wire::Msg;

/// Heartbeat / housekeeping period.
const TICK_MS: u32 = 1_000;

impl Tab {
    pub(super) fn join(&self) {
        let coordinated = self.0.conf.shared.coordinate;
        let locks = web::lock_manager().filter(|_| coordinated);
        let weak = self.weak();
        let channel = locks.as_ref().and_then(|_| {
            Channel::open(&lock_base(&self.0.scope), move |text| {
                if let (Some(t), Some(msg)) =
                    (weak.upgrade(), crate::driver::tabs::wire::decode(&text))
                {
                    Tab(t).on_message(msg);
                }
            })
        });
        self.listen_page();
        let weak = self.weak();
        let ticker = Interval::new(TICK_MS, move || {
            if let Some(t) = weak.upgrade() {
                Tab(t).on_tick();
            }
        });
        let coordinated = channel.is_some() && locks.is_some();
        {
            let mut w = self.0.web.borrow_mut();
            w.channel = channel;
            w.locks = locks.filter(|_| coordinated);
            w.ticker = Some(ticker);
        }
        if !coordinated {
            return self.become_leader(None);
        }
        self.hold_presence();
        self.request_leadership(false);
        let visible = self.0.st.borrow().visible;
        self.post(&Msg::Hello {
            from: self.0.id,
            visible,
        });
    }

    /// A lock named after this tab, held for its life: the leader reads who is alive from it.
    fn hold_presence(&self) {
        let Some(locks) = self.0.web.borrow().locks.clone() else {
            return;
        };
        let slot: Rc<RefCell<Option<Held>>> = Rc::default();
        let s2 = slot.clone();
        let name = Self::presence_name(&self.0.scope, self.0.id);
        let req = web::acquire(
            &locks,
            &name,
            false,
            move |h| *s2.borrow_mut() = Some(h),
            || {},
            || {},
        )
        .ok();
        let mut w = self.0.web.borrow_mut();
        w.presence = Some(slot);
        w.presence_req = req;
    }

    /// Queues for the leader lock (`steal`: take it now).
    pub(super) fn request_leadership(&self, steal: bool) {
        let Some(locks) = self.0.web.borrow().locks.clone() else {
            return;
        };
        if let Some(mut old) = self.0.web.borrow_mut().leader_req.take() {
            old.abort();
        }
        let (w1, w2, w3) = (self.weak(), self.weak(), self.weak());
        let req = web::acquire(
            &locks,
            &self.lock_name(),
            steal,
            move |held| {
                if let Some(t) = w1.upgrade() {
                    let tab = Tab(t);
                    tab.0.web.borrow_mut().leader_req = None;
                    tab.become_leader(Some(held));
                }
            },
            move || {
                if let Some(t) = w2.upgrade() {
                    Tab(t).on_lock_lost();
                }
            },
            // The lock manager refused later (an opaque origin rejects the request): lead alone.
            move || {
                if let Some(t) = w3.upgrade() {
                    Tab(t).become_leader(None);
                }
            },
        );
        match req {
            Ok(p) => self.0.web.borrow_mut().leader_req = Some(p),
            // The lock manager refused (e.g. an opaque origin): lead alone.
            Err(_) => self.become_leader(None),
        }
    }

    fn listen_page(&self) {
        let mut ls = Vec::new();
        let doc = web::document();
        let g = web::global();
        let on = |target: &JsValue, kind: &'static str, f: fn(&Tab)| {
            let weak = self.weak();
            Listener::on(target, kind, move |_| {
                if let Some(t) = weak.upgrade() {
                    f(&Tab(t));
                }
            })
        };
        if let Some(d) = &doc {
            ls.extend(on(d, "visibilitychange", |t| {
                t.on_visibility(web::page_visible())
            }));
            ls.extend(on(d, "freeze", Tab::on_freeze));
            ls.extend(on(d, "resume", Tab::on_resume));
        }
        ls.extend(on(&g, "online", Tab::on_online));
        ls.extend(on(&g, "pagehide", Tab::on_pagehide));
        ls.extend(on(&g, "pageshow", Tab::on_resume));
        self.0.web.borrow_mut().listeners = ls;
    }
}
