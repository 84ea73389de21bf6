//! Typed JS errors: instances of the package's `McpTaskError` class (registered by the entry module)
//! carrying `kind`, `code`, `data`, `taskId`, `httpStatus` and `auth`.

use std::cell::RefCell;

use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::convert::to_js;
use super::types::{ErrorInfo, ErrorKind};

thread_local! {
    static ERROR_CLASS: RefCell<Option<Function>> = const { RefCell::new(None) };
}

/// Called once by the package entry with its `McpTaskError` class.
#[wasm_bindgen(js_name = __registerErrorClass, skip_typescript)]
pub fn register_error_class(class: Function) {
    ERROR_CLASS.with(|c| *c.borrow_mut() = Some(class));
}

/// Builds an `McpTaskError` (or, before registration, an `Error` named `McpTaskError`).
pub fn js_error(info: &ErrorInfo) -> JsValue {
    caused(info, &JsValue::UNDEFINED)
}

/// [`js_error`] with a `cause` (e.g. an abort signal's reason; `undefined` for none).
pub fn caused(info: &ErrorInfo, cause: &JsValue) -> JsValue {
    let details = to_js(info);
    let options = Object::new();
    if !cause.is_undefined() {
        let _ = Reflect::set(&options, &"cause".into(), cause);
    }
    let class = ERROR_CLASS.with(|c| c.borrow().clone());
    if let Some(class) = class {
        let args = Array::of3(&JsValue::from_str(&info.message), &details, &options);
        if let Ok(e) = Reflect::construct(&class, &args) {
            return e;
        }
    }
    // Unregistered (the wasm tests): an `Error` named `McpTaskError` with the same fields.
    let e = js_sys::Error::new(&info.message);
    let _ = Reflect::set(&e, &"name".into(), &"McpTaskError".into());
    Object::assign(&e, details.unchecked_ref());
    Object::assign(&e, &options);
    e.into()
}

/// Shorthand for an error of `kind` with `message`.
pub fn error(kind: ErrorKind, message: impl Into<String>) -> JsValue {
    js_error(&ErrorInfo::new(kind, message))
}

/// The error for a caller's abort: kind `aborted`, the signal's reason as `cause`.
pub fn aborted(reason: &JsValue, task_id: Option<String>) -> JsValue {
    let info =
        ErrorInfo::new(ErrorKind::Aborted, "stopped waiting for the task").with_task(task_id);
    caused(&info, reason)
}
