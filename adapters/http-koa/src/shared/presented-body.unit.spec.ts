import { PresentedBodies } from './presented-body';
import { type Route, route } from './route';
import * as TE from 'fp-ts/TaskEither';

const counting = (present: (result: unknown) => unknown) => {
  const calls: unknown[] = [];
  const r: Route = route({
    method: 'get',
    path: '/things',
    summary: 'things',
    auth: 'none',
    handle: () => TE.right({}),
    present: (result: unknown) => {
      calls.push(result);
      return present(result);
    },
  });
  return { r, calls };
};

const text = (body: ReturnType<PresentedBodies['of']>) => ('json' in body ? body.json.toString('utf8') : body);

describe('PresentedBodies', () => {
  it('presents and encodes a frozen result once, and answers its bytes again after', () => {
    const bodies = new PresentedBodies();
    const { r, calls } = counting((x) => ({ wrapped: x, at: 'é' }));
    const kept = Object.freeze({ n: 1 });
    const first = bodies.of(r, kept);
    expect(text(first)).toBe('{"wrapped":{"n":1},"at":"é"}');
    expect(bodies.of(r, kept)).toEqual(first);
    expect(calls).toHaveLength(1);
  });

  it('presents a result that is not frozen every time, even the same object, and keeps routes apart', () => {
    const bodies = new PresentedBodies();
    const a = counting((x) => ({ a: x }));
    const b = counting((x) => ({ b: x }));
    const fresh = { n: 1 };
    expect(text(bodies.of(a.r, fresh))).toBe('{"a":{"n":1}}');
    fresh.n = 2;
    expect(text(bodies.of(a.r, fresh))).toBe('{"a":{"n":2}}');
    expect(a.calls).toHaveLength(2);
    const kept = Object.freeze({ n: 1 });
    bodies.of(a.r, kept);
    expect(text(bodies.of(b.r, kept))).toBe('{"b":{"n":1}}');
  });

  it('leaves what is not an object or array to Koa, and never keeps a result that is not an object', () => {
    const bodies = new PresentedBodies();
    const { r, calls } = counting((x) => (x === 'text' ? 'plain' : undefined));
    expect(bodies.of(r, 'text')).toEqual({ other: 'plain' });
    expect(bodies.of(r, undefined)).toEqual({ other: undefined });
    expect(bodies.of(r, 'text')).toEqual({ other: 'plain' });
    expect(calls).toHaveLength(3);
    const list = counting((x) => [x]);
    expect(text(bodies.of(list.r, 7))).toBe('[7]');
  });
});
