import { type User, type UserId, notFound } from '@tracelight/domain';
import type { Result, UserRepository } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { inject, injectable } from 'inversify';
import type { Collection } from 'mongodb';
import { userFromDoc } from '../shared/codecs';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { run, toDoc, type StringIdDoc } from '../shared/run';

@injectable()
export class MongoUserRepository implements UserRepository {
  private readonly users: Collection<StringIdDoc>;

  constructor(@inject(MongoDatabaseToken) { db }: MongoDatabase) {
    this.users = db.collection('users');
  }

  insert(user: User): Result<User> {
    return run(async () => {
      await this.users.insertOne(toDoc(user));
      return user;
    }, `A user with email ${user.email} already exists`);
  }

  findById(id: UserId): Result<O.Option<User>> {
    return run(async () => O.map(userFromDoc)(O.fromNullable(await this.users.findOne({ _id: id }))));
  }

  findByEmail(email: string): Result<O.Option<User>> {
    return run(async () => O.map(userFromDoc)(O.fromNullable(await this.users.findOne({ email }))));
  }

  count(): Result<number> {
    return run(() => this.users.countDocuments({}));
  }

  revokeSessions(id: UserId, from: Date): Result<void> {
    return pipe(
      run(async () => (await this.users.updateOne({ _id: id }, { $set: { sessionsValidFrom: from, updatedAt: from } })).matchedCount),
      TE.flatMap((n) => (n === 1 ? TE.right(undefined) : TE.left(notFound('user', id)))),
    );
  }

  rehashPassword(id: UserId, from: string, to: string): Result<boolean> {
    return run(async () => (await this.users.updateOne({ _id: id, passwordHash: from }, { $set: { passwordHash: to } })).matchedCount === 1);
  }
}
