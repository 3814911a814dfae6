import type { RefreshFamily, RefreshFamilyId } from '@tracelight/domain';
import type { RefreshFamilyRepository, Result } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import { run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';
import { refreshFamilyFromRow, refreshFamilyToRow } from './identity.mapper';

@injectable()
export class SqliteRefreshFamilyRepository implements RefreshFamilyRepository {
  private readonly insertStmt;
  private readonly byId;
  private readonly rotateStmt;
  private readonly revokeStmt;
  private readonly removeEndedStmt;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.insertStmt = db.prepare(
      `INSERT INTO refresh_families (id, user_id, started_at, api_key_id, generation, rotated_at, revoked_at, expires_at)
       VALUES (@id, @user_id, @started_at, @api_key_id, @generation, @rotated_at, @revoked_at, @expires_at)`,
    );
    this.byId = db.prepare('SELECT * FROM refresh_families WHERE id = ?');
    // The compare-and-set: one statement, so whichever connection or process runs it second (SQLite has
    // one writer at a time) finds the generation moved on and changes nothing.
    this.rotateStmt = db.prepare(
      'UPDATE refresh_families SET generation = generation + 1, rotated_at = @at WHERE id = @id AND generation = @from AND revoked_at IS NULL RETURNING *',
    );
    this.revokeStmt = db.prepare('UPDATE refresh_families SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
    this.removeEndedStmt = db.prepare(
      'DELETE FROM refresh_families WHERE rowid IN (SELECT rowid FROM refresh_families WHERE expires_at < ? LIMIT ?)',
    );
  }

  insert(family: RefreshFamily): Result<RefreshFamily> {
    return run(() => {
      this.insertStmt.run(refreshFamilyToRow(family));
      return family;
    }, 'refresh family already exists');
  }

  findById(id: RefreshFamilyId): Result<O.Option<RefreshFamily>> {
    return run(() => O.map(refreshFamilyFromRow)(O.fromNullable(this.byId.get(id))));
  }

  rotate(id: RefreshFamilyId, from: number, at: Date): Result<O.Option<RefreshFamily>> {
    return run(() => O.map(refreshFamilyFromRow)(O.fromNullable(this.rotateStmt.get({ id, from, at: at.getTime() }))));
  }

  revoke(id: RefreshFamilyId, at: Date): Result<void> {
    return run(() => void this.revokeStmt.run(at.getTime(), id));
  }

  removeEndedBefore(before: Date, limit: number): Result<number> {
    return run(() => this.removeEndedStmt.run(before.getTime(), limit).changes);
  }
}
