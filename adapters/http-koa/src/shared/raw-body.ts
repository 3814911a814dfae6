// Reads a request body as bytes, inflating gzip, deflate or Brotli, within a byte limit (413 beyond it).
import type { IncomingMessage } from 'node:http';
import * as zlib from 'node:zlib';

export class RawBodyError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413 | 415 | 422 | 503,
  ) {
    super(message);
  }
}

/**
 * The body's bytes, inflated. `admit`, when given, is asked again with the bytes read so far after each
 * chunk (a body's room in the body budget grows as it arrives): false refuses the body (503).
 */
export const readRawBody = (req: IncomingMessage, limitBytes: number, admit?: (bytes: number) => boolean): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    // A stream something else already read would never end: refuse instead of hanging.
    if (req.readableEnded) return reject(new RawBodyError('Request body was already consumed', 415));
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    // A body that says it is too large is refused before a byte of it is read (or asked for, under `Expect: 100-continue`).
    if (encoding === 'identity' && Number(req.headers['content-length']) > limitBytes) return reject(new RawBodyError('Request body too large', 413));
    let stream: NodeJS.ReadableStream = req;
    if (encoding === 'gzip') stream = req.pipe(zlib.createGunzip());
    else if (encoding === 'deflate') stream = req.pipe(zlib.createInflate());
    else if (encoding === 'br') stream = req.pipe(zlib.createBrotliDecompress());
    else if (encoding !== 'identity') return reject(new RawBodyError(`Unsupported content encoding ${encoding}`, 415));
    // A client gone mid-body: the request closes without its end. Piped into an inflater, nothing tells the
    // inflater, which would wait for the rest for ever, holding what it had read, the request never answered
    // nor logged.
    const cutOff = () => new RawBodyError('The request was cut off before its body ended', 400);
    req.once('close', () => {
      if (!req.complete) reject(cutOff());
    });
    let chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    stream.on('data', (c: Buffer) => {
      if (refused) return;
      size += c.length;
      const refusal =
        size > limitBytes
          ? new RawBodyError('Request body too large', 413)
          : admit && !admit(size)
            ? new RawBodyError('Too many request bodies are being received at once; try again shortly', 503)
            : undefined;
      if (refusal) {
        // The rest is read and dropped: the answer can be read by a client still sending.
        refused = true;
        chunks = [];
        req.unpipe();
        req.resume();
        reject(refusal);
        return;
      }
      chunks.push(c);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    // An error of the request itself is its connection's: destroyed under it (a stopping server gives up on
    // a body still to come) it errs before it closes. Only an inflater's says the body is malformed.
    stream.on('error', () => reject(stream === req ? cutOff() : new RawBodyError('Malformed compressed body', 422)));
  });
