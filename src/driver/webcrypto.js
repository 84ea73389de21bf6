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

/** A DPoP key: the private key non-extractable, the public key's coordinates for the proofs. */
export async function dpopKey() {
  const { privateKey, publicKey } = await subtle().generateKey(P256, false, ["sign", "verify"]);
  const { x, y } = await subtle().exportKey("jwk", publicKey);
  return [privateKey, x, y];
}

/** The raw `r‖s` signature (the JWS form) of `data` with a private `CryptoKey` or a private P-256 JWK. */
export async function signEs256(key, data) {
  const k = key?.type === "private" ? key : await subtle().importKey("jwk", key, P256, false, ["sign"]);
  return new Uint8Array(await subtle().sign(P256, k, data));
}
