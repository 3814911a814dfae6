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
 * What a bounded read found: at most `limit` items from its start, fewer when they reached the read's
 * size budget, and whether more follow them.
 */
export interface FoundPage<T> {
  readonly items: ReadonlyArray<T>;
  readonly more: boolean;
}

/** Builds a page from what a bounded read found. The next page starts right after its items. */
export const pageFromFound = <T>(found: FoundPage<T>, req: PageRequest): Page<T> => ({
  items: found.items,
  startingToken: req.startingToken,
  limit: req.limit,
  nextStartingToken: found.more ? req.startingToken + found.items.length : null,
});

/** Where a bounded read cuts its page: `limit` items, or sooner once their sizes reach `maxBytes`. */
export interface PageCut<R> {
  readonly limit: number;
  readonly maxBytes: number;
  /** A row's size against the budget, as the engine stores it. */
  readonly sizeOf: (row: R) => number;
}

/**
 * The rule of every bounded read, for rows read in order with one beyond the limit asked for: the page
 * ends after the row that brings it to `maxBytes` (so it always holds one), or at `limit`; a row seen
 * past the end says that more follow. Only the rows kept are decoded.
 */
const collector = <R, T>(cut: PageCut<R>, decode: (row: R) => T) => {
  const items: T[] = [];
  let bytes = 0;
  return {
    items,
    /** Keeps the row, or says (false) that the page is full and this row is one more. */
    offer: (row: R): boolean => {
      if (items.length === cut.limit || bytes >= cut.maxBytes) return false;
      bytes += cut.sizeOf(row);
      items.push(decode(row));
      return true;
    },
  };
};

/** One bounded page from rows read synchronously (stops reading at the end of the page). */
export const takePage = <R, T>(rows: Iterable<R>, cut: PageCut<R>, decode: (row: R) => T): FoundPage<T> => {
  const page = collector(cut, decode);
  for (const row of rows) if (!page.offer(row)) return { items: page.items, more: true };
  return { items: page.items, more: false };
};

/** One bounded page from rows read asynchronously, such as a database cursor. */
export const takePageAsync = async <R, T>(rows: AsyncIterable<R>, cut: PageCut<R>, decode: (row: R) => T): Promise<FoundPage<T>> => {
  const page = collector(cut, decode);
  for await (const row of rows) if (!page.offer(row)) return { items: page.items, more: true };
  return { items: page.items, more: false };
};
