// Turns nested traces (as clients send them) into flat, linked records. Pure: ids and time are given.
import * as E from 'fp-ts/Either';
import type { NodeType, SpanType } from '../columns/column';
import { type DomainError, conflict, invalid } from '../shared/errors';
import type { ProjectId, RunId } from '../shared/ids';
import { type Json, type LogRecord, type TypedAttributes, recordKindOf } from './log-record';

/**
 * One node as received, its children nested. Everything but the span type is optional; a field may
 * also be present as `undefined` (mappers build every node with one shape, which keeps the flattening
 * loop's property reads monomorphic).
 */
export interface NodeInput {
  readonly type?: NodeType | undefined;
  readonly id?: string | null | undefined;
  readonly name?: string | undefined;
  readonly input?: Json | undefined;
  readonly output?: Json | undefined;
  readonly createdAt?: Date | undefined;
  /** The microseconds past `createdAt`'s millisecond, when the time was sent to the microsecond. */
  readonly createdAtMicros?: number | undefined;
  readonly tags?: ReadonlyArray<string> | undefined;
  readonly userMetadata?: Readonly<Record<string, string>> | undefined;
  readonly statusCode?: number | null | undefined;
  readonly externalId?: string | null | undefined;
  readonly datasetInput?: string | null | undefined;
  readonly datasetOutput?: string | null | undefined;
  readonly datasetMetadata?: Readonly<Record<string, string>> | undefined;
  readonly metrics?: Readonly<Record<string, number | null>> | undefined;
  readonly sessionId?: string | null | undefined;
  readonly stepNumber?: number | null | undefined;
  readonly progressMessage?: string | null | undefined;
  readonly errorMessage?: string | null | undefined;
  readonly attributes?: TypedAttributes | undefined;
  readonly spans?: ReadonlyArray<NodeInput & { readonly type: SpanType }> | undefined;
}

export interface IngestContext {
  readonly projectId: ProjectId;
  readonly runId: RunId;
  readonly sessionId: string | null;
  readonly isComplete: boolean;
  readonly now: Date;
  readonly newId: () => string;
}

export interface FlattenedTraces {
  readonly records: ReadonlyArray<LogRecord>;
  readonly traceIds: ReadonlyArray<string>;
  readonly spanCount: number;
}

/**
 * Flattens each trace and its span tree, depth first (parents before children), linking every span
 * to its trace and parent. Client ids are kept; missing ones are generated. An id used twice in one
 * request is rejected, naming where.
 */
export const flattenTraces = (traces: ReadonlyArray<NodeInput>, ctx: IngestContext): E.Either<DomainError, FlattenedTraces> => {
  const { records, visit, duplicate } = flattener(ctx);
  const traceIds = traces.map((t) => visit(t, 'trace', null, null, t.sessionId ?? ctx.sessionId));
  const twice = duplicate();
  if (twice !== undefined) return E.left(duplicateAt(traces, twice, 'traces'));
  return E.right({ records, traceIds, spanCount: records.length - traceIds.length });
};

/** Where appended spans go (flattenSpans): under a trace, below one of its records (the trace itself or a span). */
export interface SpansPlace {
  readonly traceId: string;
  readonly parentId: string;
}

/**
 * Flattens spans sent on their own (immediate mode: the origin's `POST …/spans`) as flattenTraces does
 * a trace's, each linked to the trace and, at the top, to the parent named. Neither needs to be stored
 * yet: records of one trace may arrive in any order, and whichever comes second is linked to the first.
 */
export const flattenSpans = (
  spans: ReadonlyArray<NodeInput & { readonly type: SpanType }>,
  place: SpansPlace,
  ctx: IngestContext,
): E.Either<DomainError, ReadonlyArray<LogRecord>> => {
  const { records, visit, duplicate } = flattener(ctx);
  const traceId = place.traceId.toLowerCase();
  const parentId = place.parentId.toLowerCase();
  for (const span of spans) visit(span, span.type, traceId, parentId, ctx.sessionId);
  const twice = duplicate();
  if (twice !== undefined) return E.left(duplicateAt(spans, twice, 'spans'));
  if (records.some((r) => r.id === traceId || r.id === parentId))
    return E.left(invalid(['spans'], `a span of this request has the id of the trace or parent it is sent under`));
  return E.right(records);
};

/**
 * Why spans sent under a trace (flattenSpans) cannot be stored given what the run holds under the ids
 * involved (Conflict), or undefined when they can. The trace named, when stored, must be a trace; the
 * parent named, when stored, must be that trace or one of its spans; and no span may take a stored
 * trace's id (the ingest would make it a span, its spans left under a trace that is no more). A span
 * under a stored session's id is the ingest's own refusal (kindClash). What is not stored yet is
 * accepted: the records of a trace arrive in any order.
 */
export const appendClash = (
  stored: Iterable<Pick<LogRecord, 'id' | 'type' | 'traceId'>>,
  place: SpansPlace,
  spans: ReadonlyArray<Pick<LogRecord, 'id'>>,
): DomainError | undefined => {
  const traceId = place.traceId.toLowerCase();
  const parentId = place.parentId.toLowerCase();
  const byId = new Map<string, Pick<LogRecord, 'id' | 'type' | 'traceId'>>();
  for (const record of stored) byId.set(record.id, record);
  const trace = byId.get(traceId);
  if (trace !== undefined && trace.type !== 'trace') return conflict(`trace_id ${traceId} is a ${recordKindOf(trace.type)} of this run, not a trace`);
  const parent = byId.get(parentId);
  if (parent !== undefined && parent.id !== traceId) {
    if (parent.type === 'session' || parent.type === 'trace') return conflict(`parent_id ${parentId} is a ${parent.type} of this run, not trace ${traceId} or one of its spans`);
    if (parent.traceId !== traceId) return conflict(`parent_id ${parentId} is a span of trace ${parent.traceId ?? 'none'}, not of trace ${traceId}`);
  }
  for (const span of spans) {
    const clash = byId.get(span.id);
    if (clash?.type === 'trace') return conflict(`record ${span.id} is a trace of this run: a span cannot take its id`);
  }
  return undefined;
};

const flattener = (ctx: IngestContext) => {
  const records: LogRecord[] = [];
  // On the ingest hot path: no per-node allocations beyond the record itself. Where a node sits is
  // only worked out for the error, by a second walk.
  const seen = new Set<string>();
  let duplicate: string | undefined;

  const visit = (node: NodeInput, type: NodeType, traceId: string | null, parentId: string | null, sessionId: string | null): string => {
    const id = (node.id ?? ctx.newId()).toLowerCase();
    if (seen.has(id)) duplicate ??= id;
    else seen.add(id);
    const children = node.spans;
    const ownTrace = traceId ?? id;
    records.push({
      id,
      type,
      projectId: ctx.projectId,
      runId: ctx.runId,
      traceId: ownTrace,
      parentId,
      sessionId,
      name: node.name ?? '',
      input: node.input ?? '',
      output: node.output ?? null,
      createdAt: node.createdAt ?? ctx.now,
      createdAtMicros: node.createdAt === undefined ? 0 : (node.createdAtMicros ?? 0),
      updatedAt: ctx.now,
      tags: node.tags ?? [],
      userMetadata: node.userMetadata ?? {},
      statusCode: node.statusCode ?? null,
      externalId: node.externalId ?? null,
      datasetInput: node.datasetInput ?? null,
      datasetOutput: node.datasetOutput ?? null,
      datasetMetadata: node.datasetMetadata ?? {},
      metrics: node.metrics ?? {},
      isComplete: ctx.isComplete,
      hasChildren: children !== undefined && children.length > 0,
      stepNumber: node.stepNumber ?? null,
      progressMessage: node.progressMessage ?? null,
      errorMessage: node.errorMessage ?? null,
      attributes: node.attributes ?? {},
    });
    if (children) for (const child of children) visit(child, child.type, ownTrace, id, sessionId);
    return id;
  };
  return { records, visit, duplicate: () => duplicate };
};

/** The error for an id used twice, at its second use (the first in depth-first order), under `rootKey` (traces, spans). */
const duplicateAt = (roots: ReadonlyArray<NodeInput>, duplicate: string, rootKey: string): DomainError => {
  let uses = 0;
  const find = (node: NodeInput, path: ReadonlyArray<string | number>): DomainError | undefined => {
    if (node.id != null && node.id.toLowerCase() === duplicate && ++uses === 2)
      return invalid([...path, 'id'], `id ${duplicate} is used twice in this request`, node.id);
    const children = node.spans ?? [];
    for (let i = 0; i < children.length; i++) {
      const found = find(children[i]!, [...path, 'spans', i]);
      if (found) return found;
    }
    return undefined;
  };
  for (let i = 0; i < roots.length; i++) {
    const found = find(roots[i]!, [rootKey, i]);
    if (found) return found;
  }
  return invalid([rootKey], `id ${duplicate} is used twice in this request`);
};
