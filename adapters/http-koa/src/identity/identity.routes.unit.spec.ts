import { REFRESH_RACED, SESSION_REVOKED_BY_REUSE } from '@tracelight/domain';
import { expiresRefusedCookie } from './identity.routes';

const refusal = (detail: string, status = 401) => ({ status, body: { detail } });

describe('which refusals of a refresh expire the refresh cookie', () => {
  it('expires a cookie refused alone', () => {
    expect(expiresRefusedCookie(refusal(SESSION_REVOKED_BY_REUSE), false, true)).toBe(true);
  });

  it('leaves a cookie sent beside an Authorization header, and sets nothing where none was sent', () => {
    expect(expiresRefusedCookie(refusal(SESSION_REVOKED_BY_REUSE), true, true)).toBe(false);
    expect(expiresRefusedCookie(refusal(SESSION_REVOKED_BY_REUSE), false, false)).toBe(false);
  });

  it('leaves the cookie when concurrent refreshes spent it first: the session stands', () => {
    expect(expiresRefusedCookie(refusal(REFRESH_RACED), false, true)).toBe(false);
  });

  it('leaves it on what is not a 401', () => {
    expect(expiresRefusedCookie(refusal('Too many requests', 429), false, true)).toBe(false);
  });
});
