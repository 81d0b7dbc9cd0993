"""DC611 stale-comments: copied comments that are now false are left out of the patch; the class's
own are listed for review."""

import pytest

from ruletools import run_both, write
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


def patched(tmp_path, child: str, base: str = BASE):
    write(tmp_path, {"base.py": base, "child.py": child})
    index = Index(Tree.open(tmp_path))
    patches, _ = build_patches(index, analyse_all(index, ("pkg.child:Child",), None, None))
    return patches


def comments(tmp_path, child: str, base: str = BASE) -> list[tuple[str, str]]:
    return [(text, why) for p in patched(tmp_path, child, base) for plan in p.plans.values() for _, text, why in plan.comments]


def removed(tmp_path, child: str, base: str = BASE):
    """(the patched module, [(comment, file, line, why)] left out of it)."""
    [p] = patched(tmp_path, child, base)
    return p.after, [(r.comment, r.file, r.line, r.why) for plan in p.plans.values() for r in plan.removed_comments]


def child(init: str, body: str = "    def total(self):\n        return self.size()\n") -> str:
    return f"from .base import Parent\n\n\nclass Child(Parent):\n    def __init__(self, count):\n{init}\n\n{body}"


def test_no_change_for_comments_that_name_nothing_of_the_parent(tmp_path):
    assert comments(tmp_path, child("        # sized by the caller\n        super().__init__(count)")) == []


def test_near_miss_the_class_s_own_comment_naming_a_dropped_member_is_flagged_not_removed(tmp_path):
    init = "        # keep the pool small\n        super().__init__(count)"
    found = comments(tmp_path, child(init))
    assert len(found) == 1 and found[0][1].startswith("names pool"), found
    after, gone = removed(tmp_path / "again", child(init))
    assert "# keep the pool small" in after and gone == []


@pytest.mark.parametrize("text, why", [
    pytest.param("# Parent sets the size", "names Parent, which is no longer a base", id="names-the-parent"),
    pytest.param("# before super().__init__() runs, so that\n        # the parent cannot change it",
                 "speaks of the parent or super(), which no longer run the parent's code", id="speaks-of-super"),
])
def test_the_class_s_own_comment_on_what_super_init_did_is_left_out(tmp_path, text, why):
    # Its super().__init__() is replaced by the parent's code: what the comment said of it is gone.
    init = f"        {text}\n        size = count\n        super().__init__(size)"
    after, gone = removed(tmp_path, child(init))
    lines = [l.strip() for l in text.split("\n")]
    assert not any(l in after for l in lines) and "        size = count\n" in after
    assert gone == [("\n".join(lines), "pkg/child.py", 6, why + " (the class's own)")]
    assert comments(tmp_path / "again", child(init)) == []


def test_near_miss_the_class_s_own_comment_on_super_in_another_method_stays(tmp_path):
    body = "    def total(self):\n        # super() would count the parent's way\n        return self.size()\n"
    after, gone = removed(tmp_path, child("        super().__init__(count)", body))
    assert "# super() would count the parent's way" in after and gone == []


def test_a_copied_comment_naming_a_member_kept_only_for_unknown_uses_is_left_out(tmp_path):
    # `pool` stays (a reader elsewhere of unknown type) but the class's code never reads it: the
    # comment gives the parent's reason for `flag`, not the class's.
    base = ("class Parent:\n    # True since the pool is sized per request\n    flag = True\n\n"
            "    def __init__(self, count):\n        self.pool = [None] * (count + 1)\n        self.count = count\n")
    body = "    def total(self):\n        return self.count if self.flag else 0\n"
    write(tmp_path, {"user.py": "def peek(x):\n    return x.pool\n"})
    after, gone = removed(tmp_path, child("        super().__init__(count)", body), base)
    assert "flag = True" in after and "self.pool" in after and "sized per request" not in after
    assert [g[3] for g in gone] == ["names pool, which the class's code never reads (kept only for uses elsewhere not ruled out)"]


def test_near_miss_a_member_the_class_assigns_itself_is_not_stale(tmp_path):
    assert comments(tmp_path, child("        super().__init__(count)\n        # the pool is ours now\n        self.pool = []")) == []


def test_a_copied_comment_that_names_a_dropped_member_is_left_out(tmp_path):
    base = BASE.replace("counts what was asked for", "counts what the pool holds")
    after, gone = removed(tmp_path, child("        super().__init__(count)"), base)
    assert gone == [("# counts what the pool holds", "pkg/base.py", 7, "names pool, which the class no longer has")]
    assert "pool" not in after and "def size(self):" in after
    assert comments(tmp_path, child("        super().__init__(count)"), base) == []  # left out, so not to review


# The parent allocates a pool the class never reads; what is copied (a statement of __init__, a
# class attribute, a method) carries the comments below.
COPIED = """
class Parent:
    # FLAG
    LIMIT = 3  # TRAILING

    def __init__(self, count):
        self.pool = [None] * (count + 1)
        # INIT
        self.count = min(count, self.LIMIT)

    # METHOD
    def size(self):
        return (
            self.count  # INNER
        )
"""
CHILD_COPIED = "from .base import Parent\n\n\nclass Child(Parent):\n    def __init__(self, count):\n        super().__init__(count)\n\n" \
               "    def total(self):\n        return self.size()\n"


def _copied(**comments: str) -> str:
    base = COPIED
    for slot in ("FLAG", "TRAILING", "INIT", "METHOD", "INNER"):
        base = base.replace(slot, comments.get(slot.lower(), slot.lower() + " note"))
    return base


@pytest.mark.parametrize("slot, text, line", [
    pytest.param("flag", "the pool is small", 2, id="above-a-class-attribute"),
    pytest.param("trailing", "as in Parent", 3, id="end-of-line"),
    pytest.param("init", "the pool is sized first", 7, id="in-the-inlined-init"),
    pytest.param("method", "parent's view of the count", 10, id="above-a-method"),
    pytest.param("inner", "before super() runs", 13, id="inside-an-expression"),
])
def test_a_stale_copied_comment_is_left_out_and_the_code_behaves_the_same(tmp_path, slot, text, line):
    files = {"base.py": _copied(**{slot: text}), "child.py": CHILD_COPIED}
    before, after, patched_text = run_both(tmp_path, files, "from pkg.child import Child\nc = Child(5)\nprint(c.total(), c.LIMIT)")
    assert before == after == "3 3\n"
    assert text not in patched_text and "pool" not in patched_text.replace("# decouple", "")
    for other in {"flag", "trailing", "init", "method", "inner"} - {slot}:
        assert f"# {other} note" in patched_text  # the comments that name nothing stale stay
    assert f"    {slot} note" not in patched_text
    _, gone = removed(tmp_path / "r", CHILD_COPIED, _copied(**{slot: text}))
    assert [(c, line) for c, _, line, _ in gone] == [(f"# {text}", line)]
    compile(patched_text, "child.py", "exec")
    if slot == "trailing":
        assert "    LIMIT = 3\n" in patched_text  # no space left where the comment was


def test_a_run_of_comment_lines_goes_whole_and_a_separate_one_stays(tmp_path):
    base = _copied(method="the count, capped as the\n    # pool allows (the cap is a\n    # class attribute)\n\n    # kept apart")
    base = base.replace("    # kept apart\n    def size", "    # kept apart\n    def size")
    after, gone = removed(tmp_path, CHILD_COPIED, base)
    assert [(c.count("\n"), line) for c, _, line, _ in gone] == [(2, 10)]
    assert "capped" not in after and "class attribute)" not in after and "# kept apart" in after


@pytest.mark.parametrize("text", [
    pytest.param("the count, never above LIMIT", id="names-a-kept-member"),
    pytest.param("count requests at most", id="names-nothing-stale"),
])
def test_near_miss_a_copied_comment_that_is_still_true_stays(tmp_path, text):
    after, gone = removed(tmp_path, CHILD_COPIED, _copied(method=text))
    assert gone == [] and f"# {text}" in after


def test_near_miss_a_copied_tool_directive_stays_and_is_flagged(tmp_path):
    base = _copied(trailing="type: ignore  # Parent's limit")
    after, gone = removed(tmp_path, CHILD_COPIED, base)
    assert gone == [] and "# type: ignore  # Parent's limit" in after
    assert comments(tmp_path / "again", CHILD_COPIED, base) == [("# type: ignore  # Parent's limit", "names Parent, which is no longer a base")]


def test_the_report_counts_the_removed_comments(tmp_path):
    from conftest import run_cli

    write(tmp_path / "tree", {"base.py": _copied(method="the parent's count"), "child.py": CHILD_COPIED})
    code, _, err = run_cli(str(tmp_path / "tree"), "--class", "pkg.child:Child", "--output", str(tmp_path / "out"), "--no-cache")
    assert code == 0, err
    import json
    [c] = json.loads((tmp_path / "out" / "report.json").read_text())["classes"]
    assert c["comments_removed"] == [{"comment": "# the parent's count", "file": "pkg/base.py", "line": 10,
                                      "why": "speaks of the parent or super(), which no longer run the parent's code", "rule": "DC611"}]
    # report.md of a patch is one screen: the removed comment is in the diff, its reason in report.json.
    md = (tmp_path / "out" / "report.md").read_text()
    assert "# the parent's count" not in md and "`report.json` has the rest" in md


class _NamesParent:
    """A ``Stale`` stand-in: a comment is stale when it says "parent"."""

    def why(self, comment):
        import re

        return "speaks of the parent" if re.search(r"\bparent\b", comment) else None


@pytest.mark.parametrize("src, entered", [
    pytest.param("def f(self):\n    x = 1\n    return x\n", False, id="no-comment"),
    pytest.param("def f(self):\n    # counts requests\n    x = 1  # one\n    return x\n", False, id="none-stale"),
    pytest.param("def f(self):\n    if a:\n        # set by the parent\n        x = 1\n    else:\n        y = 2  # plain\n    z = 3\n", True, id="nested"),
    pytest.param("def f(self):\n    x = '# decouple: kept'  # the parent's\n", True, id="marker-in-a-string-then-a-stale-comment"),
    pytest.param("def f(self):\n    x = '#'  # as the parent does\n", True, id="hash-in-a-string"),
    pytest.param("def f(self):\n    x = 1  # one\x0c the parent\n", True, id="form-feed-inside-a-comment"),
    pytest.param("def f(self):  # the parent's hook\n    return 1\n", True, id="header-comment"),
    pytest.param("def f(self):\n    return 1\n    # the parent returned 2\n", True, id="footer-comment"),
    pytest.param("# the parent's\ndef f(self):\n    return 1\n", True, id="leading-comment"),
    pytest.param("def f(self):\n    # type: ignore  # the parent\n    return 1\n", True, id="directive"),
    pytest.param("x = 1  # the parent\n", True, id="a-simple-statement"),
])
def test_stripping_leaves_out_only_visits_that_cannot_change_anything(src, entered):
    """``_Strip.apply`` gives what a visit of every node gives (code and the comments found), and
    the node itself where nothing is stale; near misses: a ``#`` or the tool's marker in a string
    before a stale comment, a form feed inside one, comments of a header, a footer, a leading line.
    A directive followed by a stale-looking comment is entered, to change nothing: the rest of a
    line from each ``#`` is looked at, whatever the comment's real start."""
    import libcst as cst

    from codemod.cst_util import code_of
    from codemod.rules.rewrite_flag_comments import _Strip

    node = cst.parse_statement(src)
    full, fast = _Strip(_NamesParent()), _Strip(_NamesParent())
    expected = node.visit(full)
    got = fast.apply(node)
    assert code_of(got) == code_of(expected) and fast.found == full.found
    assert (got is not node) == entered
