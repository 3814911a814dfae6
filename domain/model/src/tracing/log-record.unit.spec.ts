import { firstKindClash, kindClash } from './log-record';

describe('kindClash', () => {
  it('refuses a session under a trace’s or span’s id and either under a session’s, naming both kinds', () => {
    expect(kindClash('r1', 'session', 'trace')).toEqual({ _tag: 'Conflict', message: 'record r1 is a session of this run: a trace cannot take its id' });
    expect(kindClash('r1', 'session', 'llm')).toEqual({ _tag: 'Conflict', message: 'record r1 is a session of this run: a span cannot take its id' });
    expect(kindClash('r1', 'tool', 'session')).toEqual({ _tag: 'Conflict', message: 'record r1 is a span of this run: a session cannot take its id' });
  });

  it('lets a record come back as itself, a span as another span type, and a trace and a span as each other', () => {
    for (const [stored, sent] of [['session', 'session'], ['trace', 'trace'], ['llm', 'tool'], ['llm', 'trace'], ['trace', 'agent']] as const)
      expect([stored, sent, kindClash('r1', stored, sent)]).toEqual([stored, sent, undefined]);
  });
});

describe('firstKindClash', () => {
  it('finds the first stored record that clashes with what is sent under its id, passing over ids not sent', () => {
    const sent = new Map([['a', 'trace'], ['b', 'trace'], ['c', 'session']] as const);
    expect(firstKindClash([{ id: 'x', type: 'session' }, { id: 'a', type: 'llm' }, { id: 'b', type: 'session' }, { id: 'c', type: 'trace' }], sent)).toEqual(
      expect.objectContaining({ message: 'record b is a session of this run: a trace cannot take its id' }),
    );
    expect(firstKindClash([{ id: 'a', type: 'trace' }], sent)).toBeUndefined();
    expect(firstKindClash([], sent)).toBeUndefined();
  });
});
