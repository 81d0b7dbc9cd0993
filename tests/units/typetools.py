"""A package with the class under test, and the verdict on one receiver (for the typing tests)."""

import ast
import textwrap

from codemod.discover import Tree
from codemod.index import Index
from codemod.model import Receiver
from codemod.receiver_typing.typing_flow import Flow

BASE = """
class Parent:
    def __init__(self):
        self.cache = {}


class Child(Parent):
    pass


class Other:
    def __init__(self):
        self.cache = {}
"""


def verdict(tmp_path, user: str, **more: str) -> Receiver:
    """The verdict on the receiver of the last ``.cache`` read in ``user`` (pkg/user.py): may it be
    a ``Child``? ``more`` adds modules (name -> source) beside pkg/base.py."""
    return verdicts(tmp_path, user, **more)[-1]


def verdicts(tmp_path, user: str, **more: str) -> list[Receiver]:
    """The verdicts on the receivers of every ``.cache`` read in ``user``, in order, asked of one
    analysis (so what one answer leaves memoised is seen by the next)."""
    return [verdict for verdict, _, _ in classified(tmp_path, user, **more)]


def classified(tmp_path, user: str, **more: str) -> list[tuple[Receiver, str, str]]:
    """(verdict, note, strength) for the receiver of every ``.cache`` read in ``user``, as ``verdicts``."""
    index = package(tmp_path, user, **more)
    return classify_reads(index, Flow(index, index.module("pkg/base.py").classes["Child"]))


def package(tmp_path, user: str, **more: str) -> Index:
    """The index of pkg/ with base.py (``BASE`` unless ``more`` gives ``base``), ``user`` as
    user.py and ``more`` (name -> source)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(BASE)
    for name, text in more.items():
        (pkg / f"{name}.py").write_text(textwrap.dedent(text))
    (pkg / "user.py").write_text(textwrap.dedent(user))
    return Index(Tree.open(tmp_path))


def classify_reads(index: Index, flow: Flow) -> list[tuple[Receiver, str, str]]:
    """``flow.classify`` on the receiver of every ``.cache`` read of pkg/user.py, in order."""
    mod = index.module("pkg/user.py")
    reads = [n for n in mod.nodes if isinstance(n, ast.Attribute) and n.attr == "cache" and isinstance(n.ctx, ast.Load)]
    return [flow.classify(mod, n.value, n) for n in sorted(reads, key=lambda n: (n.lineno, n.col_offset))]
