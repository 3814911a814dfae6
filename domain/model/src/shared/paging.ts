// Offset pagination as the spec's list responses express it (starting_token / limit).
export interface PageRequest {
  readonly startingToken: number;
  readonly limit: number;
}

export interface Page<T> {
  readonly items: ReadonlyArray<T>;
  readonly startingToken: number;
  readonly limit: number;
  /** The offset of the next page, or null when this page is the last. */
  readonly nextStartingToken: number | null;
}

/**
 * Builds a page from what a bounded read found: `items` (at most `limit`, fewer when the read stopped
 * at a size budget) and whether more follow. The next page starts right after these items.
 */
export const pageFromFound = <T>(items: ReadonlyArray<T>, more: boolean, req: PageRequest): Page<T> => ({
  items,
  startingToken: req.startingToken,
  limit: req.limit,
  nextStartingToken: more ? req.startingToken + items.length : null,
});
