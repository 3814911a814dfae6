// Versioned schema migrations. Append only: a released migration is never edited.
import { rekeyedId } from '@tracelight/domain';
import type Database from 'better-sqlite3';
import { INDEXED_COLUMNS, RECORD_TERMS, indexTermsOfRecords, indexedValuesSql, termsRemovedTrigger } from '../tracing/terms-index';
import { CHUNK_RECORDS } from '../tracing/record-terms';

export interface Migration {
  readonly version: number;
  readonly name: string;
  /** SQL, or work on the connection, run in the migration's transaction. */
  readonly up: string | ((db: Database.Database) => void);
}

/**
 * SQL for rekeyedId (the domain's): a version-7 id (`xxxxxxxx-xxxx-7xxx-[89ab]xxx-…`) with its version
 * nibble made 4, anything else as it is. Ids are stored lower-case, as the server makes them.
 */
const rekeyed = (column: string): string =>
  `(CASE WHEN length(${column}) = 36 AND substr(${column}, 9, 1) = '-' AND substr(${column}, 15, 1) = '7' ` +
  `AND substr(${column}, 20, 1) IN ('8', '9', 'a', 'b') THEN substr(${column}, 1, 14) || '4' || substr(${column}, 16) ELSE ${column} END)`;
const isV7 = (column: string): string => `(${rekeyed(column)} != ${column})`;

/** SET clauses re-keying these columns, and the WHERE that finds the rows holding a version-7 id in any. */
const rekeyColumns = (table: string, columns: ReadonlyArray<string>): string =>
  `UPDATE ${table} SET ${columns.map((c) => `${c} = ${rekeyed(c)}`).join(', ')} WHERE ${columns.map(isV7).join(' OR ')};`;

/** The id members of a scorer version's JSON body (its own, its scorer's, its creator's, and those of the scorer kind it holds). */
const VERSION_BODY_IDS = [
  '$.id', '$.scorerId', '$.createdBy',
  '$.generatedScorer.id', '$.generatedScorer.createdBy',
  '$.registeredScorer.id', '$.registeredScorer.createdBy',
  '$.finetunedScorer.id', '$.finetunedScorer.createdBy',
];

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
    version: 10,
    name: 'ids made by earlier builds (UUIDv7) are re-keyed to the version-4 ids the server makes now (the same bits, version nibble 4)',
    // The origin's Python SDK checks the version nibble (pydantic UUID4): a user's id answered by
    // GET /current_user, a session's id. Every id the server made is re-keyed by rekeyedId, a function
    // of the id alone, so each reference is re-keyed alike: users, API keys, refresh families, projects,
    // runs, integrations, scorers, versions, sessions, and every column and JSON member naming one.
    // The ids of traces and spans are their clients' (a version-7 one sent is kept as sent) and stay.
    // Foreign keys are checked at the commit, once both sides of each are re-keyed.
    up: (db) => {
      db.pragma('defer_foreign_keys = ON');
      db.exec(`
        ${rekeyColumns('users', ['id'])}
        ${rekeyColumns('api_keys', ['id', 'user_id'])}
        ${rekeyColumns('refresh_families', ['id', 'user_id', 'api_key_id'])}
        ${rekeyColumns('projects', ['id', 'created_by'])}
        ${rekeyColumns('runs', ['id', 'project_id', 'created_by'])}
        ${rekeyColumns('run_insights', ['run_id'])}
        ${rekeyColumns('run_columns', ['run_id'])}
        ${rekeyColumns('run_scorer_settings', ['run_id'])}
        ${rekeyColumns('integrations', ['id', 'created_by'])}
        ${rekeyColumns('scorers', ['id', 'created_by'])}
        ${rekeyColumns('scorer_versions', ['id', 'scorer_id'])}
      `);
      // A scorer version's body holds its ids too; a run's scorer settings name scorers.
      const bodies = db.prepare('SELECT rowid, body FROM scorer_versions').raw().all() as Array<[number, string]>;
      const setBody = db.prepare('UPDATE scorer_versions SET body = ? WHERE rowid = ?');
      for (const [rowid, body] of bodies) {
        const ids = VERSION_BODY_IDS.map((path) => `json_extract(?, '${path}')`).join(', ');
        const found = db.prepare(`SELECT ${ids}`).raw().get(...VERSION_BODY_IDS.map(() => body)) as unknown[];
        let next = body;
        VERSION_BODY_IDS.forEach((path, i) => {
          const id = found[i];
          if (typeof id === 'string' && rekeyedId(id) !== id) next = db.prepare(`SELECT json_set(?, '${path}', ?)`).pluck().get(next, rekeyedId(id)) as string;
        });
        if (next !== body) setBody.run(next, rowid);
      }
      const settings = db.prepare('SELECT run_id, scorers FROM run_scorer_settings').raw().all() as Array<[string, string]>;
      const setScorers = db.prepare('UPDATE run_scorer_settings SET scorers = ? WHERE run_id = ?');
      for (const [runId, scorers] of settings) {
        const list = JSON.parse(scorers) as Array<Record<string, unknown>>;
        const next = JSON.stringify(list.map((s) => (typeof s['scorerId'] === 'string' ? { ...s, scorerId: rekeyedId(s['scorerId']) } : s)));
        if (next !== scorers) setScorers.run(next, runId);
      }
      // Sessions are the server's (POST …/sessions): the records naming one follow it, then the session
      // itself; then every record's run and project. A trace or span keeps its own id. A session whose
      // version-4 form a client already chose for a record of the same run (the form is predictable, so
      // anyone could plant it) keeps its version-7 id, and its records name it still: re-keyed, it would
      // take that record's key and the migration, hence the server's start, would fail.
      const clashes = (id: string): string =>
        `EXISTS (SELECT 1 FROM log_records c WHERE c.run_id = log_records.run_id AND c.id = ${rekeyed(id)})`;
      const kept = db
        .prepare(`SELECT run_id, id FROM log_records WHERE type = 'session' AND ${isV7('id')} AND ${clashes('log_records.id')}`)
        .raw()
        .all() as Array<[string, string]>;
      for (const [runId, id] of kept)
        process.emitWarning(
          `migration 10: session ${id} of run ${runId} keeps its version-7 id: the run holds a record of id ${rekeyedId(id)}, its version-4 form`,
          'TracelightMigration',
        );
      db.exec(`
        UPDATE log_records SET session_id = ${rekeyed('session_id')}
          WHERE type != 'session' AND ${isV7('session_id')}
            AND EXISTS (SELECT 1 FROM log_records s WHERE s.run_id = log_records.run_id AND s.id = log_records.session_id AND s.type = 'session')
            AND NOT ${clashes('log_records.session_id')};
        UPDATE log_records SET id = ${rekeyed('id')}, session_id = ${rekeyed('session_id')}
          WHERE type = 'session' AND ${isV7('id')} AND NOT ${clashes('log_records.id')};
        ${rekeyColumns('log_records', ['run_id', 'project_id'])}
      `);
    },
  },
  {
    version: 11,
    name: "an experiment keeps its task type (the origin's TaskType number; NULL: stored before, answered as the default)",
    up: 'ALTER TABLE runs ADD COLUMN task_type INTEGER;',
  },
  {
    version: 12,
    name: "a run's sessions are found by external id, so that traces sent with session_external_id go into one session",
    // Partial: sessions are few beside traces and spans, and only they are looked up so.
    up: "CREATE INDEX log_records_sessions_by_external_id ON log_records (run_id, external_id) WHERE type = 'session';",
  },
  {
    version: 13,
    name: 'records keep their time to the microsecond (created_at_us: the microseconds past created_at\'s millisecond), and sort by it',
    // Adding a column with a constant default rewrites nothing; the time index is built again with it,
    // so that searches in created_at order (the default) are still read from the index in order.
    up: `
      ALTER TABLE log_records ADD COLUMN created_at_us INTEGER NOT NULL DEFAULT 0;
      DROP INDEX log_records_by_run_time;
      CREATE INDEX log_records_by_run_time ON log_records (run_id, is_trace, created_at, created_at_us, id);
    `,
  },
  {
    version: 14,
    name: 'scoring: jobs written with the records that cause them, claimed under leases; each record keeps its scorers\' outcomes (metric_info)',
    // due_at: when a pending job may be claimed (its backoff), or when a computing job's lease runs out;
    // NULL once it has an outcome, so the partial index holds only the jobs still to do. A job is unique
    // by its record, keyed after the record's trace (trace_key: its trace id, '' for a session): an
    // ingest's jobs, mostly of a few traces, land side by side in the key, where record ids alone (random
    // UUIDs) scattered them over the whole index, each job a page written. A run's status
    // reads its jobs through the unique key's run_id: no index of their states, which every claim and
    // outcome would have to write. Records of a session are found by (run_id, session_id) for its roll-ups.
    up: `
      ALTER TABLE log_records ADD COLUMN metric_info TEXT NOT NULL DEFAULT '{}';
      CREATE INDEX log_records_by_session ON log_records (run_id, session_id);
      CREATE TABLE scoring_jobs (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        project_id TEXT NOT NULL,
        record_id TEXT NOT NULL,
        trace_key TEXT NOT NULL,
        scorer_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        kind TEXT NOT NULL,
        metric_name TEXT NOT NULL,
        owner_id TEXT NOT NULL,
        state TEXT NOT NULL,
        due_at INTEGER,
        lease_owner TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        message TEXT,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (run_id, trace_key, record_id, scorer_id, version)
      ) STRICT;
      CREATE INDEX scoring_jobs_due ON scoring_jobs (due_at) WHERE due_at IS NOT NULL;
    `,
  },
  {
    version: 15,
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
    up: (db) => {
      db.exec(`
      CREATE VIRTUAL TABLE log_record_terms USING fts5(terms, content='', contentless_delete=1, tokenize='ascii', detail=none);
      CREATE VIRTUAL TABLE log_record_terms_own USING fts5(terms, content='', contentless_delete=1, tokenize='ascii', detail=none);
      CREATE TABLE log_record_terms_chunks (key INTEGER PRIMARY KEY, size INTEGER NOT NULL) STRICT;
      ${termsRemovedTrigger(8)}
      CREATE TRIGGER log_records_terms_changed AFTER UPDATE OF ${INDEXED_COLUMNS.join(', ')} ON log_records BEGIN
        DELETE FROM log_record_terms_own WHERE rowid = new.rowid AND EXISTS (SELECT 1 FROM log_record_terms_chunks WHERE key = new.rowid * 2 + 1);
        INSERT INTO log_record_terms_own (rowid, terms) VALUES (new.rowid, ${RECORD_TERMS}(new.run_id, ${INDEXED_COLUMNS.map((c) => `new.${c}`).join(', ')}));
        INSERT INTO log_record_terms_chunks (key, size) VALUES (new.rowid * 2 + 1, 1) ON CONFLICT (key) DO NOTHING;
      END;
    `);
      // The records stored before: grouped as ingest groups them.
      indexTermsOfRecords(db);
    },
  },
  {
    version: 16,
    name: 'incomplete records (a trace its client has not concluded) are found by a partial index of them alone',
    up: 'CREATE INDEX log_records_incomplete ON log_records (run_id) WHERE is_complete = 0;',
  },
  {
    version: 17,
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
  {
    version: 18,
    name: 'scoring: live jobs before backfill (lane), owners in turn; a run\'s backfill still to do found at once',
    // lane 0: stored with its record (live); 1: queued by a recompute (backfill). Jobs still to do are
    // indexed by lane, then owner, then due time: a claim walks the owners with work (a seek each) and
    // takes each one's oldest due job (another seek), so its cost follows the owners, not a backlog of a
    // million jobs. The second index holds only backfill still to do, which a recompute looks up.
    up: `
      ALTER TABLE scoring_jobs ADD COLUMN lane INTEGER NOT NULL DEFAULT 0;
      DROP INDEX scoring_jobs_due;
      CREATE INDEX scoring_jobs_due ON scoring_jobs (lane, owner_id, due_at) WHERE due_at IS NOT NULL;
      CREATE INDEX scoring_jobs_backfill ON scoring_jobs (run_id, scorer_id) WHERE due_at IS NOT NULL AND lane = 1;
    `,
  },
  {
    version: 19,
    name: 'the record index: a document per group of up to 32 records written together, from 8',
    // Its terms are a group's distinct ones: the larger group shares more of them (a trace's calls repeat
    // their prompt and context), so that ingest writes 32 terms a record where it wrote 86 (the bench
    // corpus), for a candidate document that names up to 32 records to read back, not 8 (docs/performance.md).
    // The documents are made again, their rowids now the first record's times 32; a record's own document
    // (log_record_terms_own) is under its rowid, and stays.
    up: (db) => {
      db.exec(`
      DROP TABLE log_record_terms;
      CREATE VIRTUAL TABLE log_record_terms USING fts5(terms, content='', contentless_delete=1, tokenize='ascii', detail=none);
      DELETE FROM log_record_terms_chunks WHERE key % 2 = 0;
      DROP TRIGGER log_records_terms_removed;
      ${termsRemovedTrigger(CHUNK_RECORDS)}
    `);
      indexTermsOfRecords(db);
    },
  },
];
