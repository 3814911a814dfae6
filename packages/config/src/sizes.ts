// Sizes as an operator writes them in configuration (`10mb`, `512kb`, `20gb`, `1024`).

/** `10mb`, `512kb`, `1024b` or `1024` in bytes (and `20gb` when `gigabytes`); undefined for anything else. */
export const byteSize = (text: string, gigabytes = false): number | undefined => {
  const m = (gigabytes ? /^(\d+)(b|kb|mb|gb)?$/i : /^(\d+)(b|kb|mb)?$/i).exec(text);
  if (!m) return undefined;
  return Number(m[1]) * { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb' | 'gb'];
};
