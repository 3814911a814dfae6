import { batchResponses } from './batch-responses.middleware';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('batchResponses', () => {
  it('holds every answer finished in one turn until its check phase, then lets them all go in order', async () => {
    const batch = batchResponses();
    const events: string[] = [];
    const answer = (name: string) =>
      batch(undefined, async () => {
        events.push(`${name} handled`);
      }).then(() => events.push(`${name} written`));
    const both = Promise.all([answer('a'), answer('b')]);
    // Microtasks run, the handlers finish, but nothing is written before the turn's check phase.
    await Promise.resolve();
    await Promise.resolve();
    expect(events).toEqual(['a handled', 'b handled']);
    await both;
    expect(events).toEqual(['a handled', 'b handled', 'a written', 'b written']);
  });

  it('holds answers of a later turn in a batch of their own', async () => {
    const batch = batchResponses();
    const written: string[] = [];
    await batch(undefined, async () => undefined).then(() => written.push('first'));
    await turn();
    await batch(undefined, async () => undefined).then(() => written.push('second'));
    expect(written).toEqual(['first', 'second']);
  });

  it('passes a failure on at once, without holding it', async () => {
    const batch = batchResponses();
    let settled = false;
    const failing = batch(undefined, async () => {
      throw new Error('boom');
    }).catch((e: Error) => {
      settled = true;
      return e.message;
    });
    for (let i = 0; i < 5 && !settled; i++) await Promise.resolve();
    expect(settled).toBe(true);
    await expect(failing).resolves.toBe('boom');
  });
});
