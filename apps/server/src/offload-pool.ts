// The request thread's end of the offload workers: sends a large request's raw body (transferred, not
// copied) to the least busy worker and answers with its reply. A worker that dies fails only the
// requests it held (503, their outcome unknown) and is started again.
import type { OffloadedReply, OffloadedRequest, RouteOffload } from '@tracelight/http-koa';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ServerConfig } from './config';

export type ToOffloadWorker = { readonly type: 'request'; readonly id: number; readonly request: OffloadedRequest } | { readonly type: 'close' };
export type FromOffloadWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'reply'; readonly id: number; readonly reply: OffloadedReply };

// The compiled worker, also when this module runs from TypeScript sources (tests): src/ and dist/ are
// siblings.
const WORKER = path.resolve(__dirname, '..', 'dist', 'offload.worker.js');

const unknownOutcome: OffloadedReply = {
  status: 503,
  body: { detail: 'The worker handling this request stopped; its outcome is unknown. Retry it: ingestion is idempotent by id.' },
};

interface Slot {
  worker: Worker;
  readonly pending: Map<number, (reply: OffloadedReply) => void>;
}

export class OffloadPool implements RouteOffload {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closing = false;

  constructor(
    /** The server's configuration; workers open the same storage (SQLite: a connection of their own). */
    private readonly config: ServerConfig,
    readonly minBytes: number,
    private readonly size: number,
  ) {}

  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.size }, () => this.spawn()));
  }

  run(request: OffloadedRequest): Promise<OffloadedReply> {
    const slot = this.slots.reduce<Slot | undefined>((best, s) => (!best || s.pending.size < best.pending.size ? s : best), undefined);
    if (!slot || this.closing) return Promise.resolve({ status: 503, body: { detail: 'The server is shutting down' } });
    const id = this.nextId++;
    return new Promise((resolve) => {
      slot.pending.set(id, resolve);
      // Transferred, not copied; but a small Buffer may sit in Node's shared pool, never to be detached.
      const own = request.body.byteOffset === 0 && request.body.byteLength === request.body.buffer.byteLength;
      const body = own ? request.body : new Uint8Array(request.body);
      slot.worker.postMessage({ type: 'request', id, request: { ...request, body } } satisfies ToOffloadWorker, [body.buffer as ArrayBuffer]);
    });
  }

  /** Lets the requests in hand finish, then stops every worker (each closes its storage). */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<void>((resolve) => {
            slot.worker.once('exit', () => resolve());
            slot.worker.postMessage({ type: 'close' } satisfies ToOffloadWorker);
          }),
      ),
    );
  }

  private spawn(replacing?: Slot): Promise<void> {
    const worker = new Worker(WORKER, { workerData: this.config });
    const slot: Slot = replacing ?? { worker, pending: new Map() };
    slot.worker = worker;
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      worker.on('message', (m: FromOffloadWorker) => {
        if (m.type === 'ready') {
          ready = true;
          if (!replacing) this.slots.push(slot);
          resolve();
        } else if (m.type === 'failed') reject(new Error(`offload worker: ${m.message}`));
        else {
          slot.pending.get(m.id)?.(m.reply);
          slot.pending.delete(m.id);
        }
      });
      worker.on('error', (e) => {
        if (!ready) reject(e);
      });
      worker.on('exit', (code) => {
        for (const answer of slot.pending.values()) answer(unknownOutcome);
        slot.pending.clear();
        if (!ready) return reject(new Error(`offload worker exited with code ${code} before it was ready`));
        if (!this.closing) void this.spawn(slot).catch(() => undefined);
      });
    });
  }
}
