// Writes to the record index (migration 15): a document of terms per group of records written together,
// keyed so that the records a document covers are read back by rowid; and the SQL function with which a
// trigger gives a record changed in place (sent again, or scored) a document of its own.
import type Database from 'better-sqlite3';
import { RECORD_COLUMNS, type RecordValues, copyOf } from './log-record.mapper';
import { INFLATE } from './compressed-text';
import { CHUNK_RECORDS, TermCollector, flagTerm, labelTerm, numberTerm, runTerm, tagTerm } from './record-terms';

/** The log_records columns of the catalogue's text columns: the index holds the trigrams of their words. */
export const TEXT_COLUMNS: ReadonlyArray<string> = [
  'name', 'input_text', 'output_text', 'external_id', 'progress_message', 'error_message', 'dataset_input', 'dataset_output',
  'type', 'agent_type', 'tools', 'model', 'finish_reason', 'tool_call_id', 'agent_name', 'check_stage', 'applies_to',
  'evaluator_name', 'selector_path',
];
/** The catalogue's number columns the index holds a term for, each value by place (beside every metric). */
export const NUMBER_COLUMNS: ReadonlyArray<string> = ['status_code', 'step_number', 'temperature', 'control_id'];

/** What the index reads of a record, in this order: the columns of the SQL function's arguments too. */
export const INDEXED_COLUMNS: ReadonlyArray<string> = ['tags', 'metrics', ...NUMBER_COLUMNS, ...TEXT_COLUMNS];
const AT = INDEXED_COLUMNS.map((c) => RECORD_COLUMNS.indexOf(c as (typeof RECORD_COLUMNS)[number]));

/** The terms of one record's values (`values` in INDEXED_COLUMNS order) into the collector's group. */
const addRecord = (collector: TermCollector, values: ReadonlyArray<unknown>): void => {
  const [tags, metrics] = values;
  if (typeof tags === 'string' && tags !== '[]')
    for (const t of JSON.parse(tags) as unknown[]) if (typeof t === 'string') collector.term(tagTerm(t));
  if (typeof metrics === 'string' && metrics !== '{}')
    for (const [k, v] of Object.entries(JSON.parse(metrics) as Record<string, unknown>)) {
      // Each kind of value apart, as the filters compare them (record-query.sql.ts: METRIC_TYPES).
      if (typeof v === 'number') collector.term(numberTerm(`metrics/${k}`, v));
      else if (typeof v === 'string') collector.term(labelTerm(k, v));
      else if (typeof v === 'boolean') collector.term(flagTerm(k, v));
      else if (Array.isArray(v)) for (const l of v) if (typeof l === 'string') collector.term(labelTerm(k, l));
    }
  for (let i = 0; i < NUMBER_COLUMNS.length; i++) {
    const v = values[2 + i];
    if (typeof v === 'number') collector.term(numberTerm(NUMBER_COLUMNS[i]!, v));
  }
  for (let i = 2 + NUMBER_COLUMNS.length; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'string') collector.add(v);
  }
};
/** A row's values for the index, its input and output copies inflated where stored deflated. */
const addRow = (collector: TermCollector, row: RecordValues): void =>
  addRecord(collector, AT.map((i, k) => (INDEXED_COLUMNS[k] === 'input_text' ? copyOf(row, 'input') : INDEXED_COLUMNS[k] === 'output_text' ? copyOf(row, 'output') : row[i])));

/**
 * INDEXED_COLUMNS as SQL over a row of log_records named `row` (a trigger's `new`), the copies inflated
 * where stored deflated (migration 17 makes the columns).
 */
export const indexedValuesSql = (row: string): string =>
  INDEXED_COLUMNS.map((c) => (c === 'input_text' || c === 'output_text' ? `coalesce(${row}.${c}, ${INFLATE}(${row}.${c.replace('_text', '_z')}))` : `${row}.${c}`)).join(', ');

const withRun = (runId: string, terms: string): string => (terms === '' ? runTerm(runId) : `${runTerm(runId)} ${terms}`);

/**
 * The terms of each group of CHUNK_RECORDS consecutive rows (the last may be shorter), each with the run's
 * term. Worked out where the rows are made (the request thread), so that the writer thread only stores them.
 */
export const chunkTermsOf = (runId: string, rows: ReadonlyArray<RecordValues>): ReadonlyArray<string> => {
  const collector = new TermCollector();
  const chunks: string[] = [];
  for (let start = 0; start < rows.length; start += CHUNK_RECORDS) {
    for (let i = start; i < Math.min(start + CHUNK_RECORDS, rows.length); i++) addRow(collector, rows[i]!);
    chunks.push(withRun(runId, collector.take()));
  }
  return chunks;
};

/**
 * The SQL function the record index's trigger calls (registered on every connection): a record's terms
 * from its run id and its INDEXED_COLUMNS values.
 */
export const RECORD_TERMS = 'tl_record_terms';
export const recordTerms = (runId: unknown, ...values: unknown[]): string => {
  const collector = new TermCollector();
  addRecord(collector, values);
  return withRun(String(runId), collector.take());
};

/** A group's document's rowid in log_record_terms: see migration 15. */
const groupDocument = (firstRowid: number, size: number): number => firstRowid * 8 + size - 1;

/**
 * The record index's writes on the writing connection, prepared at the first (a repository may be made
 * on a database not migrated that far, by a test of an earlier migration).
 */
export class TermsIndexWrites {
  private statements:
    | { readonly document: Database.Statement; readonly key: Database.Statement; readonly sizeOf: Database.Statement; readonly drop: Database.Statement }
    | undefined;

  constructor(private readonly db: Database.Database) {}

  /** The terms of `size` records with consecutive rowids from `firstRowid`. */
  group(firstRowid: number, size: number, terms: string): void {
    const s = (this.statements ??= {
      document: this.db.prepare('INSERT INTO log_record_terms (rowid, terms) VALUES (?, ?)'),
      key: this.db.prepare('INSERT OR REPLACE INTO log_record_terms_chunks (key, size) VALUES (?, ?)'),
      sizeOf: this.db.prepare('SELECT size FROM log_record_terms_chunks WHERE key = ?').pluck(),
      drop: this.db.prepare('DELETE FROM log_record_terms WHERE rowid = ?'),
    });
    // A group's first rowid is new, but a group whose records were all removed since could have left its
    // key, were its document still there (the next free rowid is the highest stored plus one). Asked by
    // key, not by an INSERT OR REPLACE of the document: FTS5 looks for a rowid it is to replace through
    // every segment.
    const earlier = s.sizeOf.get(firstRowid * 2) as number | undefined;
    if (earlier !== undefined) s.drop.run(groupDocument(firstRowid, earlier));
    s.document.run(groupDocument(firstRowid, size), terms);
    s.key.run(firstRowid * 2, size);
  }
}

/**
 * Indexes the records already stored (migration 15), as ingest would have: in rowid order, groups of up
 * to CHUNK_RECORDS records of one run whose rowids lie within CHUNK_RECORDS of the first.
 */
export const indexTermsOfRecords = (db: Database.Database): void => {
  const writes = new TermsIndexWrites(db);
  const collector = new TermCollector();
  // Pages in rowid order: the connection takes no write while a statement is being read.
  const page = db.prepare(`SELECT rowid, run_id, ${INDEXED_COLUMNS.join(', ')} FROM log_records WHERE rowid > ? ORDER BY rowid LIMIT 1000`).raw();
  let group: { run: string; first: number; last: number } | undefined;
  const flush = () => {
    if (group === undefined) return;
    writes.group(group.first, group.last - group.first + 1, withRun(group.run, collector.take()));
    group = undefined;
  };
  for (let after = 0; ; ) {
    const rows = page.all(after) as Array<[number, string, ...unknown[]]>;
    if (rows.length === 0) break;
    for (const [rowid, run, ...values] of rows) {
      if (group !== undefined && (group.run !== run || rowid - group.first >= CHUNK_RECORDS)) flush();
      group ??= { run, first: rowid, last: rowid };
      group.last = rowid;
      addRecord(collector, values);
      after = rowid;
    }
  }
  flush();
};
