import * as E from 'fp-ts/Either';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { filterOrElse, flatMap, tap } from './te';

// The use cases' own flatMap/tap/filterOrElse must mean exactly what fp-ts's do.
describe('TaskEither steps', () => {
  const inputs: ReadonlyArray<TE.TaskEither<string, number>> = [TE.right(4), TE.right(-1), TE.left('earlier')];
  const step = (n: number): TE.TaskEither<string, string> => (n > 0 ? TE.right(`#${n}`) : TE.left(`bad ${n}`));

  it('flatMap, tap and filterOrElse agree with fp-ts on every input', async () => {
    for (const ma of inputs) {
      expect(await pipe(ma, flatMap(step))()).toEqual(await pipe(ma, TE.flatMap(step))());
      expect(await pipe(ma, tap(step))()).toEqual(await pipe(ma, TE.tap(step))());
      expect(await pipe(ma, filterOrElse((n: number) => n > 0, (n) => `not positive: ${n}`))()).toEqual(
        await pipe(ma, TE.filterOrElse((n: number) => n > 0, (n) => `not positive: ${n}`))(),
      );
    }
  });

  it('runs nothing after a Left, and tap keeps the value it was given', async () => {
    let ran = 0;
    const count = (n: number) => {
      ran++;
      return TE.right(n * 10);
    };
    expect(await pipe(TE.left('stop'), flatMap(count), tap(count))()).toEqual(E.left('stop'));
    expect(ran).toBe(0);
    expect(await pipe(TE.right(2), tap(count))()).toEqual(E.right(2));
    expect(ran).toBe(1);
  });

  it('turns a throw inside a step into a rejected task, as fp-ts does', async () => {
    const boom = (): TE.TaskEither<string, number> => {
      throw new Error('bug');
    };
    await expect(pipe(TE.right(1), flatMap(boom))()).rejects.toThrow('bug');
    await expect(pipe(TE.right(1), TE.flatMap(boom))()).rejects.toThrow('bug');
  });
});
