// Which of a user's scorers a list asks for (the origin's `POST /scorers/list` filters) and in which
// order: pure rules over the scorers, applied to the caller's list.
import { foldCase } from '../tracing/search';
import type { Scorer } from './scorer';

export type ScorerTextOperator = 'eq' | 'ne' | 'contains' | 'one_of' | 'not_in';
export type ScorerDateOperator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';

export type ScorerFilter =
  /** A scorer's name or its column label (its label, else its name). Exact unless caseSensitive is false. */
  | { readonly field: 'name' | 'label'; readonly operator: ScorerTextOperator; readonly value: string | ReadonlyArray<string>; readonly caseSensitive: boolean }
  | { readonly field: 'scorer_type'; readonly operator: 'eq' | 'ne' | 'one_of' | 'not_in'; readonly value: string | ReadonlyArray<string> }
  /** The scorer's creator (the caller: a user lists only their own scorers), by user id or email. */
  | { readonly field: 'creator'; readonly operator: ScorerTextOperator; readonly value: string | ReadonlyArray<string> }
  /** `eq` and `contains`: the scorer has one of the tags; `not_in`: none of them. */
  | { readonly field: 'tags'; readonly operator: 'eq' | 'contains' | 'not_in'; readonly value: string | ReadonlyArray<string>; readonly caseSensitive: boolean }
  | { readonly field: 'created_at' | 'updated_at'; readonly operator: ScorerDateOperator; readonly value: Date };

/** By name, ascending unless said otherwise (ties by id); without a sort, oldest first, as GET /scorers lists them. */
export interface ScorerSort {
  readonly ascending: boolean;
}

const list = (v: string | ReadonlyArray<string>): ReadonlyArray<string> => (typeof v === 'string' ? [v] : v);

const textMatches = (text: string, operator: ScorerTextOperator, value: string | ReadonlyArray<string>, caseSensitive: boolean): boolean => {
  const norm = (s: string) => (caseSensitive ? s : foldCase(s));
  const t = norm(text);
  const values = list(value).map(norm);
  switch (operator) {
    case 'eq':
      return t === values[0];
    case 'ne':
      return t !== values[0];
    case 'contains':
      return t.includes(values[0] ?? '');
    case 'one_of':
      return values.includes(t);
    case 'not_in':
      return !values.includes(t);
  }
};

const COMPARE: Readonly<Record<ScorerDateOperator, (a: number, b: number) => boolean>> = {
  eq: (a, b) => a === b,
  ne: (a, b) => a !== b,
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
};

/** Whether the scorer (created by the user with this email) passes the filter. */
export const scorerMatches = (scorer: Scorer, creatorEmail: string, f: ScorerFilter): boolean => {
  switch (f.field) {
    case 'name':
      return textMatches(scorer.name, f.operator, f.value, f.caseSensitive);
    case 'label':
      return textMatches(scorer.display.label ?? scorer.name, f.operator, f.value, f.caseSensitive);
    case 'scorer_type':
      return textMatches(scorer.scorerType, f.operator, f.value, true);
    case 'creator':
      return textMatches(scorer.createdBy, f.operator, f.value, false) || textMatches(creatorEmail, f.operator, f.value, false);
    case 'tags': {
      const wanted = new Set(list(f.value).map((v) => (f.caseSensitive ? v : foldCase(v))));
      const has = scorer.tags.some((t) => wanted.has(f.caseSensitive ? t : foldCase(t)));
      return f.operator === 'not_in' ? !has : has;
    }
    case 'created_at':
      return COMPARE[f.operator](scorer.createdAt.getTime(), f.value.getTime());
    case 'updated_at':
      return COMPARE[f.operator](scorer.updatedAt.getTime(), f.value.getTime());
  }
};

/** The scorers that pass every filter, in the order asked for. */
export const selectScorers = <S extends { readonly scorer: Scorer }>(
  scorers: ReadonlyArray<S>,
  creatorEmail: string,
  filters: ReadonlyArray<ScorerFilter>,
  sort: ScorerSort | null,
): ReadonlyArray<S> => {
  const kept = scorers.filter((s) => filters.every((f) => scorerMatches(s.scorer, creatorEmail, f)));
  if (sort === null) return kept;
  const dir = sort.ascending ? 1 : -1;
  return [...kept].sort((a, b) => dir * (a.scorer.name < b.scorer.name ? -1 : a.scorer.name > b.scorer.name ? 1 : a.scorer.id < b.scorer.id ? -1 : 1));
};
