// Headless Chromium (Debian's, through playwright-core) with a throwaway profile, plus the static
// site serving pkg/ and the test pages: what every browser test starts from.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { startStatic } from "./static.mjs";

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run"];

/** Starts the site and the browser; `stop()` ends both and removes the profile. */
export async function startChromium(prefix = "mcp-page-") {
  const site = await startStatic();
  const profileDir = await mkdtemp(join(tmpdir(), prefix));
  const browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: FLAGS,
    headless: true,
  });
  const stop = async () => {
    await browser.close();
    await site.stop();
    await rm(profileDir, { recursive: true, force: true });
  };
  return { site, browser, stop };
}
