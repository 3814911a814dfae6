// A sandbox worker thread: one Pyodide interpreter, started then closed off from the host (its files,
// processes, network and JavaScript globals), answering the pool's calls one at a time.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { loadPyodide } from 'pyodide';
import { HARNESS_FILE, PYTHON_HARNESS } from './python-harness';
import type { CallMessage, WorkerMessage, WorkerSettings } from './sandbox-protocol';

const port = parentPort!;
const settings = workerData as WorkerSettings;
const send = (m: WorkerMessage) => port.postMessage(m);

const refuse = (what: string) =>
  function refused(): never {
    throw new Error(`${what} is not available in the scorer sandbox`);
  };

/**
 * Caps the interpreter's memory: Pyodide grows its WebAssembly memory through Memory.prototype.grow
 * (catching a refusal, so that malloc fails and Python raises MemoryError), which V8's heap limits of
 * the worker do not count.
 */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const capHeap = (maxBytes: number): void => {
  const memory = (globalThis as unknown as { WebAssembly: { Memory: { prototype: WasmMemory } } }).WebAssembly.Memory.prototype;
  const grow = memory.grow;
  Object.defineProperty(memory, 'grow', {
    value: function cappedGrow(this: WasmMemory, pages: number): number {
      if (this.buffer.byteLength + pages * 65_536 > maxBytes) throw new RangeError('the scorer sandbox memory limit is reached');
      return grow.call(this, pages);
    },
    writable: false,
    configurable: false,
  });
};

/** Every function of a Node module made to throw (what the interpreter's runtime would reach them for). */
const disable = (moduleObject: Record<string, unknown>, what: string): void => {
  for (const name of Object.keys(moduleObject)) {
    if (typeof moduleObject[name] !== 'function') continue;
    try {
      moduleObject[name] = refuse(what);
    } catch {
      // A read-only member: nothing reaches it through the interpreter either.
    }
  }
};

/** The globals a scorer could reach the host or the network through, were it to reach the global object at all. */
const HOST_GLOBALS = [
  'process', 'fetch', 'WebSocket', 'Request', 'Response', 'Headers', 'FormData', 'EventSource', 'BroadcastChannel',
  'MessageChannel', 'MessagePort', 'navigator', 'require', 'module', 'global', 'XMLHttpRequest', 'importScripts',
];

interface PyodideInternals {
  readonly _module: {
    readonly FS: { readonly filesystems: Record<string, unknown>; readonly ErrnoError: new (errno: number) => Error };
    NODEFS?: unknown;
    readonly SOCKFS: { readonly websocket_sock_ops: Record<string, unknown> };
  };
}

/**
 * Closes the interpreter off from the host, once it has started (its start reads its files through
 * Node). Python is given no JavaScript object (`js` is an empty object, then unregistered with the
 * API's module); behind that, in case a scorer reaches a JavaScript value all the same, this thread's
 * global object keeps nothing of the host, code cannot be made from text (so no `import()` of a Node
 * module), and the runtime's own ways out (mounting the host's files, sockets, child processes) refuse.
 */
const closeHost = (py: Awaited<ReturnType<typeof loadPyodide>>): void => {
  py.unregisterJsModule('js');
  py.unregisterJsModule('pyodide_js');
  const runtime = (py as unknown as PyodideInternals)._module;
  delete runtime.FS.filesystems['NODEFS'];
  delete runtime.NODEFS;
  const denied = () => {
    throw new runtime.FS.ErrnoError(63); // EPERM: Python raises PermissionError
  };
  for (const op of ['connect', 'bind', 'listen', 'accept', 'sendmsg', 'recvmsg']) runtime.SOCKFS.websocket_sock_ops[op] = denied;
  // The runtime requires these by name when a call needs them (os.system, sockets): the same module
  // objects this thread's require hands out, so emptied here they are empty there.
  const fromPyodide = createRequire(require.resolve('pyodide'));
  const processes = fromPyodide('node:child_process') as Record<string, unknown>;
  disable(processes, 'running a process');
  // os.system's way: a command that could not run (127, as a shell says), not an error that would end the interpreter.
  processes['spawnSync'] = () => ({ status: 127, signal: null, pid: 0, output: [], stdout: null, stderr: null });
  const ws = fromPyodide.resolve('ws');
  fromPyodide(ws);
  const cached = fromPyodide.cache[ws];
  if (cached !== undefined) cached.exports = refuse('the network');
  disable(fromPyodide('node:fs') as Record<string, unknown>, 'the host file system');
  disable((fromPyodide('node:fs') as { promises: Record<string, unknown> }).promises, 'the host file system');
  for (const name of HOST_GLOBALS) delete (globalThis as Record<string, unknown>)[name];
  const noCode = refuse('making code from text');
  for (const f of [function () {}, async function () {}, function* () {}, async function* () {}])
    Object.defineProperty(Object.getPrototypeOf(f), 'constructor', { value: noCode, writable: false, configurable: false });
  Object.defineProperty(globalThis, 'eval', { value: noCode, writable: false, configurable: false });
  // Call sites (V8's stack trace API) would hand out the functions and receivers of the frames below.
  Object.defineProperty(Error, 'prepareStackTrace', { value: undefined, writable: false, configurable: false });
};

const start = async (): Promise<void> => {
  const began = performance.now();
  capHeap(settings.heapBytes);
  // Nothing is fetched: the interpreter and its standard library are files of the pyodide package.
  (globalThis as Record<string, unknown>)['fetch'] = refuse('the network');
  const py = await loadPyodide({
    jsglobals: Object.create(null) as object,
    env: { HOME: '/home/pyodide' },
    stdin: () => null,
    // A scorer's prints go nowhere: the server's logs are not the user's to write in.
    stdout: () => undefined,
    stderr: () => undefined,
  });
  const namespace = py.globals.get('dict')();
  py.runPython(PYTHON_HARNESS, { globals: namespace, filename: HARNESS_FILE });
  const inspectFile = namespace.get('inspect_file') as (key: string, fileName: string, code: string) => string;
  const scoreRecord = namespace.get('score_record') as (key: string, fileName: string, code: string, args: string) => string;
  closeHost(py);
  port.on('message', (m: CallMessage) => {
    try {
      const json = m.op === 'inspect' ? inspectFile(m.source.key, m.source.fileName, m.source.code) : scoreRecord(m.source.key, m.source.fileName, m.source.code, m.args);
      send({ type: 'answer', id: m.id, json });
    } catch (e) {
      // The harness answers every Python exception: what reaches here broke the interpreter itself.
      send({ type: 'fatal', message: e instanceof Error ? e.message.split('\n').filter((l) => l.trim() !== '').slice(-3).join(' ') : String(e) });
      port.close();
    }
  });
  send({ type: 'ready', startMs: Math.round(performance.now() - began) });
};

start().catch((e: unknown) => {
  send({ type: 'fatal', message: `the Python interpreter did not start: ${e instanceof Error ? e.message : String(e)}` });
  port.close();
});
