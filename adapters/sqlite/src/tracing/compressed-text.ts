// Large inputs and outputs are stored deflated (input_z, output_z: migration 15), their search copies
// then NULL: text filters and sorts read them through tl_inflate, the record index holds their terms
// (worked out before they are deflated), and a record read back is inflated once.
import * as zlib from 'node:zlib';

/**
 * Texts of at least this many characters are deflated, where that saves a tenth or more. Measured on
 * the bench corpus (LLM prompts as message lists, retrieved documents, tool results): from 1 KiB, 17 %
 * of the texts, 641 B a record deflated to 330 (deflate level 1) for 15 µs of CPU a record; from 256
 * characters twice the CPU for a third more bytes saved.
 */
export const DEFLATE_FROM = 1024;

/** The SQL function every connection has (SqliteDatabase): a deflated text's text, NULL for NULL. */
export const INFLATE = 'tl_inflate';

export const inflate = (z: unknown): string | null => (z instanceof Uint8Array ? zlib.inflateRawSync(z).toString('utf8') : null);

/** `text` deflated, or undefined where that would not save a tenth of it. */
export const deflated = (text: string): Buffer | undefined => {
  const z = zlib.deflateRawSync(text, { level: 1 });
  return z.length < text.length * 0.9 ? z : undefined;
};
