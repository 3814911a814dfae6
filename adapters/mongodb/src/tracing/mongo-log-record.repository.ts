// Log records in MongoDB: one document per node, written in a multi-document transaction
// (replica set required), searched with a query compiled from the catalogue's column ids.
import {
  type FoundPage,
  type Json,
  type LogRecord,
  type MetricInfo,
  type MetricValue,
  type NewScoringJob,
  type NodeType,
  type PatchTarget,
  type ProjectId,
  type RecordFilter,
  type RecordPatch,
  type Run,
  type RunId,
  NODE_TYPES,
  applyRecordPatch,
  firstKindClash,
  holdsLoneSurrogate,
  isPatchTarget,
  notFound,
  pendingByRecord,
  presentColumns,
  replacesStoredRecord,
  isReadyToScore,
  scoringKept,
  scoringOnWrite,
  searchTimedOut,
  takePageAsync,
} from '@tracelight/domain';
import type { LogRecordRepository, RecordKey, RecordKeyQuery, RecordPosition, RecordQuery, Result } from '@tracelight/ports';
import { type JobDoc, insertNewJobs, rescoreJobs } from '../evaluation/mongo-scoring-queue';
import * as t from 'io-ts';
import { inject, injectable } from 'inversify';
import { BSON, BSONRegExp, type ClientSession, type Collection, type Db, type Document, type Filter, type MongoClient } from 'mongodb';
import { parsedJson, withoutDbRefs } from '../shared/json-text';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { decodeMetricKey, encodeMetricKey, escapeRegex } from './record-fields';
import { Abort, BsonDate, brandedString, fromDoc, inTransaction, isDuplicateKey, isTimeLimit, nullable, oneOf, run, toDoc, type StringIdDoc } from '../shared/run';
import { runNameTaken } from '../projects-runs/mongo-run.repository';
import { projectExists, removeRunData, runExists } from '../projects-runs/run-removal';

const recordFromDoc = fromDoc<LogRecord>(
  t.intersection([t.type({
    id: t.string,
    type: oneOf(NODE_TYPES),
    projectId: brandedString<ProjectId>(),
    runId: brandedString<RunId>(),
    traceId: nullable(t.string),
    parentId: nullable(t.string),
    sessionId: nullable(t.string),
    name: t.string,
    input: t.unknown as unknown as t.Type<Json>,
    output: t.unknown as unknown as t.Type<Json>,
    createdAt: BsonDate,
    createdAtMicros: t.number,
    updatedAt: nullable(BsonDate),
    tags: t.readonlyArray(t.string),
    userMetadata: t.record(t.string, t.string),
    statusCode: nullable(t.number),
    externalId: nullable(t.string),
    datasetInput: nullable(t.string),
    datasetOutput: nullable(t.string),
    datasetMetadata: t.record(t.string, t.string),
    metrics: t.record(t.string, nullable(t.union([t.number, t.boolean, t.string, t.readonlyArray(t.string)]))),
    isComplete: t.boolean,
    hasChildren: t.boolean,
    stepNumber: nullable(t.number),
    progressMessage: nullable(t.string),
    errorMessage: nullable(t.string),
    attributes: t.record(t.string, t.unknown) as unknown as t.Type<LogRecord['attributes']>,
  }),
  // Only a trace's record made from an OTLP root span has it; documents written before it was lack it.
  t.partial({ otelRootKey: t.string }) as unknown as t.Type<Pick<LogRecord, 'otelRootKey'>>,
  // The scorers' entries (written by the scoring queue); records written before scoring lack them.
  t.partial({ metricInfo: t.record(t.string, t.type({ status_type: t.string })) }) as unknown as t.Type<Pick<LogRecord, 'metricInfo'>>,
  ]),
);

/** `o` with each key mapped by `f`. By fromEntries, which defines its keys: assigned, a key `__proto__` was lost. */
const mapKeys = <V>(o: Readonly<Record<string, V>>, f: (k: string) => string): Record<string, V> =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [f(k), v]));

/**
 * A record's `_id`: its id within its run. Ids are the client's, and a record is its run's, so the same
 * id in two runs (two users') is two documents, neither reachable from the other's writes. Run ids are
 * UUIDs, without a `:`.
 */
export const recordKey = (runId: string, id: string): string => `${runId}:${id}`;

/**
 * An input's or output's stored form: its search copy (`text`, textOf: what SQLite's input_text holds)
 * and, where the copy is not the value itself, the value's JSON text (`json`: true when the copy is it).
 * A value other than a string is stored as that text alone, never as BSON: BSON gives an object shaped
 * like a DBRef (`$ref`, `$id`, at any depth) back as a DBRef instance, refuses a NUL in a key and a
 * member named `_bsontype`, and stores strings as UTF-8, where half of a surrogate pair becomes U+FFFD.
 * JSON.stringify escapes such a half (`\ud800`), so the text keeps everything. A string is its own copy,
 * but one holding such a half keeps its JSON text beside it, the only value stored twice (rare: a
 * string cut inside a pair), so that searches see the text they saw before, as SQLite's do.
 */
const storedForm = (v: Json): { readonly text: string | null; readonly json?: true | string } => {
  if (v === null) return { text: null };
  if (typeof v === 'string') return holdsLoneSurrogate(v) ? { text: v, json: JSON.stringify(v) } : { text: v };
  return { text: JSON.stringify(v), json: true };
};

/**
 * User and dataset metadata as their JSON text, as SQLite keeps them: their keys are the client's, and
 * as BSON a map with `$ref` and `$id` came back as a DBRef (which made every search page holding the
 * record a corrupt document), a NUL in a key or a `_bsontype` member was refused, and half of a
 * surrogate pair in a value became U+FFFD. Nothing searches them, so nothing needs them as fields.
 */
const metadataText = (m: Readonly<Record<string, string>>): string => {
  for (const _ in m) return JSON.stringify(m);
  return '{}';
};

/**
 * The stored document: the record (its id as `recordId`), plus derived fields that make filtering plain
 * indexed queries. The input and output are stored once, as their search copies (`inputText`,
 * `outputText`), a value other than a string as its JSON text with `inputJson: true` (storedForm): twice,
 * a record of a large prompt took twice its size, and one over half of MongoDB's 16 MiB document limit
 * was refused where SQLite takes it.
 */
export const recordToDocument = (r: LogRecord) => {
  const { id, input, output, ...rest } = r;
  const i = storedForm(input);
  const o = storedForm(output);
  return {
    ...rest,
    _id: recordKey(r.runId, id),
    recordId: id,
    metrics: mapKeys(r.metrics, encodeMetricKey),
    metricInfo: mapKeys(r.metricInfo ?? {}, encodeMetricKey),
    isTrace: r.type === 'trace',
    userMetadata: metadataText(r.userMetadata),
    datasetMetadata: metadataText(r.datasetMetadata),
    inputText: i.text,
    outputText: o.text,
    ...(i.json === undefined ? {} : { inputJson: i.json }),
    ...(o.json === undefined ? {} : { outputJson: o.json }),
  };
};
const DERIVED = ['isTrace', 'inputText', 'outputText', 'inputJson', 'outputJson'] as const;
/** A sort key the search adds and removes: 1 where the sorted value is missing or null. */
const MISSING = '_tlMissing';

/**
 * A record's size against the page budget: the whole document, less the search copy of a value stored
 * twice (a string with half a surrogate pair, and, in documents written before the JSON form, any value
 * stored beside its text).
 */
export const storedSize = (d: Document): number => {
  const copy = (field: 'input' | 'output') => {
    const text: unknown = d[`${field}Text`];
    return (field in d || typeof d[`${field}Json`] === 'string') && typeof text === 'string' ? text.length : 0;
  };
  return BSON.calculateObjectSize(d) - copy('input') - copy('output');
};

/** An input or output from the stored document, of any form written so far. */
const storedValue = (d: Document, field: 'input' | 'output'): unknown => {
  const text: unknown = d[`${field}Text`];
  const json: unknown = d[`${field}Json`];
  if (json === true) return parsedJson(text, field);
  if (typeof json === 'string') return parsedJson(json, field);
  // A string (or null) stored as its search copy alone.
  if (!(field in d)) return text;
  // Written before the JSON form: the value as BSON beside its text (a string in both fields, in the
  // first form). Its JSON text gives it back as sent, where BSON gave a DBRef or U+FFFD for part of it.
  const value: unknown = d[field];
  return typeof value === 'object' && value !== null && typeof text === 'string' ? parsedJson(text, field) : value;
};

/**
 * Metadata from the stored document: its JSON text, or a map stored as BSON by an earlier build, where
 * one with `$ref` and `$id` reads back as a DBRef, made a map again here (its members in another order;
 * a `$ref` of two dot-separated parts the BSON library splits into `$db` and `$ref`, which stays so).
 */
const storedMetadata = (v: unknown, field: string): unknown => (typeof v === 'string' ? parsedJson(v, field) : withoutDbRefs(v));

export const recordFromDocument = (d: Document): LogRecord => {
  // A document without recordId is of the form before migration 5 (written by a process of an older build).
  const doc: Record<string, unknown> = { ...d, _id: d['recordId'] ?? d['_id'] };
  delete doc['recordId'];
  doc['input'] = storedValue(d, 'input');
  doc['output'] = storedValue(d, 'output');
  doc['userMetadata'] = storedMetadata(d['userMetadata'], 'userMetadata');
  doc['datasetMetadata'] = storedMetadata(d['datasetMetadata'], 'datasetMetadata');
  // Written before times were kept to the microsecond (migration 16 sets it on those it finds).
  doc['createdAtMicros'] ??= 0;
  for (const k of DERIVED) delete doc[k];
  const metrics = doc['metrics'];
  if (typeof metrics === 'object' && metrics !== null) doc['metrics'] = mapKeys(metrics as Record<string, unknown>, decodeMetricKey);
  const metricInfo = doc['metricInfo'];
  if (typeof metricInfo === 'object' && metricInfo !== null && Object.keys(metricInfo).length > 0)
    doc['metricInfo'] = mapKeys(metricInfo as Record<string, unknown>, decodeMetricKey);
  else delete doc['metricInfo'];
  return recordFromDoc(doc);
};

/** Catalogue column id → document field. */
const FIELDS: Readonly<Record<string, string>> = {
  input: 'inputText', output: 'outputText', name: 'name', created_at: 'createdAt', id: 'recordId', external_id: 'externalId',
  progress_message: 'progressMessage', error_message: 'errorMessage', tags: 'tags', status_code: 'statusCode',
  dataset_input: 'datasetInput', dataset_output: 'datasetOutput', session_id: 'sessionId', project_id: 'projectId',
  run_id: 'runId', updated_at: 'updatedAt', has_children: 'hasChildren', is_complete: 'isComplete', type: 'type',
  trace_id: 'traceId', parent_id: 'parentId', step_number: 'stepNumber', agent_type: 'attributes.agent_type',
  tools: 'attributes.tools', model: 'attributes.model', temperature: 'attributes.temperature',
  finish_reason: 'attributes.finish_reason', tool_call_id: 'attributes.tool_call_id', control_id: 'attributes.control_id',
  agent_name: 'attributes.agent_name', check_stage: 'attributes.check_stage', applies_to: 'attributes.applies_to',
  evaluator_name: 'attributes.evaluator_name', selector_path: 'attributes.selector_path',
};

const field = (columnId: string): string => {
  const known = FIELDS[columnId];
  if (known) return known;
  if (columnId.startsWith('metrics/')) return `metrics.${encodeMetricKey(columnId.slice('metrics/'.length))}`;
  throw new Error(`column ${columnId} has no field mapping`); // validated by the use case: a bug if reached
};

const list = (v: string | ReadonlyArray<string>) => (typeof v === 'string' ? [v] : [...v]);
/**
 * The whole value, case-insensitively: anchored with `\z`, not `$`, which in PCRE also matches before a
 * final newline (`"Hello\n"` is not `"hello"`). Given to the server as it is written, never run in Node.
 */
const exactly = (s: string, ci: boolean) => (ci ? new BSONRegExp(`^${escapeRegex(s)}\\z`, 'i') : s);

/** An expression: true where the document has no value (missing or null) at `path`. */
const isAbsent = (path: string) => ({ $eq: [{ $ifNull: [`$${path}`, null] }, null] });

/** Whole numbers below this are made a long before `$toString`: a long holds up to 2^63 (about 9.22e18). */
const WHOLE_AS_LONG_BELOW = 9e18;

/**
 * A metric's text, as SQLite's `CAST(… AS TEXT)` gives it. For a whole number, its digits: the driver
 * stores one outside int32 as a double, and the server's `$toString` of a double keeps six significant
 * digits (3000000000 would be `3e+09`), so a whole number is made a long first. A fraction is left to
 * `$toString`, whose text is SQLite's where the fraction has at most six significant digits and is at
 * least 0.0001 (below, `%g` writes `1e-05` where SQLite writes `1.0e-05`; docs/storage.md).
 */
const metricText = (value: string) => ({
  $switch: {
    branches: [
      // A scorer's label (a categorical judge's value) is its own text.
      { case: { $eq: [{ $type: value }, 'string'] }, then: value },
      {
        case: { $in: [{ $type: value }, ['double', 'int', 'long', 'decimal']] },
        then: {
          $cond: [
            { $and: [{ $eq: [{ $trunc: [value, 0] }, value] }, { $lt: [{ $abs: value }, WHOLE_AS_LONG_BELOW] }] },
            { $toString: { $toLong: value } },
            { $toString: value },
          ],
        },
      },
    ],
    default: null,
  },
});

/**
 * A text filter on a metric (a categorical scorer's column): metrics are stored as numbers, and SQLite
 * compares their text, so here too the value is compared as its text (lower-cased when the filter
 * ignores case). A record without the value is in `ne` and `not_in`, as there. The filter's values
 * are given as `$literal`s: in an expression, a string that starts with `$` is a field path (`$name`
 * would compare with the record's name, and `$$x` or `$` be refused as a bad query).
 */
export const metricTextCondition = (path: string, operator: string, values: ReadonlyArray<string>, ci: boolean): Filter<StringIdDoc> => {
  // Null where the value is missing (`$toLower` would make that an empty string), as SQLite's lower(NULL).
  const absent = isAbsent(path);
  const text = { $cond: [absent, null, ci ? { $toLower: metricText(`$${path}`) } : metricText(`$${path}`)] };
  const wanted = ci ? values.map((v) => v.toLowerCase()) : [...values];
  const first = { $literal: wanted[0] ?? '' };
  switch (operator) {
    case 'contains':
      // A regular expression's text escapes `$` (escapeRegex), so it is never read as a field path.
      return { $expr: { $and: [{ $not: [absent] }, { $regexMatch: { input: { $ifNull: [text, ''] }, regex: escapeRegex(wanted[0] ?? '') } }] } };
    case 'one_of':
      return { $expr: { $in: [text, { $literal: wanted }] } };
    case 'not_in':
      return { $expr: { $not: [{ $in: [text, { $literal: wanted }] }] } };
    case 'eq':
      return { $expr: { $eq: [text, first] } };
    default:
      return { $expr: { $ne: [text, first] } };
  }
};

const condition = (f: RecordFilter): Filter<StringIdDoc> => {
  const path = field(f.columnId);
  switch (f.type) {
    case 'text': {
      const ci = !f.caseSensitive;
      if (f.columnId.startsWith('metrics/')) return metricTextCondition(path, f.operator, list(f.value), ci);
      const values = list(f.value);
      if (f.operator === 'contains') return { [path]: { $regex: escapeRegex(values[0] ?? ''), ...(ci ? { $options: 'i' } : {}) } };
      if (f.operator === 'one_of') return { [path]: { $in: values.map((v) => exactly(v, ci)) } };
      if (f.operator === 'not_in') return { [path]: { $nin: values.map((v) => exactly(v, ci)) } };
      const value = values[0] ?? '';
      if (f.operator === 'eq') return { [path]: exactly(value, ci) };
      // As SQLite's `coalesce(col != ?, 1)`: a record without the value is not equal to it.
      return { [path]: { $not: ci ? exactly(value, true) : { $eq: value } } };
    }
    case 'number':
    case 'date': {
      if (f.operator === 'between') {
        const [lo, hi] = f.value as readonly [unknown, unknown];
        return { [path]: { $gte: lo, $lte: hi } };
      }
      // `$ne` alone also matches a missing or null value; SQLite's `col != ?` never matches NULL. A metric's
      // value is compared where it is a number alone, as the other operators compare (a label, a list or
      // a boolean is not a number), as on SQLite.
      if (f.operator === 'ne') return { [path]: { $nin: [f.value, null], ...(f.columnId.startsWith('metrics/') ? { $type: 'number' } : {}) } };
      const op = { eq: '$eq', gt: '$gt', gte: '$gte', lt: '$lt', lte: '$lte' }[f.operator];
      return { [path]: { [op]: f.value } };
    }
    case 'id': {
      const values = list(f.value).map((v) => v.toLowerCase());
      const op = { eq: '$eq', ne: '$ne', one_of: '$in', not_in: '$nin' }[f.operator];
      return { [path]: { [op]: f.operator === 'eq' || f.operator === 'ne' ? values[0] : values } };
    }
    case 'collection':
      return { [path]: { [f.operator === 'contains' ? '$in' : '$nin']: list(f.value) } };
    case 'boolean':
      // Booleans alone, as on SQLite: a record without one (a metric not scored on it, or holding a number
      // or a label) is in neither eq nor ne, so ne is the other boolean.
      return { [path]: { $eq: f.operator === 'eq' ? f.value : !f.value } };
  }
};

/**
 * The order of a column every record has (as SQLite's NEVER_NULL): the column, then `_id`, given to a
 * plain find so an index can serve it (log_records_by_run_time_us for `created_at`, either way). Within
 * a run, `_id` orders as the record id (recordKey). Undefined for a column a record may lack.
 */
const sortOf = (columnId: string, dir: 1 | -1): Record<string, 1 | -1> | undefined => {
  if (columnId === 'id') return { _id: dir };
  // To the microsecond, as log_records_by_run_time_us (migration 16) holds them.
  if (columnId === 'created_at') return { createdAt: dir, createdAtMicros: dir, _id: dir };
  if (!NEVER_NULL.has(columnId)) return undefined;
  return { [field(columnId)]: dir, _id: dir };
};
const NEVER_NULL: ReadonlySet<string> = new Set(['created_at', 'name', 'type', 'run_id', 'project_id', 'is_complete', 'has_children']);

/**
 * A keyset page's start (RecordQuery.after): past the record's place in created_at order (to the
 * microsecond), then _id (the
 * run's id and the record's: within a run, in the records' id order), in the order's direction. The
 * bound on createdAt alone is a range of log_records_by_run_time_us; the $or settles the ties within it.
 */
const keyset = (q: RecordQuery, after: RecordPosition): Filter<StringIdDoc> => {
  if (q.sort !== null && q.sort.columnId !== 'created_at') throw new Error(`a keyset page needs a sort on created_at, not on ${q.sort.columnId}`);
  const [past, from] = q.sort?.ascending === true ? (['$gt', '$gte'] as const) : (['$lt', '$lte'] as const);
  return {
    createdAt: { [from]: after.createdAt },
    $or: [
      { createdAt: { [past]: after.createdAt } },
      { createdAt: after.createdAt, createdAtMicros: { [past]: after.createdAtMicros } },
      { createdAt: after.createdAt, createdAtMicros: after.createdAtMicros, _id: { [past]: recordKey(q.runId, after.id) } },
    ],
  };
};

/**
 * A record's document with its metrics and metric entries as scoringKept says (keys encoded, as
 * stored): a stored record's entries and success values kept, a `pending` entry for each of its jobs;
 * for a record scored afresh, its earlier value and entry of each job's metric dropped.
 */
const keepScoring = <D extends { metrics: Record<string, MetricValue | null>; metricInfo: Record<string, MetricInfo> }>(
  d: D,
  stored: Readonly<Record<string, MetricInfo>> | undefined,
  pending: Readonly<Record<string, MetricInfo>> | undefined,
  afresh: boolean,
): D => (stored === undefined && pending === undefined ? d : { ...d, ...scoringKept(d.metrics, stored, pending, afresh) });

/**
 * Id fields with an index of their own (migrations 5 and 17): a search picking records by them (a trace's
 * spans, a span's children, a session's traces, records by id) is led by that index, named as a hint,
 * whatever order it asks for. Left to itself, a server may walk the run's time index for the order
 * until it meets the few records; with a hint it reads them and sorts them. A hint naming an index the
 * server lacks is refused (a real server answers an error), never quietly a walk through the run.
 */
const ID_INDEXES: Readonly<Record<string, string>> = {
  id: 'log_records_by_run_id',
  trace_id: 'log_records_by_run_trace',
  parent_id: 'log_records_by_run_parent',
  session_id: 'log_records_by_run_session',
};

/** Every index a search may be led by. */
export const LEADING_INDEXES: ReadonlyArray<string> = Object.values(ID_INDEXES);

/** The index a search is led by (see ID_INDEXES), if one of its filters picks records by an indexed id. */
export const leadingIndex = (filters: ReadonlyArray<RecordFilter>): string | undefined => {
  for (const f of filters) if (f.type === 'id' && (f.operator === 'eq' || f.operator === 'one_of') && ID_INDEXES[f.columnId] !== undefined) return ID_INDEXES[f.columnId];
  return undefined;
};

/** A run's records: with the project too, the shard key's prefix, so that a query goes to the run's shard alone. */
interface RunScope {
  readonly projectId: string;
  readonly runId: string;
}

@injectable()
export class MongoLogRecordRepository implements LogRecordRepository {
  private readonly client: MongoClient;
  private readonly db: Db;
  private readonly records: Collection<StringIdDoc>;
  private readonly columns: Collection<{ _id: string; columns: string[] }>;
  private readonly runs: Collection<{ _id: string; projectId: string }>;
  /** A run's session of each external id that ingest has asked for (findOrCreateSession): `_id` is `<run id>:<external id>`. */
  private readonly sessionKeys: Collection<{ _id: string; projectId: string; runId: string; sessionId: string }>;
  private readonly jobs: Collection<JobDoc>;

  constructor(@inject(MongoDatabaseToken) database: MongoDatabase) {
    this.client = database.client;
    this.db = database.db;
    this.records = database.db.collection('log_records');
    this.columns = database.db.collection('run_columns');
    this.runs = database.db.collection('runs');
    this.sessionKeys = database.db.collection('session_keys');
    this.jobs = database.db.collection('scoring_jobs');
  }

  /**
   * One session per run and external id, by a document keyed by both (session_keys) written in the
   * transaction that stores the session: of concurrent calls naming a new external id, on any process,
   * one inserts the key and the others conflict with it (a write conflict, retried by the driver, or a
   * duplicate key once it has committed, retried here) and then find it. A run's sessions stored
   * before with that external id (POST …/sessions, or before the key was kept) are found too: the
   * oldest is the one keyed. A key whose session has gone (retention) has its session made again
   * under its id.
   */
  findOrCreateSession(runId: RunId, candidate: LogRecord): Result<LogRecord> {
    return run(async () => {
      const scope = { projectId: candidate.projectId, runId };
      if (!(await runExists(this.db, runId, scope.projectId))) throw new Abort(notFound('run', runId));
      const key = `${runId}:${candidate.externalId ?? ''}`;
      const attempt = () =>
        inTransaction(this.client, async (session) => {
          const keyed = await this.sessionKeys.findOne({ _id: key }, { session });
          const existing = keyed
            ? await this.records.findOne({ ...scope, _id: recordKey(runId, keyed.sessionId), type: 'session' }, { session })
            : await this.records
                .find({ ...scope, type: 'session', externalId: candidate.externalId }, { session })
                .sort({ createdAt: 1, createdAtMicros: 1, _id: 1 })
                .limit(1)
                .next();
          const stored = existing === null ? undefined : recordFromDocument(existing);
          const chosen = stored ?? (keyed ? { ...candidate, id: keyed.sessionId, sessionId: keyed.sessionId } : candidate);
          if (stored === undefined) await this.store(runId, [chosen], presentColumns(chosen), session);
          if (!keyed) await this.sessionKeys.insertOne({ _id: key, ...scope, sessionId: chosen.id }, { session });
          return chosen;
        });
      let chosen: LogRecord;
      try {
        chosen = await attempt();
      } catch (e) {
        // Another call committed the key first: its session is the one.
        if (!isDuplicateKey(e)) throw e;
        chosen = await attempt();
      }
      // As ingest: a run deleted meanwhile takes what this wrote with it.
      if (!(await runExists(this.db, runId, scope.projectId))) {
        await removeRunData(this.db, [runId], scope.projectId);
        throw new Abort(notFound('run', runId));
      }
      return chosen;
    });
  }

  update(runId: RunId, id: string, target: PatchTarget, patch: RecordPatch, now: Date, jobs: ReadonlyArray<NewScoringJob> = []): Result<LogRecord> {
    return run(async () => {
      const runDoc = await this.runs.findOne({ _id: runId }, { projection: { projectId: 1 } });
      const projectId = runDoc?.projectId;
      if (projectId === undefined || !(await projectExists(this.db, projectId))) throw new Abort(notFound('run', runId));
      const scope = { projectId, runId };
      // Read and written back in one transaction: a concurrent update of the record conflicts, and the
      // driver runs this again on what the other wrote.
      const updated = await inTransaction(this.client, async (session) => {
        const found = await this.records.findOne({ ...scope, _id: recordKey(runId, id) }, { session });
        const stored = found === null ? undefined : recordFromDocument(found);
        if (stored === undefined || !isPatchTarget(stored, target)) throw new Abort(notFound(target, id));
        const next = applyRecordPatch(stored, patch, now);
        await this.store(runId, [next], presentColumns(next), session, jobs.filter((j) => j.recordId === id), 'patch');
        // As stored: the entries the write made (pending for its jobs, earlier results dropped).
        const written = await this.records.findOne({ ...scope, _id: recordKey(runId, id) }, { session });
        return written === null ? next : recordFromDocument(written);
      });
      if (!(await runExists(this.db, runId, projectId))) {
        await removeRunData(this.db, [runId], projectId);
        throw new Abort(notFound('run', runId));
      }
      return updated;
    });
  }

  ingest(runId: RunId, records: ReadonlyArray<LogRecord>, presentColumns: ReadonlyArray<string>, jobs: ReadonlyArray<NewScoringJob> = []): Result<void> {
    return run(async () => {
      // A run already gone (its project retired, its purge to come) is not written to: what it holds
      // stays as it is until the purge. One going meanwhile is caught after the commit, below.
      if (!(await runExists(this.db, runId, records[0]?.projectId))) throw new Abort(notFound('run', runId));
      // The outbox: the records' scoring jobs in their transaction.
      const now = new Date();
      await inTransaction(this.client, async (session) => {
        await this.store(runId, records, presentColumns, session, jobs, 'ingest', now);
      });
      await this.linkAgain(runId, records);
      // The run deleted meanwhile (its project was): what this wrote goes again, and nothing of the
      // run stays (run-removal.ts). Read after the commit, as a deletion removes the run first; and
      // for an ingest that wrote nothing too, which answers NotFound for a run that is not there, as SQLite's.
      if (!(await runExists(this.db, runId, records[0]?.projectId))) {
        await removeRunData(this.db, [runId], records[0]?.projectId);
        throw new Abort(notFound('run', runId));
      }
    }, 'a record of this request names another run or project than it was sent to');
  }

  ingestIntoNewRun(newRun: Run, records: ReadonlyArray<LogRecord>, presentColumns: ReadonlyArray<string>): Result<void> {
    return run(async () => {
      // A project already gone (retired, its purge to come) takes no new run; one going meanwhile is
      // caught after the commit, below.
      if (!(await projectExists(this.db, newRun.projectId))) throw new Abort(notFound('project', newRun.projectId));
      // The run in the records' transaction: a refused ingest (no room, say) leaves no run behind. The
      // runs' unique index (project, kind, name) makes a run created meanwhile a duplicate key: Conflict.
      await inTransaction(this.client, async (session) => {
        await this.runs.insertOne(toDoc(newRun), { session });
        await this.store(newRun.id, records, presentColumns, session);
      });
      await this.linkAgain(newRun.id, records);
      // The project deleted meanwhile: the run goes again, first, then what it held, as for a run
      // inserted alone (MongoRunRepository.insert, run-removal.ts).
      if (!(await projectExists(this.db, newRun.projectId))) {
        await this.runs.deleteOne({ _id: newRun.id, projectId: newRun.projectId });
        await removeRunData(this.db, [newRun.id], newRun.projectId);
        throw new Abort(notFound('project', newRun.projectId));
      }
    }, runNameTaken(newRun));
  }

  /**
   * The records, their scoring jobs (as scoringOnWrite says of each: `write` says how it was made) and
   * the run's new columns, inside the caller's transaction.
   */
  private async store(
    runId: RunId,
    records: ReadonlyArray<LogRecord>,
    presentColumns: ReadonlyArray<string>,
    session: ClientSession,
    sentJobs: ReadonlyArray<NewScoringJob> = [],
    write: 'ingest' | 'patch' = 'ingest',
    now: Date = new Date(),
  ): Promise<void> {
    const { parents: formerParents, scored, stored } = await this.parentsOf(runId, records, session);
    const { jobs, afresh } = await this.scoringOf(runId, records, stored, sentJobs, write, session);
    const pending = pendingByRecord(jobs, encodeMetricKey);
    const rootKeys = await this.rootKeysOf(runId, records, session);
    const replacing = records.filter((r) => r.otelRootKey === undefined || replacesStoredRecord(r, rootKeys.get(r.id)));
    if (replacing.length > 0)
      await this.records.bulkWrite(
        // A retry replaces its own record. The run and project too: with a sharded collection, an
        // upsert names the whole shard key.
        replacing.map((r) => {
          const d = keepScoring(recordToDocument(r), scored.get(r.id), pending.get(r.id), afresh.has(r.id));
          return { replaceOne: { filter: { _id: d._id, runId: d.runId, projectId: d.projectId }, replacement: d, upsert: true } };
        }),
        { session, ordered: true },
      );
    await this.link(runId, records, session);
    await this.unlinkLeft(runId, records, formerParents, session);
    // Written only when a column is new to the run: every ingest writing the run's one presence
    // document made concurrent ingests into a run conflict (WriteConflict, each retried whole),
    // where reading it does not.
    if (presentColumns.length > 0) {
      const known = await this.columns.findOne({ _id: runId }, { session, projection: { columns: 1 } });
      const have = new Set(known?.columns ?? []);
      const added = presentColumns.filter((c) => !have.has(c));
      if (added.length > 0) await this.columns.updateOne({ _id: runId }, { $addToSet: { columns: { $each: added } } }, { upsert: true, session });
    }
    // The outbox: the records' scoring jobs in their transaction.
    if (jobs.length > 0) {
      await rescoreJobs(this.jobs, jobs.filter((j) => afresh.has(j.recordId)), now, session);
      await insertNewJobs(this.jobs, jobs, now, session);
    }
  }

  /**
   * What the write does with the jobs sent (scoringOnWrite): the jobs to store, and the records scored
   * afresh. A record stored before (`stored`: their ids) is read whole to see whether what its scorers
   * read changed (a retry, or a record completed later: not the ingest's usual path, which stores new records).
   */
  private async scoringOf(
    runId: RunId,
    records: ReadonlyArray<LogRecord>,
    stored: ReadonlySet<string>,
    sent: ReadonlyArray<NewScoringJob>,
    write: 'ingest' | 'patch',
    session: ClientSession,
  ): Promise<{ readonly jobs: ReadonlyArray<NewScoringJob>; readonly afresh: ReadonlySet<string> }> {
    const afresh = new Set<string>();
    if (sent.length === 0) return { jobs: sent, afresh };
    const scored = new Set(sent.map((j) => j.recordId));
    const before = new Map<string, LogRecord>();
    const storedScored = [...stored].filter((id) => scored.has(id));
    const projectId = records[0]?.projectId;
    if (storedScored.length > 0 && projectId !== undefined)
      for (const d of await this.records.find({ projectId, runId, _id: { $in: storedScored.map((id) => recordKey(runId, id)) } }, { session }).toArray()) {
        const was = recordFromDocument(d);
        before.set(was.id, was);
      }
    const none = new Set<string>();
    for (const r of records) {
      if (!scored.has(r.id)) continue;
      const was = before.get(r.id);
      const decision = was === undefined ? (isReadyToScore(r) ? 'missing' : 'none') : scoringOnWrite(was, r, write);
      if (decision === 'none') none.add(r.id);
      else if (decision === 'afresh') afresh.add(r.id);
    }
    return { jobs: none.size === 0 ? sent : sent.filter((j) => !none.has(j.recordId)), afresh };
  }

  /**
   * Once more after the commit. A transaction reads a snapshot: a child and its parent committed by
   * two concurrent ingests each miss the other, write different documents, and both commit. Each
   * ingest links again once its own commit is acknowledged (w: majority) and reads majority-committed
   * data: whichever of the two links last sees both commits.
   */
  private async linkAgain(runId: RunId, records: ReadonlyArray<LogRecord>): Promise<void> {
    if (records.length > 0) await this.link(runId, records);
  }

  /**
   * Out of order: a parent stored earlier learns of its new children; a parent arriving late finds its
   * own. Within the run only: a parent id names a record of the same run.
   */
  private async link(runId: RunId, records: ReadonlyArray<LogRecord>, session?: ClientSession): Promise<void> {
    const projectId = records[0]?.projectId;
    if (projectId === undefined) return;
    const options = session ? { session } : {};
    // The project and run too: on a sharded collection the shard key's prefix sends each query to the
    // run's shard alone.
    const scope = { projectId, runId };
    const parents = [...new Set(records.flatMap((r) => (r.parentId ? [recordKey(runId, r.parentId)] : [])))];
    if (parents.length > 0) await this.records.updateMany({ ...scope, _id: { $in: parents }, hasChildren: false }, { $set: { hasChildren: true } }, options);
    await this.markNamedParents(scope, records.filter((r) => !r.hasChildren).map((r) => r.id), session);
  }

  /** Of these records of the run (by id), those a record of the run names as parent get hasChildren. */
  private async markNamedParents(scope: RunScope, ids: ReadonlyArray<string>, session?: ClientSession): Promise<void> {
    if (ids.length === 0) return;
    const options = session ? { session } : {};
    const withChildren = (await this.namedParents(scope, ids, session)).map((id) => recordKey(scope.runId, id));
    if (withChildren.length > 0)
      await this.records.updateMany({ ...scope, _id: { $in: withChildren }, hasChildren: false }, { $set: { hasChildren: true } }, options);
  }

  /** Of these records of the run (by id), those no record of the run names as parent lose hasChildren. */
  private async unmarkChildless(scope: RunScope, ids: ReadonlyArray<string>, session: ClientSession): Promise<void> {
    if (ids.length === 0) return;
    const still = new Set(await this.namedParents(scope, ids, session));
    const childless = ids.filter((p) => !still.has(p)).map((p) => recordKey(scope.runId, p));
    if (childless.length > 0) await this.records.updateMany({ ...scope, _id: { $in: childless }, hasChildren: true }, { $set: { hasChildren: false } }, { session });
  }

  /** The ids among these that a record of the run names as its parent, found by (runId, parentId). */
  private async namedParents(scope: RunScope, ids: ReadonlyArray<string>, session?: ClientSession): Promise<string[]> {
    // An aggregation, not `distinct`, which a transaction on a sharded collection refuses.
    const found = await this.records
      .aggregate<{ _id: string }>([{ $match: { ...scope, parentId: { $in: ids } } }, { $group: { _id: '$parentId' } }], session ? { session } : {})
      .toArray();
    return found.map((d) => d._id);
  }

  /**
   * Record id → otelRootKey, of the stored trace records that these records with a key would replace
   * (replacesStoredRecord decides whether they do). Read in the transaction that writes them: two
   * ingests writing one trace record conflict, and the one retried reads the other's key. One that
   * keeps the stored record because its root started later stays right when another ingest meanwhile
   * stores a root that started earlier still.
   */
  private async rootKeysOf(runId: RunId, records: ReadonlyArray<LogRecord>, session: ClientSession): Promise<ReadonlyMap<string, string>> {
    const projectId = records[0]?.projectId;
    const keys = records.flatMap((r) => (r.otelRootKey === undefined ? [] : [recordKey(runId, r.id)]));
    if (projectId === undefined || keys.length === 0) return new Map();
    const found = await this.records.find({ projectId, runId, _id: { $in: keys }, otelRootKey: { $type: 'string' } }, { projection: { otelRootKey: 1 }, session }).toArray();
    return new Map(found.map((d) => [d._id.slice(runId.length + 1), d['otelRootKey'] as string]));
  }

  /**
   * The parents these records had, if they were stored before (read before they are replaced), and the ids of those stored; and a
   * record of another kind stored under one of their ids refuses the ingest (kindClash, thrown as Abort,
   * which ends the transaction with nothing written).
   */
  private async parentsOf(
    runId: RunId,
    records: ReadonlyArray<LogRecord>,
    session: ClientSession,
  ): Promise<{ readonly parents: ReadonlyArray<string>; readonly scored: ReadonlyMap<string, Readonly<Record<string, MetricInfo>>>; readonly stored: ReadonlySet<string> }> {
    const projectId = records[0]?.projectId;
    if (projectId === undefined) return { parents: [], scored: new Map(), stored: new Set() };
    const keys = records.map((r) => recordKey(runId, r.id));
    const found = await this.records.find({ projectId, runId, _id: { $in: keys } }, { projection: { type: 1, parentId: 1, metricInfo: 1 }, session }).toArray();
    if (found.length === 0) return { parents: [], scored: new Map(), stored: new Set() };
    // What scorers wrote on the stored records (encoded keys, as stored), kept when they are replaced.
    const scored = new Map<string, Readonly<Record<string, MetricInfo>>>();
    for (const d of found) {
      const info = d['metricInfo'];
      if (typeof info === 'object' && info !== null && Object.keys(info).length > 0) scored.set(String(d['_id']).slice(runId.length + 1), info as Record<string, MetricInfo>);
    }
    // Found by recordKey: the record's id follows the run's and a colon (as rootKeysOf reads it).
    const stored = found.map((d) => ({ id: String(d['_id']).slice(runId.length + 1), type: d['type'] as NodeType, parentId: d['parentId'] }));
    const clash = firstKindClash(stored, new Map(records.map((r) => [r.id, r.type])));
    if (clash !== undefined) throw new Abort(clash);
    return { parents: [...new Set(stored.flatMap((r) => (typeof r.parentId === 'string' ? [r.parentId] : [])))], scored, stored: new Set(stored.map((r) => r.id)) };
  }

  findByIds(runId: RunId, ids: ReadonlyArray<string>): Result<ReadonlyArray<LogRecord>> {
    return run(async () => {
      if (ids.length === 0) return [];
      // The run's project too, for the shard key's prefix: read from the run (a record names it).
      const runDoc = await this.runs.findOne({ _id: runId }, { projection: { projectId: 1 } });
      if (runDoc === null) return [];
      const found = await this.records.find({ projectId: runDoc.projectId, runId, _id: { $in: ids.map((id) => recordKey(runId, id)) } }).toArray();
      return found.map(recordFromDocument);
    });
  }

  listKeys(runId: RunId, q: RecordKeyQuery): Result<ReadonlyArray<RecordKey>> {
    return run(async () => {
      const createdAt: Record<string, Date> = {};
      if (q.createdAfter !== undefined) createdAt['$gte'] = q.createdAfter;
      if (q.createdBefore !== undefined) createdAt['$lt'] = q.createdBefore;
      const filter: Filter<StringIdDoc> = {
        runId,
        isTrace: { $in: [false, true] },
        type: { $in: [...q.types] },
        ...(Object.keys(createdAt).length > 0 ? { createdAt } : {}),
        ...(q.after !== undefined
          ? { $or: [{ createdAt: { $gt: q.after.createdAt } }, { createdAt: q.after.createdAt, _id: { $gt: recordKey(runId, q.after.id) } }] }
          : {}),
      };
      const found = await this.records
        .find(filter, { projection: { recordId: 1, type: 1, traceId: 1, runId: 1, projectId: 1, createdAt: 1, isComplete: 1 } })
        .sort({ createdAt: 1, _id: 1 })
        .limit(q.limit)
        .toArray();
      return found.map((d) => ({
        id: String(d['recordId']),
        type: d['type'] as NodeType,
        traceId: (d['traceId'] as string | null | undefined) ?? null,
        runId: d['runId'] as RunId,
        projectId: d['projectId'] as ProjectId,
        createdAt: d['createdAt'] as Date,
        isComplete: d['isComplete'] === true,
      }));
    });
  }

  /**
   * A record sent again under another parent (or none) leaves its former parent: that one keeps
   * hasChildren only while another child still names it.
   */
  private async unlinkLeft(runId: RunId, records: ReadonlyArray<LogRecord>, formerParents: ReadonlyArray<string>, session: ClientSession): Promise<void> {
    const projectId = records[0]?.projectId;
    const parents = new Set(records.flatMap((r) => (r.parentId ? [r.parentId] : [])));
    if (projectId === undefined) return;
    await this.unmarkChildless({ projectId, runId }, formerParents.filter((p) => !parents.has(p)), session);
  }

  presentColumns(runId: RunId): Result<ReadonlySet<string>> {
    return run(async () => new Set((await this.columns.findOne({ _id: runId }))?.columns ?? []));
  }

  removeCreatedBefore(cutoff: Date, limit: number): Result<number> {
    return run(async () => {
      let removed = 0;
      // Run by run, through the (runId, isTrace, createdAt) index and with the shard key's prefix
      // (project, run): each query reads only old records, on the run's own shard. Each run's share is
      // a transaction of its own (removeOldOf); a sweep stopped midway is taken up by the next.
      for await (const { _id: runId, projectId } of this.runs.find({}, { projection: { _id: 1, projectId: 1 } })) {
        if (removed >= limit) break;
        const old = { projectId, runId, isTrace: { $in: [false, true] }, createdAt: { $lt: cutoff } };
        // Most runs have none: found out by one read, outside any transaction.
        if ((await this.records.findOne(old, { projection: { _id: 1 } })) === null) continue;
        removed += await this.removeOldOf({ projectId, runId }, old, limit - removed);
      }
      return removed;
    });
  }

  /**
   * At most `limit` of the run's old records go, in one transaction with what they leave behind, as on
   * SQLite: a parent that stays keeps hasChildren only while another child still names it (as after
   * ingest, unlinkLeft).
   */
  private async removeOldOf(scope: RunScope, old: Filter<StringIdDoc>, limit: number): Promise<number> {
    let removed = 0;
    let left: string[] = [];
    // The callback may run again (a transient error): each attempt starts over.
    await inTransaction(this.client, async (session) => {
      const found = await this.records.find(old, { projection: { _id: 1, parentId: 1 }, session }).limit(limit).toArray();
      removed = found.length === 0 ? 0 : (await this.records.deleteMany({ ...scope, _id: { $in: found.map((d) => d._id) } }, { session })).deletedCount;
      // A removed record's jobs go with it (their outcome would have nowhere to go).
      if (found.length > 0)
        await this.jobs.deleteMany({ runId: scope.runId, recordId: { $in: found.map((d) => d._id.slice(scope.runId.length + 1)) } }, { session });
      left = [...new Set(found.flatMap((d) => (typeof d['parentId'] === 'string' ? [d['parentId']] : [])))];
      await this.unmarkChildless(scope, left, session);
    });
    // Once more after the commit, as ingest links after its own. A transaction reads a snapshot: a child
    // ingested meanwhile under one of these parents is missed by this one, and the ingest's own link
    // saw the parent still marked. Whichever of the two looks last, on majority-committed data, sees both.
    await this.markNamedParents(scope, left);
    return removed;
  }

  search(q: RecordQuery): Result<FoundPage<LogRecord>> {
    return run(async () => {
      const filter: Filter<StringIdDoc> = {
        projectId: q.projectId,
        runId: q.runId,
        isTrace: q.scope === 'traces',
        ...(q.scope === 'spans' ? { type: { $ne: 'session' } } : q.scope === 'sessions' ? { type: 'session' } : {}),
        ...(q.filters.length > 0 ? { $and: q.filters.map(condition) } : {}),
        ...(q.after !== undefined ? keyset(q, q.after) : {}),
      };
      // No budget left: MongoDB checks a time limit only now and then, so a small search would answer.
      if (q.maxMs <= 0) throw new Abort(searchTimedOut(q.maxMs));
      // The server stops the search at its time budget (0 would mean none to MongoDB; Infinity is none).
      // A sort no index serves is made in memory, where MongoDB before 6.0 refuses one past 100 MB (a deep
      // page, or large records) unless it may spill to disk, as 6.0 and later do by default.
      const hint = leadingIndex(q.filters);
      const options = { allowDiskUse: true, ...(Number.isFinite(q.maxMs) ? { maxTimeMS: Math.ceil(q.maxMs) } : {}), ...(hint === undefined ? {} : { hint }) };
      // Unsorted: newest first.
      const column = q.sort?.columnId ?? 'created_at';
      const dir = q.sort?.ascending ? 1 : -1;
      const order = sortOf(column, dir);
      // By id: the run's range of `_id` (`<run id>:<record id>`; `;` follows `:`), so that its index gives
      // the order, where the runId alone left a scan of the whole index or a sort of the run in memory.
      if (column === 'id') filter['_id'] = { $gte: `${q.runId}:`, $lt: `${q.runId};` };
      const cursor =
        order !== undefined
          ? this.records.find(filter, options).sort(order).skip(q.page.startingToken).limit(q.page.limit + 1)
          : this.records.aggregate(
              [
                { $match: filter },
                // As SQLite orders them: records without the value last in either direction, then the id.
                { $addFields: { [MISSING]: { $cond: [isAbsent(field(column)), 1, 0] } } },
                { $sort: { [MISSING]: 1, [field(column)]: dir, _id: dir } },
                { $skip: q.page.startingToken },
                { $limit: q.page.limit + 1 },
                { $project: { [MISSING]: 0 } },
              ],
              options,
            );
      // Document by document (the driver fetches in batches), so a page of large records stops at its
      // budget instead of being read whole.
      try {
        return await takePageAsync(cursor, { limit: q.page.limit, maxBytes: q.maxBytes, sizeOf: storedSize }, recordFromDocument);
      } catch (e) {
        throw isTimeLimit(e) ? new Abort(searchTimedOut(q.maxMs)) : e;
      } finally {
        await cursor.close();
      }
    });
  }
}
