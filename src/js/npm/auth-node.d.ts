/** A loopback redirect on 127.0.0.1 for Node and Electron's main process. */
export function loopbackAuthorization(options: {
  open: (url: string) => unknown;
  port?: number;
  path?: string;
  timeoutMs?: number;
  page?: string;
}): Promise<{ redirectUri: string; openAuthorization: (url: string) => Promise<string>; close: () => Promise<void> }>;
