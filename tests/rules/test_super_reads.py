"""DC102 and DC609 on members read through ``super()`` as values: a property, a class attribute, a
bound method. Each is kept and, after reparenting, still found: the original and the patched package
run and must print the same; a read that cannot be made to mean the same declines (DC502) or is
refused by the post-condition DC702."""

import pytest
from ruletools import analyse, patch, run_both

# A document library's block container, shaped like python-docx's: a table cell reads the
# container's paragraphs through super().
BASE = """
class Part:
    kind = "part"
    separator = "\\n"

    def __init__(self, parent=None):
        self._parent = parent


class Row:
    def __init__(self, n):
        self.cells = [None] * n


class BlockItemContainer(Part):
    kind = "block"
    style = None
    separator = "\\n"
    registry = {"p": "paragraph"}
    layout = Row(2)

    def __init__(self, element, parent=None):
        super().__init__(parent)
        self._element = element
        self._rows = [Row(64) for _ in range(16)]

    @property
    def paragraphs(self):
        return [p for p in self._element if p.startswith("p")]

    @paragraphs.setter
    def paragraphs(self, value):
        self._element[:] = value

    def first(self):
        return self._element[0]
"""


PROBE = """
    from pkg.child import Child
    c = Child(["pa", "x", "pb"])
    print(c.text(), [b.__name__ for b in type(c).__mro__])
"""


def child(body: str) -> dict:
    return {"base.py": BASE, "child.py": "from .base import BlockItemContainer\n\n\nclass Child(BlockItemContainer):\n"
            "    def __init__(self, tc, parent=None):\n        super(Child, self).__init__(tc, parent)\n\n" + body}


@pytest.mark.parametrize("body", [
    pytest.param("    def text(self):\n        return '|'.join(super(Child, self).paragraphs)\n", id="property-through-super-C-self"),
    pytest.param("    def text(self):\n        return super().kind + '/' + '|'.join(super().paragraphs)\n", id="class-attribute-and-property"),
    pytest.param("    def text(self):\n        f = super().first\n        return f() + str(super().style)\n", id="bound-method-and-None"),
    pytest.param("    @property\n    def paragraphs(self):\n        return ['own']\n\n"
                 "    def text(self):\n        return '|'.join(super().paragraphs + self.paragraphs)\n", id="overridden-property"),
    pytest.param("    kind = 'cell'\n\n    def text(self):\n        return super().kind + self.kind\n", id="overridden-class-attribute"),
    pytest.param("    def first(self):\n        return 'own'\n\n    def text(self):\n        g = super().first\n        return g() + self.first()\n", id="overridden-method-read"),
])
def test_a_member_read_through_super_is_found_after_the_patch(tmp_path, body):
    before, after, patched = run_both(tmp_path, child(body), PROBE)
    assert patched is not None, "not patched"
    assert "super()" not in patched.split("def text")[1] and "super(Child" not in patched
    assert before.split("[")[0] == after.split("[")[0] and "raised" not in after, (before, after)
    assert "BlockItemContainer" in before and "BlockItemContainer" not in after  # it was reparented


def test_near_miss_a_value_the_new_base_gives_alike_stays_a_super_read(tmp_path):
    """DC151 drops separator (Part binds the same literal): super().separator then finds Part's, as
    DC702 checks, and stays as written."""
    before, after, patched = run_both(tmp_path, child("    def text(self):\n        return super().separator.join(super().paragraphs)\n"), PROBE)
    assert patched is not None and "super().separator.join(self._BlockItemContainer_paragraphs)" in patched
    assert "separator =" not in patched and before.split("[")[0] == after.split("[")[0] and "raised" not in after


def test_the_read_is_kept_as_the_class_own_use(tmp_path):
    a, v = analyse(tmp_path, child("    def text(self):\n        return '|'.join(super(Child, self).paragraphs)\n"))
    [ev] = a.kept["paragraphs"]
    assert ev.rule == "DC102" and ev.line == 9 and "super().paragraphs in Child.text reads BlockItemContainer.paragraphs" in ev.use


def test_the_parent_s_copy_is_private_when_the_class_overrides(tmp_path):
    after, v = patch(tmp_path, child("    kind = 'cell'\n\n    def text(self):\n        return super().kind\n"))
    assert "_BlockItemContainer_kind = \"block\"" in after and "kind = 'cell'" in after
    assert "return self._BlockItemContainer_kind" in after


@pytest.mark.parametrize("body, why", [
    # Not a literal: an object with a __set_name__ could not take a second name.
    pytest.param("    def text(self):\n        return str(super().layout)\n", "layout is a class attribute whose value is not a literal",
                 id="computed-class-attribute"),
    # A literal, even a mutable one, is one object under both names.
    pytest.param("    def text(self):\n        return str(super().registry)\n", None, id="near-miss-literal-dict"),
    # A property the class overrides, with a setter in the parent: the getter copy is plain; the
    # near miss is a decorated one.
    pytest.param("    @property\n    def paragraphs(self):\n        return []\n\n    def text(self):\n        return str(super().paragraphs)\n",
                 None, id="overridden-property-with-parent-setter"),
])
def test_near_misses(tmp_path, body, why):
    a, v = analyse(tmp_path, child(body))
    if why is None:
        assert v.decision == "decouple", v.reason
    else:
        assert v.rule == "DC502" and why in v.reason, v.reason


def test_super_of_another_class_is_not_redirected(tmp_path):
    """super(Part, self).kind skips Part: it does not read the parent's kind, and stays as written."""
    body = "    def text(self):\n        return super(BlockItemContainer, self).kind\n"
    a, v = analyse(tmp_path, child(body))
    assert "kind" not in a.kept or all(e.rule != "DC102" for e in a.kept["kind"])


def test_a_read_the_redirect_cannot_reach_is_refused(tmp_path):
    """super(Child, self) inside a lambda is one scope deeper than the redirect rewrites: DC702 refuses."""
    after, v = patch(tmp_path, child("    def text(self):\n        get = lambda: super(Child, self).paragraphs\n        return '|'.join(get())\n"))
    assert after is None and "DC702" in v.reason and "super().paragraphs in Child.text (line 11) found BlockItemContainer.paragraphs" in v.reason, v.reason


def test_the_patch_is_idempotent(tmp_path):
    files = child("    def text(self):\n        return '|'.join(super().paragraphs)\n")
    after, v = patch(tmp_path / "one", files)
    again, v2 = patch(tmp_path / "two", {"base.py": BASE, "child.py": after})
    assert again is None and v2.rule == "DC507", v2
