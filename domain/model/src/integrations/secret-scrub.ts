// Scrubbing a secret (a gateway token) out of text that is stored, logged or answered: the secret as
// written and in each encoding a provider or a model may echo it in.

export const REDACTED = '[redacted]';

/**
 * The shortest piece of an encoding scrubbed on its own: a shorter run of base64 is ordinary text
 * often enough that scrubbing it would deface messages, and tells too little of the secret to matter.
 */
const MIN_CORE = 8;

/** The UTF-8 bytes of `text` (a lone surrogate as U+FFFD, as an encoder would send it). */
const utf8 = (text: string): number[] => {
  const bytes: number[] = [];
  for (const ch of text) {
    let c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return bytes;
};

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Base64 (RFC 4648 §4, padded) or base64url (§5, unpadded) of the bytes. */
const base64 = (bytes: ReadonlyArray<number>, url: boolean): string => {
  const abc = url ? B64URL : B64;
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a, b, c] = [bytes[i]!, bytes[i + 1], bytes[i + 2]];
    const n = (a << 16) | ((b ?? 0) << 8) | (c ?? 0);
    out += abc[n >> 18]! + abc[(n >> 12) & 63]!;
    out += b === undefined ? (url ? '' : '==') : abc[(n >> 6) & 63]! + (c === undefined ? (url ? '' : '=') : abc[n & 63]!);
  }
  return out;
};

/**
 * The runs of base64 that any encoding of bytes holding `bytes` contains, whatever comes before or
 * after them (`user:<secret>` in a Basic header, a JSON body that quotes it): for each of the three
 * alignments the secret can start at, the groups made of its bytes alone.
 */
const base64Cores = (bytes: ReadonlyArray<number>, url: boolean): string[] => {
  const cores: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const encoded = base64([...new Array<number>(shift).fill(0), ...bytes], url);
    // A first group that holds bytes before the secret, and a last one that holds bytes after it, differ with them.
    const core = encoded.slice(shift === 0 ? 0 : 4, Math.floor((shift + bytes.length) / 3) * 4);
    if (core.length >= MIN_CORE) cores.push(core);
  }
  return cores;
};

/** application/x-www-form-urlencoded (a query string, a form body): alphanumerics and `*-._` kept, a space `+`. */
const formEncoded = (text: string): string =>
  utf8(text)
    .map((b) => (/[A-Za-z0-9*\-._]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : b === 0x20 ? '+' : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

/** encodeURIComponent or encodeURI, '' where they refuse the text (half of a surrogate pair). */
const uriEncoded = (encode: (s: string) => string, text: string): string => {
  try {
    return encode(text);
  } catch {
    return '';
  }
};

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every form of the secret that text may carry it in: as written; URL-encoded (encodeURIComponent,
 * encodeURI, form encoding; percent escapes in either case); escaped in a JSON string; base64 and
 * base64url of the secret, of `Bearer <secret>` and of `:<secret>` (a Basic credential), whole, and the
 * secret's own runs of them at any alignment.
 */
export const secretForms = (secret: string): ReadonlyArray<string> => {
  if (secret === '') return [];
  const forms = new Set<string>([secret, uriEncoded(encodeURIComponent, secret), uriEncoded(encodeURI, secret), formEncoded(secret), JSON.stringify(secret).slice(1, -1)]);
  for (const url of [false, true]) {
    for (const whole of [secret, `Bearer ${secret}`, `:${secret}`]) {
      const encoded = base64(utf8(whole), url);
      if (encoded.length >= MIN_CORE) forms.add(encoded);
    }
    for (const core of base64Cores(utf8(secret), url)) forms.add(core);
  }
  return [...forms].filter((f) => f !== '');
};

/**
 * A function that replaces every form of `secret` (secretForms) in a text with `[redacted]`: built once
 * per secret, applied to each text. Case is ignored (a percent escape is `%2B` or `%2b`): at worst a
 * look-alike of the secret is scrubbed too.
 */
export const secretScrubber = (secret: string): ((text: string) => string) => {
  const forms = secretForms(secret);
  if (forms.length === 0) return (text) => text;
  // Longest first, so that a whole encoding is replaced before a run inside it.
  const pattern = new RegExp([...forms].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'gi');
  return (text) => text.replace(pattern, REDACTED);
};

/** `text` without `secret` in any of its forms (secretScrubber, for one text). */
export const scrubSecret = (text: string, secret: string): string => secretScrubber(secret)(text);
