// Every column the catalogue offers can be used as it says: each filterable column with each operator
// of its filter type, each sortable column either way, on traces, spans and sessions, answers 200. The
// run has a scorer of every output type enabled, named with the characters storage paths trip on, and
// records that fill the columns and leave some empty. (Written after sorting or filtering by some metric
// columns was found to answer 503: the fuzz suite sends bad input, this one every valid combination.)
import { randomUUID } from 'node:crypto';
import { startWorld, type World } from '../support/world';

let w: World;
let projectId: string;
let runId: string;

interface Column {
  id: string;
  filter_type: string;
  filterable: boolean;
  sortable: boolean;
}

const OUTPUT_TYPES = ['percentage', 'boolean', 'integer', 'categorical', 'multilabel', 'freeform'];
const AT = '2026-11-20T10:00:00.000Z';

/** The operators of each filter type, each with a value of the shape it takes. */
const FILTERS: Readonly<Record<string, ReadonlyArray<readonly [string, unknown]>>> = {
  text: [['eq', 'x'], ['ne', 'x'], ['contains', 'x'], ['one_of', ['x', 'Y']], ['not_in', ['x', 'Y']]],
  number: [['eq', 1], ['ne', 1], ['gt', 0.5], ['gte', 0.5], ['lt', 0.5], ['lte', 0.5], ['between', [0, 2]]],
  date: [['eq', AT], ['ne', AT], ['gt', AT], ['gte', AT], ['lt', AT], ['lte', AT], ['between', [AT, '2026-11-21T00:00:00Z']]],
  id: [['eq', randomUUID()], ['ne', randomUUID()], ['one_of', [randomUUID()]], ['not_in', [randomUUID()]]],
  collection: [['contains', 'x'], ['not_in', ['x', 'y']]],
  boolean: [['eq', true], ['ne', false]],
};

let columns: Column[] = [];

beforeAll(async () => {
  w = await startWorld();
  projectId = await w.project(w.admin);
  runId = await w.run(w.admin, projectId, 'log_streams');
  const metrics: Record<string, number> = {};
  const scorers = [];
  for (const [i, outputType] of OUTPUT_TYPES.entries()) {
    const name = `${outputType} v1.2 "q" \\ $x%${i} ${randomUUID().slice(0, 6)}`;
    const scorer = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name, scorer_type: 'llm' } }));
    w.ok(await w.call('POST', `/v2/scorers/${scorer.id}/version/llm`, { auth: w.admin, json: { instructions: 'Judge', output_type: outputType } }));
    scorers.push({ scorer_id: scorer.id });
    metrics[name] = i;
  }
  w.ok(await w.call('POST', `/v2/projects/${projectId}/runs/${runId}/scorer-settings`, { auth: w.admin, json: { scorers } }));
  const session = w.ok(await w.call('POST', `/v2/projects/${projectId}/sessions`, { auth: w.admin, json: { log_stream_id: runId, name: 'chat' } }));
  const traces = [metrics, {}].map((m) => {
    const id = randomUUID();
    return {
      id,
      name: 'chat',
      session_id: session.id,
      input: 'What is the capital of France?',
      output: 'Paris',
      created_at: AT,
      tags: ['x'],
      user_metadata: { customer: 'acme' },
      metrics: m,
      spans: [
        { type: 'llm', id: randomUUID(), name: 'openai.chat', input: [{ role: 'user', content: 'x' }], output: { role: 'assistant', content: 'Paris' }, model: 'gpt-4o-mini', temperature: 0.2, metrics: m },
        { type: 'tool', id: randomUUID(), name: 'lookup', input: 'x', output: 'y', tool_call_id: 'call_1' },
      ],
    };
  });
  w.ok(await w.call('POST', `/v2/projects/${projectId}/traces`, { auth: w.admin, json: { log_stream_id: runId, traces } }));
  columns = w.ok(await w.call('POST', `/v2/projects/${projectId}/spans/available_columns`, { auth: w.admin, json: { log_stream_id: runId } })).columns;
});
afterAll(() => w.server.stop());

const search = (scope: string, body: Record<string, unknown>) =>
  w.call('POST', `/v2/projects/${projectId}/${scope}/search`, { auth: w.admin, json: { log_stream_id: runId, ...body } });

/** The requests that did not answer 200, as `scope column operator → status body`. */
const failuresOf = async (requests: ReadonlyArray<readonly [string, string, Record<string, unknown>]>) => {
  const failures: string[] = [];
  for (const [scope, what, body] of requests) {
    const r = await search(scope, body);
    if (r.status !== 200 || !Array.isArray(r.body.records)) failures.push(`${scope} ${what} → ${r.status} ${r.text.slice(0, 200)}`);
  }
  return failures;
};

const SCOPES = ['traces', 'spans', 'sessions'];

it('offers metric columns of every kind, among filterable and sortable ones', () => {
  const metricTypes = new Set(columns.filter((c) => c.id.startsWith('metrics/') && c.id.includes('v1.2')).map((c) => c.filter_type));
  expect(metricTypes).toEqual(new Set(['number', 'text', 'collection']));
  expect(columns.filter((c) => c.filterable).length).toBeGreaterThan(20);
  expect(columns.filter((c) => c.sortable).length).toBeGreaterThan(10);
});

it('answers 200 to every filterable column with every operator of its filter type', async () => {
  const requests = SCOPES.flatMap((scope) =>
    columns
      .filter((c) => c.filterable)
      .flatMap((c) =>
        (FILTERS[c.filter_type] ?? []).flatMap(([operator, value]) =>
          (c.filter_type === 'text' ? [true, false] : [undefined]).map(
            (caseSensitive) =>
              [
                scope,
                `${c.id} ${operator}${caseSensitive === undefined ? '' : caseSensitive ? ' (case-sensitive)' : ''}`,
                { filters: [{ column_id: c.id, type: c.filter_type, operator, value, ...(caseSensitive === undefined ? {} : { case_sensitive: caseSensitive }) }] },
              ] as const,
          ),
        ),
      ),
  );
  expect(requests.length).toBeGreaterThan(300);
  expect(await failuresOf(requests)).toEqual([]);
});

it('answers 200 to a sort by every sortable column, either way', async () => {
  const requests = SCOPES.flatMap((scope) =>
    columns
      .filter((c) => c.sortable)
      .flatMap((c) => [true, false].map((ascending) => [scope, `sort ${c.id} ${ascending ? 'asc' : 'desc'}`, { sort: { column_id: c.id, ascending } }] as const)),
  );
  expect(await failuresOf(requests)).toEqual([]);
});
