// Domain → wire for column descriptors.
import type { ColumnDescriptor } from '@tracelight/domain';

export const presentColumn = (c: ColumnDescriptor) => ({
  id: c.id,
  label: c.label,
  description: c.description,
  category: c.category,
  group_label: c.groupLabel,
  data_type: c.dataType,
  ...(c.dataUnit !== undefined ? { data_unit: c.dataUnit } : {}),
  filter_type: c.filterType,
  filterable: c.filterable,
  sortable: c.sortable,
  multi_valued: c.multiValued,
  is_empty: c.isEmpty,
  is_optional: c.isOptional,
  applicable_types: c.applicableTypes,
  ...(c.allowedValues !== undefined ? { allowed_values: c.allowedValues } : {}),
  ...(c.rollUpMethod !== undefined ? { roll_up_method: c.rollUpMethod } : {}),
  ...(c.threshold !== undefined
    ? {
        threshold: {
          buckets: c.threshold.buckets,
          display_value_levels: c.threshold.displayValueLevels,
          inverted: c.threshold.inverted,
        },
      }
    : {}),
});

/**
 * The JSON text of `{ columns }`, exactly as JSON.stringify would write it. A standard column is a
 * constant of the catalogue but for `is_empty`, so its text is made once for each value of the flag:
 * the catalogue is the largest body of the five spec operations (~12 KB), asked for on every page
 * load, and serialising it anew was a fifth of the route's cost.
 */
const standardText = new Map<string, string>();
const columnText = (c: ColumnDescriptor): string => {
  if (c.category !== 'standard') return JSON.stringify(presentColumn(c));
  const key = `${c.id}\u0000${c.isEmpty}`;
  let text = standardText.get(key);
  if (text === undefined) {
    text = JSON.stringify(presentColumn(c));
    standardText.set(key, text);
  }
  return text;
};

/** The JSON text of `{ columns }`, exactly as JSON.stringify would write it. */
export const columnsJson = (columns: ReadonlyArray<ColumnDescriptor>): string => `{"columns":[${columns.map(columnText).join(',')}]}`;

/** The answers kept by columnsAnswer, at most: a few runs' worth in practice, ~12 KB each. */
const ANSWERS_KEPT = 256;
const answers = new Map<string, Buffer>();

/**
 * columnsJson as the bytes of the answer. A catalogue's text depends only on which standard columns
 * are empty and on the text of its metric columns, so an answer is kept by those and sent again as it
 * is: most asks of a run find it unchanged, and joining, flattening and encoding ~12 KB anew was most of
 * what the route allocated (three copies of its body each time).
 */
export const columnsAnswer = (columns: ReadonlyArray<ColumnDescriptor>): Buffer => {
  let key = '';
  for (const c of columns) key += c.category === 'standard' ? `${c.id}${c.isEmpty ? '+' : '-'}` : `\u0000${columnText(c)}`;
  let answer = answers.get(key);
  if (answer === undefined) {
    answer = Buffer.from(columnsJson(columns));
    if (answers.size >= ANSWERS_KEPT) answers.clear();
    answers.set(key, answer);
  }
  return answer;
};
