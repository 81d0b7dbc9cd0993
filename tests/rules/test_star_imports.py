"""Bases bound by ``from .x import *`` (and a package's ``__init__`` that re-exports so) resolve like
any import: ``__all__`` when the module gives it as a literal, else every public top-level name;
the module's own bindings and later star imports win, as at run time."""

import pytest
from ruletools import analyse, dedent, run_both, write

from codemod.discover import Tree
from codemod.index import Index

# A YAML loader family, shaped like PyYAML's: the loader module star-imports its stages.
READER = """
__all__ = ["Reader", "ReaderError"]


class ReaderError(Exception):
    pass


class Reader:
    def __init__(self, stream):
        self.stream = stream
        self.buffer = [0] * 4096
        self.pointer = 0

    def peek(self):
        return self.stream[self.pointer]
"""

SCANNER = """
class Scanner:
    def __init__(self):
        self.tokens = []

    def scan(self):
        return list(self.tokens)


class _Private:
    pass
"""

CHILD = """
from .reader import *
from .scanner import *


class Child(Reader, Scanner):
    def __init__(self, stream):
        Reader.__init__(self, stream)
        Scanner.__init__(self)

    def first(self):
        return self.stream[0] + str(len(self.scan()))
"""

FILES = {"reader.py": READER, "scanner.py": SCANNER, "child.py": CHILD}


def index_of(tmp_path, files: dict) -> Index:
    write(tmp_path, {k: dedent(v) for k, v in files.items()})
    return Index(Tree.open(tmp_path))


def test_star_imported_bases_resolve(tmp_path):
    index = index_of(tmp_path, FILES)
    child = index.module_by_name("pkg.child").classes["Child"]
    assert child.bases == ["pkg.reader.Reader", "pkg.scanner.Scanner"]
    assert index.resolve_class(child.bases[0]) is index.module_by_name("pkg.reader").classes["Reader"]


def test_a_star_imported_parent_is_decoupled_and_behaves_the_same(tmp_path):
    before, after, patched = run_both(tmp_path, FILES, """
        from pkg.child import Child
        c = Child("xyz")
        print(c.first(), [k.__name__ for k in type(c).__mro__])
    """)
    assert patched is not None and "class Child(Scanner):" in patched and "self.stream = stream" in patched
    assert before.split()[0] == after.split()[0] == "x0" and "Reader" in before and "Reader" not in after


@pytest.mark.parametrize("files, expect", [
    # __all__ leaves Reader out: the star binds nothing of that name, and the base stays unresolved.
    pytest.param({"reader.py": READER.replace('["Reader", "ReaderError"]', '["ReaderError"]')}, "Reader", id="not-in-__all__"),
    # No __all__: a private name is not bound by the star.
    pytest.param({"child.py": CHILD.replace("class Child(Reader, Scanner)", "class Child(_Private, Scanner)")}, "_Private",
                 id="private-without-__all__"),
    # The module's own binding wins over the star (an assignment: no class of the tree).
    pytest.param({"child.py": CHILD.replace("\n\nclass Child", "\n\nReader = dict\n\n\nclass Child")}, "Reader",
                 id="own-binding-wins"),
    # The later star import wins.
    pytest.param({"scanner.py": SCANNER + "\n\nclass Reader:\n    pass\n"}, "pkg.scanner.Reader", id="later-star-wins"),
])
def test_near_misses_resolve_as_python_binds(tmp_path, files, expect):
    index = index_of(tmp_path, {**FILES, **files})
    assert index.module_by_name("pkg.child").classes["Child"].bases[0] == expect


def test_a_package_that_re_exports_by_star(tmp_path):
    """A graph library's shape: ``pkg/__init__.py`` star-imports its modules, subclasses elsewhere
    import the parent from the package; ``--parent`` finds them, the class's parent is that class."""
    files = {
        "graph.py": "__all__ = ['Graph']\n\n\nclass Graph:\n    def __init__(self):\n        self.adj = {}\n        self.cache = [0] * 4096\n",
        "__init__.py": "from .graph import *\n",
        "child.py": "from pkg import Graph\n\n\nclass Child(Graph):\n    def __init__(self):\n        super().__init__()\n\n"
                    "    def order(self):\n        return len(self.adj)\n",
    }
    a, v = analyse(tmp_path, files, parent="pkg.graph:Graph")
    assert a.parent.qualname == "pkg.graph.Graph" and v.decision == "decouple", v
    index = Index(Tree.open(tmp_path))
    parent = index.module_by_name("pkg.graph").classes["Graph"]
    assert [c.name for c in index.subclasses(parent)] == ["Child"]


def test_a_cycle_of_star_imports_ends(tmp_path):
    files = {**FILES, "reader.py": "from .scanner import *\n" + READER.replace('__all__ = ["Reader", "ReaderError"]\n', ""),
             "scanner.py": "from .reader import *\n" + SCANNER}
    index = index_of(tmp_path, files)
    bases = [index.resolve_class(b) for b in index.module_by_name("pkg.child").classes["Child"].bases]
    assert [(c.module.name, c.name) for c in bases] == [("pkg.reader", "Reader"), ("pkg.scanner", "Scanner")]
