// The composition root loads only the configured engine's adapter. Run as the server runs, from its bundle
// in a Node process of its own, where the drivers (left out of the bundle) are required from node_modules:
// require.cache there tells which loaded (Jest keeps a module registry of its own).
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const MAIN = path.resolve(__dirname, '../dist/main.js');

/** Loaded before the server: on its exit, says which drivers its main thread required. */
const PROBE = `
process.on('exit', () => {
  const loaded = (pattern) => Object.keys(require.cache).some((file) => pattern.test(file));
  require('node:fs').writeSync(2, 'PROBE ' + JSON.stringify({ mongodb: loaded(/node_modules[\\\\/]mongodb[\\\\/]/), sqlite: loaded(/better-sqlite3/) }) + '\\n');
});
`;

describe('the server container', () => {
  it('on SQLite, opens the database without ever loading the MongoDB driver', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-container-'));
    const probe = path.join(dataDir, 'probe.cjs');
    fs.writeFileSync(probe, PROBE);
    const server = spawn(process.execPath, ['--require', probe, MAIN], {
      env: { PATH: process.env['PATH'] ?? '', TRACELIGHT_DATA_DIR: dataDir, TRACELIGHT_PORT: '0', TRACELIGHT_SCORING_WORKERS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    server.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
    // Stopped once it listens (or killed, however it went, should the test fail first).
    try {
      await new Promise<void>((resolve, reject) => {
        server.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (stdout.includes('Tracelight listening')) resolve();
        });
        void exited.then((code) => reject(new Error(`the server exited with ${code} before listening:\n${stdout}${stderr}`)));
      });
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
    expect(JSON.parse(/^PROBE (.*)$/m.exec(stderr)?.[1] ?? 'null')).toEqual({ mongodb: false, sqlite: true });
    expect(fs.existsSync(path.join(dataDir, 'tracelight.db'))).toBe(true);
  });
});
