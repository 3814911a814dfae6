// The OpenAPI document covers every route the router really mounts, each under its documented path.
import 'reflect-metadata';
import { HttpApp, documentedPath } from '@tracelight/http-koa';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as E from 'fp-ts/Either';
import { loadConfig } from './config';
import { buildContainer } from './container';

const silent = { info: () => undefined, error: () => undefined };

describe('the OpenAPI document', () => {
  it('has an operation for every mounted route, and no operation without a route', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-openapi-'));
    const config = loadConfig({ TRACELIGHT_DATA_DIR: dataDir });
    if (E.isLeft(config)) throw new Error(config.left.join('; '));
    const { container, storage } = await buildContainer(config.right, silent);
    await storage.open();
    try {
      const http = container.get(HttpApp);
      const app = http.build();
      const server = app.listen(0, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      const port = (server.address() as { port: number }).port;
      const document = (await (await fetch(`http://127.0.0.1:${port}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      server.close();

      const byPath = new Map(http.routes().map((r) => [r.path, documentedPath(r)]));
      const mounted = http.mounted.map((m) => `${m.method} ${byPath.get(m.path) ?? `unmapped:${m.path}`}`).sort();
      const documented = Object.entries(document.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`)).sort();
      expect(mounted.length).toBeGreaterThan(25);
      expect(documented).toEqual(mounted);
    } finally {
      await storage.close();
    }
  });
});
