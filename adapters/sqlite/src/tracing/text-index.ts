// Writes to the text index (migration 13): a document of terms per group of records written together,
// or per record sent again, keyed so that the records a document covers are read back by rowid.
import type Database from 'better-sqlite3';
import { RECORD_COLUMNS, type RecordValues } from './log-record.mapper';
import { CHUNK_RECORDS, TermCollector, runTerm } from './text-terms';

/** The log_records columns of the catalogue's text columns: what the index holds the terms of. */
export const TEXT_COLUMNS: ReadonlyArray<string> = [
  'name', 'input_text', 'output_text', 'external_id', 'progress_message', 'error_message', 'dataset_input', 'dataset_output',
  'type', 'agent_type', 'tools', 'model', 'finish_reason', 'tool_call_id', 'agent_name', 'check_stage', 'applies_to',
  'evaluator_name', 'selector_path',
];
const TEXT_AT = TEXT_COLUMNS.map((c) => RECORD_COLUMNS.indexOf(c as (typeof RECORD_COLUMNS)[number]));

const addRow = (collector: TermCollector, row: RecordValues): void => {
  for (const i of TEXT_AT) {
    const v = row[i];
    if (typeof v === 'string') collector.add(v);
  }
};

/**
 * The terms of each group of CHUNK_RECORDS consecutive rows (the last may be shorter), each with the run's
 * term. Worked out where the rows are made (the request thread), so that the writer thread only stores them.
 */
export const textChunksOf = (runId: string, rows: ReadonlyArray<RecordValues>): ReadonlyArray<string> => {
  const collector = new TermCollector();
  const run = runTerm(runId);
  const chunks: string[] = [];
  for (let start = 0; start < rows.length; start += CHUNK_RECORDS) {
    for (let i = start; i < Math.min(start + CHUNK_RECORDS, rows.length); i++) addRow(collector, rows[i]!);
    const terms = collector.take();
    chunks.push(terms === '' ? run : `${run} ${terms}`);
  }
  return chunks;
};

/** A document's rowid in log_record_text: see migration 13. */
const groupDocument = (firstRowid: number, size: number): number => firstRowid * 16 + size - 1;
const resentDocument = (rowid: number): number => rowid * 16 + 8;

/**
 * The text index's writes on the writing connection, prepared at the first (a repository may be made on
 * a database not migrated that far, by a test of an earlier migration).
 */
export class TextIndexWrites {
  private statements: { readonly document: Database.Statement; readonly key: Database.Statement } | undefined;

  constructor(private readonly db: Database.Database) {}

  private get document(): Database.Statement {
    return (this.statements ??= this.prepare()).document;
  }

  private get key(): Database.Statement {
    return (this.statements ??= this.prepare()).key;
  }

  private prepare() {
    // REPLACE: a record sent again replaces its own document; a group's key is new (its first rowid is).
    return {
      document: this.db.prepare('INSERT OR REPLACE INTO log_record_text (rowid, terms) VALUES (?, ?)'),
      key: this.db.prepare('INSERT OR REPLACE INTO log_record_text_chunks (key, size) VALUES (?, ?)'),
    };
  }

  /** The terms of `size` records with consecutive rowids from `firstRowid`. */
  group(firstRowid: number, size: number, terms: string): void {
    this.document.run(groupDocument(firstRowid, size), terms);
    this.key.run(firstRowid * 2, size);
  }

  /** The terms of a record sent again (stored at `rowid`), from its new row. */
  resent(runId: string, rowid: number, row: RecordValues): void {
    const collector = new TermCollector();
    addRow(collector, row);
    const terms = collector.take();
    this.document.run(resentDocument(rowid), terms === '' ? runTerm(runId) : `${runTerm(runId)} ${terms}`);
    this.key.run(rowid * 2 + 1, 1);
  }
}

/**
 * Indexes the text of the records already stored (migration 13), as ingest would have: in rowid order,
 * groups of up to CHUNK_RECORDS records of one run whose rowids lie within CHUNK_RECORDS of the first.
 */
export const indexTextOfRecords = (db: Database.Database): void => {
  const writes = new TextIndexWrites(db);
  const collector = new TermCollector();
  // Pages in rowid order: the connection takes no write while a statement is being read.
  const page = db.prepare(`SELECT rowid, run_id, ${TEXT_COLUMNS.join(', ')} FROM log_records WHERE rowid > ? ORDER BY rowid LIMIT 1000`).raw();
  let group: { run: string; first: number; last: number } | undefined;
  const flush = () => {
    if (group === undefined) return;
    const terms = collector.take();
    const run = runTerm(group.run);
    writes.group(group.first, group.last - group.first + 1, terms === '' ? run : `${run} ${terms}`);
    group = undefined;
  };
  for (let after = 0; ; ) {
    const rows = page.all(after) as Array<[number, string, ...Array<string | null>]>;
    if (rows.length === 0) break;
    for (const [rowid, run, ...texts] of rows) {
      if (group !== undefined && (group.run !== run || rowid - group.first >= CHUNK_RECORDS)) flush();
      group ??= { run, first: rowid, last: rowid };
      group.last = rowid;
      for (const t of texts) if (typeof t === 'string') collector.add(t);
      after = rowid;
    }
  }
  flush();
};
