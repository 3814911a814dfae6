// Valid domain entities with overridable fields, and deterministic Clock / IdGenerator fakes.
import {
  type ApiKey,
  type ApiKeyId,
  type Integration,
  type IntegrationId,
  type Project,
  type ProjectId,
  type RefreshFamily,
  type RefreshFamilyId,
  type Run,
  type RunId,
  type Scorer,
  type ScorerId,
  type ScorerVersion,
  type ScorerVersionId,
  type User,
  type UserId,
  asId,
  EMPTY_VERSION_FIELDS,
} from '@tracelight/domain';
import type { LogRecord } from '@tracelight/domain';
import type { Clock, IdGenerator } from '@tracelight/ports';
import { randomUUID } from 'node:crypto';

/** Dates with milliseconds, so a store that drops them is caught. */
export const at = (iso: string): Date => new Date(iso);
const T0 = at('2026-05-04T03:02:01.123Z');

let seq = 0;
const unique = (prefix: string) => `${prefix}-${++seq}-${randomUUID().slice(0, 8)}`;

export const aUser = (over: Partial<User> = {}): User => ({
  id: asId<UserId>(randomUUID()),
  email: `${unique('user')}@example.com`,
  role: 'user',
  passwordHash: 'scrypt$32768$8$1$c2FsdA$aGFzaA',
  createdAt: T0,
  updatedAt: T0,
  sessionsValidFrom: null,
  ...over,
});

export const anApiKey = (userId: UserId, over: Partial<ApiKey> = {}): ApiKey => ({
  id: asId<ApiKeyId>(randomUUID()),
  userId,
  description: 'a key',
  keyHash: randomUUID().replace(/-/g, ''),
  truncated: 'tl_abcd…wxyz',
  createdAt: T0,
  expiresAt: null,
  lastUsedAt: null,
  ...over,
});

export const aRefreshFamily = (userId: UserId, over: Partial<RefreshFamily> = {}): RefreshFamily => ({
  id: asId<RefreshFamilyId>(randomUUID()),
  userId,
  startedAt: T0,
  apiKeyId: null,
  generation: 0,
  rotatedAt: null,
  revokedAt: null,
  expiresAt: at('2026-05-11T03:02:01.123Z'),
  ...over,
});

export const aProject = (createdBy: UserId, over: Partial<Project> = {}): Project => ({
  id: asId<ProjectId>(randomUUID()),
  name: unique('project'),
  type: 'gen_ai',
  createdBy,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

export const aRun = (project: Project, over: Partial<Run> = {}): Run => ({
  id: asId<RunId>(randomUUID()),
  projectId: project.id,
  name: unique('run'),
  kind: 'log_stream',
  createdBy: project.createdBy,
  createdAt: T0,
  updatedAt: T0,
  taskType: null,
  ...over,
});

export const anIntegration = (createdBy: UserId, over: Partial<Integration> = {}): Integration => ({
  id: asId<IntegrationId>(randomUUID()),
  provider: 'gateway',
  name: 'gateway',
  createdBy,
  createdAt: T0,
  updatedAt: T0,
  settings: { endpoint: 'https://gateway.example.com/relay', use_case: 'SUPPORT' },
  sealedSecret: 'v1.aXY.ZGF0YQ.dGFn',
  permissions: [],
  isSelected: false,
  isDisabled: false,
  ...over,
});

export const aScorer = (createdBy: UserId, over: Partial<Scorer> = {}): Scorer => ({
  id: asId<ScorerId>(randomUUID()),
  name: unique('scorer'),
  scorerType: 'llm',
  description: 'Judges something',
  tags: ['rag', 'safety'],
  defaults: { modelName: 'gpt-4.1-mini', numJudges: 3 },
  display: {
    groupLabel: 'Safety Metrics',
    dataUnit: 'percentage',
    threshold: { buckets: [0.3, 0.7], displayValueLevels: ['Low', 'Medium', 'High'], inverted: true },
  },
  createdBy,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

const versionBase = (scorer: Scorer, version: number) => ({
  id: asId<ScorerVersionId>(randomUUID()),
  scorerId: scorer.id,
  version,
  createdAt: T0,
  updatedAt: T0,
  createdBy: scorer.createdBy,
  ...EMPTY_VERSION_FIELDS,
});

export const anLlmVersion = (scorer: Scorer, version: number): ScorerVersion => {
  const template = {
    template: 'Is {output} toxic?',
    metricSystemPrompt: 'You are a judge.',
    metricDescription: null,
    valueFieldName: 'rating',
    explanationFieldName: 'explanation',
    metricFewShotExamples: [{ generationPromptAndResponse: 'q → a', evaluatingResponse: '{"rating": true}' }],
    responseSchema: { type: 'object', properties: { rating: { type: 'boolean' } } },
  };
  return {
    ...versionBase(scorer, version),
    modelName: 'gpt-4.1-mini',
    numJudges: 3,
    scoreableNodeTypes: ['llm'],
    cotEnabled: true,
    outputType: 'boolean',
    inputType: 'basic',
    chainPollTemplate: template,
    allowedModel: true,
    generatedScorer: {
      id: randomUUID(),
      name: scorer.name,
      chainPollTemplate: template,
      createdBy: scorer.createdBy,
      createdAt: T0,
      updatedAt: T0,
      scoreableNodeTypes: ['llm'],
      scorerConfiguration: {
        modelAlias: 'gpt-4.1-mini',
        numJudges: 3,
        outputType: 'boolean',
        scoreableNodeTypes: ['llm'],
        cotEnabled: true,
        groundTruth: false,
        multimodalCapabilities: ['vision'],
      },
      instructions: 'Judge toxicity.',
      userPrompt: '',
    },
  };
};

export const aCodeVersion = (scorer: Scorer, version: number): ScorerVersion => ({
  ...versionBase(scorer, version),
  scoreableNodeTypes: ['llm', 'trace'],
  registeredScorer: {
    id: randomUUID(),
    name: scorer.name,
    scoreType: null,
    createdAt: T0,
    updatedAt: T0,
    createdBy: scorer.createdBy,
    dataType: 'unknown',
    scoreableNodeTypes: ['llm', 'trace'],
    fileName: 'scorer.py',
    code: 'def scorer_fn(**kw):\n    return 1.0\n',
  },
});

export const aLunaVersion = (scorer: Scorer, version: number): ScorerVersion => ({
  ...versionBase(scorer, version),
  outputType: 'float',
  finetunedScorer: {
    id: randomUUID(),
    name: scorer.name,
    loraTaskId: 7,
    prompt: 'Is it grounded?',
    createdAt: T0,
    updatedAt: T0,
    createdBy: scorer.createdBy,
    loraWeightsPath: '',
    slmInputType: 'span',
    slmOutputType: 'float',
    classNameToVocabIx: { yes: 1, no: 0 },
    executor: 'default',
  },
});

export class FixedClock implements Clock {
  private elapsed = 0;
  constructor(private current: Date = T0) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  elapsedMs(): number {
    return this.elapsed;
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
    this.elapsed += ms;
  }
  /** The wall clock set to `to`, as NTP may step it: no time passes. */
  setWallClock(to: Date): void {
    this.current = new Date(to.getTime());
  }
}

/** Valid, ordered version-4 UUIDs (as the server makes them): 00000000-0000-4000-8000-000000000001, …02, … */
export class SequentialIdGenerator implements IdGenerator {
  private n = 0;
  next(): string {
    this.n += 1;
    return `00000000-0000-4000-8000-${this.n.toString(16).padStart(12, '0')}`;
  }
}

/** A stored record; a trace unless `type` says otherwise (then linked to `traceId`). */
export const aRecord = (run: Run, over: Partial<LogRecord> = {}): LogRecord => {
  const id = over.id ?? randomUUID();
  return {
    id,
    type: 'trace',
    projectId: run.projectId,
    runId: run.id,
    traceId: id,
    parentId: null,
    sessionId: null,
    name: unique('record'),
    input: [{ role: 'user', content: 'Hello «world» ✓' }],
    output: 'Hi!',
    createdAt: T0,
    createdAtMicros: 0,
    updatedAt: T0,
    tags: ['a', 'b'],
    userMetadata: { customer: 'acme' },
    statusCode: 200,
    externalId: null,
    datasetInput: null,
    datasetOutput: null,
    datasetMetadata: {},
    metrics: { duration_ns: 1000, toxicity: 0.25 },
    isComplete: true,
    hasChildren: false,
    stepNumber: null,
    progressMessage: null,
    errorMessage: null,
    attributes: {},
    ...over,
  };
};

/** A logger (info and error, as the server's background jobs take) that keeps its lines for assertions. */
export const recordingLogger = () => {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  return {
    lines,
    info: (fields: Record<string, unknown>, message: string) => void lines.push({ level: 'info', fields, message }),
    error: (fields: Record<string, unknown>, message: string) => void lines.push({ level: 'error', fields, message }),
  };
};
