// Scorers, their versions (spec operation 5: List All Versions For Scorer) and run scorer settings.
// Request members follow the origin service's public SDK models (galileo npm 1.33.1
// `dist/types/openapi.types.d.ts` and the `galileo` Python SDK's generated models):
// CreateScorerRequest, ScorerDefaults, CreateLLMScorerVersionRequest, ChainPollTemplate,
// CreateCustomLunaScorerVersionRequest and the multipart body of the code-version upload.
import { NODE_TYPES, type NodeType, SCORER_TYPES } from '@tracelight/domain';
import * as t from 'io-ts';
import { describeCodec } from '../shared/json-schema';
import {
  Arr,
  Bool,
  Checked,
  DateTimeOut,
  DateTimeWithOffset,
  Enum,
  Float,
  Int,
  IntegerOut,
  IntFromQuery,
  JsonObject,
  List,
  Mapped,
  Name,
  NonEmptyString,
  Nullable,
  Obj,
  OneOrList,
  UuidString,
  Utf8Str,
  Utf8Text,
} from '../shared/primitives.codec';
import { fail, valueErrorInfo } from '../shared/validation-error';
import { atLeastOneOf, WithRule } from '../shared/field-rule';
import { ColumnThreshold } from '../columns/column.codec';

const Strings = Arr(t.string, 'Strings');
/**
 * What a scorer itself stores of the client's text (its description, tags, column labels, defaults)
 * holds no half of a surrogate pair (Utf8Str): a scorer is stored as text and fields, where such a half
 * would come back changed (U+FFFD on MongoDB; SQLite's description column too). A version is stored as
 * its JSON text on both engines, so its prompts and settings take any string.
 */
const Texts = Arr(Utf8Text, 'Texts');

export const ScorerType = Enum(SCORER_TYPES, 'ScorerType');
/** The SDK's ModelType. */
export const ModelType = Enum(['slm', 'llm', 'code'] as const, 'ModelType');
/** The SDK's LunaInputTypeEnum / LunaOutputTypeEnum (the spec names them slm_input_type / slm_output_type). */
export const LunaInputType = Enum(['span', 'trace_object', 'trace_input_output_only'] as const, 'LunaInputType');
export const LunaOutputType = Enum(['float', 'string', 'string_list'] as const, 'LunaOutputType');

/** Path of `/v2/scorers/{scorer_id}…`. */
export const ScorerPath = t.type({ scorer_id: UuidString }, 'ScorerPath');
/**
 * The path of spec operation 5, whose `scorer_id` the spec types as a plain string: any string is taken,
 * and one that names no scorer of the caller's (a UUID or not) is 404.
 */
export const ScorerVersionsPath = t.type({ scorer_id: NonEmptyString }, 'ScorerVersionsPath');

// ---------------------------------------------------------------------------------------------
// Creating a scorer

/**
 * Applied to new versions that leave a member out. `output_type` and `input_type` are free strings:
 * the spec does not show their enumerations (the SDK's OutputTypeEnum is boolean, categorical,
 * count, discrete, freeform, percentage, multilabel; InputTypeEnum starts basic, llm_spans, …).
 */
export const ScorerDefaults = Obj(
  'ScorerDefaults',
  {},
  {
    model_name: Nullable(Utf8Text),
    num_judges: Nullable(Int({ min: 1, max: 10 })),
    cot_enabled: Nullable(Bool),
    output_type: Nullable(Utf8Text),
    input_type: Nullable(Utf8Text),
    scoreable_node_types: Nullable(Texts),
  },
);

/** A metric column's threshold: ascending `buckets`, one more display level than buckets. */
export const ColumnThresholdRequest = Checked(
  Obj('ColumnThresholdRequest', { buckets: Arr(t.number), display_value_levels: Texts }, { inverted: Bool }, { inverted: false }),
  (th) =>
    th.display_value_levels.length !== th.buckets.length + 1
      ? valueErrorInfo('display_value_levels must have exactly one more entry than buckets')
      : th.buckets.some((b, i) => i > 0 && b < th.buckets[i - 1]!)
        ? valueErrorInfo('buckets must be in ascending order')
        : undefined,
  'ColumnThresholdRequest',
  'buckets in ascending order, and exactly one more entry in display_value_levels than in buckets (the server refuses others with 422).',
);

const CreateScorerFields = Obj(
  'CreateScorerRequest',
  { name: Name, scorer_type: ScorerType },
  {
    // Bounded: a scorer is listed whole with the others, so its metadata stays small.
    description: Utf8Str({ max: 10_000, name: 'ScorerDescription' }),
    tags: List(Utf8Str({ max: 255, name: 'Tag' }), { max: 100, name: 'Tags' }),
    defaults: Nullable(ScorerDefaults),
    // How the scorer's metric column is presented (Tracelight's own; the SDK has no such members).
    label: Nullable(Utf8Str({ max: 255 })),
    group_label: Nullable(Utf8Str({ max: 255 })),
    data_unit: Nullable(Utf8Str({ max: 255 })),
    threshold: Nullable(ColumnThresholdRequest),
    // Sent by the SDK's createScorer beside `defaults`.
    model_type: Nullable(ModelType),
    default_version_id: Nullable(UuidString),
    scoreable_node_types: Nullable(Texts),
    output_type: Nullable(Utf8Text),
    input_type: Nullable(Utf8Text),
    ground_truth: Nullable(Bool),
    user_prompt: Nullable(t.string),
    required_scorers: Nullable(Strings),
  },
  { description: '', tags: [] as string[] },
);

/**
 * `POST /v2/scorers`. `description` defaults to '' and `tags` to []. The SDK's createScorer sends
 * `scoreable_node_types`, `output_type` and `input_type` beside `defaults`: decoding folds them into
 * `defaults` where `defaults` leaves them out, so `defaults` is then an object.
 */
export const CreateScorerRequest = Mapped(CreateScorerFields, (b) => {
  const top = {
    ...(b.scoreable_node_types != null ? { scoreable_node_types: b.scoreable_node_types } : {}),
    ...(b.output_type != null ? { output_type: b.output_type } : {}),
    ...(b.input_type != null ? { input_type: b.input_type } : {}),
  };
  if (Object.keys(top).length === 0) return b;
  const d = b.defaults ?? {};
  return {
    ...b,
    defaults: {
      ...d,
      ...(d.scoreable_node_types == null && top.scoreable_node_types ? { scoreable_node_types: top.scoreable_node_types } : {}),
      ...(d.output_type == null && top.output_type ? { output_type: top.output_type } : {}),
      ...(d.input_type == null && top.input_type ? { input_type: top.input_type } : {}),
    },
  };
}, 'CreateScorerRequest');
export type CreateScorerRequest = t.TypeOf<typeof CreateScorerRequest>;

// ---------------------------------------------------------------------------------------------
// Versions

export const FewShotExample = Obj('FewShotExample', { generation_prompt_and_response: t.string, evaluating_response: t.string });

/** The SDK's ChainPollTemplate as a request member, with its defaults filled in. */
export const ChainPollTemplateRequest = Obj(
  'ChainPollTemplateRequest',
  { template: NonEmptyString },
  {
    metric_system_prompt: Nullable(t.string),
    metric_description: Nullable(t.string),
    value_field_name: t.string,
    explanation_field_name: t.string,
    metric_few_shot_examples: Arr(FewShotExample),
    response_schema: Nullable(JsonObject),
  },
  { value_field_name: 'rating', explanation_field_name: 'explanation', metric_few_shot_examples: [] as Array<t.TypeOf<typeof FewShotExample>> },
);

export const LLM_VERSION_MESSAGE = 'at least one of instructions, user_prompt or chain_poll_template must be provided';
export const LLM_VERSION_RULE = atLeastOneOf(['instructions', 'user_prompt', 'chain_poll_template'], LLM_VERSION_MESSAGE);

/**
 * `POST /v2/scorers/{scorer_id}/version/llm`: at least one of instructions, user_prompt,
 * chain_poll_template non-null (else one `value_error` at `['body']`). `ground_truth` and
 * `multimodal_capabilities` feed the version's scorer_configuration.
 */
export const CreateLLMScorerVersionRequest = WithRule(
  Obj(
    'CreateLLMScorerVersionRequest',
    {},
    {
      instructions: Nullable(t.string),
      user_prompt: Nullable(t.string),
      chain_poll_template: Nullable(ChainPollTemplateRequest),
      model_name: Nullable(t.string),
      num_judges: Nullable(Int({ min: 1, max: 10 })),
      cot_enabled: Nullable(Bool),
      output_type: Nullable(t.string),
      input_type: Nullable(t.string),
      scoreable_node_types: Nullable(Strings),
      ground_truth: Nullable(Bool),
      multimodal_capabilities: Nullable(Strings),
    },
  ),
  LLM_VERSION_RULE,
);
export type CreateLLMScorerVersionRequest = t.TypeOf<typeof CreateLLMScorerVersionRequest>;

const CreateLunaFields = Obj(
  'CreateLunaScorerVersionRequest',
  { lora_task_id: Int(), prompt: t.string },
  {
    lora_weights_path: Nullable(t.string),
    slm_input_type: Nullable(LunaInputType),
    slm_output_type: Nullable(LunaOutputType),
    // The SDK's names for the two members above.
    luna_input_type: Nullable(LunaInputType),
    luna_output_type: Nullable(LunaOutputType),
    class_name_to_vocab_ix: Nullable(JsonObject),
    executor: Nullable(t.string),
    model_name: Nullable(t.string),
  },
);

/**
 * `POST /v2/scorers/{scorer_id}/version/luna` (the SDK's CreateCustomLunaScorerVersionRequest).
 * Decodes with `slm_input_type` (default `span`) and `slm_output_type` (default `float`) always set,
 * taken from the SDK's `luna_input_type` / `luna_output_type` when only those are sent.
 */
export const CreateLunaScorerVersionRequest = Mapped(CreateLunaFields, ({ luna_input_type, luna_output_type, ...b }) => ({
  ...b,
  slm_input_type: b.slm_input_type ?? luna_input_type ?? 'span',
  slm_output_type: b.slm_output_type ?? luna_output_type ?? 'float',
}), 'CreateLunaScorerVersionRequest');
export type CreateLunaScorerVersionRequest = t.TypeOf<typeof CreateLunaScorerVersionRequest>;

export interface UploadedFile {
  readonly filename: string;
  readonly content: Buffer;
}

const isUploadedFile = (u: unknown): u is UploadedFile =>
  typeof u === 'object' && u !== null && Buffer.isBuffer((u as UploadedFile).content) && typeof (u as UploadedFile).filename === 'string';

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const isUtf8 = (bytes: Buffer): boolean => {
  try {
    UTF8.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/**
 * The `file` part of a multipart upload, as the multipart parser hands it over: a scorer's source, so
 * UTF-8 text (other bytes would be stored as U+FFFD and come back changed). A failure echoes the file's
 * name, not its bytes.
 */
export const UploadedFile = describeCodec(new t.Type<UploadedFile, UploadedFile, unknown>(
  'UploadedFile',
  isUploadedFile,
  (u, c) => {
    if (!isUploadedFile(u))
      return fail(typeof u === 'string' ? u : null, c, valueErrorInfo(`Expected UploadFile, received: ${typeof u === 'string' ? "<class 'str'>" : typeof u}`));
    return isUtf8(u.content) ? t.success(u) : fail(u.filename, c, valueErrorInfo('the uploaded file is not UTF-8 text'));
  },
  t.identity,
), { type: 'string', format: 'binary' });

/** A form field holding a list: a JSON array of strings, or comma-separated names. */
export const ListField = describeCodec(new t.Type<string[], string, unknown>(
  'ListField',
  (u): u is string[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return fail(u, c, { type: 'string_type', msg: 'Input should be a valid string' });
    const s = u.trim();
    if (s.startsWith('[')) {
      try {
        const v: unknown = JSON.parse(s);
        if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return t.success(v as string[]);
      } catch {
        /* reported below */
      }
      return fail(u, c, { type: 'list_type', msg: 'Input should be a valid list' });
    }
    return t.success(s === '' ? [] : s.split(',').map((x) => x.trim()).filter(Boolean));
  },
  (a) => JSON.stringify(a),
), { type: 'string', description: 'A JSON array of strings, or comma-separated names' });

const NodeTypes = Arr(Enum(NODE_TYPES, 'NodeType'), 'NodeTypes');

/**
 * The upload's `scoreable_node_types`: a ListField of node types, at least one, checked as the file's
 * scoreable_node_types_fn() is (a version that scores no node type would score nothing). A name that is
 * not a node type is reported at its index.
 */
export const NodeTypesField = describeCodec(new t.Type<NodeType[], string, unknown>(
  'NodeTypesField',
  (u): u is NodeType[] => NodeTypes.is(u) && u.length > 0,
  (u, c) => {
    const names = ListField.validate(u, c);
    if (names._tag === 'Left') return names;
    if (names.right.length === 0) return fail(u, c, valueErrorInfo('scoreable_node_types is empty: the scorer would score nothing'));
    // Handed down under an empty key: the names' indexes join `loc` as the list's own.
    return NodeTypes.validate(names.right, t.appendContext(c, '', NodeTypes, names.right));
  },
  (a) => JSON.stringify(a),
), { type: 'string', description: `Node types (${NODE_TYPES.join(', ')}): a JSON array of strings, or comma-separated names` });

const codeFormFields = {
  /** The SDK's "pre-validated result as JSON string to skip validation"; kept as sent. */
  validation_result: t.string,
  scoreable_node_types: NodeTypesField,
};

/** The non-file form fields of `POST /v2/scorers/{scorer_id}/version/code` (multipart). */
export const CodeScorerVersionFields = Obj('CodeScorerVersionFields', {}, codeFormFields);
export type CodeScorerVersionFields = t.TypeOf<typeof CodeScorerVersionFields>;
/** The whole multipart body: the scorer's source in `file`, plus the fields above. */
export const CodeScorerVersionForm = Obj('CodeScorerVersionForm', { file: UploadedFile }, codeFormFields);
export type CodeScorerVersionForm = t.TypeOf<typeof CodeScorerVersionForm>;

/** `GET /v2/scorers/{scorer_id}/versions?starting_token=…&limit=…` (strings on the wire). */
export const ListScorerVersionsQuery = t.type(
  {
    starting_token: IntFromQuery({ default: 0, min: 0 }),
    limit: IntFromQuery({ default: 100, min: 1, max: 1000 }),
  },
  'ListScorerVersionsQuery',
);
export type ListScorerVersionsQuery = t.TypeOf<typeof ListScorerVersionsQuery>;

// ---------------------------------------------------------------------------------------------
// Run scorer settings

/** `sample_rate`: the share of the run's records the scorer scores, 0 to 1 (absent or null: 1, every record). */
export const ScorerSelection = Obj('ScorerSelection', { scorer_id: UuidString }, { version: Nullable(Int({ min: 1 })), sample_rate: Nullable(Float({ min: 0, max: 1 })) });
/** `POST /v2/projects/{project_id}/runs/{run_id}/scorer-settings`: a version null or absent means the latest. */
export const RunScorerSettingsRequest = Obj('RunScorerSettingsRequest', { scorers: Arr(ScorerSelection) });
export type RunScorerSettingsRequest = t.TypeOf<typeof RunScorerSettingsRequest>;

export const RunScorerSettingsResponse = t.type(
  { run_id: t.string, scorers: t.array(t.type({ scorer_id: t.string, version: t.union([IntegerOut, t.null]), sample_rate: t.number }, 'ScorerSelectionResponse')) },
  'RunScorerSettingsResponse',
);

// ---------------------------------------------------------------------------------------------
// Responses, as the spec lists them

const NullableString = t.union([t.string, t.null]);
const stamps = { created_by: t.string, created_at: DateTimeOut, updated_at: DateTimeOut };

export const FewShotExampleResponse = t.type({ generation_prompt_and_response: t.string, evaluating_response: t.string }, 'FewShotExample');
export const ChainPollTemplate = t.type(
  {
    template: t.string,
    metric_system_prompt: NullableString,
    metric_description: NullableString,
    value_field_name: t.string,
    explanation_field_name: t.string,
    metric_few_shot_examples: t.array(FewShotExampleResponse),
    response_schema: t.union([JsonObject, t.null]),
  },
  'ChainPollTemplate',
);
export const ScorerConfiguration = t.type(
  {
    model_alias: t.string,
    num_judges: IntegerOut,
    output_type: t.string,
    scoreable_node_types: Strings,
    cot_enabled: t.boolean,
    ground_truth: t.boolean,
    multimodal_capabilities: Strings,
  },
  'ScorerConfiguration',
);
/** An LLM-judge version's body. */
export const GeneratedScorer = t.type(
  {
    id: t.string,
    name: t.string,
    chain_poll_template: ChainPollTemplate,
    ...stamps,
    scoreable_node_types: Strings,
    scorer_configuration: ScorerConfiguration,
    instructions: t.string,
    user_prompt: t.string,
  },
  'GeneratedScorer',
);
/** A code version's body. */
export const RegisteredScorer = t.type(
  { id: t.string, name: t.string, score_type: NullableString, ...stamps, data_type: t.string, scoreable_node_types: Strings },
  'RegisteredScorer',
);
/** A fine-tuned small-model ("luna") version's body. */
export const FinetunedScorer = t.type(
  {
    id: t.string,
    name: t.string,
    lora_task_id: IntegerOut,
    prompt: t.string,
    ...stamps,
    lora_weights_path: t.string,
    slm_input_type: t.string,
    slm_output_type: t.string,
    class_name_to_vocab_ix: JsonObject,
    executor: t.string,
  },
  'FinetunedScorer',
);
/** Every member of the spec's scorer version; the two bodies that do not apply are null. */
export const ScorerVersion = t.type(
  {
    id: t.string,
    version: IntegerOut,
    scorer_id: t.string,
    created_at: DateTimeOut,
    updated_at: DateTimeOut,
    generated_scorer: t.union([GeneratedScorer, t.null]),
    registered_scorer: t.union([RegisteredScorer, t.null]),
    finetuned_scorer: t.union([FinetunedScorer, t.null]),
    model_name: NullableString,
    num_judges: t.union([IntegerOut, t.null]),
    scoreable_node_types: t.union([Strings, t.null]),
    cot_enabled: t.union([t.boolean, t.null]),
    output_type: NullableString,
    input_type: NullableString,
    chain_poll_template: t.union([ChainPollTemplate, t.null]),
    allowed_model: t.union([t.boolean, t.null]),
    created_by: t.string,
  },
  'ScorerVersion',
);
/** `next_starting_token` is the next offset, or null at the end; `paginated` is always true. */
export const ListScorerVersionsResponse = t.type(
  {
    starting_token: IntegerOut,
    limit: IntegerOut,
    paginated: t.literal(true),
    next_starting_token: t.union([IntegerOut, t.null]),
    versions: t.array(ScorerVersion),
  },
  'ListScorerVersionsResponse',
);
/** A scorer's defaults as stored: only the members that were given. */
export const ScorerDefaultsResponse = t.partial(
  {
    model_name: t.string,
    num_judges: IntegerOut,
    cot_enabled: t.boolean,
    output_type: t.string,
    input_type: t.string,
    scoreable_node_types: Strings,
  },
  'ScorerDefaultsResponse',
);
/** A scorer; `label`, `group_label`, `data_unit` and `threshold` appear only when they were set. */
export const ScorerResponse = t.intersection(
  [
    t.type({
      id: t.string,
      name: t.string,
      scorer_type: ScorerType,
      description: t.string,
      tags: Strings,
      defaults: ScorerDefaultsResponse,
      created_by: t.string,
      created_at: DateTimeOut,
      updated_at: DateTimeOut,
      latest_version: t.union([ScorerVersion, t.null]),
    }),
    t.partial({ label: t.string, group_label: t.string, data_unit: t.string, threshold: ColumnThreshold }),
  ],
  'ScorerResponse',
);

// ---------------------------------------------------------------------------------------------
// The SDKs' list of scorers (POST /scorers/list)

const ScorerFilterText = Utf8Str({ max: 1000, name: 'ScorerFilterText' });
const ScorerTexts = OneOrList(ScorerFilterText, { max: 1000 });
const TEXT_OPERATORS = ['eq', 'ne', 'contains', 'one_of', 'not_in'] as const;
/** A filter of the origin's ListScorersRequest, by the `name` of what it filters. */
const SCORER_FILTERS = {
  name: Obj('ScorerNameFilter', { name: t.literal('name'), operator: Enum(TEXT_OPERATORS), value: ScorerTexts }, { case_sensitive: Bool }),
  label: Obj('ScorerLabelFilter', { name: t.literal('label'), operator: Enum(TEXT_OPERATORS), value: ScorerTexts }, { case_sensitive: Bool }),
  scorer_type: Obj('ScorerTypeFilter', { name: t.literal('scorer_type'), operator: Enum(['eq', 'ne', 'one_of', 'not_in'] as const), value: ScorerTexts }),
  creator: Obj('ScorerCreatorFilter', { name: t.literal('creator'), value: ScorerTexts }, { operator: Enum(TEXT_OPERATORS) }, { operator: 'eq' as const }),
  tags: Obj('ScorerTagsFilter', { name: t.literal('tags'), operator: Enum(['eq', 'contains', 'not_in'] as const), value: ScorerTexts }, { case_sensitive: Bool }),
  created_at: Obj('ScorerCreatedAtFilter', { name: t.literal('created_at'), operator: Enum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const), value: DateTimeWithOffset }),
  updated_at: Obj('ScorerUpdatedAtFilter', { name: t.literal('updated_at'), operator: Enum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte'] as const), value: DateTimeWithOffset }),
};
type ScorerFilterKind = keyof typeof SCORER_FILTERS;
export type ScorerFilterWire = { [K in ScorerFilterKind]: t.TypeOf<(typeof SCORER_FILTERS)[K]> }[ScorerFilterKind];
const SCORER_FILTER_KINDS = Object.keys(SCORER_FILTERS) as ScorerFilterKind[];
const ScorerFilterKind = Enum(SCORER_FILTER_KINDS, 'ScorerFilterName');

/** A filter, validated by the codec its `name` names (so errors point at the right members). */
export const ScorerFilter = describeCodec(new t.Type<ScorerFilterWire, unknown, unknown>(
  'ScorerFilter',
  (u): u is ScorerFilterWire => typeof u === 'object' && u !== null,
  (u, c) => {
    if (typeof u !== 'object' || u === null || Array.isArray(u))
      return fail(u, c, { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' });
    const name = (u as { name?: unknown }).name;
    const kind = ScorerFilterKind.validate(name, [...c, { key: 'name', type: ScorerFilterKind, actual: name }]);
    if (kind._tag === 'Left') return kind;
    return SCORER_FILTERS[kind.right].validate(u, c) as t.Validation<ScorerFilterWire>;
  },
  t.identity,
), (toSchema) => ({ oneOf: SCORER_FILTER_KINDS.map((kind) => toSchema(SCORER_FILTERS[kind])) }));

/** `POST /scorers/list` body: filters (all must hold) and a sort by name; paging is in the query. */
export const ListScorersRequest = Obj(
  'ListScorersRequest',
  {},
  {
    filters: Nullable(List(ScorerFilter, { max: 25 })),
    sort: Nullable(Obj('ScorerNameSort', { name: t.literal('name') }, { ascending: Bool }, { ascending: true })),
  },
);
export const ListScorersQuery = ListScorerVersionsQuery;
export const ListScorersResponse = t.type(
  {
    starting_token: IntegerOut,
    limit: IntegerOut,
    paginated: t.literal(true),
    next_starting_token: t.union([IntegerOut, t.null]),
    scorers: t.array(ScorerResponse),
  },
  'ListScorersResponse',
);
