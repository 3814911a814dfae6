// The CodeSandbox port on Pyodide (CPython compiled to WebAssembly) in a small pool of worker threads,
// each holding a warm interpreter that serves one owner's code, each call within a time limit.
import type { CodeInspection, ScorerArguments, ScorerReturn } from '@tracelight/domain';
import type { CodeSandbox, CodeSource, SandboxFailure } from '@tracelight/ports';
import type { TaskEither } from 'fp-ts/TaskEither';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CallBody, CallMessage, WorkerMessage, WorkerSettings } from './sandbox-protocol';

export interface PyodideSandboxSettings {
  /** Interpreters kept (each a worker thread with its own Python): calls beyond them wait their turn. */
  readonly workers: number;
  /** The longest one call may run; past it its worker is ended and replaced. */
  readonly timeLimitMs: number;
  /** The most memory the Python heap of one interpreter may grow to, in MiB (MemoryError past it). */
  readonly memoryMb: number;
  /** An interpreter idle this long is ended (the next call starts one again). */
  readonly idleMs: number;
}

export const DEFAULT_SANDBOX_SETTINGS: PyodideSandboxSettings = { workers: 2, timeLimitMs: 5_000, memoryMb: 256, idleMs: 300_000 };

/** What the sandbox tells of its work: for logs and metrics. */
export interface SandboxObserver {
  /** An interpreter started, after this long. */
  started?(ms: number): void;
  /** An interpreter was ended: it ran past the time limit, out of memory, or broke. */
  replaced?(reason: 'timeout' | 'memory' | 'crash'): void;
}

/** The compiled worker script: built by tsc beside this file's compiled form (tests run from sources, so from dist). */
const WORKER_SCRIPT = path.resolve(__dirname, '..', 'dist', 'sandbox.worker.js');

/**
 * V8's heap of a worker (the JavaScript side of Pyodide, not Python's objects, which live in its
 * WebAssembly memory): past it the worker is ended (ERR_WORKER_OUT_OF_MEMORY).
 */
const WORKER_HEAP_MB = 192;

type Answer = { readonly ok: true; readonly result: unknown } | ({ readonly ok: false } & Record<string, unknown>);

interface PendingCall {
  readonly tenant: string;
  readonly message: CallBody;
  readonly settle: (outcome: { ok: true; answer: Answer } | { ok: false; failure: SandboxFailure }) => void;
}

interface Slot {
  readonly worker: Worker;
  state: 'starting' | 'idle' | 'busy' | 'ended';
  /** Whose code this interpreter has run: it runs no one else's. Null: none yet. */
  tenant: string | null;
  call: PendingCall | null;
  timer: NodeJS.Timeout | null;
  idleTimer: NodeJS.Timeout | null;
}

export class PyodideSandbox implements CodeSandbox {
  private readonly slots: Slot[] = [];
  private readonly waiting: PendingCall[] = [];
  private nextId = 0;
  private closed = false;

  constructor(
    private readonly settings: PyodideSandboxSettings = DEFAULT_SANDBOX_SETTINGS,
    private readonly observer: SandboxObserver = {},
  ) {}

  inspect(source: CodeSource): TaskEither<SandboxFailure, CodeInspection> {
    return () => this.call(source.tenant, { op: 'inspect', source: sourceMessage(source) }).then((r) => (r._tag === 'Right' ? { _tag: 'Right', right: r.right as CodeInspection } : r));
  }

  score(source: CodeSource, args: ScorerArguments): TaskEither<SandboxFailure, ScorerReturn> {
    return () =>
      this.call(source.tenant, { op: 'score', source: sourceMessage(source), args: JSON.stringify(args) }).then((r) =>
        r._tag === 'Right' ? { _tag: 'Right', right: scorerReturn(r.right) } : r,
      );
  }

  /** Interpreters running (started or starting), and calls waiting for one. */
  held(): { readonly workers: number; readonly waiting: number } {
    return { workers: this.slots.length, waiting: this.waiting.length };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const call of this.waiting.splice(0)) call.settle({ ok: false, failure: { kind: 'unavailable', message: 'the scorer sandbox is closed' } });
    await Promise.all([...this.slots].map((s) => this.end(s, { kind: 'unavailable', message: 'the scorer sandbox is closed' })));
  }

  private call(tenant: string, message: CallBody): Promise<{ _tag: 'Left'; left: SandboxFailure } | { _tag: 'Right'; right: unknown }> {
    if (this.closed) return Promise.resolve({ _tag: 'Left', left: { kind: 'unavailable', message: 'the scorer sandbox is closed' } });
    return new Promise((resolve) => {
      this.waiting.push({
        tenant,
        message,
        settle: (outcome) => {
          if (!outcome.ok) return resolve({ _tag: 'Left', left: outcome.failure });
          const a = outcome.answer;
          resolve(a.ok ? { _tag: 'Right', right: a.result } : { _tag: 'Left', left: failureOf(a) });
        },
      });
      this.pump();
    });
  }

  /**
   * Hands waiting calls, oldest first, to idle interpreters: one that has run the call's owner's code,
   * else a fresh one. A call that finds none has one started for it while the pool is not full; in a
   * full pool it waits for its owner's interpreter, or, when its owner has none, takes the place of an
   * idle interpreter of another owner (ended, and a fresh one started), so that a busy owner does not
   * keep the pool from another.
   */
  private pump(): void {
    if (this.closed) return;
    // Fresh interpreters still starting: each will be the next waiting call's.
    let coming = this.slots.filter((s) => s.state === 'starting').length;
    for (let i = 0; i < this.waiting.length; ) {
      const call = this.waiting[i]!;
      const slot =
        this.slots.find((s) => s.state === 'idle' && s.tenant === call.tenant) ?? this.slots.find((s) => s.state === 'idle' && s.tenant === null);
      if (slot !== undefined) {
        this.waiting.splice(i, 1);
        this.run(slot, call);
        continue;
      }
      i++;
      if (coming > 0) coming--;
      else if (this.slots.length < this.settings.workers) this.spawn();
      else if (!this.slots.some((s) => s.tenant === call.tenant)) {
        const other = this.slots.find((s) => s.state === 'idle');
        if (other === undefined) continue;
        void this.end(other, null, undefined, false);
        this.spawn();
      }
    }
  }

  private spawn(): void {
    const settings: WorkerSettings = { heapBytes: this.settings.memoryMb * 1024 * 1024 };
    const worker = new Worker(WORKER_SCRIPT, {
      workerData: settings,
      // Its own empty environment, and no part of the server's arguments or streams.
      env: {},
      argv: [],
      execArgv: [],
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: 32 },
    });
    // Read and dropped: nothing a scorer writes reaches the server's output.
    worker.stdout.resume();
    worker.stderr.resume();
    const slot: Slot = { worker, state: 'starting', tenant: null, call: null, timer: null, idleTimer: null };
    this.slots.push(slot);
    worker.on('message', (m: WorkerMessage) => this.onMessage(slot, m));
    worker.on('error', (e: Error & { code?: string }) => {
      const memory = e.code === 'ERR_WORKER_OUT_OF_MEMORY';
      void this.end(slot, memory ? { kind: 'memory', message: 'the scorer ran out of memory' } : { kind: 'unavailable', message: `the scorer sandbox failed: ${e.message}` }, memory ? 'memory' : 'crash');
    });
    // A scorer that ends its own interpreter (os._exit) ends the call with it.
    worker.on('exit', (code) =>
      void this.end(
        slot,
        slot.state === 'busy'
          ? { kind: 'exception', message: `the scorer ended its Python interpreter (exit code ${code})`, traceback: '', line: null }
          : { kind: 'unavailable', message: `the scorer sandbox stopped (exit code ${code})` },
        'crash',
      ),
    );
  }

  private onMessage(slot: Slot, m: WorkerMessage): void {
    switch (m.type) {
      case 'ready':
        if (slot.state !== 'starting') return;
        this.observer.started?.(m.startMs);
        this.becomeIdle(slot);
        return;
      case 'answer': {
        const call = slot.call;
        if (slot.state !== 'busy' || call === null) return;
        this.clearCall(slot);
        let answer: Answer;
        try {
          answer = JSON.parse(m.json) as Answer;
        } catch {
          answer = { ok: false, kind: 'exception', message: 'the sandbox gave an answer it could not read', traceback: '', line: null };
        }
        call.settle({ ok: true, answer });
        this.becomeIdle(slot);
        return;
      }
      case 'fatal':
        void this.end(
          slot,
          slot.state === 'starting'
            ? { kind: 'unavailable', message: m.message }
            : { kind: 'exception', message: `the Python interpreter failed: ${m.message}`, traceback: '', line: null },
          'crash',
        );
        return;
    }
  }

  private run(slot: Slot, call: PendingCall): void {
    if (slot.idleTimer !== null) clearTimeout(slot.idleTimer);
    slot.idleTimer = null;
    slot.state = 'busy';
    slot.tenant = call.tenant;
    slot.call = call;
    const id = this.nextId++;
    slot.timer = setTimeout(() => void this.end(slot, { kind: 'timeout', limitMs: this.settings.timeLimitMs }, 'timeout'), this.settings.timeLimitMs);
    slot.worker.postMessage({ ...call.message, id } as CallMessage);
  }

  private becomeIdle(slot: Slot): void {
    slot.state = 'idle';
    slot.idleTimer = setTimeout(() => void this.end(slot, null), this.settings.idleMs);
    slot.idleTimer.unref();
    this.pump();
  }

  private clearCall(slot: Slot): void {
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    slot.call = null;
  }

  /**
   * Ends a worker: the call it was running, if any, fails with `failure`; the calls waiting go to
   * another (one is started for them), unless no interpreter can start (this one failed to), when they
   * fail too rather than wait for one that never comes.
   */
  private async end(slot: Slot, failure: SandboxFailure | null, reason?: 'timeout' | 'memory' | 'crash', pumpAfter = true): Promise<void> {
    if (slot.state === 'ended') return;
    const call = slot.call;
    const wasStarting = slot.state === 'starting';
    slot.state = 'ended';
    this.clearCall(slot);
    if (slot.idleTimer !== null) clearTimeout(slot.idleTimer);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    if (call !== null && failure !== null) call.settle({ ok: false, failure });
    if (reason !== undefined && !wasStarting) this.observer.replaced?.(reason);
    if (wasStarting && failure !== null && this.slots.length === 0)
      for (const waiting of this.waiting.splice(0)) waiting.settle({ ok: false, failure: { kind: 'unavailable', message: failure.kind === 'unavailable' ? failure.message : 'the scorer sandbox did not start' } });
    const stopped = slot.worker.terminate();
    if (pumpAfter && !this.closed) this.pump();
    await stopped.catch(() => undefined);
  }
}

const sourceMessage = (s: CodeSource) => ({ key: s.key, fileName: s.fileName, code: s.code });

/** A failure as the harness or the pool described it. */
const failureOf = (a: Record<string, unknown>): SandboxFailure => {
  const line = typeof a['line'] === 'number' ? a['line'] : null;
  const message = typeof a['message'] === 'string' ? a['message'] : 'the scorer failed';
  return a['kind'] === 'syntax' ? { kind: 'syntax', message, line } : { kind: 'exception', message, traceback: typeof a['traceback'] === 'string' ? a['traceback'] : '', line };
};

/** The harness's description of a returned value; a float that JSON cannot carry (nan, inf) comes as its repr. */
const scorerReturn = (r: unknown): ScorerReturn => {
  const o = r as { type: string; value?: unknown; typeName?: string };
  switch (o.type) {
    case 'none':
      return { type: 'none' };
    case 'bool':
      return { type: 'bool', value: o.value === true };
    case 'int':
      return { type: 'int', value: Number(o.value) };
    case 'float':
      return { type: 'float', value: typeof o.value === 'number' ? o.value : o.value === 'nan' ? Number.NaN : o.value === '-inf' ? -Infinity : Infinity };
    case 'str':
      return { type: 'str', value: String(o.value) };
    default:
      return { type: 'other', typeName: o.typeName ?? 'value' };
  }
};
