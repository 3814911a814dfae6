// Which access path leads a record search: the cheapest way to the few records its filters match, or
// none (the search then walks the run in the order it asks for, which is cheapest when matches are many).
import type { RecordQuery } from '@tracelight/ports';
import type Database from 'better-sqlite3';
import { type AccessPath, accessPaths } from './record-query.sql';

/**
 * Candidates a path whose candidates come one by one may give and still lead: past it, the filter matches
 * enough of the run that walking it in the order asked finds a page sooner. Reading a candidate by rowid
 * costs about what reading a record of the walk does; the walk reads (page + 1) / share of the run's
 * records for a page. At a million records the two meet near a few thousand candidates; below, both are
 * fast. A path whose candidates come `weight` at a time (a record index document's group) gives `weight`
 * records for each match it finds, and meets the walk at √weight times as many candidates: m matches cost
 * it m·weight records and the walk (page + 1)·N/m, equal at m·weight = √((page + 1)·N·weight). So its
 * bound is MAX_LEADING_CANDIDATES·√weight (groups of 32: 725 documents, 23,200 candidates).
 */
export const MAX_LEADING_CANDIDATES = 4096;

/** The most documents of `weight` candidates each a path's probe counts before it gives up leading. */
export const leadingDocuments = (weight: number): number => Math.ceil(MAX_LEADING_CANDIDATES / Math.sqrt(weight));

/**
 * The path a search is led by: one by ids at once (a few records whatever the run); else the one whose
 * probe counts the fewest candidates, if under its bound (leadingDocuments); else null (the search walks the
 * run). A probe stops counting at that bound, so it costs little whatever the run's size.
 */
export const leadingPath = (prepare: (sql: string) => Database.Statement, query: RecordQuery): AccessPath | null => {
  const paths = accessPaths(query);
  const byIds = paths.find((p) => p.probe === undefined);
  if (byIds !== undefined) return byIds;
  const count = (probe: NonNullable<AccessPath['probe']>, limit: number) => prepare(`SELECT count(*) FROM (${probe.sql} LIMIT ?)`).pluck().get(...probe.params, limit) as number;
  let best: { path: AccessPath; candidates: number } | undefined;
  for (const path of paths) {
    const probe = path.probe!;
    const limit = leadingDocuments(probe.weight);
    const counted = count(probe, limit);
    if (counted >= limit) continue;
    const candidates = counted * probe.weight;
    if (best === undefined || candidates < best.candidates) best = { path, candidates };
  }
  if (best === undefined) return null;
  // A created_at range is read as a range of the time index by the walk itself: it leads where it holds
  // fewer records than the best path's candidates.
  const range = createdAtRange(query);
  if (range !== undefined && count(range, best.candidates) < best.candidates) return null;
  return best.path;
};

/** The records of the run and kind in the search's created_at range, if it has one, as a probe. */
const createdAtRange = (q: RecordQuery): NonNullable<AccessPath['probe']> | undefined => {
  const bounds: string[] = [];
  const params: unknown[] = [q.runId, q.scope === 'traces' ? 1 : 0];
  for (const f of q.filters) {
    if (f.type !== 'date' || f.columnId !== 'created_at' || f.operator === 'ne') continue;
    if (f.operator === 'between') {
      const [lo, hi] = f.value as readonly [Date, Date];
      bounds.push('created_at BETWEEN ? AND ?');
      params.push(lo.getTime(), hi.getTime());
    } else {
      bounds.push(`created_at ${{ eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' }[f.operator]} ?`);
      params.push((f.value as Date).getTime());
    }
  }
  if (bounds.length === 0) return undefined;
  return { sql: `SELECT 1 FROM log_records INDEXED BY log_records_by_run_time WHERE run_id = ? AND is_trace = ? AND ${bounds.join(' AND ')}`, params, weight: 1 };
};
