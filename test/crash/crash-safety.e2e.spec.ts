// Crash safety: another process ingests continuously, the server is killed with SIGKILL mid-stream
// and restarted on the same data dir. Every write it acknowledged must be there, and the database
// must be consistent.
import { TracelightClient } from '@tracelight/client';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { ADMIN, startServer } from '../support/server';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require(path.resolve(__dirname, '../../adapters/sqlite/node_modules/better-sqlite3')) as typeof import('better-sqlite3');

describe('crash safety', () => {
  it('keeps every acknowledged write across a SIGKILL, with an intact database', async () => {
    const first = await startServer();
    const admin = new TracelightClient(first.baseUrl, { login: ADMIN });
    const key = (await admin.createApiKey({ description: 'writer' })).api_key;
    const projectId = (await admin.createProject({ name: 'crash' })).id;
    const logStreamId = (await admin.createLogStream(projectId, 'crash')).id;

    const writer = spawn(process.execPath, [path.join(__dirname, '../support/crash-writer.cjs'), first.baseUrl, key, projectId, logStreamId]);
    let out = '';
    writer.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const writerDone = new Promise<void>((resolve) => writer.on('exit', () => resolve()));

    // Let it write for a while, then kill the server without warning while requests are in flight.
    await new Promise((r) => setTimeout(r, 1500));
    await first.stop('SIGKILL');
    await writerDone;
    const acknowledged = out.split('\n').filter(Boolean);
    expect(acknowledged.length).toBeGreaterThan(50);

    const second = await startServer({}, first.dataDir);
    try {
      const again = new TracelightClient(second.baseUrl, { login: ADMIN });
      const found = new Set<string>();
      for (let start = 0; ; start += 1000) {
        const page = await again.searchTraces(projectId, { log_stream_id: logStreamId }, { starting_token: start, limit: 1000 });
        for (const r of page.records as Array<{ id: string }>) found.add(r.id);
        if (page.next_starting_token === null || page.next_starting_token === undefined) break;
      }
      const missing = acknowledged.filter((id) => !found.has(id));
      expect(missing).toEqual([]);

      const db = new Database(path.join(first.dataDir, 'tracelight.db'), { readonly: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(db.pragma('foreign_key_check')).toEqual([]);
        // Every stored span belongs to a stored trace: no request was half written.
        const orphans = db.prepare("SELECT count(*) FROM log_records s WHERE s.type != 'trace' AND NOT EXISTS (SELECT 1 FROM log_records t WHERE t.id = s.trace_id)").pluck().get();
        expect(orphans).toBe(0);
      } finally {
        db.close();
      }
    } finally {
      await second.stop();
    }
  }, 60_000);
});
