"""Where instances of a class can be reached: confined to attributes nothing passes on (codemod/receiver_typing/confinement.py)."""

import textwrap

import pytest

from codemod.receiver_typing.confinement import confining_attributes
from codemod.discover import Tree
from codemod.index import Index

HOLDER = """
class Holder:
    def __init__(self):
        self.item = None

    def reset(self):
        self.item = None
        return self.item is None
"""

OWNER = """
from .holder import Holder


class Owner:
    def __init__(self):
        self.holder = Holder()

    def use(self):
        self.holder.reset()
        h = self.holder
        return h.item, self.holder is None
"""


def through(tmp_path, holder: str = HOLDER, owner: str = OWNER, **more: str):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for name, text in {"__init__": "", "holder": holder, "owner": owner, **more}.items():
        (pkg / f"{name}.py").write_text(textwrap.dedent(text))
    index = Index(Tree.open(tmp_path))
    cls = index.module("pkg/holder.py").classes["Holder"]
    return confining_attributes(index, [cls], [cls])


def test_no_change_confined(tmp_path):
    assert through(tmp_path) == {"holder"}


@pytest.mark.parametrize("holder, owner, more", [
    pytest.param(HOLDER + "\n    def share(self):\n        keep(self)\n", OWNER, {}, id="self-passed-on"),
    pytest.param(HOLDER + "\n    def me(self):\n        return self\n", OWNER, {}, id="self-returned"),
    pytest.param(HOLDER + "\n    def twin(self):\n        return type(self)()\n", OWNER, {}, id="another-made-from-self"),
    pytest.param(HOLDER + "\n    @classmethod\n    def make(cls):\n        return cls()\n", OWNER, {}, id="a-classmethod-makes-one"),
    pytest.param(HOLDER, OWNER + "\n\ndef leak(o):\n    return o.holder\n", {}, id="the-attribute-returned"),
    pytest.param(HOLDER, OWNER + "\n\ndef leak(o):\n    keep(o.holder)\n", {}, id="the-attribute-passed-on"),
    pytest.param(HOLDER, OWNER + "\n\ndef leak(o):\n    return getattr(o, 'holder')\n", {}, id="getattr-names-it"),
    pytest.param(HOLDER, OWNER + "\n\ndef leak(o, p):\n    h = o.holder\n    h = p\n    return h.item\n", {}, id="an-alias-bound-twice"),
    pytest.param(HOLDER, OWNER.replace("self.holder = Holder()", "made = Holder()\n        self.holder = made"), {},
                 id="made-into-a-local"),
    pytest.param(HOLDER, OWNER, {"other": "from .holder import Holder\n\nREGISTRY = [Holder]\n"}, id="the-class-as-a-value"),
    pytest.param(HOLDER, OWNER, {"other": "from .holder import Holder as H\n"}, id="imported-under-another-name"),
    pytest.param(HOLDER, "from .holder import Holder\n", {}, id="never-made-in-the-tree"),
])
def test_not_confined(tmp_path, holder, owner, more):
    assert through(tmp_path, holder, owner, **more) is None


@pytest.mark.parametrize("more", [
    pytest.param({"other": "from .holder import Holder\n\n\ndef f(h: Holder) -> 'Holder':\n    assert isinstance(h, Holder)\n"},
                 id="annotations-and-isinstance"),
    pytest.param({"other": "from .holder import Holder\n\n\nclass Sub(Holder):\n    def __init__(self):\n        super(Holder, self).__init__()\n"},
                 id="a-base-and-super"),
])
def test_harmless_references(tmp_path, more):
    assert through(tmp_path, **more) == {"holder"}
