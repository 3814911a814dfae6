// Scorers and their versions (LLM judge, code, fine-tuned "luna"), and which scorers run on a run.
import {
  type ChainPollTemplate,
  type Page,
  type PageRequest,
  type Principal,
  type ProjectId,
  type RegisteredScorer,
  type RunId,
  type RunScorerSettings,
  type Scorer,
  type ScorerDefaults,
  type ScorerDisplay,
  type ScorerFilter,
  type ScorerSort,
  type ScorerId,
  type ScorerSelection,
  type ScorerType,
  type ScorerVersion,
  type ScorerVersionId,
  type ScoringPlan,
  type ScoringPlanEntry,
  type UserId,
  type CodeProfile,
  asId,
  EMPTY_VERSION_FIELDS,
  profileOf,
  scoreTypeDataType,
  invalid,
  isSettledVersionPage,
  isValidThreshold,
  notFound,
  pageFromFound,
  mayChangeData,
  selectScorers,
} from '@tracelight/domain';
import type {
  Clock,
  CodeSandbox,
  IdGenerator,
  RunScorerSettingsRepository,
  ScorerRepository,
  ScorerVersionRepository,
} from '@tracelight/ports';
import { fileRefusal, uploadRefusal } from '../evaluation/code-upload';
import * as A from 'fp-ts/Array';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import type { ProjectUseCases } from '../projects-runs/project.use-cases';
import { ExpiringCache } from '../shared/expiring-cache';
import { type UseCase, orNotFound, readThrough, visibleOr, flatMap, readOnly } from '../shared/te';

export interface ScorerDeps {
  readonly projects: ProjectUseCases;
  readonly scorers: ScorerRepository;
  readonly versions: ScorerVersionRepository;
  readonly runScorers: RunScorerSettingsRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** A page of versions ends early once the versions it holds reach this many bytes stored. */
  readonly pageBytes: number;
  /**
   * How long a run's scoring plan (its scorers and the versions in use) is remembered once read, for the
   * ingests that read it (0, the default: not at all). A change through this process is seen at once;
   * one through another process (its settings, a new latest version) within this time.
   */
  readonly planKnownForMs?: number;
  /**
   * Where an uploaded scorer file is compiled and its hooks read, so that a file that cannot score is
   * refused at upload (422 naming the line). Without one (an admin tool), files are stored unread: their
   * versions score as float, rolling up by the average.
   */
  readonly sandbox?: CodeSandbox;
}

export interface NewScorer {
  readonly name: string;
  readonly scorerType: ScorerType;
  readonly description: string;
  readonly tags: ReadonlyArray<string>;
  readonly defaults: ScorerDefaults;
  readonly display: ScorerDisplay;
}

export interface LlmVersionInput {
  readonly instructions?: string;
  readonly userPrompt?: string;
  readonly chainPollTemplate?: Partial<ChainPollTemplate> & { readonly template?: string };
  readonly modelName?: string;
  readonly numJudges?: number;
  readonly cotEnabled?: boolean;
  readonly outputType?: string;
  readonly inputType?: string;
  readonly scoreableNodeTypes?: ReadonlyArray<string>;
  readonly groundTruth?: boolean;
  readonly multimodalCapabilities?: ReadonlyArray<string>;
}

export interface CodeVersionInput {
  readonly fileName: string;
  readonly code: string;
  readonly scoreableNodeTypes?: ReadonlyArray<string>;
  readonly scoreType?: string;
  readonly dataType?: string;
}

export interface LunaVersionInput {
  readonly loraTaskId: number;
  readonly prompt: string;
  readonly loraWeightsPath?: string;
  readonly slmInputType?: string;
  readonly slmOutputType?: string;
  readonly classNameToVocabIx?: Readonly<Record<string, unknown>>;
  readonly executor?: string;
  readonly modelName?: string;
}

export interface ScorerWithLatest {
  readonly scorer: Scorer;
  readonly latestVersion: ScorerVersion | null;
}

/** What a new LLM-judge version gets when neither the request nor the scorer's defaults say. */
export const LLM_VERSION_DEFAULTS = {
  modelName: 'gpt-4.1-mini',
  numJudges: 3,
  cotEnabled: false,
  outputType: 'boolean',
  inputType: 'basic',
  scoreableNodeTypes: ['llm'] as ReadonlyArray<string>,
} as const;

export class ScorerUseCases {
  /**
   * Scorers never change once stored (new versions are rows of their own): each is read once. Bounded by
   * the size of their JSON too: a scorer's defaults, threshold and prompt are free text of any length a
   * body may carry, so 10,000 of them alone could hold gigabytes.
   */
  private readonly knownScorers = new ExpiringCache<Scorer>(Number.POSITIVE_INFINITY, 10_000, {
    weigh: (scorer) => JSON.stringify(scorer).length,
    maxWeight: 16 * 1024 * 1024,
  });
  /**
   * Settled pages of versions, kept for good (see isSettledVersionPage). Bounded by the pages' JSON size.
   */
  private readonly settledVersionPages = new ExpiringCache<Page<ScorerVersion>>(Number.POSITIVE_INFINITY, 10_000, {
    weigh: (page) => JSON.stringify(page.items).length,
    maxWeight: 16 * 1024 * 1024,
  });

  /** Each run's scoring plan, read by every ingest into it: remembered briefly (planKnownForMs). */
  private readonly plans: ExpiringCache<ScoringPlan>;

  constructor(private readonly deps: ScorerDeps) {
    this.plans = new ExpiringCache<ScoringPlan>(deps.planKnownForMs ?? 0, 10_000);
  }

  /** What the caches hold: entries, and the characters of their JSON. */
  held(): Readonly<Record<'scorers' | 'versionPages', { readonly entries: number; readonly size: number }>> {
    return {
      scorers: { entries: this.knownScorers.size, size: this.knownScorers.weight },
      versionPages: { entries: this.settledVersionPages.size, size: this.settledVersionPages.weight },
    };
  }

  create(principal: Principal, input: NewScorer): UseCase<Scorer> {
    if (!mayChangeData(principal)) return readOnly();
    if (input.display.threshold && !isValidThreshold(input.display.threshold))
      return TE.left(
        invalid(['threshold'], 'display_value_levels must have one more entry than buckets, and buckets must be finite numbers in ascending order'),
      );
    const now = this.deps.clock.now();
    return this.deps.scorers.insert({
      id: asId<ScorerId>(this.deps.ids.next()),
      ...input,
      createdBy: principal.userId,
      createdAt: now,
      updatedAt: now,
    });
  }

  /** The caller's scorers, each with its latest version (null before the first). */
  list(principal: Principal): UseCase<ReadonlyArray<ScorerWithLatest>> {
    return pipe(
      this.deps.scorers.listByOwner(principal.userId),
      flatMap((scorers) =>
        pipe(
          this.deps.versions.findLatestOfEach(scorers.map((s) => s.id)),
          TE.map((latest) => scorers.map((scorer) => ({ scorer, latestVersion: latest.get(scorer.id) ?? null }))),
        ),
      ),
    );
  }

  /**
   * A page of the caller's scorers that pass the filters (each with its latest version), in the order
   * asked for: the origin's `POST /scorers/list`. A user's scorers are listed whole, as `list` does, and
   * filtered here.
   */
  search(principal: Principal, filters: ReadonlyArray<ScorerFilter>, sort: ScorerSort | null, page: PageRequest): UseCase<Page<ScorerWithLatest>> {
    return pipe(
      this.list(principal),
      TE.map((all) => {
        const kept = selectScorers(all, principal.email, filters, sort);
        const items = kept.slice(page.startingToken, page.startingToken + page.limit);
        return pageFromFound({ items, more: page.startingToken + items.length < kept.length }, page);
      }),
    );
  }

  get(principal: Principal, scorerId: ScorerId): UseCase<Scorer> {
    return pipe(
      readThrough(this.knownScorers, scorerId, 0, () => this.deps.scorers.findById(scorerId)),
      orNotFound('scorer', scorerId),
      visibleOr('scorer', scorerId, (s: Scorer) => s.createdBy === principal.userId),
    );
  }

  getWithLatest(principal: Principal, scorerId: ScorerId): UseCase<ScorerWithLatest> {
    return pipe(
      this.get(principal, scorerId),
      flatMap((scorer) =>
        pipe(
          this.deps.versions.findLatest(scorerId),
          TE.map((latest) => ({ scorer, latestVersion: O.toNullable(latest) })),
        ),
      ),
    );
  }

  listVersions(principal: Principal, scorerId: ScorerId, page: PageRequest): UseCase<Page<ScorerVersion>> {
    const key = `${scorerId}:${page.startingToken}:${page.limit}`;
    return pipe(
      this.get(principal, scorerId),
      flatMap(() => {
        const known = this.settledVersionPages.get(key, 0);
        if (known !== undefined) return TE.right(known);
        return pipe(
          this.deps.versions.listFrom(scorerId, page, this.deps.pageBytes),
          TE.map((found) => {
            const read = pageFromFound(found, page);
            if (!isSettledVersionPage(read)) return read;
            // Frozen: it is handed out again and again (and the HTTP adapter encodes a frozen result once).
            const kept = Object.freeze(read);
            this.settledVersionPages.set(key, kept, 0);
            return kept;
          }),
        );
      }),
    );
  }

  createLlmVersion(principal: Principal, scorerId: ScorerId, input: LlmVersionInput): UseCase<ScorerVersion> {
    if (!mayChangeData(principal)) return readOnly();
    if (input.instructions === undefined && input.userPrompt === undefined && input.chainPollTemplate === undefined)
      return TE.left(invalid([], 'one of instructions, user_prompt or chain_poll_template is required'));
    return pipe(
      this.get(principal, scorerId),
      flatMap((scorer) =>
        this.deps.versions.appendNext(scorerId, (version) => this.llmVersion(scorer, version, principal.userId, input)),
      ),
      TE.tap(() => this.forgetPlans()),
    );
  }

  createCodeVersion(principal: Principal, scorerId: ScorerId, input: CodeVersionInput): UseCase<ScorerVersion> {
    if (!mayChangeData(principal)) return readOnly();
    if (input.code.trim().length === 0) return TE.left(invalid(['file'], 'the uploaded file is empty'));
    return pipe(
      this.get(principal, scorerId),
      flatMap((scorer) =>
        pipe(
          this.profileOfFile(principal, input),
          flatMap((profile) =>
            this.deps.versions.appendNext(scorerId, (version) => {
              const now = this.deps.clock.now();
              // The form's node types, else the file's scoreable_node_types_fn(), else the scorer's defaults.
              const nodeTypes = input.scoreableNodeTypes ?? profile?.scoreableNodeTypes ?? scorer.defaults.scoreableNodeTypes ?? ['llm'];
              return {
                ...this.versionHeader(scorerId, version, principal.userId),
                ...EMPTY_VERSION_FIELDS,
                scoreableNodeTypes: nodeTypes,
                outputType: scorer.defaults.outputType ?? null,
                registeredScorer: {
                  id: this.deps.ids.next(),
                  name: scorer.name,
                  scoreType: profile?.scoreType ?? input.scoreType ?? null,
                  createdAt: now,
                  updatedAt: now,
                  createdBy: principal.userId,
                  dataType: profile !== null ? scoreTypeDataType(profile.scoreType) : (input.dataType ?? 'unknown'),
                  scoreableNodeTypes: nodeTypes,
                  fileName: input.fileName,
                  code: input.code,
                  chainAggregation: profile?.chainAggregation ?? null,
                },
              };
            }),
          ),
        ),
      ),
      TE.tap(() => this.forgetPlans()),
    );
  }

  /** The file compiled and its hooks read in the sandbox (null without one); a file that cannot score is refused. */
  private profileOfFile(principal: Principal, input: CodeVersionInput): UseCase<CodeProfile | null> {
    const sandbox = this.deps.sandbox;
    if (sandbox === undefined) return TE.right(null);
    return pipe(
      sandbox.inspect({ key: `upload-${this.deps.ids.next()}`, fileName: input.fileName, code: input.code, tenant: principal.userId }),
      TE.mapLeft((failure) => uploadRefusal(failure, input.code)),
      flatMap((found) =>
        pipe(
          profileOf(found),
          E.mapLeft((refusal) => fileRefusal(refusal, input.code)),
          TE.fromEither,
        ),
      ),
    );
  }

  createLunaVersion(principal: Principal, scorerId: ScorerId, input: LunaVersionInput): UseCase<ScorerVersion> {
    if (!mayChangeData(principal)) return readOnly();
    return pipe(
      this.get(principal, scorerId),
      flatMap((scorer) =>
        this.deps.versions.appendNext(scorerId, (version) => {
          const now = this.deps.clock.now();
          const slmOutputType = input.slmOutputType ?? 'float';
          return {
            ...this.versionHeader(scorerId, version, principal.userId),
            ...EMPTY_VERSION_FIELDS,
            modelName: input.modelName ?? scorer.defaults.modelName ?? null,
            scoreableNodeTypes: scorer.defaults.scoreableNodeTypes ?? null,
            outputType: scorer.defaults.outputType ?? slmOutputType,
            finetunedScorer: {
              id: this.deps.ids.next(),
              name: scorer.name,
              loraTaskId: input.loraTaskId,
              prompt: input.prompt,
              createdAt: now,
              updatedAt: now,
              createdBy: principal.userId,
              loraWeightsPath: input.loraWeightsPath ?? '',
              slmInputType: input.slmInputType ?? 'span',
              slmOutputType,
              classNameToVocabIx: input.classNameToVocabIx ?? {},
              executor: input.executor ?? 'default',
            },
          };
        }),
      ),
      TE.tap(() => this.forgetPlans()),
    );
  }

  /** The newest code version's registered scorer, with its source. */
  latestCode(principal: Principal, scorerId: ScorerId): UseCase<RegisteredScorer> {
    return pipe(
      this.get(principal, scorerId),
      flatMap(() => this.deps.versions.findLatest(scorerId, 'code')),
      flatMap(
        TE.fromOption(() => notFound('code scorer version', scorerId)),
      ),
      flatMap((v) => (v.registeredScorer ? TE.right(v.registeredScorer) : TE.left(notFound('code scorer version', scorerId)))),
    );
  }

  getRunScorers(principal: Principal, projectId: ProjectId, runId: RunId): UseCase<RunScorerSettings> {
    return pipe(
      this.deps.projects.getRun(principal, projectId, runId),
      flatMap(() => this.deps.runScorers.find(runId)),
      TE.map(O.getOrElse((): RunScorerSettings => ({ runId, scorers: [], updatedAt: this.deps.clock.now() }))),
    );
  }

  /** Chooses the scorers that run on a run; each must be the caller's, and a pinned version must exist. */
  replaceRunScorers(
    principal: Principal,
    projectId: ProjectId,
    runId: RunId,
    selections: ReadonlyArray<ScorerSelection>,
  ): UseCase<RunScorerSettings> {
    if (!mayChangeData(principal)) return readOnly();
    // A scorer listed twice is refused, not merged: which entry (which pinned version) was meant is the
    // caller's to say, and a merge would drop the other entry unchecked.
    const first = new Map<ScorerId, number>();
    for (const [i, s] of selections.entries()) {
      const earlier = first.get(s.scorerId);
      if (earlier !== undefined) return TE.left(invalid(['scorers', i, 'scorer_id'], `scorer listed twice: scorers[${earlier}] is the same scorer`, s.scorerId));
      first.set(s.scorerId, i);
    }
    return pipe(
      this.deps.projects.getRun(principal, projectId, runId),
      flatMap(() => TE.traverseSeqArray((s: ScorerSelection) => this.checkSelection(principal, s))(selections)),
      flatMap(() => this.deps.runScorers.replace({ runId, scorers: selections, updatedAt: this.deps.clock.now() })),
      TE.tap(() => {
        this.plans.deleteWhere(() => true);
        return TE.right(undefined);
      }),
    );
  }

  /** A new version may be the latest some plans follow: every plan is read again. */
  private forgetPlans(): TE.TaskEither<never, void> {
    this.plans.deleteWhere(() => true);
    return TE.right(undefined);
  }

  /**
   * What the run's scorers score with: for each scorer of its settings, the version in use (the pinned
   * one, else the latest) and its sample rate; a scorer without versions scores nothing. Remembered for
   * planKnownForMs unless `fresh` (a recompute reads it anew).
   */
  scoringPlan(runId: RunId, fresh = false): UseCase<ScoringPlan> {
    const nowMs = this.deps.clock.elapsedMs();
    const known = fresh ? undefined : this.plans.get(runId, nowMs);
    if (known !== undefined) return TE.right(known);
    return pipe(
      this.deps.runScorers.find(runId),
      TE.map(O.match(() => [] as ReadonlyArray<ScorerSelection>, (s) => s.scorers)),
      flatMap((selections) =>
        selections.length === 0
          ? TE.right([] as ScoringPlan)
          : pipe(
              this.findKnownOrStored(selections.map((s) => s.scorerId)),
              flatMap((scorers) =>
                TE.traverseSeqArray((sel: ScorerSelection) => {
                  const scorer = scorers.find((s) => s.id === sel.scorerId);
                  if (!scorer) return TE.right(O.none);
                  const version = sel.version === null ? this.deps.versions.findLatest(sel.scorerId) : this.deps.versions.findByNumber(sel.scorerId, sel.version);
                  return pipe(
                    version,
                    TE.map(O.map((v): ScoringPlanEntry => ({ scorer, version: v, sampleRate: sel.sampleRate ?? 1 }))),
                  );
                })(selections),
              ),
              TE.map((found): ScoringPlan => A.compact([...found])),
            ),
      ),
      TE.map((plan) => {
        this.plans.set(runId, plan, nowMs);
        return plan;
      }),
    );
  }

  /** Scorers by id, each read once (scorers never change): for the scoring workers and the run's status. */
  scorersByIds(ids: ReadonlyArray<ScorerId>): UseCase<ReadonlyArray<Scorer>> {
    return this.findKnownOrStored(ids);
  }

  /** The scorers with these ids that exist: from memory where read before, the rest in one query. */
  private findKnownOrStored(ids: ReadonlyArray<ScorerId>): UseCase<ReadonlyArray<Scorer>> {
    const found = new Map<ScorerId, Scorer>();
    for (const id of ids) {
      const known = this.knownScorers.get(id, 0);
      if (known !== undefined) found.set(id, known);
    }
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length === 0) return TE.right([...found.values()]);
    return pipe(
      this.deps.scorers.findManyByIds(missing),
      TE.map((stored) => {
        for (const scorer of stored) {
          this.knownScorers.set(scorer.id, scorer, 0);
          found.set(scorer.id, scorer);
        }
        return [...found.values()];
      }),
    );
  }

  /** The enabled scorers of a run, each with the output type of the version in use. */
  /** The run's scorers with the version each is in use at (null for a scorer that has none yet) and its output type. */
  enabledOnRun(runId: RunId): UseCase<ReadonlyArray<{ scorer: Scorer; outputType: string | null; version: ScorerVersion | null }>> {
    return pipe(
      this.deps.runScorers.find(runId),
      TE.map(O.match(() => [] as ReadonlyArray<ScorerSelection>, (s) => s.scorers)),
      flatMap((selections) =>
        pipe(
          this.findKnownOrStored(selections.map((s) => s.scorerId)),
          flatMap((scorers) =>
            TE.traverseSeqArray((sel: ScorerSelection) => {
              const scorer = scorers.find((s) => s.id === sel.scorerId);
              if (!scorer) return TE.right(O.none);
              const version =
                sel.version === null
                  ? this.deps.versions.findLatest(sel.scorerId)
                  : this.deps.versions.findByNumber(sel.scorerId, sel.version);
              return pipe(
                version,
                TE.map((v) => O.some({ scorer, outputType: pipe(v, O.flatMap((x) => O.fromNullable(x.outputType)), O.toNullable), version: O.toNullable(v) })),
              );
            })(selections),
          ),
          TE.map((found) => A.compact([...found])),
        ),
      ),
    );
  }

  private checkSelection(principal: Principal, s: ScorerSelection): UseCase<void> {
    return pipe(
      this.get(principal, s.scorerId),
      flatMap(() =>
        s.version === null
          ? TE.right(undefined)
          : pipe(
              this.deps.versions.findByNumber(s.scorerId, s.version),
              orNotFound('scorer version', `${s.scorerId}@${s.version}`),
              TE.map(() => undefined),
            ),
      ),
    );
  }

  private versionHeader(scorerId: ScorerId, version: number, createdBy: UserId) {
    const now = this.deps.clock.now();
    return { id: asId<ScorerVersionId>(this.deps.ids.next()), scorerId, version, createdAt: now, updatedAt: now, createdBy };
  }

  private llmVersion(scorer: Scorer, version: number, createdBy: UserId, input: LlmVersionInput): ScorerVersion {
    const d = scorer.defaults;
    const modelName = input.modelName ?? d.modelName ?? LLM_VERSION_DEFAULTS.modelName;
    const numJudges = input.numJudges ?? d.numJudges ?? LLM_VERSION_DEFAULTS.numJudges;
    const cotEnabled = input.cotEnabled ?? d.cotEnabled ?? LLM_VERSION_DEFAULTS.cotEnabled;
    const outputType = input.outputType ?? d.outputType ?? LLM_VERSION_DEFAULTS.outputType;
    const inputType = input.inputType ?? d.inputType ?? LLM_VERSION_DEFAULTS.inputType;
    const scoreableNodeTypes = input.scoreableNodeTypes ?? d.scoreableNodeTypes ?? LLM_VERSION_DEFAULTS.scoreableNodeTypes;
    const instructions = input.instructions ?? '';
    const userPrompt = input.userPrompt ?? '';
    const cpt = input.chainPollTemplate;
    const chainPollTemplate: ChainPollTemplate = {
      template: cpt?.template ?? (userPrompt || instructions),
      metricSystemPrompt: cpt?.metricSystemPrompt ?? (instructions || null),
      metricDescription: cpt?.metricDescription ?? (scorer.description || null),
      valueFieldName: cpt?.valueFieldName ?? 'rating',
      explanationFieldName: cpt?.explanationFieldName ?? 'explanation',
      metricFewShotExamples: cpt?.metricFewShotExamples ?? [],
      responseSchema: cpt?.responseSchema ?? null,
    };
    const header = this.versionHeader(scorer.id, version, createdBy);
    return {
      ...header,
      modelName,
      numJudges,
      scoreableNodeTypes,
      cotEnabled,
      outputType,
      inputType,
      chainPollTemplate,
      allowedModel: true,
      generatedScorer: {
        id: this.deps.ids.next(),
        name: scorer.name,
        chainPollTemplate,
        createdBy,
        createdAt: header.createdAt,
        updatedAt: header.updatedAt,
        scoreableNodeTypes,
        scorerConfiguration: {
          modelAlias: modelName,
          numJudges,
          outputType,
          scoreableNodeTypes,
          cotEnabled,
          groundTruth: input.groundTruth ?? false,
          multimodalCapabilities: input.multimodalCapabilities ?? [],
        },
        instructions,
        userPrompt,
      },
      registeredScorer: null,
      finetunedScorer: null,
    };
  }
}
