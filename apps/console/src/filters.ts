// Search filters as a person builds them from a column's `filter_type`, and as the page's address keeps
// them: each becomes the API's filter for that type, or a sentence saying what is missing.
import type { Column, RecordFilter } from '@tracelight/client';

/**
 * A filter being built: what the controls of its column's filter type hold, as text. `values` is a
 * list (allowed values chosen, ids or tags entered); `low`/`high` a range (numbers or dates).
 */
export interface FilterDraft {
  readonly columnId: string;
  readonly operator: string;
  readonly text?: string | undefined;
  readonly values?: ReadonlyArray<string> | undefined;
  readonly low?: string | undefined;
  readonly high?: string | undefined;
  readonly flag?: boolean | undefined;
}

/** The operators a filter type is offered with, first the default, each with how it reads. */
export const OPERATORS: Readonly<Record<string, ReadonlyArray<readonly [operator: string, label: string]>>> = {
  text: [
    ['contains', 'contains'],
    ['eq', 'is'],
    ['ne', 'is not'],
    ['one_of', 'is one of'],
    ['not_in', 'is none of'],
  ],
  number: [['between', 'between']],
  date: [['between', 'between']],
  id: [
    ['eq', 'is'],
    ['ne', 'is not'],
    ['one_of', 'is one of'],
  ],
  collection: [
    ['contains', 'has any of'],
    ['not_in', 'has none of'],
  ],
  boolean: [['eq', 'is']],
};

/** The operator a new filter on the column starts with: a choice list of allowed values is `one_of`. */
export const defaultOperator = (column: Column): string =>
  column.filter_type === 'text' && column.allowed_values ? 'one_of' : (OPERATORS[column.filter_type]?.[0]?.[0] ?? 'eq');

/** Text entered as a list: one value per comma or line, blanks dropped. */
export const listOf = (text: string): string[] =>
  text
    .split(/[,\n]/)
    .map((v) => v.trim())
    .filter((v) => v !== '');

/** A datetime-local control's value (no zone: the browser's) as an instant with its offset, or undefined. */
export const instantOf = (local: string): string | undefined => {
  if (local.trim() === '') return undefined;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
};

/** The API's filter for a draft, or the sentence that says why there is none yet. */
export const filterOf = (column: Column, draft: FilterDraft): RecordFilter | string => {
  const id = column.id;
  const op = draft.operator;
  switch (column.filter_type) {
    case 'text': {
      if (op === 'one_of' || op === 'not_in') {
        const values = draft.values ?? listOf(draft.text ?? '');
        return values.length === 0 ? 'Choose at least one value' : { type: 'text', column_id: id, operator: op, value: [...values] };
      }
      const text = draft.text ?? '';
      if (text === '') return 'Enter the text to look for';
      return { type: 'text', column_id: id, operator: op as 'eq' | 'ne' | 'contains', value: text, case_sensitive: false };
    }
    case 'number': {
      const low = numberOf(draft.low);
      const high = numberOf(draft.high);
      if (low === null || high === null) return 'A bound is not a number';
      if (low === undefined && high === undefined) return 'Enter a lower bound, an upper bound or both';
      if (low !== undefined && high !== undefined) return { type: 'number', column_id: id, operator: 'between', value: [low, high] };
      return low !== undefined ? { type: 'number', column_id: id, operator: 'gte', value: low } : { type: 'number', column_id: id, operator: 'lte', value: high! };
    }
    case 'date': {
      const low = draft.low ? instantOf(draft.low) : undefined;
      const high = draft.high ? instantOf(draft.high) : undefined;
      if ((draft.low && !low) || (draft.high && !high)) return 'A bound is not a date';
      if (low === undefined && high === undefined) return 'Enter a start, an end or both';
      if (low !== undefined && high !== undefined) return { type: 'date', column_id: id, operator: 'between', value: [low, high] };
      return low !== undefined ? { type: 'date', column_id: id, operator: 'gte', value: low } : { type: 'date', column_id: id, operator: 'lte', value: high! };
    }
    case 'id': {
      const values = draft.values ?? listOf(draft.text ?? '');
      if (values.length === 0) return 'Enter an id';
      if (op === 'one_of') return { type: 'id', column_id: id, operator: 'one_of', value: [...values] };
      if (values.length > 1) return 'Enter one id, or choose "is one of"';
      return { type: 'id', column_id: id, operator: op as 'eq' | 'ne', value: values[0]! };
    }
    case 'collection': {
      const values = draft.values ?? listOf(draft.text ?? '');
      return values.length === 0 ? 'Enter at least one value' : { type: 'collection', column_id: id, operator: op as 'contains' | 'not_in', value: [...values] };
    }
    case 'boolean':
      return draft.flag === undefined ? 'Choose yes or no' : { type: 'boolean', column_id: id, operator: 'eq', value: draft.flag };
    default:
      return `Filters of type ${column.filter_type} are not supported here`;
  }
};

/** A bound as entered: undefined when empty, null when not a number. */
const numberOf = (text: string | undefined): number | undefined | null => {
  if (text === undefined || text.trim() === '') return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
};

const show = (v: unknown): string => (v instanceof Date ? v.toISOString() : String(v));

/** How an applied filter reads on its chip: `Model contains "gpt"`, `Toxicity between 0.2 and 0.5`. */
export const describeFilter = (f: RecordFilter, label: string): string => {
  const value = f.value as unknown;
  const list = Array.isArray(value) ? value.map(show) : [show(value)];
  switch (f.operator) {
    case 'between':
      return `${label} between ${list[0]} and ${list[1]}`;
    case 'gte':
      return `${label} ≥ ${list[0]}`;
    case 'lte':
      return `${label} ≤ ${list[0]}`;
    case 'gt':
      return `${label} > ${list[0]}`;
    case 'lt':
      return `${label} < ${list[0]}`;
    default: {
      const words = OPERATORS[f.type]?.find(([op]) => op === f.operator)?.[1] ?? f.operator;
      return `${label} ${words} ${list.map((v) => `“${v}”`).join(', ')}`;
    }
  }
};

/** Filters as the page's address keeps them (`?filters=`): JSON, so a link or a reload gives the same search. */
export const encodeFilters = (filters: ReadonlyArray<RecordFilter>): string | undefined => (filters.length === 0 ? undefined : JSON.stringify(filters));

export const decodeFilters = (text: string | null | undefined): RecordFilter[] => {
  if (!text) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter((f): f is RecordFilter => typeof f === 'object' && f !== null && 'column_id' in f && 'type' in f) : [];
  } catch {
    return [];
  }
};

/** The time ranges offered above the table, by their name in the address, with how long each reaches back. */
export const TIME_RANGES: ReadonlyArray<readonly [name: string, label: string, ms: number | undefined]> = [
  ['all', 'All time', undefined],
  ['1h', 'Last hour', 3_600_000],
  ['24h', 'Last 24 hours', 86_400_000],
  ['7d', 'Last 7 days', 7 * 86_400_000],
  ['30d', 'Last 30 days', 30 * 86_400_000],
];

/** The filter a time range adds on the column that says when a record was made (the catalogue's date column `created_at`). */
export const timeRangeFilter = (range: string | null | undefined, columnId: string, now: number): RecordFilter | undefined => {
  const ms = TIME_RANGES.find(([name]) => name === range)?.[2];
  return ms === undefined ? undefined : { type: 'date', column_id: columnId, operator: 'gte', value: new Date(now - ms).toISOString() };
};
