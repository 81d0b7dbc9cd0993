"""The ``sitecustomize`` of a ``--trace`` run: copied, as ``sitecustomize.py``, into a folder put
first on the traced command's ``PYTHONPATH``; never imported by the tool itself.

It reads the run's spec (``DECOUPLE_TRACE_SPEC``, a JSON file), installs an import finder that,
once a module defining an analysed class C has run, wraps C's ``__getattribute__``,
``__setattr__`` and ``__delattr__`` (and, through ``__init_subclass__``, those a later subclass
of C defines itself). Each wrapper records, for the parent's member names only, which member was
read, written or deleted on an instance of C, at which ``file:line`` (the caller's frame) and in
which test (``PYTEST_CURRENT_TEST``). Each distinct record is appended once per process to
``DECOUPLE_TRACE_DIR/<pid>.jsonl``. Then it runs the ``sitecustomize`` it hides, if any.

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
            if self.pid != os.getpid():  # a forked child writes its own file
                self.pid = os.getpid()
                self.file = open(os.path.join(self.folder, f"{self.pid}.jsonl"), "a", buffering=1, encoding="utf-8")
            self.file.write(json.dumps(record) + "\n")


class _Target:
    def __init__(self, spec, root):
        self.cls_name = spec["class"]
        self.qualname = spec["qualname"]
        self.origin = os.path.realpath(os.path.join(root, spec["file"]))
        self.names = frozenset(spec["names"])
        # The parent's own code: its reads are the static slice's to judge, not evidence.
        self.skip = [(os.path.realpath(os.path.join(root, f)), a, b) for f, a, b in spec["skip"]]


class _Tracer:
    def __init__(self, spec):
        self.root = os.path.realpath(spec["root"])
        self.targets = [_Target(t, self.root) for t in spec["targets"]]
        self.stems = {os.path.splitext(os.path.basename(t.origin))[0] for t in self.targets}
        self.stems |= {os.path.basename(os.path.dirname(t.origin)) for t in self.targets if t.origin.endswith("__init__.py")}
        self.recorder = _Recorder(spec["out"])
        self.files = {}  # co_filename -> its real path
        self.done = weakref.WeakSet()  # the classes wrapped

    def place(self, frame):
        code = frame.f_code
        name = self.files.get(code.co_filename)
        if name is None:
            real = os.path.realpath(code.co_filename) if not code.co_filename.startswith("<") else code.co_filename
            name = self.files[code.co_filename] = real
        return name, frame.f_lineno

    def record(self, target, kind, member, frame, test):
        while frame.f_code.co_filename == __file__:  # a hook calling a hook: the caller is further out
            frame = frame.f_back
        real, line = self.place(frame)
        for f, a, b in target.skip:
            if real == f and a <= frame.f_code.co_firstlineno <= b:
                return
        if real.startswith(self.root + os.sep):
            real = os.path.relpath(real, self.root).replace(os.sep, "/")
        test = _decode(test) if isinstance(test, bytes) else test or ""
        self.recorder.add([target.qualname, kind, member, real, line, test.rsplit(" (", 1)[0]])

    def instrument(self, module):
        for t in self.targets:
            if os.path.realpath(getattr(module, "__file__", "") or "") != t.origin:
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
            cls.__getattribute__ = __getattribute__
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
            setattr(cls, hook, wrapper)

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
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and spec.origin and hasattr(spec.loader, "exec_module") and any(
                        os.path.realpath(spec.origin) == t.origin for t in self.tracer.targets):
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
        sys.meta_path.insert(0, _Finder(_Tracer(spec)))


_install()
_chain()
