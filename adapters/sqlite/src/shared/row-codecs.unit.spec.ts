import * as t from 'io-ts';
import { MemoJsonText, heldDecodedJson } from './row-codecs';

describe('MemoJsonText', () => {
  const Tags = MemoJsonText(t.array(t.string), { name: 'test_tags', maxEntries: 2 });

  it('decodes a text once and hands back the same value when the same text comes again', () => {
    const first = Tags.decode('["a","b"]');
    const again = Tags.decode('["a","b"]');
    expect(first).toEqual({ _tag: 'Right', right: ['a', 'b'] });
    expect(again._tag === 'Right' && first._tag === 'Right' && again.right === first.right).toBe(true);
  });

  it('still rejects what does not decode, every time', () => {
    for (let i = 0; i < 2; i++) {
      expect(Tags.decode('[1]')._tag).toBe('Left');
      expect(Tags.decode('not json')._tag).toBe('Left');
      expect(Tags.decode(7)._tag).toBe('Left');
    }
  });

  it('remembers at most its bound, forgetting the oldest text first', () => {
    const a = Tags.decode('["x"]');
    Tags.decode('["y"]');
    Tags.decode('["z"]');
    const aAgain = Tags.decode('["x"]');
    expect(aAgain).toEqual(a);
    expect(aAgain._tag === 'Right' && a._tag === 'Right' && aAgain.right === a.right).toBe(false);
  });

  it('remembers texts of at most its budget of characters together, forgetting the oldest first', () => {
    const Long = MemoJsonText(t.array(t.string), { name: 'test_long', maxTotalChars: 100 });
    const text = (c: string) => JSON.stringify([c.repeat(36)]); // 40 characters
    const a = Long.decode(text('a'));
    Long.decode(text('b'));
    expect(heldDecodedJson()['test_long']).toEqual({ entries: 2, size: 80 });
    Long.decode(text('c'));
    expect(heldDecodedJson()['test_long']).toEqual({ entries: 2, size: 80 });
    const aAgain = Long.decode(text('a'));
    expect(aAgain).toEqual(a);
    expect(aAgain._tag === 'Right' && a._tag === 'Right' && aAgain.right === a.right).toBe(false);
  });
});
