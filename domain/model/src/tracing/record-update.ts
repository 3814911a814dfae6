// Partial updates of a stored trace or span (immediate mode: the origin's PATCH …/traces/{id} and
// …/spans/{id}): what is sent overwrites, tags are added, what is left out stays. Pure: storage reads
// the record, applies the patch and writes it back in one transaction.
import type { Json, LogRecord } from './log-record';

/** What a patch may change. A member left out (or sent as null, as the SDKs dump unset fields) changes nothing. */
export interface RecordPatch {
  readonly input?: Json;
  readonly output?: Json;
  readonly statusCode?: number;
  /** Added to the record's tags (each once, in the order first given). */
  readonly tags?: ReadonlyArray<string>;
  readonly isComplete?: boolean;
  /** The `duration_ns` metric. */
  readonly durationNs?: number;
  /** Metrics set (a name sent with null removes nothing: it is set to null, as an ingest would store it). */
  readonly metrics?: Readonly<Record<string, number | null>>;
}

/** Which records a patch addresses: a trace's record, or a span (of any span type). */
export type PatchTarget = 'trace' | 'span';

/** Whether a stored record is what a patch of `target` addresses (a session never is). */
export const isPatchTarget = (record: Pick<LogRecord, 'type'>, target: PatchTarget): boolean =>
  target === 'trace' ? record.type === 'trace' : record.type !== 'trace' && record.type !== 'session';

/** The record with the patch applied, updated at `now`. */
export const applyRecordPatch = (record: LogRecord, patch: RecordPatch, now: Date): LogRecord => {
  const metrics = { ...record.metrics, ...(patch.metrics ?? {}), ...(patch.durationNs === undefined ? {} : { duration_ns: patch.durationNs }) };
  const tags = patch.tags === undefined ? record.tags : [...new Set([...record.tags, ...patch.tags])];
  return {
    ...record,
    ...(patch.input === undefined ? {} : { input: patch.input }),
    ...(patch.output === undefined ? {} : { output: patch.output }),
    ...(patch.statusCode === undefined ? {} : { statusCode: patch.statusCode }),
    ...(patch.isComplete === undefined ? {} : { isComplete: patch.isComplete }),
    tags,
    metrics,
    updatedAt: now,
  };
};
