// Which access path leads a record search: the cheapest way to the few records its filters match, or
// none (the search then walks the run in the order it asks for, which is cheapest when matches are many).
import type { RecordQuery } from '@tracelight/ports';
import type Database from 'better-sqlite3';
import { type AccessPath, accessPaths } from './record-query.sql';

/**
 * The path a search is led by: one by ids at once (a few records whatever the run); null when none
 * serves its filters.
 */
export const leadingPath = (_db: Database.Database, query: RecordQuery): AccessPath | null =>
  accessPaths(query).find((p) => p.probe === undefined) ?? null;
