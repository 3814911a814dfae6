// Real headless Chromium for the console's tests, driven by playwright-core through the system's
// browser (Debian's `chromium`; `.ci/run` installs it): nothing is downloaded, and every launch starts
// from a fresh temporary profile, each context with cookies of its own.
import * as fs from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Where Chromium is: CHROMIUM_PATH, else the first of the usual system paths that exists. */
export const chromiumPath = (): string => {
  const candidates = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string => !!p);
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error(`No Chromium found (looked at ${candidates.join(', ')}): install it with \`apt-get install -y chromium\` or set CHROMIUM_PATH`);
  return found;
};

export interface RunningBrowser {
  readonly browser: Browser;
  /** A page in a context of its own (its own cookies: another person, or another browser). */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

/** Headless Chromium: no sandbox (tests run as root), no background traffic (updates, sync, components), no GPU. */
export const launchBrowser = async (): Promise<RunningBrowser> => {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-gpu'],
    timeout: 60_000,
  });
  return {
    browser,
    newPage: async (viewport = { width: 1280, height: 800 }) => (await browser.newContext({ viewport })).newPage(),
    close: () => browser.close().catch(() => undefined),
  };
};
