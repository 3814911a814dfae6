// Retention (TRACELIGHT_RETENTION_DAYS): a server started with it removes the records created more
// than that many days ago, on start, whatever their run, and keeps the rest, the runs and their columns.
import { randomUUID } from 'node:crypto';
import { startWorld, type World } from '../support/world';

const DAY_MS = 86_400_000;
const aTrace = (createdAt: Date, name: string) => ({
  id: randomUUID(),
  name,
  input: 'q',
  output: 'a',
  created_at: createdAt.toISOString(),
  spans: [{ type: 'llm', id: randomUUID(), name: `${name}-span`, input: 'q', output: 'a', model: 'gpt-4o-mini', created_at: createdAt.toISOString() }],
});

describe('retention', () => {
  let first: World | undefined;
  let second: World | undefined;
  afterAll(async () => {
    await first?.server.stop();
    await second?.server.stop();
  });

  it('removes, on start, the traces and spans older than TRACELIGHT_RETENTION_DAYS, and only those', async () => {
    first = await startWorld();
    const projectId = await first.project(first.admin);
    const runs = [await first.run(first.admin, projectId, 'log_streams'), await first.run(first.admin, projectId, 'experiments')];
    const now = Date.now();
    const old = [aTrace(new Date(now - 31 * DAY_MS), 'old-1'), aTrace(new Date(now - 400 * DAY_MS), 'old-2'), aTrace(new Date('2001-01-01T00:00:00Z'), 'old-3')];
    const recent = [aTrace(new Date(now - 29 * DAY_MS), 'recent-1'), aTrace(new Date(now - 60_000), 'recent-2')];
    const into = (runId: string, kind: string, traces: unknown[]) =>
      first!.call('POST', `/v2/projects/${projectId}/traces`, { auth: first!.admin, json: { [kind]: runId, traces } });
    expect((await into(runs[0]!, 'log_stream_id', [old[0], old[1], recent[0]])).status).toBe(200);
    expect((await into(runs[1]!, 'experiment_id', [old[2], recent[1]])).status).toBe(200);
    // Kept for good by default: this server removed nothing.
    await first.server.stop();
    expect(first.server.output.join('\n')).not.toContain('retention sweep');

    second = await startWorld({ ...first.server.storageEnv, TRACELIGHT_RETENTION_DAYS: '30' });
    const line = JSON.parse(await second.server.waitForOutput('retention sweep removed old records')) as { removed: number; cutoff: string };
    expect(line.removed).toBe(6);
    expect(Math.abs(Date.parse(line.cutoff) - (Date.now() - 30 * DAY_MS))).toBeLessThan(60_000);

    const names = async (kind: 'traces' | 'spans', runId: string, runKey: string) => {
      const page = await second!.call('POST', `/v2/projects/${projectId}/${kind}/search`, { auth: second!.admin, json: { [runKey]: runId, limit: 100 } });
      expect(page.status).toBe(200);
      return (page.body.records as Array<{ name: string }>).map((r) => r.name).sort();
    };
    expect(await names('traces', runs[0]!, 'log_stream_id')).toEqual(['recent-1']);
    expect(await names('spans', runs[0]!, 'log_stream_id')).toEqual(['recent-1-span']);
    expect(await names('traces', runs[1]!, 'experiment_id')).toEqual(['recent-2']);
    expect(await names('spans', runs[1]!, 'experiment_id')).toEqual(['recent-2-span']);
    const metrics = await second.call('GET', '/metrics');
    expect(metrics.text).toMatch(/^tracelight_retention_removed_records_total 6$/m);
  });

  it('takes has_children from a kept span whose only child the sweep removes, and leaves it on one with a child left', async () => {
    // A first server stores them (it keeps records for good); a second, with retention, sweeps on start.
    const writer = await startWorld();
    const projectId = await writer.project(writer.admin);
    const runId = await writer.run(writer.admin, projectId, 'log_streams');
    const now = Date.now();
    const recent = new Date(now - 60_000).toISOString();
    const old = new Date(now - 31 * DAY_MS).toISOString();
    const leaf = (name: string, createdAt: string) => ({ type: 'llm', name, input: 'q', output: 'a', created_at: createdAt });
    const workflow = (name: string, spans: unknown[]) => ({ type: 'workflow', name, input: 'q', output: 'a', created_at: recent, spans });
    const trace = {
      name: 'trace',
      input: 'q',
      output: 'a',
      created_at: recent,
      spans: [workflow('lonely', [leaf('lonely-old', old)]), workflow('busy', [leaf('busy-old', old), leaf('busy-recent', recent)])],
    };
    const ingested = await writer.call('POST', `/v2/projects/${projectId}/traces`, { auth: writer.admin, json: { log_stream_id: runId, traces: [trace] } });
    await writer.server.stop();
    expect(ingested.status).toBe(200);

    const swept = await startWorld({ ...writer.server.storageEnv, TRACELIGHT_RETENTION_DAYS: '30' });
    try {
      const line = JSON.parse(await swept.server.waitForOutput('retention sweep removed old records')) as { removed: number };
      expect(line.removed).toBe(2);
      const search = async (kind: 'traces' | 'spans', filters: unknown[] = []) => {
        const page = await swept.call('POST', `/v2/projects/${projectId}/${kind}/search`, { auth: swept.admin, json: { log_stream_id: runId, filters, limit: 100 } });
        expect(page.status).toBe(200);
        return (page.body.records as Array<{ name: string; has_children: boolean }>).map((r) => [r.name, r.has_children]).sort();
      };
      expect(await search('spans')).toEqual([['busy', true], ['busy-recent', false], ['lonely', false]]);
      expect(await search('spans', [{ column_id: 'has_children', type: 'boolean', operator: 'eq', value: true }])).toEqual([['busy', true]]);
      expect(await search('traces')).toEqual([['trace', true]]);
    } finally {
      await swept.server.stop();
    }
  });
});
