// Searching records by the column catalogue: filters and sort named by column id, validated against it.
import * as E from 'fp-ts/Either';
import type { ColumnDescriptor, ColumnFilterType } from '../columns/column';
import { type DomainError, invalid } from '../shared/errors';

export type TextOperator = 'eq' | 'ne' | 'contains' | 'one_of' | 'not_in';
export type NumberOperator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'between';

export type RecordFilter =
  | { readonly type: 'text'; readonly columnId: string; readonly operator: TextOperator; readonly value: string | ReadonlyArray<string>; readonly caseSensitive: boolean }
  | { readonly type: 'number'; readonly columnId: string; readonly operator: NumberOperator; readonly value: number | readonly [number, number] }
  | { readonly type: 'date'; readonly columnId: string; readonly operator: Exclude<NumberOperator, 'between'> | 'between'; readonly value: Date | readonly [Date, Date] }
  | { readonly type: 'id'; readonly columnId: string; readonly operator: 'eq' | 'ne' | 'one_of' | 'not_in'; readonly value: string | ReadonlyArray<string> }
  | { readonly type: 'collection'; readonly columnId: string; readonly operator: 'contains' | 'not_in'; readonly value: string | ReadonlyArray<string> }
  | { readonly type: 'boolean'; readonly columnId: string; readonly operator: 'eq' | 'ne'; readonly value: boolean };

export interface RecordSort {
  readonly columnId: string;
  readonly ascending: boolean;
}

export type RecordScope = 'traces' | 'spans' | 'sessions';

/** Checks every filter and the sort against the run's catalogue: unknown columns and wrong filter types are 422. */
export const validateSearch = (
  catalogue: ReadonlyArray<ColumnDescriptor>,
  filters: ReadonlyArray<RecordFilter>,
  sort: RecordSort | null,
): E.Either<DomainError, void> => {
  const byId = new Map(catalogue.map((c) => [c.id, c]));
  for (const [i, f] of filters.entries()) {
    const column = byId.get(f.columnId);
    if (!column) return E.left(invalid(['filters', i, 'column_id'], `unknown column ${f.columnId}`, f.columnId));
    if (!column.filterable) return E.left(invalid(['filters', i, 'column_id'], `column ${f.columnId} cannot be filtered`, f.columnId));
    if (column.filterType !== (f.type as ColumnFilterType))
      return E.left(invalid(['filters', i, 'type'], `column ${f.columnId} takes ${column.filterType} filters, not ${f.type}`, f.type));
  }
  if (sort) {
    const column = byId.get(sort.columnId);
    if (!column) return E.left(invalid(['sort', 'column_id'], `unknown column ${sort.columnId}`, sort.columnId));
    if (!column.sortable) return E.left(invalid(['sort', 'column_id'], `column ${sort.columnId} cannot be sorted`, sort.columnId));
  }
  return E.right(undefined);
};

/** Most characters whose folding is kept: what is past it is folded again each time it is met. */
const FOLDED_CHARACTERS_KEPT = 65_536;
const foldedCharacters = new Map<string, string>();
/** A code point that maps to one code point, as a string of it; else `c` itself. */
const single = (s: string, c: string): string => (s.length === 1 || (s.length === 2 && s.codePointAt(0)! > 0xffff) ? s : c);
const foldCharacter = (c: string): string => {
  let f = foldedCharacters.get(c);
  if (f !== undefined) return f;
  // The lower case of the upper case puts every member of a case class on one code point (Σ, σ and ς
  // on σ; K, k and the Kelvin sign on k), which the lower case alone does not. A character whose
  // mapping is more than one code point (ß → SS, İ → i̇) has no simple folding and stays itself, as
  // does the Turkish dotless ı (folded to i only in Turkic locales).
  f = c === '\u0131' ? c : single(single(c.toUpperCase(), c).toLowerCase(), c);
  if (foldedCharacters.size < FOLDED_CHARACTERS_KEPT) foldedCharacters.set(c, f);
  return f;
};
const ASCII = /^[\u0000-\u007f]*$/;

/**
 * Text as a case-insensitive filter compares it: every character by Unicode's simple case folding,
 * one character for one (É and é, Σ, σ and ς are each one; ß is not ss). MongoDB's case-insensitive
 * regular expressions match by the same classes, so a filter finds the same records on both engines.
 */
export const foldCase = (s: string): string => {
  if (ASCII.test(s)) return s.toLowerCase();
  let out = '';
  for (const c of s) out += c < '\u0080' ? c.toLowerCase() : foldCharacter(c);
  return out;
};
