//! DPoP (RFC 9449) for the `auth` option's shell: the client's key (a non-extractable Web Crypto
//! ES256 key made at first use; kept in IndexedDB when the grant bound to it is persisted, else for
//! the client's life), the last nonce each server gave, and the proofs
//! [`crate::auth::dpop`] builds, signed here.

use std::cell::RefCell;

use wasm_bindgen::JsValue;

use super::global;
use super::webcrypto::{dpop_key, sha256, sign_es256};
use crate::auth::dpop::{proof_input, ProofFor};
use crate::auth::jwt::{compact, PublicJwk};
use crate::auth::url::base64;

/// The key and the nonces.
pub struct Dpop {
    /// The key's name in IndexedDB (`None`: in memory only).
    name: Option<String>,
    st: RefCell<State>,
}

#[derive(Default)]
struct State {
    key: Option<(JsValue, PublicJwk)>,
    /// The authorization server's nonce (token requests).
    token_nonce: Option<String>,
    /// The resource server's nonce (MCP requests).
    resource_nonce: Option<String>,
}

impl Dpop {
    pub fn new(name: Option<String>) -> Self {
        Self {
            name,
            st: RefCell::default(),
        }
    }

    async fn key(&self) -> Result<(JsValue, PublicJwk), String> {
        if let Some(k) = self.st.borrow().key.clone() {
            return Ok(k);
        }
        let k = dpop_key(self.name.clone()).await?;
        Ok(self.st.borrow_mut().key.get_or_insert(k).clone())
    }

    /// A proof for a `method` request to `url`: a token request, or (`token`: the access token it
    /// carries) a resource request.
    pub async fn proof(
        &self,
        method: &str,
        url: &str,
        token: Option<&str>,
    ) -> Result<String, String> {
        let (private, public) = self.key().await?;
        let ath = match token {
            Some(t) => Some(base64(&sha256(t.as_bytes()).await?, true)),
            None => None,
        };
        let mut jti = [0u8; 16];
        if !global::random_bytes(&mut jti) {
            return Err("crypto.getRandomValues is unavailable".into());
        }
        let nonce = self.with(|s| match token {
            Some(_) => s.resource_nonce.clone(),
            None => s.token_nonce.clone(),
        });
        let input = proof_input(
            &public,
            &ProofFor {
                method,
                url,
                iat: global::now() / 1000,
                jti: &base64(&jti, true),
                nonce: nonce.as_deref(),
                ath: ath.as_deref(),
            },
        );
        let signature = sign_es256(&private, input.as_bytes()).await?;
        Ok(compact(&input, &signature))
    }

    /// The nonce the authorization server asked for.
    pub fn token_nonce(&self, nonce: &str) {
        self.with(|s| s.token_nonce = Some(nonce.to_owned()));
    }

    /// The nonce the resource server asked for.
    pub fn resource_nonce(&self, nonce: &str) {
        self.with(|s| s.resource_nonce = Some(nonce.to_owned()));
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.st.borrow_mut())
    }
}
