// runBatches, the loop of a pass made of batches: until a batch says it is done, a batch fails or the
// loop is stopped, with a turn of the event loop between two batches and none after the last.
import * as E from 'fp-ts/Either';
import type { TaskEither } from 'fp-ts/TaskEither';
import { runBatches } from './repeating';

interface Batch {
  readonly n: number;
  readonly done: boolean;
}

/**
 * Batches answered from a script (`fail` for a failure), with what happened in order: each batch asked
 * for, what `took` and `failed` were told, and each turn of the event loop (a setImmediate queued by the
 * batch before) that came before the next event.
 */
const scripted = (script: ReadonlyArray<'more' | 'last' | 'fail'>, loop = { stopped: false }, onBatch: (n: number) => void = () => {}) => {
  const events: string[] = [];
  let asked = 0;
  const batch = (): TaskEither<string, Batch> => async () => {
    const n = ++asked;
    events.push(`batch ${n}`);
    setImmediate(() => events.push(`turn after ${n}`));
    onBatch(n);
    const step = script[n - 1];
    if (step === undefined) throw new Error(`batch ${n} was not in the script`);
    return step === 'fail' ? E.left(`failure ${n}`) : E.right({ n, done: step === 'last' });
  };
  const run = () =>
    runBatches(
      loop,
      batch,
      (b) => events.push(`took ${b.n}`),
      (error) => events.push(`failed: ${error}`),
    );
  return { events, run };
};

describe('runBatches', () => {
  it('asks for batches until one says it is the last, telling of each, with a turn of the event loop between two and none after the last', async () => {
    const { events, run } = scripted(['more', 'more', 'last']);
    expect(await run()).toBe('done');
    expect(events).toEqual(['batch 1', 'took 1', 'turn after 1', 'batch 2', 'took 2', 'turn after 2', 'batch 3', 'took 3']);
  });

  it('stops at a batch that fails, telling of its error and not of a batch, and asks for no other', async () => {
    const { events, run } = scripted(['more', 'fail', 'more']);
    expect(await run()).toBe('failed');
    expect(events).toEqual(['batch 1', 'took 1', 'turn after 1', 'batch 2', 'failed: failure 2']);
  });

  it('asks for no batch once the loop is stopped: the one under way is taken, and the run says it stopped', async () => {
    const loop = { stopped: false };
    const { events, run } = scripted(['more', 'more', 'more'], loop, (n) => {
      if (n === 2) loop.stopped = true;
    });
    expect(await run()).toBe('stopped');
    expect(events).toEqual(['batch 1', 'took 1', 'turn after 1', 'batch 2', 'took 2', 'turn after 2']);

    const before = scripted(['more'], { stopped: true });
    expect(await before.run()).toBe('stopped');
    expect(before.events).toEqual([]);
  });
});
