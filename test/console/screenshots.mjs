// Writes screenshots of the console's main pages to docs/images/ (`pnpm screenshots`, after `pnpm build`):
// a real server seeded through the API, real headless Chromium at 1280×800 (and one narrow window).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { ADMIN, launchBrowser, ROOT, signIn, startServer } from './launch.mjs';

const { seedConsole } = createRequire(import.meta.url)('../support/console-seed.cjs');
const out = path.join(ROOT, 'docs/images');
fs.mkdirSync(out, { recursive: true });

const server = await startServer();
const browser = await launchBrowser();
try {
  const seeded = await seedConsole(server.baseUrl, { login: ADMIN }, { traces: 60, project: 'Support bot' });
  const page = await browser.newPage();
  const shot = async (name) => {
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: path.join(out, `console-${name}.png`) });
    console.log(`docs/images/console-${name}.png`);
  };
  await page.goto(`${server.baseUrl}/console/`);
  await page.getByLabel('Email').waitFor();
  await shot('sign-in');
  await signIn(page, server.baseUrl);
  await shot('projects');
  const run = `${server.baseUrl}/console/projects/${seeded.projectId}/log_streams/${seeded.runId}`;
  // The columns a person would pick for these pictures (the picker keeps its choice per run and tab).
  await page.evaluate(({ runId }) => {
    localStorage.setItem(`tracelight.columns.${runId}.traces`, JSON.stringify(['name', 'input', 'output', 'created_at', 'tags', 'status_code', 'session_id']));
    localStorage.setItem(`tracelight.columns.${runId}.spans`, JSON.stringify(['name', 'input', 'output', 'model', 'metrics/toxicity', 'metrics/correctness']));
  }, { runId: seeded.runId });
  await page.goto(run);
  await page.locator('table.records-table tbody tr').first().waitFor();
  await shot('traces');
  await page.goto(`${run}?tab=spans&filters=${encodeURIComponent(JSON.stringify([{ type: 'text', column_id: 'type', operator: 'one_of', value: ['llm'] }]))}`);
  await page.locator('table.records-table tbody tr').first().waitFor();
  await shot('spans-filtered');
  await page.goto(`${run}/traces/${seeded.traceIds[3]}`);
  await page.locator('.waterfall-row').nth(4).waitFor();
  await page.locator('.waterfall-row', { hasText: 'chat completion' }).click();
  await page.locator('.conversation').first().waitFor();
  await shot('trace');
  await page.goto(`${run}/settings`);
  await page.getByRole('heading', { name: 'Scoring status' }).waitFor();
  await shot('run-settings');
  await page.goto(`${server.baseUrl}/console/scorers/${seeded.scorerIds.correctness}`);
  await page.getByRole('heading', { name: 'Versions' }).waitFor();
  await shot('scorer');
  await page.goto(`${server.baseUrl}/console/settings/gateway`);
  await page.getByRole('heading', { name: 'Gateway integration' }).waitFor();
  await shot('gateway');
  await page.goto(`${server.baseUrl}/console/settings/api-keys`);
  await page.getByLabel('Description').fill('laptop');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('dialog').waitFor();
  await page.getByRole('button', { name: 'Done' }).click();
  await shot('api-keys');
  await page.setViewportSize({ width: 420, height: 860 });
  await page.goto(`${run}/traces/${seeded.traceIds[3]}`);
  await page.locator('.waterfall-row').nth(4).waitFor();
  await shot('trace-narrow');
} finally {
  await browser.close();
  await server.stop();
}
