// Crash safety: another process ingests continuously, the server is killed with SIGKILL mid-stream
// and restarted on the same data (SQLite's file, or the MongoDB database the suites name after the
// data dir). Every write it acknowledged must be there, and no request may be half written.
import { TracelightClient } from '@tracelight/client';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { ADMIN, type RunningServer, startServer } from '../support/server';
import { E2E_ENGINE, withStorage } from '../support/storage';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require(path.resolve(__dirname, '../../adapters/sqlite/node_modules/better-sqlite3')) as typeof import('better-sqlite3');

describe('crash safety', () => {
  it('keeps every acknowledged write across a SIGKILL, with an intact database', async () => {
    const first = await startServer();
    let second: RunningServer | undefined;
    try {
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

      second = await startServer({}, first.dataDir);
      const again = new TracelightClient(second.baseUrl, { login: ADMIN });
      const found = new Set<string>();
      for (let start = 0; ; start += 1000) {
        const page = await again.searchTraces(projectId, { log_stream_id: logStreamId }, { starting_token: start, limit: 1000 });
        for (const r of page.records as Array<{ id: string }>) found.add(r.id);
        if (page.next_starting_token === null || page.next_starting_token === undefined) break;
      }
      const missing = acknowledged.filter((id) => !found.has(id));
      expect(missing).toEqual([]);

      // Every stored span belongs to a stored trace: no request was half written.
      expect(await withStorage(second, (stored) => stored.withoutTheirTrace(logStreamId))).toBe(0);
      // SQLite's file is the application's to keep whole; a MongoDB server keeps its own files.
      if (E2E_ENGINE === 'sqlite') {
        const db = new Database(path.join(first.dataDir, 'tracelight.db'), { readonly: true });
        try {
          expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
          expect(db.pragma('foreign_key_check')).toEqual([]);
        } finally {
          db.close();
        }
      }
    } finally {
      await first.stop('SIGKILL');
      await second?.stop();
    }
  });
});
