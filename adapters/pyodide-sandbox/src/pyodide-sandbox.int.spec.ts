// The Pyodide sandbox against the CodeSandbox contract, on real worker threads (needs `pnpm build`: the
// worker runs the compiled script).
import { describeCodeSandboxContract } from '@tracelight/testkit';
import { PyodideSandbox } from './pyodide-sandbox';

// Interpreters take seconds to start, more on a loaded machine: generous bounds, few starts.
jest.setTimeout(180_000);

const TIME_LIMIT_MS = 3_000;

describeCodeSandboxContract('Pyodide', () => new PyodideSandbox({ workers: 2, timeLimitMs: TIME_LIMIT_MS, memoryMb: 256, idleMs: 600_000 }), {
  timeLimitMs: TIME_LIMIT_MS,
});
