// Malformed JSON bodies, reported as FastAPI reports them: where parsing stopped, in the words of
// Python's json module ("Expecting value", "Expecting ',' delimiter", …).
import * as E from 'fp-ts/Either';
import { MAX_JSON_DEPTH } from '@tracelight/domain';
import { jsonInvalid, type ValidationError, valueError } from './validation-error';

// The depth rule is the domain's (a value nested deeper could be stored but not written back).
export { MAX_JSON_DEPTH, nestsDeeperThan } from '@tracelight/domain';

/** The entry for a body nested deeper than MAX_JSON_DEPTH; its `input` is left out, as it is the problem. */
export const tooDeep = (where: 'body' | 'query' = 'body'): ValidationError =>
  valueError([where], `nested deeper than ${MAX_JSON_DEPTH} levels`, {});

class JsonSyntax {
  constructor(
    readonly error: string,
    readonly position: number,
  ) {}
}

const WS = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** A scanner that only finds the first error; JSON.parse does the real work. */
const scan = (s: string): void => {
  let p = 0;
  // The scanner recurses per level: past the depth a body may have, it stops there.
  let depth = 0;
  const deeper = () => {
    if (++depth > MAX_JSON_DEPTH) throw new JsonSyntax(`Nested deeper than ${MAX_JSON_DEPTH} levels at`, p);
  };
  const ws = () => {
    while (p < s.length && WS.has(s[p]!)) p++;
  };
  const string = () => {
    const start = p++;
    for (;;) {
      if (p >= s.length) throw new JsonSyntax('Unterminated string starting at', start);
      const ch = s[p]!;
      if (ch === '"') {
        p++;
        return;
      }
      if (ch < ' ') throw new JsonSyntax('Invalid control character at', p);
      if (ch === '\\') {
        const esc = s[p + 1];
        if (esc === 'u') {
          if (!HEX4.test(s.slice(p + 2, p + 6))) throw new JsonSyntax('Invalid \\uXXXX escape', p + 1);
          p += 6;
          continue;
        }
        if (esc === undefined) throw new JsonSyntax('Unterminated string starting at', start);
        if (!'"\\/bfnrt'.includes(esc)) throw new JsonSyntax('Invalid \\escape', p);
        p += 2;
        continue;
      }
      p++;
    }
  };
  const value = (): void => {
    const ch = s[p];
    if (ch === '{') return object();
    if (ch === '[') return array();
    if (ch === '"') return string();
    for (const word of ['true', 'false', 'null']) {
      if (s.startsWith(word, p)) {
        p += word.length;
        return;
      }
    }
    NUMBER.lastIndex = p;
    if (NUMBER.exec(s)) {
      p = NUMBER.lastIndex;
      return;
    }
    throw new JsonSyntax('Expecting value', p);
  };
  const object = () => {
    deeper();
    p++;
    ws();
    if (s[p] === '}') {
      p++;
      depth--;
      return;
    }
    for (;;) {
      if (s[p] !== '"') throw new JsonSyntax('Expecting property name enclosed in double quotes', p);
      string();
      ws();
      if (s[p] !== ':') throw new JsonSyntax("Expecting ':' delimiter", p);
      p++;
      ws();
      value();
      ws();
      if (s[p] === '}') {
        p++;
        depth--;
        return;
      }
      if (s[p] !== ',') throw new JsonSyntax("Expecting ',' delimiter", p);
      p++;
      ws();
    }
  };
  const array = () => {
    deeper();
    p++;
    ws();
    if (s[p] === ']') {
      p++;
      depth--;
      return;
    }
    for (;;) {
      ws();
      value();
      ws();
      if (s[p] === ']') {
        p++;
        depth--;
        return;
      }
      if (s[p] !== ',') throw new JsonSyntax("Expecting ',' delimiter", p);
      p++;
    }
  };
  ws();
  value();
  ws();
  if (p !== s.length) throw new JsonSyntax('Extra data', p);
};

/** Where and why `text` is not JSON (Python's wording); undefined when it is JSON. */
export const jsonSyntaxError = (text: string): { readonly position: number; readonly error: string } | undefined => {
  try {
    scan(text);
    return undefined;
  } catch (e) {
    if (e instanceof JsonSyntax) return { position: e.position, error: e.error };
    throw e;
  }
};

/** Parses a JSON body: the value, or the single `json_invalid` entry FastAPI would give. */
export const parseJson = (text: string): E.Either<ValidationError[], unknown> => {
  try {
    return E.right(JSON.parse(text) as unknown);
  } catch {
    const why = jsonSyntaxError(text) ?? { position: 0, error: 'Expecting value' };
    return E.left([jsonInvalid(why.position, why.error)]);
  }
};

/**
 * Whether `text` may hold a number JSON.parse reads as ±Infinity: one past a double's range has an
 * exponent of three digits or more (`1e400`), or some 210 digits or more before an exponent of two
 * (`1` and 210 zeros, `e99`). A JSON number starts the text or follows `:`, `,` or `[` (and
 * whitespace), so only those places are tried: ids and hex in strings (`"4e1234"`) are not numbers,
 * and each place is read once, in time linear in the text.
 */
const MAY_OVERFLOW = /[:,[][ \t\n\r]*-?(?:\d{210}|\d+(?:\.\d*)?[eE]\+?0*[1-9]\d\d)/;
/** The same at the text's start, tried apart: with `^` among its first characters, MAY_OVERFLOW's scan was a fifth slower. */
const OVERFLOWS_FIRST = /^[ \t\n\r]*-?(?:\d{210}|\d+(?:\.\d*)?[eE]\+?0*[1-9]\d\d)/;
export const mayOverflowNumbers = (text: string): boolean => OVERFLOWS_FIRST.test(text) || MAY_OVERFLOW.test(text);

/**
 * The `finite_number` entry for the first number (in the text's order) of a parsed JSON value that is
 * not finite (`1e400`, which JSON.parse reads as Infinity), wherever it is, free-form values included;
 * undefined when there is none. Such a number cannot be stored as it was sent: written back as JSON it
 * is `null`, and a field that must be a number would then be unreadable. Refused at the boundary, as
 * pydantic does for its finite fields. Not looked for deeper than MAX_JSON_DEPTH: a body nested deeper
 * is refused whole (tooDeep), and the walk of a megabyte of `[[[…` stays a walk of 100 levels.
 */
export const nonFiniteNumberIn = (value: unknown, where: 'body' = 'body'): ValidationError | undefined => {
  const refused = (n: number, loc: ReadonlyArray<string | number>): ValidationError => ({ loc: [where, ...loc], msg: 'Input should be a finite number', type: 'finite_number', input: String(n) });
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : refused(value, []);
  if (typeof value !== 'object' || value === null) return undefined;
  // Depth first, children in order, without recursion: one frame an open object or array, its keys and
  // where it is in them; the path is read off the frames only for the number refused.
  interface Frame { readonly v: object; readonly keys: ReadonlyArray<string> | undefined; readonly length: number; i: number; key: string | number | undefined }
  const open = (v: object): Frame => {
    const keys = Array.isArray(v) ? undefined : Object.keys(v);
    return { v, keys, length: keys === undefined ? (v as unknown[]).length : keys.length, i: 0, key: undefined };
  };
  const stack: Frame[] = [open(value)];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.i >= top.length) {
      stack.pop();
      continue;
    }
    const key: string | number = top.keys === undefined ? top.i : top.keys[top.i]!;
    top.i++;
    top.key = key;
    const x: unknown = (top.v as Record<string | number, unknown>)[key];
    if (typeof x === 'number') {
      if (!Number.isFinite(x)) return refused(x, stack.map((f) => f.key!));
    } else if (typeof x === 'object' && x !== null && stack.length < MAX_JSON_DEPTH) stack.push(open(x));
  }
  return undefined;
};
