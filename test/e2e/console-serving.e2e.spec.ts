// The console as the server serves it: built files from memory under /console, each in the encoding the
// browser takes (precomputed brotli or gzip), hashed assets cached for good, the page revalidated, every
// other path of the console answered with the page (its routes are the browser's), and the API as before.
import * as http from 'node:http';
import * as zlib from 'node:zlib';
import { startServer, type RunningServer } from '../support/server';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

/**
 * Raw HTTP (node:http): fetch would decode a compressed body itself, and add `Cache-Control: no-cache`
 * to a conditional request, which a server must then answer in full.
 */
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
  new Promise<{ res: { status: number; headers: { get(name: string): string | null } }; bytes: Buffer }>((resolve, reject) => {
    const req = http.request(`${server.baseUrl}${path}`, { method, headers: { 'accept-encoding': 'identity', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          res: { status: res.statusCode ?? 0, headers: { get: (name) => (res.headers[name.toLowerCase()] as string | undefined) ?? null } },
          bytes: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });

const assetsOf = (html: string): string[] => [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);

describe('the console, served by the server', () => {
  it('says where it is when the server starts', async () => {
    const line = await server.waitForOutput('Console at');
    expect(JSON.parse(line).url).toBe(`${server.baseUrl}/console/`);
  });

  it('sends / and /console to /console/', async () => {
    for (const path of ['/', '/console']) {
      const { res } = await get(path);
      expect([res.status, res.headers.get('location')]).toEqual([302, '/console/']);
    }
  });

  it('answers the page for the app’s own paths, revalidated every time, under a policy that allows this origin only', async () => {
    for (const path of ['/console/', '/console/projects/0190b7a8-0000-7000-8000-000000000000', '/console/settings/api-keys?x=1']) {
      const { res, bytes } = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(bytes.toString('utf8')).toContain('<div id="app"></div>');
    }
    const { res } = await get('/console/');
    const again = await get('/console/', { 'if-none-match': res.headers.get('etag')! });
    expect(again.res.status).toBe(304);
  });

  it('serves the hashed assets compressed as the browser asks, cached for good; the same bytes whichever encoding', async () => {
    const html = (await get('/console/')).bytes.toString('utf8');
    const assets = assetsOf(html);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const asset of assets.filter((a) => /\.(js|css)$/.test(a))) {
      const plain = await get(asset);
      expect(plain.res.status).toBe(200);
      expect(plain.res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(plain.res.headers.get('content-encoding')).toBeNull();
      expect(plain.res.headers.get('vary')).toBe('Accept-Encoding');
      // A production build: no element carries its source file and line (the development JSX runtime's).
      expect(plain.bytes.toString('utf8')).not.toMatch(/lineNumber|columnNumber|jsxDEV/);
      // A browser lists gzip before br: brotli, the smaller, is sent all the same.
      const br = await get(asset, { 'accept-encoding': 'gzip, deflate, br, zstd' });
      expect(br.res.headers.get('content-encoding')).toBe('br');
      expect(zlib.brotliDecompressSync(br.bytes).equals(plain.bytes)).toBe(true);
      expect(br.bytes.length).toBeLessThan(plain.bytes.length / 2);
      const gz = await get(asset, { 'accept-encoding': 'gzip' });
      expect(gz.res.headers.get('content-encoding')).toBe('gzip');
      expect(zlib.gunzipSync(gz.bytes).equals(plain.bytes)).toBe(true);
      // Refused by q=0: not sent so.
      expect((await get(asset, { 'accept-encoding': 'br;q=0, gzip' })).res.headers.get('content-encoding')).toBe('gzip');
    }
  });

  it('answers 404 for a file that is not in the build, not the page', async () => {
    for (const path of ['/console/assets/index-00000000.js', '/console/robots.txt', '/console/favicon.ico']) {
      const { res, bytes } = await get(path);
      expect([res.status, JSON.parse(bytes.toString('utf8'))]).toEqual([404, { detail: 'Not Found' }]);
    }
  });

  it('answers 405 to a method other than GET or HEAD under /console, and leaves / to the API for them', async () => {
    const post = await fetch(`${server.baseUrl}/console/`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect((await fetch(`${server.baseUrl}/`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${server.baseUrl}/console/`, { method: 'HEAD' })).status).toBe(200);
  });

  it('leaves the API as it was: its routes, with and without /v2, and their 404s', async () => {
    expect((await fetch(`${server.baseUrl}/healthcheck`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/v2/projects`)).status).toBe(401);
    expect((await fetch(`${server.baseUrl}/projects`)).status).toBe(401);
    const missing = await fetch(`${server.baseUrl}/consoles`);
    expect([missing.status, await missing.json()]).toEqual([404, { detail: 'Not Found' }]);
  });
});
