// Metric columns: one per scorer enabled on a run, presented from the scorer's own definition.
import { type RollUpMethod, isRollUpMethod, scoreTypeDataType, scoreTypeOf } from '../evaluation/code-scorer';
import type { Scorer } from '../scorers/scorer';
import type { ScorerVersion } from '../scorers/scorer-version';
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

/**
 * The data type of a version's values: a code version's by its score_type, any other's by its output
 * type, else the scorer's default output type (`fallbackOutputType`).
 */
export const versionDataType = (version: ScorerVersion | null, fallbackOutputType?: string | null): ColumnDataType =>
  version?.registeredScorer ? scoreTypeDataType(scoreTypeOf(version)) : metricDataType(version?.outputType ?? fallbackOutputType);

/** How a version's values roll up into traces and sessions: a code version's chain_aggregation, else the average. */
export const versionRollUpMethod = (version: ScorerVersion | null): RollUpMethod => {
  const chain = version?.registeredScorer?.chainAggregation;
  return isRollUpMethod(chain) ? chain : 'average';
};

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
 * (the pinned one, else the latest), falling back to the scorer's defaults; a code version (`version`)
 * says its type by its score_type, and its roll-up by its chain_aggregation.
 */
export const metricColumn = (scorer: Scorer, outputType: string | null, version: ScorerVersion | null = null): ColumnDescriptor => {
  const dataType = version?.registeredScorer ? versionDataType(version) : metricDataType(outputType ?? scorer.defaults.outputType);
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
    rollUpMethod: versionRollUpMethod(version),
    ...(scorer.display.threshold !== undefined ? { threshold: scorer.display.threshold } : {}),
  };
};
