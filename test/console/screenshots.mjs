// Writes screenshots of the console's main pages to docs/images/ (`pnpm screenshots`, after `pnpm build`):
// a real server seeded through the API, which scores the seeded spans itself through the testkit's
// OpenAI-compatible stub as its gateway; real headless Chromium at 1280×800 (and one narrow window).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { ADMIN, launchBrowser, ROOT, signIn, startServer } from './launch.mjs';

const require = createRequire(import.meta.url);
const { seedConsole, supportJudges } = require('../support/console-seed.cjs');
const { OpenAiStub } = require('../../packages/testkit/dist/index.js');
const out = path.join(ROOT, 'docs/images');
fs.mkdirSync(out, { recursive: true });

const stub = await OpenAiStub.start();
stub.answerWith(supportJudges);
// A judge's answer that does not parse is tried twice, then failed (the seed has two such answers).
const server = await startServer({ TRACELIGHT_SCORING_MAX_ATTEMPTS: '2', TRACELIGHT_SCORING_RETRY_BASE_MS: '50' });
const browser = await launchBrowser();
try {
  const seeded = await seedConsole(server.baseUrl, { login: ADMIN }, { traces: 60, project: 'Support bot', gateway: stub.url });
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
  // The judges' explanation of the first row's correctness, as hovering shows it.
  await page.locator('table.records-table tbody tr').first().locator('td[data-column-id="metrics/correctness"] .has-tip').hover();
  await shot('spans-filtered');
  await page.goto(`${run}/traces/${seeded.traceIds[3]}`);
  await page.locator('.waterfall-row').nth(4).waitFor();
  await page.locator('.waterfall-row', { hasText: 'chat completion' }).click();
  await page.locator('.conversation').first().waitFor();
  await shot('trace');
  // The same span's metrics as the engine left them: toxicity scored, correctness failed with the judge's words.
  await page.locator('section.details [data-metric="correctness"]').scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, 200));
  await shot('trace-metrics');
  await page.goto(`${run}/settings`);
  await page.getByRole('heading', { name: 'Scoring status' }).waitFor();
  await page.locator('section.scorer-status').first().waitFor();
  // The scorers and their scoring status, below the insights.
  await page.locator('#scorers-title').evaluate((h) => h.scrollIntoView());
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
  await stub.close();
}
