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

/** The terms of a tags list's JSON. */
const tagTermsOf = (json: string): ReadonlyArray<string> => {
  const terms: string[] = [];
  for (const t of JSON.parse(json) as unknown[]) if (typeof t === 'string') terms.push(tagTerm(t));
  return terms;
};

/** The terms of a metrics map's JSON, each kind of value apart, as the filters compare them (record-query.sql.ts: METRIC_TYPES). */
const metricTermsOf = (json: string): ReadonlyArray<string> => {
  const terms: string[] = [];
  for (const [k, v] of Object.entries(JSON.parse(json) as Record<string, unknown>)) {
    if (typeof v === 'number') terms.push(numberTerm(`metrics/${k}`, v));
    else if (typeof v === 'string') terms.push(labelTerm(k, v));
    else if (typeof v === 'boolean') terms.push(flagTerm(k, v));
    else if (Array.isArray(v)) for (const l of v) if (typeof l === 'string') terms.push(labelTerm(k, l));
  }
  return terms;
};

/** Texts of JSON this long or longer are not kept by `cached` (a freeform label, say): made each time. */
const CACHED_JSON = 256;
/** Entries each cache keeps at most (cleared when full: a batch's are mostly the same few). */
const CACHED_ENTRIES = 4096;

/**
 * `of(json)` remembered by its text: a trace's records share their tags, and most records' metrics are
 * one of a few (durations, token counts); a record's terms otherwise cost a JSON.parse and the hashing of
 * every name each time (measured on the bench corpus: 10.1 to 9.3 µs of CPU a record for all its terms).
 */
const cached = (of: (json: string) => ReadonlyArray<string>): ((json: string) => ReadonlyArray<string>) => {
  const kept = new Map<string, ReadonlyArray<string>>();
  return (json) => {
    let terms = kept.get(json);
    if (terms === undefined) {
      terms = of(json);
      if (json.length < CACHED_JSON) {
        if (kept.size >= CACHED_ENTRIES) kept.clear();
        kept.set(json, terms);
      }
    }
    return terms;
  };
};
const cachedTagTerms = cached(tagTermsOf);
const cachedMetricTerms = cached(metricTermsOf);

/** The terms of one record's values (`values` in INDEXED_COLUMNS order) into the collector's group. */
const addRecord = (collector: TermCollector, values: ReadonlyArray<unknown>): void => {
  const [tags, metrics] = values;
  if (typeof tags === 'string' && tags !== '[]') for (const t of cachedTagTerms(tags)) collector.term(t);
  if (typeof metrics === 'string' && metrics !== '{}') for (const t of cachedMetricTerms(metrics)) collector.term(t);
  for (let i = 0; i < NUMBER_COLUMNS.length; i++) {
    const v = values[2 + i];
    if (typeof v === 'number') collector.term(numberTerm(NUMBER_COLUMNS[i]!, v));
  }
  for (let i = 2 + NUMBER_COLUMNS.length; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'string') collector.add(v);
  }
};
const INPUT_AT = INDEXED_COLUMNS.indexOf('input_text');
const OUTPUT_AT = INDEXED_COLUMNS.indexOf('output_text');
/** A row's values for the index, its input and output copies inflated where stored deflated. */
const addRow = (collector: TermCollector, row: RecordValues): void => {
  const values = AT.map((i) => row[i]);
  values[INPUT_AT] = copyOf(row, 'input');
  values[OUTPUT_AT] = copyOf(row, 'output');
  addRecord(collector, values);
};

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

/** A group's document's rowid in log_record_terms: see migrations 15 and 19 (a multiplication: rowids pass 2³¹). */
const groupDocument = (firstRowid: number, size: number): number => firstRowid * CHUNK_RECORDS + size - 1;

/**
 * The trigger that removes a group's document and key with the last of its records (and a record's own
 * document with it): migration 15 made it for groups of 8, migration 19 for CHUNK_RECORDS.
 */
export const termsRemovedTrigger = (groupRecords: number): string => `
  CREATE TRIGGER log_records_terms_removed AFTER DELETE ON log_records BEGIN
    DELETE FROM log_record_terms_own WHERE rowid = old.rowid AND EXISTS (SELECT 1 FROM log_record_terms_chunks WHERE key = old.rowid * 2 + 1);
    DELETE FROM log_record_terms WHERE rowid IN (
      SELECT (key >> 1) * ${groupRecords} + size - 1 FROM log_record_terms_chunks
      WHERE key BETWEEN (old.rowid - ${groupRecords - 1}) * 2 AND old.rowid * 2 AND key % 2 = 0 AND (key >> 1) + size > old.rowid
        AND NOT EXISTS (SELECT 1 FROM log_records WHERE rowid BETWEEN key >> 1 AND (key >> 1) + size - 1));
    DELETE FROM log_record_terms_chunks
      WHERE key BETWEEN (old.rowid - ${groupRecords - 1}) * 2 AND old.rowid * 2 + 1 AND (key >> 1) + size > old.rowid
        AND NOT EXISTS (SELECT 1 FROM log_records WHERE rowid BETWEEN key >> 1 AND (key >> 1) + size - 1);
  END;`;

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
