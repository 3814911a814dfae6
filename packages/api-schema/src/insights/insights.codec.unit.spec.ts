import { decodedOk, detailOf } from '../shared/expect-decode';
import { RunInsightsRequest, RunInsightsResponse, RunPath } from './insights.codec';

const U1 = '0f8fad5b-d9cb-469f-a165-70867728950e';
const U2 = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

describe('RunInsightsRequest', () => {
  it('decodes the empty and null forms as they were sent (the domain fills the defaults)', () => {
    expect(decodedOk(RunInsightsRequest, {})).toEqual({});
    expect(decodedOk(RunInsightsRequest, { insights: null })).toEqual({ insights: null });
    expect(decodedOk(RunInsightsRequest, { insights: { logstream: null } })).toEqual({ insights: { logstream: null } });
  });

  it('gives a logstream without enabled the spec’s default, false', () => {
    expect(decodedOk(RunInsightsRequest, { insights: { logstream: {} } })).toEqual({ insights: { logstream: { enabled: false } } });
    expect(decodedOk(RunInsightsRequest, { insights: { logstream: { start_time: null } } })).toEqual({ insights: { logstream: { enabled: false, start_time: null } } });
  });

  it('decodes a full body: start_time to a Date, unknown keys dropped', () => {
    const decoded = decodedOk(RunInsightsRequest, {
      insights: { logstream: { enabled: true, start_time: '2026-01-02T04:04:05+01:00', colour: 'red' }, other: 1 },
      extra: true,
    });
    expect(decoded).toEqual({ insights: { logstream: { enabled: true, start_time: new Date('2026-01-02T03:04:05.000Z') } } });
  });

  it('reports a bad boolean and a date-time without offset, each at its full location', () => {
    expect(detailOf(RunInsightsRequest, { insights: { logstream: { enabled: 'maybe', start_time: '2026-01-02T03:04:05' } } })).toEqual([
      { loc: ['body', 'insights', 'logstream', 'enabled'], msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing', input: 'maybe' },
      { loc: ['body', 'insights', 'logstream', 'start_time'], msg: 'Input should have timezone info', type: 'timezone_aware', input: '2026-01-02T03:04:05' },
    ]);
  });

  it('reports a bad date-time', () => {
    expect(detailOf(RunInsightsRequest, { insights: { logstream: { start_time: 'next tuesday' } } })).toEqual([
      {
        loc: ['body', 'insights', 'logstream', 'start_time'],
        msg: 'Input should be a valid datetime, invalid character in year',
        type: 'datetime_parsing',
        input: 'next tuesday',
        ctx: { error: 'invalid character in year' },
      },
    ]);
  });

  it('reports a non-object once (the null branch of the union says nothing new)', () => {
    expect(detailOf(RunInsightsRequest, { insights: 'yes' })).toEqual([
      { loc: ['body', 'insights'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type', input: 'yes' },
    ]);
    expect(detailOf(RunInsightsRequest, { insights: { logstream: [] } })).toEqual([
      { loc: ['body', 'insights', 'logstream'], msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type', input: [] },
    ]);
  });
});

describe('RunPath', () => {
  it('decodes both ids to canonical form', () => {
    expect(decodedOk(RunPath, { project_id: U1.toUpperCase(), run_id: U2 }, 'path')).toEqual({ project_id: U1, run_id: U2 });
  });
  it('reports a bad uuid at path', () => {
    expect(detailOf(RunPath, { project_id: 'not-a-uuid', run_id: U2 }, 'path')).toEqual([
      {
        loc: ['path', 'project_id'],
        msg: 'Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1',
        type: 'uuid_parsing',
        input: 'not-a-uuid',
        ctx: { error: 'invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1' },
      },
    ]);
  });
});

describe('RunInsightsResponse', () => {
  it('describes what the server sends', () => {
    const body = { insights: { logstream: { enabled: false, start_time: null } }, run_id: U2 };
    expect(RunInsightsResponse.is(body)).toBe(true);
    expect(RunInsightsResponse.is({ insights: { logstream: { enabled: false } }, run_id: U2 })).toBe(false);
  });
});
