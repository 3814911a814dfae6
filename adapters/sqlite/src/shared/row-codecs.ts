// io-ts helpers for decoding rows: what storage gives back is checked, not trusted.
import * as E from 'fp-ts/Either';
import * as t from 'io-ts';
import { PathReporter } from 'io-ts/PathReporter';
import { CorruptRow } from './run';

/** Epoch milliseconds (INTEGER column) ⇄ Date. */
export const MsDate = new t.Type<Date, number, unknown>(
  'MsDate',
  (u): u is Date => u instanceof Date,
  (u, c) => (typeof u === 'number' && Number.isFinite(u) ? t.success(new Date(u)) : t.failure(u, c)),
  (d) => d.getTime(),
);

export const SqlBool = new t.Type<boolean, number, unknown>(
  'SqlBool',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => (u === 0 || u === 1 ? t.success(u === 1) : t.failure(u, c)),
  (b) => (b ? 1 : 0),
);

/** A TEXT column holding JSON, decoded further by `inner`. */
export const JsonText = <A, O>(inner: t.Type<A, O, unknown>) =>
  new t.Type<A, string, unknown>(
    `JsonText<${inner.name}>`,
    inner.is,
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c);
      try {
        return inner.validate(JSON.parse(u), c);
      } catch {
        return t.failure(u, c);
      }
    },
    (a) => JSON.stringify(inner.encode(a)),
  );

/** Every MemoJsonText of this process by name: what each holds, for /metrics. */
const memos = new Map<string, () => { readonly entries: number; readonly size: number }>();

/** What each MemoJsonText holds, by name: entries, and the characters of their texts. */
export const heldDecodedJson = (): Record<string, { readonly entries: number; readonly size: number }> =>
  Object.fromEntries([...memos].map(([name, held]) => [name, held()]));

export interface MemoBounds {
  /** Reported in /metrics as `decoded_json.<name>`. */
  readonly name: string;
  /** Texts remembered at most (default 2,000). */
  readonly maxEntries?: number;
  /** A longer text is decoded every time (default 16 K characters). */
  readonly maxChars?: number;
  /** The characters of all the texts remembered together (default 2 M). */
  readonly maxTotalChars?: number;
}

/**
 * JsonText for columns read far more often than written (scorers, their versions, run scorer settings):
 * what a text decoded to is remembered, keyed by the text itself, so the same bytes read again cost a
 * lookup instead of JSON.parse and a walk of the codec. Decoded values are shared between reads, so
 * this is only for codecs whose values nobody mutates (the domain's readonly types). Bounded: at most
 * `maxEntries` texts of at most `maxChars` each, and `maxTotalChars` together (the texts are written by
 * clients, and what they decode to is as large again or more); the oldest goes first.
 */
export const MemoJsonText = <A, O>(inner: t.Type<A, O, unknown>, bounds: MemoBounds) => {
  const { maxEntries = 2000, maxChars = 16 * 1024, maxTotalChars = 2 * 1024 * 1024 } = bounds;
  const base = JsonText(inner);
  const memo = new Map<string, A>();
  let chars = 0;
  memos.set(bounds.name, () => ({ entries: memo.size, size: chars }));
  return new t.Type<A, string, unknown>(
    base.name,
    base.is,
    (u, c) => {
      if (typeof u === 'string') {
        const known = memo.get(u);
        if (known !== undefined) return t.success(known);
      }
      const r = base.validate(u, c);
      if (r._tag === 'Right' && typeof u === 'string' && u.length <= maxChars && u.length <= maxTotalChars) {
        while (memo.size >= maxEntries || chars + u.length > maxTotalChars) {
          const oldest = memo.keys().next().value as string;
          memo.delete(oldest);
          chars -= oldest.length;
        }
        memo.set(u, r.right);
        chars += u.length;
      }
      return r;
    },
    base.encode,
  );
};

export const decodeOrThrow = <A>(codec: t.Decoder<unknown, A>, row: unknown): A => {
  const r = codec.decode(row);
  if (E.isLeft(r)) throw new CorruptRow(PathReporter.report(r).join('; '));
  return r.right;
};

/** Builds a branded string codec that accepts any string (ids are validated where they enter). */
export const IdString = <B>() => t.string as unknown as t.Type<B, string, unknown>;

/**
 * Null, or what `c` decodes. Unlike `t.union([c, t.null])`, a null costs no failed attempt at `c`
 * (io-ts builds an error object for every failed branch): rows are full of nulls.
 */
export const nullable = <C extends t.Mixed>(c: C): t.Type<t.TypeOf<C> | null, t.OutputOf<C> | null, unknown> =>
  new t.Type<t.TypeOf<C> | null, t.OutputOf<C> | null, unknown>(
    `${c.name} | null`,
    (u): u is t.TypeOf<C> | null => u === null || c.is(u),
    (u, ctx) => (u === null ? t.success(null) : c.validate(u, ctx)),
    (a) => (a === null ? null : (c.encode(a) as t.OutputOf<C>)),
  );

/**
 * A row of named columns, like `t.type` but built for the read path: members decode with the row's
 * context and the column's own context is built only when a member fails (to name it in the error).
 * The result holds the declared columns only.
 */
export const row = <P extends t.Props>(props: P, name = 'Row'): t.Type<t.TypeOfProps<P>, unknown, unknown> => {
  const columns = Object.entries(props);
  return new t.Type<t.TypeOfProps<P>, unknown, unknown>(
    name,
    (u): u is t.TypeOfProps<P> =>
      typeof u === 'object' && u !== null && columns.every(([k, c]) => c.is((u as Record<string, unknown>)[k])),
    (u, ctx) => {
      if (typeof u !== 'object' || u === null) return t.failure(u, ctx);
      const input = u as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [k, c] of columns) {
        const v = input[k];
        const r = c.validate(v, ctx);
        if (r._tag === 'Left') {
          const named = c.validate(v, t.appendContext(ctx, k, c, v));
          return t.failures(named._tag === 'Left' ? named.left : r.left);
        }
        out[k] = r.right;
      }
      return t.success(out as t.TypeOfProps<P>);
    },
    t.identity,
  );
};
