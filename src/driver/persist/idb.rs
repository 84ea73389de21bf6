//! A tiny key/value layer over IndexedDB: one database, one object store of `{k, v}` rows (`v` is
//! JSON text), atomic read-modify-write inside one `readwrite` transaction.

use std::cell::RefCell;
use std::rc::Rc;

use crate::driver::oneshot;
use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;

/// A read-modify-write of one stored value (`None`: delete). Boxed, so that the storage code is
/// compiled once rather than once per caller's closure; `FnMut`, as a host store may retry it.
pub(super) type Edit = Box<dyn FnMut(Option<String>) -> Option<String>>;

#[wasm_bindgen]
extern "C" {
    type IdbFactory;
    #[wasm_bindgen(method, catch)]
    fn open(this: &IdbFactory, name: &str, version: u32) -> Result<IdbRequest, JsValue>;

    type IdbRequest;
    #[wasm_bindgen(method, getter, catch)]
    fn result(this: &IdbRequest) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, setter)]
    fn set_onsuccess(this: &IdbRequest, f: Option<&Function>);
    #[wasm_bindgen(method, setter)]
    fn set_onerror(this: &IdbRequest, f: Option<&Function>);
    #[wasm_bindgen(method, setter)]
    fn set_onupgradeneeded(this: &IdbRequest, f: Option<&Function>);

    pub type IdbDatabase;
    #[wasm_bindgen(method, catch)]
    fn transaction(this: &IdbDatabase, stores: &str, mode: &str)
        -> Result<IdbTransaction, JsValue>;
    #[wasm_bindgen(method, catch, js_name = createObjectStore)]
    fn create_object_store(
        this: &IdbDatabase,
        name: &str,
        options: &JsValue,
    ) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, setter)]
    fn set_onversionchange(this: &IdbDatabase, f: Option<&Function>);
    #[wasm_bindgen(method, js_name = close)]
    fn close_db(this: &IdbDatabase);

    type IdbTransaction;
    #[wasm_bindgen(method, catch, js_name = objectStore)]
    fn object_store(this: &IdbTransaction, name: &str) -> Result<IdbStore, JsValue>;
    #[wasm_bindgen(method, setter)]
    fn set_oncomplete(this: &IdbTransaction, f: Option<&Function>);
    #[wasm_bindgen(method, setter)]
    fn set_onerror(this: &IdbTransaction, f: Option<&Function>);
    #[wasm_bindgen(method, setter)]
    fn set_onabort(this: &IdbTransaction, f: Option<&Function>);

    type IdbStore;
    #[wasm_bindgen(method, catch)]
    fn get(this: &IdbStore, key: &JsValue) -> Result<IdbRequest, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn put(this: &IdbStore, value: &JsValue) -> Result<IdbRequest, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn delete(this: &IdbStore, key: &JsValue) -> Result<IdbRequest, JsValue>;
    #[wasm_bindgen(method, catch, js_name = getAll)]
    fn get_all(this: &IdbStore, range: &JsValue) -> Result<IdbRequest, JsValue>;

    #[wasm_bindgen(js_namespace = IDBKeyRange, js_name = bound, catch)]
    fn key_range_bound(lower: &JsValue, upper: &JsValue) -> Result<JsValue, JsValue>;
}

const DB_NAME: &str = "mcp-task-client";
const DB_VERSION: u32 = 1;
const STORE: &str = "records";

/// An open database.
pub struct Idb {
    db: IdbDatabase,
    _on_version_change: Closure<dyn FnMut()>,
}

impl Drop for Idb {
    fn drop(&mut self) {
        self.db.set_onversionchange(None);
        self.db.close_db();
    }
}

/// Callbacks kept alive until one of them fired.
struct Waiter {
    rx: oneshot::Receiver<Result<(), JsValue>>,
    _cbs: Vec<Closure<dyn FnMut(JsValue)>>,
}

impl Waiter {
    async fn wait(self) -> Result<(), JsValue> {
        self.rx
            .await
            .unwrap_or_else(|_| Err(JsValue::from_str("IndexedDB callback dropped")))
    }
}

/// A sender shared by several callbacks: the first one to fire wins.
type Shared = Rc<RefCell<Option<oneshot::Sender<Result<(), JsValue>>>>>;

fn shared_sender() -> (Shared, oneshot::Receiver<Result<(), JsValue>>) {
    let (tx, rx) = oneshot::channel();
    (Rc::new(RefCell::new(Some(tx))), rx)
}

fn callback(tx: &Shared, ok: bool) -> Closure<dyn FnMut(JsValue)> {
    let tx = tx.clone();
    Closure::new(move |ev: JsValue| {
        if let Some(t) = tx.borrow_mut().take() {
            t.send(if ok { Ok(()) } else { Err(event_error(&ev)) });
        }
    })
}

/// The `error` of the event's target (a request or a transaction), or the event itself.
fn event_error(ev: &JsValue) -> JsValue {
    Reflect::get(ev, &"target".into())
        .ok()
        .and_then(|t| Reflect::get(&t, &"error".into()).ok())
        .filter(|e| !e.is_null() && !e.is_undefined())
        .unwrap_or_else(|| ev.clone())
}

fn on_request(req: &IdbRequest) -> Waiter {
    let (tx, rx) = shared_sender();
    let ok = callback(&tx, true);
    let err = callback(&tx, false);
    req.set_onsuccess(Some(ok.as_ref().unchecked_ref()));
    req.set_onerror(Some(err.as_ref().unchecked_ref()));
    Waiter {
        rx,
        _cbs: vec![ok, err],
    }
}

fn on_transaction(tx: &IdbTransaction) -> Waiter {
    let (sender, rx) = shared_sender();
    let ok = callback(&sender, true);
    let err = callback(&sender, false);
    let abort = callback(&sender, false);
    tx.set_oncomplete(Some(ok.as_ref().unchecked_ref()));
    tx.set_onerror(Some(err.as_ref().unchecked_ref()));
    tx.set_onabort(Some(abort.as_ref().unchecked_ref()));
    Waiter {
        rx,
        _cbs: vec![ok, err, abort],
    }
}

fn row(key: &str, value: &str) -> JsValue {
    let o = Object::new();
    let _ = Reflect::set(&o, &"k".into(), &JsValue::from_str(key));
    let _ = Reflect::set(&o, &"v".into(), &JsValue::from_str(value));
    o.into()
}

/// What `read` finds in each of `rows` (one instantiation for every store's scan).
pub(super) fn texts(rows: JsValue, read: fn(&JsValue) -> Option<String>) -> Vec<String> {
    let rows: Array = rows.dyn_into().unwrap_or_default();
    rows.iter().filter_map(|r| read(&r)).collect()
}

fn row_value(row: &JsValue) -> Option<String> {
    Reflect::get(row, &"v".into())
        .ok()
        .and_then(|v| v.as_string())
}

impl Idb {
    /// Opens (creating on first use) the database; `None` where IndexedDB is missing or refused.
    pub async fn open() -> Option<Idb> {
        let factory = Reflect::get(&js_sys::global(), &"indexedDB".into())
            .ok()
            .filter(|f| f.is_object())?;
        let factory: IdbFactory = factory.unchecked_into();
        let req = factory.open(DB_NAME, DB_VERSION).ok()?;
        let r2 = req.clone().unchecked_into::<IdbRequest>();
        let upgrade = Closure::<dyn FnMut(JsValue)>::new(move |_ev: JsValue| {
            if let Ok(db) = r2.result() {
                let db: IdbDatabase = db.unchecked_into();
                let opts = Object::new();
                let _ = Reflect::set(&opts, &"keyPath".into(), &"k".into());
                let _ = db.create_object_store(STORE, &opts);
            }
        });
        req.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
        let done = on_request(&req).wait().await;
        req.set_onupgradeneeded(None);
        done.ok()?;
        let db: IdbDatabase = req.result().ok()?.unchecked_into();
        // Another page upgrading the schema: let it (this page then falls back to errors, not a hang).
        let db2 = db.clone().unchecked_into::<IdbDatabase>();
        let on_vc = Closure::<dyn FnMut()>::new(move || db2.close_db());
        db.set_onversionchange(Some(on_vc.as_ref().unchecked_ref()));
        Some(Idb {
            db,
            _on_version_change: on_vc,
        })
    }

    /// Every value whose key starts with `prefix`.
    pub async fn scan(&self, prefix: &str) -> Result<Vec<String>, JsValue> {
        let tx = self.db.transaction(STORE, "readonly")?;
        let store = tx.object_store(STORE)?;
        let upper = [prefix, "\u{ffff}"].concat();
        let range = key_range_bound(&JsValue::from_str(prefix), &JsValue::from_str(&upper))?;
        let req = store.get_all(&range)?;
        on_request(&req).wait().await?;
        Ok(texts(req.result()?, row_value))
    }

    /// Reads one value.
    pub async fn get(&self, key: &str) -> Result<Option<String>, JsValue> {
        let tx = self.db.transaction(STORE, "readonly")?;
        let req = tx.object_store(STORE)?.get(&JsValue::from_str(key))?;
        on_request(&req).wait().await?;
        Ok(req.result().ok().and_then(|r| row_value(&r)))
    }

    /// Atomically replaces the value under `key` with `f(old)` (`None`: delete) and waits until
    /// the transaction committed. Returns what `f` returned.
    pub async fn update(&self, key: &str, mut f: Edit) -> Result<Option<String>, JsValue> {
        let tx = self.db.transaction(STORE, "readwrite")?;
        let committed = on_transaction(&tx);
        let store = tx.object_store(STORE)?;
        let req = store.get(&JsValue::from_str(key))?;
        let out: Rc<RefCell<Option<String>>> = Rc::new(RefCell::new(None));
        let out2 = out.clone();
        let key2 = key.to_owned();
        let req2 = req.clone().unchecked_into::<IdbRequest>();
        // The write is issued inside the read's success callback: same transaction, no gap.
        let on_read = Closure::once(move |_ev: JsValue| {
            let old = req2.result().ok().and_then(|r| row_value(&r));
            let new = f(old);
            let _ = match &new {
                Some(v) => store.put(&row(&key2, v)),
                None => store.delete(&JsValue::from_str(&key2)),
            };
            *out2.borrow_mut() = new;
        });
        req.set_onsuccess(Some(on_read.as_ref().unchecked_ref()));
        committed.wait().await?;
        drop(on_read);
        let v = out.borrow_mut().take();
        Ok(v)
    }

    /// Deletes one key.
    pub async fn delete(&self, key: &str) -> Result<(), JsValue> {
        let tx = self.db.transaction(STORE, "readwrite")?;
        let committed = on_transaction(&tx);
        tx.object_store(STORE)?.delete(&JsValue::from_str(key))?;
        committed.wait().await
    }
}
