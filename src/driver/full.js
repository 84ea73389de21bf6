// The full build's JavaScript (tab coordination, persistence and OAuth; one module, so a page loads
// one file for them): Web Crypto for OAuth and IndexedDB for the records. Each function decides
// nothing; what its results mean is the Rust side's (src/driver/webcrypto.rs, persist/idb.rs).

// ----- Web Crypto: SHA-256 for PKCE and ES256 signatures for the JWTs the client signs. Pages need
// a secure context for `crypto.subtle`; Node and workers have it.
const P256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

function subtle() {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new Error("crypto.subtle is unavailable (a page must be a secure context)");
  return s;
}

export async function sha256(data) {
  return new Uint8Array(await subtle().digest("SHA-256", data));
}

async function freshKey() {
  const { privateKey, publicKey } = await subtle().generateKey(P256, false, ["sign", "verify"]);
  const { x, y } = await subtle().exportKey("jwk", publicKey);
  return [privateKey, x, y];
}

// A request's result, once it succeeded.
const done = (r) => new Promise((ok, fail) => ((r.onsuccess = () => ok(r.result)), (r.onerror = () => fail(r.error))));

/**
 * A DPoP key: the private key non-extractable, the public key's coordinates for the proofs. With a
 * `name` and IndexedDB, the key is kept there (the origin's tabs and reloads share it, as they share
 * the grant bound to it; the first stored wins); else, or when IndexedDB fails, in memory.
 */
export async function dpopKey(name) {
  if (!name || !globalThis.indexedDB) return freshKey();
  try {
    const open = indexedDB.open("mcp-task-client-dpop", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("keys");
    const db = await done(open);
    try {
      const get = () => done(db.transaction("keys").objectStore("keys").get(name));
      const found = await get();
      if (found) return found;
      const made = await freshKey();
      await done(db.transaction("keys", "readwrite").objectStore("keys").add(made, name)).catch(() => {});
      return (await get()) ?? made;
    } finally {
      db.close();
    }
  } catch {
    return freshKey();
  }
}

/** The raw `r‖s` signature (the JWS form) of `data` with a private `CryptoKey` or a private P-256 JWK. */
export async function signEs256(key, data) {
  const k = key?.type === "private" ? key : await subtle().importKey("jwk", key, P256, false, ["sign"]);
  return new Uint8Array(await subtle().sign(P256, k, data));
}

// ----- IndexedDB for the records: one database, one object store of `{k, v}` rows (`v` is JSON text). Each
// function returns a promise and never throws.
const STORE = "records";

// Runs `work(store)` in one transaction; settles with what `work` left in `out.value` once the
// transaction committed, rejects when it failed or aborted.
function transaction(db, mode, work) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const out = {};
    tx.oncomplete = () => resolve(out.value);
    tx.onerror = tx.onabort = () => reject(tx.error);
    work(tx.objectStore(STORE), out);
  });
}

/** Opens (creating on first use) the database: it, or null where IndexedDB is missing or refused.
 *  Another page upgrading the schema closes it (this page then gets errors, not a hang). */
export function idbOpen(name, version) {
  return new Promise((resolve) => {
    const request = globalThis.indexedDB.open(name, version);
    request.onupgradeneeded = () => {
      try {
        request.result.createObjectStore(STORE, { keyPath: "k" });
      } catch {}
    };
    request.onsuccess = () => {
      const db = request.result;
      db.onversionchange = () => db.close();
      resolve(db);
    };
    request.onerror = () => resolve(null);
  }).catch(() => null);
}

/** The values of every key that starts with `prefix`. */
export function idbScan(db, prefix) {
  return new Promise((resolve) => {
    const tx = db.transaction(STORE, "readonly");
    const range = IDBKeyRange.bound(prefix, prefix + "\uffff");
    resolve(done(tx.objectStore(STORE).getAll(range)).then((rows) => rows.map((row) => row.v)));
  });
}

/** The value under `key` (undefined when none). */
export function idbGet(db, key) {
  return new Promise((resolve) => {
    const tx = db.transaction(STORE, "readonly");
    resolve(done(tx.objectStore(STORE).get(key)).then((row) => row?.v));
  });
}

/** Replaces the value under `key` with `edit(old)` (null: deletes it) in one transaction, the
 *  write issued in the read's success callback (no gap); settles with `edit`'s value once
 *  committed. */
export function idbUpdate(db, key, edit) {
  return transaction(db, "readwrite", (store, out) => {
    const read = store.get(key);
    read.onsuccess = () => {
      out.value = edit(read.result?.v);
      try {
        if (out.value == null) store.delete(key);
        else store.put({ k: key, v: out.value });
      } catch {}
    };
  });
}

/** Deletes the value under `key`. */
export function idbDelete(db, key) {
  return transaction(db, "readwrite", (store) => store.delete(key));
}

export function idbClose(db) {
  db.onversionchange = null;
  db.close();
}
