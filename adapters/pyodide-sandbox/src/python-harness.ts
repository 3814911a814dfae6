// The Python side of a sandbox worker: run once at its start, it empties the environment and defines the
// two calls the worker makes (inspect a file, score one record), each taking and answering JSON text.
export const HARNESS_FILE = '<tracelight-sandbox>';

export const PYTHON_HARNESS = String.raw`
import builtins, json, linecache, math, os, sys, traceback

# No environment: os.environ's deletions unset the C environment too, so no copy of it is left to find.
for _k in list(os.environ):
    del os.environ[_k]
# The JavaScript API: Python has no use for it here (its js module is unregistered as well).
for _m in ('pyodide_js', 'pyodide_js._api', 'js'):
    sys.modules.pop(_m, None)
del _k, _m

_CODE = {}
_CODE_KEPT = 64


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


def _failure(e, filename):
    if isinstance(e, SyntaxError) and getattr(e, 'filename', None) == filename:
        return {'ok': False, 'kind': 'syntax', 'line': e.lineno, 'message': '%s: %s' % (type(e).__name__, e.msg)}
    tb = e.__traceback__
    # The traceback from the scorer's own frames on: the harness's are no business of the user's.
    start = tb
    while start is not None and start.tb_frame.f_code.co_filename != filename:
        start = start.tb_next
    lines = traceback.format_exception(type(e), e, start if start is not None else tb)
    message = ''.join(traceback.format_exception_only(type(e), e)).strip()
    return {'ok': False, 'kind': 'exception', 'line': _user_line(tb, filename), 'message': message, 'traceback': ''.join(lines)}


def _text(v):
    if hasattr(v, 'value') and not isinstance(v, (str, int, float)):
        v = v.value
    return str(v).strip()


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
            score_type = t.__name__ if isinstance(t, type) else _text(t)
        node_types = None
        if 'scoreable_node_types_fn' in namespace:
            found = namespace['scoreable_node_types_fn']
            found = found() if callable(found) else found
            node_types = [_text(x) for x in found] if isinstance(found, (list, tuple, set, frozenset)) else 'invalid'
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
        return {'type': 'str', 'value': str.__str__(r)}
    return {'type': 'other', 'typeName': type(r).__name__}


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
`;
