// Scoring jobs: which records a run's scorers score (node types, sampling), and the life of a job.
import type { NodeType } from '../columns/column';
import type { ProjectId, RunId, ScorerId, UserId } from '../shared/ids';
import type { Scorer } from '../scorers/scorer';
import { type ScorerVersion, type ScorerVersionKind, versionKind } from '../scorers/scorer-version';
import { type LogRecord, textOf } from '../tracing/log-record';
import { type MetricInfo, pendingInfo } from './metric-info';

/**
 * Where a job stands. `pending` waits (or waits out a backoff), `computing` is held by a worker under a
 * lease; the rest are outcomes: `success`, `error` (the scorer cannot run as configured: no gateway, an
 * output type judges do not give; recompute picks it up once mended), `failed` (the judge did not answer
 * usably after every retry), `not_applicable` (the record is gone, or no longer of a type the version
 * scores), `not_computed` (a kind of version this service does not run yet).
 */
export const JOB_STATES = ['pending', 'computing', 'success', 'error', 'failed', 'not_applicable', 'not_computed'] as const;
export type JobState = (typeof JOB_STATES)[number];
export type JobOutcomeState = Exclude<JobState, 'pending' | 'computing'>;

/** States a recompute queues again: outcomes that may differ once what caused them is mended. `success` stands. */
export const REQUEUED_STATES: ReadonlyArray<JobState> = ['error', 'failed', 'not_applicable', 'not_computed'];

/** A job to store: one record scored by one scorer version. At most one per (run, record, scorer, version). */
export interface NewScoringJob {
  readonly runId: RunId;
  readonly projectId: ProjectId;
  readonly recordId: string;
  /**
   * The record's trace (null for a session): storage may keep a run's jobs by trace, so that the jobs
   * of one ingest, mostly of a few traces, are written side by side rather than scattered.
   */
  readonly traceId: string | null;
  readonly scorerId: ScorerId;
  readonly version: number;
  readonly kind: ScorerVersionKind;
  /** The scorer's name: the metric's name on the record (`metrics/<name>`). */
  readonly metricName: string;
  /** The scorer's owner, whose gateway integration judges call. */
  readonly ownerId: UserId;
}

/** A job a worker holds under a lease: it alone may store its outcome, until the lease runs out. */
export interface ClaimedJob extends NewScoringJob {
  /** The storage's key of the job (opaque). */
  readonly id: string;
  /** Claims so far, this one included: a job whose holder died is claimed again, and counted. */
  readonly attempts: number;
  readonly leaseOwner: string;
}

/** Tokens a job's judge calls used (every call of every attempt that got an answer). */
export interface TokenUsage {
  readonly prompt: number;
  readonly completion: number;
}
export const NO_TOKENS: TokenUsage = { prompt: 0, completion: 0 };
export const addTokens = (a: TokenUsage, b: TokenUsage): TokenUsage => ({ prompt: a.prompt + b.prompt, completion: a.completion + b.completion });

/** What a worker stores for a job it holds: an outcome (with the record's metric entry), or a retry later. */
export type JobOutcome =
  | { readonly state: 'success'; readonly info: MetricInfo; readonly tokens: TokenUsage }
  | { readonly state: Exclude<JobOutcomeState, 'success'>; readonly message: string; readonly info: MetricInfo; readonly tokens: TokenUsage }
  | { readonly state: 'retry'; readonly message: string; readonly dueAt: Date; readonly tokens: TokenUsage };

/** Jobs of one scorer version on a run, by state, for the run's scoring status. */
export interface JobCounts {
  readonly scorerId: ScorerId;
  readonly version: number;
  readonly counts: Readonly<Record<JobState, number>>;
  readonly tokens: TokenUsage;
  readonly lastError: { readonly message: string; readonly at: Date } | null;
}

export const zeroCounts = (): Record<JobState, number> =>
  Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;

/** A scorer of a run as the run scores with it: the version in use (pinned, else the latest) and the share of records it scores. */
export interface ScoringPlanEntry {
  readonly scorer: Scorer;
  readonly version: ScorerVersion;
  /** 0 to 1: a record is scored when isSampled says so. */
  readonly sampleRate: number;
}

/** What a run's scorers score: one entry per scorer of its settings that has a version. */
export type ScoringPlan = ReadonlyArray<ScoringPlanEntry>;

/** The node types a version scores: its own list, else its body's, else `llm` (the origin's default). */
export const scoreableNodeTypes = (v: ScorerVersion): ReadonlyArray<string> =>
  v.scoreableNodeTypes ?? v.generatedScorer?.scoreableNodeTypes ?? v.registeredScorer?.scoreableNodeTypes ?? ['llm'];

/**
 * FNV-1a (32 bits) of the text's UTF-16 code units: a fast, stable hash, the same in every process and
 * engine and on every run, which is all sampling needs (it is no defence against a chosen id).
 */
const fnv1a = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
};

/**
 * Whether a record is among those a scorer scores at `rate` (0 to 1): the hash of its id and the
 * scorer's id, as a fraction of 2^32, falls under the rate. The same records are chosen whenever asked
 * (a recompute, another process, the same ids sent to another run), and a higher rate chooses a superset.
 */
export const isSampled = (recordId: string, scorerId: ScorerId, rate: number): boolean =>
  rate >= 1 || (rate > 0 && fnv1a(`${recordId}:${scorerId}`) / 2 ** 32 < rate);

/** The jobs a plan gives these records of one run: each record of a type an entry's version scores, when sampled. */
export const jobsFor = (records: ReadonlyArray<Pick<LogRecord, 'id' | 'type' | 'runId' | 'projectId' | 'traceId'>>, plan: ScoringPlan): ReadonlyArray<NewScoringJob> => {
  if (plan.length === 0) return [];
  const jobs: NewScoringJob[] = [];
  for (const entry of plan) {
    const kind = versionKind(entry.version);
    if (kind === null) continue;
    const types = new Set<string>(scoreableNodeTypes(entry.version));
    for (const r of records) {
      if (!types.has(r.type as NodeType) || !isSampled(r.id, entry.scorer.id, entry.sampleRate)) continue;
      jobs.push({
        runId: r.runId,
        projectId: r.projectId,
        recordId: r.id,
        traceId: r.traceId,
        scorerId: entry.scorer.id,
        version: entry.version.version,
        kind,
        metricName: entry.scorer.name,
        ownerId: entry.scorer.createdBy,
      });
    }
  }
  return jobs;
};

/** The `pending` entries of each record the jobs are for (record id → metric name → entry). */
export const pendingByRecord = (jobs: ReadonlyArray<Pick<NewScoringJob, 'recordId' | 'metricName' | 'kind' | 'version'>>, key: (name: string) => string = (n) => n): Map<string, Record<string, MetricInfo>> => {
  const byRecord = new Map<string, Record<string, MetricInfo>>();
  for (const j of jobs) {
    const infos = byRecord.get(j.recordId) ?? {};
    infos[key(j.metricName)] = pendingInfo(j.kind, j.version);
    byRecord.set(j.recordId, infos);
  }
  return byRecord;
};

/**
 * Whether a record is ready to be scored. A trace or span once it is complete: in immediate mode (the
 * origin's SDKs streaming) one is sent incomplete and without its output, then completed by a PATCH
 * that brings the output, and a judge of it before that would judge an empty answer. A session always:
 * it has no output of its own, is never PATCHed, and nothing ever says it is complete (the spec gives
 * sessions no is_complete), so it is scored when it is stored, as a complete record is.
 */
export const isReadyToScore = (r: Pick<LogRecord, 'type' | 'isComplete'>): boolean => r.isComplete || r.type === 'session';

/** Entries of a string map in key order: the same map compares equal whatever order its keys came in. */
const sortedEntries = (m: Readonly<Record<string, string>>): ReadonlyArray<readonly [string, string]> =>
  Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * What of a record its scorers read: the judges' placeholders (PROMPT_PLACEHOLDERS: input, output, name,
 * type, dataset input and output, tools) and a code scorer's arguments (its dataset metadata too), as text.
 */
const judgedContent = (r: LogRecord): string =>
  JSON.stringify([textOf(r.input), textOf(r.output), r.name, r.type, r.datasetInput, r.datasetOutput, sortedEntries(r.datasetMetadata), r.attributes.tools ?? null]);

/** Whether a scorer would read something else of `after` than of `before` (the same record, written again). */
export const judgedContentChanged = (before: LogRecord, after: LogRecord): boolean => judgedContent(before) !== judgedContent(after);

/**
 * What a write of a record does with the jobs the run's plan gives it (jobsFor), decided by storage in
 * the write's transaction, where it reads what the record was:
 * - `none`: no job is stored (the record is not ready to score; or a PATCH changed nothing a scorer
 *   reads of a record already ready: its jobs and results stand as they are);
 * - `missing`: each job not stored yet is added, one stored is left as it is (a new record; a record sent
 *   again as it was, which a client's retry does: its results stand);
 * - `afresh`: the record is scored again, now that it is ready or what its scorers read changed: each
 *   job is added or made pending again (its attempts reset, any lease on it lost), and the record's
 *   earlier value and entry of each job's metric give way to `pending` (scoringKept's `afresh`), so
 *   that each (record, scorer version) still ends with one result: the one of what it now holds.
 * `before` is the record as stored (undefined: there is none); `write` says whether `after` was sent
 * whole (an ingest, of any path) or made by a PATCH (applyRecordPatch).
 */
export type ScoringOnWrite = 'none' | 'missing' | 'afresh';
export const scoringOnWrite = (before: LogRecord | undefined, after: LogRecord, write: 'ingest' | 'patch'): ScoringOnWrite => {
  if (!isReadyToScore(after)) return 'none';
  if (before === undefined) return 'missing';
  if (!isReadyToScore(before) || judgedContentChanged(before, after)) return 'afresh';
  return write === 'ingest' ? 'missing' : 'none';
};
