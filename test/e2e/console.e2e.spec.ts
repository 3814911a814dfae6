// The console in real headless Chromium against a real server seeded through the API: sign-in and the
// session, a run's records (columns from available_columns, filters, sort, pages), a trace's waterfall and
// messages, metrics as the evaluation engine scores them (the server's scoring workers on, its gateway the
// testkit's OpenAI-compatible stub: values, levels, explanations, statuses, the run's scoring status), the
// settings pages (insights, gateway, scorers, API keys), errors, keyboard and narrow windows. What the
// page shows is checked against what the API answers for the same question.
import { TracelightClient, type RecordFilter, type RunScoringStatus, type StoredRecord } from '@tracelight/client';
import { OpenAiStub } from '@tracelight/testkit';
import type { Page, Response } from 'playwright-core';
import { launchBrowser, type RunningBrowser } from '../support/browser';
import { random, scoringSettles, seedConsole, supportJudges, traceOf, type Seeded } from '../support/console-seed.cjs';
import { ADMIN, startServer, type RunningServer } from '../support/server';

jest.setTimeout(300_000);

let server: RunningServer;
let browser: RunningBrowser;
let api: TracelightClient;
let stub: OpenAiStub;
let seeded: Seeded;
let page: Page;

/** Polls `read` until it equals `expected` (deep), for up to 60 s; then fails showing the last value. */
const settles = async <T>(read: () => Promise<T>, expected: T): Promise<void> => {
  let last: T | undefined;
  for (let waited = 0; waited < 60_000; waited += 100) {
    last = await read();
    if (JSON.stringify(last) === JSON.stringify(expected)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(last).toEqual(expected);
};

const rowIds = (p: Page = page) => p.locator('table.records-table tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-record-id')));
const headerIds = (p: Page = page) => p.locator('table.records-table thead th[data-column-id]').evaluateAll((ths) => ths.map((t) => t.getAttribute('data-column-id')));
const runUrl = (kind = 'log_streams', id = seeded.runId) => `${server.baseUrl}/console/projects/${seeded.projectId}/${kind}/${id}`;
const scope = () => ({ log_stream_id: seeded.runId });
const ids = (records: ReadonlyArray<StoredRecord>) => records.map((r) => r.id);

const signIn = async (p: Page, password = ADMIN.password) => {
  await p.goto(`${server.baseUrl}/console/`);
  await p.getByLabel('Email').fill(ADMIN.email);
  await p.getByLabel('Password').fill(password);
  await p.getByRole('button', { name: 'Sign in' }).click();
};

/** The run's scoring status as its settings page shows it: each scorer version's card, its job counts and sample rate. */
const statusShown = (p: Page = page) =>
  p.locator('section.scorer-status').evaluateAll((cards) =>
    cards.map((c) => ({
      scorer_id: c.getAttribute('data-scorer-id'),
      version: Number(c.getAttribute('data-version')),
      jobs: Object.fromEntries([...c.querySelectorAll('[data-count]')].map((d) => [d.getAttribute('data-count'), Number((d.textContent ?? '').replace(/\D/g, ''))])),
      sample_rate: c.querySelector('[data-fact=sample_rate]')?.textContent ?? null,
      last_error: c.querySelector('[data-fact=last_error] .error-text')?.textContent ?? null,
    })),
  );
/** The same, from the API's answer. */
const statusOf = (status: RunScoringStatus) =>
  status.scorers.map((s) => ({
    scorer_id: s.scorer_id,
    version: s.version,
    jobs: Object.fromEntries((['pending', 'computing', 'succeeded', 'failed', 'error', 'not_applicable', 'not_computed'] as const).map((k) => [k, s.jobs[k]])),
    sample_rate: s.sample_rate === null ? '—' : `${s.sample_rate * 100} %`,
    last_error: s.last_error?.message ?? null,
  }));
const llmOnly = [{ type: 'text' as const, column_id: 'type', operator: 'one_of' as const, value: ['llm'] }];

beforeAll(async () => {
  // The server scores what it is sent (4 workers), through the gateway the seed sets: the stub. A judge's
  // answer that does not parse is tried twice, then failed; a held judge is waited for, not timed out.
  stub = await OpenAiStub.start();
  stub.answerWith(supportJudges);
  server = await startServer({
    TRACELIGHT_SCORING_WORKERS: '4',
    TRACELIGHT_SCORING_POLL_MS: '100',
    TRACELIGHT_SCORING_MAX_ATTEMPTS: '2',
    TRACELIGHT_SCORING_RETRY_BASE_MS: '50',
    TRACELIGHT_JUDGE_TIMEOUT_MS: '600000',
  });
  api = new TracelightClient(server.baseUrl, { login: ADMIN });
  [seeded, browser] = await Promise.all([seedConsole(server.baseUrl, { login: ADMIN }, { traces: 60, gateway: stub.url }), launchBrowser()]);
  page = await browser.newPage();
  await signIn(page);
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await stub?.close();
});

describe('signing in', () => {
  it('shows the API’s sentence for a wrong password, signs in with the right one, resumes the session on reload, and signs out', async () => {
    const other = await browser.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p = await other.newPage();
      await signIn(p, 'not the password');
      await p.getByRole('alert').getByText('Incorrect username or password').waitFor();
      await p.getByLabel('Password').fill(ADMIN.password);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('heading', { name: 'Projects' }).waitFor();
      // The token is in the page's memory only: a reload resumes the session with the refresh cookie.
      await p.reload();
      await p.getByRole('heading', { name: 'Projects' }).waitFor();
      expect(await p.evaluate('document.cookie')).toBe(''); // HttpOnly: the page cannot read it
      await p.getByRole('button', { name: 'Sign out' }).click();
      await p.getByRole('heading', { name: 'Sign in' }).waitFor();
      await p.reload();
      await p.getByRole('heading', { name: 'Sign in' }).waitFor();
    } finally {
      await other.close();
    }
  });

  it('says the session has ended when the API refuses it, and signs in again from there', async () => {
    const other = await browser.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p = await other.newPage();
      await signIn(p);
      await p.getByRole('heading', { name: 'Projects' }).waitFor();
      // The session ends elsewhere (another tab signed out, an admin revoked it): the next call is refused.
      await other.request.post(`${server.baseUrl}/logout`);
      await p.getByRole('link', { name: 'Scorers' }).click();
      await p.getByRole('heading', { name: 'Your session has ended' }).waitFor();
      await p.getByRole('button', { name: 'Sign in again' }).click();
      await p.getByLabel('Email').waitFor();
    } finally {
      await other.close();
    }
  });
});

describe('a run’s records', () => {
  it('navigates from the projects to a run seeded through the API', async () => {
    await page.goto(`${server.baseUrl}/console/`);
    await page.getByRole('link', { name: seeded.projectName }).click();
    await page.getByRole('heading', { name: seeded.projectName }).waitFor();
    await page.getByRole('link', { name: 'production' }).click();
    await page.getByRole('heading', { name: 'production' }).waitFor();
    const first = await api.searchTraces(seeded.projectId, scope(), { limit: 50 });
    await settles(() => rowIds(), ids(first.records));
  });

  it('offers exactly the columns available_columns lists for each tab, and shows those with values at first', async () => {
    const { columns } = await api.availableColumns(seeded.projectId, scope());
    for (const [tab, applies] of [
      ['traces', (types: string[]) => types.length === 0 || types.includes('trace')],
      ['spans', (types: string[]) => types.length === 0 || types.some((t) => t !== 'trace' && t !== 'session')],
      ['sessions', (types: string[]) => types.length === 0 || types.includes('session')],
    ] as const) {
      const offered = columns.filter((c) => applies(c.applicable_types));
      await page.goto(`${runUrl()}?tab=${tab}`);
      await settles(() => headerIds(), offered.filter((c) => !c.is_empty).map((c) => c.id));
      await page.getByRole('button', { name: /^Columns/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Columns' });
      // The dialog's content is rendered once it opens: wait for it before reading it whole.
      await dialog.locator('input[name=column]').first().waitFor();
      const picked = await dialog.locator('input[name=column]').evaluateAll((inputs) => inputs.map((i) => [(i as unknown as { value: string; checked: boolean }).value, (i as unknown as { value: string; checked: boolean }).checked]));
      expect(picked).toEqual(offered.map((c) => [c.id, !c.is_empty]));
      // The labels are the catalogue's.
      expect(await dialog.locator('label.check').allTextContents()).toEqual(offered.map((c) => `${c.label}${c.is_empty ? ' (empty)' : ''}`));
      await dialog.getByRole('button', { name: 'Show all' }).click();
      await dialog.getByRole('button', { name: 'Close' }).click();
      await settles(() => headerIds(), offered.map((c) => c.id));
      await page.getByRole('button', { name: /^Columns/ }).click();
      await page.getByRole('dialog', { name: 'Columns' }).getByRole('button', { name: /^Reset/ }).click();
      await page.getByRole('dialog', { name: 'Columns' }).getByRole('button', { name: 'Close' }).click();
    }
    // No column is named in the console: a metric column added to the run appears as the catalogue says.
    const extra = await api.createScorer({ name: `tone-${Date.now()}`, scorer_type: 'llm', label: 'Tone of voice' });
    await api.createLlmVersion(extra.id, { instructions: 'Rate the tone.' });
    const settings = await api.getRunScorers(seeded.projectId, seeded.runId);
    await api.setRunScorers(seeded.projectId, seeded.runId, [...settings.scorers, { scorer_id: extra.id, version: null }]);
    await page.goto(runUrl());
    await page.getByRole('button', { name: /^Columns/ }).click();
    await page.getByRole('dialog', { name: 'Columns' }).getByText('Tone of voice').waitFor();
    await page.getByRole('dialog', { name: 'Columns' }).getByRole('button', { name: 'Close' }).click();
    await api.setRunScorers(seeded.projectId, seeded.runId, settings.scorers);
  });

  const applyFilter = async (label: string, fill: (dialog: ReturnType<Page['getByRole']>) => Promise<void>) => {
    await page.getByRole('button', { name: 'Add filter' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a filter' });
    await dialog.getByLabel('Column').selectOption({ label });
    await fill(dialog);
    await dialog.getByRole('button', { name: 'Apply filter' }).click();
  };

  it('filters by a metric: the rows are the API’s for the same filter, each badge coloured by its threshold level', async () => {
    await page.goto(`${runUrl()}?tab=spans`);
    await applyFilter('Toxicity', async (d) => {
      await d.getByLabel('From', { exact: true }).fill('0.3');
      await d.getByLabel('To', { exact: true }).fill('0.7');
    });
    await page.getByText('Toxicity between 0.3 and 0.7').waitFor();
    const filter: RecordFilter = { type: 'number', column_id: 'metrics/toxicity', operator: 'between', value: [0.3, 0.7] };
    const expected = await api.searchSpans(seeded.projectId, scope(), { filters: [filter], limit: 50 });
    expect(expected.records.length).toBeGreaterThan(0);
    await settles(() => rowIds(), ids(expected.records));
    // 0.3 ≤ value < 0.7 is the threshold's middle level: Medium, amber, as the judge's metric_info says.
    const badges = page.locator('td[data-column-id="metrics/toxicity"] .badge');
    expect(await badges.count()).toBe(expected.records.length);
    expect(new Set(expected.records.map((r) => r.metric_info['toxicity']?.display_value))).toEqual(new Set(['Medium']));
    for (const badge of await badges.all()) {
      expect(await badge.getAttribute('class')).toContain('tone-fair');
      expect(await badge.locator('.badge-level').innerText()).toBe('Medium');
    }
    // Inverted (toxicity): the highest level is the bad one.
    await page.goto(`${runUrl()}?tab=spans&filters=${encodeURIComponent(JSON.stringify([{ type: 'number', column_id: 'metrics/toxicity', operator: 'gte', value: 0.7 }]))}`);
    const high = await api.searchSpans(seeded.projectId, scope(), { filters: [{ type: 'number', column_id: 'metrics/toxicity', operator: 'gte', value: 0.7 }] });
    expect(high.records.length).toBeGreaterThan(0);
    await settles(() => rowIds(), ids(high.records));
    for (const badge of await page.locator('td[data-column-id="metrics/toxicity"] .badge').all()) expect(await badge.getAttribute('class')).toContain('tone-poor');
  });

  it('filters by model, and by an allowed value from a choice list', async () => {
    await page.goto(`${runUrl()}?tab=spans`);
    await applyFilter('Model', async (d) => {
      await d.getByLabel('Text', { exact: true }).fill('claude');
    });
    await page.getByText('Model contains “claude”').waitFor();
    const expected = await api.searchSpans(seeded.projectId, scope(), { filters: [{ type: 'text', column_id: 'model', operator: 'contains', value: 'claude', case_sensitive: false }], limit: 50 });
    expect(expected.records.length).toBeGreaterThan(0);
    expect(expected.records.every((r) => r['model'] === 'claude-3-5-haiku')).toBe(true);
    await settles(() => rowIds(), ids(expected.records));
    // Removing the filter brings every span back; `type` offers its allowed values as a choice list.
    await page.getByRole('button', { name: 'Remove filter Model contains “claude”' }).click();
    await applyFilter('Type', async (d) => {
      expect(await d.locator('input[name=value]').evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string; checked: boolean }).value))).toEqual([
        'retriever',
        'agent',
        'session',
        'control',
        'tool',
        'workflow',
        'llm',
        'trace',
      ]);
      await d.getByLabel('tool', { exact: true }).check();
    });
    const tools = await api.searchSpans(seeded.projectId, scope(), { filters: [{ type: 'text', column_id: 'type', operator: 'one_of', value: ['tool'] }], limit: 50 });
    await settles(() => rowIds(), ids(tools.records));
  });

  it('sorts by a column, ascending then descending', async () => {
    await page.goto(`${runUrl()}?tab=spans`);
    const header = page.locator('th[data-column-id="metrics/toxicity"]');
    await header.getByRole('button').click();
    const ascending = await api.searchSpans(seeded.projectId, scope(), { sort: { column_id: 'metrics/toxicity', ascending: true }, limit: 50 });
    await settles(() => rowIds(), ids(ascending.records));
    expect(await header.getAttribute('aria-sort')).toBe('ascending');
    await header.getByRole('button').click();
    const descending = await api.searchSpans(seeded.projectId, scope(), { sort: { column_id: 'metrics/toxicity', ascending: false }, limit: 50 });
    await settles(() => rowIds(), ids(descending.records));
    expect(await header.getAttribute('aria-sort')).toBe('descending');
    const values = descending.records.map((r) => r.metrics['toxicity']).filter((v): v is number => typeof v === 'number');
    expect(values).toEqual([...values].sort((a, b) => b - a));
  });

  it('pages with starting_token, forwards and back', async () => {
    await page.goto(runUrl());
    await page.getByLabel('Rows').selectOption('25');
    const pages = [0, 25, 50].map((start) => api.searchTraces(seeded.projectId, scope(), { starting_token: start, limit: 25 }));
    const [first, second, third] = await Promise.all(pages);
    await settles(() => rowIds(), ids(first!.records));
    await page.getByRole('button', { name: 'Next' }).click();
    await settles(() => rowIds(), ids(second!.records));
    await page.getByText('Rows 26–50').waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await settles(() => rowIds(), ids(third!.records));
    expect(third!.next_starting_token).toBeNull();
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous' }).click();
    await settles(() => rowIds(), ids(second!.records));
    // The address holds the search: the back button and a reload give the same page.
    await page.reload();
    await settles(() => rowIds(), ids(second!.records));
  });

  it('limits the records to a time range', async () => {
    await page.goto(runUrl());
    await page.getByLabel('Time').selectOption('1h');
    const since = { type: 'date' as const, column_id: 'created_at', operator: 'gte' as const, value: new Date(Date.now() - 3_600_000 + 60_000).toISOString() };
    const recent = await api.searchTraces(seeded.projectId, scope(), { filters: [since], limit: 50 });
    await settles(async () => (await rowIds()).slice(0, 10), ids(recent.records).slice(0, 10));
  });

  it('opens a session’s traces from the sessions tab', async () => {
    await page.goto(`${runUrl()}?tab=sessions`);
    const sessions = await api.searchSessions(seeded.projectId, scope(), { limit: 50 });
    await settles(() => rowIds(), ids(sessions.records));
    await page.locator(`tr[data-record-id="${seeded.sessionIds[0]}"] a.open-link`).click();
    const inSession = await api.searchTraces(seeded.projectId, scope(), { filters: [{ type: 'id', column_id: 'session_id', operator: 'eq', value: seeded.sessionIds[0]! }] });
    expect(inSession.records).toHaveLength(3);
    await settles(() => rowIds(), ids(inSession.records));
  });
});

describe('a trace', () => {
  it('shows the span tree as a waterfall: durations to scale, failures marked; a span’s messages as a conversation', async () => {
    // The fourth conversation (i = 3) is one whose tool fails.
    const traceId = seeded.traceIds[3]!;
    await page.goto(runUrl());
    await page.locator(`tr[data-record-id="${traceId}"] a.open-link`).click();
    const spans = await api.searchSpans(seeded.projectId, scope(), { filters: [{ type: 'id', column_id: 'trace_id', operator: 'eq', value: traceId }] });
    const rows = page.locator('.waterfall-row');
    await settles(() => rows.count(), spans.records.length + 1);
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-record-id')))).toEqual([
      traceId,
      ...['workflow', 'retriever', 'tool', 'llm'].map((type) => spans.records.find((s) => s.type === type)!.id),
    ]);
    // Bars to scale: each bar's width is its duration's share of the trace's.
    const bars = await page.locator('.waterfall-bar').evaluateAll((els) =>
      els.map((e) => ({ width: e.getBoundingClientRect().width, track: e.parentElement!.getBoundingClientRect().width, ms: Number(e.getAttribute('data-duration-ms')) })),
    );
    const total = bars[0]!.ms;
    for (const bar of bars) expect(Math.abs(bar.width / bar.track - bar.ms / total)).toBeLessThan(0.02);
    // The failed tool and the trace are marked.
    expect(await page.locator('.waterfall-row.failed').evaluateAll((els) => els.map((e) => e.getAttribute('data-record-id')))).toEqual([traceId, spans.records.find((s) => s.type === 'tool')!.id]);
    await page.locator('.waterfall-row', { hasText: 'lookup_order' }).getByText('Error').waitFor();
    // The LLM span: model, tokens, and its messages as a conversation.
    const llm = spans.records.find((s) => s.type === 'llm')!;
    await page.locator('.waterfall-row', { hasText: 'chat completion' }).click();
    const details = page.locator('section.details');
    await details.getByRole('heading', { name: 'chat completion' }).waitFor();
    await details.getByText(String(llm['model'])).waitFor();
    await details.getByText(`${llm.metrics['num_input_tokens']} in · ${llm.metrics['num_output_tokens']} out`).waitFor();
    const input = details.getByRole('list', { name: 'Input: 2 messages' });
    expect(await input.locator('.message-role').allInnerTexts()).toEqual(['SYSTEM', 'USER']);
    const messages = llm.input as Array<{ content: string }>;
    expect(await input.locator('.text').allInnerTexts()).toEqual(messages.map((m) => m.content));
    expect(await details.getByRole('list', { name: 'Output: 1 message' }).locator('.text').innerText()).toBe((llm.output as { content: string }).content);
    // Its metrics as the engine scored them: toxicity's level and the judge's explanation; correctness,
    // whose judges answered no JSON for this conversation, failed, with the reason in place of a value.
    expect(page.url()).toContain(`span=${llm.id}`);
    const toxicity = llm.metric_info['toxicity']!;
    const correctness = llm.metric_info['correctness']!;
    expect([toxicity.status_type, correctness.status_type]).toEqual(['success', 'failed']);
    const tox = details.locator('[data-metric="toxicity"]');
    expect(await tox.locator('.badge-level').innerText()).toBe(toxicity.display_value);
    expect(await tox.locator('.metric-explanation').innerText()).toBe(toxicity.explanation);
    expect(await tox.locator('.metric-status').innerText()).toBe(`Scored · ${toxicity.model_alias} · version 1`);
    const corr = details.locator('[data-metric="correctness"]');
    expect(await corr.getAttribute('data-status')).toBe('failed');
    expect(await corr.locator('.status').innerText()).toBe('Failed');
    expect(correctness.message).toContain('I cannot judge this reply.');
    expect(await corr.locator('.metric-explanation').innerText()).toBe(correctness.message);
    // Another conversation's correctness: three judges, each one's explanation listed.
    const other = seeded.traceIds[1]!;
    const [otherLlm] = (await api.searchSpans(seeded.projectId, scope(), { filters: [{ type: 'id', column_id: 'trace_id', operator: 'eq', value: other }, ...llmOnly] })).records;
    await page.goto(`${runUrl()}/traces/${other}?span=${otherLlm!.id}`);
    const judged = page.locator('section.details [data-metric="correctness"]');
    await judged.locator('details.metric-judges summary').click();
    expect(await judged.locator('details.metric-judges li').allInnerTexts()).toEqual(otherLlm!.metric_info['correctness']!.explanations);
    expect(otherLlm!.metric_info['correctness']!.explanations).toHaveLength(3);
    expect(await judged.locator('.badge-level').innerText()).toBe(otherLlm!.metric_info['correctness']!.display_value);
  });

  it('folds and searches JSON, and moves through the spans by keyboard', async () => {
    const traceId = seeded.traceIds[0]!;
    await page.goto(`${runUrl()}/traces/${traceId}`);
    await page.locator('.waterfall-row', { hasText: 'lookup_order' }).click();
    const output = page.locator('section.details section.io').nth(1);
    await output.getByRole('searchbox', { name: 'Search in Output' }).fill('packed');
    await output.locator('mark', { hasText: 'packed' }).waitFor();
    expect(await output.locator('details.json-branch[open]').count()).toBeGreaterThan(1);
    // Keyboard: the selected row has the focus; arrows move the selection.
    await page.locator('.waterfall-row.selected').focus();
    await page.keyboard.press('ArrowDown');
    await page.locator('section.details').getByRole('heading', { name: 'chat completion' }).waitFor();
    await page.keyboard.press('Home');
    await page.locator('section.details h2').filter({ hasText: /^support:/ }).waitFor();
    expect(await page.evaluate("document.activeElement?.getAttribute('data-record-id')")).toBe(traceId);
  });

  it('shows a judge’s explanation on hover and on focus, a trace’s roll-up, and a failed scoring’s reason in place of its value', async () => {
    const llm = await api.searchSpans(seeded.projectId, scope(), { filters: llmOnly, limit: 50 });
    await page.goto(`${runUrl()}?tab=spans&filters=${encodeURIComponent(JSON.stringify(llmOnly))}`);
    await settles(() => rowIds(), ids(llm.records));
    const scored = llm.records.find((r) => r.metric_info['toxicity']?.status_type === 'success' && r.metric_info['correctness']?.status_type === 'success')!;
    const row = page.locator(`tr[data-record-id="${scored.id}"]`);
    const badge = row.locator('td[data-column-id="metrics/toxicity"] .has-tip');
    const tip = badge.locator('[role=tooltip]');
    expect(await tip.isVisible()).toBe(false);
    await badge.hover();
    await tip.waitFor({ state: 'visible' });
    const toxicity = scored.metric_info['toxicity']!;
    expect(await tip.innerText()).toBe(`${toxicity.explanation}\n\n${toxicity.model_alias} · version 1`);
    // The same on keyboard focus; three judges say so.
    await page.mouse.move(0, 0);
    expect(await tip.isVisible()).toBe(false);
    const correctness = row.locator('td[data-column-id="metrics/correctness"] .has-tip');
    await correctness.focus();
    const judged = scored.metric_info['correctness']!;
    expect(await correctness.locator('[role=tooltip]').innerText()).toBe(`${judged.explanation}\n\n3 judges · ${judged.model_alias} · version 2`);
    expect(await correctness.locator('.badge-level').innerText()).toBe(judged.display_value);
    // A scoring that failed shows its status, and its reason on focus.
    const failed = llm.records.filter((r) => r.metric_info['correctness']?.status_type === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    const cell = page.locator(`tr[data-record-id="${failed[0]!.id}"] td[data-column-id="metrics/correctness"]`);
    expect(await cell.innerText()).toBe('Failed');
    await cell.locator('.has-tip').focus();
    expect(await cell.locator('[role=tooltip]').innerText()).toBe(failed[0]!.metric_info['correctness']!.message);
    // A trace's value is the average of its scored spans, and says so.
    const traces = await api.searchTraces(seeded.projectId, scope(), { limit: 50 });
    await page.goto(runUrl());
    await settles(() => rowIds(), ids(traces.records));
    const trace = traces.records.find((r) => r.metric_info['toxicity']?.roll_up_method === 'average')!;
    const rolled = page.locator(`tr[data-record-id="${trace.id}"] td[data-column-id="metrics/toxicity"] .has-tip`);
    await rolled.focus();
    expect(trace.metric_info['toxicity']).toMatchObject({ roll_up_count: 1, explanation: 'The average of 1 scored descendant.' });
    expect(await rolled.locator('[role=tooltip]').innerText()).toBe('The average of 1 scored descendant.\n\nversion 1');
    expect(await rolled.locator('.badge-level').innerText()).toBe(trace.metric_info['toxicity']!.display_value);
  });
});

describe('a metric’s status, as the engine gives it', () => {
  it('shows Pending while the judges have not answered and Error where a scorer cannot run, then the values; the run’s status counts the jobs as they go', async () => {
    const canary = await api.createLogStream(seeded.projectId, `canary ${Date.now()}`);
    const verdict = await api.createScorer({ name: `verdict-${Date.now()}`, scorer_type: 'llm', label: 'Verdict' });
    await api.createLlmVersion(verdict.id, { instructions: 'Say what you think of the reply.', output_type: 'freeform' });
    await api.setRunScorers(seeded.projectId, canary.id, [{ scorer_id: seeded.scorerIds.toxicity }, { scorer_id: seeded.scorerIds.correctness }, { scorer_id: verdict.id }]);
    const canaryUrl = runUrl('log_streams', canary.id);
    const canaryStatus = async () => statusOf(await api.metricsStatus(seeded.projectId, canary.id));
    const asked = stub.completions.length;
    const release = stub.hold();
    try {
      // Question 4 of the seed's: toxicity High, two of three correctness judges say yes.
      const sent = await api.ingestTraces(seeded.projectId, { log_stream_id: canary.id, traces: [traceOf(4, Date.now() - 1000, random(4))], include_trace_ids: true });
      const traceId = sent.trace_ids![0]!;
      // Both judges have been asked and hold their answers: two jobs in hand; the freeform one ended in error at once.
      await settles(async () => stub.completions.length - asked, 2);
      await settles(async () => (await canaryStatus()).map((s) => [s.jobs['computing'], s.jobs['error']]), [
        [1, 0],
        [1, 0],
        [0, 1],
      ]);
      const during = await canaryStatus();
      await page.goto(`${canaryUrl}/settings`);
      await settles(() => statusShown(), during);
      expect(during[2]!.last_error).toMatch(/output type "freeform" is not one an LLM judge gives/);
      // The span's metrics: both judges' pending, the freeform scorer's error with its reason.
      const [span] = (await api.searchSpans(seeded.projectId, { log_stream_id: canary.id }, { filters: llmOnly })).records;
      expect([span!.metric_info['toxicity']?.status_type, span!.metric_info['correctness']?.status_type, span!.metric_info[verdict.name]?.status_type]).toEqual(['pending', 'pending', 'error']);
      await page.goto(`${canaryUrl}/traces/${traceId}?span=${span!.id}`);
      const metric = (name: string) => page.locator(`section.details [data-metric="${name}"]`);
      await settles(() => Promise.all(['toxicity', 'correctness', verdict.name].map((m) => metric(m).locator('.status').innerText())), ['Pending', 'Pending', 'Error']);
      expect(await metric(verdict.name).locator('.metric-explanation').innerText()).toBe(span!.metric_info[verdict.name]!.message);
      // In the table too, once the (still empty) metric columns are picked.
      await page.goto(`${canaryUrl}?tab=spans&filters=${encodeURIComponent(JSON.stringify(llmOnly))}`);
      await page.getByRole('button', { name: /^Columns/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Columns' });
      await dialog.getByRole('button', { name: 'Show all' }).click();
      await dialog.getByRole('button', { name: 'Close' }).click();
      const cell = (name: string) => page.locator(`tr[data-record-id="${span!.id}"] td[data-column-id="metrics/${name}"]`);
      await settles(() => Promise.all(['toxicity', 'correctness', verdict.name].map((m) => cell(m).innerText())), ['Pending', 'Pending', 'Error']);
      await cell('toxicity').locator('.has-tip').focus();
      expect(await cell('toxicity').locator('[role=tooltip]').innerText()).toBe('Queued for scoring: a judge has not answered yet.');
    } finally {
      release();
    }
    // The judges answer: the values, their levels and explanations replace the statuses.
    await scoringSettles(api, seeded.projectId, canary.id, 1);
    const [scored] = (await api.searchSpans(seeded.projectId, { log_stream_id: canary.id }, { filters: llmOnly })).records;
    expect([scored!.metric_info['toxicity']?.display_value, scored!.metric_info['correctness']?.display_value]).toEqual(['High', 'Fair']);
    await page.reload();
    const cell = (name: string) => page.locator(`tr[data-record-id="${scored!.id}"] td[data-column-id="metrics/${name}"]`);
    await settles(() => Promise.all(['toxicity', 'correctness'].map((m) => cell(m).locator('.badge-level').innerText())), ['High', 'Fair']);
    expect(await cell('toxicity').locator('.badge').getAttribute('class')).toContain('tone-poor');
    await cell('toxicity').locator('.has-tip').focus();
    expect(await cell('toxicity').locator('[role=tooltip]').innerText()).toContain(scored!.metric_info['toxicity']!.explanation!);
    // The settings page, left open while the jobs were in hand, has caught up by itself.
    await page.goto(`${canaryUrl}/settings`);
    const after = await canaryStatus();
    expect(after.map((s) => [s.jobs['succeeded'], s.jobs['error']])).toEqual([
      [1, 0],
      [1, 0],
      [0, 1],
    ]);
    await settles(() => statusShown(), after);
  });
});

describe('settings', () => {
  it('changes a run’s insights settings, and the API returns them', async () => {
    await page.goto(`${runUrl()}/settings`);
    await page.getByRole('switch', { name: 'Insights enabled' }).check();
    await page.getByLabel(/^Start time/).fill('2026-11-23T09:30:15');
    await page.getByRole('button', { name: 'Save insights' }).click();
    await page.getByText(/^Saved: insights on/).waitFor();
    const insights = await api.getInsights(seeded.projectId, seeded.runId);
    // The browser's zone is the machine's: the time sent is that local time as an instant.
    const expectedStart = await page.evaluate(() => new Date('2026-11-23T09:30:15').toISOString());
    expect(insights).toEqual({ run_id: seeded.runId, insights: { logstream: { enabled: true, start_time: expectedStart } } });
    await page.reload();
    expect(await page.getByRole('switch', { name: 'Insights enabled' }).isChecked()).toBe(true);
    await page.getByRole('switch', { name: 'Insights enabled' }).uncheck();
    await page.getByLabel(/^Start time/).fill('');
    await page.getByRole('button', { name: 'Save insights' }).click();
    await page.getByText('Saved: insights off.').waitFor();
    expect(await api.getInsights(seeded.projectId, seeded.runId)).toEqual({ run_id: seeded.runId, insights: { logstream: { enabled: false, start_time: null } } });
  });

  it('sets the gateway integration; the token appears in neither the page nor any answer it received', async () => {
    const token = `gw-${Date.now()}-secret-token-value`;
    const bodies: string[] = [];
    const collect = async (r: Response) => {
      try {
        bodies.push(`${JSON.stringify(await r.allHeaders())}\n${(await r.body()).toString('utf8')}`);
      } catch {
        /* a redirect or an aborted response has no body */
      }
    };
    page.on('response', collect);
    try {
      // The seed set the stub as the gateway the judges are called through: its endpoint shows, its token never.
      await page.goto(`${server.baseUrl}/console/settings/gateway`);
      await page.getByText('Set (never shown)').waitFor();
      expect(await page.locator('code', { hasText: stub.url }).count()).toBe(1);
      // A new token and use case for it (an endpoint of the world would be called by the judges of this server).
      await page.getByLabel(/^Endpoint/).fill(stub.url);
      await page.getByLabel(/^Use case/).fill('CUSTOMER_SUPPORT');
      await page.getByLabel(/^Token/).fill(token);
      await page.getByRole('button', { name: 'Save gateway' }).click();
      await page.getByText('Gateway integration saved.').waitFor();
      await page.getByText('Set (never shown)').waitFor();
      expect(await page.getByLabel(/^Token/).inputValue()).toBe('');
      await page.reload();
      await page.getByText('Set (never shown)').waitFor();
      expect(await page.locator('code', { hasText: stub.url }).count()).toBe(1);
      await page.getByText('CUSTOMER_SUPPORT', { exact: true }).waitFor();
      const html = await page.content();
      expect(html).not.toContain(token);
    } finally {
      page.off('response', collect);
    }
    expect(bodies.length).toBeGreaterThan(3);
    expect(bodies.filter((b) => b.includes(token))).toEqual([]);
    const stored = await api.getGatewayIntegration();
    expect((stored as { extra?: unknown }).extra).toEqual({ endpoint: stub.url, use_case: 'CUSTOMER_SUPPORT' });
    // Someone without one is told so.
    const other = await browser.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const newcomer = { email: `newcomer-${Date.now()}@example.com`, password: 'a long enough password' };
      await api.createUser(newcomer);
      const p = await other.newPage();
      await p.goto(`${server.baseUrl}/console/`);
      await p.getByLabel('Email').fill(newcomer.email);
      await p.getByLabel('Password').fill(newcomer.password);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('heading', { name: 'Projects' }).waitFor();
      await p.goto(`${server.baseUrl}/console/settings/gateway`);
      await p.getByText('No gateway integration is set.').waitFor();
    } finally {
      await other.close();
    }
    // A refusal is the API's sentence.
    await page.getByLabel(/^Endpoint/).fill('https://user:pw@gateway.example.com/');
    await page.getByLabel(/^Token/).fill('x');
    await page.getByRole('button', { name: 'Save gateway' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toMatch(/endpoint/i);
  });

  it('creates an API key, shown once, that works; revoking it stops it', async () => {
    await page.goto(`${server.baseUrl}/console/settings/api-keys`);
    const description = `browser key ${Date.now()}`;
    await page.getByLabel('Description').fill(description);
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new API key' });
    const key = await dialog.getByTestId('new-api-key').innerText();
    expect(key.length).toBeGreaterThan(20);
    expect((await new TracelightClient(server.baseUrl, { apiKey: key }).currentUser()).email).toBe(ADMIN.email);
    await dialog.getByRole('button', { name: 'Done' }).click();
    // Listed without its secret.
    const row = page.locator('tr', { hasText: description });
    await row.waitFor();
    expect(await page.content()).not.toContain(key);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Revoke key' }).click();
    await row.waitFor({ state: 'detached' });
    const refused = await new TracelightClient(server.baseUrl, { apiKey: key }).currentUser().catch((e: { status: number }) => e.status);
    expect(refused).toBe(401);
  });

  it('shows the run’s scoring status as the API answers it: each scorer’s jobs by state, sample rate, the last error', async () => {
    const status = await api.metricsStatus(seeded.projectId, seeded.runId);
    // Every LLM span scored by both scorers; the correctness judges of two conversations answered no JSON.
    expect(status.scorers.map((s) => [s.scorer_id, s.version, s.in_use, s.jobs.succeeded, s.jobs.failed])).toEqual([
      [seeded.scorerIds.toxicity, 1, true, seeded.tracesCount, 0],
      [seeded.scorerIds.correctness, 2, true, seeded.tracesCount - 2, 2],
    ]);
    expect(status.scorers[1]!.tokens.prompt).toBeGreaterThan(0);
    await page.goto(`${runUrl()}/settings`);
    await settles(() => statusShown(), statusOf(status));
    expect(statusOf(status)[1]!.last_error).toContain('I cannot judge this reply.');
    const card = page.locator(`section.scorer-status[data-scorer-id="${seeded.scorerIds.correctness}"]`);
    // Digits only: the page groups them in the reader's locale.
    expect((await card.locator('[data-fact=tokens]').innerText()).replace(/[^0-9a-z·]/g, '')).toBe(`${status.scorers[1]!.tokens.prompt}prompt·${status.scorers[1]!.tokens.completion}completion`);
  });

  it('lists a scorer’s versions a page at a time (operation 5), and attaches a scorer to a run with a pinned version and a sample rate, which the API keeps', async () => {
    const scorer = await api.createScorer({ name: `paged-${Date.now()}`, scorer_type: 'llm' });
    for (let v = 1; v <= 12; v++) await api.createLlmVersion(scorer.id, { instructions: `version number ${v}` });
    await page.goto(`${server.baseUrl}/console/scorers`);
    await page.getByRole('link', { name: scorer.name }).click();
    const versions = () => page.locator('li.version').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-version'))));
    await settles(versions, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    await page.getByRole('button', { name: 'Next' }).click();
    await settles(versions, [11, 12]);
    expect((await api.listScorerVersions(scorer.id, { starting_token: 10, limit: 10 })).versions.map((v) => v.version)).toEqual([11, 12]);
    // Attach it to the run, pinned to version 11, half the records sampled.
    await page.goto(`${runUrl()}/settings`);
    await page.locator('select[name=attach-scorer]').selectOption({ label: scorer.name });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByLabel(`Version of ${scorer.name}`).selectOption('11');
    await page.getByLabel(`Sample rate of ${scorer.name}`).fill('0.5');
    await page.getByRole('button', { name: 'Save scorers' }).click();
    await page.getByText('Scorers saved.').waitFor();
    const settings = await api.getRunScorers(seeded.projectId, seeded.runId);
    expect(settings.scorers).toEqual([
      { scorer_id: seeded.scorerIds.toxicity, version: null, sample_rate: 1 },
      { scorer_id: seeded.scorerIds.correctness, version: null, sample_rate: 1 },
      { scorer_id: scorer.id, version: 11, sample_rate: 0.5 },
    ]);
    // Read back: the page shows what the API kept, and the status lists the new scorer's version with its rate.
    await page.reload();
    expect(await page.getByLabel(`Version of ${scorer.name}`).inputValue()).toBe('11');
    expect(await page.getByLabel(`Sample rate of ${scorer.name}`).inputValue()).toBe('0.5');
    const status = await api.metricsStatus(seeded.projectId, seeded.runId);
    expect(status.scorers.at(-1)).toMatchObject({ scorer_id: scorer.id, version: 11, in_use: true, sample_rate: 0.5 });
    await settles(() => statusShown(), statusOf(status));
    expect(await page.locator(`section.scorer-status[data-scorer-id="${scorer.id}"] [data-fact=sample_rate]`).innerText()).toBe('50 %');
  });
});

describe('errors, keyboard and layout', () => {
  it('shows the API’s sentence for a refusal, never a blank page', async () => {
    await page.goto(`${server.baseUrl}/console/`);
    await page.getByLabel('New project').fill(seeded.projectName);
    await page.getByRole('button', { name: 'Create project' }).click();
    // The sentence is the API's 409 detail, as the API gives it to any client.
    const detail = await api.createProject({ name: seeded.projectName }).then(
      () => 'created',
      (e: { status: number; detail: string }) => `${e.status} ${e.detail}`,
    );
    expect(detail).toMatch(/^409 ./);
    await page.getByRole('alert').getByText(detail.slice(4)).waitFor();
    await page.goto(`${server.baseUrl}/console/projects/0190b7a8-0000-7000-8000-000000000000`);
    await page.getByRole('alert').getByText('Project not found').waitFor();
    await page.goto(`${server.baseUrl}/console/no/such/page`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  });

  it('can be used by keyboard alone: sign in, reach a run, open a trace', async () => {
    const other = await browser.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p = await other.newPage();
      await p.goto(`${server.baseUrl}/console/`);
      await p.getByLabel('Email').waitFor();
      await p.keyboard.type(ADMIN.email); // the email field has the focus
      await p.keyboard.press('Tab');
      await p.keyboard.type(ADMIN.password);
      await p.keyboard.press('Enter');
      await p.getByRole('heading', { name: 'Projects' }).waitFor();
      const focusOn = async (name: string) => {
        for (let i = 0; i < 60; i++) {
          await p.keyboard.press('Tab');
          if ((await p.evaluate('document.activeElement?.textContent?.trim()')) === name) return;
        }
        throw new Error(`Tab never reached ${name}`);
      };
      await focusOn(seeded.projectName);
      await p.keyboard.press('Enter');
      await focusOn('production');
      await p.keyboard.press('Enter');
      await p.locator('table.records-table tbody tr').first().waitFor();
      await focusOn('→');
      await p.keyboard.press('Enter');
      await p.locator('.waterfall-row').first().waitFor();
    } finally {
      await other.close();
    }
  });

  it('holds right-to-left text and long names, at 1280×800 and in a narrow window, without overflowing the page', async () => {
    const other = await browser.browser.newContext({ viewport: { width: 400, height: 800 } });
    try {
      const p = await other.newPage();
      await signIn(p);
      await p.getByRole('heading', { name: 'Projects' }).waitFor();
      const overflow = () => p.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      const longTrace = seeded.traceIds[seeded.traceIds.length - 1]!;
      const rtlTrace = seeded.traceIds[seeded.traceIds.length - 2]!;
      for (const width of [400, 1280]) {
        await p.setViewportSize({ width, height: 800 });
        for (const path of ['/', `/projects/${seeded.projectId}`, `/projects/${seeded.projectId}/log_streams/${seeded.runId}`, `/projects/${seeded.projectId}/log_streams/${seeded.runId}/traces/${longTrace}`, `/projects/${seeded.projectId}/log_streams/${seeded.runId}/settings`, '/settings/api-keys']) {
          await p.goto(`${server.baseUrl}/console${path}`);
          await p.locator('main h1').first().waitFor();
          await p.waitForLoadState('networkidle');
          expect([width, path, await overflow()]).toEqual([width, path, 0]);
        }
      }
      // The right-to-left name is laid out right to left where it is shown.
      await p.goto(`${server.baseUrl}/console/projects/${seeded.projectId}/log_streams/${seeded.runId}/traces/${rtlTrace}`);
      const heading = p.locator('main h1');
      await heading.getByText('مساعد الدعم').waitFor();
      expect(await heading.evaluate((h) => h.ownerDocument.defaultView?.getComputedStyle(h).direction)).toBe('rtl');
    } finally {
      await other.close();
    }
  });
});
