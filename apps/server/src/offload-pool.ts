// The request thread's end of the offload workers: sends a large request's raw body (transferred, not
// copied) to the least busy worker and answers with its reply. A worker that dies fails only the
// requests it held (503, their outcome unknown) and is started again.
import type { OffloadedReply, OffloadedRequest, RouteOffload, StorageTiming } from '@tracelight/http-koa';
import { PendingCalls } from '@tracelight/worker-calls';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ServerConfig } from './config';
import { droppedInAnotherThread, type LogStream } from './logger';

export type ToOffloadWorker = { readonly type: 'request'; readonly id: number; readonly request: OffloadedRequest } | { readonly type: 'close' };
export type FromOffloadWorker =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'reply'; readonly id: number; readonly reply: OffloadedReply }
  /** Log lines the worker dropped (whatever reads the server's output stopped reading). */
  | { readonly type: 'dropped-log-lines'; readonly stream: LogStream; readonly lines: number }
  /** A storage call the worker made, for the request thread's /metrics. */
  | { readonly type: 'storage-timing'; readonly timing: StorageTiming };

// The worker's bundle (pnpm build: scripts/bundle.mjs), beside the server's own in dist/: found so from
// the server's bundle, and from this module's TypeScript source (tests), as src/ and dist/ are siblings.
const WORKER = path.resolve(__dirname, '..', 'dist', 'offload.worker.js');

const unknownOutcome: OffloadedReply = {
  status: 503,
  body: { detail: 'The worker handling this request stopped; its outcome is unknown. Retry it: ingestion is idempotent by id.' },
};

const queueFull: OffloadedReply = {
  status: 503,
  body: { detail: 'The offload workers have as many large requests waiting as they may hold. Retry shortly.' },
  headers: { 'Retry-After': '1' },
};

const noWorker: OffloadedReply = {
  status: 503,
  body: { detail: 'No offload worker is running just now (one is being started again). Retry shortly.' },
  headers: { 'Retry-After': '1' },
};

/** A worker that could not be started again is tried again after this long, doubling up to the maximum. */
const RESTART_FIRST_MS = 250;
const RESTART_MAX_MS = 30_000;

interface Slot {
  worker: Worker;
  /** Started and not exited: only such a worker is given requests. */
  live: boolean;
  /** Requests sent to the worker and not yet answered (not a Map: see PendingCalls). */
  readonly pending: PendingCalls<(reply: OffloadedReply) => void>;
}

export interface OffloadPoolOptions {
  /** Bodies of at least this many bytes (inflated, when the size is known only once read) are offloaded. */
  readonly minBytes: number;
  readonly workers: number;
  /**
   * The most bytes of bodies the workers may hold, waiting or in hand, all together: past it a request
   * is answered 503 at once (one request is always taken, whatever its size).
   */
  readonly maxQueueBytes: number;
  /** A worker's storage call, timed there. */
  readonly onStorageTiming?: (timing: StorageTiming) => void;
}

export class OffloadPool implements RouteOffload {
  private readonly slots: Slot[] = [];
  private closing = false;
  private readonly restarts = new Set<NodeJS.Timeout>();
  /** The bytes of the bodies the workers hold, waiting or in hand. */
  private queuedBytes = 0;
  /** Until each worker's first start has settled (start). */
  private warming: Promise<void> | undefined;
  readonly minBytes: number;

  constructor(
    /** The server's configuration; workers open the same storage (SQLite: a connection of their own). */
    private readonly config: ServerConfig,
    private readonly options: OffloadPoolOptions,
    /** The worker's script: the compiled offload worker, unless a test scripts one. */
    private readonly script: string = WORKER,
  ) {
    this.minBytes = options.minBytes;
  }

  /**
   * Starts the workers. Resolves once each is ready, or rejects with the reason the first that could not
   * start gave (it is then tried again, as a worker that died is). A server need not wait: a request that
   * comes while no worker is up yet waits for the first start to settle.
   */
  start(): Promise<void> {
    const firsts = Array.from({ length: this.options.workers }, () => this.spawn());
    const settled = Promise.allSettled(firsts);
    this.warming = settled.then(() => {
      this.warming = undefined;
    });
    return settled.then((outcomes) => {
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
    });
  }

  /** The requests the workers hold, waiting or in hand, and their bodies' bytes. */
  held(): { readonly entries: number; readonly size: number } {
    return { entries: this.slots.reduce((n, s) => n + s.pending.size, 0), size: this.queuedBytes };
  }

  /**
   * Hands the request to the live worker with the fewest in hand. With none live (each died and is not
   * yet started again, say on a full disk), the answer is a prompt 503 with Retry-After: a request
   * posted to a dead worker would never be answered. So it is when the workers already hold as many
   * bytes of bodies as they may: requests come faster than they are handled, and a queue without a
   * bound would hold every body sent meanwhile (up to a body limit each, on every connection).
   */
  run(request: OffloadedRequest): Promise<OffloadedReply> {
    if (this.closing) return Promise.resolve({ status: 503, body: { detail: 'The server is shutting down' } });
    const slot = this.slots.reduce<Slot | undefined>((best, s) => (s.live && (!best || s.pending.size < best.pending.size) ? s : best), undefined);
    if (!slot && this.warming) return this.warming.then(() => this.run(request));
    if (!slot) return Promise.resolve(noWorker);
    const bytes = request.body.byteLength;
    if (this.queuedBytes > 0 && this.queuedBytes + bytes > this.options.maxQueueBytes) return Promise.resolve(queueFull);
    this.queuedBytes += bytes;
    return new Promise((resolve) => {
      const answer = (reply: OffloadedReply) => {
        this.queuedBytes -= bytes;
        resolve(reply);
      };
      const id = slot.pending.add(answer);
      // Transferred, not copied; but a small Buffer may sit in Node's shared pool, never to be detached.
      const own = request.body.byteOffset === 0 && request.body.byteLength === request.body.buffer.byteLength;
      const body = own ? request.body : new Uint8Array(request.body);
      slot.worker.postMessage({ type: 'request', id, request: { ...request, body } } satisfies ToOffloadWorker, [body.buffer as ArrayBuffer]);
    });
  }

  /** Lets the requests in hand finish, then stops every live worker (each closes its storage). */
  async close(): Promise<void> {
    this.closing = true;
    // A worker still starting is stopped with the others once up.
    await this.warming;
    for (const timer of this.restarts) clearTimeout(timer);
    this.restarts.clear();
    await Promise.all(
      this.slots
        .filter((slot) => slot.live)
        .map(
          (slot) =>
            new Promise<void>((resolve) => {
              slot.worker.once('exit', () => resolve());
              slot.worker.postMessage({ type: 'close' } satisfies ToOffloadWorker);
            }),
        ),
    );
  }

  /**
   * Starts a worker for `replacing`'s place, or for a new place, which is taken at once: a first start
   * that fails is tried again as a worker that died is. Resolves once the worker is ready.
   */
  private spawn(replacing?: Slot): Promise<void> {
    const worker = new Worker(this.script, { workerData: this.config });
    const slot: Slot = replacing ?? { worker, live: false, pending: new PendingCalls() };
    slot.worker = worker;
    if (!replacing) {
      this.slots.push(slot);
      return this.started(slot, worker).catch((e: unknown) => {
        if (!this.closing) this.later(() => this.restart(slot, RESTART_FIRST_MS), RESTART_FIRST_MS);
        throw e;
      });
    }
    return this.started(slot, worker);
  }

  private started(slot: Slot, worker: Worker): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      worker.on('message', (m: FromOffloadWorker) => {
        if (m.type === 'ready') {
          ready = true;
          slot.live = true;
          resolve();
        } else if (m.type === 'failed') {
          reject(new Error(`offload worker: ${m.message}`));
          void worker.terminate(); // whatever it opened before failing goes with it
        } else if (m.type === 'dropped-log-lines') {
          droppedInAnotherThread(m.stream, m.lines);
        } else if (m.type === 'storage-timing') {
          this.options.onStorageTiming?.(m.timing);
        } else {
          slot.pending.take(m.id)?.(m.reply);
        }
      });
      worker.on('error', (e) => {
        if (!ready) reject(e);
      });
      worker.on('exit', (code) => {
        slot.live = false;
        for (const answer of slot.pending.takeAll()) answer(unknownOutcome);
        if (!ready) return reject(new Error(`offload worker exited with code ${code} before it was ready`));
        if (!this.closing) this.restart(slot, RESTART_FIRST_MS);
      });
    });
  }

  /** Starts the place's worker again, and keeps trying (waiting longer each time) while it cannot start. */
  private restart(slot: Slot, delayMs: number): void {
    const attempt = () =>
      this.spawn(slot).catch(() => {
        if (!this.closing) this.later(() => attempt(), (delayMs = Math.min(RESTART_MAX_MS, delayMs * 2)));
      });
    void attempt();
  }

  private later(f: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.restarts.delete(timer);
      f();
    }, ms);
    timer.unref();
    this.restarts.add(timer);
  }
}
