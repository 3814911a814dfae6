// The pool's side of one sandbox process: started under Node's permission model (it may read the pyodide
// package and its own files, write nothing, start no process or thread), with an empty environment,
// nothing of the server's arguments or streams, and no code made from text; spoken to in lines; killed
// whatever it is doing.
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { InterpreterSettings } from './interpreter';
import { LineReader, MAX_REPLY_BYTES, type Reply, type Request } from './sandbox-protocol';

/** The compiled child and the modules it loads: all this process may read of ours (tests run from sources, so from dist). */
const DIST = path.resolve(__dirname, '..', 'dist');
const CHILD_FILES = ['sandbox.child.js', 'interpreter.js', 'lockdown.js', 'python-harness.js', 'sandbox-protocol.js'] as const;

/** The pyodide package's directory, as its real path: the permission model compares real paths. */
export const pyodideDir = (): string => path.dirname(fs.realpathSync(require.resolve('pyodide')));

/** How a sandbox process is started: its script, what it may read, the V8 heap it may use, and its settings. */
export interface SandboxProcessCommand {
  /** The script the process runs. */
  readonly script: string;
  /** What it may read besides the script (directories or files, real paths). */
  readonly reads: ReadonlyArray<string>;
  /** V8's heap (JavaScript's objects, not Python's): past it the process ends, out of memory. */
  readonly jsHeapMb: number;
  /** Handed to the script as its one argument. */
  readonly settings: unknown;
}

/** The interpreter's command: the compiled child and its modules, the pyodide package. */
export const interpreterCommand = (settings: InterpreterSettings, jsHeapMb: number): SandboxProcessCommand => ({
  script: path.join(DIST, 'sandbox.child.js'),
  reads: [...CHILD_FILES.map((f) => path.join(DIST, f)), settings.pyodideDir],
  jsHeapMb,
  settings,
});

/** Node's name for its permission model: `--permission` where it is stable, `--experimental-permission` in Node 20. */
const permissionFlag = (): string | undefined => {
  const flags = process.allowedNodeEnvironmentFlags;
  if (flags.has('--permission')) return '--permission';
  if (flags.has('--experimental-permission')) return '--experimental-permission';
  return undefined;
};

/**
 * The node arguments of a sandbox process. No `--allow-child-process`, `--allow-worker`,
 * `--allow-fs-write` or `--allow-addons`: the process may do none of these. A Node without the
 * permission model starts no sandbox process at all.
 */
export const sandboxProcessArguments = (command: SandboxProcessCommand): string[] => {
  const permission = permissionFlag();
  if (permission === undefined) throw new Error('this Node has no permission model (Node 20 or later is needed): the scorer sandbox cannot start');
  const optional = ['--no-experimental-fetch', '--no-addons'].filter((f) => process.allowedNodeEnvironmentFlags.has(f));
  return [
    permission,
    // Each path once: Node 20 aborts on a path given twice.
    ...[...new Set([command.script, ...command.reads])].map((p) => `--allow-fs-read=${p}`),
    '--disallow-code-generation-from-strings',
    `--max-old-space-size=${command.jsHeapMb}`,
    '--max-semi-space-size=16',
    '--no-warnings',
    ...optional,
    command.script,
    JSON.stringify(command.settings),
  ];
};

/** How a process ended: its exit code or signal, whether V8 said it ran out of memory. */
export interface ProcessEnd {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly outOfMemory: boolean;
  /** Why the pool ended it, when it did. */
  readonly killedFor: string | null;
}

export interface ProcessEvents {
  reply(reply: Reply): void;
  /** The process ended (exited, was killed, or could not start); once. */
  end(end: ProcessEnd): void;
}

/** What of a process's stderr is kept: its end, for a start that failed or a heap that ran out. */
const STDERR_KEPT = 4096;

export class SandboxProcess {
  private readonly child: ChildProcess;
  private readonly channel: Writable & Readable;
  private stderr = '';
  private killedFor: string | null = null;
  private ended = false;
  private readonly exited: Promise<void>;

  constructor(command: SandboxProcessCommand, private readonly events: ProcessEvents) {
    this.child = spawn(process.execPath, sandboxProcessArguments(command), {
      // Nothing of the server's: no environment (no secret, database address or password), its own
      // directory, no terminal; fd 3 is the channel.
      env: {},
      cwd: path.dirname(command.script),
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.channel = this.child.stdio[3] as Writable & Readable;
    const reader = new LineReader(
      MAX_REPLY_BYTES,
      (line) => {
        let reply: Reply;
        try {
          reply = JSON.parse(line) as Reply;
        } catch {
          void this.kill('it wrote a line that is not JSON');
          return;
        }
        if (typeof reply !== 'object' || reply === null) {
          void this.kill('it wrote a line that is not a message');
          return;
        }
        this.events.reply(reply);
      },
      () => this.kill(`it wrote a line longer than ${MAX_REPLY_BYTES} bytes`),
    );
    this.channel.on('data', (chunk: Buffer) => reader.push(chunk));
    this.channel.on('error', () => undefined);
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (e) => {
        this.stderr += `\n${e.message}`;
        this.finish(null, null);
        resolve();
      });
      this.child.once('close', (code, signal) => {
        this.finish(code, signal);
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The end of what the process wrote on stderr (Node's own words on a failed start or a heap out of memory). */
  get stderrTail(): string {
    return this.stderr;
  }

  send(request: Request): void {
    if (this.ended) return;
    this.channel.write(`${JSON.stringify(request)}\n`);
  }

  /** Ends the process at once (SIGKILL: whatever it runs stops), saying why; resolves once it has. */
  kill(reason: string): Promise<void> {
    if (!this.ended) {
      this.killedFor ??= reason;
      this.child.kill('SIGKILL');
    }
    return this.exited;
  }

  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.ended) return;
    this.ended = true;
    const outOfMemory = /heap out of memory|Allocation failed|OOM/i.test(this.stderr);
    this.events.end({ code, signal, outOfMemory, killedFor: this.killedFor });
  }
}
