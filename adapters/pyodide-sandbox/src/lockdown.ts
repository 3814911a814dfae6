// Inside a sandbox process: Node's ways to the host and the network made to refuse, once the interpreter
// has started. Defence in depth: the process's permissions (its files, processes, threads) are the boundary.
import { createRequire } from 'node:module';

/** A function that refuses, saying what it stood for. */
export const refuse = (what: string) =>
  function refused(): never {
    throw new Error(`${what} is not available in the scorer sandbox`);
  };

type Members = Record<string, unknown>;

/** Every function member of `target` (a module, a prototype) made to refuse; read-only ones are left (nothing reaches them either). */
const disable = (target: Members, what: string, keep: ReadonlySet<string> = new Set()): void => {
  for (const name of Object.getOwnPropertyNames(target)) {
    if (keep.has(name) || name === 'constructor' || name === 'prototype' || name === 'length' || name === 'name') continue;
    const descriptor = Object.getOwnPropertyDescriptor(target, name);
    if (descriptor === undefined || typeof descriptor.value !== 'function') continue;
    try {
      Object.defineProperty(target, name, { value: refuse(`${what} (${name})`), writable: false, configurable: false });
    } catch {
      // A non-configurable member: assigned where it is writable, else kept (it refuses nothing we know of).
      try {
        target[name] = refuse(`${what} (${name})`);
      } catch {
        /* kept */
      }
    }
  }
};

/** The members of a class's prototype that open a connection, listen, or run code. */
const disablePrototype = (ctor: unknown, names: ReadonlyArray<string>, what: string): void => {
  const proto = (ctor as { prototype?: Members } | undefined)?.prototype;
  if (proto === undefined) return;
  for (const name of names)
    if (typeof proto[name] === 'function') Object.defineProperty(proto, name, { value: refuse(`${what} (${name})`), writable: false, configurable: false });
};

/**
 * The host's modules, as this process's runtime loaded or would load them: their functions refuse.
 * Network modules are the part Node's permission model (of this version) leaves open; the others are
 * refused by it already, and are disabled as well so that a call says why.
 */
const HOST_MODULES: ReadonlyArray<readonly [string, string]> = [
  ['node:fs', 'the host file system'],
  ['node:fs/promises', 'the host file system'],
  ['node:net', 'the network'],
  ['node:tls', 'the network'],
  ['node:dns', 'the network'],
  ['node:dns/promises', 'the network'],
  ['node:http', 'the network'],
  ['node:https', 'the network'],
  ['node:http2', 'the network'],
  ['node:dgram', 'the network'],
  ['node:child_process', 'running a process'],
  ['node:cluster', 'running a process'],
  ['node:worker_threads', 'starting a thread'],
  ['node:vm', 'running code made from text'],
  ['node:inspector', 'the inspector'],
  ['node:v8', "changing the engine's settings"],
  ['node:wasi', 'WASI'],
  ['node:repl', 'a REPL'],
  ['node:trace_events', 'tracing'],
];

/** What `process` offers that reaches beyond this process or into the runtime's internals. */
const PROCESS_MEMBERS = [
  'binding', '_linkedBinding', 'dlopen', 'kill', '_kill', '_debugProcess', '_debugEnd', '_startProfilerIdleNotifier', '_stopProfilerIdleNotifier',
  'chdir', 'umask', 'setuid', 'setgid', 'seteuid', 'setegid', 'setgroups', 'initgroups', 'abort', 'setSourceMapsEnabled', 'loadEnvFile', 'openStdin',
] as const;

/** The globals a scorer could reach the host or the network through, were it to reach the global object at all. */
const HOST_GLOBALS = [
  'process', 'fetch', 'WebSocket', 'Request', 'Response', 'Headers', 'FormData', 'EventSource', 'BroadcastChannel',
  'MessageChannel', 'MessagePort', 'navigator', 'require', 'module', 'global', 'XMLHttpRequest', 'importScripts',
] as const;

/**
 * Pyodide's start reads a table of file flags through process.binding('constants'), which the permission
 * model refuses: this answers that one binding until lockDownNode refuses every binding.
 */
export const lendConstantsBinding = (constants: Members): void => {
  const binding = (name: string): unknown => {
    if (name === 'constants') return constants;
    throw new Error(`process.binding('${name}') is not available in the scorer sandbox`);
  };
  (process as unknown as Members)['binding'] = binding;
};

/**
 * Closes this process's Node off, once the interpreter has started: the host modules' functions and the
 * classes' connecting and listening methods refuse, and so do the ESM namespaces the runtime imported
 * (synced with them), `process`'s ways out, the globals, and code made from text (the process runs with
 * --disallow-code-generation-from-strings too). What this process needs goes on: its open channel to the
 * pool, its timers, WebAssembly.
 */
export const lockDownNode = (): void => {
  const load = createRequire(__filename);
  // The module object itself (an import would copy its members).
  const Module = load('node:module') as Members & { syncBuiltinESMExports(): void; Module?: unknown };
  const syncESM = Module.syncBuiltinESMExports.bind(Module);
  const loaded = new Map<string, Members>();
  for (const [name, what] of HOST_MODULES) {
    try {
      loaded.set(name, load(name) as Members);
    } catch {
      // Not in this Node: nothing to close.
    }
  }
  // Classes first (their prototypes are reached through instances, not the module), then the modules.
  const net = loaded.get('node:net');
  if (net !== undefined) {
    disablePrototype(net['Socket'], ['connect'], 'the network');
    disablePrototype(net['Server'], ['listen'], 'the network');
  }
  const dgram = loaded.get('node:dgram');
  if (dgram !== undefined) disablePrototype(dgram['Socket'], ['bind', 'connect', 'send', 'addMembership', 'addSourceSpecificMembership'], 'the network');
  for (const name of ['node:http', 'node:https']) {
    const http = loaded.get(name);
    if (http !== undefined) disablePrototype(http['Agent'], ['createConnection'], 'the network');
  }
  for (const name of ['node:dns', 'node:dns/promises']) {
    const dns = loaded.get(name);
    const resolver = (dns?.['Resolver'] as { prototype?: Members } | undefined)?.prototype;
    if (resolver !== undefined) disable(resolver, 'the network');
  }
  const vm = loaded.get('node:vm');
  if (vm !== undefined) disablePrototype(vm['Script'], ['runInThisContext', 'runInContext', 'runInNewContext', 'createCachedData'], 'running code made from text');
  for (const [name, what] of HOST_MODULES) {
    const m = loaded.get(name);
    if (m !== undefined) disable(m, what, name === 'node:child_process' ? new Set(['spawnSync']) : undefined);
  }
  // os.system's way (the runtime's spawnSync): a command that could not run (127, as a shell says), not
  // an error that would end the interpreter.
  const processes = loaded.get('node:child_process');
  if (processes !== undefined)
    Object.defineProperty(processes, 'spawnSync', {
      value: () => ({ status: 127, signal: null, pid: 0, output: [], stdout: null, stderr: null }),
      writable: false,
      configurable: false,
    });
  // `module` itself: import's resolution and loaders refuse. `require` still answers what was loaded
  // here, closed (the runtime requires child_process by name when os.system runs), and nothing else.
  const served = new Map<string, Members>();
  for (const [name, m] of loaded) {
    served.set(name, m);
    served.set(name.slice('node:'.length), m);
  }
  const refuseLoad = refuse('loading a module');
  Object.defineProperty((Module as { prototype?: Members }).prototype ?? {}, 'require', {
    value: function require(id: unknown): Members {
      const m = typeof id === 'string' ? served.get(id) : undefined;
      return m ?? refuseLoad();
    },
    writable: false,
    configurable: false,
  });
  disablePrototype(Module, ['load', '_compile'], 'loading a module');
  disable(Module, 'loading a module');
  // The runtime imported fs, fs/promises, vm, net and tls as ESM namespaces: they follow the modules only once synced.
  syncESM();

  const proc = process as unknown as Members;
  for (const name of PROCESS_MEMBERS) {
    if (typeof proc[name] !== 'function') continue;
    try {
      Object.defineProperty(proc, name, { value: refuse(`process.${name}`), writable: false, configurable: false });
    } catch {
      /* kept */
    }
  }
  for (const name of HOST_GLOBALS) delete (globalThis as Members)[name];
  const noCode = refuse('making code from text');
  for (const f of [function () {}, async function () {}, function* () {}, async function* () {}])
    Object.defineProperty(Object.getPrototypeOf(f), 'constructor', { value: noCode, writable: false, configurable: false });
  Object.defineProperty(globalThis, 'eval', { value: noCode, writable: false, configurable: false });
  // Call sites (V8's stack trace API) would hand out the functions and receivers of the frames below.
  Object.defineProperty(Error, 'prepareStackTrace', { value: undefined, writable: false, configurable: false });
};
