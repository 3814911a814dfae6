// The CodeSandbox contract: what any sandbox that runs uploaded scorer files must do, and must not let
// them do. Interpreters are slow to start: the suite shares one sandbox, and starts few of them.
import type { ScorerArguments } from '@tracelight/domain';
import type { CodeSandbox, CodeSource } from '@tracelight/ports';
import * as E from 'fp-ts/Either';

export interface CodeSandboxContractOptions {
  /** The sandbox's time limit for one call, as it was made with. */
  readonly timeLimitMs: number;
}

const ARGS: ScorerArguments = {
  index: 'rec-1',
  node_input: 'What is 2+2?',
  node_output: 'It is 4.',
  node_name: 'chat',
  node_type: 'llm',
  node_id: 'rec-1',
  tools: [{ name: 'calculator', parameters: { type: 'object' } }],
  dataset_variables: { target: '4' },
};

let keys = 0;
/** A file of `tenant`'s, under a key of its own (so no compiled form is shared between cases by mistake). */
export const scorerFile = (code: string, tenant = 'tenant-a'): CodeSource => ({ key: `contract-${++keys}`, fileName: 'scorer.py', code, tenant });

/** A scorer_fn whose body is `body` (indented here), taking the contract's keyword arguments. */
export const scorerBody = (body: string): string =>
  `def scorer_fn(*, index, node_input, node_output, **kwargs):\n${body
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;

export const describeCodeSandboxContract = (name: string, make: () => CodeSandbox, options: CodeSandboxContractOptions): void => {
  describe(`CodeSandbox (${name})`, () => {
    let sandbox: CodeSandbox;
    beforeAll(() => {
      sandbox = make();
    });
    afterAll(async () => {
      await sandbox.close();
    });
    const scored = async (body: string, tenant?: string) => sandbox.score(scorerFile(scorerBody(body), tenant), ARGS)();
    /** What a scorer returned, which must be a str. */
    const text = async (body: string, tenant?: string): Promise<string> => {
      const r = await scored(body, tenant);
      if (E.isLeft(r)) throw new Error(`the scorer failed: ${JSON.stringify(r.left)}`);
      if (r.right.type !== 'str') throw new Error(`the scorer returned ${JSON.stringify(r.right)}`);
      return r.right.value;
    };

    it('reads a file\'s hooks: score_type, scoreable_node_types_fn, chain_aggregation; null where it has none', async () => {
      const full = await sandbox.inspect(
        scorerFile(
          `${scorerBody('return len(node_output)')}\ndef score_type():\n    return int\n\ndef scoreable_node_types_fn():\n    return ['llm', 'tool']\n\nchain_aggregation = 'sum'\n\ndef aggregator_fn(*, scores):\n    return {}\n`,
        ),
      )();
      expect(full).toEqual(E.right({ scorerFn: { kind: 'function', line: 1, takesKwargs: true }, scoreType: 'int', scoreableNodeTypes: ['llm', 'tool'], chainAggregation: 'sum' }));
      const bare = await sandbox.inspect(scorerFile(scorerBody('return 1.0')))();
      expect(bare).toEqual(E.right({ scorerFn: { kind: 'function', line: 1, takesKwargs: true }, scoreType: null, scoreableNodeTypes: null, chainAggregation: null }));
    });

    it('tells a file without scorer_fn, one whose scorer_fn is not a function, and one whose scorer_fn takes no **kwargs', async () => {
      expect(await sandbox.inspect(scorerFile('def score(x):\n    return 1\n'))()).toMatchObject(E.right({ scorerFn: { kind: 'missing' } }));
      expect(await sandbox.inspect(scorerFile('scorer_fn = 3\n'))()).toMatchObject(E.right({ scorerFn: { kind: 'not_callable' } }));
      expect(await sandbox.inspect(scorerFile('\n\ndef scorer_fn(*, node_output):\n    return 1\n'))()).toMatchObject(
        E.right({ scorerFn: { kind: 'function', line: 3, takesKwargs: false } }),
      );
    });

    it('names the line of a syntax error, and of an exception the file raises as it loads', async () => {
      const syntax = await sandbox.inspect(scorerFile('import re\n\ndef scorer_fn(**kwargs)\n    return 1\n'))();
      expect(syntax).toEqual(E.left({ kind: 'syntax', line: 3, message: expect.stringContaining('SyntaxError') }));
      const raised = await sandbox.inspect(scorerFile('x = 1\ny = x / 0\n'))();
      expect(raised).toEqual(E.left({ kind: 'exception', line: 2, message: 'ZeroDivisionError: division by zero', traceback: expect.stringContaining('line 2') }));
    });

    it('calls scorer_fn with the record\'s arguments', async () => {
      const seen = JSON.parse(
        await text('import json\nreturn json.dumps(dict(index=index, node_input=node_input, node_output=node_output, **kwargs), sort_keys=True)'),
      ) as unknown;
      expect(seen).toEqual({ ...ARGS });
    });

    it('says what scorer_fn returned: None, bool, int, float, str, or another type by name', async () => {
      expect(await scored('return None')).toEqual(E.right({ type: 'none' }));
      expect(await scored('return "4" in node_output')).toEqual(E.right({ type: 'bool', value: true }));
      expect(await scored('return len(node_output)')).toEqual(E.right({ type: 'int', value: 8 }));
      expect(await scored('return 0.25')).toEqual(E.right({ type: 'float', value: 0.25 }));
      expect(await scored('return node_output.upper()')).toEqual(E.right({ type: 'str', value: 'IT IS 4.' }));
      expect(await scored('return [1, 2]')).toEqual(E.right({ type: 'other', typeName: 'list' }));
      const nan = await scored('return float("nan")');
      expect(E.isRight(nan) && nan.right.type === 'float' && Number.isNaN(nan.right.value)).toBe(true);
    });

    it('answers an exception with its message, its traceback from the scorer\'s frames, and the line it was raised at', async () => {
      const r = await sandbox.score(scorerFile('def helper(x):\n    raise ValueError(f"bad {x}")\n\ndef scorer_fn(**kwargs):\n    return helper(kwargs["index"])\n'), ARGS)();
      expect(r).toEqual(E.left({ kind: 'exception', message: 'ValueError: bad rec-1', line: 2, traceback: expect.stringContaining('ValueError: bad rec-1') }));
      if (E.isLeft(r) && r.left.kind === 'exception') {
        expect(r.left.traceback).toMatch(/line 5, in scorer_fn[\s\S]*line 2, in helper/);
        // The file's own lines are quoted, as Python quotes a file's.
        expect(r.left.traceback).toContain('raise ValueError(f"bad {x}")');
        expect(r.left.traceback).not.toContain('tracelight-sandbox');
      }
    });

    it('runs each call in a module of its own: what a call leaves in the file\'s globals, the next does not see', async () => {
      const file = scorerFile('seen = []\n\ndef scorer_fn(**kwargs):\n    seen.append(kwargs["index"])\n    return len(seen)\n');
      expect(await sandbox.score(file, ARGS)()).toEqual(E.right({ type: 'int', value: 1 }));
      expect(await sandbox.score(file, { ...ARGS, index: 'rec-2' })()).toEqual(E.right({ type: 'int', value: 1 }));
    });

    it('shows no host file: /etc/passwd is not there, nor the server\'s directory', async () => {
      expect(await text("try:\n    return open('/etc/passwd').read()\nexcept OSError as e:\n    return type(e).__name__")).toBe('FileNotFoundError');
      expect(await text("import os\nreturn ' '.join(sorted(os.listdir('/')))")).not.toMatch(/etc|usr|work|root|node_modules/);
    });

    it('has no environment variables', async () => {
      expect(await text('import os\nreturn repr(dict(os.environ))')).toBe('{}');
      expect(await text('import posix\nreturn repr(posix.environ)')).toBe('{}');
    });

    it('has no network: a socket connection and an HTTP request are refused', async () => {
      expect(await text("import socket\ntry:\n    socket.create_connection(('127.0.0.1', 9), timeout=1)\n    return 'connected'\nexcept OSError as e:\n    return type(e).__name__")).toBe(
        'PermissionError',
      );
      expect(await text("import urllib.request\ntry:\n    return urllib.request.urlopen('http://127.0.0.1:9/').read().decode()\nexcept Exception as e:\n    return type(e).__name__")).toBe(
        'URLError',
      );
    });

    it('runs no process: os.system answers that the command could not run', async () => {
      expect(await text("import os\nreturn str(os.system('echo hi > /dev/null'))")).toBe(String(127 << 8));
    });

    it('has the standard library and nothing to install more with', async () => {
      expect(await text('import difflib, statistics, unicodedata\nreturn str(round(difflib.SequenceMatcher(None, "abc", "abd").ratio(), 2))')).toBe('0.67');
      for (const module of ['micropip', 'numpy', 'requests'])
        expect(await text(`try:\n    import ${module}\n    return 'imported'\nexcept ImportError as e:\n    return type(e).__name__`)).toBe('ModuleNotFoundError');
    });

    it('gives Python no JavaScript object to reach the host with', async () => {
      for (const module of ['js', 'pyodide_js'])
        expect(await text(`try:\n    import ${module}\n    return 'imported'\nexcept ImportError as e:\n    return type(e).__name__`)).toBe('ModuleNotFoundError');
      // A JavaScript value made from Python's does not lead to code made from text (Function, then process).
      expect(
        await text("try:\n    from pyodide.ffi import to_js\n    o = to_js({'a': 1})\n    return repr(o.constructor.constructor('return process')())\nexcept Exception as e:\n    return 'refused: ' + str(e)"),
      ).toMatch(/^refused/);
    });

    it('keeps owners apart: what one owner\'s scorer leaves in its interpreter, another\'s does not find', async () => {
      expect(await text("import builtins\nbuiltins.left_behind = node_output\nreturn 'left'", 'tenant-a')).toBe('left');
      expect(await text("import builtins\nreturn repr(getattr(builtins, 'left_behind', None))", 'tenant-b')).toBe('None');
      expect(await text("import builtins\nreturn repr(getattr(builtins, 'left_behind', None))", 'tenant-a')).toBe(repr(ARGS.node_output));
    });

    it('ends a call that allocates past its memory with a MemoryError, the interpreter going on', async () => {
      const r = await scored('x = bytearray(1024 ** 3)\nreturn len(x)');
      expect(r).toMatchObject(E.left({ kind: 'exception', message: 'MemoryError' }));
      expect(await scored('return 1')).toEqual(E.right({ type: 'int', value: 1 }));
    });

    it('ends a call that runs past the time limit, and the next call runs in a new interpreter', async () => {
      const other = scored('return 2');
      expect(await scored('while True:\n    pass')).toEqual(E.left({ kind: 'timeout', limitMs: options.timeLimitMs }));
      expect(await other).toEqual(E.right({ type: 'int', value: 2 }));
      expect(await scored('return 3')).toEqual(E.right({ type: 'int', value: 3 }));
    });
  });
};

const repr = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
