// What the console's scripts share (screenshots, measurement): the built server started as a child
// process on a free port with a fresh data directory, and headless Chromium from the system.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery staple' };

/** Starts apps/server/dist/main.js; resolves once it listens. `stop()` ends it. */
export const startServer = async (env = {}) => {
  const main = path.join(ROOT, 'apps/server/dist/main.js');
  if (!fs.existsSync(main)) throw new Error('apps/server/dist/main.js is missing: run `pnpm build` first');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-console-'));
  const child = spawn(process.execPath, [main], {
    // The judges score through the testkit's stub on 127.0.0.1, an address allowed only by name.
    env: { PATH: process.env.PATH ?? '', TRACELIGHT_HOST: '127.0.0.1', TRACELIGHT_PORT: '0', TRACELIGHT_DATA_DIR: dataDir, TRACELIGHT_ADMIN_EMAIL: ADMIN.email, TRACELIGHT_ADMIN_PASSWORD: ADMIN.password, TRACELIGHT_GATEWAY_ALLOWED_NETWORKS: '127.0.0.1/32', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server did not start within 60 s')), 60_000);
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (const line of buffer.split('\n').slice(0, -1)) {
        try {
          const entry = JSON.parse(line);
          if (entry.message?.startsWith('Tracelight listening') && entry.port) {
            clearTimeout(timer);
            resolve(entry.port);
          }
        } catch {
          /* not JSON */
        }
      }
      buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
    });
    child.stderr.on('data', () => {});
    void exited.then((code) => reject(new Error(`the server exited with ${code} before listening`)));
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
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
