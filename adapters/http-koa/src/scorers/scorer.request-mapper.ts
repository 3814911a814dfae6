// Wire (snake_case, decoded) → use-case inputs for scorer requests. Absent stays absent.
import type { ScorerFilterWire } from '@tracelight/api-schema';
import type { ScorerDefaults, ScorerDisplay, ScorerFilter, ScorerType } from '@tracelight/domain';
import type { LlmVersionInput, LunaVersionInput, NewScorer } from '@tracelight/use-cases';

type Maybe<T> = T | null | undefined;

/** Copies `value` under `key` unless it is absent or null. */
const opt = <K extends string, V>(key: K, value: Maybe<V>): { [P in K]?: V } =>
  (value === undefined || value === null ? {} : { [key]: value }) as { [P in K]?: V };

export interface CreateScorerBody {
  readonly name: string;
  readonly scorer_type: ScorerType;
  readonly description?: Maybe<string>;
  readonly tags?: Maybe<ReadonlyArray<string>>;
  readonly defaults?: Maybe<{
    readonly model_name?: Maybe<string>;
    readonly num_judges?: Maybe<number>;
    readonly cot_enabled?: Maybe<boolean>;
    readonly output_type?: Maybe<string>;
    readonly input_type?: Maybe<string>;
    readonly scoreable_node_types?: Maybe<ReadonlyArray<string>>;
  }>;
  readonly label?: Maybe<string>;
  readonly group_label?: Maybe<string>;
  readonly data_unit?: Maybe<string>;
  readonly threshold?: Maybe<{
    readonly buckets: ReadonlyArray<number>;
    readonly display_value_levels: ReadonlyArray<string>;
    readonly inverted?: Maybe<boolean>;
  }>;
}

export const toCreateScorer = (b: CreateScorerBody): NewScorer => {
  const d = b.defaults ?? {};
  const defaults: ScorerDefaults = {
    ...opt('modelName', d.model_name),
    ...opt('numJudges', d.num_judges),
    ...opt('cotEnabled', d.cot_enabled),
    ...opt('outputType', d.output_type),
    ...opt('inputType', d.input_type),
    ...opt('scoreableNodeTypes', d.scoreable_node_types),
  };
  const display: ScorerDisplay = {
    ...opt('label', b.label),
    ...opt('groupLabel', b.group_label),
    ...opt('dataUnit', b.data_unit),
    ...(b.threshold
      ? {
          threshold: {
            buckets: b.threshold.buckets,
            displayValueLevels: b.threshold.display_value_levels,
            inverted: b.threshold.inverted ?? false,
          },
        }
      : {}),
  };
  return {
    name: b.name,
    scorerType: b.scorer_type,
    description: b.description ?? '',
    tags: b.tags ?? [],
    defaults,
    display,
  };
};

export interface LlmVersionBody {
  readonly instructions?: Maybe<string>;
  readonly user_prompt?: Maybe<string>;
  readonly chain_poll_template?: Maybe<{
    readonly template: string;
    readonly metric_system_prompt?: Maybe<string>;
    readonly metric_description?: Maybe<string>;
    readonly value_field_name?: Maybe<string>;
    readonly explanation_field_name?: Maybe<string>;
    readonly metric_few_shot_examples?: Maybe<
      ReadonlyArray<{ readonly generation_prompt_and_response: string; readonly evaluating_response: string }>
    >;
    readonly response_schema?: Maybe<Readonly<Record<string, unknown>>>;
  }>;
  readonly model_name?: Maybe<string>;
  readonly num_judges?: Maybe<number>;
  readonly cot_enabled?: Maybe<boolean>;
  readonly output_type?: Maybe<string>;
  readonly input_type?: Maybe<string>;
  readonly scoreable_node_types?: Maybe<ReadonlyArray<string>>;
  readonly ground_truth?: Maybe<boolean>;
  readonly multimodal_capabilities?: Maybe<ReadonlyArray<string>>;
}

export const toLlmVersion = (b: LlmVersionBody): LlmVersionInput => {
  const t = b.chain_poll_template;
  return {
    ...opt('instructions', b.instructions),
    ...opt('userPrompt', b.user_prompt),
    ...(t
      ? {
          chainPollTemplate: {
            template: t.template,
            ...opt('metricSystemPrompt', t.metric_system_prompt),
            ...opt('metricDescription', t.metric_description),
            ...opt('valueFieldName', t.value_field_name),
            ...opt('explanationFieldName', t.explanation_field_name),
            ...opt(
              'metricFewShotExamples',
              t.metric_few_shot_examples?.map((e) => ({
                generationPromptAndResponse: e.generation_prompt_and_response,
                evaluatingResponse: e.evaluating_response,
              })),
            ),
            ...opt('responseSchema', t.response_schema),
          },
        }
      : {}),
    ...opt('modelName', b.model_name),
    ...opt('numJudges', b.num_judges),
    ...opt('cotEnabled', b.cot_enabled),
    ...opt('outputType', b.output_type),
    ...opt('inputType', b.input_type),
    ...opt('scoreableNodeTypes', b.scoreable_node_types),
    ...opt('groundTruth', b.ground_truth),
    ...opt('multimodalCapabilities', b.multimodal_capabilities),
  };
};

export interface LunaVersionBody {
  readonly lora_task_id: number;
  readonly prompt: string;
  readonly lora_weights_path?: Maybe<string>;
  readonly slm_input_type?: Maybe<string>;
  readonly slm_output_type?: Maybe<string>;
  readonly class_name_to_vocab_ix?: Maybe<Readonly<Record<string, unknown>>>;
  readonly executor?: Maybe<string>;
  readonly model_name?: Maybe<string>;
}

export const toLunaVersion = (b: LunaVersionBody): LunaVersionInput => ({
  loraTaskId: b.lora_task_id,
  prompt: b.prompt,
  ...opt('loraWeightsPath', b.lora_weights_path),
  ...opt('slmInputType', b.slm_input_type),
  ...opt('slmOutputType', b.slm_output_type),
  ...opt('classNameToVocabIx', b.class_name_to_vocab_ix),
  ...opt('executor', b.executor),
  ...opt('modelName', b.model_name),
});

/** A filter of the SDKs' list of scorers; a text filter is exact unless it says `case_sensitive: false`. */
export const toScorerFilter = (f: ScorerFilterWire): ScorerFilter => {
  switch (f.name) {
    case 'name':
    case 'label':
      return { field: f.name, operator: f.operator, value: f.value, caseSensitive: f.case_sensitive ?? true };
    case 'tags':
      return { field: 'tags', operator: f.operator, value: f.value, caseSensitive: f.case_sensitive ?? true };
    case 'scorer_type':
      return { field: 'scorer_type', operator: f.operator, value: f.value };
    case 'creator':
      return { field: 'creator', operator: f.operator, value: f.value };
    case 'created_at':
    case 'updated_at':
      return { field: f.name, operator: f.operator, value: f.value };
  }
};
