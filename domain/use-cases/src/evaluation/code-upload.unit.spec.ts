import { fileRefusal, uploadRefusal } from './code-upload';

const FILE = 'import re\n\ndef scorer_fn(**kwargs)\n    return 1\n';

describe('what an upload is told of a file that cannot score', () => {
  it('names the line, with its text as the input', () => {
    expect(uploadRefusal({ kind: 'syntax', message: "SyntaxError: expected ':'", line: 3 }, FILE)).toEqual({
      _tag: 'Invalid',
      path: ['file'],
      message: "line 3: SyntaxError: expected ':'",
      input: 'def scorer_fn(**kwargs)',
    });
    expect(uploadRefusal({ kind: 'exception', message: 'NameError: name x is not defined', traceback: '…', line: 1 }, FILE)).toMatchObject({
      message: 'line 1: NameError: name x is not defined (raised as the file was read)',
      input: 'import re',
    });
    expect(fileRefusal({ message: 'no line', line: 99 }, FILE)).toEqual({ _tag: 'Invalid', path: ['file'], message: 'line 99: no line' });
    expect(fileRefusal({ message: 'x', line: 1 }, `${'y'.repeat(300)}\n`)).toMatchObject({ input: `${'y'.repeat(200)}…` });
  });

  it('says a file that ran past the limit or out of memory as it loaded, and a sandbox that could not run is unavailable', () => {
    expect(uploadRefusal({ kind: 'timeout', limitMs: 5000 }, FILE)).toEqual({ _tag: 'Invalid', path: ['file'], message: 'the file did not finish loading within 5 s' });
    expect(uploadRefusal({ kind: 'memory', message: 'm' }, FILE)).toEqual({ _tag: 'Invalid', path: ['file'], message: 'the file ran out of memory as it loaded' });
    expect(uploadRefusal({ kind: 'unavailable', message: 'no interpreter' }, FILE)).toEqual({ _tag: 'Unavailable', message: 'the scorer sandbox could not read the file: no interpreter' });
  });
});
