// Whether the database file at its path is still the one this process opened. Deleted (or replaced)
// while open, it lives on for the connections that hold it, unseen by anyone else: writes go on being
// acknowledged, a probe stays ready, a second process at that path makes a new, empty database, and
// all of it is lost at the next start.
import * as fs from 'node:fs';

const GONE =
  'was removed or replaced while this process had it open: what it wrote since would be lost at the next start, so writes are refused; ' +
  'restart the server (putting the file back first, from a backup, if it was removed by mistake)';

export class FileWatch {
  private checkedAt = Number.NEGATIVE_INFINITY;
  private gone: string | undefined;

  private constructor(
    private readonly path: string,
    private readonly dev: number,
    private readonly ino: number,
    private readonly everyMs: number,
  ) {}

  /** Watches the file at `path` as it is now; undefined when there is none to watch. */
  static of(path: string, everyMs = 1000): FileWatch | undefined {
    try {
      const { dev, ino } = fs.statSync(path);
      return new FileWatch(path, dev, ino, everyMs);
    } catch {
      return undefined;
    }
  }

  /**
   * Why the file at the path is not the one opened, or undefined while it is: looked at most once in
   * `everyMs` (one stat). A file moved away and back is the same file again; a copy put back is not.
   */
  trouble(now = Date.now()): string | undefined {
    if (now - this.checkedAt < this.everyMs) return this.gone;
    this.checkedAt = now;
    let same: boolean;
    try {
      const st = fs.statSync(this.path);
      same = st.dev === this.dev && st.ino === this.ino;
    } catch (e) {
      // Not there; any other failure (a permission changed) says nothing about which file it is.
      same = (e as NodeJS.ErrnoException).code !== 'ENOENT';
    }
    this.gone = same ? undefined : `the database file ${this.path} ${GONE}`;
    return this.gone;
  }
}
