// Evaluation of a run: recomputing its metrics, its scoring status, and the metric entries of a record
// (metric_info, in the shapes the origin's SDKs read: MetricSuccess, MetricError, MetricPending, …).
import { METRIC_STATUSES } from '@tracelight/domain';
import * as t from 'io-ts';
import { DateTimeOut, DateTimeWithOffset, Enum, IntegerOut, List, Nullable, Obj, UuidString } from '../shared/primitives.codec';

/** `POST /v2/projects/{project_id}/runs/{run_id}/metrics/recompute`: every member optional (no body: every scorer, every record). */
export const RecomputeMetricsRequest = Obj(
  'RecomputeMetricsRequest',
  {},
  {
    scorer_ids: Nullable(List(UuidString, { max: 100 })),
    created_after: Nullable(DateTimeWithOffset),
    created_before: Nullable(DateTimeWithOffset),
  },
);
export type RecomputeMetricsRequest = t.TypeOf<typeof RecomputeMetricsRequest>;

export const RecomputeMetricsResponse = t.type({ run_id: t.string, queued: IntegerOut }, 'RecomputeMetricsResponse');

const JobCountsResponse = t.type(
  { pending: IntegerOut, computing: IntegerOut, succeeded: IntegerOut, failed: IntegerOut, error: IntegerOut, not_applicable: IntegerOut, not_computed: IntegerOut },
  'ScoringJobCounts',
);

/** One scorer version's jobs on the run. */
export const ScorerScoringStatus = t.type(
  {
    scorer_id: t.string,
    scorer_name: t.string,
    version: IntegerOut,
    in_use: t.boolean,
    sample_rate: t.union([t.number, t.null]),
    jobs: JobCountsResponse,
    last_error: t.union([t.type({ message: t.string, at: DateTimeOut }, 'ScoringError'), t.null]),
    tokens: t.type({ prompt: IntegerOut, completion: IntegerOut }, 'ScoringTokens'),
  },
  'ScorerScoringStatus',
);

/** `GET /v2/projects/{project_id}/runs/{run_id}/metrics/status`. */
export const RunScoringStatusResponse = t.type({ run_id: t.string, scorers: t.array(ScorerScoringStatus) }, 'RunScoringStatusResponse');

/** A metric's value on a record: a number (a boolean judge's share of true), a boolean (a code scorer's), a label, or labels. */
export const MetricValueResponse = t.union([t.number, t.boolean, t.string, t.array(t.string), t.null], 'MetricValue');

/** One metric's entry on a record. */
export const MetricInfoResponse = t.intersection(
  [
    t.type({ status_type: Enum(METRIC_STATUSES, 'MetricStatusType') }),
    t.partial({
      scorer_type: t.union([t.string, t.null]),
      value: MetricValueResponse,
      display_value: t.union([t.string, t.null]),
      explanation: t.union([t.string, t.null]),
      rationale: t.union([t.string, t.null]),
      explanations: t.array(t.string),
      model_alias: t.union([t.string, t.null]),
      num_judges: t.union([IntegerOut, t.null]),
      cost: t.union([t.number, t.null]),
      version: IntegerOut,
      message: t.string,
      roll_up_method: t.union([t.literal('average'), t.literal('sum'), t.literal('first'), t.literal('last')]),
      roll_up_count: IntegerOut,
    }),
  ],
  'MetricInfo',
);
