// Domain → wire for scorers and their versions: every field of the spec's scorer version.
import type {
  ChainPollTemplate,
  FinetunedScorer,
  GeneratedScorer,
  Page,
  RegisteredScorer,
  RunScorerSettings,
  Scorer,
  ScorerVersion,
} from '@tracelight/domain';
import type { ScorerWithLatest } from '@tracelight/use-cases';
import { iso } from '../shared/respond';

const presentTemplate = (t: ChainPollTemplate) => ({
  template: t.template,
  metric_system_prompt: t.metricSystemPrompt,
  metric_description: t.metricDescription,
  value_field_name: t.valueFieldName,
  explanation_field_name: t.explanationFieldName,
  metric_few_shot_examples: t.metricFewShotExamples.map((e) => ({
    generation_prompt_and_response: e.generationPromptAndResponse,
    evaluating_response: e.evaluatingResponse,
  })),
  response_schema: t.responseSchema,
});

const presentGenerated = (g: GeneratedScorer) => ({
  id: g.id,
  name: g.name,
  chain_poll_template: presentTemplate(g.chainPollTemplate),
  created_by: g.createdBy,
  created_at: iso(g.createdAt),
  updated_at: iso(g.updatedAt),
  scoreable_node_types: g.scoreableNodeTypes,
  scorer_configuration: {
    model_alias: g.scorerConfiguration.modelAlias,
    num_judges: g.scorerConfiguration.numJudges,
    output_type: g.scorerConfiguration.outputType,
    scoreable_node_types: g.scorerConfiguration.scoreableNodeTypes,
    cot_enabled: g.scorerConfiguration.cotEnabled,
    ground_truth: g.scorerConfiguration.groundTruth,
    multimodal_capabilities: g.scorerConfiguration.multimodalCapabilities,
  },
  instructions: g.instructions,
  user_prompt: g.userPrompt,
});

/** The registered scorer as listed: the source itself is served by GET …/version/code only. */
const presentRegistered = (r: RegisteredScorer) => ({
  id: r.id,
  name: r.name,
  score_type: r.scoreType,
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
  created_by: r.createdBy,
  data_type: r.dataType,
  scoreable_node_types: r.scoreableNodeTypes,
});

const presentFinetuned = (f: FinetunedScorer) => ({
  id: f.id,
  name: f.name,
  lora_task_id: f.loraTaskId,
  prompt: f.prompt,
  created_at: iso(f.createdAt),
  updated_at: iso(f.updatedAt),
  created_by: f.createdBy,
  lora_weights_path: f.loraWeightsPath,
  slm_input_type: f.slmInputType,
  slm_output_type: f.slmOutputType,
  class_name_to_vocab_ix: f.classNameToVocabIx,
  executor: f.executor,
});

export const presentVersion = (v: ScorerVersion) => ({
  id: v.id,
  version: v.version,
  scorer_id: v.scorerId,
  created_at: iso(v.createdAt),
  updated_at: iso(v.updatedAt),
  generated_scorer: v.generatedScorer ? presentGenerated(v.generatedScorer) : null,
  registered_scorer: v.registeredScorer ? presentRegistered(v.registeredScorer) : null,
  finetuned_scorer: v.finetunedScorer ? presentFinetuned(v.finetunedScorer) : null,
  model_name: v.modelName,
  num_judges: v.numJudges,
  scoreable_node_types: v.scoreableNodeTypes,
  cot_enabled: v.cotEnabled,
  output_type: v.outputType,
  input_type: v.inputType,
  chain_poll_template: v.chainPollTemplate ? presentTemplate(v.chainPollTemplate) : null,
  allowed_model: v.allowedModel,
  created_by: v.createdBy,
});

export const presentVersionPage = (p: Page<ScorerVersion>) => ({
  starting_token: p.startingToken,
  limit: p.limit,
  paginated: true,
  next_starting_token: p.nextStartingToken,
  versions: p.items.map(presentVersion),
});

export const presentScorer = (s: Scorer, latest: ScorerVersion | null = null) => ({
  id: s.id,
  name: s.name,
  scorer_type: s.scorerType,
  description: s.description,
  tags: s.tags,
  defaults: {
    ...(s.defaults.modelName !== undefined ? { model_name: s.defaults.modelName } : {}),
    ...(s.defaults.numJudges !== undefined ? { num_judges: s.defaults.numJudges } : {}),
    ...(s.defaults.cotEnabled !== undefined ? { cot_enabled: s.defaults.cotEnabled } : {}),
    ...(s.defaults.outputType !== undefined ? { output_type: s.defaults.outputType } : {}),
    ...(s.defaults.inputType !== undefined ? { input_type: s.defaults.inputType } : {}),
    ...(s.defaults.scoreableNodeTypes !== undefined ? { scoreable_node_types: s.defaults.scoreableNodeTypes } : {}),
  },
  ...(s.display.label !== undefined ? { label: s.display.label } : {}),
  ...(s.display.groupLabel !== undefined ? { group_label: s.display.groupLabel } : {}),
  ...(s.display.dataUnit !== undefined ? { data_unit: s.display.dataUnit } : {}),
  ...(s.display.threshold !== undefined
    ? {
        threshold: {
          buckets: s.display.threshold.buckets,
          display_value_levels: s.display.threshold.displayValueLevels,
          inverted: s.display.threshold.inverted,
        },
      }
    : {}),
  created_by: s.createdBy,
  created_at: iso(s.createdAt),
  updated_at: iso(s.updatedAt),
  latest_version: latest ? presentVersion(latest) : null,
});

export const presentScorerWithLatest = ({ scorer, latestVersion }: ScorerWithLatest) => presentScorer(scorer, latestVersion);

export const presentRunScorers = (s: RunScorerSettings) => ({
  run_id: s.runId,
  scorers: s.scorers.map((x) => ({ scorer_id: x.scorerId, version: x.version, sample_rate: x.sampleRate ?? 1 })),
});
