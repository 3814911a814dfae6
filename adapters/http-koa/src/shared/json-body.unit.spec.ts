// A JSON body's member named __proto__ is refused however it is spelt (escapes of any of its letters), at
// any depth; a body without one is read as JSON.parse reads it.
import { parseJsonBody } from './json-body';

const parsed = (text: string) => parseJsonBody(Buffer.from(text, 'utf8'));

describe('a JSON body', () => {
  it.each([
    ['__proto__'],
    ['\\u005f\\u005f\\u0070\\u0072\\u006f\\u0074\\u006f\\u005f\\u005f'],
    ['__\\u0070roto__'],
    ['__pr\\u006fto__'],
  ])('holding a member named %s, at any depth, is refused (422)', (key) => {
    for (const text of [`{"${key}":{"x":1}}`, `{"a":[1,{"b":{"${key}":2}}]}`]) {
      const r = parsed(text);
      expect(r.ok ? 'taken' : r.error.status).toBe(422);
    }
  });

  it('is read as JSON.parse reads it when no member is named __proto__, escapes and the word proto included', () => {
    for (const text of ['{"a":1,"b":[true,null,"x"]}', '{"protocol":"https","s":"\\u00e9t\\u00e9"}', '[{"role":"user","content":"a\\nb"}]', '{"prototype":1}']) {
      const r = parsed(text);
      expect(r.ok && r.value).toEqual(JSON.parse(text));
    }
  });
});
