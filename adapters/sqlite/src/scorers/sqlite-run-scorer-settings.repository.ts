import { type RunId, type RunScorerSettings, notFound } from '@tracelight/domain';
import type { Result, RunScorerSettingsRepository } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { inject, injectable } from 'inversify';
import { run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';
import { type UnderLiveParent, underLiveParent } from '../projects-runs/live-parent';
import { runScorersFromRow } from './scorer.mapper';

@injectable()
export class SqliteRunScorerSettingsRepository implements RunScorerSettingsRepository {
  private readonly byRun;
  private readonly upsert;
  private readonly underLiveRun: UnderLiveParent;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.underLiveRun = underLiveParent(db, 'run');
    this.byRun = db.prepare('SELECT * FROM run_scorer_settings WHERE run_id = ?');
    this.upsert = db.prepare(
      `INSERT INTO run_scorer_settings (run_id, scorers, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (run_id) DO UPDATE SET scorers = excluded.scorers, updated_at = excluded.updated_at`,
    );
  }

  find(runId: RunId): Result<O.Option<RunScorerSettings>> {
    return run(() => O.map(runScorersFromRow)(O.fromNullable(this.byRun.get(runId))));
  }

  replace(s: RunScorerSettings): Result<RunScorerSettings> {
    return run(() => {
      this.underLiveRun(s.runId, () => this.upsert.run(s.runId, JSON.stringify(s.scorers), s.updatedAt.getTime()));
      return s;
    }, undefined, notFound('run', s.runId));
  }
}
