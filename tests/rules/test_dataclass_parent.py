"""A ``@dataclass`` parent (issue 27, item 3): its generated ``__init__`` and ``__post_init__`` are
the ``__init__`` work sliced and inlined (DC313), and what does not carry over is refused.

Each patched case runs against the original in fresh interpreters (``run_both``) and must print
the same; a near miss beside each is refused with DC313's reason naming the feature.
"""

import re

import pytest
from ruletools import analyse, hazards_of, patch, run_both, write


def parent(decorator: str = "@dataclass(eq=False, repr=False)", fields: str = 'size: int\n    name: str = "p"',
           post: str = "self.tables = [bytearray(self.size) for _ in range(64)]\n        self.scale = 2",
           head: str = "from dataclasses import dataclass") -> str:
    return f'''
{head}


class Base:
    kind = "base"

    def hello(self):
        return "hi " + type(self).__name__


{decorator}
class Parent(Base):
    {fields}

    def __post_init__(self):
        {post}

    def describe(self):
        return len(self.tables)
'''


def child(uses: str = "self.scale * self.mine", extra: str = "", call: str = "super().__init__(size)") -> str:
    return f'''
from .base import Parent


class Child(Parent):
    def __init__(self, size):
        {call}
        self.mine = size

    def run(self):
        return {uses}
{extra}
'''


def files(**kw) -> dict[str, str]:
    c = {k: kw.pop(k) for k in ("uses", "extra", "call") if k in kw}
    return {"base.py": parent(**kw), "child.py": child(**c)}


PROBE = '''
from pkg.child import Child
c = Child(3)
print(c.run(), c.hello(), Child.kind, "hashable" if type(c).__hash__ else "unhashable")
'''
REPR_PROBE = PROBE + "print(repr(Child(2)), Child(2) == Child(2), Child(2) == Child(3))\n"

EQ = '''
    def __eq__(self, other):
        return isinstance(other, Child) and other.mine == self.mine
'''
REPR = '''
    def __repr__(self):
        return f"Child({self.mine})"
'''


@pytest.mark.parametrize("case, probe, kept, dropped", [
    pytest.param(files(), PROBE, ["self.scale = 2"], ["bytearray", "self.size = size"], id="post-init-work-skipped"),
    pytest.param(files(uses="self.scale * self.size"), PROBE, ["self.size = size"], ["bytearray"], id="a-field-it-reads-is-stored"),
    pytest.param(files(uses="self.name * self.mine"), PROBE, ['"p"'], ["bytearray"], id="a-default-is-bound"),
    pytest.param(files(call='super().__init__(size, name="q")', uses="self.name * self.mine"), PROBE, ['"q"'], ["bytearray"],
                 id="a-passed-field"),
    pytest.param(files(post="self.tables = [bytearray(self.size) for _ in range(64)]\n        self.scale = self.size * 2"),
                 PROBE, ["self.size = size", "self.scale = self.size * 2"], ["bytearray"], id="post-init-reads-a-field"),
    pytest.param(files(decorator="@dataclass", extra=EQ + REPR), REPR_PROBE, ["self.scale = 2"], ["bytearray"], id="eq-and-repr-overridden"),
    pytest.param(files(decorator="@dataclass(repr=False)", extra=EQ), REPR_PROBE.replace("repr(Child(2)), ", ""), ["self.scale = 2"],
                 ["bytearray"], id="eq-overridden-repr-off"),
    pytest.param(files(decorator="@dataclasses.dataclass(eq=False, repr=False, init=True)", head="import dataclasses"), PROBE,
                 ["self.scale = 2"], ["bytearray"], id="module-spelling-and-init-true"),
    pytest.param(files(fields='size: int\n    limit: ClassVar[int] = 7\n    name: str = "p"',
                       head="from dataclasses import dataclass\nfrom typing import ClassVar", uses="self.limit * self.mine"),
                 PROBE, ["limit"], ["bytearray"], id="classvar-is-no-field"),
    pytest.param(files(post="size, name = self.size, self.name\n        self.tables = [bytearray(size) for _ in range(64)]\n        self.scale = len(name)"),
                 PROBE, ["self.scale = len(name)"], ["bytearray"], id="post-init-binds-a-field-name-first"),
    pytest.param({"base.py": parent().replace("class Parent(Base):", "class Parent(Mixin, Base):").replace(
        "class Base:", "class Mixin:\n    def __init__(self, *args):\n        self.mixed = len(args)\n\n\nclass Base:"),
        "child.py": child(uses="self.scale * self.mine + int(hasattr(self, 'mixed'))")}, PROBE, ["self.scale = 2"], ["bytearray", "mixed ="],
        id="a-second-base-s-init-never-runs"),
])
def test_the_generated_init_is_sliced_and_behaves_the_same(tmp_path, case, probe, kept, dropped):
    before, after, text = run_both(tmp_path, case, probe)
    assert text is not None, patch(tmp_path / "why", case)[1]
    assert before == after and "Traceback" not in before and "raised" not in before, (before, after)
    assert re.search(r"class Child\((Mixin, )?Base\):", text), text
    for k in kept:
        assert k in text, text
    for d in dropped:
        assert d not in text, text
    assert "__post_init__" not in text, text


def outside_base() -> dict[str, str]:
    text = parent().replace("class Base:", "class Base(Outside):")
    return {"base.py": text.replace("from dataclasses import dataclass", "from dataclasses import dataclass\nfrom elsewhere import Outside"),
            "child.py": child()}


@pytest.mark.parametrize("case, reason", [
    pytest.param(files(decorator="@dataclass"), "generated __eq__", id="default-eq-inherited"),
    pytest.param(files(decorator="@dataclass(repr=False)"), "generated __eq__", id="eq-inherited"),
    pytest.param(files(decorator="@dataclass(eq=False)"), "generated __repr__", id="repr-inherited"),
    pytest.param(files(decorator="@dataclass(eq=False, repr=False, frozen=True)"), "option frozen=", id="frozen"),
    pytest.param(files(decorator="@dataclass(eq=False, repr=False, slots=True)"), "option slots=", id="slots"),
    pytest.param(files(decorator="@dataclass(eq=False, repr=False, order=True)"), "option order=", id="order"),
    pytest.param(files(decorator="@dataclass(eq=False, repr=False, init=False)"), "init=False", id="init-false"),
    pytest.param(files(fields='size: int\n    names: list = field(default_factory=list)', head="from dataclasses import dataclass, field"),
                 "field(default_factory)", id="default-factory"),
    pytest.param(files(fields='size: int\n    name: str = field(default="p")', head="from dataclasses import dataclass, field"),
                 "field(default)", id="field-default"),
    pytest.param(files(fields='size: int\n    seed: InitVar[int] = 0', head="from dataclasses import dataclass, InitVar"),
                 "InitVar", id="initvar"),
    pytest.param(files(fields='size: int\n    name: str = str(3)'), "not a literal", id="computed-default"),
    pytest.param(files(post="if self.size < 0:\n            return\n        self.scale = 2"), "returns", id="post-init-returns"),
    pytest.param(files(post="super().__init__()\n        self.scale = 2"), "uses super", id="post-init-super"),
    pytest.param(files(extra="\n    def __post_init__(self):\n        self.scale = 5\n"), "overrides __post_init__", id="child-overrides-post-init"),
    pytest.param({**files(), "use.py": "import dataclasses\n\n\ndef dump(x):\n    return dataclasses.asdict(x)\n"},
                 "dataclasses.asdict", id="asdict-in-the-tree"),
    pytest.param({**files(), "use.py": "def keys(x):\n    return list(x.__dataclass_fields__)\n"},
                 "__dataclass_fields__", id="dataclass-fields-in-the-tree"),
    pytest.param({**files(), "use.py": "from .child import Child\n\n\ndef f(x):\n    match x:\n        case Child(3):\n            return 1\n"},
                 "positional class pattern", id="match-args"),
    pytest.param({**files(), "use.py": "import copy\n\n\ndef bump(x):\n    return copy.replace(x, size=1)\n"},
                 "copy.replace", id="copy-replace-in-the-tree"),
    pytest.param(files(decorator="@dataclass(eq=False)", extra=REPR.replace('f"Child({self.mine})"', 'super().__repr__() + "!"')),
                 "super().__repr__", id="child-repr-reaches-the-generated-one"),
    pytest.param(files(post="self.tables = [bytearray(size) for _ in range(64)]\n        self.scale = 2", head="from dataclasses import dataclass\n\nsize = 5"),
                 "reads the name size", id="post-init-reads-a-global-named-like-a-field"),
    pytest.param(outside_base(), "outside the tree", id="base-outside-the-tree"),
])
def test_what_does_not_carry_over_is_refused(tmp_path, case, reason):
    a, v = analyse(tmp_path, case)
    found = hazards_of(a, "DC313")
    assert v.decision == "unsafe" and found, (v, found)
    assert reason in found[0], found


def test_a_child_dataclass_is_refused(tmp_path):
    case = files()
    case["child.py"] = '''
from dataclasses import dataclass

from .base import Parent


@dataclass(eq=False, repr=False)
class Child(Parent):
    mine: int = 0

    def run(self):
        return self.scale
'''
    a, v = analyse(tmp_path, case)
    assert v.decision == "unsafe" and "decorated itself" in hazards_of(a, "DC313")[0]


def test_the_user_s_word_on_eq_and_repr_is_an_assumption(tmp_path):
    from codemod.discover import Tree
    from codemod.index import Index
    from codemod.model import Knowledge
    from codemod.pipeline import analyse_all
    from codemod.verdict import decide

    write(tmp_path, files(decorator="@dataclass"))
    knowledge = Knowledge(unused=frozenset({"Child.__eq__", "Child.__repr__"}))
    [a] = analyse_all(Index(Tree.open(tmp_path)), ("pkg.child:Child",), None, None, knowledge=knowledge)
    assert not hazards_of(a, "DC313")
    assert set(a.assumptions) >= {"__eq__", "__repr__"}
    assert decide(a).decision == "decouple"


REBINDS = '''
class Base:
    pass


class Parent(Base):
    def __init__(self, size):
        size = size * 2
        self.scale = size
        self.tables = [bytearray(size) for _ in range(64)]
'''


@pytest.mark.parametrize("call", ["super().__init__(size)", "super().__init__(size + 1)"])
def test_a_parameter_the_parent_binds_again_leaves_the_child_s_alone(tmp_path, call):
    """DC601: P's parameter bound again in the inlined code (as a field's name in ``__post_init__``
    may be) gets P's suffix, so C's own variable of that name keeps its value."""
    case = {"base.py": REBINDS, "child.py": child(uses="(self.scale, self.mine)", call=call)}
    before, after, text = run_both(tmp_path, case, "from pkg.child import Child\nprint(Child(3).run())\n")
    assert text is not None and before == after, (before, after, text)
    assert "size_parent = size_parent * 2" in text, text
