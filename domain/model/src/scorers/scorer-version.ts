// One version of a scorer, with at most one of its three kinds of body filled in.
import type { ScorerId, ScorerVersionId, UserId } from '../shared/ids';
import type { Page } from '../shared/paging';

export interface FewShotExample {
  readonly generationPromptAndResponse: string;
  readonly evaluatingResponse: string;
}

export interface ChainPollTemplate {
  readonly template: string;
  readonly metricSystemPrompt: string | null;
  readonly metricDescription: string | null;
  readonly valueFieldName: string;
  readonly explanationFieldName: string;
  readonly metricFewShotExamples: ReadonlyArray<FewShotExample>;
  readonly responseSchema: Readonly<Record<string, unknown>> | null;
}

export interface ScorerConfiguration {
  readonly modelAlias: string;
  readonly numJudges: number;
  readonly outputType: string;
  readonly scoreableNodeTypes: ReadonlyArray<string>;
  readonly cotEnabled: boolean;
  readonly groundTruth: boolean;
  readonly multimodalCapabilities: ReadonlyArray<string>;
}

/** An LLM-judge version. */
export interface GeneratedScorer {
  readonly id: string;
  readonly name: string;
  readonly chainPollTemplate: ChainPollTemplate;
  readonly createdBy: UserId;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly scoreableNodeTypes: ReadonlyArray<string>;
  readonly scorerConfiguration: ScorerConfiguration;
  readonly instructions: string;
  readonly userPrompt: string;
}

/** A code version: the uploaded source file is kept beside it. */
export interface RegisteredScorer {
  readonly id: string;
  readonly name: string;
  readonly scoreType: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly createdBy: UserId;
  readonly dataType: string;
  readonly scoreableNodeTypes: ReadonlyArray<string>;
  readonly fileName: string;
  readonly code: string;
  /**
   * How the scorer's values roll up into traces and sessions (`sum`, `average`, `first`, `last`), as the
   * file's `chain_aggregation` says; absent or null: the average. Read at upload.
   */
  readonly chainAggregation?: string | null;
}

/** A fine-tuned small-model ("luna") version. */
export interface FinetunedScorer {
  readonly id: string;
  readonly name: string;
  readonly loraTaskId: number;
  readonly prompt: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly createdBy: UserId;
  readonly loraWeightsPath: string;
  readonly slmInputType: string;
  readonly slmOutputType: string;
  readonly classNameToVocabIx: Readonly<Record<string, unknown>>;
  readonly executor: string;
}

export interface ScorerVersion {
  readonly id: ScorerVersionId;
  readonly scorerId: ScorerId;
  readonly version: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly createdBy: UserId;
  readonly modelName: string | null;
  readonly numJudges: number | null;
  readonly scoreableNodeTypes: ReadonlyArray<string> | null;
  readonly cotEnabled: boolean | null;
  readonly outputType: string | null;
  readonly inputType: string | null;
  readonly chainPollTemplate: ChainPollTemplate | null;
  readonly allowedModel: boolean | null;
  readonly generatedScorer: GeneratedScorer | null;
  readonly registeredScorer: RegisteredScorer | null;
  readonly finetunedScorer: FinetunedScorer | null;
}

/** The fields of a version that nothing has set yet: a version's kind and settings start from these. */
export const EMPTY_VERSION_FIELDS = {
  modelName: null,
  numJudges: null,
  scoreableNodeTypes: null,
  cotEnabled: null,
  outputType: null,
  inputType: null,
  chainPollTemplate: null,
  allowedModel: null,
  generatedScorer: null,
  registeredScorer: null,
  finetunedScorer: null,
} as const satisfies Omit<ScorerVersion, 'id' | 'scorerId' | 'version' | 'createdAt' | 'updatedAt' | 'createdBy'>;

export type ScorerVersionKind = 'llm' | 'code' | 'luna';

export const versionKind = (v: ScorerVersion): ScorerVersionKind | null =>
  v.generatedScorer ? 'llm' : v.registeredScorer ? 'code' : v.finetunedScorer ? 'luna' : null;

/**
 * A page of versions that can never read differently. Versions are numbered from 1 and never change
 * or go (ScorerVersionRepository has no update or delete). A page is settled when more follow it (the
 * last page gains rows as versions are added) and its last version's number equals its last
 * position: then versions 1..N are all there, and any version yet to come, even one numbered before
 * another that is already visible (a number taken by an append not yet committed), is numbered above N.
 */
export const isSettledVersionPage = (page: Page<ScorerVersion>): boolean =>
  page.nextStartingToken !== null && page.items[page.items.length - 1]?.version === page.startingToken + page.limit;
