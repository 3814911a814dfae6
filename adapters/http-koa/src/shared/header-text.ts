// What a header's value says. Node hands each byte of a header value over as one character (Latin-1),
// while clients send text in headers as UTF-8 (OTel exporters' `logstream: café` is `caf\xC3\xA9`):
// read as Latin-1 it would name another log stream (`cafÃ©`), and a project named `projé` would not be found.
import { isUtf8 } from 'node:buffer';

const ASCII = /^[\x00-\x7f]*$/;

/** The value as UTF-8 when its bytes are UTF-8 (ASCII as it is); else as Latin-1, which is what its bytes then mean. */
export const headerText = (value: string): string => {
  if (ASCII.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : value;
};
