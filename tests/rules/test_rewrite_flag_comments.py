"""DC611 stale-comments: comments beside the change that may now be false are listed for review."""

import pytest

from ruletools import write
from codemod.discover import Tree
from codemod.index import Index
from codemod.pipeline import analyse_all, build_patches

BASE = """
class Parent:
    def __init__(self, count):
        # the pool is sized for count requests
        self.pool = [None] * (count + 1)
        self.count = count

    # counts what was asked for
    def size(self):
        return self.count
"""


def comments(tmp_path, child: str, base: str = BASE) -> list[tuple[str, str]]:
    write(tmp_path, {"base.py": base, "child.py": child})
    index = Index(Tree.open(tmp_path))
    patches, _ = build_patches(index, analyse_all(index, ("pkg.child:Child",), None, None))
    return [(text, why) for p in patches for plan in p.plans.values() for _, text, why in plan.comments]


def child(init: str, body: str = "    def total(self):\n        return self.size()\n") -> str:
    return f"from .base import Parent\n\n\nclass Child(Parent):\n    def __init__(self, count):\n{init}\n\n{body}"


def test_no_change_for_comments_that_name_nothing_of_the_parent(tmp_path):
    assert comments(tmp_path, child("        # sized by the caller\n        super().__init__(count)")) == []


@pytest.mark.parametrize("init, flagged", [
    pytest.param("        # Parent sets the size\n        super().__init__(count)", "names Parent", id="names-the-parent"),
    pytest.param("        # keep the pool small\n        super().__init__(count)", "names pool", id="names-a-dropped-member"),
    pytest.param("        # before super().__init__() runs\n        super().__init__(count)", "speaks of the parent", id="speaks-of-super"),
])
def test_a_stale_comment_is_flagged(tmp_path, init, flagged):
    found = comments(tmp_path, child(init))
    assert len(found) == 1 and found[0][1].startswith(flagged), found


def test_near_miss_a_member_the_class_assigns_itself_is_not_stale(tmp_path):
    assert comments(tmp_path, child("        super().__init__(count)\n        # the pool is ours now\n        self.pool = []")) == []


def test_a_copied_comment_that_names_a_dropped_member_is_flagged(tmp_path):
    base = BASE.replace("counts what was asked for", "counts what the pool holds")
    found = comments(tmp_path, child("        super().__init__(count)"), base)
    assert found == [("# counts what the pool holds", "names pool, which the class no longer has")]
