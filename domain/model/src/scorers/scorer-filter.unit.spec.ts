import type { ScorerId, UserId } from '../shared/ids';
import type { Scorer } from './scorer';
import { type ScorerFilter, scorerMatches, selectScorers } from './scorer-filter';

const scorer = (name: string, over: Partial<Scorer> = {}): Scorer => ({
  id: `id-${name}` as ScorerId, name, scorerType: 'llm', description: '', tags: [], defaults: {}, display: {},
  createdBy: 'u1' as UserId, createdAt: new Date('2026-01-01T00:00:00Z'), updatedAt: new Date('2026-01-02T00:00:00Z'),
  ...over,
});
const email = 'ada@example.com';
const matches = (s: Scorer, f: ScorerFilter) => scorerMatches(s, email, f);

describe('scorerMatches', () => {
  it('compares names exactly unless told not to, by Unicode case folding then', () => {
    const s = scorer('Élan');
    expect(matches(s, { field: 'name', operator: 'eq', value: 'Élan', caseSensitive: true })).toBe(true);
    expect(matches(s, { field: 'name', operator: 'eq', value: 'élan', caseSensitive: true })).toBe(false);
    expect(matches(s, { field: 'name', operator: 'eq', value: 'élan', caseSensitive: false })).toBe(true);
    expect(matches(s, { field: 'name', operator: 'contains', value: 'LA', caseSensitive: false })).toBe(true);
    expect(matches(s, { field: 'name', operator: 'one_of', value: ['x', 'Élan'], caseSensitive: true })).toBe(true);
    expect(matches(s, { field: 'name', operator: 'not_in', value: ['Élan'], caseSensitive: true })).toBe(false);
    expect(matches(s, { field: 'name', operator: 'ne', value: 'x', caseSensitive: true })).toBe(true);
  });
  it('reads the label (else the name), the type, the creator by id or email, tags, and times', () => {
    const s = scorer('tox', { display: { label: 'Toxicity' }, scorerType: 'code', tags: ['Safety'] });
    expect(matches(s, { field: 'label', operator: 'eq', value: 'Toxicity', caseSensitive: true })).toBe(true);
    expect(matches(scorer('plain'), { field: 'label', operator: 'eq', value: 'plain', caseSensitive: true })).toBe(true);
    expect(matches(s, { field: 'scorer_type', operator: 'one_of', value: ['llm', 'code'] })).toBe(true);
    expect(matches(s, { field: 'scorer_type', operator: 'eq', value: 'llm' })).toBe(false);
    expect(matches(s, { field: 'creator', operator: 'eq', value: 'u1' })).toBe(true);
    expect(matches(s, { field: 'creator', operator: 'eq', value: 'ADA@example.com' })).toBe(true);
    expect(matches(s, { field: 'tags', operator: 'contains', value: ['safety'], caseSensitive: true })).toBe(false);
    expect(matches(s, { field: 'tags', operator: 'contains', value: ['safety'], caseSensitive: false })).toBe(true);
    expect(matches(s, { field: 'tags', operator: 'not_in', value: ['Safety'], caseSensitive: true })).toBe(false);
    expect(matches(s, { field: 'created_at', operator: 'lt', value: new Date('2026-01-01T00:00:01Z') })).toBe(true);
    expect(matches(s, { field: 'updated_at', operator: 'gte', value: new Date('2026-01-03T00:00:00Z') })).toBe(false);
  });
});

describe('selectScorers', () => {
  it('keeps those every filter passes, by name when sorted (ties by id), else as listed', () => {
    const all = [scorer('b'), scorer('a', { scorerType: 'code' }), scorer('c')].map((s) => ({ scorer: s }));
    expect(selectScorers(all, email, [], null).map((s) => s.scorer.name)).toEqual(['b', 'a', 'c']);
    expect(selectScorers(all, email, [], { ascending: true }).map((s) => s.scorer.name)).toEqual(['a', 'b', 'c']);
    expect(selectScorers(all, email, [{ field: 'scorer_type', operator: 'eq', value: 'llm' }], { ascending: false }).map((s) => s.scorer.name)).toEqual(['c', 'b']);
  });
});
