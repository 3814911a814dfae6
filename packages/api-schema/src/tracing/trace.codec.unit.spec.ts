// What an ingest body may hold as text: refusals of half a surrogate pair where a record stores text
// as text or as a column's values, and where it keeps JSON.
import { decodedOk, detailOf } from '../shared/expect-decode';
import { preciseIso } from '../shared/primitives.codec';
import { LogTracesIngestRequest, RecordSearchRequest } from './trace.codec';

const LOG_STREAM = '0f8fad5b-d9cb-469f-a165-70867728950e';
const body = (trace: Record<string, unknown>) => ({ log_stream_id: LOG_STREAM, traces: [trace] });
const cut = 'cut \ud83d in half';
const UNICODE = { type: 'string_unicode', msg: 'Input should be a valid string, unable to parse raw data as a unicode string: it holds half of a surrogate pair' };

describe('LogTracesIngestRequest', () => {
  it.each(['name', 'external_id', 'dataset_input', 'dataset_output', 'progress_message', 'error_message', 'model', 'finish_reason', 'tool_call_id', 'agent_name', 'evaluator_name', 'selector_path'])(
    'refuses half of a surrogate pair in %s, stored as text',
    (field) => {
      expect(detailOf(LogTracesIngestRequest, body({ [field]: cut }))).toEqual([{ loc: ['body', 'traces', 0, field], ...UNICODE, input: cut }]);
      expect(detailOf(LogTracesIngestRequest, body({ spans: [{ type: 'llm', [field]: cut }] }))).toEqual([{ loc: ['body', 'traces', 0, 'spans', 0, field], ...UNICODE, input: cut }]);
    },
  );

  it('refuses half of a surrogate pair in a tag, a metric’s name and tools sent as their text', () => {
    expect(detailOf(LogTracesIngestRequest, body({ tags: ['ok', cut] }))).toEqual([{ loc: ['body', 'traces', 0, 'tags', 1], ...UNICODE, input: cut }]);
    expect(detailOf(LogTracesIngestRequest, body({ metrics: { ok: 1, [cut]: 2 } }))).toEqual([{ loc: ['body', 'traces', 0, 'metrics', cut, '[key]'], ...UNICODE, input: cut }]);
    expect(detailOf(LogTracesIngestRequest, body({ tools: cut }))).toEqual([{ loc: ['body', 'traces', 0, 'tools'], ...UNICODE, input: cut }]);
  });

  it('takes whole pairs anywhere, and half of one where the record keeps JSON (input, output, metadata, tools as a list)', () => {
    const whole = 'whole 😀';
    decodedOk(LogTracesIngestRequest, body({ name: whole, tags: [whole], metrics: { [whole]: 1 }, model: whole, tools: whole }));
    decodedOk(LogTracesIngestRequest, body({
      input: cut,
      output: { text: cut },
      user_metadata: { [cut]: cut },
      dataset_metadata: { note: cut },
      tools: [{ name: cut }],
      redacted_input: cut,
    }));
  });
});

describe('RecordSearchRequest', () => {
  const search = (filter: Record<string, unknown>) => ({ log_stream_id: LOG_STREAM, filters: [filter] });

  it('refuses half of a surrogate pair in a text or collection filter’s value, which the engines would compare differently', () => {
    expect(detailOf(RecordSearchRequest, search({ type: 'text', column_id: 'input', operator: 'contains', value: cut }))).toEqual([
      { loc: ['body', 'filters', 0, 'value'], ...UNICODE, input: cut },
    ]);
    expect(detailOf(RecordSearchRequest, search({ type: 'collection', column_id: 'tags', operator: 'contains', value: ['ok', cut] }))).toEqual([
      { loc: ['body', 'filters', 0, 'value', 1], ...UNICODE, input: cut },
    ]);
  });

  it('takes whole pairs and U+FFFD itself', () => {
    for (const value of ['whole 😀', '\uFFFD', ['😀', 'x']]) decodedOk(RecordSearchRequest, search({ type: 'text', column_id: 'name', operator: Array.isArray(value) ? 'one_of' : 'eq', value }));
  });
});

describe('a filter’s column', () => {
  const search = (filter: Record<string, unknown>) => ({ log_stream_id: LOG_STREAM, filters: [filter] });
  it('is read from column_id, or from name as the Python SDK 1.x sends it (column_id first), and is missing without either', () => {
    const column = (filter: Record<string, unknown>) => decodedOk(RecordSearchRequest, search(filter)).filters?.[0]?.column_id;
    expect(column({ type: 'text', name: 'external_id', operator: 'eq', value: 'x' })).toBe('external_id');
    expect(column({ type: 'text', column_id: 'name', name: 'external_id', operator: 'eq', value: 'x' })).toBe('name');
    expect('name' in decodedOk(RecordSearchRequest, search({ type: 'id', name: 'id', operator: 'eq', value: LOG_STREAM })).filters![0]!).toBe(false);
    expect(detailOf(RecordSearchRequest, search({ type: 'text', operator: 'eq', value: 'x' }))).toEqual([
      { loc: ['body', 'filters', 0, 'column_id'], type: 'missing', msg: 'Field required', input: { type: 'text', operator: 'eq', value: 'x' } },
    ]);
  });
});

describe('a record’s created_at', () => {
  const at = (created_at: string) => decodedOk(LogTracesIngestRequest, body({ created_at })).traces[0]!.created_at;
  it('is kept to the microsecond, in UTC, digits past the sixth dropped', () => {
    expect(at('2026-02-03T04:05:06.123456Z')).toEqual({ at: new Date('2026-02-03T04:05:06.123Z'), micros: 456 });
    expect(at('2026-02-03T06:05:06.1234567+02:00')).toEqual({ at: new Date('2026-02-03T04:05:06.123Z'), micros: 456 });
    expect(at('2026-02-03T04:05:06.12345Z')).toEqual({ at: new Date('2026-02-03T04:05:06.123Z'), micros: 450 });
    expect(at('2026-02-03T04:05:06.1Z')).toEqual({ at: new Date('2026-02-03T04:05:06.100Z'), micros: 0 });
    expect(at('2026-02-03T04:05:06Z')).toEqual({ at: new Date('2026-02-03T04:05:06.000Z'), micros: 0 });
  });
  it('is written back with six fraction digits when it has microseconds, else three', () => {
    expect(preciseIso(new Date('2026-02-03T04:05:06.123Z'), 7)).toBe('2026-02-03T04:05:06.123007Z');
    expect(preciseIso(new Date('2026-02-03T04:05:06.123Z'), 0)).toBe('2026-02-03T04:05:06.123Z');
  });
  it('still needs an offset', () => {
    expect(detailOf(LogTracesIngestRequest, body({ created_at: '2026-02-03T04:05:06.123456' }))[0]).toMatchObject({ loc: ['body', 'traces', 0, 'created_at'], type: 'timezone_aware' });
  });
});
