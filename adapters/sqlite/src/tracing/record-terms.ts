// The terms of the record index (log_record_terms, migration 15): the distinct trigrams of the words of
// a group of records' text, case-folded; a term for each tag, for each number (number columns and
// metrics, by quarter of an octave), and for each metric's label and boolean; and the FTS5 queries that
// find the groups holding what a filter asks for. A candidate finder, never a judge: a group it names may
// hold a match, and the search's own filter then decides each record exactly, so contains, eq, case and
// number comparisons keep their meaning.
import { foldCase } from '@tracelight/domain';

/** Texts at least this long are looked up before being read again in a group (shorter ones cost less to read). */
const TEXT_SEEN = 64;

/**
 * Records per group of the index, at most, as a power of two: one FTS5 document each, whose rowid holds
 * its first record's rowid shifted left by GROUP_BITS and the group's size less one in those bits
 * (terms-index.ts: groupDocument). A change of it is a migration that makes the documents again
 * (migration 19 made them groups of 32, from 8).
 */
export const GROUP_BITS = 5;
export const CHUNK_RECORDS = 1 << GROUP_BITS;

/**
 * ASCII letters and digits a word is made of, by character code: 0 for any other ASCII character (a
 * separator), else the folded character's number among the 36 (1 to 36: digits, then lower-case
 * letters). Beyond ASCII, letters, marks and digits (WORD below).
 */
const ASCII_WORD = new Uint8Array(128);
/** The character of each number of ASCII_WORD's. */
const WORD_CHARACTER = ' 0123456789abcdefghijklmnopqrstuvwxyz';
for (let n = 1; n < WORD_CHARACTER.length; n++) ASCII_WORD[WORD_CHARACTER.charCodeAt(n)] = n;
for (let c = 65; c < 91; c++) ASCII_WORD[c] = ASCII_WORD[c + 32]!;
/**
 * ASCII trigrams, packed as three numbers of ASCII_WORD's in six bits each (0 for a separator): 2¹⁸
 * places, 512 KiB of stamps. Six bits, not base 37, so that the scan shifts the next character in
 * whatever it is, without a branch on separators: a packed trigram holding a 0 is no term, and is left
 * out when the terms are written (take).
 */
const PACKED = 1 << 18;
const WORD_CODE = Uint8Array.from(WORD_CHARACTER, (c) => c.charCodeAt(0));
const pack = (a: number, b: number, c: number): number => (a << 12) | (b << 6) | c;
const WORD = /[\p{L}\p{M}\p{N}]/u;
/** The longest text read from a copy as bytes (TermCollector.addAscii): a longer one is read as a string. */
const ASCII_COPY = 1 << 20;
/** Whether a character beyond ASCII is part of a word. */
const isWordCharacter = (c: string): boolean => WORD.test(c);

/**
 * Collects the distinct terms of some text: each trigram (three consecutive characters) of each word
 * (a run of letters, marks and digits), case-folded by the domain's foldCase. ASCII trigrams, nearly all
 * of them, are packed in 21 bits and found in a table stamped per group, the rest in a set.
 */
export class TermCollector {
  /**
   * Per packed ASCII trigram: the stamp of the group that last saw it. 100 KiB, once per thread; stamps
   * are the thread's too, so that no two groups share one (two collectors taking turns may then repeat a
   * term, never miss one).
   */
  private static seen: Uint16Array | undefined;
  private static lastStamp = 0;
  private stamp = 0;
  private ascii: number[] = [];
  private readonly other = new Set<string>();

  constructor() {
    TermCollector.seen ??= new Uint16Array(PACKED);
    this.next();
  }

  /** Texts of the group added already, from TEXT_SEEN characters: a trace repeats its question and answer in several records. */
  private readonly texts = new Set<string>();

  /** Adds the terms of `text` (null adds none). */
  add(text: string | null): void {
    if (text === null) return;
    if (text.length >= TEXT_SEEN) {
      if (this.texts.has(text)) return;
      this.texts.add(text);
      if (text.length <= ASCII_COPY && Buffer.byteLength(text, 'utf8') === text.length) return this.addAscii(text);
    }
    const seen = TermCollector.seen!;
    const stamp = this.stamp;
    const ascii = this.ascii;
    // The last three characters' numbers, packed (see PACKED): a separator shifts in a 0. A branch a
    // character on whether it ends a word cost a quarter of the scan (mispredicted once a word).
    let packed = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < 128) {
        packed = ((packed << 6) | ASCII_WORD[code]!) & (PACKED - 1);
        if (seen[packed] !== stamp) {
          seen[packed] = stamp;
          ascii.push(packed);
        }
        continue;
      }
      // A word holding a character beyond ASCII: folded and cut into trigrams as a whole, by code point.
      let start = i;
      while (start > 0 && ASCII_WORD[text.charCodeAt(start - 1)] !== 0 && text.charCodeAt(start - 1) < 128) start--;
      let end = i;
      while (end < text.length) {
        const c = text.charCodeAt(end);
        if (c < 128 ? ASCII_WORD[c] === 0 : !isWordCharacter(String.fromCodePoint(text.codePointAt(end)!))) break;
        end += c >= 0xd800 && c <= 0xdbff && end + 1 < text.length ? 2 : 1;
      }
      if (end === i) {
        // Not a word character (a symbol, a space beyond ASCII): a separator.
        packed = 0;
        if (code >= 0xd800 && code <= 0xdbff) i++;
        continue;
      }
      this.addWord(text.slice(start, end));
      packed = 0;
      i = end - 1;
    }
  }

  /** Where addAscii copies a text's characters, one byte each (grown up to ASCII_COPY), once per thread. */
  private static bytes = Buffer.allocUnsafe(1 << 14);

  /**
   * `add` of a long text all ASCII (most are: the check is one native call), read from a copy of its
   * characters as bytes: a typed array's bytes read faster than a string's characters (2.7 against 3.8 ns
   * a character, measured on the bench corpus's prompts; a short text's copy costs more than it saves).
   */
  private addAscii(text: string): void {
    if (TermCollector.bytes.length < text.length) TermCollector.bytes = Buffer.allocUnsafe(Math.min(ASCII_COPY, text.length * 2));
    const bytes = TermCollector.bytes;
    const n = bytes.write(text, 0, 'latin1');
    const seen = TermCollector.seen!;
    const stamp = this.stamp;
    const ascii = this.ascii;
    let packed = 0;
    for (let i = 0; i < n; i++) {
      packed = ((packed << 6) | ASCII_WORD[bytes[i]!]!) & (PACKED - 1);
      if (seen[packed] !== stamp) {
        seen[packed] = stamp;
        ascii.push(packed);
      }
    }
  }

  /** A whole word holding a character beyond ASCII: its trigrams by code point; the all-ASCII ones packed, as above. */
  private addWord(word: string): void {
    const seen = TermCollector.seen!;
    const chars = Array.from(foldCase(word));
    for (let k = 0; k + 3 <= chars.length; k++) {
      const [x, y, z] = [chars[k]!, chars[k + 1]!, chars[k + 2]!];
      if (x.length === 1 && y.length === 1 && z.length === 1 && x < '\u0080' && y < '\u0080' && z < '\u0080') {
        const packed = pack(ASCII_WORD[x.charCodeAt(0)]!, ASCII_WORD[y.charCodeAt(0)]!, ASCII_WORD[z.charCodeAt(0)]!);
        if (seen[packed] !== this.stamp) {
          seen[packed] = this.stamp;
          this.ascii.push(packed);
        }
      } else this.other.add(x + y + z);
    }
  }

  /** Adds a whole term (a tag's, a number's: see tagTerm, numberTerm). */
  term(t: string): void {
    this.other.add(t);
  }

  /** Where take() writes the ASCII terms (three bytes and a space each) before they are made one string. */
  private static out = Buffer.allocUnsafe(1 << 16);

  /** The terms collected since the last call, space-separated, and a fresh start. */
  take(): string {
    const need = this.ascii.length * 4;
    if (TermCollector.out.length < need) TermCollector.out = Buffer.allocUnsafe(need * 2);
    const buf = TermCollector.out;
    let n = 0;
    for (const p of this.ascii) {
      const a = p >>> 12;
      const b = (p >>> 6) & 63;
      const c = p & 63;
      // Across a separator (or a text's start): no term.
      if (a === 0 || b === 0 || c === 0) continue;
      buf[n++] = WORD_CODE[a]!;
      buf[n++] = WORD_CODE[b]!;
      buf[n++] = WORD_CODE[c]!;
      buf[n++] = 32;
    }
    let out = buf.toString('latin1', 0, Math.max(0, n - 1));
    for (const t of this.other) out += (out.length > 0 ? ' ' : '') + t;
    this.next();
    return out;
  }

  private next(): void {
    this.ascii = [];
    this.other.clear();
    this.texts.clear();
    if (++TermCollector.lastStamp > 0xffff) {
      TermCollector.seen!.fill(0);
      TermCollector.lastStamp = 1;
    }
    this.stamp = TermCollector.lastStamp;
  }
}

/**
 * A run's own term, in every group of its records: the index's query names it beside the needle's, so
 * that a needle common in other runs costs this run nothing.
 */
export const runTerm = (runId: string): string => `r${runId.toLowerCase().replace(/[^0-9a-z]/g, '')}`;

/** 64 bits of FNV-1a over a text's UTF-16 units (two 32-bit halves, two offsets), in hex: names in terms. */
const hash = (text: string): string => {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
};

/** Hashes of the names and tags met lately (a batch's are mostly the same few), at most this many kept. */
const HASHES_KEPT = 4096;
const hashes = new Map<string, string>();
const hashOf = (text: string): string => {
  let h = hashes.get(text);
  if (h === undefined) {
    if (hashes.size >= HASHES_KEPT) hashes.clear();
    hashes.set(text, (h = hash(text)));
  }
  return h;
};

/** A tag's term (collection filters compare tags exactly: a hash, whose rare clash makes a false candidate only). */
export const tagTerm = (tag: string): string => `g${hashOf(tag)}`;

/**
 * A metric's label's term (a categorical scorer's value, or an element of a multilabel scorer's list):
 * the metric's name and the label case-folded, hashed. Text filters (eq, one_of, either case) and
 * collection filters (which compare exactly) on the metric ask for it: a superset, the filter decides.
 * A long label (a freeform scorer's) is hashed without being kept among the names met lately.
 */
export const labelTerm = (metric: string, label: string): string => {
  const text = `${metric}\u0000${foldCase(label)}`;
  return `l${text.length < TEXT_SEEN ? hashOf(text) : hash(text)}`;
};

/** A metric's boolean's term (a code scorer's bool): boolean filters on the metric ask for it. */
export const flagTerm = (metric: string, value: boolean): string => `f${hashOf(metric)}${value ? 't' : 'f'}`;

const bits = new DataView(new ArrayBuffer(8));
/**
 * Where a number stands, in 16 bits that order as numbers do: its sign, then its binary exponent and
 * the first two bits of its mantissa (a quarter of an octave, about 19 % of the value), from the
 * double's own bits, so the same number always falls in the same place.
 */
export const numberPlace = (v: number): number => {
  if (v === 0 || Number.isNaN(v)) return 0x8000;
  bits.setFloat64(0, Math.abs(v));
  const quarter = bits.getUint16(0) >>> 2; // 11 exponent bits, then 2 of the mantissa
  return v > 0 ? 0x8001 + quarter : 0x7fff - quarter;
};
const placeHex = (place: number): string => place.toString(16).padStart(4, '0');
const numberPrefix = (columnId: string): string => `v${hashOf(columnId)}z`;

/** A number column's or a metric's term for a value (the column named as the catalogue names it). */
export const numberTerm = (columnId: string, v: number): string => `${numberPrefix(columnId)}${placeHex(numberPlace(v))}`;

/** The distinct terms of a needle (what a text filter compares), as the index holds them. */
export const needleTerms = (needle: string): ReadonlyArray<string> => {
  const collector = new TermCollector();
  collector.add(needle);
  const text = collector.take();
  return text === '' ? [] : text.split(' ');
};

/** Terms of a needle the index query names at most: spread over the needle, first and last among them. */
const MAX_QUERY_TERMS = 8;

/** A query matching no group: the run's term with a term no group holds (a query cannot be empty). */
const NOTHING = 'nothing';

/** The FTS5 query for the run's groups holding any of `alternatives` (each a query of its own). */
const ofRun = (runId: string, alternatives: ReadonlyArray<string>): string =>
  `"${runTerm(runId)}" AND (${alternatives.length === 0 ? `"${NOTHING}"` : alternatives.join(' OR ')})`;

/**
 * The FTS5 query for groups of the run that may hold any of `needles`: the run's term and all the
 * (spread) terms of one needle. Null when a needle has no term (shorter than three word characters, or
 * no word at all): such a filter cannot be narrowed by the index, and the search reads the run.
 */
export const textQuery = (runId: string, needles: ReadonlyArray<string>): string | null => {
  const alternatives: string[] = [];
  for (const needle of needles) {
    const terms = needleTerms(needle);
    if (terms.length === 0) return null;
    const picked =
      terms.length <= MAX_QUERY_TERMS
        ? terms
        : Array.from({ length: MAX_QUERY_TERMS }, (_, k) => terms[Math.round((k * (terms.length - 1)) / (MAX_QUERY_TERMS - 1))]!);
    alternatives.push(`(${[...new Set(picked)].map((t) => `"${t}"`).join(' AND ')})`);
  }
  if (alternatives.length === 0) return null;
  return ofRun(runId, alternatives);
};

/** The FTS5 query for groups of the run holding any of `tags`. */
export const tagQuery = (runId: string, tags: ReadonlyArray<string>): string => ofRun(runId, [...new Set(tags)].map((t) => `"${tagTerm(t)}"`));

/**
 * The FTS5 query for groups of the run holding a value of the column from `low` to `high` (both
 * included; undefined: no bound): the places between theirs, as few prefixes of the terms as cover them
 * (a place is four hex digits: a prefix of one to three stands for 16 to 4,096 places).
 */
export const numberQuery = (runId: string, columnId: string, low: number | undefined, high: number | undefined): string =>
  ofRun(runId, numberCovers(columnId, low, high));

/** The terms (and term prefixes) numberQuery asks for, as alternatives. */
const numberCovers = (columnId: string, low: number | undefined, high: number | undefined): string[] => {
  const from = low === undefined ? 0 : numberPlace(low);
  const to = high === undefined ? 0xffff : numberPlace(high);
  const prefix = numberPrefix(columnId);
  const covers: string[] = [];
  // Aligned blocks, largest first: 16^k places share the term's first 4 - k hex digits.
  const cover = (lo: number, hi: number): void => {
    for (let at = lo; at <= hi; ) {
      let k = 0;
      while (k < 4 && at % 16 ** (k + 1) === 0 && at + 16 ** (k + 1) - 1 <= hi) k++;
      const digits = placeHex(at).slice(0, 4 - k);
      covers.push(k === 0 ? `"${prefix}${digits}"` : `"${prefix}${digits}"*`);
      at += 16 ** k;
    }
  };
  if (from <= to) cover(from, to);
  return covers;
};

/**
 * The FTS5 query for groups of the run whose metric may hold one of `values` as a text filter compares
 * it (eq, one_of): a label equal to it, case-folded; or a number whose text it is (SQLite writes a real
 * to 15 significant digits, so the number lies within a relative 1e-14 of the text's: the places about
 * it are asked for).
 */
export const metricTextQuery = (runId: string, metric: string, values: ReadonlyArray<string>): string =>
  ofRun(
    runId,
    [...new Set(values)].flatMap((v) => {
      // Past the largest double, a text rounded to 15 digits reads as infinite: the number is the largest.
      const x = Math.min(Math.max(v.trim() === '' ? Number.NaN : Number(v), -Number.MAX_VALUE), Number.MAX_VALUE);
      const around = Math.abs(x) * 1e-14;
      return [`"${labelTerm(metric, v)}"`, ...(Number.isNaN(x) ? [] : numberCovers(`metrics/${metric}`, x - around, x + around))];
    }),
  );

/** The FTS5 query for groups of the run whose metric holds one of `labels` (a label, or an element of a list). */
export const labelQuery = (runId: string, metric: string, labels: ReadonlyArray<string>): string =>
  ofRun(runId, [...new Set(labels)].map((l) => `"${labelTerm(metric, l)}"`));

/** The FTS5 query for groups of the run whose metric holds the boolean `value`. */
export const flagQuery = (runId: string, metric: string, value: boolean): string => ofRun(runId, [`"${flagTerm(metric, value)}"`]);
