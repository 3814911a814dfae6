// Traces, spans and sessions as stored: one flat record per node, linked by ids.
import type { NodeType, SpanType } from '../columns/column';
import { type DomainError, conflict } from '../shared/errors';
import type { ProjectId, RunId } from '../shared/ids';
import type { MetricInfo, MetricValue } from '../evaluation/metric-info';

/** JSON as received: text stays text, structured input (messages, documents) stays structured. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json };

/** Fields that only some node types carry; each maps to a standard column of the same name. */
export interface TypedAttributes {
  readonly model?: string;
  readonly temperature?: number;
  readonly finish_reason?: string;
  readonly tools?: string;
  readonly tool_call_id?: string;
  readonly agent_type?: string;
  readonly control_id?: number;
  readonly agent_name?: string;
  readonly check_stage?: string;
  readonly applies_to?: string;
  readonly evaluator_name?: string;
  readonly selector_path?: string;
}

export interface LogRecord {
  readonly id: string;
  readonly type: NodeType;
  readonly projectId: ProjectId;
  readonly runId: RunId;
  /** The trace this node belongs to; a trace's own id for a trace; null for a session. */
  readonly traceId: string | null;
  readonly parentId: string | null;
  readonly sessionId: string | null;
  readonly name: string;
  readonly input: Json;
  readonly output: Json;
  readonly createdAt: Date;
  /**
   * The microseconds past `createdAt`'s millisecond (0 to 999), which a Date cannot hold: the origin's
   * SDKs send times to the microsecond, and a trace's children are told apart and ordered by them.
   * Records sort by created_at to the microsecond, then by id.
   */
  readonly createdAtMicros: number;
  readonly updatedAt: Date | null;
  readonly tags: ReadonlyArray<string>;
  readonly userMetadata: Readonly<Record<string, string>>;
  readonly statusCode: number | null;
  readonly externalId: string | null;
  readonly datasetInput: string | null;
  readonly datasetOutput: string | null;
  readonly datasetMetadata: Readonly<Record<string, string>>;
  /**
   * Measurements (`duration_ns`, token counts) and scorer results (`metrics/<name>` columns read these):
   * numbers as clients send them; a scorer's value may also be a label (categorical) or labels (multilabel).
   */
  readonly metrics: Readonly<Record<string, MetricValue | null>>;
  /**
   * Each scorer's outcome on the record, by metric name (its status, the judges' explanations): written
   * by the scoring workers, kept when the record is sent again. Absent: none.
   */
  readonly metricInfo?: Readonly<Record<string, MetricInfo>>;
  readonly isComplete: boolean;
  readonly hasChildren: boolean;
  readonly stepNumber: number | null;
  readonly progressMessage: string | null;
  readonly errorMessage: string | null;
  readonly attributes: TypedAttributes;
  /**
   * Of a trace's record made from an OTLP root span: where that span stands among its trace's root
   * spans (otelRootKey; text that orders them). Absent on every other record. Not part of the API.
   */
  readonly otelRootKey?: string;
}

/**
 * Whether a record sent again replaces the one stored under its id. A record does (clients retry, and
 * the latest is kept), but for a trace's record made from an OTLP root span, which replaces only one
 * made from a root that started no earlier (otelRootKey): so a trace with several root spans, sent in
 * any number of exports in any order, keeps the record of the root that started first, and the other
 * roots stay spans of it. A stored record without the key (from the record API, or stored before the
 * key was) is replaced as any other.
 */
export const replacesStoredRecord = (incoming: Pick<LogRecord, 'otelRootKey'>, storedRootKey: string | null | undefined): boolean =>
  incoming.otelRootKey === undefined || storedRootKey === null || storedRootKey === undefined || incoming.otelRootKey <= storedRootKey;

export const isSpanType = (t: NodeType): t is SpanType => t !== 'trace' && t !== 'session';

/** What a record is: a session, a trace, or a span (of any span type). */
export type RecordKind = 'session' | 'trace' | 'span';
export const recordKindOf = (t: NodeType): RecordKind => (isSpanType(t) ? 'span' : t);

/**
 * Why a record sent under the id of a stored session, or a session under the id of a stored trace or
 * span, is refused (Conflict): a record sent again replaces itself, and a session is not a node of a
 * trace. Replaced, a session would be gone from under the traces that name it, a trace from under its
 * spans. Undefined otherwise: a trace or span sent again may come back as either (a retry that makes
 * a span a root, or corrects its type), its tree's links kept right by the ingest.
 */
export const kindClash = (id: string, stored: NodeType, sent: NodeType): DomainError | undefined =>
  (stored === 'session') === (sent === 'session')
    ? undefined
    : conflict(`record ${id} is a ${recordKindOf(stored)} of this run: a ${recordKindOf(sent)} cannot take its id`);

/** The first kindClash between records stored under some ids and the types sent under them; undefined when there is none. */
export const firstKindClash = (
  stored: Iterable<{ readonly id: string; readonly type: NodeType }>,
  sent: ReadonlyMap<string, NodeType>,
): DomainError | undefined => {
  for (const { id, type } of stored) {
    const sentType = sent.get(id);
    const clash = sentType === undefined ? undefined : kindClash(id, type, sentType);
    if (clash !== undefined) return clash;
  }
  return undefined;
};

/** Text of an input or output as the `text` columns see it: strings as they are, anything else as JSON. */
export const textOf = (value: Json): string | null =>
  value === null ? null : typeof value === 'string' ? value : JSON.stringify(value);
