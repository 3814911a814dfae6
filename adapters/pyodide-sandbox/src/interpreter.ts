// Inside a sandbox process: the Pyodide interpreter started, its harness run, then closed off from the
// host in Python (the harness), in the runtime (its API's ways out) and in Node (lockdown).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { lendConstantsBinding, lockDownNode, refuse } from './lockdown';
import { HARNESS_FILE, type HarnessLimits, pythonHarness } from './python-harness';

export interface InterpreterSettings {
  /** The most the Python heap (the interpreter's WebAssembly memory) may grow to, in bytes. */
  readonly heapBytes: number;
  /** The pyodide package's directory (its real path: the one this process may read). */
  readonly pyodideDir: string;
  readonly limits: HarnessLimits;
}

/** The harness's two calls, each answering JSON text. */
export interface Interpreter {
  inspect(key: string, fileName: string, code: string): string;
  score(key: string, fileName: string, code: string, args: string): string;
}

/**
 * Caps the interpreter's memory: Pyodide grows its WebAssembly memory through Memory.prototype.grow
 * (catching a refusal, so that malloc fails and Python raises MemoryError), which V8's heap limit of the
 * process does not count.
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

interface PyodideApi {
  loadPyodide(options: Record<string, unknown>): Promise<PyodideInterface>;
}
interface PyProxyDict {
  get(name: string): unknown;
}
interface PyodideInterface {
  readonly globals: { get(name: string): () => PyProxyDict };
  runPython(code: string, options: { globals: PyProxyDict; filename: string }): unknown;
  unregisterJsModule(name: string): void;
  readonly _api: Record<string, unknown>;
  readonly _module: {
    readonly FS: { readonly filesystems: Record<string, unknown>; readonly ErrnoError: new (errno: number) => Error };
    NODEFS?: unknown;
    readonly SOCKFS: Record<string, unknown> & { readonly websocket_sock_ops: Record<string, unknown> };
  } & Record<string, unknown>;
}

/**
 * The runtime API's members that reach the host or run code outside a call: reading host files
 * (loadBinaryFile), sockets (initializeNodeSockFS, _nodeSock), running Python or JavaScript it was not
 * asked to (rawRun, runPythonInternal, scheduleCallback), installing packages and loading libraries,
 * snapshots, and the public API object (which holds all of these again).
 */
const API_MEMBERS = [
  'initializeNodeSockFS', 'loadBinaryFile', '_nodeSock', 'rawRun', 'runPythonInternal', 'runPythonInternal_dict', 'scheduleCallback', 'install', 'loadDynlib',
  'package_loader', 'packageManager', 'makeSnapshot', 'restoreSnapshot', 'saveState', 'restoreState', 'public_api', 'flushPackageManagerBuffers', 'lockFilePromise',
] as const;

/** Closes the runtime: no JavaScript module for Python, no host mounts, no sockets, the API's ways out gone. */
const closeRuntime = (py: PyodideInterface): void => {
  py.unregisterJsModule('js');
  py.unregisterJsModule('pyodide_js');
  const runtime = py._module;
  delete runtime.FS.filesystems['NODEFS'];
  delete runtime.NODEFS;
  const denied = () => {
    throw new runtime.FS.ErrnoError(63); // EPERM: Python raises PermissionError
  };
  for (const op of ['connect', 'bind', 'listen', 'accept', 'sendmsg', 'recvmsg']) runtime.SOCKFS.websocket_sock_ops[op] = denied;
  for (const name of API_MEMBERS) delete py._api[name];
  for (const name of ['loadDynamicLibrary', 'loadWebAssemblyModule', 'preloadPlugins']) if (name in runtime) runtime[name] = refuse('loading a library');
};

/**
 * Starts the interpreter from the pyodide package (nothing fetched: the interpreter and its standard
 * library are its files), runs the harness, and closes the interpreter, the runtime and Node off.
 */
export const startInterpreter = async (settings: InterpreterSettings): Promise<Interpreter> => {
  capHeap(settings.heapBytes);
  lendConstantsBinding({ fs: fs.constants, os: os.constants });
  (globalThis as Record<string, unknown>)['fetch'] = refuse('the network');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the package is loaded by its path, the one this process may read
  const { loadPyodide } = require(path.join(settings.pyodideDir, 'pyodide.js')) as PyodideApi;
  const py = await loadPyodide({
    indexURL: `${settings.pyodideDir}${path.sep}`,
    jsglobals: Object.create(null) as object,
    env: { HOME: '/home/pyodide' },
    stdin: () => null,
    // A scorer's prints go nowhere: the server's logs are not the user's to write in.
    stdout: () => undefined,
    stderr: () => undefined,
  });
  const namespace = py.globals.get('dict')();
  py.runPython(pythonHarness(settings.limits), { globals: namespace, filename: HARNESS_FILE });
  const inspect = namespace.get('inspect_file') as Interpreter['inspect'];
  const score = namespace.get('score_record') as Interpreter['score'];
  closeRuntime(py);
  lockDownNode();
  return { inspect, score };
};
