"""Parents with hooks (issue 27, item 3): what carries over to the class is copied, the rest refused.

Each patched case runs against the original in fresh interpreters (``run_both``) and must print
the same; a near miss beside each is refused or declined with the rule that says why.
"""

import pytest
from ruletools import analyse, hazards_of, patch, run_both

# Real work the class skips, and a parent method it does not need.
WORK = '''
    def __init__(self, size):
        self.size = size
        self.graphs = [bytearray(1 << 10) for _ in range(size)]
        self.pool = dict((i, i * i) for i in range(1000))

    def report(self):
        lines = []
        for k in sorted(vars(self)):
            lines.append(k)
        return lines
'''

CHILD = '''
from .base import Runner


class Child(Runner):
    def __init__(self, size):
        super().__init__(size)

    def count(self):
        return self.size
'''


def parent(hooks: str, head: str = "", bases: str = "") -> dict[str, str]:
    return {"base.py": f"{head}\n\nclass Runner{bases}:\n{WORK}\n{hooks}", "child.py": CHILD}


SETATTR_VALIDATES = parent('''
    def __setattr__(self, name, value):
        if name == "size" and value < 0:
            raise ValueError("negative size")
        super().__setattr__(name, value)
''')
SETATTR_THROUGH_DICT = parent('''
    def __setattr__(self, name, value):
        if name.startswith("size"):
            self.__dict__[name] = int(value)
            return
        self.__dict__[name] = value
''')
DELATTR_FORWARDS = parent('''
    def __delattr__(self, name):
        if name in ("size",):
            raise AttributeError("size stays")
        object.__delattr__(self, name)
''')
PICKLING_WHOLE_STATE = parent('''
    def __getstate__(self):
        state = self.__dict__.copy()
        del state["lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.lock = threading.Lock()
''', head="import threading")
PICKLING_WHOLE_STATE["base.py"] = PICKLING_WHOLE_STATE["base.py"].replace(
    "        self.size = size\n", "        self.size = size\n        self.lock = threading.Lock()\n", 1)
NEW_THROUGH_SUPER = parent('''
    prefix = "r"

    def __new__(cls, *args, **kwargs):
        inst = super().__new__(cls)
        inst.uid = f"{cls.prefix}{next(_ids)}"
        return inst
''', head="import itertools\n\n_ids = itertools.count()")
NEW_THROUGH_SUPER["child.py"] = CHILD.replace("return self.size", "return self.size, self.uid")
ALIAS = parent('''
    def begin(self):
        self.active = True
        return self

    def end(self, *exc):
        self.active = False

    __enter__ = begin
    __exit__ = end
''')

INIT_SUBCLASS = parent('''
    kind = "runner"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.tag = cls.__name__.lower() + ":" + cls.kind
        REGISTRY.append(cls.__name__)
''', head="REGISTRY = []")
INIT_SUBCLASS["child.py"] = "import functools\n" + CHILD.replace("return self.size", "return self.size, self.tag") + (
    "\n\nclass Grand(Child):\n    kind = \"grand\"\n")

SIZE = "from pkg.child import Child\nc = Child(3)\nprint(c.count())\n"
STORES = SIZE + "c.size = '5'\nprint(repr(c.size))\ntry:\n    c.size = -1\nexcept ValueError as e:\n    print('err', e)\n"
DELETES = SIZE + "c.extra = 1\ndel c.extra\nprint(hasattr(c, 'extra'))\ntry:\n    del c.size\nexcept AttributeError as e:\n    print('err', e)\n"
PICKLES = "import pickle\n" + SIZE + "d = pickle.loads(pickle.dumps(c))\nprint(d.count(), type(d).__name__, hasattr(d, 'lock'))\n"
NEWS = "from pkg.child import Child\nprint(Child(3).count(), Child(2).count(), type(Child(1)).__name__)\n"
SUBCLASSES = "from pkg.base import REGISTRY\nfrom pkg.child import Child, Grand\nprint(Child(3).count(), Grand.tag, REGISTRY)\n"
WITH = SIZE + "with c as x:\n    print(x is c, c.active)\nprint(c.active)\n"

PATCHED = [
    pytest.param(SETATTR_VALIDATES, STORES, "def __setattr__(self, name, value):", id="setattr-that-validates-one-name"),
    pytest.param(SETATTR_THROUGH_DICT, STORES, "self.__dict__[name] = value", id="setattr-storing-through-dict"),
    pytest.param(DELATTR_FORWARDS, DELETES, "object.__delattr__(self, name)", id="delattr-forwarding"),
    pytest.param(PICKLING_WHOLE_STATE, PICKLES, "state = self.__dict__.copy()", id="pickling-hooks-moving-the-whole-dict"),
    pytest.param(NEW_THROUGH_SUPER, NEWS, "inst = super().__new__(cls)", id="new-through-super"),
    pytest.param(ALIAS, WITH, "__enter__ = begin", id="class-body-alias-of-a-method"),
    pytest.param(INIT_SUBCLASS, SUBCLASSES, "\n\n\n# decouple: inlined from Runner.__init_subclass__ (creating the class ran it)\nChild.__init_subclass__()\n",
                 id="init-subclass-called-after-the-class"),
]


@pytest.mark.parametrize("files, probe, expected", PATCHED)
def test_the_hook_is_copied_and_behaves_the_same(tmp_path, files, probe, expected):
    before, after, text = run_both(tmp_path, files, probe)
    assert text is not None and expected in text, text
    assert "self.graphs" not in text and "self.pool" not in text
    assert "Traceback" not in before and after == before


def test_an_alias_is_copied_after_its_target(tmp_path):
    _, _, text = run_both(tmp_path, ALIAS, WITH)
    assert text.index("def begin(self):") < text.index("__enter__ = begin")


def test_an_alias_of_an_alias_is_copied_after_both(tmp_path):
    files = _with(ALIAS, "    __enter__ = begin\n", "    start = begin\n    __enter__ = start\n")
    before, after, text = run_both(tmp_path, files, WITH)
    assert text is not None and text.index("def begin(self):") < text.index("start = begin") < text.index("__enter__ = start")
    assert after == before


def test_a_class_body_name_bound_before_the_method_is_the_module_s(tmp_path):
    # ``first = begin`` above ``def begin`` binds the module's begin: the method is not its target.
    files = _with(ALIAS, "    def begin(self):", "    first = begin\n\n    def begin(self):")
    files["base.py"] = "def begin(self):\n    return 'module'\n\n" + files["base.py"]
    files["child.py"] = files["child.py"].replace("return self.size", "return self.size, self.first()")
    before, after, text = run_both(tmp_path, files, SIZE)
    assert text is not None and "first = begin" in text and "'module'" in before
    assert after == before


def _with(files, old, new, where="base.py"):
    out = dict(files)
    assert old in out[where]
    out[where] = out[where].replace(old, new)
    return out


# A hook that counts the stores it sees: every store runs it, so none may go.
SETATTR_COUNTS = parent('''
    def __setattr__(self, name, value):
        object.__setattr__(self, "stores", getattr(self, "stores", 0) + 1)
        object.__setattr__(self, name, value)
''')
SETATTR_COUNTS["child.py"] = CHILD.replace("return self.size", "return self.size, self.stores")


def test_a_hook_that_does_more_than_store_keeps_every_store(tmp_path):
    text, v = patch(tmp_path / "default", SETATTR_COUNTS)
    assert text is None and v.rule == "DC505", v
    before, after, text = run_both(tmp_path / "stress", SETATTR_COUNTS, SIZE, stress=True)
    assert text is not None and "self.graphs = " in text and "self.pool = " in text
    assert after == before


def test_a_hook_bound_in_the_class_body_keeps_every_store(tmp_path):
    # ``__setattr__ = _logged``: the hook's code is not a method of the parent; it logs every store.
    files = parent("\n    __setattr__ = _logged\n", head="LOG = []\n\n\ndef _logged(self, name, value):\n"
                   "    LOG.append(name)\n    object.__setattr__(self, name, value)")
    probe = "from pkg.base import LOG\n" + SIZE + "print(LOG)\n"
    for stress in (False, True):
        before, after, text = run_both(tmp_path / str(stress), files, probe, stress=stress)
        assert text is None or ("self.graphs = " in text and "self.pool = " in text)
        assert after == before


def test_a_hook_that_validates_a_dropped_name_keeps_that_store(tmp_path):
    files = _with(SETATTR_VALIDATES, 'if name == "size" and value < 0:', 'if name == "pool" and not value:')
    before, after, text = run_both(tmp_path, files, SIZE, stress=True)
    assert text is not None and "self.pool = " in text and "self.graphs" not in text
    assert after == before


@pytest.mark.parametrize("files, rule, words", [
    pytest.param(_with(PICKLING_WHOLE_STATE, 'del state["lock"]', 'for k in [k for k in state if k.endswith("lock")]:\n            del state[k]'),
                 "DC301", "__dict__", id="pickling-hook-with-a-computed-key"),
    pytest.param(_with(NEW_THROUGH_SUPER, "inst = super().__new__(cls)", "inst = super().__new__(cls, *args)"),
                 "DC302", "__new__", id="new-passing-arguments-on"),
    pytest.param(_with(NEW_THROUGH_SUPER, "inst = super().__new__(cls)", "inst = object.__new__(Runner)"),
                 "DC302", "__new__", id="new-building-another-class"),
    pytest.param(_with(NEW_THROUGH_SUPER, "        inst = super().__new__(cls)\n        inst.uid = f\"{cls.prefix}{next(_ids)}\"\n        return inst\n",
                       "        if cls._instance is None:\n            cls._instance = super().__new__(cls)\n        return cls._instance\n\n    _instance = None\n"),
                 "DC302", "cls._instance", id="singleton-new-storing-on-the-class"),
    pytest.param(_with(ALIAS, "    def count(self):", "    def begin(self):\n        return self\n\n    def count(self):", "child.py"),
                 "DC312", "overrides", id="alias-whose-target-the-class-overrides"),
    pytest.param(_with(INIT_SUBCLASS, "class Child(Runner):", "@functools.total_ordering\nclass Child(Runner):", "child.py"),
                 "DC302", "decorators", id="init-subclass-of-a-decorated-class"),
    pytest.param(_with(INIT_SUBCLASS, "cls.tag = ", "cls.deep = issubclass(cls, object)\n        cls.tag = "),
                 "DC302", "issubclass", id="init-subclass-reading-the-hierarchy"),
    pytest.param(_with(INIT_SUBCLASS, "REGISTRY.append(cls.__name__)", "cls.seen[cls.__name__] = cls\n\n    seen = {}"),
                 "DC302", "cls.seen", id="init-subclass-filling-a-registry-of-the-parent"),
    pytest.param(_with(INIT_SUBCLASS, "    def count(self):", "    def __init_subclass__(cls):\n        pass\n\n    def count(self):", "child.py"),
                 "DC302", "defines its own", id="init-subclass-beside-the-class-s-own"),
    pytest.param(parent("\n    def __getattr__(self, name):\n        return 0\n"), "DC302", "__getattr__", id="getattr-stays-refused"),
])
def test_what_cannot_carry_over_is_refused(tmp_path, files, rule, words):
    a, v = analyse(tmp_path, files)
    assert v.decision == "unsafe", v
    assert any(words in h for h in hazards_of(a, rule)), (v, a.unsafe)


def test_new_under_a_base_with_its_own_new_is_refused(tmp_path):
    files = _with(NEW_THROUGH_SUPER, "class Runner:", "class Base:\n    def __new__(cls, *a, **k):\n        return super().__new__(cls)\n\n\nclass Runner(Base):")
    a, v = analyse(tmp_path, files)
    assert v.decision == "unsafe" and any("Base, which stays in the MRO, defines __new__" in h for h in hazards_of(a, "DC302")), v


def test_a_store_hook_whose_super_reaches_a_skipped_class_is_refused(tmp_path):
    files = _with(SETATTR_VALIDATES, "class Runner:", (
        "class Root:\n    pass\n\n\nclass Logged(Root):\n    def __setattr__(self, name, value):\n"
        "        print('store', name)\n        super().__setattr__(name, value)\n\n\nclass Runner(Logged):"))
    a, v = analyse(tmp_path, files, base="Root")
    assert v.decision == "unsafe" and any("reaches Logged.__setattr__" in h for h in hazards_of(a, "DC302")), v


# The dataclass stays in the MRO; its generated __init__ calls a __post_init__ only where the
# dataclass had one when decorated (here: the class's own, a @dataclass too, does).
DATACLASS_BASE = {"base.py": '''
from dataclasses import dataclass


@dataclass
class Config:
    size: int
    name: str = "r"


class Runner(Config):
    def __post_init__(self):
        self.graphs = [bytearray(1 << 10) for _ in range(self.size)]
        self.pool = dict((i, i * i) for i in range(1000))

    def report(self):
        lines = []
        for k in sorted(vars(self)):
            lines.append(k)
        return lines
''', "child.py": """
from dataclasses import dataclass

from .base import Runner


@dataclass
class Child(Runner):
    extra: int = 0

    def count(self):
        return self.size
"""}


@pytest.mark.parametrize("stress", [False, True])
def test_a_post_init_under_a_dataclass_is_the_work_the_verdict_names(tmp_path, stress):
    text, v = patch(tmp_path, DATACLASS_BASE, stress=stress)
    assert text is None and v.decision == "decline" and v.rule == "DC505", v
    assert "its __post_init__ (2 statements, 2 of real work)" in v.reason and "no __init__ work" not in v.reason
    assert v.figures["post_init_real_work"] == 2


def test_a_dataclass_parent_is_refused_naming_the_decorator(tmp_path):
    files = {"base.py": DATACLASS_BASE["base.py"].replace("class Runner(Config):", "@dataclass\nclass Runner:\n    size: int"),
             "child.py": DATACLASS_BASE["child.py"]}
    a, v = analyse(tmp_path, files)
    assert v.decision == "unsafe" and "@dataclass" in v.reason, v
