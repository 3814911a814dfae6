// The server's master key, and independent sub-keys derived from it per purpose (HKDF-SHA256).
import { CannotStart, NoRoomToStart } from '@tracelight/ports';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const deriveKey = (master: Buffer, purpose: string): Buffer =>
  Buffer.from(crypto.hkdfSync('sha256', master, Buffer.alloc(0), `tracelight/${purpose}`, 32));

/**
 * A short name of a master key, for telling which key a process uses without showing it: 48 bits of a
 * sub-key of its own (HKDF, as every other use of the key), which tells nothing of the key or the others.
 */
export const keyId = (master: Buffer): string => deriveKey(master, 'key-id').subarray(0, 6).toString('hex');

const KEY_FILE = 'secret.key';

/**
 * The master key as loadOrCreateSecretKey finds it, or undefined where there is none yet: for a tool
 * that must use the servers' key and would be wrong to make one of its own.
 */
export const loadSecretKey = (opts: { fromEnv?: string | undefined; dataDir: string }): Buffer | undefined => {
  if (opts.fromEnv !== undefined) return parseSecretKey(opts.fromEnv);
  const file = path.join(opts.dataDir, KEY_FILE);
  if (!fs.existsSync(file)) return undefined;
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  return parseSecretKey(fs.readFileSync(file, 'utf8').trim());
};

/**
 * The master key: TRACELIGHT_SECRET_KEY when given (base64, base64url or hex of at least 32 bytes;
 * any other string of at least 32 characters is hashed to 32 bytes), else `<dataDir>/secret.key`,
 * generated on first start with mode 0600.
 */
export const loadOrCreateSecretKey = (opts: { fromEnv?: string | undefined; dataDir: string }): Buffer => {
  if (opts.fromEnv !== undefined) return parseSecretKey(opts.fromEnv);
  try {
    fs.mkdirSync(opts.dataDir, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CannotStart(
      `cannot make the data directory ${opts.dataDir} (${code ?? String(e)}): TRACELIGHT_DATA_DIR must name a directory this process may write, or a path where one can be made`,
    );
  }
  const file = path.join(opts.dataDir, KEY_FILE);
  if (fs.existsSync(file)) {
    if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
    return parseSecretKey(fs.readFileSync(file, 'utf8').trim());
  }
  createKeyFile(file, crypto.randomBytes(32));
  return parseSecretKey(fs.readFileSync(file, 'utf8').trim());
};

/** Errors that mean the disk (or this process's file-size limit) has no room: the operator's to fix. */
const NO_ROOM = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);
/** Errors that mean this process may not write there (permissions, a read-only file system, a file in a directory's place). */
const NOT_ALLOWED = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST']);

/**
 * Writes a new key file whole or not at all: written and synced under a temporary name, then linked
 * into place (if another process linked its key first, theirs wins), the directory synced, so that
 * neither a crash nor a full disk leaves an empty or partial key, or the temporary file.
 */
const createKeyFile = (file: string, key: Buffer): void => {
  // Random, not only the pid: replicas in containers of their own share a volume and often a pid (1),
  // and one would truncate, write and remove the other's temporary file while it was being linked.
  const tmp = `${file}.${process.pid}-${crypto.randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = fs.openSync(tmp, 'wx', 0o600);
    try {
      fs.writeFileSync(fd, `${key.toString('base64url')}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const dir = fs.openSync(path.dirname(file), 'r');
    try {
      fs.fsyncSync(dir);
    } finally {
      fs.closeSync(dir);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const words = `cannot write a new secret key to ${file} (${code ?? String(e)}): nothing was kept. Free space on its disk or let this process write there (or set TRACELIGHT_SECRET_KEY), and start again`;
    // No room, or a path this process may not write, is reported in these words alone, as a full
    // database is; anything else with its stack.
    if (code !== undefined && NO_ROOM.has(code)) throw new NoRoomToStart(words);
    throw code !== undefined && NOT_ALLOWED.has(code) ? new CannotStart(words) : new Error(words);
  } finally {
    // Where the key could not be written, the temporary one may not be looked at either: its removal
    // failing must not hide why (it threw EACCES in place of the words above).
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      /* nothing was made there */
    }
  }
};

/** What a master key must be; the server's configuration report says it in these words. */
export const SECRET_KEY_RULE = 'TRACELIGHT_SECRET_KEY must be at least 32 bytes (64 hex or 43 base64 characters, or a 32+ character passphrase)';

/** What is wrong with a rotation whose previous key is the key in use (the two swapped, or the old one not yet replaced); undefined when nothing is. */
export const sameKeysProblem = (secretKey: Buffer, previousSecretKey: Buffer | undefined): string | undefined =>
  previousSecretKey?.equals(secretKey)
    ? 'TRACELIGHT_PREVIOUS_SECRET_KEY is the key in use: give the key being replaced there, and the new one as TRACELIGHT_SECRET_KEY (or in secret.key)'
    : undefined;

/** The key a text gives, or undefined when it gives none (too short). */
const keyOf = (text: string): Buffer | undefined => {
  if (/^[0-9a-f]{64,}$/i.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9_\-+/]{43,}={0,2}$/.test(text)) {
    const b = Buffer.from(text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), 'base64url');
    if (b.length >= 32) return b;
  }
  if (text.length >= 32) return crypto.createHash('sha256').update(text, 'utf8').digest();
  return undefined;
};

/** Whether TRACELIGHT_SECRET_KEY's text gives a master key: checked with the rest of the configuration. */
export const isUsableSecretKey = (text: string): boolean => keyOf(text) !== undefined;

/** The master key a text gives (TRACELIGHT_SECRET_KEY's forms); throws SECRET_KEY_RULE for one too short. */
export const parseSecretKey = (text: string): Buffer => {
  const key = keyOf(text);
  if (key === undefined) throw new Error(SECRET_KEY_RULE);
  return key;
};
