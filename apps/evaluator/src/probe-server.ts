// The evaluator's only HTTP: GET /metrics (Prometheus text) and GET /healthcheck, on Node's http (no
// framework: two fixed answers need none, and the process starts without loading one). No credentials.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProbeSources {
  /** The exposition text and its content type, read at each scrape. */
  metrics(): Promise<{ readonly contentType: string; readonly text: string }>;
  /** True while the workers score; false once a stop has begun (the jobs in hand finishing). */
  scoring(): boolean;
}

export interface ProbeServer {
  /** The port it listens on (the one chosen when asked for 0). */
  readonly port: number;
  close(): Promise<void>;
}

const PATHS = new Set(['/metrics', '/healthcheck']);

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });
  res.end(text);
};

const answer = async (sources: ProbeSources, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const path = (req.url ?? '').split('?')[0]!;
  if (!PATHS.has(path)) return json(res, 404, { detail: 'Not Found' });
  if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { detail: 'Method Not Allowed' }, { allow: 'GET, HEAD' });
  // 503 from the moment a stop begins, so that an orchestrator sends no more work this way and waits.
  if (path === '/healthcheck') return sources.scoring() ? json(res, 200, { status: 'scoring' }) : json(res, 503, { status: 'stopping' });
  const { contentType, text } = await sources.metrics();
  res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
};

/** Listens on `host`:`port`; resolves once listening (rejects if it cannot: a port in use, an unknown interface). */
export const startProbeServer = async (host: string, port: number, sources: ProbeSources, failed: (error: unknown) => void): Promise<ProbeServer> => {
  const server: Server = createServer((req, res) => {
    answer(sources, req, res).catch((e: unknown) => {
      failed(e);
      if (!res.headersSent) json(res, 500, { detail: 'the metrics could not be read' });
      else res.destroy();
    });
  });
  // Probes and scrapes are small and short: a client that sends no request in 10 s is dropped.
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', failed);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A scraper's kept-alive connection would otherwise hold the close open.
        server.closeAllConnections();
      }),
  };
};
