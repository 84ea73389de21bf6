// Web Crypto for OAuth (full build only): SHA-256 for PKCE and ES256 signatures for the JWTs the
// client signs. Pages need a secure context for `crypto.subtle`; Node and workers have it.
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
