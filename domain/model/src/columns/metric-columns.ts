// Metric columns: one per scorer enabled on a run, presented from the scorer's own definition.
import type { Scorer } from '../scorers/scorer';
import type { ColumnDataType, ColumnDescriptor } from './column';

const DATA_TYPE_BY_OUTPUT: Readonly<Record<string, ColumnDataType>> = {
  boolean: 'floating_point', // booleans are rolled up as the share of true judgements
  float: 'floating_point',
  percentage: 'floating_point',
  numeric: 'floating_point',
  integer: 'integer',
  count: 'integer',
  categorical: 'text',
  multilabel: 'string_list',
  freeform: 'text',
  text: 'text',
  // A luna (fine-tuned) version's slm_output_type: `float`, above, or labels.
  string: 'text',
  string_list: 'string_list',
};

export const metricDataType = (outputType: string | null | undefined): ColumnDataType =>
  (outputType && DATA_TYPE_BY_OUTPUT[outputType]) || 'floating_point';

const filterTypeOf = (t: ColumnDataType) =>
  t === 'text' ? 'text' : t === 'string_list' ? 'collection' : t === 'boolean' ? 'boolean' : 'number';

/**
 * `answer_relevance` → `Answer Relevance`: each letter that starts a word (follows no letter, mark, digit
 * or apostrophe) upper-cased, whatever its script; one whose capital is two letters (`ß`) kept. (`\b\w`
 * knows ASCII letters only: `élégance` became `éLéGance`, `don't` `Don'T`.)
 */
const titleCase = (name: string): string =>
  name.replace(/[_-]+/g, ' ').replace(/(?<![\p{L}\p{M}\p{N}'’])\p{L}/gu, (first) => {
    const capital = first.toUpperCase();
    return capital.length === first.length ? capital : first;
  });

/**
 * The metric column of one scorer. `outputType` is that of the version in use on the run
 * (the pinned one, else the latest), falling back to the scorer's defaults.
 */
export const metricColumn = (scorer: Scorer, outputType: string | null): ColumnDescriptor => {
  const dataType = metricDataType(outputType ?? scorer.defaults.outputType);
  return {
    id: `metrics/${scorer.name}`,
    label: scorer.display.label ?? titleCase(scorer.name),
    description: scorer.description || `Score given by the ${scorer.name} scorer.`,
    category: 'metric',
    groupLabel: scorer.display.groupLabel ?? 'Metrics',
    dataType,
    ...(scorer.display.dataUnit !== undefined ? { dataUnit: scorer.display.dataUnit } : {}),
    filterType: filterTypeOf(dataType),
    filterable: true,
    sortable: true,
    multiValued: dataType === 'string_list',
    isEmpty: false,
    isOptional: false,
    applicableTypes: [],
    rollUpMethod: 'average',
    ...(scorer.display.threshold !== undefined ? { threshold: scorer.display.threshold } : {}),
  };
};
