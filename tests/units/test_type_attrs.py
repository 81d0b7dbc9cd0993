"""What an attribute holds, on an instance of known classes: the stores that can reach it (codemod/receiver_typing/type_attrs.py)."""

import pytest

from codemod.model import Receiver

from typetools import package, verdict

NO, MAYBE, YES = Receiver.NO, Receiver.MAYBE, Receiver.YES

HOLDER = """
from .base import Other


class Holder:
    def __init__(self):
        self.item = Other()
"""


def test_no_change_the_holders_own_store(tmp_path):
    user = "from .holder import Holder\n\n\ndef f(h: Holder):\n    return h.item.cache\n"
    assert verdict(tmp_path, user, holder=HOLDER) == NO


@pytest.mark.parametrize("extra, expected", [
    pytest.param("", NO, id="only-the-holders-store"),
    pytest.param("\n\nclass Sub(Holder):\n    def reset(self):\n        from .base import Child\n        self.item = Child()\n", YES,
                 id="a-subclass-stores-the-class"),
    pytest.param("\n\nclass Unrelated:\n    def reset(self):\n        from .base import Child\n        self.item = Child()\n", NO,
                 id="an-unrelated-class-stores-into-its-own"),
    pytest.param("\n\ndef poke(h):\n    from .base import Child\n    h.item = Child()\n", YES,
                 id="a-store-on-an-unknown-receiver"),
    pytest.param("\n\ndef poke(h):\n    from .base import Child\n    h.not_on_a_holder()\n    h.item = Child()\n", NO,
                 id="a-store-on-what-reads-an-attribute-no-holder-has"),
    pytest.param("\n\ndef poke(h: 'Unrelated'):\n    from .base import Child\n    h.item = Child()\n\n\nclass Unrelated:\n    pass\n", NO,
                 id="a-store-on-an-unrelated-type"),
    pytest.param("\n    def __getattr__(self, name):\n        return None\n", MAYBE, id="getattr-on-the-holder"),
    pytest.param("\n    def load(self, name, value):\n        setattr(self, name, value)\n", MAYBE, id="a-computed-setattr-on-self"),
    pytest.param("\n    def swap(self, a, b):\n        self.item, self.other = a, b\n", MAYBE, id="a-tuple-target"),
])
def test_stores(tmp_path, extra, expected):
    user = "from .holder import Holder\n\n\ndef f(h: Holder):\n    return h.item.cache\n"
    assert verdict(tmp_path, user, holder=HOLDER + extra) == expected


def test_a_holder_with_an_outside_base_takes_every_store_of_the_name(tmp_path):
    holder = HOLDER.replace("class Holder:", "import library\n\n\nclass Holder(library.Base):")
    elsewhere = "from .base import Child\n\n\nclass Elsewhere:\n    def __init__(self):\n        self.item = Child()\n"
    user = "from .holder import Holder\n\n\ndef f(h: Holder):\n    return h.item.cache\n"
    assert verdict(tmp_path, user, holder=holder, elsewhere=elsewhere) == YES


def test_near_miss_a_plain_outside_base(tmp_path):
    holder = HOLDER.replace("class Holder:", "import abc\n\n\nclass Holder(abc.ABC):")
    elsewhere = "from .base import Child\n\n\nclass Elsewhere:\n    def __init__(self):\n        self.item = Child()\n"
    user = "from .holder import Holder\n\n\ndef f(h: Holder):\n    return h.item.cache\n"
    assert verdict(tmp_path, user, holder=holder, elsewhere=elsewhere) == NO


CONFINED = HOLDER + """

class Owner:
    def __init__(self):
        self.holder = Holder()

    def use(self):
        return self.holder.item.cache
"""


@pytest.mark.parametrize("poke, expected", [
    pytest.param("def poke(h):\n    h.item = Child()\n", NO, id="confined-a-store-elsewhere-cannot-reach-it"),
    pytest.param("def poke(o):\n    o.holder.item = Child()\n", YES, id="near-miss-a-store-through-the-attribute"),
    pytest.param("def poke(o):\n    h = o.holder\n    h.item = Child()\n", YES, id="near-miss-a-store-through-an-alias"),
    pytest.param("def poke(o, h):\n    keep(o.holder)\n    h.item = Child()\n", YES, id="near-miss-the-attribute-is-passed-on"),
    pytest.param("def poke(o, h):\n    return o.holder\n\n\ndef poke2(h):\n    h.item = Child()\n", YES,
                 id="near-miss-the-attribute-is-returned"),
])
def test_confined_holders(tmp_path, poke, expected):
    user = "from .holder import Owner\n\n\ndef f(o: Owner):\n    return o.holder.item.cache\n"
    assert verdict(tmp_path, user, holder=CONFINED, poke="from .base import Child\n\n\n" + poke) == expected


def test_the_note_names_what_made_it_unknown(tmp_path):
    from typetools import classified

    holder = HOLDER + "\n    def __getattr__(self, name):\n        return None\n"
    user = "from .holder import Holder\n\n\ndef f(h: Holder):\n    return h.item.cache\n"
    [(_, note, _)] = classified(tmp_path, user, holder=holder)
    assert note == "its type is unknown: Holder answers attributes through __getattr__ (pkg/holder.py:5)"


STORES = {
    "a": "def first(x, v):\n    x.item = v\n",
    "b": "def second(x):\n    x.item = 1\n",
    "c": "class C:\n    def __init__(self):\n        self.item = 2\n",
    "d": "def reads(x):\n    return x.item\n",
}


def _types(tmp_path):
    from codemod.receiver_typing.typing_flow import Flow

    index = package(tmp_path, "", **STORES)
    return index, Flow(index, index.module("pkg/base.py").classes["Child"]).types


def test_stores_come_in_the_trees_order_whoever_asked_first(tmp_path):
    """Each file's answer is kept: a caller that stopped early and one that goes on later get
    what one grep of every file gives, in the tree's order."""
    index, types = _types(tmp_path)
    first = next(types._stores("item"))
    assert first[0].rel == "pkg/a.py"
    got = [(m.rel, m.lines[n.lineno - 1].strip()) for m, n, _, _ in types._stores("item")]
    assert got == [("pkg/a.py", "x.item = v"), ("pkg/b.py", "x.item = 1"), ("pkg/c.py", "self.item = 2")]
    assert [(m.rel, n.lineno) for m, n, _, _ in types._stores("item", frozenset({"second"}))] == [("pkg/b.py", 2)]


def test_a_caller_that_stops_at_the_first_store_reads_no_further_file(tmp_path):
    """The typing of a name stops at the first store whose value it cannot follow; the files after
    that one are neither searched nor parsed (SGLang's ``config`` is in 1,396 files)."""
    index, types = _types(tmp_path)
    assert types.attr_types("item") is None  # x.item = v: v is a parameter nobody calls with
    consulted = index.tree.reads.consulted
    assert "pkg/a.py" in consulted
    assert not {"pkg/b.py", "pkg/c.py", "pkg/d.py"} & consulted


def test_stored_from_outside_stops_at_the_first_file_that_stores(tmp_path):
    index, types = _types(tmp_path)
    assert types._stored_from_outside("item")
    assert not {"pkg/b.py", "pkg/c.py", "pkg/d.py"} & index.tree.reads.consulted
