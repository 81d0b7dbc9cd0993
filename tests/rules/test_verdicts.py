"""DC501-DC511: the verdict on a class, decided in one place, names the rule that decided it."""

import pytest
from ruletools import analyse, patch, run_both, write

from codemod.analyse import Analyzer
from codemod.discover import Tree
from codemod.errors import UsageError
from codemod.index import Index
from codemod.lookup import lookup
from codemod.model import Refusal
from codemod.rules import verdict_check_failed, verdict_rewrite_refused
from codemod.verdict import Limits, decide

BASE = """
class Parent:
    def __init__(self, n):
        self.pool = [0] * n
        self.n = n

    def size(self):
        return self.n

    def double(self):
        return self.size() * 2
"""


def child(body: str, bases: str = "(Parent)", imports: str = "from .base import Parent\n") -> dict:
    return {"base.py": BASE, "child.py": f"{imports}\n\nclass Child{bases}:\n{body}"}


def test_decouple(tmp_path):
    a, v = analyse(tmp_path, child("    def total(self):\n        return self.n\n"))
    assert (v.decision, v.rule) == ("decouple", "DC501")
    assert v.reason == "uses 1 of 4 members of Parent (0 methods) and 1 of 2 statements of its __init__"


# A parent whose one method is long: copying it is real reuse, whatever the class skips.
LONG = BASE + "\n    def report(self):\n" + "".join(f"        line{i} = self.n + {i}\n" for i in range(30)) + "        return line0\n"


@pytest.mark.parametrize("body, rule, reason", [
    pytest.param("    def total(self):\n        return self.double()\n", "DC504", "would need 4 of 4 lines", id="mostly-reused"),
    pytest.param("    def total(self):\n        return self.n, self.pool, self.double(), self.size()\n", "DC504", "really reused", id="everything"),
])
def test_declines(tmp_path, body, rule, reason):
    files = child(body)
    files["base.py"] = files["base.py"].replace("self.pool = [0] * n", "self.pool = n")
    a, v = analyse(tmp_path, files)
    assert (v.decision, v.rule) == ("decline", rule) and reason in v.reason


def test_a_small_copy_against_real_work_is_decoupled(tmp_path):
    # Parent.__init__ allocates a pool the class never reads; double() and size() are 4 lines.
    before, after, text = run_both(tmp_path, child("    def total(self):\n        return self.double()\n"),
                                   "from pkg.child import Child\nprint(Child(3).total())\n")
    assert text is not None and "def double(self):" in text and "self.pool" not in text
    assert before == after == "6\n"


def test_near_miss_a_small_copy_without_real_work_declines(tmp_path):
    files = child("    def total(self):\n        return self.double()\n")
    files["base.py"] = files["base.py"].replace("self.pool = [0] * n", "self.pool = n")
    a, v = analyse(tmp_path, files)
    assert v.rule == "DC504" and "the copy is small, but Child would skip no allocation" in v.reason


def test_near_miss_a_long_copy_declines_despite_real_work(tmp_path):
    files = child("    def total(self):\n        return self.report()\n")
    files["base.py"] = LONG
    a, v = analyse(tmp_path, files)
    assert v.rule == "DC504" and "really reused" in v.reason


def test_nothing_to_gain(tmp_path):
    files = {"base.py": "class Parent:\n    def __init__(self, n):\n        self.n = n\n",
             "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n    def total(self):\n        return self.n\n"}
    a, v = analyse(tmp_path, files)
    assert (v.decision, v.rule) == ("decline", "DC505")


def test_no_parent(tmp_path):
    a, v = analyse(tmp_path, child("    pass\n", bases="", imports=""))
    assert (v.rule, v.reason) == ("DC506", "nothing to do: Child has no parent class under ROOT")


def test_already_decoupled(tmp_path):
    body = "    def __init__(self, n):\n        # decouple: inlined from Parent.__init__ (base.py): only what Child uses\n        self.n = n\n"
    a, v = analyse(tmp_path, child(body, bases="", imports=""))
    assert (v.rule, v.reason) == ("DC507", "already decoupled from Parent (its marker comment): nothing to do")


def test_not_a_subclass(tmp_path):
    files = {**child("    pass\n", bases="(Other)", imports="from .other import Other\n"), "other.py": "class Other:\n    pass\n"}
    write(tmp_path, files)
    index = Index(Tree.open(tmp_path))
    a = Analyzer(index).analyse(lookup(index, "pkg.child:Child"), lookup(index, "pkg.base:Parent"))
    v = decide(a)
    assert v.rule == "DC508" and "does not inherit Parent" in v.reason
    # The command line's selection stops before the analysis: an explicit parent not inherited is bad input.
    with pytest.raises(UsageError, match="Child does not inherit Parent"):
        analyse(tmp_path, files, parent="pkg.base:Parent")


def test_unsafe(tmp_path):
    a, v = analyse(tmp_path, child("    def total(self, k):\n        return getattr(self, k)\n"))
    assert (v.decision, v.rule) == ("unsafe", "DC509")


def test_rewrite_refused_names_the_refusing_rule(tmp_path):
    files = child("    def __init__(self, *args):\n        super().__init__(*args)\n\n    def total(self):\n        return self.n\n")
    after, v = patch(tmp_path, files)
    assert after is None
    assert (v.decision, v.rule, v.refused_by) == ("unsafe", "DC510", "DC601")
    assert "passes *args to Parent.__init__: which parameters its items fill is known only at run time" in v.reason


def test_a_refusal_only_overrides_what_would_be_decoupled(tmp_path):
    a, _ = analyse(tmp_path, child("    def size(self):\n        return super().size()\n", bases="(Parent, Exception)"))
    refusal = Refusal("", "pkg/child.py: the patch introduces line 3: UndefinedName 'x'", "check")
    assert decide(a, refusal).rule == "DC502"


def test_check_failed(tmp_path):
    a, _ = analyse(tmp_path, child("    def total(self):\n        return self.n\n"))
    refusal = Refusal("", "pkg/child.py: the patch introduces line 3: UndefinedName 'x'", "check")
    v = decide(a, refusal)
    assert (v.decision, v.rule) == ("unsafe", "DC511") and "UndefinedName" in v.reason
    assert verdict_check_failed.judge(a, None) is None and verdict_rewrite_refused.judge(a, refusal) is None


PLAIN = {"base.py": "class Parent:\n    def __init__(self, n):\n        self.n = n\n        self.startnode = n\n",
         "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n    def total(self):\n        return self.n\n"}


def test_nothing_to_gain_when_only_plain_assignments_would_be_skipped(tmp_path):
    a, v = analyse(tmp_path, PLAIN)
    assert (v.decision, v.rule) == ("decline", "DC505") and "only plain assignments" in v.reason
    assert decide(a, None, Limits(plain_gain=True)).rule == "DC501"


SKIPS_NOTHING = {"base.py": "class Parent:\n    def __init__(self, n):\n        self.n = n\n\n    def unused(self):\n        return 0\n",
                 "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n    def total(self):\n        return self.n\n"}


def test_any_gain_decouples_a_class_that_skips_no_init_work(tmp_path):
    """Child runs all of Parent.__init__: nothing to gain by default, and --plain-gain does not
    change that; --any-gain decouples it (it sheds Parent.unused)."""
    a, v = analyse(tmp_path, SKIPS_NOTHING)
    assert (v.decision, v.rule) == ("decline", "DC505") and "never runs work" in v.reason
    assert decide(a, None, Limits(plain_gain=True)).rule == "DC505"
    assert decide(a, None, Limits(any_gain=True)).rule == "DC501"
    assert decide(a, None, Limits(plain_gain=True, any_gain=True)).rule == "DC501"


def test_near_miss_any_gain_still_declines_under_a_parent_without_init(tmp_path):
    """Child's super().__init__() runs Base.__init__, past Parent: not something to rewrite."""
    files = {"base.py": "class Base:\n    def __init__(self, n):\n        self.n = n\n\n\nclass Parent(Base):\n    def unused(self):\n        return 0\n",
             "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n    def __init__(self, n):\n        super().__init__(n)\n"}
    a, v = analyse(tmp_path, files)
    assert "has no __init__ work to skip" in v.reason
    assert decide(a, None, Limits(max_copied_share=1.0, any_gain=True)).rule == "DC505"


def test_any_gain_under_a_parent_without_init_when_the_class_does_not_call_one(tmp_path):
    files = {"base.py": "class Base:\n    def __init__(self, n):\n        self.n = n\n\n\nclass Parent(Base):\n    def unused(self):\n        return 0\n",
             "child.py": "from .base import Parent\n\n\nclass Child(Parent):\n    def total(self):\n        return self.n\n"}
    a, v = analyse(tmp_path, files)
    assert v.rule == "DC505" and decide(a, None, Limits(max_copied_share=1.0, any_gain=True)).rule == "DC501"


def test_near_miss_any_gain_still_declines_a_class_that_uses_everything(tmp_path):
    files = dict(SKIPS_NOTHING, **{"child.py": SKIPS_NOTHING["child.py"] + "\n    def twice(self):\n        return self.unused()\n"})
    a, v = analyse(tmp_path, files)
    v = decide(a, None, Limits(max_copied_share=1.0, any_gain=True))
    assert v.rule == "DC505" and "uses every member" in v.reason


@pytest.mark.parametrize("dropped", ["[0] * n", "list(range(n))", "Pool(n)", "[i for i in range(n)]", "load(n)"])
def test_near_miss_real_work_is_worth_it(tmp_path, dropped):
    files = {"base.py": PLAIN["base.py"].replace("self.startnode = n", f"self.startnode = {dropped}"), "child.py": PLAIN["child.py"]}
    a, v = analyse(tmp_path, files)
    assert v.rule == "DC501", v.reason


def test_the_copied_share_is_a_threshold(tmp_path):
    files = child("    def total(self):\n        return self.report()\n")
    files["base.py"] = LONG
    a, v = analyse(tmp_path, files)
    assert v.rule == "DC504"
    assert decide(a, None, Limits(max_copied_share=1.0)).rule == "DC501"


FALLBACKS = """
class Wrapper:
    def run(self, x):
        return x


class Parent:
    def __init__(self, n):
        self.n = n
        self.wrapper = Wrapper()
        self.pool = [0] * n

    def size(self):
        return self.n

    def run(self, x):
        return self.wrapper.run(x) + self.n
"""


def test_the_decisive_fallback_is_the_one_that_needs_built_state(tmp_path):
    body = ("    def size(self):\n        return super().size()\n\n"
            "    def run(self, x):\n        return super().run(x)\n")
    files = {"base.py": FALLBACKS, "child.py": f"from .base import Parent\n\n\nclass Child(Parent):\n{body}"}
    a, v = analyse(tmp_path, files)
    assert v.rule == "DC502" and "Child.run falls back to Parent.run" in v.reason
    assert "which needs wrapper, built by Parent.__init__" in v.reason


def test_near_miss_with_no_built_state_needed_the_first_fallback_is_named(tmp_path):
    # A second base: a copy's super() could reach another class, so DC609 does not copy.
    body = "    def size(self):\n        return super().size()\n\n    def other(self):\n        return super().size()\n"
    files = {"base.py": FALLBACKS, "child.py": f"from .base import Parent\n\n\nclass Child(Parent, Exception):\n{body}"}
    a, v = analyse(tmp_path, files)
    assert v.rule == "DC502" and "Child.size falls back to Parent.size" in v.reason and "needs" not in v.reason


def _reported(tmp_path, a, v) -> dict:
    import json

    from codemod import report
    [entry] = json.loads(report.json_text(report.build(tmp_path, [(a, v)], [])))["classes"]
    assert (entry["rule"], entry["reason"]) == (v.rule, v.reason)
    return entry


def test_report_json_says_what_dc501_compared(tmp_path):
    a, v = analyse(tmp_path, child("    def total(self):\n        return self.n\n"))
    assert _reported(tmp_path, a, v)["figures"] == {
        "members_used": 1, "members_total": 4, "methods_copied": 0, "statements_kept": 1, "statements_total": 2}


def test_report_json_says_what_dc504_compared(tmp_path):
    files = child("    def total(self):\n        return self.double()\n")
    files["base.py"] = files["base.py"].replace("self.pool = [0] * n", "self.pool = n")
    a, v = analyse(tmp_path, files)
    assert v.rule == "DC504"
    assert _reported(tmp_path, a, v)["figures"] == {
        "copied_lines": 4, "method_lines_total": 4, "share": 1.0, "max_copied_share": 0.5, "methods_copied": 2,
        "methods": ["double", "size"], "small_copy_methods": 3, "small_copy_lines": 25, "skips_real_work": False}


def test_report_json_says_what_dc505_compared(tmp_path):
    a, v = analyse(tmp_path, PLAIN)
    assert v.rule == "DC505"
    assert _reported(tmp_path, a, v)["figures"] == {
        "members_used": 1, "members_total": 2, "statements_kept": 1, "statements_total": 2,
        "dropped_plain": 1, "dropped_real_work": 0, "loops_fused": 0}


def test_near_miss_a_rule_that_compares_nothing_reports_empty_figures(tmp_path):
    a, v = analyse(tmp_path, child("    def total(self, k):\n        return getattr(self, k)\n"))
    assert v.rule == "DC509" and _reported(tmp_path, a, v)["figures"] == {}


def test_figures_are_not_part_of_a_verdicts_identity():
    from codemod.model import Decision, Verdict
    one, two = Verdict(Decision.DECLINE, "DC505", "r", figures={"a": 1}), Verdict(Decision.DECLINE, "DC505", "r")
    assert one == two and hash(one) == hash(two)
