import { type RunId, type RunScorerSettings, notFound } from '@tracelight/domain';
import type { Result, RunScorerSettingsRepository } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import type { Collection, Db } from 'mongodb';
import { runScorersFromDoc } from '../shared/codecs';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { Abort, run, type StringIdDoc } from '../shared/run';
import { removeRunData, runExists } from '../projects-runs/run-removal';

@injectable()
export class MongoRunScorerSettingsRepository implements RunScorerSettingsRepository {
  private readonly db: Db;
  private readonly settings: Collection<StringIdDoc>;

  constructor(@inject(MongoDatabaseToken) { db }: MongoDatabase) {
    this.db = db;
    this.settings = db.collection('run_scorer_settings');
  }

  find(runId: RunId): Result<O.Option<RunScorerSettings>> {
    return run(async () => O.map(runScorersFromDoc)(O.fromNullable(await this.settings.findOne({ _id: runId }))));
  }

  replace(s: RunScorerSettings): Result<RunScorerSettings> {
    return run(async () => {
      // A run already gone (its project retired, its purge to come) is not written to: what it holds
      // stays as it is until the purge. One going meanwhile is caught after the write, below.
      if (!(await runExists(this.db, s.runId))) throw new Abort(notFound('run', s.runId));
      await this.settings.replaceOne({ _id: s.runId }, { scorers: s.scorers, updatedAt: s.updatedAt }, { upsert: true });
      // Its run deleted meanwhile (its project was): nothing of it may stay (run-removal.ts).
      if (!(await runExists(this.db, s.runId))) {
        await removeRunData(this.db, [s.runId]);
        throw new Abort(notFound('run', s.runId));
      }
      return s;
    });
  }
}
