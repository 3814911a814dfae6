// One MongoClient per process; collections and indexes set up by versioned, idempotent migrations.
import { randomUUID } from 'node:crypto';
import { type Db, MongoClient } from 'mongodb';
import { MIGRATIONS, type MongoMigration } from './migrations';
import { isDuplicateKey } from './run';

export interface MongoOptions {
  readonly url: string;
  /**
   * How long to wait for a usable server before failing an operation: this, else the URL's
   * `serverSelectionTimeoutMS`, else 10 s (the driver's default is 30 s).
   */
  readonly serverSelectionTimeoutMS?: number;
  /** Overrides the database named in the URL path (default `tracelight`). */
  readonly databaseName?: string;
}

interface MigrationLease {
  readonly _id: string;
  readonly owner: string;
  readonly expiresAt: Date;
}
const LEASE_ID = 'migrations';
/** How long a migration lease lasts unless renewed (it is renewed every quarter of this). */
export const MIGRATION_LEASE_MS = 60_000;
const MIGRATION_LEASE_POLL_MS = 250;

export class MongoDatabase {
  readonly client: MongoClient;
  readonly db: Db;

  constructor(options: MongoOptions) {
    // The driver takes an option given here over the URL's: the default is given only where the URL has none.
    const selection = options.serverSelectionTimeoutMS ?? (urlOption(options.url, 'serverSelectionTimeoutMS') === undefined ? 10_000 : undefined);
    this.client = new MongoClient(options.url, {
      ...(selection === undefined ? {} : { serverSelectionTimeoutMS: selection }),
      // An acknowledged write is on a majority of the replica set: it survives a primary failover. A
      // set that has lost its majority fails the write after 10 s (a 503) instead of holding it forever;
      // a transaction's commit the driver retries on such a timeout, for up to 120 s (see docs/storage.md).
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
    await this.holdingMigrationLease(async () => {
      const applied = this.db.collection<{ _id: number; name: string; appliedAt: Date }>('schema_migrations');
      const done = new Set((await applied.find({}).toArray()).map((m) => m._id));
      const known = Math.max(0, ...migrations.map((m) => m.version));
      const newest = Math.max(0, ...done);
      if (newest > known)
        throw new Error(`the database is at schema version ${newest}, newer than this build knows (${known}): upgrade Tracelight`);
      for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
        if (done.has(m.version)) continue;
        try {
          await m.up(this.db); // idempotent, and resumable where it moves data (migration 5)
        } catch (e) {
          // Named, so that a start that fails says which step of the upgrade did.
          throw new Error(`migration ${m.version} (${m.name}) failed: ${(e as Error).message}`, { cause: e });
        }
        await applied.updateOne({ _id: m.version }, { $setOnInsert: { name: m.name, appliedAt: new Date() } }, { upsert: true });
      }
    });
  }

  /**
   * Runs `work` while this process holds the migration lease: one process at a time migrates, however
   * many start together; the others wait, then find the migrations applied. The lease is a document
   * renewed while the work runs, so a process that dies holding it keeps the others out for at most
   * MIGRATION_LEASE_MS (migrations are idempotent and resumable, so the next one goes on).
   */
  private async holdingMigrationLease(work: () => Promise<void>): Promise<void> {
    const leases = this.db.collection<MigrationLease>('schema_migration_lease');
    const owner = randomUUID();
    const lease = () => ({ $set: { owner, expiresAt: new Date(Date.now() + MIGRATION_LEASE_MS) } });
    for (;;) {
      try {
        // Takes the lease when there is none or it has expired; a live one makes the upsert's insert
        // collide on `_id`, which means: someone else is migrating.
        await leases.updateOne({ _id: LEASE_ID, expiresAt: { $lt: new Date() } }, lease(), { upsert: true });
        break;
      } catch (e) {
        if (!isDuplicateKey(e)) throw e;
      }
      await new Promise((resolve) => setTimeout(resolve, MIGRATION_LEASE_POLL_MS));
    }
    let renewal = Promise.resolve();
    const timer = setInterval(() => {
      renewal = leases.updateOne({ _id: LEASE_ID, owner }, lease()).then(
        () => undefined,
        () => undefined, // the next renewal tries again; the lease outlives a few failures
      );
    }, MIGRATION_LEASE_MS / 4);
    try {
      await work();
    } finally {
      clearInterval(timer);
      await renewal;
      await leases.deleteOne({ _id: LEASE_ID, owner }).catch(() => undefined); // else it expires
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
export const MongoDatabaseToken = Symbol.for('tracelight.MongoDatabase');

/** The value of a URL's option `name` (whose case the driver ignores), if the URL sets it. */
const urlOption = (url: string, name: string): string | undefined => {
  const query = url.split('?')[1] ?? '';
  const found = query.split('&').find((pair) => pair.split('=')[0]?.toLowerCase() === name.toLowerCase());
  return found?.split('=')[1];
};

const databaseFromUrl = (url: string): string => {
  const m = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]*)/.exec(url);
  return m?.[1] ? decodeURIComponent(m[1]) : '';
};
