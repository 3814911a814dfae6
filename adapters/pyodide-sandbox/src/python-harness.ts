// The Python side of a sandbox process: run once at its start, it empties the environment, drops what
// Python could reach JavaScript through, and defines the two calls the process makes (inspect a file,
// score one record), each taking and answering JSON text with every member bounded. Imports nothing: a
// sandbox process may read its own few files and the pyodide package's, no more.

export const HARNESS_FILE = '<tracelight-sandbox>';

/**
 * Modules a scorer cannot import: memory access (ctypes, CPython's test modules), the JavaScript side
 * (js, pyodide_js, the runtime's core and the modules that held JavaScript objects), package installs.
 * Written into the audit hook below as literals, so that nothing a scorer changes at run time changes them.
 */
export const BLOCKED_MODULES = [
  'ctypes',
  '_ctypes',
  '_testcapi',
  '_testinternalcapi',
  '_testlimitedcapi',
  '_testbuffer',
  '_testclinic',
  '_testclinic_limited',
  '_testmultiphase',
  '_testsinglephase',
  '_xxtestfuzz',
  '_remote_debugging',
  'js',
  'pyodide_js',
  '_pyodide_core',
  'pyodide.webloop',
  'pyodide._package_loader',
  'pyodide.http',
  'micropip',
] as const;

/** Audit events refused: ctypes' every operation, code objects made or unmarshalled, and walks of the heap. */
const BLOCKED_EVENTS = ['code.__new__', 'marshal.loads', 'marshal.load', 'gc.get_objects', 'gc.get_referrers', 'gc.get_referents', 'sys._current_frames'] as const;

const pySet = (items: ReadonlyArray<string>): string => `{${items.map((i) => `'${i}'`).join(', ')}}`;

/** The bounds the harness keeps to: the domain's (MAX_STR_VALUE_CHARS, MAX_TYPE_NAME_CHARS), handed to the process. */
export interface HarnessLimits {
  /** The longest str value carried out, in characters; a longer one is told by its length. */
  readonly strChars: number;
  /** The most of a type's name carried out. */
  readonly nameChars: number;
}

export const pythonHarness = (limits: HarnessLimits): string => String.raw`
import builtins, json, linecache, math, os, re, sys, traceback

# No environment: os.environ's deletions unset the C environment too, so no copy of it is left to find.
for _k in list(os.environ):
    del os.environ[_k]

# The JavaScript objects Python was left holding. Through either, and a way to write memory, a scorer
# reached the runtime's API object (the second is a method whose receiver is that object). Dropped, they
# are released on the JavaScript side too.
import pyodide._package_loader, pyodide.webloop
pyodide._package_loader.loadedPackages = None
pyodide.webloop.scheduleCallback = None
# Python functions handed to JavaScript could run after a call returned (a timer, a promise).
for _m in ('pyodide.ffi', '_pyodide._core_docs', '_pyodide_core', 'pyodide.ffi.wrappers'):
    for _n in ('create_proxy', 'create_once_callable', 'run_sync', 'add_event_listener', 'set_timeout', 'set_interval', 'clear_timeout', 'clear_interval', 'remove_event_listener'):
        try:
            delattr(sys.modules[_m], _n)
        except (KeyError, AttributeError):
            pass
for _m in list(sys.modules):
    if _m in ${pySet(BLOCKED_MODULES)} or _m.startswith('pyodide_js.') or _m.startswith('js.'):
        sys.modules.pop(_m, None)
del _k, _m, _n

_STR_LIMIT = ${Math.trunc(limits.strChars)}
_NAME_LIMIT = ${Math.trunc(limits.nameChars)}
_MESSAGE_LIMIT = 2000
_TRACEBACK_LIMIT = 8000
_QUALIFIED_NAME = re.compile(r'[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*')

_CODE = {}
_CODE_KEPT = 64


def _tail(text, limit):
    return text if len(text) <= limit else '…' + text[len(text) - limit + 1:]


def _head(text, limit):
    return text if len(text) <= limit else text[:limit - 1] + '…'


def _compiled(key, filename, source):
    found = _CODE.get(key)
    if found is None:
        found = (compile(source, filename, 'exec', dont_inherit=True), source.splitlines(True))
        if len(_CODE) >= _CODE_KEPT:
            _CODE.pop(next(iter(_CODE)))
        _CODE[key] = found
    # Tracebacks quote the file's lines: this call's file is the one under its name (one call at a time).
    linecache.cache[filename] = (len(source), None, found[1], filename)
    return found[0]


def _module(code, filename):
    # A module of its own for each call: nothing a call leaves in the file's globals reaches the next.
    namespace = {'__name__': '__scorer__', '__file__': filename, '__builtins__': builtins}
    exec(code, namespace)
    return namespace


def _user_line(tb, filename):
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _type_name(cls):
    # The exception's type by its qualified name (json.decoder.JSONDecodeError, ValueError): the one part of
    # an exception the server's log may show, so only a dotted identifier of bounded length, else None.
    try:
        name = type.__getattribute__(cls, '__qualname__')
        module = type.__getattribute__(cls, '__module__')
    except Exception:
        return None
    if type(name) is not str or type(module) is not str:
        return None
    full = name if module in ('builtins', '__scorer__') else module + '.' + name
    return full if len(full) <= _NAME_LIMIT and _QUALIFIED_NAME.fullmatch(full) else None


def _failure(e, filename):
    if isinstance(e, SyntaxError) and getattr(e, 'filename', None) == filename:
        return {'ok': False, 'kind': 'syntax', 'line': e.lineno, 'message': _tail('%s: %s' % (type(e).__name__, e.msg), _MESSAGE_LIMIT)}
    tb = e.__traceback__
    # The traceback from the scorer's own frames on: the harness's are no business of the user's.
    start = tb
    while start is not None and start.tb_frame.f_code.co_filename != filename:
        start = start.tb_next
    # Nor a frame of the harness's own below the scorer's (its audit hook refusing an import).
    lines = [l for l in traceback.format_exception(type(e), e, start if start is not None else tb) if not l.startswith('  File "<tracelight-sandbox>"')]
    message = ''.join(traceback.format_exception_only(type(e), e)).strip()
    return {
        'ok': False,
        'kind': 'exception',
        'line': _user_line(tb, filename),
        'message': _tail(message, _MESSAGE_LIMIT),
        'traceback': _tail(''.join(lines), _TRACEBACK_LIMIT),
        'errorType': _type_name(type(e)),
    }


def _text(v):
    if hasattr(v, 'value') and not isinstance(v, (str, int, float)):
        v = v.value
    return _head(str(v).strip(), _NAME_LIMIT)


def inspect_file(key, filename, source):
    try:
        namespace = _module(_compiled(key, filename, source), filename)
        fn = namespace.get('scorer_fn')
        if fn is None:
            scorer = {'kind': 'missing'}
        elif not callable(fn):
            scorer = {'kind': 'not_callable'}
        else:
            code = getattr(fn, '__code__', None)
            scorer = {
                'kind': 'function',
                'line': code.co_firstlineno if code is not None else None,
                'takesKwargs': bool(code.co_flags & 0x08) if code is not None else True,
            }
        score_type = None
        if 'score_type' in namespace:
            t = namespace['score_type']
            t = t() if callable(t) and not isinstance(t, type) else t
            score_type = _head(t.__name__, _NAME_LIMIT) if isinstance(t, type) else _text(t)
        node_types = None
        if 'scoreable_node_types_fn' in namespace:
            found = namespace['scoreable_node_types_fn']
            found = found() if callable(found) else found
            node_types = [_text(x) for x in found] if isinstance(found, (list, tuple, set, frozenset)) and len(found) <= 64 else 'invalid'
        chain = None
        if 'chain_aggregation' in namespace:
            c = namespace['chain_aggregation']
            c = c() if callable(c) and not isinstance(c, type) else c
            chain = None if c is None else _text(c).lower()
        return json.dumps({'ok': True, 'result': {'scorerFn': scorer, 'scoreType': score_type, 'scoreableNodeTypes': node_types, 'chainAggregation': chain}})
    except BaseException as e:
        return json.dumps(_failure(e, filename))


def _returned(r):
    if r is None:
        return {'type': 'none'}
    if isinstance(r, bool):
        return {'type': 'bool', 'value': bool(r)}
    if isinstance(r, int):
        return {'type': 'int', 'value': int(r)}
    if isinstance(r, float):
        f = float(r)
        return {'type': 'float', 'value': f if math.isfinite(f) else repr(f)}
    if isinstance(r, str):
        s = str.__str__(r)
        # A value is stored in a record three times over (metrics, metric_info's value, a roll-up): bounded.
        if len(s) > _STR_LIMIT:
            return {'type': 'str_too_long', 'length': len(s)}
        return {'type': 'str', 'value': s}
    name = getattr(type(r), '__name__', None)
    return {'type': 'other', 'typeName': _head(name, _NAME_LIMIT) if type(name) is str else 'value'}


def score_record(key, filename, source, args):
    try:
        namespace = _module(_compiled(key, filename, source), filename)
        fn = namespace.get('scorer_fn')
        if not callable(fn):
            raise NameError('the file defines no scorer_fn function')
        result = _returned(fn(**json.loads(args)))
        return json.dumps({'ok': True, 'result': result})
    except BaseException as e:
        return json.dumps(_failure(e, filename))


def _audit(event, args):
    # Its sets and prefixes are literals (constants of its code object) and it looks up no global to
    # decide, so that a scorer that reaches its frame (a traceback through it) or patches builtins has
    # nothing to change; whatever it raises (even a name made unraisable) refuses the event.
    if event == 'import':
        name = args[0]
        if name in ${pySet(BLOCKED_MODULES)} or name.partition('.')[0] in {'ctypes', 'js', 'pyodide_js', 'micropip'}:
            raise ModuleNotFoundError('No module named %r' % name)
    elif event.startswith('ctypes.') or event in ${pySet(BLOCKED_EVENTS)}:
        raise PermissionError('%s is not available in the scorer sandbox' % event)


sys.addaudithook(_audit)
`;
