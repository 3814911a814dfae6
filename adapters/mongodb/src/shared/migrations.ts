// Versioned set-up of collections and indexes. Append only. Unique indexes enforce what the domain
// relies on, so concurrent writers on several server processes cannot break it.
import { rekeyedId } from '@tracelight/domain';
import { type AnyBulkWriteOperation, BSON, type Collection, type Db, type Document, type Filter } from 'mongodb';

export interface MongoMigration {
  readonly version: number;
  readonly name: string;
  up(db: Db): Promise<void>;
}

export const MIGRATIONS: ReadonlyArray<MongoMigration> = [
  {
    version: 1,
    name: 'identity, projects, runs, insights, integrations, scorers',
    up: async (db) => {
      await db.collection('users').createIndex({ email: 1 }, { unique: true, name: 'users_email' });
      await db.collection('api_keys').createIndex({ keyHash: 1 }, { unique: true, name: 'api_keys_hash' });
      await db.collection('api_keys').createIndex({ userId: 1, createdAt: -1 }, { name: 'api_keys_by_user' });
      await db.collection('projects').createIndex({ createdBy: 1, name: 1 }, { unique: true, name: 'projects_owner_name' });
      await db.collection('runs').createIndex({ projectId: 1, kind: 1, name: 1 }, { unique: true, name: 'runs_project_kind_name' });
      await db.collection('integrations').createIndex({ createdBy: 1, provider: 1 }, { unique: true, name: 'integrations_owner_provider' });
      await db.collection('scorers').createIndex({ createdBy: 1, name: 1 }, { unique: true, name: 'scorers_owner_name' });
      await db.collection('scorer_versions').createIndex({ scorerId: 1, version: 1 }, { unique: true, name: 'scorer_versions_number' });
      await db.collection('scorer_versions').createIndex({ scorerId: 1, kind: 1, version: -1 }, { name: 'scorer_versions_by_kind' });
    },
  },
  {
    version: 2,
    name: 'log records and per-run column presence',
    up: async (db) => {
      await db.collection('log_records').createIndex({ runId: 1, isTrace: 1, createdAt: -1, _id: -1 }, { name: 'log_records_by_run_time' });
      await db.collection('log_records').createIndex({ traceId: 1 }, { name: 'log_records_by_trace' });
    },
  },
  {
    version: 3,
    name: 'find children by parent, to link records that arrive out of order',
    up: async (db) => {
      await db.collection('log_records').createIndex({ parentId: 1 }, { name: 'log_records_by_parent' });
    },
  },
  {
    version: 4,
    name: 'collections written inside transactions exist beforehand (a sharded cluster cannot create them there)',
    up: async (db) => {
      for (const name of ['run_columns', 'scorer_version_counters', 'scorer_versions', 'log_records']) {
        try {
          await db.createCollection(name);
        } catch (e) {
          if ((e as { code?: unknown }).code !== 48) throw e; // NamespaceExists: already there
        }
      }
    },
  },
  {
    version: 5,
    name: 'record ids are unique per run, not across every user (the same id in two runs is two documents)',
    // A record's _id becomes `<run id>:<record id>`, its id moving to `recordId`. _id cannot change in
    // place, so each record of the old form is written again under its new _id, then the old one
    // removed. Safe to run again from any point: what has no recordId is of the old form.
    up: async (db) => {
      type Old = Document & { _id: string };
      const records = db.collection<Old>('log_records');
      await records.createIndex({ runId: 1, recordId: 1 }, { name: 'log_records_by_run_id' });
      await records.createIndex({ runId: 1, traceId: 1 }, { name: 'log_records_by_run_trace' });
      await records.createIndex({ runId: 1, parentId: 1 }, { name: 'log_records_by_run_parent' });
      const target = (d: Old): string => `${String(d['runId'])}:${d._id}`;
      // An old _id can have the form of a new one (an id `<run id>:…` brought in by an import): a
      // record of the old form sitting on a target is moved first, so no record is overwritten and no
      // upsert meets a duplicate _id. It ends: each step's targets are longer than its _ids.
      const move = async (docs: ReadonlyArray<Old>): Promise<void> => {
        if (docs.length === 0) return;
        await move(await records.find({ _id: { $in: docs.map(target) }, recordId: { $exists: false } }).toArray());
        await records.bulkWrite(
          docs.map(({ _id, ...rest }): AnyBulkWriteOperation<Old> => {
            const key = `${String(rest['runId'])}:${_id}`;
            return { replaceOne: { filter: { _id: key, runId: rest['runId'], projectId: rest['projectId'] }, replacement: { _id: key, ...rest, recordId: _id }, upsert: true } };
          }),
          { ordered: false },
        );
        await records.deleteMany({ _id: { $in: docs.map((d) => d._id) }, recordId: { $exists: false } });
      };
      for (;;) {
        // At most 1,000 records or 16 MiB at a time: a record can be several MiB.
        const batch: Old[] = [];
        let bytes = 0;
        for await (const d of records.find({ recordId: { $exists: false } }, { batchSize: 100 })) {
          batch.push(d);
          bytes += BSON.calculateObjectSize(d);
          if (batch.length >= 1_000 || bytes >= 16 * 2 ** 20) break;
        }
        if (batch.length === 0) break;
        await move(batch);
      }
      for (const name of ['log_records_by_trace', 'log_records_by_parent']) {
        try {
          await records.dropIndex(name);
        } catch (e) {
          if ((e as { code?: unknown }).code !== 27) throw e; // IndexNotFound: already gone
        }
      }
    },
  },
  {
    version: 6,
    name: 'a deleted project is retired (its document replaced by one in project_deletions, in a transaction) and purged in the background',
    up: async (db) => {
      try {
        await db.createCollection('project_deletions');
      } catch (e) {
        if ((e as { code?: unknown }).code !== 48) throw e; // NamespaceExists: already there
      }
      await db.collection('project_deletions').createIndex({ retiredAt: 1, _id: 1 }, { name: 'project_deletions_by_time' });
    },
  },
  {
    version: 7,
    name: 'a string input or output is stored once, as its search copy (inputText/outputText)',
    // Nothing to rewrite: documents of the earlier form (both fields) read as they did. The version
    // marks the new form, so a build from before it, which would read such a record without its input,
    // refuses the database rather than serve it.
    up: async () => undefined,
  },
  {
    version: 8,
    name: 'refresh tokens are rotated: one refresh family per sign-in, its current generation, revoked when a spent token comes back',
    // Ended families are removed by the server's sweep, a batch at a time, found through their end.
    up: async (db) => {
      await db.collection('refresh_families').createIndex({ expiresAt: 1 }, { name: 'refresh_families_by_end' });
    },
  },
  {
    version: 9,
    name: 'an input or output other than a string is stored once, as its JSON text (inputText, marked by inputJson)',
    // Nothing to rewrite: documents of the earlier forms (the value beside its text) read as they did.
    // The version marks the new form, so a build from before it, which would read such a record's JSON
    // text as a string input, refuses the database rather than serve it.
    up: async () => undefined,
  },
  {
    version: 10,
    name: "a record's user and dataset metadata are stored as their JSON text",
    // Nothing to rewrite: metadata stored as a map reads as it did. The version marks the new form, so a
    // build from before it, which would find such a record's metadata corrupt, refuses the database.
    up: async () => undefined,
  },
  {
    version: 11,
    name: 'a scorer version is stored as its JSON text (body), beside its scorer, number and kind',
    // Nothing to rewrite: versions stored as fields read as they did. The version marks the new form, so
    // a build from before it, which would find such a version corrupt, refuses the database.
    up: async () => undefined,
  },
  {
    version: 12,
    name: 'a metric named _bsontype is stored as metrics.%5Fbsontype',
    // Nothing to rewrite: no document holds one (BSON refused it), and no name stored before holds `%5F`.
    // The version marks the new form, so a build from before it, which would read such a metric back
    // as one named `%5Fbsontype`, refuses the database.
    up: async () => undefined,
  },
  {
    version: 13,
    name: "a scorer stored with a threshold bucket past a double's range (infinity) loses that threshold, as on SQLite",
    // Such a bucket (1e400 sent, now refused 422) was stored as a BSON infinity and answered as null,
    // where the schema says a number. The threshold cannot be known again; the scorer stays. ($in matches
    // an element of the array; NaN matches NaN.)
    up: async (db) => {
      await db.collection('scorers').updateMany({ 'display.threshold.buckets': { $in: [Infinity, -Infinity, NaN] } }, { $unset: { 'display.threshold': '' } });
    },
  },
  {
    version: 14,
    name: 'ids made by earlier builds (UUIDv7) are re-keyed to the version-4 ids the server makes now (the same bits, version nibble 4)',
    // As SQLite's migration 10: every id the server made, and every field naming one, is re-keyed by
    // rekeyedId, a function of the id alone. A document whose _id changes is written again under its
    // new _id and the old one removed, in one transaction a batch at a time (a unique index, users'
    // emails say, sees the old one gone before the new one comes). Safe to run again from any point:
    // what is re-keyed no longer matches a version-7 id. Traces and spans keep their own (clients') ids.
    up: async (db) => {
      await rekeyIdDocuments(db, 'users', ['_id'], (d) => d);
      await rekeyIdDocuments(db, 'api_keys', ['_id', 'userId'], (d) => ({ ...d, userId: rekeyedOrSame(d['userId']) }));
      await rekeyIdDocuments(db, 'refresh_families', ['_id', 'userId', 'apiKeyId'], (d) => ({ ...d, userId: rekeyedOrSame(d['userId']), apiKeyId: rekeyedOrSame(d['apiKeyId']) }));
      for (const name of ['projects', 'project_deletions', 'integrations', 'scorers'])
        await rekeyIdDocuments(db, name, ['_id', 'createdBy'], (d) => ({ ...d, createdBy: rekeyedOrSame(d['createdBy']) }));
      await rekeyIdDocuments(db, 'scorer_versions', ['_id', 'scorerId'], rekeyedVersion);
      await rekeyIdDocuments(db, 'scorer_version_counters', ['_id'], (d) => d);
      // A run's records before the run (a run found again after a stop is taken up where it was).
      const records = db.collection<Document & { _id: string }>('log_records');
      const oldRuns = await records.aggregate<{ _id: string }>([{ $match: { runId: { $regex: V7_PATTERN } } }, { $group: { _id: '$runId' } }]).toArray();
      for (const { _id: runId } of oldRuns) {
        // The records naming a session of the run follow it (a session is the server's), then the run's
        // records move under its new id, the sessions' own ids re-keyed with them. A session whose
        // version-4 form a client already chose for a record of the run (predictable, so anyone could
        // plant it) keeps its version-7 id, and its records name it still: re-keyed, it would take that
        // record's _id. The run's records are looked for under both run ids: a stopped run of this
        // migration may have moved some of them.
        const newRun = rekeyedId(runId);
        const kept = new Set<string>();
        for await (const s of records.find({ runId, type: 'session', recordId: { $regex: V7_PATTERN } }, { projection: { recordId: 1 } })) {
          const id = String(s['recordId']);
          if ((await records.countDocuments({ runId: { $in: [runId, newRun] }, recordId: rekeyedId(id) }, { limit: 1 })) > 0) {
            kept.add(id);
            process.emitWarning(
              `migration 14: session ${id} of run ${runId} keeps its version-7 id: the run holds a record of id ${rekeyedId(id)}, its version-4 form`,
              'TracelightMigration',
            );
            continue;
          }
          await records.updateMany({ runId, type: { $ne: 'session' }, sessionId: id }, { $set: { sessionId: rekeyedId(id) } });
        }
        await moveDocuments(db, records, { runId }, (d) => {
          const session = d['type'] === 'session' && !kept.has(String(d['recordId']));
          const recordId = session ? rekeyedOrSame(d['recordId']) : d['recordId'];
          return {
            ...d,
            _id: `${newRun}:${String(recordId)}`,
            runId: newRun,
            projectId: rekeyedOrSame(d['projectId']),
            recordId,
            ...(session ? { sessionId: rekeyedOrSame(d['sessionId']) } : {}),
          };
        });
      }
      await rekeyIdDocuments(db, 'runs', ['_id', 'projectId', 'createdBy'], (d) => ({ ...d, projectId: rekeyedOrSame(d['projectId']), createdBy: rekeyedOrSame(d['createdBy']) }));
      for (const name of ['run_insights', 'run_columns']) await rekeyIdDocuments(db, name, ['_id'], (d) => d);
      await rekeyIdDocuments(db, 'run_scorer_settings', ['_id'], (d) => d);
      // Settings of a run already re-keyed still name scorers by their old ids.
      for await (const d of db.collection<Document & { _id: string }>('run_scorer_settings').find({ 'scorers.scorerId': { $regex: V7_PATTERN } }))
        await db.collection<Document & { _id: string }>('run_scorer_settings').updateOne({ _id: d._id }, { $set: { scorers: rekeyedScorers(d['scorers']) } });
    },
  },
  {
    version: 15,
    name: "a run's sessions are found by external id (session_keys), so that traces sent with session_external_id go into one session",
    // session_keys is written in transactions: created beforehand (a sharded cluster cannot create it in one).
    up: async (db) => {
      try {
        await db.createCollection('session_keys');
      } catch (e) {
        if ((e as { code?: unknown }).code !== 48) throw e; // NamespaceExists: already there
      }
      await db.collection('session_keys').createIndex({ runId: 1 }, { name: 'session_keys_by_run' });
      await db
        .collection('log_records')
        .createIndex({ runId: 1, type: 1, externalId: 1 }, { name: 'log_records_sessions_by_external_id', partialFilterExpression: { type: 'session' } });
    },
  },
  {
    version: 16,
    name: "records keep their time to the microsecond (createdAtMicros: the microseconds past createdAt's millisecond), and sort by it",
    // Records written before have none: 0, so that every record has the sort key the index orders by.
    up: async (db) => {
      const records = db.collection('log_records');
      await records.updateMany({ createdAtMicros: { $exists: false } }, { $set: { createdAtMicros: 0 } });
      await records.createIndex({ runId: 1, isTrace: 1, createdAt: -1, createdAtMicros: -1, _id: -1 }, { name: 'log_records_by_run_time_us' });
      try {
        await records.dropIndex('log_records_by_run_time');
      } catch (e) {
        if ((e as { code?: unknown }).code !== 27) throw e; // IndexNotFound: already gone
      }
    },
  },
  {
    version: 17,
    name: 'scoring: jobs written with the records that cause them, claimed under leases; each record keeps its scorers\' outcomes (metricInfo)',
    // dueAt is absent once a job has an outcome: the partial index holds only the jobs still to do.
    // scoring_jobs is written inside ingest transactions, so it exists beforehand (as migration 4 says).
    up: async (db) => {
      try {
        await db.createCollection('scoring_jobs');
      } catch (e) {
        if ((e as { code?: unknown }).code !== 48) throw e; // NamespaceExists: already there
      }
      const jobs = db.collection('scoring_jobs');
      await jobs.createIndex({ dueAt: 1, _id: 1 }, { name: 'scoring_jobs_due', partialFilterExpression: { dueAt: { $exists: true } } });
      await jobs.createIndex({ runId: 1, scorerId: 1, version: 1, state: 1 }, { name: 'scoring_jobs_by_scorer' });
      await jobs.createIndex({ runId: 1, recordId: 1 }, { name: 'scoring_jobs_by_record' });
      await db.collection('log_records').createIndex({ runId: 1, sessionId: 1 }, { name: 'log_records_by_run_session' });
    },
  },
  {
    version: 18,
    name: 'filters that match little are led by indexes: number columns, tags and metrics (a compound wildcard index), incomplete records',
    // MongoDB 7.0 and later (the supported versions) compound a run's equality with a wildcard over the
    // fields number, collection and metric filters compare: one index, where each field would take one
    // of its own and metrics (named by scorers) could have none. Arrays (tags) are indexed by element.
    // Incomplete records are few: a partial index holds them alone, in the order of the run's time index
    // (to the microsecond, migration 16), so that it serves a search's order as that index does. The
    // server's planner races the plans a query could take and keeps the one that finishes first: an index
    // for a value that matches little, the run's time index for one that matches much.
    up: async (db) => {
      const records = db.collection('log_records');
      await records.createIndex(
        { runId: 1, '$**': 1 },
        { name: 'log_records_by_run_values', wildcardProjection: { statusCode: 1, stepNumber: 1, 'attributes.temperature': 1, 'attributes.control_id': 1, tags: 1, metrics: 1 } },
      );
      await records.createIndex(
        { runId: 1, isTrace: 1, createdAt: -1, createdAtMicros: -1, _id: -1 },
        { name: 'log_records_incomplete', partialFilterExpression: { isComplete: false } },
      );
    },
  },
];

/** A version-7 id, as a query's regular expression (ids are stored lower-case). */
const V7_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$';

const rekeyedOrSame = (v: unknown): unknown => (typeof v === 'string' ? rekeyedId(v) : v);

const rekeyedScorers = (scorers: unknown): unknown =>
  Array.isArray(scorers) ? scorers.map((s: unknown) => (typeof s === 'object' && s !== null ? { ...s, scorerId: rekeyedOrSame((s as Record<string, unknown>)['scorerId']) } : s)) : scorers;

/** The id members of a scorer version: its own, its scorer's, its creator's, and those of the kind it holds. */
const rekeyedVersionFields = (v: Record<string, unknown>): Record<string, unknown> => {
  const inner = (k: string) => {
    const o = v[k];
    return typeof o === 'object' && o !== null ? { [k]: { ...o, id: rekeyedOrSame((o as Record<string, unknown>)['id']), createdBy: rekeyedOrSame((o as Record<string, unknown>)['createdBy']) } } : {};
  };
  return {
    ...v,
    ...('id' in v ? { id: rekeyedOrSame(v['id']) } : {}),
    ...('scorerId' in v ? { scorerId: rekeyedOrSame(v['scorerId']) } : {}),
    ...('createdBy' in v ? { createdBy: rekeyedOrSame(v['createdBy']) } : {}),
    ...inner('generatedScorer'),
    ...inner('registeredScorer'),
    ...inner('finetunedScorer'),
  };
};

/** A scorer version's document, of either form (its JSON text in `body`, or its fields, written earlier). */
const rekeyedVersion = (d: Document): Document => {
  const body = d['body'];
  if (typeof body === 'string') return { ...d, scorerId: rekeyedOrSame(d['scorerId']), body: JSON.stringify(rekeyedVersionFields(JSON.parse(body) as Record<string, unknown>)) };
  return rekeyedVersionFields(d);
};

/** Re-keys the collection's documents whose `fields` hold a version-7 id: `_id` by rekeyedId, the rest by `change`. */
const rekeyIdDocuments = (db: Db, name: string, fields: ReadonlyArray<string>, change: (d: Document) => Document): Promise<void> => {
  const collection = db.collection<Document & { _id: string }>(name);
  return moveDocuments(db, collection, { $or: fields.map((f) => ({ [f]: { $regex: V7_PATTERN } })) }, (d) => ({ ...change(d), _id: rekeyedOrSame(d._id) }));
};

/**
 * Rewrites the documents `filter` finds as `change` makes them (under a new `_id`, or the same), at
 * most 1,000 or 16 MiB at a time, each batch in one transaction: the old documents removed, the new
 * ones written. `change` must make a document the filter no longer finds.
 */
const moveDocuments = async (db: Db, collection: Collection<Document & { _id: string }>, filter: Filter<Document & { _id: string }>, change: (d: Document & { _id: string }) => Document): Promise<void> => {
  for (;;) {
    const batch: Array<Document & { _id: string }> = [];
    let bytes = 0;
    for await (const d of collection.find(filter, { batchSize: 100 })) {
      batch.push(d);
      bytes += BSON.calculateObjectSize(d);
      if (batch.length >= 1_000 || bytes >= 16 * 2 ** 20) break;
    }
    if (batch.length === 0) return;
    const session = db.client.startSession();
    try {
      await session.withTransaction(async () => {
        await collection.deleteMany({ _id: { $in: batch.map((d) => d._id) } }, { session });
        await collection.insertMany(batch.map(change) as Array<Document & { _id: string }>, { session, ordered: true });
      });
    } finally {
      await session.endSession();
    }
  }
};
