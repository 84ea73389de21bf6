//! Request headers: the caller's (possibly async) provider.

use js_sys::{Array, Function};
use wasm_bindgen::prelude::*;

use super::deferred::when_settled;
#[cfg(feature = "oauth")]
use super::spawn;

#[cfg(feature = "oauth")]
use std::rc::Rc;

#[cfg(feature = "oauth")]
use super::auth::AuthShell;
use super::global::describe;

/// What receives the headers for one request as name/value pairs, flat (name, value, …: the
/// array `io.js` sends; its own, to add to), or why there are none.
pub type Resolved = Box<dyn FnOnce(Result<Array, NoHeaders>)>;

/// Why a request has no headers: the provider failed, or (`unauthorized`) authorizing did.
#[cfg(feature = "oauth")]
pub struct NoHeaders {
    pub message: String,
    pub unauthorized: bool,
}

/// Why a request has no headers: the provider failed.
#[cfg(not(feature = "oauth"))]
pub type NoHeaders = String;

/// The provider failed with `message`.
#[cfg(feature = "oauth")]
fn provider_failed(message: String) -> NoHeaders {
    NoHeaders {
        message,
        unauthorized: false,
    }
}

#[cfg(not(feature = "oauth"))]
fn provider_failed(message: String) -> NoHeaders {
    message
}

/// Where extra (auth) headers come from; consulted before every request.
#[derive(Debug, Clone, Default)]
pub enum HeaderSource {
    #[default]
    None,
    /// The pairs of a plain object / `Headers` / `Map` / array of pairs (flat), fixed at connect
    /// time.
    Fixed(Array),
    /// A function returning any of the above, or a promise of it.
    Provider(Function),
    /// These headers, then the `auth` option's `Authorization`.
    #[cfg(feature = "oauth")]
    Auth(Box<HeaderSource>, Rc<AuthShell>),
}

impl HeaderSource {
    /// Builds a source from the `headers` option (`undefined`, a function, or a header collection).
    pub fn from_js(v: &JsValue) -> Result<Self, String> {
        if v.is_undefined() || v.is_null() {
            Ok(Self::None)
        } else if let Some(f) = v.dyn_ref::<Function>() {
            Ok(Self::Provider(f.clone()))
        } else {
            pairs(v).map(Self::Fixed)
        }
    }

    /// Whether the headers may differ from one request to the next (a provider, or OAuth).
    pub fn renews_credentials(&self) -> bool {
        !matches!(self, Self::None | Self::Fixed(_))
    }

    /// Adds the `auth` option's shell.
    #[cfg(feature = "oauth")]
    pub fn with_auth(self, shell: Option<Rc<AuthShell>>) -> Self {
        match shell {
            Some(s) => Self::Auth(Box::new(self), s),
            None => self,
        }
    }

    /// The `auth` option's shell, if any.
    #[cfg(feature = "oauth")]
    pub fn auth(&self) -> Option<Rc<AuthShell>> {
        match self {
            Self::Auth(_, s) => Some(s.clone()),
            _ => None,
        }
    }

    /// Calls `then` with the headers for one request: at once when no promise is involved (no
    /// headers, fixed ones, a provider answering synchronously), else once they settle. A
    /// throwing or rejecting provider is an error. Boxed: one copy serves every caller.
    /// `method`: the request's, for a DPoP proof.
    #[cfg_attr(not(feature = "oauth"), allow(unused_variables))]
    pub fn resolve_with(&self, method: &'static str, then: Resolved) {
        match self {
            Self::None => then(Ok(Array::new())),
            Self::Fixed(h) => then(Ok(Array::from(h))),
            Self::Provider(f) => match f.call0(&JsValue::UNDEFINED) {
                Err(e) => then(Err(provider_failed(threw(&e)))),
                Ok(v) if super::io::thenable(&v) => when_settled(
                    &v,
                    Box::new(move |r| match r {
                        Ok(v) => then(collected(&v)),
                        Err(e) => then(Err(provider_failed(
                            ["headers provider rejected: ", &describe(&e)].concat(),
                        ))),
                    }),
                ),
                Ok(v) => then(collected(&v)),
            },
            #[cfg(feature = "oauth")]
            Self::Auth(base, shell) => {
                let shell = shell.clone();
                base.resolve_with(
                    method,
                    Box::new(move |base| match base {
                        Err(e) => then(Err(e)),
                        Ok(h) => spawn(async move {
                            let auth = shell.header(method).await.map_err(|message| NoHeaders {
                                message,
                                unauthorized: true,
                            });
                            then(auth.map(|auth| match auth {
                                Some((v, proof)) => authorized(&h, &v, proof.as_deref()),
                                None => h,
                            }))
                        }),
                    }),
                );
            }
        }
    }
}

fn threw(e: &JsValue) -> String {
    ["headers provider threw: ", &describe(e)].concat()
}

/// What a provider answered (`undefined` or `null`: no headers).
fn collected(v: &JsValue) -> Result<Array, NoHeaders> {
    if v.is_undefined() || v.is_null() {
        return Ok(Array::new());
    }
    pairs(v).map_err(provider_failed)
}

/// The value of the first pair named `name` (any case) in flat `pairs`.
#[cfg(feature = "oauth")]
pub fn value_of(pairs: &Array, name: &str) -> Option<String> {
    (0..pairs.length())
        .step_by(2)
        .find(|i| {
            let k = pairs.get(*i).as_string();
            k.is_some_and(|k| k.eq_ignore_ascii_case(name))
        })
        .and_then(|i| pairs.get(i + 1).as_string())
}

/// `pairs` without an `Authorization` header, then `authorization: value` and the DPoP `proof`.
#[cfg(feature = "oauth")]
fn authorized(pairs: &Array, value: &str, proof: Option<&str>) -> Array {
    let out = Array::new();
    for i in (0..pairs.length()).step_by(2) {
        let k = pairs.get(i);
        if !k
            .as_string()
            .is_some_and(|k| k.eq_ignore_ascii_case("authorization"))
        {
            out.push(&k);
            out.push(&pairs.get(i + 1));
        }
    }
    out.push(&"authorization".into());
    out.push(&value.into());
    if let Some(p) = proof {
        out.push(&"dpop".into());
        out.push(&p.into());
    }
    out
}

/// Reads name/value pairs (flat) from an iterable of pairs (`Headers`, `Map`, arrays) or a plain
/// object.
fn pairs(v: &JsValue) -> Result<Array, String> {
    super::io::header_pairs(v).map_err(|e| describe(&e))
}
