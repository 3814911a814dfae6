// One MongoClient per process; collections and indexes set up by versioned, idempotent migrations.
import { type Db, MongoClient } from 'mongodb';
import { MIGRATIONS, type MongoMigration } from './migrations';

export interface MongoOptions {
  readonly url: string;
  /** How long to wait for a usable server before failing an operation (the driver's default is 30 s). */
  readonly serverSelectionTimeoutMS?: number;
  /** Overrides the database named in the URL path (default `tracelight`). */
  readonly databaseName?: string;
}

export class MongoDatabase {
  readonly client: MongoClient;
  readonly db: Db;

  constructor(options: MongoOptions) {
    this.client = new MongoClient(options.url, {
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 10_000,
      // An acknowledged write is on a majority of the replica set: it survives a primary failover. A
      // set that has lost its majority fails the write after 10 s (a 503) instead of holding it forever.
      writeConcern: { w: 'majority', wtimeoutMS: 10_000 },
      // Reads see only majority-committed data, so a read never shows a write that may roll back.
      readConcern: { level: 'majority' },
      // Optional domain fields that are absent stay absent instead of becoming null.
      ignoreUndefined: true,
    });
    this.db = this.client.db(options.databaseName ?? (databaseFromUrl(options.url) || 'tracelight'));
  }

  /**
   * Connects, checks the deployment can run transactions, and applies pending migrations. Call once
   * before serving.
   */
  async connect(migrations: ReadonlyArray<MongoMigration> = MIGRATIONS): Promise<void> {
    await this.client.connect();
    // A standalone server refuses transactions, which every ingest and version append uses: refuse to
    // start, with the way out, rather than serve and answer 503 to every ingest.
    const hello = await this.client.db('admin').command({ hello: 1 });
    if (typeof hello['setName'] !== 'string' && hello['msg'] !== 'isdbgrid')
      throw new Error(
        'MongoDB is a standalone server: Tracelight needs a replica set (or a sharded cluster) for transactions. ' +
          'A single node will do: start mongod with --replSet rs0 and run rs.initiate() once.',
      );
    const applied = this.db.collection<{ _id: number; name: string; appliedAt: Date }>('schema_migrations');
    const done = new Set((await applied.find({}).toArray()).map((m) => m._id));
    const known = Math.max(0, ...migrations.map((m) => m.version));
    const newest = Math.max(0, ...done);
    if (newest > known)
      throw new Error(`the database is at schema version ${newest}, newer than this build knows (${known}): upgrade Tracelight`);
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      await m.up(this.db); // idempotent: createIndex with the same spec is a no-op
      await applied.updateOne({ _id: m.version }, { $setOnInsert: { name: m.name, appliedAt: new Date() } }, { upsert: true });
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
export const MongoDatabaseToken = Symbol.for('tracelight.MongoDatabase');

const databaseFromUrl = (url: string): string => {
  const m = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]*)/.exec(url);
  return m?.[1] ? decodeURIComponent(m[1]) : '';
};
