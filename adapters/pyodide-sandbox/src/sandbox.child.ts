// A sandbox process's main: one Pyodide interpreter, closed off from the host, answering its pool's calls
// one at a time over fd 3. Started by SandboxProcess with Node's permission model and nothing of the server's.
import * as net from 'node:net';
import { type Interpreter, type InterpreterSettings, startInterpreter } from './interpreter';
import { LineReader, type Reply, type Request } from './sandbox-protocol';

// Kept before the lockdown takes `process` from the global object.
const proc = process;
const settings = JSON.parse(proc.argv[2] ?? '{}') as InterpreterSettings;
const channel = new net.Socket({ fd: 3, readable: true, writable: true });
const send = (m: Reply): void => void channel.write(`${JSON.stringify(m)}\n`);
const fatal = (message: string): void => {
  channel.end(`${JSON.stringify({ type: 'fatal', message } satisfies Reply)}\n`, () => proc.exit(70));
  // Should the pipe not drain, the pool ends this process.
};

const unreadable = { ok: false, kind: 'exception', message: 'the sandbox gave an answer it could not read', traceback: '', line: null, errorType: null };

let interpreter: Interpreter | null = null;
const early: Request[] = [];

const handle = (m: Request): void => {
  if (m.op === 'ping') return send({ type: 'pong', id: m.id });
  if (interpreter === null) {
    early.push(m);
    return;
  }
  let json: string;
  try {
    json = m.op === 'inspect' ? interpreter.inspect(m.source.key, m.source.fileName, m.source.code) : interpreter.score(m.source.key, m.source.fileName, m.source.code, m.args);
  } catch (e) {
    // The harness answers every Python exception: what reaches here broke the interpreter itself.
    return fatal(e instanceof Error ? e.message.split('\n').filter((l) => l.trim() !== '').slice(-3).join(' ') : String(e));
  }
  // Parsed here and written again: whatever the harness's json module was made to write, a line is one JSON object.
  let body: unknown;
  try {
    body = JSON.parse(json);
  } catch {
    body = unreadable;
  }
  send({ type: 'answer', id: m.id, body });
  // Once the thread is free again (whatever the call left queued has run, or runs on and this never
  // comes): the pong the pool waits for before its next call.
  setImmediate(() => send({ type: 'pong', id: m.id }));
};

const reader = new LineReader(
  // The pool's lines: a record's arguments may be long, but not unbounded.
  256 * 1024 * 1024,
  (line) => {
    let m: Request;
    try {
      m = JSON.parse(line) as Request;
    } catch {
      return fatal('the pool sent a line that is not JSON');
    }
    handle(m);
  },
  () => fatal('the pool sent a line too long'),
);
channel.on('data', (chunk: Buffer) => reader.push(chunk));
// The pool is gone (its process ended): so is this one.
channel.on('close', () => proc.exit(0));
channel.on('error', () => proc.exit(0));
proc.on('uncaughtException', (e) => fatal(`the sandbox process failed: ${e instanceof Error ? e.message : String(e)}`));

const began = performance.now();
startInterpreter(settings).then(
  (started) => {
    interpreter = started;
    send({ type: 'ready', startMs: Math.round(performance.now() - began) });
    for (const m of early.splice(0)) handle(m);
  },
  (e: unknown) => fatal(`the Python interpreter did not start: ${e instanceof Error ? e.message : String(e)}`),
);
