import type { AuthStore } from "./index.js";

/** `openAuthorization` through a popup; the return page calls `completeAuthorization()`. */
export function popupAuthorization(options?: { features?: string; name?: string }): (url: string) => Promise<string>;
/** On the redirect URI's page: reports this URL to the opener, then closes the popup. */
export function completeAuthorization(): void;
/** A grant store in memory. */
export function memoryStore(): AuthStore;
/** A grant store in `localStorage` (shared by tabs) or `sessionStorage` under `key`. */
export function webStorageStore(storage: Storage, key?: string): AuthStore;
