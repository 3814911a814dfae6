import type { OtelSpan } from '@tracelight/domain';
import * as E from 'fp-ts/Either';
import { DEFAULT_OTLP_LOG_STREAM, otlpDestination } from './otlp.routes';

const spanIn = (resource: Record<string, string>): OtelSpan => ({
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: '1111111111111111',
  parentSpanId: null,
  name: 'op',
  startTimeUnixNano: 0n,
  endTimeUnixNano: 0n,
  attributes: {},
  events: [],
  status: { code: 0, message: '' },
  resource,
  scope: { name: '', version: '' },
});
const phoenix = [spanIn({ 'openinference.project.name': 'from-phoenix' })];
const none = { project: undefined, logstream: undefined };

describe('where an OTLP export goes', () => {
  it('takes the project header first (it must exist), then Langfuse\'s public key, then the resource attribute (both created on first use)', () => {
    expect(otlpDestination({ project: 'by-header', logstream: 'prod' }, 'public-key', phoenix)).toEqual(E.right({ project: 'by-header', createsProject: false, logStream: 'prod' }));
    expect(otlpDestination(none, 'public-key', phoenix)).toEqual(E.right({ project: 'public-key', createsProject: true, logStream: DEFAULT_OTLP_LOG_STREAM }));
    expect(otlpDestination(none, undefined, phoenix)).toEqual(E.right({ project: 'from-phoenix', createsProject: true, logStream: 'default' }));
  });

  it('refuses an export that names no project, or one no project may be named', () => {
    const message = (d: ReturnType<typeof otlpDestination>) => (E.isLeft(d) && d.left._tag === 'Invalid' ? d.left.message : undefined);
    expect(message(otlpDestination(none, undefined, [spanIn({})]))).toMatch(/^no project named: send the `project` header, or the resource attribute openinference.project.name/);
    expect(message(otlpDestination(none, undefined, [spanIn({ 'openinference.project.name': 'a\nb' })]))).toBe(
      'the resource attribute openinference.project.name is no project name (1 to 255 characters, no control characters)',
    );
    expect(message(otlpDestination(none, 'x'.repeat(256), phoenix))).toBe('the public key (the name of the Basic pair) is no project name (1 to 255 characters, no control characters)');
  });
});
