import { busy } from '@tracelight/domain';
import { toHttpError } from './domain-error.mapper';

describe('a busy service (M6)', () => {
  it('answers 429 when the caller\'s own requests fill its share, 503 when everyone\'s fill the service, each with Retry-After', () => {
    expect(toHttpError(busy('yours wait', 5, true))).toEqual({ status: 429, body: { detail: 'yours wait' }, headers: { 'Retry-After': '5' }, note: 'busy' });
    expect(toHttpError(busy('all wait', 2, false))).toEqual({ status: 503, body: { detail: 'all wait' }, headers: { 'Retry-After': '2' }, note: 'busy' });
  });
});
