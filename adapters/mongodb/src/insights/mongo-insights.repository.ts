import { type RunId, type RunInsights, notFound } from '@tracelight/domain';
import type { InsightsRepository, Result } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import type { Collection, Db } from 'mongodb';
import { insightsFromDoc } from '../shared/codecs';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { Abort, run, type StringIdDoc } from '../shared/run';
import { removeRunData, runExists } from '../projects-runs/run-removal';

@injectable()
export class MongoInsightsRepository implements InsightsRepository {
  private readonly db: Db;
  private readonly insights: Collection<StringIdDoc>;

  constructor(@inject(MongoDatabaseToken) { db }: MongoDatabase) {
    this.db = db;
    this.insights = db.collection('run_insights');
  }

  find(runId: RunId): Result<O.Option<RunInsights>> {
    return run(async () => O.map(insightsFromDoc)(O.fromNullable(await this.insights.findOne({ _id: runId }))));
  }

  replace(s: RunInsights): Result<RunInsights> {
    return run(async () => {
      // A run already gone (its project retired, its purge to come) is not written to: what it holds
      // stays as it is until the purge. One going meanwhile is caught after the write, below.
      if (!(await runExists(this.db, s.runId))) throw new Abort(notFound('run', s.runId));
      await this.insights.replaceOne({ _id: s.runId }, { insights: s.insights, updatedAt: s.updatedAt }, { upsert: true });
      // Its run deleted meanwhile (its project was): nothing of it may stay (run-removal.ts).
      if (!(await runExists(this.db, s.runId))) {
        await removeRunData(this.db, [s.runId]);
        throw new Abort(notFound('run', s.runId));
      }
      return s;
    });
  }
}
