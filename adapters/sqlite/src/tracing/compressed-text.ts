// Large inputs and outputs are stored deflated (input_z, output_z: migration 17), their search copies
// then NULL: text filters and sorts read them through tl_inflate, the record index holds their terms
// (worked out before they are deflated), and a record read back is inflated once.
import * as zlib from 'node:zlib';

/**
 * Texts of at least this many characters are deflated, where that saves a tenth or more. A deflate costs
 * Node 10 to 30 µs of CPU whatever the text's size (making the zlib stream dominates), so it pays for
 * large texts: measured on the server with the bench corpus, deflating every text from 1 KiB (17 % of
 * them: LLM prompts as message lists, retrieved documents) saved 430 B a span of 2,650 and cost 20 µs
 * of CPU a span of 96, a fifth more for ingest. From 8 KiB (a long retrieved context, a large tool
 * result) a deflate saves kilobytes for the same few µs.
 */
export const DEFLATE_FROM = 8192;

/** The SQL function every connection has (SqliteDatabase): a deflated text's text, NULL for NULL. */
export const INFLATE = 'tl_inflate';

export const inflate = (z: unknown): string | null => (z instanceof Uint8Array ? zlib.inflateRawSync(z).toString('utf8') : null);

/** `text` deflated, or undefined where that would not save a tenth of it. */
export const deflated = (text: string): Buffer | undefined => {
  // The fastest level; a smaller hash table than zlib's default, which each call would allocate and clear.
  const z = zlib.deflateRawSync(text, { level: 1, memLevel: 4 });
  return z.length < text.length * 0.9 ? z : undefined;
};
