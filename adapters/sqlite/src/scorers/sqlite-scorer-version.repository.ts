import { type FoundPage, type PageRequest, type ScorerId, type ScorerVersion, type ScorerVersionKind, takePage, versionKind } from '@tracelight/domain';
import type { Result, ScorerVersionRepository } from '@tracelight/ports';
import type Database from 'better-sqlite3';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import { run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';
import { versionFromRow, versionToBody } from './scorer.mapper';

@injectable()
export class SqliteScorerVersionRepository implements ScorerVersionRepository {
  private readonly db: Database.Database;
  private readonly maxVersion;
  private readonly insertStmt;
  private readonly page;
  private readonly latest;
  private readonly latestOfKind;
  private readonly latestOfEach;
  private readonly byNumber;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.db = db;
    this.maxVersion = db.prepare('SELECT COALESCE(MAX(version), 0) FROM scorer_versions WHERE scorer_id = ?').pluck();
    this.insertStmt = db.prepare('INSERT INTO scorer_versions (id, scorer_id, version, kind, body) VALUES (?, ?, ?, ?, ?)');
    this.page = db.prepare('SELECT body FROM scorer_versions WHERE scorer_id = ? ORDER BY version LIMIT ? OFFSET ?');
    this.latest = db.prepare('SELECT body FROM scorer_versions WHERE scorer_id = ? ORDER BY version DESC LIMIT 1');
    this.latestOfKind = db.prepare('SELECT body FROM scorer_versions WHERE scorer_id = ? AND kind = ? ORDER BY version DESC LIMIT 1');
    this.byNumber = db.prepare('SELECT body FROM scorer_versions WHERE scorer_id = ? AND version = ?');
    // One statement for a whole list (ids as a JSON array); the unique (scorer_id, version) index finds each MAX.
    this.latestOfEach = db.prepare(
      `SELECT body FROM scorer_versions v WHERE scorer_id IN (SELECT value FROM json_each(?))
         AND version = (SELECT MAX(version) FROM scorer_versions WHERE scorer_id = v.scorer_id)`,
    );
  }

  appendNext(scorerId: ScorerId, build: (version: number) => ScorerVersion): Result<ScorerVersion> {
    // IMMEDIATE takes the write lock before reading MAX, so no other process can allocate the same number.
    const append = this.db.transaction(() => {
      const version = (this.maxVersion.get(scorerId) as number) + 1;
      const v = build(version);
      this.insertStmt.run(v.id, scorerId, version, versionKind(v), versionToBody(v));
      return v;
    });
    return run(() => append.immediate(), 'scorer version already exists');
  }

  /**
   * Stores a version already built under the next number, whatever number it was built with (only its
   * `version` changes), and returns it as stored: the writer thread's appendNext (see routeCalls). The
   * number is read in the write's own transaction, so a version that is refused takes none.
   */
  appendBuilt(scorerId: ScorerId, v: ScorerVersion): Result<ScorerVersion> {
    return this.appendNext(scorerId, (version) => ({ ...v, version }));
  }

  listFrom(scorerId: ScorerId, page: PageRequest, maxBytes: number): Result<FoundPage<ScorerVersion>> {
    return run(() => {
      const rows = this.page.iterate(scorerId, page.limit + 1, page.startingToken) as IterableIterator<{ body: string }>;
      return takePage(rows, { limit: page.limit, maxBytes, sizeOf: (row) => Buffer.byteLength(row.body) }, versionFromRow);
    });
  }

  findLatest(scorerId: ScorerId, kind?: ScorerVersionKind): Result<O.Option<ScorerVersion>> {
    return run(() =>
      O.map(versionFromRow)(O.fromNullable(kind ? this.latestOfKind.get(scorerId, kind) : this.latest.get(scorerId))),
    );
  }

  findLatestOfEach(scorerIds: ReadonlyArray<ScorerId>): Result<ReadonlyMap<ScorerId, ScorerVersion>> {
    return run(() => {
      const latest = new Map<ScorerId, ScorerVersion>();
      if (scorerIds.length === 0) return latest;
      for (const row of this.latestOfEach.iterate(JSON.stringify(scorerIds))) {
        const v = versionFromRow(row);
        latest.set(v.scorerId, v);
      }
      return latest;
    });
  }

  findByNumber(scorerId: ScorerId, version: number): Result<O.Option<ScorerVersion>> {
    return run(() => O.map(versionFromRow)(O.fromNullable(this.byNumber.get(scorerId, version))));
  }
}
