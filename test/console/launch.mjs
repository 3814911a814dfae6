// What the console's scripts share (screenshots, measurement): the built server started as a child
// process on a free port with a fresh data directory, and headless Chromium from the system.
import * as fs from 'node:fs';
import { chromium } from 'playwright-core';
import { ROOT, startBenchServer } from '../bench/bench-server.mjs';

export { ROOT };
export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };

/** Starts the built server (bench-server.mjs) on a fresh data dir; resolves once it listens. `stop()` ends it and removes the dir. */
export const startServer = async (env = {}) => {
  // The judges score through the testkit's stub on 127.0.0.1, an address allowed only by name.
  const server = await startBenchServer({
    env: { TRACELIGHT_HOST: '127.0.0.1', TRACELIGHT_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32', ...env },
    admin: ADMIN,
    prefix: 'tracelight-console-',
  });
  return { baseUrl: server.base, dataDir: server.dataDir, stop: () => server.stop() };
};

const chromiumPath = () => {
  const found = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter(Boolean).find((p) => fs.existsSync(p));
  if (!found) throw new Error('No Chromium found: install it with `apt-get install -y chromium` or set CHROMIUM_PATH');
  return found;
};

/** Headless Chromium (a fresh temporary profile), no background traffic; `newPage` opens a page in a context of its own. */
export const launchBrowser = async () => {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-gpu'],
    timeout: 60_000,
  });
  return {
    newPage: async (viewport = { width: 1280, height: 800 }) => (await browser.newContext({ viewport })).newPage(),
    close: () => browser.close().catch(() => undefined),
  };
};

/** Signs in through the console's own form. */
export const signIn = async (page, baseUrl) => {
  await page.goto(`${baseUrl}/console/`);
  await page.getByLabel('Email').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor({ timeout: 60_000 });
};
