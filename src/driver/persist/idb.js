// IndexedDB for the records (full build only): one database, one object store of `{k, v}` rows
// (`v` is JSON text). Each function returns a promise and never throws; what is stored and what a
// failure means is the Rust side's (src/driver/persist/idb.rs).
const STORE = "records";

// Settles with `done(request)` once `request` succeeds, rejects with its error.
function asked(request, done) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(done(request));
    request.onerror = () => reject(request.error);
  });
}

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
    resolve(asked(tx.objectStore(STORE).getAll(range), (r) => r.result.map((row) => row.v)));
  });
}

/** The value under `key` (undefined when none). */
export function idbGet(db, key) {
  return new Promise((resolve) => {
    const tx = db.transaction(STORE, "readonly");
    resolve(asked(tx.objectStore(STORE).get(key), (r) => r.result?.v));
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
