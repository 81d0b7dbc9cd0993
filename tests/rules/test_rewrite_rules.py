"""DC601-DC607: each rewrite rule's exact output on a small pair, with near misses beside it.

The expected texts are the patched ``pkg/child.py``; the fixtures under ``fixtures/rewrite/``
run the same rules on larger inputs, before and after, in fresh interpreters.
"""

import pytest
from ruletools import dedent, patch

PARENT_N = """
class Parent:
    def __init__(self, n):
        self.pool = [0] * n
        self.n = n
"""
STEPS = """
class Step:
    def __init__(self, i, size=0):
        self.i = i
        self.size = size


class Parent:
    def __init__(self, n, size=0):
        self.n = n
        self.scratch = [0] * 4096
        self.steps = []
        for i in range(n):
            self.steps.append(Step(i, size))
{after}
"""
FAST_CHILD = """
from .base import Parent


class Fast:
    def __init__(self, i):
        self.i = i


class Child(Parent):
    def __init__(self, n, size=0):
        super().__init__(n, size)
        for i in range({count}):
            self.steps[i] = Fast(i)

    def total(self):
        return {reads}
"""
INLINED = "        # decouple: inlined from Parent.__init__\n"


def test_no_change_for_a_class_that_is_declined(tmp_path):
    after, v = patch(tmp_path, {"base.py": PARENT_N, "child.py": """
        from .base import Parent


        class Child(Parent):
            def total(self):
                return self.n, self.pool
        """})
    assert after is None and v.decision == "decline"


CASES = [
    pytest.param(
        {"base.py": """
            class Parent:
                def __init__(self, n, scale=2):
                    self.pool = [0] * n
                    total = n * scale
                    self.n = total
            """,
         "child.py": """
            from .base import Parent


            class Child(Parent):
                def __init__(self, n):
                    super().__init__(n)
                    self.ready = True

                def total(self):
                    return self.n
            """},
        "class Child:\n    def __init__(self, n):\n" + INLINED + "        total = n * 2\n        self.n = total\n        self.ready = True\n\n"
        "    def total(self):\n        return self.n\n",
        id="DC601-inline-init-binds-defaults",
    ),
    pytest.param(
        {"base.py": PARENT_N, "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n    def total(self):\n        return self.n\n"},
        "class Child:\n    def __init__(self, n):\n" + INLINED + "        self.n = n\n\n    def total(self):\n        return self.n\n",
        id="DC601-inline-init-adds-an-init",
    ),
    pytest.param(
        {"base.py": """
            class Parent:
                def __init__(self, n, fast=False):
                    self.pool = [0] * n
                    if self.__class__ is Parent:
                        self.mode = 'slow'
                    else:
                        self.mode = 'sub'
                    if fast:
                        self.n = n
                    else:
                        self.n = n * 2
            """,
         "child.py": """
            from .base import Parent


            class Child(Parent):
                def __init__(self, n):
                    super().__init__(n, fast=True)

                def total(self):
                    return self.n, self.mode
            """},
        "class Child:\n    def __init__(self, n):\n" + INLINED + "        self.mode = \"sub\"\n        self.n = n\n\n"
        "    def total(self):\n        return self.n, self.mode\n",
        id="DC602-fold-constants",
    ),
    pytest.param(
        {"base.py": """
            class Parent:
                def __init__(self, workers, name="pool"):
                    if workers < 1:
                        raise ValueError("need a worker")
                    if name == "":
                        raise ValueError("need a name")
                    self.workers = workers
                    self.name = name
                    self.table = [bytearray(1 << 10) for _ in range(workers)]
            """,
         "child.py": """
            from .base import Parent


            class Child(Parent):
                def __init__(self):
                    super().__init__(2, "light")

                def label(self):
                    return f"{self.name}:{self.workers}"
            """},
        "class Child:\n    def __init__(self):\n" + INLINED + "        self.workers = 2\n        self.name = \"light\"\n\n"
        "    def label(self):\n        return f\"{self.name}:{self.workers}\"\n",
        id="DC602-validations-the-bound-arguments-always-pass",
    ),
    pytest.param(
        {"base.py": STEPS.format(after=""), "child.py": FAST_CHILD.format(count="n", reads="len(self.steps)")},
        "class Fast:\n    def __init__(self, i):\n        self.i = i\n\n\nclass Child:\n    def __init__(self, n, size=0):\n" + INLINED
        + "        self.steps = []\n        for i in range(n):\n            self.steps.append(Fast(i))\n\n    def total(self):\n        return len(self.steps)\n",
        id="DC603-fuse-loops",
    ),
    pytest.param(
        {"base.py": STEPS.format(after="        self.size = self.steps[0].size\n"),
         "child.py": FAST_CHILD.format(count="n", reads="len(self.steps), self.size")},
        "class Fast:\n    def __init__(self, i):\n        self.i = i\n\n\nclass Child:\n    def __init__(self, n, size=0):\n" + INLINED
        + "        self.steps = []\n        self.size = size\n        for i in range(n):\n            self.steps.append(Fast(i))\n\n"
        "    def total(self):\n        return len(self.steps), self.size\n",
        id="DC604-read-through",
    ),
    pytest.param(
        {"base.py": """
            class Parent:
                kind = 'parent'

                def __init__(self, n):
                    self.pool = [0] * n
                    self.n = n

                # the size
                def size(self):
                    \"\"\"How many.\"\"\"
                    return self.n

                @property
                def label(self):
                    return 'x'

                def plan(self):
                    a, b, c, d, e = 1, 2, 3, 4, 5
                    f, g, h, i, j = 6, 7, 8, 9, 10
                    k, m, o, p, q = 11, 12, 13, 14, 15
                    return a + b + c + d + e
            """,
         "child.py": """
            from .base import Parent


            class Child(Parent):
                \"\"\"A child.\"\"\"

                def __init__(self, n):
                    super().__init__(n)

                def total(self):
                    return self.size(), self.kind, self.label
            """},
        'class Child:\n    """A child."""\n\n    # decouple: inlined from Parent.kind\n    kind = "parent"\n\n    def __init__(self, n):\n' + INLINED
        + "        self.n = n\n\n    def total(self):\n        return self.size(), self.kind, self.label\n\n"
        "    # decouple: inlined from Parent.size\n    # the size\n    def size(self):\n        \"\"\"How many.\"\"\"\n        return self.n\n\n"
        "    # decouple: inlined from Parent.label\n    @property\n    def label(self):\n        return \"x\"\n",
        id="DC605-copy-members",
    ),
    pytest.param(
        {"base.py": """
            class Base:
                def __init__(self):
                    self.opened = True


            class Parent(Base):
                def __init__(self, n):
                    super().__init__()
                    self.pool = [0] * n
            """,
         "child.py": """
            from .base import Parent


            class Mixin:
                pass


            class Child(Parent, Mixin):
                def __init__(self):
                    super().__init__(4)
            """},
        "from .base import Base\n\n\nclass Mixin:\n    pass\n\n\nclass Child(Base, Mixin):\n    def __init__(self):\n" + INLINED + "        super().__init__()\n",
        id="DC606-reparent-onto-the-base",
    ),
    pytest.param(
        {"base.py": PARENT_N, "child.py": "from .base import Parent\n\n\nclass Child(Parent, metaclass=type):\n    def total(self):\n        return self.n\n"},
        "class Child(metaclass=type):\n    def __init__(self, n):\n" + INLINED + "        self.n = n\n\n    def total(self):\n        return self.n\n",
        id="DC606-reparent-onto-object-keeps-keywords",
    ),
    pytest.param(
        {"base.py": "import math\n\n\nclass Parent:\n    def __init__(self, n):\n        self.pool = [0] * n\n        self.n = math.floor(n)\n",
         "child.py": "import os\n\nfrom .base import Parent\n\n\nclass Child(Parent):\n    def __init__(self, n):\n        super().__init__(n)\n\n"
                     "    def total(self):\n        return self.n, os.sep\n"},
        "import math\nimport os\n\n\nclass Child:\n    def __init__(self, n):\n" + INLINED + "        self.n = math.floor(n)\n\n"
        "    def total(self):\n        return self.n, os.sep\n",
        id="DC607-imports-added-and-removed",
    ),
]


@pytest.mark.parametrize("files, expected", CASES)
def test_rule_output(tmp_path, files, expected):
    after, v = patch(tmp_path, {k: dedent(t) for k, t in files.items()})
    assert v.decision == "decouple", v.reason
    assert after == expected


NEAR_MISSES = [
    pytest.param(
        {"base.py": "class Parent:\n    def __init__(self, n, fast=False):\n        self.pool = [0] * n\n        if fast:\n            self.n = n\n"
                    "        else:\n            self.n = n * 2\n",
         "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n    def __init__(self, n, fast):\n        super().__init__(n, fast=fast)\n\n"
                     "    def total(self):\n        return self.n\n"},
        "        if fast:\n            self.n = n\n        else:\n            self.n = n * 2\n",
        id="DC602-a-test-on-a-variable-is-not-folded",
    ),
    pytest.param(
        {"base.py": "class Parent:\n    def __init__(self, workers, limit):\n        if workers > limit:\n            raise ValueError('too many')\n"
                    "        self.workers = workers\n        self.table = [bytearray(1 << 10) for _ in range(workers)]\n",
         "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n    def __init__(self, limit):\n        super().__init__(2, limit)\n\n"
                     "    def size(self):\n        return self.workers\n"},
        "        if 2 > limit:\n            raise ValueError(\"too many\")\n",
        id="DC602-a-validation-against-a-free-argument-stays",
    ),
    pytest.param(
        {"base.py": STEPS.format(after=""), "child.py": FAST_CHILD.format(count="n - 1", reads="len(self.steps)")},
        "        for i in range(n):\n            self.steps.append(Step(i, size))\n        for i in range(n - 1):\n            self.steps[i] = Fast(i)\n",
        id="DC603-another-range-is-not-fused",
    ),
]


@pytest.mark.parametrize("files, kept_text", NEAR_MISSES)
def test_near_misses_keep_the_parent_code(tmp_path, files, kept_text):
    after, v = patch(tmp_path, files)
    assert v.decision == "decouple", v.reason
    assert kept_text in after


# A class without __init__ gets the parent's signature: its defaults are evaluated where the
# class is defined, so a name the class's module binds otherwise is aliased (DC608).
SIGNATURE_BASE = """
LIMIT = 8
Kind = str


class Parent:
    def __init__(self, n=LIMIT, tag: Kind = None):
        self.n = n
        self.table = [bytearray(1 << 10) for _ in range(4)]

    def unused(self):
        return len(self.table)
"""
SIGNATURE_CHILD = """
from .base import {imported}

LIMIT = {value}
Kind = {kind}


class Child(Parent):
    def size(self):
        return self.n
"""


@pytest.mark.parametrize("imported, value, kind, expected_head", [
    pytest.param("Parent", "99", "bytes", "from .base import LIMIT as LIMIT_base, Kind as Kind_base\n",
                 id="DC608-a-default-the-class-module-binds-otherwise"),
    pytest.param("Kind, LIMIT, Parent", "LIMIT", "Kind", "from .base import Kind, LIMIT\n", id="near-miss-the-same-objects"),
])
def test_a_new_init_spells_the_parent_defaults_as_the_parent_module_means_them(tmp_path, imported, value, kind, expected_head):
    from ruletools import run_both

    files = {"base.py": dedent(SIGNATURE_BASE), "child.py": dedent(SIGNATURE_CHILD.format(imported=imported, value=value, kind=kind))}
    before, after, text = run_both(tmp_path, files, "from pkg.child import Child\n"
                                   "print(Child().size(), Child(3).size(), Child.__init__.__annotations__['tag'])\n")
    assert text is not None and text.startswith(expected_head), text
    assert "raised" not in before and after == before
