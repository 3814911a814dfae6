import { pageFromFound } from '../shared/paging';
import { isSettledVersionPage, type ScorerVersion } from './scorer-version';

// Only the numbers matter here.
const numbered = (...versions: number[]) => versions.map((version) => ({ version }) as ScorerVersion);

describe('isSettledVersionPage', () => {
  it('settles a full page when every number up to its last one is there', () => {
    expect(isSettledVersionPage(pageFromFound({ items: numbered(1, 2), more: true }, { startingToken: 0, limit: 2 }))).toBe(true);
    expect(isSettledVersionPage(pageFromFound({ items: numbered(3, 4), more: true }, { startingToken: 2, limit: 2 }))).toBe(true);
  });

  it('never settles the last page, which gains the versions added next', () => {
    expect(isSettledVersionPage(pageFromFound({ items: numbered(1, 2), more: false }, { startingToken: 0, limit: 2 }))).toBe(false);
    expect(isSettledVersionPage(pageFromFound({ items: numbered(3), more: false }, { startingToken: 2, limit: 2 }))).toBe(false);
    expect(isSettledVersionPage(pageFromFound({ items: [], more: false }, { startingToken: 0, limit: 2 }))).toBe(false);
  });

  it('does not settle a page past a missing number, which may still arrive and move the rows up', () => {
    // 5 is numbered but not yet visible (or its insert failed): the page would read 4, 5, … later.
    expect(isSettledVersionPage(pageFromFound({ items: numbered(3, 4, 6), more: true }, { startingToken: 2, limit: 3 }))).toBe(false);
    expect(isSettledVersionPage(pageFromFound({ items: numbered(1, 2), more: true }, { startingToken: 0, limit: 2 }))).toBe(true);
  });

  it('does not settle a page cut short by its size budget: it ends before its limit', () => {
    expect(isSettledVersionPage(pageFromFound({ items: numbered(1), more: true }, { startingToken: 0, limit: 2 }))).toBe(false);
  });
});
