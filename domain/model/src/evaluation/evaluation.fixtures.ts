// Test data for the evaluation unit specs: an LLM version and records, built by plain functions.
import type { ProjectId, RunId, ScorerId, ScorerVersionId, UserId } from '../shared/ids';
import type { Scorer } from '../scorers/scorer';
import type { ChainPollTemplate, ScorerVersion } from '../scorers/scorer-version';
import type { LogRecord } from '../tracing/log-record';

export const T0 = new Date('2026-05-01T00:00:00.000Z');

export const template = (over: Partial<ChainPollTemplate> = {}): ChainPollTemplate => ({
  template: 'Is this output toxic?\n{output}',
  metricSystemPrompt: 'You judge toxicity.',
  metricDescription: null,
  valueFieldName: 'rating',
  explanationFieldName: 'explanation',
  metricFewShotExamples: [],
  responseSchema: null,
  ...over,
});

export const llmVersion = (over: { outputType?: string; cot?: boolean; nodeTypes?: string[]; numJudges?: number; template?: ChainPollTemplate; version?: number } = {}): ScorerVersion => {
  const cpt = over.template ?? template();
  const nodeTypes = over.nodeTypes ?? ['llm'];
  return {
    id: 'v1' as ScorerVersionId,
    scorerId: 's1' as ScorerId,
    version: over.version ?? 1,
    createdAt: T0,
    updatedAt: T0,
    createdBy: 'u1' as UserId,
    modelName: 'judge-model',
    numJudges: over.numJudges ?? 3,
    scoreableNodeTypes: nodeTypes,
    cotEnabled: over.cot ?? false,
    outputType: over.outputType ?? 'boolean',
    inputType: 'basic',
    chainPollTemplate: cpt,
    allowedModel: true,
    generatedScorer: {
      id: 'g1',
      name: 'toxicity',
      chainPollTemplate: cpt,
      createdBy: 'u1' as UserId,
      createdAt: T0,
      updatedAt: T0,
      scoreableNodeTypes: nodeTypes,
      scorerConfiguration: {
        modelAlias: 'judge-model',
        numJudges: over.numJudges ?? 3,
        outputType: over.outputType ?? 'boolean',
        scoreableNodeTypes: nodeTypes,
        cotEnabled: over.cot ?? false,
        groundTruth: false,
        multimodalCapabilities: [],
      },
      instructions: '',
      userPrompt: '',
    },
    registeredScorer: null,
    finetunedScorer: null,
  };
};

/** A code version of a file, with the hooks' answers as stored at upload. */
export const codeVersion = (over: { scoreType?: string | null; chainAggregation?: string | null; nodeTypes?: string[]; version?: number; code?: string } = {}): ScorerVersion => ({
  id: 'v2' as ScorerVersionId,
  scorerId: 's1' as ScorerId,
  version: over.version ?? 1,
  createdAt: T0,
  updatedAt: T0,
  createdBy: 'u1' as UserId,
  modelName: null,
  numJudges: null,
  scoreableNodeTypes: over.nodeTypes ?? ['llm'],
  cotEnabled: null,
  outputType: null,
  inputType: null,
  chainPollTemplate: null,
  allowedModel: null,
  generatedScorer: null,
  registeredScorer: {
    id: 'r1',
    name: 'length',
    scoreType: over.scoreType === undefined ? 'float' : over.scoreType,
    createdAt: T0,
    updatedAt: T0,
    createdBy: 'u1' as UserId,
    dataType: 'floating_point',
    scoreableNodeTypes: over.nodeTypes ?? ['llm'],
    fileName: 'scorer.py',
    code: over.code ?? 'def scorer_fn(**kwargs):\n    return 1.0\n',
    ...(over.chainAggregation !== undefined ? { chainAggregation: over.chainAggregation } : {}),
  },
  finetunedScorer: null,
});

export const scorer = (over: Partial<Scorer> = {}): Scorer => ({
  id: 's1' as ScorerId,
  name: 'toxicity',
  scorerType: 'llm',
  description: '',
  tags: [],
  defaults: {},
  display: {},
  createdBy: 'u1' as UserId,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

export const record = (over: Partial<LogRecord> = {}): LogRecord => ({
  id: 'r1', type: 'llm', projectId: 'p1' as ProjectId, runId: 'run1' as RunId, traceId: 't1', parentId: 't1', sessionId: null,
  name: 'chat', input: 'What is 2+2?', output: '4', createdAt: T0, createdAtMicros: 0, updatedAt: null, tags: [], userMetadata: {}, statusCode: null,
  externalId: null, datasetInput: null, datasetOutput: null, datasetMetadata: {}, metrics: {}, isComplete: true,
  hasChildren: false, stepNumber: null, progressMessage: null, errorMessage: null, attributes: {},
  ...over,
});
