// The Pyodide sandbox against the CodeSandbox contract, on real worker threads (needs `pnpm build`: the
// worker runs the compiled script).
import { describeCodeSandboxContract } from '@tracelight/testkit';
import { PyodideSandbox } from './pyodide-sandbox';

// Interpreters take seconds to start, more on a loaded machine: few starts, and no time limit of the
// file's own (Jest's is a bound against a hung test only).

// Every call of the contract runs under this limit, and must finish within it: a first import of a large
// module (urllib.request reads and compiles dozens from the standard library) took more than 3 s with
// both cores busy.
const TIME_LIMIT_MS = 30_000;
// The looping call's sandbox, whose limit it waits out: its other calls return a constant, milliseconds
// of work once their interpreter is ready (the limit counts from then), so 2 s is a wide margin even
// with both cores busy.
const SHORT_TIME_LIMIT_MS = 2_000;

describeCodeSandboxContract('Pyodide', (timeLimitMs) => new PyodideSandbox({ workers: 2, timeLimitMs, memoryMb: 256, idleMs: 600_000 }), {
  timeLimitMs: TIME_LIMIT_MS,
  shortTimeLimitMs: SHORT_TIME_LIMIT_MS,
});

describe('PyodideSandbox pool', () => {
  let sandbox: PyodideSandbox;
  afterEach(async () => {
    await sandbox?.close();
  });
  const args = { index: 'r', node_input: '', node_output: 'out', node_name: 'n', node_type: 'llm', node_id: 'r', tools: null, dataset_variables: {} };

  it('starts interpreters on first use, up to its size for one owner\'s calls at once, and serves many calls with them', async () => {
    sandbox = new PyodideSandbox({ workers: 2, timeLimitMs: 10_000, memoryMb: 128, idleMs: 600_000 });
    expect(sandbox.held()).toEqual({ workers: 0, waiting: 0 });
    const file = { key: 'pool-1', fileName: 'scorer.py', code: 'def scorer_fn(*, node_output, **kwargs):\n    return len(node_output)\n', tenant: 'one' };
    const calls = Array.from({ length: 50 }, () => sandbox.score(file, args)());
    expect(sandbox.held()).toEqual({ workers: 2, waiting: 50 });
    const answers = await Promise.all(calls);
    expect(answers.every((a) => a._tag === 'Right' && a.right.type === 'int' && a.right.value === 3)).toBe(true);
    expect(sandbox.held()).toEqual({ workers: 2, waiting: 0 });
  });

  it('answers calls with `unavailable` once closed', async () => {
    sandbox = new PyodideSandbox({ workers: 1, timeLimitMs: 10_000, memoryMb: 128, idleMs: 600_000 });
    await sandbox.close();
    expect(await sandbox.score({ key: 'k', fileName: 's.py', code: 'x', tenant: 't' }, args)()).toEqual({ _tag: 'Left', left: { kind: 'unavailable', message: 'the scorer sandbox is closed' } });
  });
});
