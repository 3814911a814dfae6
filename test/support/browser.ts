// Real headless Chromium for the console's tests, driven by playwright-core through the system's
// browser (Debian's `chromium`; `.ci/run` installs it): a fresh profile each launch, nothing fetched.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

/** Where Chromium is: CHROMIUM_PATH, else the first of the usual system paths that exists. */
export const chromiumPath = (): string => {
  const candidates = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter((p): p is string => !!p);
  const found = candidates.find((p) => fs.existsSync(p));
  if (!found) throw new Error(`No Chromium found (looked at ${candidates.join(', ')}): install it with \`apt-get install -y chromium\` or set CHROMIUM_PATH`);
  return found;
};

export interface RunningBrowser {
  readonly browser: BrowserContext;
  close(): Promise<void>;
}

/**
 * A headless Chromium with a profile of its own (removed on close): no sandbox (tests run as root), no
 * background traffic (updates, sync, component downloads) and no GPU.
 */
export const launchBrowser = async (options: { viewport?: { width: number; height: number } } = {}): Promise<RunningBrowser> => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-gpu'],
    viewport: options.viewport ?? { width: 1280, height: 800 },
    timeout: 60_000,
  });
  return {
    browser: context,
    close: async () => {
      await context.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
};

export type { Browser, BrowserContext };
