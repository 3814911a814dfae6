// The answer of export_records: a stream of lines, one record each (JSON, or CSV after a header line),
// read from the run a page at a time as the client takes them, so a run of millions is sent with one
// page in memory.
import type { LogRecord } from '@tracelight/domain';
import type { RecordCursor } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import { Readable } from 'node:stream';
import type { AppContext } from '../shared/context';
import { sendError } from '../shared/respond';
import { presentRecord } from './log-record.presenter';

export interface RecordExport {
  readonly cursor: RecordCursor;
  /** The first page, read before the answer began (so that its failure was a status); null: none. */
  readonly first: ReadonlyArray<LogRecord> | null;
  readonly format: 'jsonl' | 'json' | 'csv';
  /** Gives back the caller's place among the exports in progress (ExportsInProgress), once the answer is done with. */
  readonly release: () => void;
}

/** An export refused before anything was read: its caller has as many in progress as one may. */
export interface ExportsBusy {
  readonly busy: number;
}

/**
 * Exports one user may have in progress at once, on each server process. Each holds a connection and up
 * to a page (1,000 records or 16 MB) in memory for as long as its client takes to read it; without a
 * bound one user, a read-only one included, could make the server hold as many pages as it opens
 * exports. Reading a run whole is a batch job's work: four at once is more than one needs.
 */
export const EXPORTS_PER_USER = 4;

/** The exports in progress, counted per user (ids as the principal names them). */
export class ExportsInProgress {
  private readonly byUser = new Map<string, number>();

  constructor(private readonly perUser: number) {}

  /** Takes one of the user's places: a function that gives it back (the first call only), or undefined when all are taken. */
  take(userId: string): (() => void) | undefined {
    const held = this.byUser.get(userId) ?? 0;
    if (held >= this.perUser) return undefined;
    this.byUser.set(userId, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.byUser.get(userId) ?? 1) - 1;
      if (left === 0) this.byUser.delete(userId);
      else this.byUser.set(userId, left);
    };
  }
}

/** A column's value in a record as presented: a standard column by its name, a metric (`metrics/<name>`) from the record's metrics. */
const columnValue = (presented: Readonly<Record<string, unknown>>, record: LogRecord, columnId: string): unknown =>
  columnId.startsWith('metrics/') ? (record.metrics[columnId.slice('metrics/'.length)] ?? null) : (presented[columnId] ?? null);

/**
 * Text a spreadsheet would take for a formula (=, +, - or @ first, or a tab or CR, which some read past):
 * a record's text is its client's, and an export opened in a spreadsheet must not run it (OWASP's CSV
 * injection). Such text is written after a `'`, which spreadsheets show as text and do not display.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A CSV field (RFC 4180): text as it is (after a `'` when it would start a formula), anything else as
 * its JSON text, quoted when it must be. A number is written as a number, whatever its sign.
 */
export const csvField = (v: unknown): string => {
  const text = v === null || v === undefined ? '' : typeof v === 'string' ? (FORMULA_START.test(v) ? `'${v}` : v) : JSON.stringify(v);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

const linesOf = (records: ReadonlyArray<LogRecord>, format: RecordExport['format'], columns: ReadonlyArray<string> | null): string => {
  let out = '';
  for (const record of records) {
    const presented = presentRecord(record) as Record<string, unknown>;
    if (format === 'csv') out += `${columns!.map((c) => csvField(columnValue(presented, record, c))).join(',')}\r\n`;
    else out += `${JSON.stringify(columns === null ? presented : Object.fromEntries(columns.map((c) => [c, columnValue(presented, record, c)])))}\n`;
  }
  return out;
};

/**
 * Streams the export. A page that fails once the answer has begun cannot change its status: the
 * connection is cut, so the client sees a transfer that did not end rather than a short export.
 */
export const writeExport = (ctx: AppContext, result: RecordExport | ExportsBusy): void => {
  if ('busy' in result) {
    // 429 without Retry-After: when one of the caller's exports ends is the caller's to know.
    sendError(ctx, { status: 429, body: { detail: `Too many exports in progress: you have ${result.busy}, the most one user may have at once. Start this one once one of them has ended.` } });
    return;
  }
  const { cursor, format } = result;
  const columns = cursor.columnIds ?? (format === 'csv' ? cursor.catalogue : null);
  let pending: ReadonlyArray<LogRecord> | null = result.first;
  let header = format === 'csv';
  const stream = new Readable({
    read() {
      if (header) {
        header = false;
        this.push(`${columns!.map(csvField).join(',')}\r\n`);
      }
      const page = pending;
      pending = null;
      if (page !== null) {
        this.push(linesOf(page, format, columns));
        return;
      }
      void cursor.next()().then((next) => {
        // The client went (Koa destroys the body with the answer): nothing more to send.
        if (this.destroyed) return;
        if (E.isLeft(next)) {
          ctx.state.failure = `export cut short: ${next.left._tag}`;
          this.destroy();
          ctx.res.destroy();
        } else if (next.right === null) this.push(null);
        else this.push(linesOf(next.right, format, columns));
      });
    },
  });
  // Ended, cut or its client gone, the stream closes (Koa destroys it with the answer): the place is free.
  stream.once('close', result.release);
  ctx.status = 200;
  ctx.type = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/jsonl; charset=utf-8';
  ctx.body = stream;
};
