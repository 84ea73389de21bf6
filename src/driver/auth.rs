//! The `auth` option's shell: runs [`Flow`]s and refreshes for the engine's requests — fetches,
//! random values and SHA-256 from Web Crypto, the host's `openAuthorization` for the user's visit,
//! and the host's `store` for the grant. One renewal at a time: requests refused meanwhile wait
//! for it. Tokens never leave this module except as the `Authorization` header and to the store.

use std::cell::RefCell;
use std::rc::Rc;

use std::future::Future;

use super::oneshot;
use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::dpop::Dpop;
use super::global::{self, describe};
use super::io;
use super::spent::{self, Spent};
use super::webcrypto::{sha256, sign_es256};
use crate::auth::dpop::{key_name, resource_nonce, token_nonce};
use crate::auth::renewal::{renewal, Held, Renewal};
use crate::auth::shared::{after_failed_refresh, lock_name, on_lock, rotated, Turn};
use crate::auth::url::base64;
use crate::auth::{AuthConfig, Flow, Grant, HttpRequest, HttpResponse, Secrets, Step};
use crate::protocol::auth::AuthChallenge;

/// Largest metadata or token answer read (bytes).
const MAX_ANSWER: usize = 1 << 20;
/// Most steps one flow may take (discovery tries at most a handful of locations).
const MAX_STEPS: usize = 16;

/// The host's side of authorization: configuration, `openAuthorization`, the optional store.
pub struct AuthShell {
    cfg: AuthConfig,
    /// `openAuthorization` (`None`: a machine client, which never shows a page).
    open: Option<Function>,
    store: Option<JsValue>,
    /// The client's private key (`private_key_jwt`): a Web Crypto `CryptoKey` or a private JWK.
    key: Option<JsValue>,
    /// With `dpop: true`: the DPoP key and nonces.
    dpop: Option<Dpop>,
    st: RefCell<ShellState>,
}

#[derive(Default)]
struct ShellState {
    grant: Option<Grant>,
    /// The current access token's lifetime (ms), to refresh short-lived tokens early enough.
    lifetime: Option<u64>,
    /// The grant came from a new authorization and no request sent with it was refused yet.
    fresh: bool,
    /// The store has been read once.
    loaded: bool,
    /// While a renewal runs: who waits for it to end.
    renewal: Option<Vec<oneshot::Sender<()>>>,
    /// Why the last authorization failed, reported once to the request waiting for it.
    failure: Option<String>,
}

impl std::fmt::Debug for AuthShell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthShell")
            .field("server", &self.cfg.server_url)
            .finish_non_exhaustive()
    }
}

impl AuthShell {
    pub fn new(
        cfg: AuthConfig,
        open: Option<Function>,
        store: Option<JsValue>,
        key: Option<JsValue>,
    ) -> Rc<Self> {
        // A persisted grant's key is persisted too: the tabs and reloads that use the grant need it.
        let dpop = cfg.dpop.then(|| {
            let persisted = store.is_some().then(|| key_name(&cfg.server_url));
            Dpop::new(persisted)
        });
        Rc::new(Self {
            open,
            store,
            key,
            dpop,
            cfg,
            st: RefCell::new(ShellState::default()),
        })
    }

    /// The `Authorization` value for the next `method` request (refreshed first when about to
    /// expire) with, for a DPoP-bound token, its proof; an error once after a failed authorization.
    pub async fn header(
        self: &Rc<Self>,
        method: &str,
    ) -> Result<Option<(String, Option<String>)>, String> {
        self.settle().await;
        if let Some(why) = self.st.borrow_mut().failure.take() {
            return Err(why);
        }
        self.load().await;
        let now = global::now();
        let due = self.with(|s| {
            s.grant
                .as_ref()
                .is_some_and(|g| g.needs_refresh(now, s.lifetime))
        });
        if due {
            // A failed refresh keeps the old token: the server's 401 starts a new authorization.
            let _ = self.exclusive(self.refresh()).await;
        }
        let Some((authorization, token)) = self.with(|s| {
            let g = s.grant.as_ref()?;
            Some((g.authorization(), g.dpop.then(|| g.access_token.clone())))
        }) else {
            return Ok(None);
        };
        let proof = match (&self.dpop, token) {
            (Some(d), Some(t)) => Some(d.proof(method, &self.cfg.server_url, Some(&t)).await?),
            _ => None,
        };
        Ok(Some((authorization, proof)))
    }

    /// A request sent with `used` (its `Authorization` value) was refused with `status`: renews
    /// the grant when [`renewal`] says so (unless a renewal just ran); a DPoP nonce the server
    /// asks for is only kept for the request's resend.
    pub async fn challenged(
        self: &Rc<Self>,
        status: u16,
        www_authenticate: Option<&str>,
        dpop_nonce: Option<&str>,
        used: Option<&str>,
    ) {
        if let (Some(d), Some(n)) = (
            &self.dpop,
            resource_nonce(status, www_authenticate, dpop_nonce),
        ) {
            d.resource_nonce(n);
            return;
        }
        if (status != 401 && status != 403) || self.settle().await {
            return;
        }
        self.load().await;
        let c = AuthChallenge::from_header(www_authenticate);
        let todo = self.with(|s| {
            let authorization = s.grant.as_ref().map(Grant::authorization);
            let held = Held {
                authorization: authorization.as_deref(),
                scope: s.grant.as_ref().and_then(|g| g.scope.as_deref()),
                fresh: s.fresh,
            };
            let todo = renewal(status, &c, used, held);
            if status == 401 && authorization.is_some() && authorization.as_deref() == used {
                s.fresh = false;
            }
            todo
        });
        let _ = match todo {
            Renewal::Nothing => return,
            Renewal::Reauthorize { scope } => self.exclusive(self.renew(true, c, scope)).await,
            Renewal::StepUp { scope } => self.exclusive(self.renew(false, c, scope)).await,
        };
    }

    fn with<T>(&self, f: impl FnOnce(&mut ShellState) -> T) -> T {
        f(&mut self.st.borrow_mut())
    }

    /// Waits for a renewal in progress; whether there was one.
    async fn settle(&self) -> bool {
        let wait = self.with(|s| {
            s.renewal.as_mut().map(|waiters| {
                let (tx, rx) = oneshot::channel();
                waiters.push(tx);
                rx
            })
        });
        match wait {
            Some(rx) => {
                let _ = rx.await;
                true
            }
            None => false,
        }
    }

    /// Runs `work` as the one renewal; when one is running, waits for it instead.
    async fn exclusive(
        &self,
        work: impl Future<Output = Result<(), String>>,
    ) -> Result<(), String> {
        if self.settle().await {
            return Ok(());
        }
        self.with(|s| s.renewal = Some(Vec::new()));
        let _done = Release(self);
        work.await
    }

    /// A refresh first when `refresh` (and possible), else a new authorization for `scope`.
    async fn renew(
        self: &Rc<Self>,
        refresh: bool,
        c: AuthChallenge,
        scope: Option<String>,
    ) -> Result<(), String> {
        if refresh && self.refresh().await.is_ok() {
            return Ok(());
        }
        let out = self
            .authorize(c.resource_metadata.as_deref(), scope.as_deref())
            .await;
        if let Err(why) = &out {
            self.with(|s| s.failure = Some(why.clone()));
        }
        out
    }

    /// Refreshes the grant, one client at a time across the tabs sharing the store (under a Web
    /// Lock where the host has them; without, as if alone): the decision is [`on_lock`]'s.
    async fn refresh(self: &Rc<Self>) -> Result<(), String> {
        let Some(held) = self.with(|s| s.grant.clone()) else {
            return Err("nothing to refresh".into());
        };
        #[cfg(feature = "tabs")]
        if let Some(locks) = self
            .store
            .as_ref()
            .and_then(|_| super::tabs::web::lock_manager(None))
        {
            let name = lock_name(&held);
            let (me, mine, ledger) = (self.clone(), held.clone(), name.clone());
            let work = async move {
                let spent = Spent::open(ledger).await;
                me.refresh_held(mine, spent.as_ref()).await
            };
            // A refused lock (an opaque origin) never ran `work`: refresh as if alone.
            if let Ok(out) = super::tabs::web::with_lock(&locks, &name, work).await {
                return out;
            }
        }
        self.refresh_held(held, None).await
    }

    /// Refreshes `held` unless the store holds a newer grant; a refresh refused because another
    /// client refreshed first takes that client's grant. Under the lock, a rotated refresh token
    /// is recorded as `spent` once the new grant is stored.
    async fn refresh_held(&self, held: Grant, spent: Option<&Spent>) -> Result<(), String> {
        let g = match self.turn(&held, spent).await? {
            Turn::Adopt(g) => {
                self.take(g);
                return Ok(());
            }
            Turn::Refresh(g) => g,
        };
        let req = g.refresh_request().ok_or("no refresh token")?;
        let resp = self.send(&req).await;
        match g.refreshed(&resp, global::now(), self.dpop.is_some()) {
            Ok(new) => {
                self.adopt(new.clone()).await;
                if let (Some(s), Some(t)) = (spent, rotated(&g, &new)) {
                    s.record(t).await;
                }
                Ok(())
            }
            Err(e) => {
                let stored = self.read_store().await;
                match after_failed_refresh(&g, stored, global::now()) {
                    Some(g) => {
                        self.take(g);
                        Ok(())
                    }
                    None => Err(e.message),
                }
            }
        }
    }

    /// [`on_lock`]'s turn with what the store holds; while the refresh token it would spend is in
    /// the `spent` ledger, the store has not shown its successor yet: read again, a bounded time.
    async fn turn(&self, held: &Grant, spent: Option<&Spent>) -> Result<Turn, String> {
        for _ in 0..spent::READS {
            let turn = on_lock(held, self.read_store().await, global::now());
            let spending = match &turn {
                Turn::Refresh(g) => g.refresh_token.as_deref(),
                Turn::Adopt(_) => None,
            };
            match (spent, spending) {
                (Some(s), Some(t)) if s.has(t).await => s.pause().await,
                _ => return Ok(turn),
            }
        }
        Err("the stored grant still holds a refresh token already spent".into())
    }

    /// Runs one authorization flow to its end.
    async fn authorize(
        &self,
        resource_metadata: Option<&str>,
        scope: Option<&str>,
    ) -> Result<(), String> {
        let fail = |m: String| ["authorization failed: ", &m].concat();
        let secrets = secrets().await.map_err(fail)?;
        let (mut flow, mut step) = Flow::start(self.cfg.clone(), secrets, resource_metadata, scope);
        for _ in 0..MAX_STEPS {
            step = match step {
                Step::Fetch(req) => flow.on_response(self.send(&req).await, global::now()),
                Step::Authorize(url) => {
                    let back = self.visit(&url).await.map_err(fail)?;
                    flow.on_callback(&back)
                }
                Step::Sign(input) => {
                    let key = self.key.as_ref().ok_or("no private key")?;
                    let signature = sign_es256(key, input.as_bytes()).await.map_err(fail)?;
                    flow.on_signature(&signature)
                }
                Step::Done(g) => {
                    self.adopt(*g).await;
                    self.with(|s| s.fresh = true);
                    return Ok(());
                }
                Step::Failed(e) => return Err(fail(e.message)),
            };
        }
        Err(fail("too many steps".into()))
    }

    /// One request for the flow or a refresh. With DPoP, a token request carries a proof and is
    /// sent once more with the nonce the authorization server asks for.
    async fn send(&self, req: &HttpRequest) -> HttpResponse {
        let Some(dpop) = self.dpop.as_ref().filter(|_| req.token) else {
            return http(req).await.0;
        };
        let mut last = HttpResponse {
            status: 0,
            body: String::new(),
        };
        for resend in [false, true] {
            let mut req = req.clone();
            match dpop.proof("POST", &req.url, None).await {
                Ok(proof) => req.headers.push(("dpop".into(), proof)),
                Err(why) => {
                    last.body = why;
                    return last;
                }
            }
            let (resp, nonce) = http(&req).await;
            match token_nonce(&resp, nonce.as_deref()) {
                Some(n) if !resend => dpop.token_nonce(n),
                _ => return resp,
            }
            last = resp;
        }
        last
    }

    /// Sends the user to `url` through the host; the URL they came back on.
    async fn visit(&self, url: &str) -> Result<String, String> {
        let open = self.open.as_ref().ok_or("no openAuthorization")?;
        let v = open
            .call1(&JsValue::UNDEFINED, &JsValue::from_str(url))
            .map_err(|e| ["openAuthorization threw: ", &describe(&e)].concat())?;
        let v = JsFuture::from(Promise::resolve(&v))
            .await
            .map_err(|e| ["openAuthorization rejected: ", &describe(&e)].concat())?;
        v.as_string()
            .or_else(|| {
                Reflect::get(&v, &"href".into())
                    .ok()
                    .and_then(|h| h.as_string())
            })
            .ok_or_else(|| "openAuthorization must resolve to the callback URL".into())
    }

    /// Uses `g` and stores it.
    async fn adopt(&self, g: Grant) {
        self.take(g.clone());
        self.write_store(&g).await;
    }

    /// Uses `g` (its lifetime, unknown for a grant read back, taken as what is left of it).
    fn take(&self, g: Grant) {
        let now = global::now();
        self.with(|s| {
            s.lifetime = g.expires_at.map(|t| t.saturating_sub(now));
            s.grant = Some(g);
            s.fresh = false;
        });
    }

    /// Reads the store once, at first use.
    async fn load(&self) {
        if self.with(|s| std::mem::replace(&mut s.loaded, true)) {
            return;
        }
        match self.read_store().await {
            Some(g) if self.with(|s| s.grant.is_none()) => self.take(g),
            _ => {}
        }
    }

    async fn read_store(&self) -> Option<Grant> {
        let v = self.call_store("load", None).await.ok()?;
        let text = js_sys::JSON::stringify(&v).ok()?.as_string()?;
        Grant::from_json(&text)
    }

    async fn write_store(&self, g: &Grant) {
        let v = crate::json::parse_written(&crate::protocol::text(&g.to_json()));
        let _ = self.call_store("save", Some(v)).await;
    }

    async fn call_store(&self, method: &str, arg: Option<JsValue>) -> Result<JsValue, JsValue> {
        let Some(store) = &self.store else {
            return Ok(JsValue::UNDEFINED);
        };
        let f: Function = Reflect::get(store, &method.into())?.dyn_into()?;
        let v = f.call1(store, &arg.unwrap_or(JsValue::UNDEFINED))?;
        JsFuture::from(Promise::resolve(&v)).await
    }
}

/// Ends the renewal (also when its future is dropped) and wakes who waits for it.
struct Release<'a>(&'a AuthShell);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        for waiter in self.0.with(|s| s.renewal.take()).unwrap_or_default() {
            waiter.send(());
        }
    }
}

/// One request for the flow, with the answer's `DPoP-Nonce`; a network failure or an oversized
/// answer is status 0.
async fn http(req: &HttpRequest) -> (HttpResponse, Option<String>) {
    let failed = HttpResponse {
        status: 0,
        body: String::new(),
    };
    let Ok(resp) = fetch(req).await else {
        return (failed, None);
    };
    let status = Reflect::get(&resp, &"status".into())
        .ok()
        .and_then(|s| s.as_f64())
        .map_or(0, |s| s as u16);
    let text = Reflect::get(&resp, &"text".into())
        .and_then(|f| f.dyn_into::<Function>())
        .and_then(|f| f.call0(&resp))
        .map(|p| JsFuture::from(Promise::resolve(&p)));
    let body = match text {
        Ok(p) => p.await.ok().and_then(|b| b.as_string()).unwrap_or_default(),
        Err(_) => String::new(),
    };
    if body.len() > MAX_ANSWER {
        return (failed, None);
    }
    (
        HttpResponse { status, body },
        io::header(&resp, "dpop-nonce"),
    )
}

async fn fetch(req: &HttpRequest) -> Result<JsValue, JsValue> {
    let init = Object::new();
    let headers = Object::new();
    for (k, v) in &req.headers {
        Reflect::set(&headers, &k.into(), &v.into())?;
    }
    Reflect::set(&init, &"method".into(), &req.method.into())?;
    Reflect::set(&init, &"headers".into(), &headers)?;
    if let Some(b) = &req.body {
        Reflect::set(&init, &"body".into(), &b.into())?;
    }
    JsFuture::from(global::fetch(&req.url, &init)?).await
}

/// A fresh PKCE verifier (32 random bytes), its `S256` challenge and a `state` (16 bytes).
async fn secrets() -> Result<Secrets, String> {
    let mut v = [0u8; 32];
    let mut s = [0u8; 16];
    if !global::random_bytes(&mut v) || !global::random_bytes(&mut s) {
        return Err("crypto.getRandomValues is unavailable".into());
    }
    let verifier = base64(&v, true);
    let digest = sha256(verifier.as_bytes()).await?;
    Ok(Secrets {
        challenge: base64(&digest, true),
        verifier,
        state: base64(&s, true),
    })
}
