// Starts the built evaluator app (apps/evaluator/dist/main.js) as a child process on a server's storage,
// and stops it again; what it was started with and what it said are there for assertions.
import { type ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { eachLine } from './lines';
import { track } from './started';

const MAIN = path.resolve(__dirname, '../../apps/evaluator/dist/main.js');

export interface RunningEvaluator {
  /** Resolves with the fields of its `tracelight-evaluator scoring` line (`port` among them when it listens); rejects if it exits first. */
  readonly started: Promise<Record<string, unknown>>;
  /** Every line it wrote, stdout and stderr. */
  readonly output: string[];
  /** Sends `signal` (unless it has exited) and resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Its exit code, once it has exited of its own accord or by a signal. */
  readonly exited: Promise<number | null>;
}

/**
 * `env` holds the server's storage variables (its `storageEnv`: the data dir, and so the secret key) and
 * the scoring settings; the evaluator is told itself which networks its judges may call.
 */
export const startEvaluator = (env: Readonly<Record<string, string>>): RunningEvaluator => {
  const child: ChildProcess = spawn(process.execPath, [MAIN], { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Stopped once the file is done, should a test not get that far.
  void exited.then(track({ name: `the evaluator (pid ${child.pid})`, stop: () => (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), exited) }));
  const started = new Promise<Record<string, unknown>>((resolve, reject) => {
    eachLine([child.stdout, child.stderr], (line) => {
      if (line === '') return;
      output.push(line);
      if (line.includes('tracelight-evaluator scoring')) resolve(JSON.parse(line) as Record<string, unknown>);
    });
    void exited.then((code) => reject(new Error(`the evaluator exited with ${code}:\n${output.join('\n')}`)));
  });
  // A test that never awaits `started` (or awaits it after the exit) must not see an unhandled rejection.
  started.catch(() => undefined);
  return {
    started,
    output,
    exited,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
};
