// Modules the docs import that the docs stage does not install: the two members of Electron's main-process API
// the docs use (the package does not depend on Electron), and the ioredis client class.
declare module "electron" {
  export const shell: { openExternal(url: string): Promise<void> };
  export const safeStorage: { encryptString(text: string): Buffer; decryptString(bytes: Buffer): string };
}
// The ioredis client class the Redis example passes to `persist` (an optional peer dependency of the
// package, not installed for the docs).
declare module "ioredis" {
  export class Redis {
    constructor(url?: string);
  }
}
