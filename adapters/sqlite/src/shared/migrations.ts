// Versioned schema migrations. Append only: a released migration is never edited.
import type Database from 'better-sqlite3';
import { INDEXED_COLUMNS, RECORD_TERMS, indexTermsOfRecords, indexedValuesSql } from '../tracing/terms-index';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly up: string;
  /** Work SQL alone cannot do, run after `up` in the same transaction. */
  readonly then?: (db: Database.Database) => void;
}

export const MIGRATIONS: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: 'identity, projects, runs, insights, integrations, scorers',
    up: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL,
        password_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        description TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        truncated TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        last_used_at INTEGER
      ) STRICT;
      CREATE INDEX api_keys_by_user ON api_keys (user_id, created_at);
      CREATE TABLE projects (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        type TEXT NOT NULL,
        created_by TEXT NOT NULL REFERENCES users(id),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (created_by, name)
      ) STRICT;
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        created_by TEXT NOT NULL REFERENCES users(id),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (project_id, kind, name)
      ) STRICT;
      CREATE TABLE run_insights (
        run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        logstream_enabled INTEGER NOT NULL,
        logstream_start_time INTEGER,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE integrations (
        id TEXT PRIMARY KEY,
        created_by TEXT NOT NULL REFERENCES users(id),
        provider TEXT NOT NULL,
        name TEXT NOT NULL,
        settings TEXT NOT NULL,
        sealed_secret TEXT NOT NULL,
        is_selected INTEGER NOT NULL,
        is_disabled INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (created_by, provider)
      ) STRICT;
      CREATE TABLE scorers (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        scorer_type TEXT NOT NULL,
        description TEXT NOT NULL,
        tags TEXT NOT NULL,
        defaults TEXT NOT NULL,
        display TEXT NOT NULL,
        created_by TEXT NOT NULL REFERENCES users(id),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (created_by, name)
      ) STRICT;
      CREATE TABLE scorer_versions (
        id TEXT PRIMARY KEY,
        scorer_id TEXT NOT NULL REFERENCES scorers(id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        kind TEXT,
        body TEXT NOT NULL,
        UNIQUE (scorer_id, version)
      ) STRICT;
      CREATE TABLE run_scorer_settings (
        run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        scorers TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: 'log records (traces, spans, sessions) and per-run column presence',
    up: `
      CREATE TABLE log_records (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        project_id TEXT NOT NULL,
        type TEXT NOT NULL,
        is_trace INTEGER NOT NULL,
        trace_id TEXT,
        parent_id TEXT,
        session_id TEXT,
        name TEXT NOT NULL,
        input TEXT NOT NULL,
        input_text TEXT,
        output TEXT NOT NULL,
        output_text TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER,
        tags TEXT NOT NULL,
        user_metadata TEXT NOT NULL,
        status_code INTEGER,
        external_id TEXT,
        dataset_input TEXT,
        dataset_output TEXT,
        dataset_metadata TEXT NOT NULL,
        metrics TEXT NOT NULL,
        is_complete INTEGER NOT NULL,
        has_children INTEGER NOT NULL,
        step_number INTEGER,
        progress_message TEXT,
        error_message TEXT,
        attributes TEXT NOT NULL,
        model TEXT,
        temperature REAL,
        finish_reason TEXT,
        tools TEXT,
        tool_call_id TEXT,
        agent_type TEXT,
        control_id INTEGER,
        agent_name TEXT,
        check_stage TEXT,
        applies_to TEXT,
        evaluator_name TEXT,
        selector_path TEXT
      ) STRICT;
      CREATE INDEX log_records_by_run_time ON log_records (run_id, is_trace, created_at, id);
      CREATE INDEX log_records_by_trace ON log_records (trace_id);
      CREATE TABLE run_columns (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        column_id TEXT NOT NULL,
        PRIMARY KEY (run_id, column_id)
      ) STRICT, WITHOUT ROWID;
    `,
  },
  {
    version: 3,
    name: 'find children by parent, to link records that arrive out of order',
    up: 'CREATE INDEX log_records_by_parent ON log_records (parent_id);',
  },
  {
    version: 4,
    name: 'record ids are unique per run, not across every user (the same id in two runs is two records)',
    // The primary key changes, so the table is rebuilt: a copy of every record, in this one transaction.
    up: `
      CREATE TABLE log_records_per_run (
        id TEXT NOT NULL,
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        project_id TEXT NOT NULL,
        type TEXT NOT NULL,
        is_trace INTEGER NOT NULL,
        trace_id TEXT,
        parent_id TEXT,
        session_id TEXT,
        name TEXT NOT NULL,
        input TEXT NOT NULL,
        input_text TEXT,
        output TEXT NOT NULL,
        output_text TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER,
        tags TEXT NOT NULL,
        user_metadata TEXT NOT NULL,
        status_code INTEGER,
        external_id TEXT,
        dataset_input TEXT,
        dataset_output TEXT,
        dataset_metadata TEXT NOT NULL,
        metrics TEXT NOT NULL,
        is_complete INTEGER NOT NULL,
        has_children INTEGER NOT NULL,
        step_number INTEGER,
        progress_message TEXT,
        error_message TEXT,
        attributes TEXT NOT NULL,
        model TEXT,
        temperature REAL,
        finish_reason TEXT,
        tools TEXT,
        tool_call_id TEXT,
        agent_type TEXT,
        control_id INTEGER,
        agent_name TEXT,
        check_stage TEXT,
        applies_to TEXT,
        evaluator_name TEXT,
        selector_path TEXT,
        PRIMARY KEY (run_id, id)
      ) STRICT;
      INSERT INTO log_records_per_run SELECT * FROM log_records;
      DROP TABLE log_records;
      ALTER TABLE log_records_per_run RENAME TO log_records;
      CREATE INDEX log_records_by_run_time ON log_records (run_id, is_trace, created_at, id);
      CREATE INDEX log_records_by_trace ON log_records (run_id, trace_id);
      CREATE INDEX log_records_by_parent ON log_records (run_id, parent_id);
    `,
  },
  {
    version: 5,
    name: 'a user\'s sessions can be revoked: those begun before sessions_valid_from are refused',
    up: 'ALTER TABLE users ADD COLUMN sessions_valid_from INTEGER;',
  },
  {
    version: 6,
    name: 'a deleted project is retired at once (retired_at set, its name freed) and purged in the background',
    // The retired projects waiting for their purge are few: a partial index finds them without a scan.
    up: `
      ALTER TABLE projects ADD COLUMN retired_at INTEGER;
      CREATE INDEX projects_retired ON projects (retired_at) WHERE retired_at IS NOT NULL;
    `,
  },
  {
    version: 7,
    name: 'refresh tokens are rotated: one refresh family per sign-in, its current generation, revoked when a spent token comes back',
    // No foreign key to api_keys: a revoked key's row is deleted, and its sessions' families stay until they end.
    up: `
      CREATE TABLE refresh_families (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        started_at INTEGER NOT NULL,
        api_key_id TEXT,
        generation INTEGER NOT NULL,
        rotated_at INTEGER,
        revoked_at INTEGER,
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX refresh_families_by_end ON refresh_families (expires_at);
    `,
  },
  {
    version: 8,
    name: 'a trace record made from an OTLP root span keeps where that root stands among its trace\'s roots (otel_root_key)',
    // NULL on every record stored before (read as no key: replaced as before) and on every other record.
    up: 'ALTER TABLE log_records ADD COLUMN otel_root_key TEXT;',
  },
  {
    version: 9,
    name: "a scorer stored with a threshold bucket an earlier build kept as null (a number past a double's range) loses that threshold, so it can be read",
    // Such a bucket (1e400 sent, read as Infinity, written as JSON null) made the row unreadable: every
    // read of its owner's scorers answered 503. The threshold cannot be known again; the scorer stays.
    up: `
      UPDATE scorers SET display = json_remove(display, '$.threshold')
      WHERE json_valid(display)
        AND json_type(display, '$.threshold.buckets') = 'array'
        AND EXISTS (SELECT 1 FROM json_each(display, '$.threshold.buckets') WHERE type = 'null');
    `,
  },
  {
    version: 12,
    name: "a session's traces and spans are found by (run_id, session_id)",
    // The same index, under the same name, as the scoring queue's migration makes for a session's
    // roll-ups: whichever of the two comes first makes it, and the other finds it there.
    up: 'CREATE INDEX IF NOT EXISTS log_records_by_session ON log_records (run_id, session_id);',
  },
  {
    version: 13,
    name: 'an index of terms for filters that match little: trigrams of every text column, tags, number columns and metrics (FTS5), found again by rowid',
    // One FTS5 document per group of up to 8 records written together (consecutive rowids); its terms
    // (record-terms.ts) are the distinct trigrams of the group's words, case-folded, a term for each tag,
    // one for each number of a number column or metric (by quarter of an octave), and its run's own term.
    // Contentless, rowids only (detail=none): it holds no copy of the text, only where each term occurs.
    // A document's rowid says which records it covers: the first's rowid times 8, plus the group's size
    // less one (dense: a document's rowid follows the one before by about 64, one byte in a doclist). A
    // record changed in place (sent again, scored) gets a document of its own in log_record_terms_own,
    // under its rowid, from a trigger on the columns the index reads, calling tl_record_terms (every
    // connection has it: SqliteDatabase), whoever updates them. log_record_terms_chunks keys each document
    // by its first rowid (times 2; plus 1 for a record's own), so that a deleted record's documents are
    // found, and removed with the group's last record, by a trigger. A later rebuild of log_records must
    // keep every rowid and make the triggers again.
    up: `
      CREATE VIRTUAL TABLE log_record_terms USING fts5(terms, content='', contentless_delete=1, tokenize='ascii', detail=none);
      CREATE VIRTUAL TABLE log_record_terms_own USING fts5(terms, content='', contentless_delete=1, tokenize='ascii', detail=none);
      CREATE TABLE log_record_terms_chunks (key INTEGER PRIMARY KEY, size INTEGER NOT NULL) STRICT;
      CREATE TRIGGER log_records_terms_removed AFTER DELETE ON log_records BEGIN
        DELETE FROM log_record_terms_own WHERE rowid = old.rowid AND EXISTS (SELECT 1 FROM log_record_terms_chunks WHERE key = old.rowid * 2 + 1);
        DELETE FROM log_record_terms WHERE rowid IN (
          SELECT (key >> 1) * 8 + size - 1 FROM log_record_terms_chunks
          WHERE key BETWEEN (old.rowid - 7) * 2 AND old.rowid * 2 AND key % 2 = 0 AND (key >> 1) + size > old.rowid
            AND NOT EXISTS (SELECT 1 FROM log_records WHERE rowid BETWEEN key >> 1 AND (key >> 1) + size - 1));
        DELETE FROM log_record_terms_chunks
          WHERE key BETWEEN (old.rowid - 7) * 2 AND old.rowid * 2 + 1 AND (key >> 1) + size > old.rowid
            AND NOT EXISTS (SELECT 1 FROM log_records WHERE rowid BETWEEN key >> 1 AND (key >> 1) + size - 1);
      END;
      CREATE TRIGGER log_records_terms_changed AFTER UPDATE OF ${INDEXED_COLUMNS.join(', ')} ON log_records BEGIN
        DELETE FROM log_record_terms_own WHERE rowid = new.rowid AND EXISTS (SELECT 1 FROM log_record_terms_chunks WHERE key = new.rowid * 2 + 1);
        INSERT INTO log_record_terms_own (rowid, terms) VALUES (new.rowid, ${RECORD_TERMS}(new.run_id, ${INDEXED_COLUMNS.map((c) => `new.${c}`).join(', ')}));
        INSERT INTO log_record_terms_chunks (key, size) VALUES (new.rowid * 2 + 1, 1) ON CONFLICT (key) DO NOTHING;
      END;
    `,
    // The records stored before: grouped as ingest groups them.
    then: indexTermsOfRecords,
  },
  {
    version: 14,
    name: 'incomplete records (a trace its client has not concluded) are found by a partial index of them alone',
    up: 'CREATE INDEX log_records_incomplete ON log_records (run_id) WHERE is_complete = 0;',
  },
  {
    version: 15,
    name: 'large inputs and outputs are stored deflated (input_z, output_z), their search copies then NULL',
    // Rows stored before keep their text as it is. The record index's trigger is made again to read a
    // deflated copy inflated, and to follow the new columns.
    up: `
      ALTER TABLE log_records ADD COLUMN input_z BLOB;
      ALTER TABLE log_records ADD COLUMN output_z BLOB;
      DROP TRIGGER log_records_terms_changed;
      CREATE TRIGGER log_records_terms_changed AFTER UPDATE OF ${INDEXED_COLUMNS.join(', ')}, input_z, output_z ON log_records BEGIN
        DELETE FROM log_record_terms_own WHERE rowid = new.rowid AND EXISTS (SELECT 1 FROM log_record_terms_chunks WHERE key = new.rowid * 2 + 1);
        INSERT INTO log_record_terms_own (rowid, terms) VALUES (new.rowid, ${RECORD_TERMS}(new.run_id, ${indexedValuesSql('new')}));
        INSERT INTO log_record_terms_chunks (key, size) VALUES (new.rowid * 2 + 1, 1) ON CONFLICT (key) DO NOTHING;
      END;
    `,
  },
];
