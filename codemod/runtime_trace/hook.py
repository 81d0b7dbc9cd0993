"""The ``sitecustomize`` of a ``--trace`` run: copied, as ``sitecustomize.py``, into a folder put
first on the traced command's ``PYTHONPATH``; never imported by the tool itself.

It reads the run's spec (``DECOUPLE_TRACE_SPEC``, a JSON file), installs an import finder that,
once a module defining an analysed class C has run, wraps C's ``__getattribute__``,
``__setattr__`` and ``__delattr__`` (and, through ``__init_subclass__``, those a later subclass
of C defines itself). Each wrapper records, for the parent's member names only, which member was
read, written or deleted on an instance of C, at which ``file:line`` (the caller's frame) and in
which test (``PYTEST_CURRENT_TEST``). Each distinct record is appended once per process to
``DECOUPLE_TRACE_DIR/<pid>.jsonl``. Then it runs the ``sitecustomize`` it hides, if any.

The finder must stay first on ``sys.meta_path``: pytest puts its assertion rewriter there, and
that loader runs every module of a package that registers a pytest plugin (an entry point, or
``pytest.register_assert_rewrite``) itself, so a finder behind it never saw the module run. An
audit hook on ``import`` puts it back in front before each module is looked up.

Recording touches no function the project can patch: a suite may swap ``os.path.realpath``,
``os.getcwd`` or file writes for ones that raise inside an event loop (blockbuster, in anyio's
tests), so records are matched and made relative by string, and written with the ``os.open``
and ``os.write`` taken here, before the project's code runs.

Only standard-library imports: it runs inside the project's interpreter, before its code.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import threading
import weakref
from functools import partial

_HERE = os.path.dirname(os.path.abspath(__file__))
# PYTEST_CURRENT_TEST, read on every recorded access: the environment's own table where
# CPython has it (a dict lookup), decoded only when a record is written.
_TEST_KEY = "PYTEST_CURRENT_TEST"
try:
    _test = partial(os.environ._data.get, os.environ.encodekey(_TEST_KEY))
    _decode = os.environ.decodevalue
except AttributeError:
    _test, _decode = partial(os.environ.get, _TEST_KEY), str
HOOKS = ("__getattribute__", "__setattr__", "__delattr__")
_open, _write, _getpid, _realpath = os.open, os.write, os.getpid, os.path.realpath


class _Recorder:
    """The records of this process: each distinct one written once, to this process's own file."""

    def __init__(self, folder):
        self.folder = folder
        self.seen = set()
        self.pid = None
        self.file = None
        self.lock = threading.Lock()  # threads of one process share its file: one whole line each

    def add(self, record):
        key = tuple(record)
        with self.lock:
            if key in self.seen:
                return
            self.seen.add(key)
            if self.pid != _getpid():  # a forked child writes its own file
                self.pid = _getpid()
                self.file = _open(f"{self.folder}/{self.pid}.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            _write(self.file, (json.dumps(record) + "\n").encode("utf-8"))


class _Target:
    def __init__(self, spec, root):
        self.cls_name = spec["class"]
        self.qualname = spec["qualname"]
        self.origin = _spellings(root, spec["file"])
        self.names = frozenset(spec["names"])
        # The parent's own code: its reads are the static slice's to judge, not evidence.
        self.skip = [(_spellings(root, f), a, b) for f, a, b in spec["skip"]]


def _spellings(root, file):
    """The ways a code object or a module spec may name ``root/file``: as the path on
    ``PYTHONPATH`` spells it, and with its links resolved."""
    joined = os.path.join(root, file)
    return frozenset({joined, _realpath(joined)})


def _is(path, spellings):
    """Whether ``path`` names the file: by string first; resolving links can meet a patched
    ``os`` (in an event loop under blockbuster, say), which then counts as no match."""
    if not path or path in spellings:
        return bool(path)
    try:
        return _realpath(path) in spellings
    except Exception:  # noqa: BLE001 (whatever the patched function raises)
        return False


class _Tracer:
    def __init__(self, spec):
        self.roots = tuple(r + os.sep for r in sorted({spec["root"], _realpath(spec["root"])}))
        self.targets = [_Target(t, spec["root"]) for t in spec["targets"]]
        self.stems = {os.path.splitext(os.path.basename(t["file"]))[0] for t in spec["targets"]}
        self.stems |= {os.path.basename(os.path.dirname(t["file"])) for t in spec["targets"] if t["file"].endswith("__init__.py")}
        self.recorder = _Recorder(spec["out"])
        self.done = weakref.WeakSet()  # the classes wrapped

    def record(self, target, kind, member, frame, test):
        while frame.f_code.co_filename == __file__:  # a hook calling a hook: the caller is further out
            frame = frame.f_back
        name, line = frame.f_code.co_filename, frame.f_lineno
        for f, a, b in target.skip:
            if name in f and a <= frame.f_code.co_firstlineno <= b:
                return
        for root in self.roots:
            if name.startswith(root):
                name = name[len(root):].replace(os.sep, "/")
                break
        test = _decode(test) if isinstance(test, bytes) else test or ""
        self.recorder.add([target.qualname, kind, member, name, line, test.rsplit(" (", 1)[0]])

    def instrument(self, module):
        for t in self.targets:
            if not _is(getattr(module, "__file__", None), t.origin):
                continue
            cls = module.__dict__.get(t.cls_name)
            if isinstance(cls, type) and cls not in self.done:
                self.wrap(cls, t, HOOKS)
                self.wrap_subclasses(cls, t)

    def wrap(self, cls, t, hooks):
        self.done.add(cls)
        tracer, names, getframe = self, t.names, sys._getframe
        # What a wrapper already looked at: (member, code, line, test). A line that runs again,
        # the common case, costs a frame, a tuple and a set lookup.
        seen = {kind: set() for kind in ("read", "write", "delete")}
        if "__getattribute__" in hooks:
            get, seen_read = cls.__getattribute__, seen["read"]

            def __getattribute__(self, name):
                if name in names:
                    f = getframe(1)
                    key = (name, f.f_code, f.f_lineno, _test())
                    if key not in seen_read:
                        seen_read.add(key)
                        tracer.record(t, "read", name, f, key[3])
                return get(self, name)
            cls.__getattribute__ = _hidden(__getattribute__)
        for hook, kind in (("__setattr__", "write"), ("__delattr__", "delete")):
            if hook not in hooks:
                continue

            def wrapper(self, name, *value, _original=getattr(cls, hook), _kind=kind, _seen=seen[kind]):
                if name in names:
                    f = getframe(1)
                    key = (name, f.f_code, f.f_lineno, _test())
                    if key not in _seen:
                        _seen.add(key)
                        tracer.record(t, _kind, name, f, key[3])
                return _original(self, name, *value)
            wrapper.__name__ = hook
            setattr(cls, hook, _hidden(wrapper))

    def wrap_subclasses(self, cls, t):
        """A subclass made later that defines a hook of its own gets that one wrapped too (one
        that does not inherits C's wrapped hook)."""
        tracer = self
        original = cls.__dict__.get("__init_subclass__")

        def __init_subclass__(sub, **kwargs):
            if original is not None:
                original.__get__(None, sub)(**kwargs)
            else:
                super(cls, sub).__init_subclass__(**kwargs)
            tracer.wrap(sub, t, [h for h in HOOKS if h in sub.__dict__])
        cls.__init_subclass__ = classmethod(__init_subclass__)
        for sub in cls.__subclasses__():  # made while the module ran
            self.wrap(sub, t, [h for h in HOOKS if h in sub.__dict__])


class _Loader(importlib.abc.Loader):
    def __init__(self, inner, tracer):
        self.inner, self.tracer = inner, tracer

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        self.tracer.instrument(module)

    def __getattr__(self, name):  # get_source, get_code, is_package, ... as the wrapped loader has them
        return getattr(self.inner, name)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self, tracer):
        self.tracer = tracer

    def find_spec(self, fullname, path, target=None):
        if fullname.rpartition(".")[2] not in self.tracer.stems:
            return None  # the cheap test: no other module is looked at
        for finder in list(sys.meta_path):  # the audit hook may reorder it meanwhile
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module") and any(
                        _is(spec.origin, t.origin) for t in self.tracer.targets):
                    spec.loader = _Loader(spec.loader, self.tracer)
                return spec
        return None


def _chain():
    """The ``sitecustomize`` this one hides, run as it would have been."""
    rest = [p for p in sys.path if os.path.realpath(p or ".") != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


def _install():
    path = os.environ.get("DECOUPLE_TRACE_SPEC")
    if path:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
        finder = _Finder(_Tracer(spec))
        sys.meta_path.insert(0, finder)
        sys.addaudithook(partial(_keep_first, finder))


def _keep_first(finder, event, args):
    """Before a module is looked up: the finder back in front of any put ahead of it since."""
    if event == "import":
        path = sys.meta_path
        if path and path[0] is not finder:
            if finder in path:
                path.remove(finder)
            path.insert(0, finder)


_install()
_chain()


# The frame a wrapper adds between a caller and a property it reads must not move what counts
# stack levels: ``warnings.warn(..., stacklevel=2)`` in the property would name the wrapper as
# the warning's place (platformdirs' test_runtime_dir_warning_points_at_caller asserts it names
# the test). The interpreter skips frames of a file named as importlib's bootstrap when it
# counts levels, as it does for the import machinery's own frames.
_INTERNAL = "<decouple trace hook: skipped like importlib._bootstrap>"


def _hidden(fn):
    fn.__code__ = fn.__code__.replace(co_filename=_INTERNAL)
    return fn
