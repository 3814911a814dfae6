import { type User, type UserId, notFound } from '@tracelight/domain';
import type { Result, UserRepository } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import { Abort, run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';
import { userFromRow, userToRow } from './identity.mapper';

@injectable()
export class SqliteUserRepository implements UserRepository {
  private readonly insertStmt;
  private readonly byId;
  private readonly byEmail;
  private readonly countStmt;
  private readonly revokeStmt;
  private readonly rehashStmt;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.insertStmt = db.prepare(
      'INSERT INTO users (id, email, role, password_hash, created_at, updated_at, sessions_valid_from) VALUES (@id, @email, @role, @password_hash, @created_at, @updated_at, @sessions_valid_from)',
    );
    this.byId = db.prepare('SELECT * FROM users WHERE id = ?');
    this.byEmail = db.prepare('SELECT * FROM users WHERE email = ?');
    this.countStmt = db.prepare('SELECT COUNT(*) AS n FROM users').pluck();
    this.revokeStmt = db.prepare('UPDATE users SET sessions_valid_from = ?, updated_at = ? WHERE id = ?');
    this.rehashStmt = db.prepare('UPDATE users SET password_hash = ? WHERE id = ? AND password_hash = ?');
  }

  insert(user: User): Result<User> {
    return run(() => {
      this.insertStmt.run(userToRow(user));
      return user;
    }, `A user with email ${user.email} already exists`);
  }

  findById(id: UserId): Result<O.Option<User>> {
    return run(() => O.map(userFromRow)(O.fromNullable(this.byId.get(id))));
  }

  findByEmail(email: string): Result<O.Option<User>> {
    return run(() => O.map(userFromRow)(O.fromNullable(this.byEmail.get(email))));
  }

  count(): Result<number> {
    return run(() => this.countStmt.get() as number);
  }

  revokeSessions(id: UserId, from: Date): Result<void> {
    return run(() => {
      if (this.revokeStmt.run(from.getTime(), from.getTime(), id).changes === 0) throw new Abort(notFound('user', id));
    });
  }

  rehashPassword(id: UserId, from: string, to: string): Result<boolean> {
    return run(() => this.rehashStmt.run(to, id, from).changes === 1);
  }
}
