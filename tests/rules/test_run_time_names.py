"""Names moved code reads at run time that the class's module binds only for type checkers
(``if TYPE_CHECKING:``) or only maybe (``try``/``except ImportError``): DC608 imports them at run
time under an alias, as the parent's module does, or the post-condition DC705 refuses the patch.
pyflakes counts a ``TYPE_CHECKING`` import as a binding, so no other check sees these."""

import pytest
from ruletools import patch, run_both

WIDGETS = """
class Widget:
    def __init__(self, name):
        self.name = name
"""


def base(head: str = "from .widgets import Widget\n", make: str = "    def make(self):\n        return Widget('w%d' % self.n)\n") -> str:
    return head + f"""

class Base:
    def __init__(self):
        self.tag = "b"


class Parent(Base):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.pool = [bytearray(64) for _ in range(n)]

{make}"""


def child(head: str, body: str = "    def build(self):\n        return self.make()\n") -> str:
    return head + f"""

class Child(Parent):
    def __init__(self, n):
        super().__init__(n)

{body}"""


GUARDED = "from typing import TYPE_CHECKING\n\nfrom .base import Parent\n\nif TYPE_CHECKING:\n    from .widgets import Widget\n"

PROBE = """
    from pkg.child import Child
    print(Child(3).build().name, [c.__name__ for c in type(Child(1)).__mro__])
"""


def test_a_type_checking_name_is_imported_at_run_time_as_the_parent_s_module_does(tmp_path):
    files = {"widgets.py": WIDGETS, "base.py": base(), "child.py": child(GUARDED)}
    before, after, patched = run_both(tmp_path, files, PROBE)
    assert patched is not None and "from pkg.widgets import Widget as Widget_base" in patched
    assert 'return Widget_base("w%d" % self.n)' in patched
    assert before.split()[0] == after.split()[0] == "w3" and "Parent" in before and "Parent" not in after


@pytest.mark.parametrize("head, body", [
    # Only an annotation reads it, and annotations do not run here.
    pytest.param("from __future__ import annotations\n\n" + GUARDED, "    def build(self) -> Widget:\n        return 1\n", id="future-annotations"),
    pytest.param(GUARDED, "    def build(self) -> 'Widget':\n        return 1\n", id="string-annotation"),
])
def test_near_miss_a_name_only_annotations_read_needs_no_import(tmp_path, head, body):
    make = "    def make(self) -> 'Widget':\n        return self.n\n"
    files = {"widgets.py": WIDGETS, "base.py": base(make=make), "child.py": child(head, body + "\n    def size(self):\n        return self.make()\n")}
    after, v = patch(tmp_path, files)
    assert v.decision == "decouple", v.reason
    assert "Widget_base" not in after and "import Widget\n" in after


def test_an_annotation_that_runs_in_the_class_s_module_is_refused(tmp_path):
    """The parent's module defers its annotations and knows Widget only for type checkers; the
    class's module runs them: the copied ``make`` would raise NameError when the class is defined."""
    head = "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .widgets import Widget\n"
    make = "    def make(self, w: Widget = None):\n        return self.n\n"
    files = {"widgets.py": WIDGETS, "base.py": base(head, make), "child.py": child(GUARDED)}
    after, v = patch(tmp_path, files)
    assert after is None and v.refused_by == "DC705", v
    assert "reads Widget at run time, which pkg/child.py binds only under `if TYPE_CHECKING:`" in v.reason


def test_a_name_the_class_s_module_may_bind_to_a_fallback_is_refused(tmp_path):
    head = "from .base import Parent\n\ntry:\n    from .widgets import Widget\nexcept ImportError:\n    Widget = None\n"
    files = {"widgets.py": WIDGETS, "base.py": base(), "child.py": child(head)}
    after, v = patch(tmp_path, files)
    assert after is None and v.refused_by == "DC705" and "reads Widget" in v.reason, v
