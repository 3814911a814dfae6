// The composition root loads only the configured engine's adapter. Run in a plain Node process over the
// built output: Jest keeps a module registry of its own, so only there does require.cache tell what loaded.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const DIST = path.resolve(__dirname, '../dist');

const PROBE = `
require('reflect-metadata');
const { loadConfig } = require(${JSON.stringify(path.join(DIST, 'config'))});
const { buildContainer } = require(${JSON.stringify(path.join(DIST, 'container'))});
const config = loadConfig({ TRACELIGHT_DATA_DIR: process.argv[1] });
buildContainer(config.right, { info() {}, error() {} }).then(async ({ storage }) => {
  await storage.open();
  const loaded = (pattern) => Object.keys(require.cache).some((file) => pattern.test(file));
  process.stdout.write(JSON.stringify({ mongodb: loaded(/node_modules[\\\\/]mongodb[\\\\/]/), sqlite: loaded(/better-sqlite3/) }));
  await storage.close();
  process.exit(0);
});
`;

describe('the server container', () => {
  it('on SQLite, opens the database without ever loading the MongoDB driver', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-container-'));
    const out = execFileSync(process.execPath, ['-e', PROBE, dataDir], { encoding: 'utf8', timeout: 20_000 });
    expect(JSON.parse(out)).toEqual({ mongodb: false, sqlite: true });
    expect(fs.existsSync(path.join(dataDir, 'tracelight.db'))).toBe(true);
  });
});
