"""The saving model (``codemod/saving.py``): what a construction no longer allocates once per
process (a buffer cached by a key, a function under ``lru_cache``) and what each instance
allocates (a tensor factory with a size that folds, pinned apart), counted through loops and
tests that fold, and through the constructors of the tree. Each case has its near miss."""

from codemod.discover import Tree
from codemod.index import Index
from codemod.pipeline import analyse_all
from codemod.saving import class_saving, dropped
from ruletools import write

CHILD = """
from .base import Parent


class Child(Parent):
    def __init__(self, cfg, skip=False):
        super().__init__(cfg, skip)

    def read(self):
        return self.cfg
"""


def saving_of(tmp_path, parent_init: str, extra: str = "", bindings=None):
    base = ("import functools\n\nimport torch\n\nfrom .buffers import get_buffer\n\n\n" + extra
            + "class Parent:\n    def __init__(self, cfg, skip=False):\n        self.cfg = cfg\n" + parent_init)
    write(tmp_path, {"base.py": base, "child.py": CHILD,
                     "buffers.py": "_CACHE = {}\n\n\ndef get_buffer(name, factory):\n    return _CACHE.setdefault(name, factory())\n"})
    index = Index(Tree.open(tmp_path))
    [a] = analyse_all(index, ("pkg.child:Child",), None, None)
    return dropped(index, a, bindings), class_saving(index, a)


def test_a_buffer_cached_by_a_key_is_saved_once_per_process(tmp_path):
    init = ('        self.ws = get_buffer("ws", lambda: torch.empty(1 << 20, dtype=torch.uint8))\n'
            "        self.scratch = torch.empty(4096, dtype=torch.uint8)\n")
    s, c = saving_of(tmp_path, init)
    assert [(p.scope, p.key, p.gpu) for p in s.parts] == [("process", 'get_buffer("ws")', 1 << 20), ("instance", None, 4096)]
    assert (c["first"]["gpu_bytes"], c["later"]["gpu_bytes"]) == ((1 << 20) + 4096, 4096)


def test_near_miss_the_same_tensor_without_the_cache_is_saved_by_every_instance(tmp_path):
    s, c = saving_of(tmp_path, "        self.ws = torch.empty(1 << 20, dtype=torch.uint8)\n")
    assert [(p.scope, p.gpu) for p in s.parts] == [("instance", 1 << 20)]
    assert c["first"] == c["later"] == {"gpu_bytes": 1 << 20, "pinned_bytes": 0}


def test_pinned_host_memory_is_counted_apart_and_pageable_host_memory_not_at_all(tmp_path):
    init = ('        self.pin = torch.empty(2048, dtype=torch.uint8, device="cpu", pin_memory=True)\n'
            '        self.host = torch.empty(2048, dtype=torch.uint8, device="cpu")\n')
    _, c = saving_of(tmp_path, init)
    assert c["later"] == {"gpu_bytes": 0, "pinned_bytes": 2048}


def test_a_function_under_lru_cache_runs_once_per_process(tmp_path):
    extra = "@functools.lru_cache\ndef table():\n    return torch.empty(64, dtype=torch.uint8)\n\n\ndef fresh():\n    return 1\n\n\n"
    s, _ = saving_of(tmp_path, "        self.t = table()\n        self.f = fresh()\n", extra)
    # the cached function is once per process; the near miss, a plain function, is no allocation
    assert [(p.scope, p.key) for p in s.parts] == [("process", "table() under lru_cache")]


def test_loops_and_tests_that_fold_count_the_constructors_of_the_tree(tmp_path):
    extra = "class Wrapper:\n    def __init__(self):\n        self.buf = torch.empty(8, dtype=torch.uint8)\n\n\n"
    init = ("        if cfg.wide:\n            self.n = 2\n        else:\n            self.n = 1\n"
            "        self.ws = [Wrapper() for _ in range(self.n)]\n"
            "        if not skip:\n            self.extra = Wrapper()\n")
    s, c = saving_of(tmp_path, init, extra)
    assert c["later"]["gpu_bytes"] == 16 and [p.count for p in s.parts] == [1, 1]
    assert any("`self.n` is 1, its value on the `else` branch" in x for x in c["assumptions"])
    # near miss: skip=True, as a caller passes it, folds the test to false: one wrapper fewer
    skipped, _ = saving_of(tmp_path, init, extra, bindings={"skip": True})
    assert sum(p.gpu * p.count for p in skipped.parts) == 8
