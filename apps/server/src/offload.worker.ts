// An offload worker: its own container from the same composition root (the same routes, use cases
// and storage engine; on SQLite a connection of its own, writing in its own transactions), serving
// the large requests the request thread hands it. It never listens on a socket.
import 'reflect-metadata';
import { HttpApp, HttpMetrics, type Route, routeKey, serveOffloaded } from '@tracelight/http-koa';
import { parentPort, workerData } from 'node:worker_threads';
import type { ServerConfig } from './config';
import { buildContainer } from './container';
import { countDroppedLogLines, flushLogsSync, jsonLogger, limitLogBuffer } from './logger';
import type { FromOffloadWorker, ToOffloadWorker } from './offload-pool';

const port = parentPort;
if (!port) throw new Error('offload.worker must run as a worker thread');
const send = (m: FromOffloadWorker) => port.postMessage(m);

const main = async (): Promise<void> => {
  // Never a pool of its own; on SQLite, writes in this thread (it is off the event loop already).
  const config: ServerConfig = { ...(workerData as ServerConfig), offloadWorkers: 0, sqliteWriter: 'inline' };
  // This thread writes to stdout and stderr through destinations of its own, bounded alike.
  limitLogBuffer(config.logBufferBytes);
  // Lines it drops are counted in the request thread's /metrics.
  countDroppedLogLines((stream, lines) => {
    if (lines > 0) send({ type: 'dropped-log-lines', stream, lines });
  });
  // Its storage calls are timed into the request thread's /metrics: this thread's registry is never scraped.
  const metrics = new HttpMetrics();
  metrics.forwardStorageTo((timing) => send({ type: 'storage-timing', timing }));
  const { container, storage } = await buildContainer(config, jsonLogger, metrics);
  await storage.open();
  const routes = new Map<string, Route>(container.get(HttpApp).routes().map((r) => [routeKey(r), r]));
  let inHand = 0;
  let closing = false;
  const closeWhenIdle = async () => {
    if (inHand > 0) return;
    await storage.close();
    flushLogsSync(); // this thread's buffered lines, before it ends
    process.exit(0); // ends this thread only
  };
  port.on('message', (m: ToOffloadWorker) => {
    if (m.type === 'close') {
      closing = true;
      return void closeWhenIdle();
    }
    inHand++;
    serveOffloaded(routes, m.request)
      // Logged by the request thread, in the request's own line (with its request id).
      .catch((e: unknown) => ({
        status: 500,
        body: { detail: 'Internal Server Error' },
        reason: `unhandled error in an offload worker: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
      }))
      .then((reply) => {
        send({ type: 'reply', id: m.id, reply });
        inHand--;
        if (closing) void closeWhenIdle();
      });
  });
  send({ type: 'ready' });
};

main().catch((e: unknown) => send({ type: 'failed', message: e instanceof Error ? e.message : String(e) }));
