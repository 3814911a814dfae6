// A reverse proxy in front of a started server that notes every request and, for the paths it is told,
// answers 503 itself: a server that struggles on purpose, for tests of what clients do then.
import * as http from 'node:http';
import type * as net from 'node:net';
import { track } from './started';

export interface Passed {
  /** Path and query, as sent. */
  readonly path: string;
  /** The bearer token sent, if any. */
  readonly token: string | undefined;
  /** 503 when the proxy answered itself, else the server's status. */
  readonly status: number;
}

export interface FailingProxy {
  readonly baseUrl: string;
  /** Every request that reached the proxy, in order of arrival. */
  readonly passed: Passed[];
  /** Paths (without query) answered 503 `{"detail":"Service temporarily unavailable"}` until removed. */
  readonly failing: Set<string>;
  /** When set, those 503s carry `Retry-After` with this many seconds. */
  retryAfter: number | undefined;
  /** How many requests for `path` (without query) reached the proxy. */
  count(path: string): number;
  stop(): Promise<void>;
}

/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) describe one connection, not the message: a proxy does not relay
 * them. Relaying the server's `Keep-Alive: timeout=65` would tell clients the proxy keeps idle
 * connections that long, when it closes them after its own 5 s, and a client reusing one would get
 * ECONNRESET.
 */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);
const endToEnd = (headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

export const startFailingProxy = async (target: string): Promise<FailingProxy> => {
  const to = new URL(target);
  const passed: Passed[] = [];
  const failing = new Set<string>();
  const proxy: FailingProxy & { baseUrl: string } = {
    baseUrl: '',
    passed,
    failing,
    retryAfter: undefined,
    count: (path) => passed.filter((p) => (p.path.split('?')[0] ?? p.path) === path).length,
    stop: () =>
      new Promise<void>((resolve) => {
        untrack();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  // Stopped once the test file is done, should its tests not stop it.
  const untrack = track({ name: 'a failing proxy', stop: () => proxy.stop() });
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const token = req.headers.authorization?.replace(/^Bearer /, '');
    const note = (status: number) => passed.push({ path, token, status });
    if (failing.has(path.split('?')[0] ?? path)) {
      note(503);
      req.resume();
      res
        .writeHead(503, { 'content-type': 'application/json', ...(proxy.retryAfter === undefined ? {} : { 'retry-after': String(proxy.retryAfter) }) })
        .end(JSON.stringify({ detail: 'Service temporarily unavailable' }));
      return;
    }
    const forwarded = http.request({ host: to.hostname, port: to.port, method: req.method, path, headers: endToEnd(req.headers) }, (answer) => {
      note(answer.statusCode ?? 0);
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  proxy.baseUrl = `http://127.0.0.1:${port}`;
  return proxy;
};
