// Spec operation 4: POST /v2/projects/{project_id}/spans/available_columns.
import { randomUUID } from 'node:crypto';
import { ADMIN } from '../support/server';
import { startWorld, type World } from '../support/world';

let w: World;
let projectId: string;
let logStreamId: string;
let experimentId: string;
beforeAll(async () => {
  w = await startWorld();
  projectId = await w.project(w.admin);
  logStreamId = await w.run(w.admin, projectId, 'log_streams');
  experimentId = await w.run(w.admin, projectId, 'experiments');
});
afterAll(() => w.server.stop());

const columnsOf = (body: Record<string, unknown>, auth = w.admin) =>
  w.call('POST', `/v2/projects/${projectId}/spans/available_columns`, { auth, json: body });

const STANDARD_IDS = [
  'input', 'output', 'name', 'created_at', 'id', 'external_id', 'progress_message', 'error_message', 'tags',
  'status_code', 'dataset_input', 'dataset_output', 'session_id', 'project_id', 'run_id', 'updated_at',
  'has_children', 'is_complete', 'type', 'trace_id', 'parent_id', 'step_number', 'agent_type', 'tools', 'model',
  'temperature', 'finish_reason', 'tool_call_id', 'control_id', 'agent_name', 'check_stage', 'applies_to',
  'evaluator_name', 'selector_path',
];

describe('available columns', () => {
  it('lists the 34 standard columns in the spec’s order for a log stream', async () => {
    const r = await columnsOf({ log_stream_id: logStreamId });
    expect(r.status).toBe(200);
    expect(r.body.columns.map((c: { id: string }) => c.id)).toEqual(STANDARD_IDS);
    expect(r.body.columns[0]).toEqual({
      id: 'input',
      label: 'Input',
      description: expect.any(String),
      category: 'standard',
      group_label: 'Standard',
      data_type: 'text',
      filter_type: 'text',
      filterable: true,
      sortable: true,
      multi_valued: false,
      is_empty: true, // nothing ingested into this run yet
      is_optional: false,
      applicable_types: ['retriever', 'agent', 'session', 'control', 'tool', 'workflow', 'llm', 'trace'],
    });
    const tags = r.body.columns.find((c: { id: string }) => c.id === 'tags');
    expect(tags).toMatchObject({ data_type: 'string_list', filter_type: 'collection', sortable: false, multi_valued: true });
    expect(tags.applicable_types).not.toContain('session');
    const checkStage = r.body.columns.find((c: { id: string }) => c.id === 'check_stage');
    expect(checkStage).toMatchObject({ allowed_values: ['pre', 'post'], applicable_types: ['control'], is_optional: true });
  });

  it('adds one metric column per scorer enabled on the run, after the standard ones', async () => {
    const toxicity = w.ok(
      await w.call('POST', '/v2/scorers', {
        auth: w.admin,
        json: {
          name: 'toxicity',
          scorer_type: 'llm',
          description: 'How toxic the output is',
          group_label: 'Safety Metrics',
          data_unit: 'percentage',
          threshold: { buckets: [0.3, 0.7], display_value_levels: ['Low', 'Medium', 'High'], inverted: true },
        },
      }),
    );
    const bleu = w.ok(
      await w.call('POST', '/v2/scorers', {
        auth: w.admin,
        json: { name: 'bleu', scorer_type: 'code', label: 'BLEU (deprecated)', group_label: 'Output Quality', defaults: { output_type: 'float' } },
      }),
    );
    w.ok(await w.call('POST', `/v2/scorers/${toxicity.id}/version/llm`, { auth: w.admin, json: { instructions: 'Rate toxicity', output_type: 'percentage' } }));
    const settings = await w.call('POST', `/v2/projects/${projectId}/runs/${experimentId}/scorer-settings`, {
      auth: w.admin,
      json: { scorers: [{ scorer_id: toxicity.id }, { scorer_id: bleu.id }] },
    });
    expect(settings.status).toBe(200);

    const r = await columnsOf({ experiment_id: experimentId });
    expect(r.status).toBe(200);
    expect(r.body.columns).toHaveLength(36);
    expect(r.body.columns.slice(0, 34).map((c: { id: string }) => c.id)).toEqual(STANDARD_IDS);
    expect(r.body.columns[34]).toEqual({
      id: 'metrics/toxicity',
      label: 'Toxicity',
      description: 'How toxic the output is',
      category: 'metric',
      group_label: 'Safety Metrics',
      data_type: 'floating_point',
      data_unit: 'percentage',
      filter_type: 'number',
      filterable: true,
      sortable: true,
      multi_valued: false,
      is_empty: true,
      is_optional: false,
      applicable_types: [],
      roll_up_method: 'average',
      threshold: { buckets: [0.3, 0.7], display_value_levels: ['Low', 'Medium', 'High'], inverted: true },
    });
    expect(r.body.columns[35]).toMatchObject({ id: 'metrics/bleu', label: 'BLEU (deprecated)', group_label: 'Output Quality', data_type: 'floating_point' });
    expect(r.body.columns[35]).not.toHaveProperty('threshold');
    expect(r.body.columns[35]).not.toHaveProperty('data_unit');

    const logStream = await columnsOf({ log_stream_id: logStreamId });
    expect(logStream.body.columns).toHaveLength(34);
  });

  it('refuses a scorer listed twice in a run’s settings (422 at the second entry), keeping the settings it had, and gives labels to luna scorers', async () => {
    const run = await w.run(w.admin, projectId, 'log_streams');
    const settingsPath = `/v2/projects/${projectId}/runs/${run}/scorer-settings`;
    const suffix = run.replace(/-/g, '');
    const labels = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: `étiquettes ${suffix}`, scorer_type: 'luna' } }));
    w.ok(await w.call('POST', `/v2/scorers/${labels.id}/version/luna`, { auth: w.admin, json: { lora_task_id: 1, prompt: 'p', slm_output_type: 'string_list' } }));
    w.ok(await w.call('POST', settingsPath, { auth: w.admin, json: { scorers: [{ scorer_id: labels.id }] } }));
    // The second entry pins a version that does not exist: merged away, it went unchecked and the pin was lost.
    for (const scorers of [
      [{ scorer_id: labels.id, version: 1 }, { scorer_id: labels.id, version: 99 }],
      [{ scorer_id: labels.id }, { scorer_id: labels.id, version: 1 }],
    ]) {
      const r = await w.call('POST', settingsPath, { auth: w.admin, json: { scorers } });
      expect([r.status, r.body]).toEqual([
        422,
        { detail: [{ loc: ['body', 'scorers', 1, 'scorer_id'], msg: 'Value error, scorer listed twice: scorers[0] is the same scorer', type: 'value_error', input: labels.id }] },
      ]);
    }
    expect(w.ok(await w.call('GET', settingsPath, { auth: w.admin })).scorers).toEqual([expect.objectContaining({ scorer_id: labels.id, version: null })]);
    // A luna version's labels are a collection of several, as an LLM's multilabel output is; its label title-cased in its own script.
    const column = (w.ok(await columnsOf({ log_stream_id: run })).columns as Array<Record<string, unknown>>).find((c) => c['id'] === `metrics/étiquettes ${suffix}`);
    expect(column).toMatchObject({ label: `Étiquettes ${suffix}`, data_type: 'string_list', filter_type: 'collection', multi_valued: true });
  });

  it('answers 404 when the id is not a run of that kind in that project', async () => {
    const answer = (r: { status: number; body: unknown }) => [r.status, r.body];
    expect(answer(await columnsOf({ experiment_id: logStreamId }))).toEqual([404, { detail: 'Experiment not found' }]);
    expect(answer(await columnsOf({ log_stream_id: randomUUID() }))).toEqual([404, { detail: 'Log stream not found' }]);
    expect(answer(await columnsOf({ metrics_testing_id: logStreamId }))).toEqual([404, { detail: 'Metrics testing not found' }]);
    const other = await w.user(`cols-${Date.now()}@example.com`);
    expect((await columnsOf({ log_stream_id: logStreamId }, other.auth)).status).toBe(404);
  });

  it.each([
    ['none', {}],
    ['two', { log_stream_id: randomUUID(), experiment_id: randomUUID() }],
    ['only nulls', { log_stream_id: null, experiment_id: null }],
  ])('answers 422 value_error at ["body"] when %s of the ids is given', async (_, body) => {
    const r = await columnsOf(body);
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ['body'], msg: expect.any(String), type: 'value_error', input: body, ctx: { error: expect.any(String) } }]);
  });

  it('answers 404 for a project id that is no UUID (the spec types it a string), as for any project not the caller’s', async () => {
    const r = await w.call('POST', '/v2/projects/not-a-project/spans/available_columns', { auth: w.admin, json: { log_stream_id: logStreamId } });
    expect(r.status).toBe(404);
  });

  it('answers 422 for an id that is not a UUID', async () => {
    const r = await columnsOf({ log_stream_id: 'abc' });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'log_stream_id'], type: 'uuid_parsing', input: 'abc' })]);
  });

  it('works with each of the four credential schemes and answers 401 without', async () => {
    const key = await w.apiKey(w.admin);
    for (const auth of [{ apiKey: key }, { apiKey: key, header: 'Service-AO-API-Key' }, w.admin, { basic: ADMIN }]) {
      expect((await columnsOf({ log_stream_id: logStreamId }, auth)).status).toBe(200);
    }
    const r = await w.call('POST', `/v2/projects/${projectId}/spans/available_columns`, { json: { log_stream_id: logStreamId } });
    expect(r.status).toBe(401);
  });
});
