import { asId, type RefreshFamilyId, type UserId } from '../shared/ids';
import { judgeRefresh, type RefreshFamily, SESSION_EXPIRED, SESSION_REVOKED_BY_REUSE } from './refresh-family';

const ms = (iso: string) => new Date(iso);
const family = (over: Partial<RefreshFamily> = {}): RefreshFamily => ({
  id: asId<RefreshFamilyId>('0190b0b0-0000-7000-8000-000000000001'),
  userId: asId<UserId>('0190b0b0-0000-7000-8000-000000000002'),
  startedAt: ms('2026-05-01T00:00:00.000Z'),
  apiKeyId: null,
  generation: 4,
  rotatedAt: ms('2026-05-02T00:00:00.000Z'),
  revokedAt: null,
  expiresAt: ms('2026-05-08T00:00:00.000Z'),
  ...over,
});
const GRACE = 5_000;
const after = (f: RefreshFamily, elapsedMs: number) => new Date(f.rotatedAt!.getTime() + elapsedMs);

describe('judgeRefresh', () => {
  it('rotates the current generation', () => {
    expect(judgeRefresh(family(), 4, after(family(), 60_000), GRACE)).toEqual({ kind: 'rotate' });
    expect(judgeRefresh(family({ generation: 0, rotatedAt: null }), 0, ms('2026-05-01T00:00:01.000Z'), GRACE)).toEqual({ kind: 'rotate' });
  });

  it('answers the token spent last with its successor within the grace window, and takes it for a reuse after', () => {
    const f = family();
    expect(judgeRefresh(f, 3, after(f, 0), GRACE)).toEqual({ kind: 'successor' });
    expect(judgeRefresh(f, 3, after(f, GRACE), GRACE)).toEqual({ kind: 'successor' });
    // A refresh that began before the rotation it lost to (its clock read earlier) is within the window too.
    expect(judgeRefresh(f, 3, after(f, -20), GRACE)).toEqual({ kind: 'successor' });
    expect(judgeRefresh(f, 3, after(f, GRACE + 1), GRACE)).toEqual({ kind: 'reused' });
  });

  it('takes any older token for a reuse, however soon', () => {
    expect(judgeRefresh(family(), 2, after(family(), 1), GRACE)).toEqual({ kind: 'reused' });
    expect(judgeRefresh(family(), 0, after(family(), 1), GRACE)).toEqual({ kind: 'reused' });
  });

  it('with no grace window, never answers a spent token again', () => {
    expect(judgeRefresh(family(), 3, after(family(), 0), 0)).toEqual({ kind: 'reused' });
    expect(judgeRefresh(family(), 3, after(family(), -20), 0)).toEqual({ kind: 'reused' });
  });

  it('refuses every token of a revoked or ended family, the current one included', () => {
    const revoked = family({ revokedAt: ms('2026-05-03T00:00:00.000Z') });
    for (const generation of [4, 3, 1]) expect(judgeRefresh(revoked, generation, after(revoked, 1), GRACE)).toEqual({ kind: 'refused', reason: SESSION_REVOKED_BY_REUSE });
    const f = family();
    expect(judgeRefresh(f, 4, f.expiresAt, GRACE)).toEqual({ kind: 'refused', reason: SESSION_EXPIRED });
  });

  it('refuses a generation the family has not reached', () => {
    expect(judgeRefresh(family(), 5, after(family(), 1), GRACE)).toEqual({ kind: 'refused', reason: 'unknown refresh token' });
  });
});
