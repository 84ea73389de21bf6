// Headless Chromium (Debian's, through playwright-core) with a fresh profile, and the static site
// serving pkg/ and tests/js/ to its pages: what every page test starts with.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startStatic } from "./static.mjs";

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run"];

/** Starts the site and the browser (`args`: more flags); `close()` ends both and removes the profile. */
export async function openChromium(prefix = "mcp-page-", { args = [] } = {}) {
  const site = await startStatic();
  const profileDir = await mkdtemp(join(tmpdir(), prefix));
  const browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: [...FLAGS, ...args],
    headless: true,
  });
  const close = async () => {
    await browser.close();
    await site.stop();
    await rm(profileDir, { recursive: true, force: true });
  };
  return { browser, site, close };
}
