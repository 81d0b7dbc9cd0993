"""DC601 inline-init: ``*args``/``**kwargs`` handed to the parent's ``__init__`` are bound as Python binds them.

Each case runs the original and the patched package and compares what they print.
"""

from ruletools import patch, run_both

BASE = """
class Backend:
    def __init__(self, **kw):
        self.kw = kw


class Parent:
    def __init__(self, model_path, device="cpu", *, use_cache=False, **kwargs):
        self.model_path = model_path
        self.device = device
        self.fast = kwargs.pop("fast", False)
        if kwargs.get("trace"):
            self.mode = "trace"
        else:
            self.mode = "plain"
        if use_cache:
            self.cache = "on"
        else:
            self.cache = "off"
        self.backend = Backend(**kwargs)
        self.table = [0] * 1000

    def label(self):
        return self.model_path
"""
CHILD = """
from .base import Parent


class Child(Parent):
    def __init__(self, model_path, {params}):
        super().__init__({call})
        self.opts = {own}

    def show(self):
        return (self.model_path, self.device, self.fast, self.mode, self.cache, self.backend.kw, self.opts)
"""
PROBE = """
from pkg.child import Child
print(Child("m", fast=True, trace=1, device="gpu", use_cache=True, other=2).show())
print(Child("m").show())
print(Child("m", trace=0, use_cache=False).show())
"""


def files(call: str, params: str = "**opts", own: str = "opts") -> dict:
    return {"base.py": BASE, "child.py": CHILD.format(params=params, call=call, own=own)}


def test_a_forwarded_mapping_fills_parameters_on_a_fresh_copy(tmp_path):
    before, after, text = run_both(tmp_path, files("model_path, **opts"), PROBE)
    assert text is not None
    assert before == after
    # The parent's pop runs on the copy: C's own dict keeps "fast" (printed last by show()).
    assert "'fast': True" in before.splitlines()[0].rsplit("{", 1)[1]
    assert "kwargs = dict(opts)" in text
    assert 'device = kwargs.pop("device", "cpu")' in text and 'use_cache = kwargs.pop("use_cache", False)' in text
    assert "super()" not in text and "class Child:" in text


def test_a_runtime_option_keeps_both_branches(tmp_path):
    # use_cache has a literal default, but the mapping may override it: nothing is folded.
    before, after, text = run_both(tmp_path, files("model_path, **opts"), PROBE)
    assert before == after and {"'on'", "'off'", "'trace'", "'plain'"} <= set(before.replace(",", " ").split())
    assert "if use_cache:" in text and 'self.cache = "on"' in text and 'self.cache = "off"' in text
    assert 'if kwargs.get("trace"):' in text and 'self.mode = "plain"' in text


def test_parameters_the_class_does_not_read_still_leave_the_forwarded_dict(tmp_path):
    child = files("model_path, **opts")["child.py"].replace(
        "return (self.model_path, self.device, self.fast, self.mode, self.cache, self.backend.kw, self.opts)", "return self.backend.kw")
    before, after, text = run_both(tmp_path, {"base.py": BASE, "child.py": child}, PROBE)
    assert text is not None and before == after and "'device'" not in before
    assert 'kwargs.pop("device", None)' in text and 'self.fast = kwargs.pop("fast", False)' in text


def test_explicit_arguments_stray_keywords_and_a_mapping_in_call_order(tmp_path):
    # C's own dict is called kwargs too: the parent's gets another name.
    call = 'model_path, "tpu", fast=False, extra=3, **kwargs'
    before, after, text = run_both(tmp_path, files(call, params="**kwargs", own="kwargs"),
                                   PROBE.replace("fast=True, ", "").replace('device="gpu", ', ""))
    assert text is not None and before == after
    assert 'kwargs_parent = {"fast": False, "extra": 3, **kwargs}' in text
    assert 'self.device = "tpu"' in text and "pop(\"device\"" not in text


def test_a_parameter_only_the_mapping_can_fill_is_popped_without_default(tmp_path):
    child = CHILD.format(params="**opts", call="**opts", own="opts").replace("def __init__(self, model_path, ", "def __init__(self, ")
    probe = "from pkg.child import Child\nprint(Child(model_path='m', trace=1, other=2).show())\n"
    before, after, text = run_both(tmp_path, {"base.py": BASE, "child.py": child}, probe)
    assert text is not None and before == after
    assert 'model_path = kwargs.pop("model_path")' in text


def test_a_static_call_binds_the_parents_kwargs_not_the_childs(tmp_path):
    # C has a **kwargs of its own; the parent's is what C's call passes, not C's dict.
    # Before, the inlined code read C's kwargs silently.
    call = "model_path, fast=True, other=5"
    before, after, text = run_both(tmp_path, files(call, params="**kwargs", own="kwargs"), PROBE)
    assert text is not None and before == after
    assert 'kwargs_parent = {"fast": True, "other": 5}' in text and "Backend(**kwargs_parent)" in text


def small(tmp_path, signature: str, body: str, call: str, read: str, printed: str) -> str:
    """Run a parent ``__init__(self, <signature>)`` whose body is ``body`` under a child that calls
    ``super().__init__(<call>)`` and reads ``self.<read>``; both must print ``printed``; the patch."""
    base = f"class Parent:\n    def __init__(self, {signature}):\n{body}        self.pool = [0] * n\n"
    child = (f"from .base import Parent\n\n\nclass Child(Parent):\n    def __init__(self, n):\n"
             f"        super().__init__({call})\n\n    def get(self):\n        return self.{read}\n")
    before, after, text = run_both(tmp_path, {"base.py": base, "child.py": child}, "from pkg.child import Child\nprint(Child(4).get())\n")
    assert text is not None and before == after == printed, (before, after, text)
    return text


def test_extra_positionals_fill_the_parents_star_args(tmp_path):
    text = small(tmp_path, "n, *shape", "        self.shape = shape\n", "n, 2, n + 1", "shape", "(2, 5)\n")
    assert "shape = (2, n + 1)" in text


def test_near_miss_without_kwargs_in_the_parent_arguments_are_bound_as_before(tmp_path):
    text = small(tmp_path, 'n, device="cpu"', "        self.device = device\n", 'n, device="gpu"', "device", "gpu\n")
    assert 'self.device = "gpu"' in text and "pop(" not in text and "dict(" not in text


REFUSED = {
    "model_path, *args": ("*args", "passes *args to Parent.__init__: which parameters its items fill is known only at run time"),
    "model_path, **opts, **more": ("**opts", "passes more than one **mapping"),
}


def test_near_miss_a_starred_call_is_still_refused_with_its_reason(tmp_path):
    for i, (call, (params, reason)) in enumerate(REFUSED.items()):
        params = params if "more" not in call else "more, **opts"
        text, v = patch(tmp_path / str(i), files(call, params=params, own="None"))
        assert text is None and (v.decision, v.rule, v.refused_by) == ("unsafe", "DC510", "DC601"), v
        assert reason in v.reason


def test_near_miss_a_mapping_into_a_parent_without_kwargs_is_refused(tmp_path):
    base = 'class Parent:\n    def __init__(self, n, device="cpu"):\n        self.device = device\n        self.pool = [0] * n\n'
    child = ("from .base import Parent\n\n\nclass Child(Parent):\n    def __init__(self, n, **opts):\n"
             "        super().__init__(n, **opts)\n\n    def where(self):\n        return self.device\n")
    text, v = patch(tmp_path, {"base.py": base, "child.py": child})
    assert text is None and v.rule == "DC510"
    assert "passes **opts to Parent.__init__, which takes no **kwargs" in v.reason


DEFAULTED = """
DEFAULT = "cpu"


class Parent:
    def __init__(self, n, device=DEFAULT{star}):
        self.device = device
        self.pool = [0] * n
"""
# The class's module binds DEFAULT to something else: a default is evaluated where the parent is.
SHADOWING = """
from .base import Parent

DEFAULT = "child"


class Child(Parent):
    def __init__(self, n{star}):
        super().__init__(n{passed})

    def show(self):
        return self.device, DEFAULT
"""


def test_a_default_means_what_it_meant_in_the_parents_module(tmp_path):
    for i, (star, passed) in enumerate([("", ""), (", **kwargs", ", **opts")]):
        files = {"base.py": DEFAULTED.format(star=star), "child.py": SHADOWING.format(star=passed, passed=passed)}
        before, after, text = run_both(tmp_path / str(i), files, "from pkg.child import Child\nprint(Child(3).show())\n")
        assert text is not None and before == after == "('cpu', 'child')\n", (before, after, text)
        assert "from .base import DEFAULT as DEFAULT_base" in text and "DEFAULT_base" in text.split("def __init__")[1]


def test_an_explicit_parent_call_forwards_the_same_way(tmp_path):
    child = files("model_path, **opts")["child.py"].replace("super().__init__(", "Parent.__init__(self, ")
    before, after, text = run_both(tmp_path, {"base.py": BASE, "child.py": child}, PROBE)
    assert text is not None and before == after
    assert "kwargs = dict(opts)" in text and "Parent.__init__(self" not in text
