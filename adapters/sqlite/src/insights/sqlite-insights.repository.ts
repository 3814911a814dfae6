import { type RunId, type RunInsights, notFound } from '@tracelight/domain';
import type { InsightsRepository, Result } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import * as t from 'io-ts';
import { inject, injectable } from 'inversify';
import { IdString, MsDate, SqlBool, decodeOrThrow, nullable, row } from '../shared/row-codecs';
import { run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';
import { type UnderLiveParent, underLiveParent } from '../projects-runs/live-parent';

const InsightsRow = row({
  run_id: IdString<RunId>(),
  logstream_enabled: SqlBool,
  logstream_start_time: nullable(MsDate),
  updated_at: MsDate,
});

const fromRow = (stored: unknown): RunInsights => {
  const r = decodeOrThrow(InsightsRow, stored);
  return {
    runId: r.run_id,
    insights: { logstream: { enabled: r.logstream_enabled, startTime: r.logstream_start_time } },
    updatedAt: r.updated_at,
  };
};

@injectable()
export class SqliteInsightsRepository implements InsightsRepository {
  private readonly byRun;
  private readonly upsert;
  private readonly underLiveRun: UnderLiveParent;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.underLiveRun = underLiveParent(db, 'run');
    this.byRun = db.prepare('SELECT * FROM run_insights WHERE run_id = ?');
    this.upsert = db.prepare(
      `INSERT INTO run_insights (run_id, logstream_enabled, logstream_start_time, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (run_id) DO UPDATE SET logstream_enabled = excluded.logstream_enabled,
         logstream_start_time = excluded.logstream_start_time, updated_at = excluded.updated_at`,
    );
  }

  find(runId: RunId): Result<O.Option<RunInsights>> {
    return run(() => O.map(fromRow)(O.fromNullable(this.byRun.get(runId))));
  }

  replace(s: RunInsights): Result<RunInsights> {
    return run(() => {
      const l = s.insights.logstream;
      this.underLiveRun(s.runId, () => this.upsert.run(s.runId, l.enabled ? 1 : 0, l.startTime?.getTime() ?? null, s.updatedAt.getTime()));
      return s;
    }, undefined, notFound('run', s.runId));
  }
}
