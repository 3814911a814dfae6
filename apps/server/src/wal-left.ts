// After the SQLite storage has closed: whether its write-ahead log was left beside the file, and the likely why.
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The last connection to close moves the write-ahead log into the database file and removes it. When
 * the log is still there, what was in it is not lost (the next open replays it), but until then the file
 * alone is not the whole database. SQLite's close does not say why it left it, so this looks for a reason.
 * Undefined when there is no log.
 */
export const walLeftBehind = (databasePath: string): { wal: string; wal_bytes: number; reason: string } | undefined => {
  const wal = `${databasePath}-wal`;
  let walBytes: number;
  try {
    walBytes = fs.statSync(wal).size;
  } catch {
    return undefined;
  }
  const dir = path.dirname(databasePath);
  const reason = ((): string => {
    try {
      const disk = fs.statfsSync(dir);
      const free = disk.bavail * disk.bsize;
      if (free < walBytes) return `its disk has ${free} bytes free, less than the log's ${walBytes}: a full disk`;
    } catch {
      /* cannot tell */
    }
    try {
      fs.accessSync(dir, fs.constants.W_OK);
    } catch (e) {
      return `this process may not write its directory ${dir} (${(e as NodeJS.ErrnoException).code ?? String(e)}), so cannot remove the log`;
    }
    return 'another process still has the database open (another server, tracelight-admin), or SQLite could not write the file';
  })();
  return { wal, wal_bytes: walBytes, reason };
};
