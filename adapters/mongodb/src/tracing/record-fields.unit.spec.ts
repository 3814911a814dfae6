// Metric field names and regex literals, without a server: what reaches MongoDB has no `.`, no leading
// `$` and no NUL, and every name comes back as it was sent.
import { decodeMetricKey, encodeMetricKey, escapeRegex } from './record-fields';

describe('metric field names', () => {
  it.each(['toxicity', 'v1.2 judge', '$cost', 'a%2Eb', '100%', 'nul\u0000here', 'say "hi" \\ now', '...', '', '_bsontype', '%5Fbsontype', '_bsontype_', '__proto__'])('round-trip %j', (name) => {
    const key = encodeMetricKey(name);
    expect(key).not.toMatch(/[.$\u0000]/);
    // BSON takes a document with a member of this name for a BSON value of its own, and refuses it.
    expect(key).not.toBe('_bsontype');
    expect(decodeMetricKey(key)).toBe(name);
  });

  it('leaves a plain name as it is (documents stay readable)', () => {
    expect(encodeMetricKey('duration_ns')).toBe('duration_ns');
    expect(encodeMetricKey('v1.2 judge')).toBe('v1%2E2 judge');
  });
});

describe('regex literals', () => {
  it.each(['a.b', 'x*y+z?', '(^$)', '[a]{1}|\\', 'Hel\u0000lo'])('match %j literally and carry no NUL', (s) => {
    const pattern = escapeRegex(s);
    expect(pattern).not.toContain('\u0000');
    // The server's PCRE reads these escapes as JavaScript does.
    expect(new RegExp(`^${pattern}$`).test(s)).toBe(true);
    expect(new RegExp(`^${pattern}$`).test(`${s}!`)).toBe(false);
  });
});
