// The sandbox's process boundary and its pool, against processes of the tests' own that speak the
// protocol (no Pyodide: what is tested is what holds whatever code runs inside). Needs `pnpm build`:
// the processes load the compiled lockdown.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ScorerArguments } from '@tracelight/domain';
import * as E from 'fp-ts/Either';
import { PyodideSandbox } from './pyodide-sandbox';
import type { SandboxProcessCommand } from './sandbox-process';

jest.setTimeout(120_000);

const LOCKDOWN = path.resolve(__dirname, '..', 'dist', 'lockdown.js');
const ARGS: ScorerArguments = { index: 'r', node_input: '', node_output: 'out', node_name: 'n', node_type: 'llm', node_id: 'r', tools: null, dataset_variables: {} };

let dir: string;
beforeAll(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-sandbox-')));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * A process that speaks the protocol: `body` runs once at its start (with `settings` and `report`), then
 * every call is answered with a str: the call's `code`, run as a function of (settings, results).
 */
const child = (name: string, body: string): string => {
  const file = path.join(dir, `${name}.js`);
  fs.writeFileSync(
    file,
    `'use strict';
const net = require('node:net');
const proc = process;
const settings = JSON.parse(proc.argv[2]);
const channel = new net.Socket({ fd: 3, readable: true, writable: true });
const send = (m) => channel.write(JSON.stringify(m) + '\\n');
const results = {};
const attempt = (name, f) => {
  try {
    const v = f();
    results[name] = 'allowed: ' + String(v && typeof v === 'object' ? Object.keys(v).join(',') || v.constructor?.name : v).slice(0, 200);
  } catch (e) {
    results[name] = 'refused: ' + String((e && e.code) || (e && e.message) || e).slice(0, 200);
  }
};
${body}
let buffered = '';
channel.on('data', (chunk) => {
  buffered += chunk.toString('utf8');
  for (let nl = buffered.indexOf('\\n'); nl >= 0; nl = buffered.indexOf('\\n')) {
    const m = JSON.parse(buffered.slice(0, nl));
    buffered = buffered.slice(nl + 1);
    if (m.op === 'ping') send({ type: 'pong', id: m.id });
    else answer(m);
  }
});
channel.on('close', () => proc.exit(0));
send({ type: 'ready', startMs: 0 });
`,
  );
  return file;
};

const command = (script: string, settings: unknown, reads: string[] = []): SandboxProcessCommand => ({ script, reads, jsHeapMb: 64, settings });

describe('a sandbox process', () => {
  it('reads no host file, sees no environment, starts no process or thread, writes nothing and connects nowhere, whatever code it runs', async () => {
    // What a scorer that reached the process's JavaScript (H1: through a retargeted JsProxy) would do.
    const secret = path.join(dir, 'secret.key');
    fs.writeFileSync(secret, 'the-server-secret-key');
    process.env['TRACELIGHT_SANDBOX_CANARY'] = 'canary-in-the-server-environment';
    const connections: string[] = [];
    const listener = net.createServer((s) => {
      connections.push('connected');
      s.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as net.AddressInfo).port;
    const script = child(
      'hostile',
      `const fs = require('node:fs');
const cp = require('node:child_process');
const wt = require('node:worker_threads');
const tls = require('node:tls');
const http = require('node:http');
const dgram = require('node:dgram');
const dns = require('node:dns');
const vm = require('node:vm');
const { lockDownNode } = require(settings.lockdown);
// The process's permissions: before the lockdown, with every Node module at hand.
attempt('read the secret key', () => fs.readFileSync(settings.secret, 'utf8'));
attempt('read the environment through /proc', () => fs.readFileSync('/proc/self/environ', 'utf8'));
attempt('read /etc/hostname', () => fs.readFileSync('/etc/hostname', 'utf8'));
attempt('list the server directory', () => fs.readdirSync(settings.serverDir).join(','));
attempt('write a file', () => fs.writeFileSync(settings.secret + '.written', 'x'));
attempt('run a process', () => cp.execFileSync('/bin/echo', ['ran']).toString());
attempt('start a thread', () => new wt.Worker('setInterval(() => {}, 1000)', { eval: true }).threadId);
attempt('make code from text', () => new Function('return 42')());
attempt('eval', () => (0, eval)('42'));
results['environment'] = JSON.stringify(proc.env);
lockDownNode();
// The network (which Node 20's permission model does not cover): after the lockdown.
attempt('net.connect', () => net.connect(settings.port, '127.0.0.1').on('error', () => {}));
attempt('net.Socket().connect', () => new net.Socket().connect(settings.port, '127.0.0.1').on('error', () => {}));
attempt('net.createServer().listen', () => net.createServer().listen(0));
attempt('tls.connect', () => tls.connect(settings.port, '127.0.0.1').on('error', () => {}));
attempt('http.get', () => http.get('http://127.0.0.1:' + settings.port + '/').on('error', () => {}));
attempt('dgram.send', () => dgram.createSocket('udp4').send('x', settings.port, '127.0.0.1'));
attempt('dns.lookup', () => dns.lookup('localhost', () => {}));
attempt('process.binding tcp_wrap', () => proc.binding('tcp_wrap'));
attempt('process._linkedBinding', () => proc._linkedBinding('tcp_wrap'));
attempt('process.dlopen', () => proc.dlopen({}, '/lib/x86_64-linux-gnu/libc.so.6'));
attempt('vm', () => vm.runInThisContext('42'));
attempt('require a module after the lockdown', () => require('node:os').hostname());
attempt('require net again after the lockdown', () => require('node:net').connect(settings.port, '127.0.0.1'));
attempt('fetch', () => fetch('http://127.0.0.1:' + settings.port + '/'));
const answer = (m) => send({ type: 'answer', id: m.id, body: { ok: true, result: { type: 'str', value: JSON.stringify(results) } } });`,
    );
    const sandbox = new PyodideSandbox(
      { workers: 1, timeLimitMs: 60_000, memoryMb: 64, idleMs: 600_000 },
      {},
      command(script, { secret, port, lockdown: LOCKDOWN, serverDir: process.cwd() }, [LOCKDOWN]),
    );
    try {
      const r = await sandbox.score({ key: 'k', fileName: 's.py', code: '', tenant: 't' }, ARGS)();
      if (E.isLeft(r) || r.right.type !== 'str') throw new Error(`the process did not answer: ${JSON.stringify(r)}`);
      const results = JSON.parse(r.right.value) as Record<string, string>;
      const { environment, ...attempts } = results;
      expect(JSON.parse(environment ?? 'null')).toEqual({});
      // Every attempt refused: by the permission model (ERR_ACCESS_DENIED) or by the lockdown.
      expect(Object.entries(attempts).filter(([, v]) => !v.startsWith('refused'))).toEqual([]);
      expect(Object.keys(attempts)).toHaveLength(23);
      expect(attempts['read the secret key']).toBe('refused: ERR_ACCESS_DENIED');
      expect(attempts['read the environment through /proc']).toBe('refused: ERR_ACCESS_DENIED');
      expect(JSON.stringify(results)).not.toContain('the-server-secret-key');
      expect(JSON.stringify(results)).not.toContain('canary-in-the-server-environment');
      expect(fs.existsSync(`${secret}.written`)).toBe(false);
      // Any connection attempted would have reached the listener by the time a second call is answered.
      expect(await sandbox.score({ key: 'k', fileName: 's.py', code: '', tenant: 't' }, ARGS)()).toMatchObject(E.right({ type: 'str' }));
      expect(connections).toEqual([]);
    } finally {
      delete process.env['TRACELIGHT_SANDBOX_CANARY'];
      await sandbox.close();
      listener.close();
    }
  });
});

describe('the sandbox pool', () => {
  it('ends a process whose code runs on after its call answered (M1), and serves the next call with a fresh one', async () => {
    const script = child(
      'lingering',
      `let calls = 0;
const answer = (m) => {
  calls++;
  send({ type: 'answer', id: m.id, body: { ok: true, result: { type: 'int', value: calls } } });
  // What a scorer's timer did (a callback scheduled to spin): the thread never frees again.
  if (calls === 1) setImmediate(() => { for (;;) {} });
};`,
    );
    const replaced: string[] = [];
    const sandbox = new PyodideSandbox({ workers: 1, timeLimitMs: 1_000, memoryMb: 64, idleMs: 600_000 }, { replaced: (r) => replaced.push(r) }, command(script, {}));
    try {
      const file = { key: 'k', fileName: 's.py', code: '', tenant: 't' };
      expect(await sandbox.score(file, ARGS)()).toEqual(E.right({ type: 'int', value: 1 }));
      // The next call waits for the check that follows every answer: the spinning process fails it and
      // is ended; the call goes to a new process (its first call: 1 again).
      expect(await sandbox.score(file, ARGS)()).toEqual(E.right({ type: 'int', value: 1 }));
      expect(replaced).toEqual(['timeout']);
    } finally {
      await sandbox.close();
    }
  });

  it('ends a process that answers past the time limit, and one that writes what the protocol has not', async () => {
    const script = child(
      'misbehaving',
      `const answer = (m) => {
  const args = JSON.parse(m.args);
  if (args.index === 'slow') return;
  if (args.index === 'flood') return channel.write('x'.repeat(2 * 1024 * 1024));
  send({ type: 'answer', id: m.id, body: { ok: true, result: { type: 'str', value: args.index } } });
};`,
    );
    const replaced: string[] = [];
    const sandbox = new PyodideSandbox({ workers: 1, timeLimitMs: 1_500, memoryMb: 64, idleMs: 600_000 }, { replaced: (r) => replaced.push(r) }, command(script, {}));
    try {
      const file = { key: 'k', fileName: 's.py', code: '', tenant: 't' };
      expect(await sandbox.score(file, { ...ARGS, index: 'slow' })()).toEqual(E.left({ kind: 'timeout', limitMs: 1_500 }));
      expect(await sandbox.score(file, { ...ARGS, index: 'flood' })()).toMatchObject(E.left({ kind: 'exception' }));
      expect(await sandbox.score(file, { ...ARGS, index: 'fine' })()).toEqual(E.right({ type: 'str', value: 'fine' }));
      expect(replaced).toEqual(['timeout', 'crash']);
    } finally {
      await sandbox.close();
    }
  });

  it('keeps one owner from holding the pool (M6): its waiting uploads are bounded, and another owner is served in turn', async () => {
    // Each call holds its process until the test releases it (a file of its name, or `all`, that the process polls for).
    const script = child(
      'held',
      `const fs = require('node:fs');
const path = require('node:path');
const answer = (m) => {
  const name = m.op === 'inspect' ? 'up-' + m.source.key : JSON.parse(m.args).index;
  const wait = () => {
    if (!fs.existsSync(path.join(settings.dir, 'release-' + name)) && !fs.existsSync(path.join(settings.dir, 'release-all'))) return setTimeout(wait, 20);
    send({ type: 'answer', id: m.id, body: { ok: true, result: { type: 'str', value: name } } });
  };
  wait();
};`,
    );
    const releases = fs.mkdtempSync(path.join(dir, 'releases-'));
    const release = (name: string) => fs.writeFileSync(path.join(releases, `release-${name}`), '');
    const sandbox = new PyodideSandbox(
      { workers: 2, timeLimitMs: 60_000, memoryMb: 64, idleMs: 600_000, uploadsWaitingPerOwner: 2, uploadsWaiting: 3 },
      {},
      command(script, { dir: releases }, [releases]),
    );
    const call = (tenant: string, index: string) => sandbox.score({ key: tenant, fileName: 's.py', code: '', tenant }, { ...ARGS, index })();
    const upload = (tenant: string) => sandbox.inspect({ key: tenant, fileName: 's.py', code: '', tenant })();
    /** A call's answer, or a failure of the test rather than a hang when it never comes. */
    const within = <T>(p: Promise<T>, what: string): Promise<T> => {
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([p, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} was not served`)), 60_000)))]).finally(() => clearTimeout(timer));
    };
    try {
      // alice's jobs take both interpreters and two more wait; jobs are never refused.
      const alice = ['a1', 'a2', 'a3', 'a4'].map((i) => call('alice', i));
      // Her uploads wait up to her share; past it she is told to come back (429's `mine`).
      const aliceUploads = [upload('alice'), upload('alice')];
      expect(await upload('alice')).toMatchObject(E.left({ kind: 'busy', mine: true, retryAfterMs: 60_000 }));
      // bob's job waits with them; carol's upload fills the queue's uploads, dave's is refused (503's).
      const bob = call('bob', 'b1');
      const carol = upload('carol');
      expect(await upload('dave')).toMatchObject(E.left({ kind: 'busy', mine: false, retryAfterMs: 60_000 }));
      // Waiting: the six queued, and a1 and a2 while their processes start.
      expect(sandbox.held()).toEqual({ workers: 2, waiting: 8 });
      // One of alice's calls answers: its interpreter goes to bob (alice holds her share, one, while
      // others wait), not to alice's next. Were it alice's, bob's would never be served here.
      release('a1');
      release('b1');
      expect(await within(alice[0]!, 'a1')).toEqual(E.right({ type: 'str', value: 'a1' }));
      expect(await within(bob, "bob's call")).toEqual(E.right({ type: 'str', value: 'b1' }));
      release('up-carol');
      expect(await within(carol, "carol's upload")).toMatchObject(E.right({}));
      release('all');
      await within(Promise.all([...alice, ...aliceUploads]), "alice's calls");
    } finally {
      await sandbox.close();
    }
  });
});
