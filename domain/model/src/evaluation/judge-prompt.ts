// The prompt an LLM judge is sent for one record: built from the version's ChainPoll template, with the
// record's fields put in through named placeholders, and the JSON answer it must give.
import * as E from 'fp-ts/Either';
import type { ChainPollTemplate, ScorerVersion } from '../scorers/scorer-version';
import { type LogRecord, textOf } from '../tracing/log-record';

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** The output types a judge can give, and what each asks of the judge's value. */
export const JUDGE_OUTPUT_TYPES = {
  boolean: { words: 'true or false', schema: { type: 'boolean' } },
  percentage: { words: 'a number from 0 to 1', schema: { type: 'number', minimum: 0, maximum: 1 } },
  float: { words: 'a number', schema: { type: 'number' } },
  discrete: { words: 'a whole number', schema: { type: 'integer' } },
  count: { words: 'a whole number of at least 0', schema: { type: 'integer', minimum: 0 } },
  categorical: { words: 'one label, as a string', schema: { type: 'string' } },
  multilabel: { words: 'a list of labels, each a string', schema: { type: 'array', items: { type: 'string' } } },
} as const;
export type JudgeOutputType = keyof typeof JUDGE_OUTPUT_TYPES;

export const isJudgeOutputType = (t: string | null | undefined): t is JudgeOutputType =>
  typeof t === 'string' && Object.prototype.hasOwnProperty.call(JUDGE_OUTPUT_TYPES, t);

/**
 * The placeholders a template may name, each `{name}` or `{{ name }}`, and what of the record each
 * stands for. Text as the record's text columns hold it: a string as it is, other JSON as its JSON
 * text, nothing as empty text. A name not listed here is left as written (a JSON example in a template
 * keeps its braces).
 */
export const PROMPT_PLACEHOLDERS: Readonly<Record<string, (r: LogRecord) => string>> = {
  input: (r) => textOf(r.input) ?? '',
  output: (r) => textOf(r.output) ?? '',
  name: (r) => r.name,
  type: (r) => r.type,
  id: (r) => r.id,
  dataset_input: (r) => r.datasetInput ?? '',
  dataset_output: (r) => r.datasetOutput ?? '',
  tools: (r) => r.attributes.tools ?? '',
  // The names the origin's templates and SDK examples use for the same fields.
  node_input: (r) => textOf(r.input) ?? '',
  node_output: (r) => textOf(r.output) ?? '',
  node_name: (r) => r.name,
  node_type: (r) => r.type,
  query: (r) => textOf(r.input) ?? '',
  response: (r) => textOf(r.output) ?? '',
  ground_truth: (r) => r.datasetOutput ?? '',
};

/** The placeholders that put the record's input or output in: a template naming none of them gets both appended. */
const RECORD_PLACEHOLDERS = new Set(['input', 'output', 'node_input', 'node_output', 'query', 'response']);

const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}|\{([a-z_]+)\}/g;

/** `template` with each known placeholder replaced by the record's field; whether it named the record's input or output. */
export const fillTemplate = (template: string, record: LogRecord): { readonly text: string; readonly namesRecord: boolean } => {
  let namesRecord = false;
  // One pass: a record's own text that looks like a placeholder is never replaced in turn.
  const text = template.replace(PLACEHOLDER, (whole, doubled: string | undefined, single: string | undefined) => {
    const name = (doubled ?? single)!;
    const read = Object.prototype.hasOwnProperty.call(PROMPT_PLACEHOLDERS, name) ? PROMPT_PLACEHOLDERS[name] : undefined;
    if (read === undefined) return whole;
    if (RECORD_PLACEHOLDERS.has(name)) namesRecord = true;
    return read(record);
  });
  return { text, namesRecord };
};

/** The JSON schema of the answer asked for: the version's `response_schema`, else the two fields, explanation first with chain of thought. */
export const answerSchema = (cpt: ChainPollTemplate, outputType: JudgeOutputType, cot: boolean): Readonly<Record<string, unknown>> => {
  if (cpt.responseSchema !== null) return cpt.responseSchema;
  const value = [cpt.valueFieldName, JUDGE_OUTPUT_TYPES[outputType].schema] as const;
  const explanation = [cpt.explanationFieldName, { type: 'string' }] as const;
  const fields = cot ? [explanation, value] : [value, explanation];
  return { type: 'object', properties: Object.fromEntries(fields), required: fields.map(([name]) => name), additionalProperties: false };
};

/** What the judge is told of the answer's form. */
const answerInstructions = (cpt: ChainPollTemplate, outputType: JudgeOutputType, cot: boolean): string => {
  const value = `"${cpt.valueFieldName}": ${JUDGE_OUTPUT_TYPES[outputType].words}`;
  const lines = [
    cot
      ? `Answer with a JSON object and nothing else. Write "${cpt.explanationFieldName}" first: your reasoning, step by step, before you decide. Then ${value}.`
      : `Answer with a JSON object and nothing else, with ${value}, and "${cpt.explanationFieldName}": a short explanation of it.`,
  ];
  if (cpt.responseSchema !== null) lines.push(`The object must match this JSON schema: ${JSON.stringify(cpt.responseSchema)}`);
  return lines.join('\n');
};

export interface JudgePrompt {
  readonly messages: ReadonlyArray<ChatMessage>;
  /** The JSON schema of the answer (sent as the request's response format). */
  readonly schema: Readonly<Record<string, unknown>>;
  readonly outputType: JudgeOutputType;
}

/**
 * The messages of one judgment of `record` by an LLM version: a system message (the template's
 * `metric_system_prompt`, its `metric_description`, then how to answer), each few-shot example as a
 * user turn and the judge's answer to it, then the template filled from the record (with the record's
 * input and output appended when the template names neither). Left, with why, for a version that is no
 * LLM judge or whose output type judges do not give.
 */
export const buildJudgePrompt = (version: ScorerVersion, record: LogRecord): E.Either<string, JudgePrompt> => {
  const cpt = version.chainPollTemplate ?? version.generatedScorer?.chainPollTemplate ?? null;
  if (cpt === null || version.generatedScorer === null) return E.left(`version ${version.version} is not an LLM judge`);
  const outputType = version.outputType ?? version.generatedScorer.scorerConfiguration.outputType;
  if (!isJudgeOutputType(outputType))
    return E.left(`output type ${JSON.stringify(outputType)} is not one an LLM judge gives (${Object.keys(JUDGE_OUTPUT_TYPES).join(', ')})`);
  const cot = version.cotEnabled ?? version.generatedScorer.scorerConfiguration.cotEnabled;
  const system = [cpt.metricSystemPrompt, cpt.metricDescription && cpt.metricDescription !== cpt.metricSystemPrompt ? `Metric: ${cpt.metricDescription}` : null, answerInstructions(cpt, outputType, cot)]
    .filter((s): s is string => typeof s === 'string' && s.trim() !== '')
    .join('\n\n');
  // A version made from `instructions` alone has them as both system prompt and template: said once.
  const filled = fillTemplate(cpt.template === cpt.metricSystemPrompt ? '' : cpt.template, record);
  const user = filled.namesRecord
    ? filled.text
    : [filled.text, `Input:\n${PROMPT_PLACEHOLDERS['input']!(record)}`, `Output:\n${PROMPT_PLACEHOLDERS['output']!(record)}`].filter((s) => s.trim() !== '').join('\n\n');
  const examples = cpt.metricFewShotExamples.flatMap((e): ChatMessage[] => [
    { role: 'user', content: e.generationPromptAndResponse },
    { role: 'assistant', content: e.evaluatingResponse },
  ]);
  return E.right({ messages: [{ role: 'system', content: system }, ...examples, { role: 'user', content: user }], schema: answerSchema(cpt, outputType, cot), outputType });
};
