// The CodeSandbox port on Pyodide (CPython compiled to WebAssembly): a small pool of sandbox processes,
// each holding a warm interpreter that serves one owner's code, each call within a time limit, owners
// served in turn.
import { type CodeInspection, MAX_STR_VALUE_CHARS, MAX_TYPE_NAME_CHARS, type ScorerArguments, type ScorerReturn, codePointsOf } from '@tracelight/domain';
import type { CodeSandbox, CodeSource, SandboxFailure } from '@tracelight/ports';
import type { TaskEither } from 'fp-ts/TaskEither';
import { type Admission, FairQueue, type QueuedCall } from './fair-queue';
import type { InterpreterSettings } from './interpreter';
import type { CallBody, Reply } from './sandbox-protocol';
import { type ProcessEnd, SandboxProcess, type SandboxProcessCommand, interpreterCommand, pyodideDir } from './sandbox-process';

export interface PyodideSandboxSettings {
  /** Interpreters kept (each a process with its own Python): calls beyond them wait their turn. */
  readonly workers: number;
  /** The longest one call may run; past it its process is ended and replaced. */
  readonly timeLimitMs: number;
  /** The most memory the Python heap of one interpreter may grow to, in MiB (MemoryError past it). */
  readonly memoryMb: number;
  /** An interpreter idle this long is ended (the next call starts one again). */
  readonly idleMs: number;
  /** Uploads of one owner that may wait for an interpreter at once; more are refused `busy` (429). Default 2. */
  readonly uploadsWaitingPerOwner?: number;
  /** Uploads of everyone that may wait at once; more are refused `busy` (503). Default 32. */
  readonly uploadsWaiting?: number;
}

export const DEFAULT_SANDBOX_SETTINGS: PyodideSandboxSettings = { workers: 2, timeLimitMs: 5_000, memoryMb: 256, idleMs: 300_000 };

/** What the sandbox tells of its work: for logs and metrics. */
export interface SandboxObserver {
  /** An interpreter started, after this long. */
  started?(ms: number): void;
  /**
   * An interpreter was ended: it ran past the time limit (a call, or code left running after its call
   * answered), out of memory, broke, or broke the protocol.
   */
  replaced?(reason: 'timeout' | 'memory' | 'crash'): void;
}

/**
 * V8's heap of a sandbox process (the JavaScript side of Pyodide, not Python's objects, which live in its
 * WebAssembly memory): past it the process ends.
 */
const JS_HEAP_MB = 192;

/**
 * How often an idle interpreter is asked whether its thread is free, and how long a process may take to
 * answer that (or the ping after each answer): one that does not has code running outside any call, and
 * is ended. Generous: a loaded machine answers late, and a false alarm costs a restart, not a call.
 */
const HEARTBEAT_MS = 2_000;
const pingLimitMs = (timeLimitMs: number): number => Math.max(2_000, timeLimitMs);

type Outcome = { ok: true; body: unknown } | { ok: false; failure: SandboxFailure };

interface PendingCall extends QueuedCall {
  readonly message: CallBody;
  readonly settle: (outcome: Outcome) => void;
}

interface Slot {
  readonly proc: SandboxProcess;
  /** checking: answered, and waiting for the pong that says nothing of the call runs on. */
  state: 'starting' | 'idle' | 'busy' | 'checking' | 'ended';
  /** Whose code this interpreter has run: it runs no one else's. Null: none yet. */
  tenant: string | null;
  /** While starting: the call it was started for, and whose (it counts in that owner's share). */
  next: PendingCall | null;
  call: PendingCall | null;
  callId: number;
  timer: NodeJS.Timeout | null;
  idleTimer: NodeJS.Timeout | null;
  ping: { id: number; timer: NodeJS.Timeout } | null;
  heartbeat: NodeJS.Timeout | null;
  /** When it last took a call (the pool's count of calls): a full pool ends the idle one used longest ago. */
  lastUsed: number;
}

/** Every sandbox process of this process's pools: ended with it, however it ends. */
const live = new Set<SandboxProcess>();
let exitHooked = false;
const hookExit = (): void => {
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const p of live) void p.kill('the server stopped');
  });
};

export class PyodideSandbox implements CodeSandbox {
  private readonly slots: Slot[] = [];
  private readonly queue: FairQueue<PendingCall>;
  private readonly command: SandboxProcessCommand;
  private nextId = 0;
  private closed = false;

  /**
   * `command` replaces the interpreter's process (tests run the pool against processes of their own that
   * speak the same protocol).
   */
  constructor(
    private readonly settings: PyodideSandboxSettings = DEFAULT_SANDBOX_SETTINGS,
    private readonly observer: SandboxObserver = {},
    command?: SandboxProcessCommand,
  ) {
    this.queue = new FairQueue({ uploadsPerOwner: settings.uploadsWaitingPerOwner ?? 2, uploads: settings.uploadsWaiting ?? 32 });
    this.command = command ?? interpreterCommand(this.interpreterSettings(), JS_HEAP_MB);
    hookExit();
  }

  inspect(source: CodeSource): TaskEither<SandboxFailure, CodeInspection> {
    return () => this.call(source.tenant, 'upload', { op: 'inspect', source: sourceMessage(source) }).then((r) => (r._tag === 'Right' ? { _tag: 'Right', right: inspection(r.right) } : r));
  }

  score(source: CodeSource, args: ScorerArguments): TaskEither<SandboxFailure, ScorerReturn> {
    return () =>
      this.call(source.tenant, 'job', { op: 'score', source: sourceMessage(source), args: JSON.stringify(args) }).then((r) =>
        r._tag === 'Right' ? { _tag: 'Right', right: scorerReturn(r.right) } : r,
      );
  }

  /** Interpreters running (started or starting), and calls waiting for one. */
  held(): { readonly workers: number; readonly waiting: number } {
    return { workers: this.slots.length, waiting: this.queue.size + this.slots.filter((s) => s.next !== null).length };
  }

  async close(): Promise<void> {
    this.closed = true;
    const closed: SandboxFailure = { kind: 'unavailable', message: 'the scorer sandbox is closed' };
    for (const call of this.queue.drain()) call.settle({ ok: false, failure: closed });
    await Promise.all([...this.slots].map((s) => this.end(s, closed, undefined, 'the sandbox closed')));
  }

  private interpreterSettings(): InterpreterSettings {
    return { heapBytes: this.settings.memoryMb * 1024 * 1024, pyodideDir: pyodideDir(), limits: { strChars: MAX_STR_VALUE_CHARS, nameChars: MAX_TYPE_NAME_CHARS } };
  }

  private call(tenant: string, kind: QueuedCall['kind'], message: CallBody): Promise<{ _tag: 'Left'; left: SandboxFailure } | { _tag: 'Right'; right: unknown }> {
    if (this.closed) return Promise.resolve({ _tag: 'Left', left: { kind: 'unavailable', message: 'the scorer sandbox is closed' } });
    return new Promise((resolve) => {
      const admitted: Admission = this.queue.admit({
        tenant,
        kind,
        message,
        settle: (outcome) => {
          if (!outcome.ok) return resolve({ _tag: 'Left', left: outcome.failure });
          resolve(answerOf(outcome.body));
        },
      });
      if (admitted !== 'queued') {
        const mine = admitted === 'mine';
        resolve({
          _tag: 'Left',
          left: {
            kind: 'busy',
            mine,
            retryAfterMs: this.settings.timeLimitMs,
            message: mine
              ? 'the scorer sandbox is busy with your uploads already: send this one once they are answered'
              : 'the scorer sandbox is busy: too many uploads wait for an interpreter',
          },
        });
        return;
      }
      this.pump();
    });
  }

  /** Owners with work in hand or waiting. */
  private activeTenants(): Set<string> {
    const active = new Set(this.queue.tenants());
    for (const s of this.slots) {
      if ((s.state === 'busy' || s.state === 'checking') && s.tenant !== null) active.add(s.tenant);
      if (s.next !== null) active.add(s.next.tenant);
    }
    return active;
  }

  /** Interpreters an owner holds: running its call, checking after one, or starting for one. */
  private heldBy(tenant: string): number {
    return this.slots.filter((s) => ((s.state === 'busy' || s.state === 'checking') && s.tenant === tenant) || s.next?.tenant === tenant).length;
  }

  /**
   * Hands waiting calls to interpreters, owners in turn, while some interpreter can take one: an idle one
   * that has run the owner's code, else a fresh one, else (the pool full) an idle one of another owner,
   * ended and replaced by a fresh one; else one is started while the pool is not full. While others wait
   * too, an owner holds at most its share of the pool (the pool's size over the owners waiting, at
   * least one), so that a busy owner (a loop that runs to the time limit, upload after upload) does not
   * keep the pool from another. A call that would end another owner's interpreter waits while one is
   * being checked after its answer (a moment, unless it is ended): the choice of which to end is then
   * made among all of them, the one used longest ago.
   */
  private pump(): void {
    if (this.closed) return;
    for (;;) {
      const canStart = this.slots.length < this.settings.workers;
      const idle = this.slots.filter((s) => s.state === 'idle');
      if (!canStart && idle.length === 0) return;
      const checking = this.slots.some((s) => s.state === 'checking');
      const share = Math.max(1, Math.floor(this.settings.workers / Math.max(1, this.activeTenants().size)));
      const servedWithoutEnding = (tenant: string) => canStart || !checking || idle.some((s) => s.tenant === tenant || s.tenant === null);
      const call = this.queue.take((tenant) => this.heldBy(tenant) < share && servedWithoutEnding(tenant));
      if (call === undefined) return;
      this.serve(call);
    }
  }

  private serve(call: PendingCall): void {
    const idle = this.slots.filter((s) => s.state === 'idle');
    const slot = idle.find((s) => s.tenant === call.tenant) ?? idle.find((s) => s.tenant === null);
    if (slot !== undefined) return this.run(slot, call);
    if (this.slots.length >= this.settings.workers) {
      // The one used longest ago: an owner's interpreter that has just answered is the likeliest to serve it next.
      const other = idle.reduce<Slot | undefined>((a, s) => (a === undefined || s.lastUsed < a.lastUsed ? s : a), undefined);
      if (other === undefined) return call.settle({ ok: false, failure: { kind: 'unavailable', message: 'the scorer sandbox had no interpreter for the call' } });
      // Another owner's: ended (its owner's code stays its own), a fresh one started in its place.
      void this.end(other, null, undefined, 'its place went to another owner', false);
    }
    this.spawn(call);
  }

  private spawn(call: PendingCall): void {
    let slot: Slot;
    const events = {
      reply: (m: Reply) => this.onReply(slot, m),
      end: (e: ProcessEnd) => this.onEnd(slot, e),
    };
    let proc: SandboxProcess;
    try {
      proc = new SandboxProcess(this.command, events);
    } catch (e) {
      call.settle({ ok: false, failure: { kind: 'unavailable', message: `the scorer sandbox could not start an interpreter: ${e instanceof Error ? e.message : String(e)}` } });
      return;
    }
    live.add(proc);
    slot = { proc, state: 'starting', tenant: null, next: call, call: null, callId: -1, timer: null, idleTimer: null, ping: null, heartbeat: null, lastUsed: -1 };
    this.slots.push(slot);
  }

  private onReply(slot: Slot, m: Reply): void {
    if (slot.state === 'ended') return;
    switch (m.type) {
      case 'ready': {
        if (slot.state !== 'starting') return;
        this.observer.started?.(typeof m.startMs === 'number' ? m.startMs : 0);
        const next = slot.next;
        slot.next = null;
        if (next !== null) this.run(slot, next);
        else this.becomeIdle(slot);
        return;
      }
      case 'answer': {
        const call = slot.call;
        if (slot.state !== 'busy' || call === null || m.id !== slot.callId) return void this.end(slot, null, 'crash', 'it answered a call it was not given');
        this.clearCall(slot);
        call.settle({ ok: true, body: m.body });
        // Nothing of the call may run on after its answer (a timer, a promise's callback): the process
        // must answer a ping (under the call's id) before it takes another call. It sends that pong by
        // itself once its thread is free again, saving the ping's way there; the ping is sent all the same.
        slot.state = 'checking';
        this.ping(slot, m.id);
        return;
      }
      case 'pong': {
        if (slot.ping === null || m.id !== slot.ping.id) return;
        clearTimeout(slot.ping.timer);
        slot.ping = null;
        if (slot.state === 'checking') this.becomeIdle(slot);
        return;
      }
      case 'fatal': {
        const message = boundedText(m.message, 500);
        void this.end(
          slot,
          slot.state === 'starting'
            ? { kind: 'unavailable', message: `the scorer sandbox did not start: ${message}` }
            : { kind: 'exception', message: `the Python interpreter failed: ${message}`, traceback: '', line: null, errorType: null },
          'crash',
          'it failed',
        );
        return;
      }
      default:
        void this.end(slot, null, 'crash', 'it wrote a message the protocol has not');
    }
  }

  /** The process ended by itself (the pool's own ends are handled where they are decided). */
  private onEnd(slot: Slot, e: ProcessEnd): void {
    live.delete(slot.proc);
    if (slot.state === 'ended') return;
    const exit = e.signal ?? `exit code ${e.code}`;
    if (slot.state === 'starting') {
      const said = slot.proc.stderrTail.trim().split('\n').filter((l) => l.trim() !== '').slice(-1)[0];
      void this.end(slot, { kind: 'unavailable', message: `the scorer sandbox did not start (${exit})${said ? `: ${boundedText(said, 300)}` : ''}` }, 'crash');
      return;
    }
    const failure: SandboxFailure = e.outOfMemory
      ? { kind: 'memory', message: 'the scorer ran out of memory' }
      : { kind: 'exception', message: `the scorer ended its Python interpreter (${exit})`, traceback: '', line: null, errorType: null };
    void this.end(slot, slot.state === 'busy' ? failure : null, e.outOfMemory ? 'memory' : 'crash');
  }

  private run(slot: Slot, call: PendingCall): void {
    this.clearIdle(slot);
    slot.state = 'busy';
    slot.tenant = call.tenant;
    slot.call = call;
    slot.callId = this.nextId++;
    slot.lastUsed = slot.callId;
    slot.timer = setTimeout(() => void this.end(slot, { kind: 'timeout', limitMs: this.settings.timeLimitMs }, 'timeout', 'it ran past the time limit'), this.settings.timeLimitMs);
    slot.proc.send({ ...call.message, id: slot.callId });
  }

  private ping(slot: Slot, id = this.nextId++): void {
    if (slot.ping !== null) return;
    const timer = setTimeout(() => void this.end(slot, null, 'timeout', 'its code ran on after its call answered'), pingLimitMs(this.settings.timeLimitMs));
    slot.ping = { id, timer };
    slot.proc.send({ op: 'ping', id });
  }

  private becomeIdle(slot: Slot): void {
    slot.state = 'idle';
    this.clearIdle(slot);
    slot.idleTimer = setTimeout(() => void this.end(slot, null, undefined, 'it was idle'), this.settings.idleMs);
    slot.idleTimer.unref();
    slot.heartbeat = setInterval(() => this.ping(slot), HEARTBEAT_MS);
    slot.heartbeat.unref();
    this.pump();
  }

  private clearIdle(slot: Slot): void {
    if (slot.idleTimer !== null) clearTimeout(slot.idleTimer);
    if (slot.heartbeat !== null) clearInterval(slot.heartbeat);
    slot.idleTimer = null;
    slot.heartbeat = null;
  }

  private clearCall(slot: Slot): void {
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    slot.call = null;
  }

  /**
   * Ends a process: the call it was running (or started for), if any, fails with `failure`; the calls
   * waiting go to another (one is started for them), unless no interpreter can start (this one failed
   * to), when they fail too rather than wait for one that never comes.
   */
  private async end(slot: Slot, failure: SandboxFailure | null, reason?: 'timeout' | 'memory' | 'crash', why = 'it ended', pumpAfter = true): Promise<void> {
    if (slot.state === 'ended') return;
    const call = slot.call ?? slot.next;
    const wasStarting = slot.state === 'starting';
    slot.state = 'ended';
    this.clearCall(slot);
    this.clearIdle(slot);
    if (slot.ping !== null) clearTimeout(slot.ping.timer);
    slot.ping = null;
    slot.next = null;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    if (call !== null) call.settle({ ok: false, failure: failure ?? { kind: 'unavailable', message: 'the scorer sandbox ended the interpreter of the call' } });
    if (reason !== undefined && !wasStarting) this.observer.replaced?.(reason);
    if (wasStarting && failure !== null && this.slots.length === 0) {
      const message = failure.kind === 'unavailable' ? failure.message : 'the scorer sandbox did not start';
      for (const waiting of this.queue.drain()) waiting.settle({ ok: false, failure: { kind: 'unavailable', message } });
    }
    const stopped = slot.proc.kill(why);
    if (pumpAfter && !this.closed) this.pump();
    await stopped;
    live.delete(slot.proc);
  }
}

const sourceMessage = (s: CodeSource) => ({ key: s.key, fileName: s.fileName, code: s.code });

/** Text from a process, cut to `max` characters (its end kept: where Python says what went wrong). */
const boundedText = (v: unknown, max: number): string => {
  const s = typeof v === 'string' ? v : '';
  return s.length <= max ? s : `…${s.slice(s.length - max + 1)}`;
};

const record = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** A harness's answer: its result, or its failure; read defensively (a process is not trusted to keep the protocol). */
const answerOf = (body: unknown): { _tag: 'Left'; left: SandboxFailure } | { _tag: 'Right'; right: unknown } => {
  const a = record(body);
  if (a['ok'] === true) return { _tag: 'Right', right: a['result'] };
  return { _tag: 'Left', left: failureOf(a) };
};

/** A failure as the harness described it, each part bounded (the harness bounds them too). */
const failureOf = (a: Record<string, unknown>): SandboxFailure => {
  const line = typeof a['line'] === 'number' && Number.isInteger(a['line']) ? a['line'] : null;
  const message = boundedText(a['message'], 2_000) || 'the scorer failed';
  if (a['kind'] === 'syntax') return { kind: 'syntax', message, line };
  const errorType = typeof a['errorType'] === 'string' && a['errorType'].length <= MAX_TYPE_NAME_CHARS ? a['errorType'] : null;
  return { kind: 'exception', message, traceback: boundedText(a['traceback'], 8_000), line, errorType };
};

/** A name or a hook's text, its start kept, at most MAX_TYPE_NAME_CHARS. */
const text = (v: unknown): string | null => (typeof v !== 'string' ? null : v.length <= MAX_TYPE_NAME_CHARS ? v : `${v.slice(0, MAX_TYPE_NAME_CHARS - 1)}…`);

/** The harness's reading of a file's hooks, each text bounded. */
const inspection = (r: unknown): CodeInspection => {
  const o = record(r);
  const fn = record(o['scorerFn']);
  const scorerFn: CodeInspection['scorerFn'] =
    fn['kind'] === 'function'
      ? { kind: 'function', line: typeof fn['line'] === 'number' ? fn['line'] : null, takesKwargs: fn['takesKwargs'] !== false }
      : fn['kind'] === 'not_callable'
        ? { kind: 'not_callable' }
        : { kind: 'missing' };
  const types = o['scoreableNodeTypes'];
  return {
    scorerFn,
    scoreType: text(o['scoreType']),
    scoreableNodeTypes: types === null || types === undefined ? null : Array.isArray(types) && types.length <= 64 ? types.map((t) => text(t) ?? '') : 'invalid',
    chainAggregation: text(o['chainAggregation']),
  };
};

/** The harness's description of a returned value; a float that JSON cannot carry (nan, inf) comes as its repr. */
const scorerReturn = (r: unknown): ScorerReturn => {
  const o = record(r);
  switch (o['type']) {
    case 'none':
      return { type: 'none' };
    case 'bool':
      return { type: 'bool', value: o['value'] === true };
    case 'int':
      return { type: 'int', value: Number(o['value']) };
    case 'float':
      return { type: 'float', value: typeof o['value'] === 'number' ? o['value'] : o['value'] === 'nan' ? Number.NaN : o['value'] === '-inf' ? -Infinity : Infinity };
    case 'str': {
      const value = typeof o['value'] === 'string' ? o['value'] : '';
      const length = codePointsOf(value);
      return length > MAX_STR_VALUE_CHARS ? { type: 'str_too_long', length } : { type: 'str', value };
    }
    case 'str_too_long':
      return { type: 'str_too_long', length: typeof o['length'] === 'number' ? o['length'] : MAX_STR_VALUE_CHARS + 1 };
    default:
      return { type: 'other', typeName: text(o['typeName']) ?? 'value' };
  }
};
