// Parses a multipart/form-data request into its fields and one uploaded file, within a byte limit.
import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';

export interface UploadedFile {
  readonly filename: string;
  readonly mimeType: string;
  readonly content: Buffer;
}

export class MultipartError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413 | 415 | 422,
  ) {
    super(message);
  }
}

/**
 * Room in an upload's body besides its file: the parts' headers and boundaries, and the form's other fields
 * (a few short values).
 */
export const MULTIPART_ENVELOPE_BYTES = 64 * 1024;

export const parseMultipart = (
  req: IncomingMessage,
  limitBytes: number,
): Promise<{ fields: Record<string, string>; files: Record<string, UploadedFile> }> =>
  new Promise((resolve, reject) => {
    // The body's limit: one file at the limit and its envelope. One that says it is larger is refused before a
    // byte of it is read (or asked for, under `Expect: 100-continue`), as JSON bodies are; one that does not
    // say (chunked) is cut where it passes the limit.
    const bodyLimitBytes = limitBytes + MULTIPART_ENVELOPE_BYTES;
    if (Number(req.headers['content-length']) > bodyLimitBytes) return reject(new MultipartError('Request body too large', 413));
    let bb: busboy.Busboy;
    try {
      // busboy calls a file that reaches `fileSize` over it (it cannot tell whether more follows): one byte
      // more, so that a file of exactly `limitBytes` is taken and only a larger one is refused.
      // A part's plain `filename` read as UTF-8, as browsers and curl send it (busboy's default, Latin-1,
      // made `€.py` come back as `â\u0082¬.py`); a `filename*` says its own charset.
      bb = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fileSize: limitBytes + 1, files: 4, fields: 50, fieldSize: 64 * 1024 } });
    } catch (e) {
      reject(new MultipartError(e instanceof Error ? e.message : 'Malformed multipart body', 415));
      return;
    }
    // No prototype: a part named `__proto__` is just a part.
    const fields: Record<string, string> = Object.create(null);
    const files: Record<string, UploadedFile> = Object.create(null);
    let failure: MultipartError | undefined;
    const malformed = (e: unknown) => new MultipartError(e instanceof Error ? e.message : 'Malformed multipart body', 422);
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => {
        failure = new MultipartError('Uploaded file too large', 413);
      });
      // A body that ends inside a file part fails the file's stream too: unheard, that error would
      // end the process.
      stream.on('error', (e) => {
        failure ??= malformed(e);
      });
      stream.on('close', () => {
        files[name] = { filename: info.filename ?? '', mimeType: info.mimeType, content: Buffer.concat(chunks) };
      });
    });
    bb.on('error', (e) => reject(failure ?? malformed(e)));
    bb.on('close', () => (failure ? reject(failure) : resolve({ fields, files })));
    // A body cut off by its connection (the client gone, or timed out by Node) never reaches busboy's end:
    // without this the upload, and its request, would wait for ever, holding what was read and never logged.
    req.once('close', () => {
      if (!req.complete) reject(failure ?? new MultipartError('Request body cut off before its end', 400));
    });
    let size = 0;
    let cut = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= bodyLimitBytes || cut) return;
      cut = true;
      // A file already past its own limit says so; anything else is the body's size.
      if (failure?.status !== 413) failure = new MultipartError('Request body too large', 413);
      // The rest is read and dropped here, not parsed (and the answer closes a chunked body's connection: see sendError).
      req.unpipe(bb);
      reject(failure);
    });
    req.pipe(bb);
  });
