// The two members of Electron's main-process API the docs use (the package does not depend on Electron).
declare module "electron" {
  export const shell: { openExternal(url: string): Promise<void> };
  export const safeStorage: { encryptString(text: string): Buffer; decryptString(bytes: Buffer): string };
}
