"""The slicer alone: what it keeps of a parent's __init__ for the attributes needed (codemod/slice.py)."""

import ast
import textwrap

import pytest

from codemod.slice import Slicer, side_effect
from codemod.facts import collect


def slice_of(src: str, needed: set[str], consts=None, foreign=(), keep_super=False):
    fn = ast.parse(textwrap.dedent(src)).body[0]
    res = Slicer(fn, "self", consts=consts or {}, foreign_classes=set(foreign), keep_super=keep_super).run(needed)
    lines = textwrap.dedent(src).splitlines()
    return res, [lines[ln - 1].strip() for ln, _ in sorted(res.kept)]


def test_no_change_nothing_needed_keeps_nothing():
    res, kept = slice_of("def __init__(self, n):\n    self.a = n\n    self.b = [0] * n\n", set())
    assert kept == [] and res.total == 2 and res.kept_count == 0


def test_keeps_definitions_and_their_dependencies_in_order():
    res, kept = slice_of("""
        def __init__(self, n):
            size = n * 2
            self.pool = [0] * size
            self.n = size
            self.other = 1
        """, {"n"})
    assert kept == ["size = n * 2", "self.n = size"]
    assert res.free_locals == {"n"}


def test_a_definition_overwritten_before_any_read_is_killed():
    _, kept = slice_of("""
        def __init__(self, n):
            self.mode = "slow"
            self.mode = "fast"
        """, {"mode"})
    assert kept == ['self.mode = "fast"']


def test_near_miss_a_read_between_the_two_definitions_keeps_both():
    _, kept = slice_of("""
        def __init__(self, n):
            self.mode = "slow"
            self.label = self.mode + "!"
            self.mode = "fast"
        """, {"mode", "label"})
    assert kept == ['self.mode = "slow"', 'self.label = self.mode + "!"', 'self.mode = "fast"']


@pytest.mark.parametrize("test, consts, foreign, taken", [
    pytest.param("fast", {"fast": True}, (), "self.n = 1", id="literal-argument"),
    pytest.param("not fast", {"fast": True}, (), "self.n = 2", id="negated"),
    pytest.param("self.__class__ is Parent", {}, ("Parent",), "self.n = 2", id="own-class-is-the-parent"),
    pytest.param("type(self) != Parent", {}, ("Parent",), "self.n = 1", id="type-of-self"),
])
def test_folding_keeps_only_the_branch_that_runs(test, consts, foreign, taken):
    res, kept = slice_of(f"""
        def __init__(self, fast):
            if {test}:
                self.n = 1
            else:
                self.n = 2
        """, {"n"}, consts=consts, foreign=foreign)
    assert kept == [f"if {test}:", taken]
    assert list(res.folded.values()) in ([True], [False])


def test_near_miss_a_test_on_a_free_parameter_is_not_folded():
    res, kept = slice_of("""
        def __init__(self, fast):
            if fast:
                self.n = 1
            else:
                self.n = 2
        """, {"n"})
    assert kept == ["if fast:", "self.n = 1", "self.n = 2"] and res.folded == {}


def test_the_loop_fixpoint_follows_a_long_chain_of_loop_carried_names():
    k = 14  # more rounds than any short loop body needs
    body = ["self.out = a0"] + [f"a{i} = a{i + 1}" for i in range(k)] + [f"a{k} = self.src"]
    src = ("def __init__(self, n):\n    self.src = n\n" + "".join(f"    a{i} = 0\n" for i in range(k + 1))
           + "    for _ in range(3):\n" + "".join(f"        {line}\n" for line in body))
    res, kept = slice_of(src, {"out"})
    # Every statement of the loop feeds self.out through the chain, and so does self.src = n.
    assert set(body) | {"self.src = n", "for _ in range(3):"} <= set(kept)
    assert res.kept_count == res.total


def test_an_early_return_before_a_kept_statement_is_kept():
    _, kept = slice_of("""
        def __init__(self, n):
            if n == 0:
                return
            self.n = n
            self.pool = [0] * n
        """, {"n"})
    assert kept == ["if n == 0:", "return", "self.n = n"]


def test_near_miss_an_early_return_after_every_kept_statement_is_dropped():
    _, kept = slice_of("""
        def __init__(self, n):
            self.n = n
            if n == 0:
                return
            self.pool = [0] * n
        """, {"n"})
    assert kept == ["self.n = n"]


def test_dropped_statements_report_their_side_effect():
    res, _ = slice_of("""
        def __init__(self, n):
            self.n = n
            assert n > 0
            self.pool = Pool(n)
        """, {"n"})
    assert [(s.lineno, why, rule) for s, why, rule in res.dropped] == [
        (5, "constructs Pool", "DC405")]


def test_a_statement_run_for_its_effect_is_kept_with_what_it_reads():
    src = """
        def __init__(self, n):
            limit = n * 2
            self.n = n
            assert limit > 0
            self.pool = Pool(n)
        """
    fn = ast.parse(textwrap.dedent(src)).body[0]
    test = lambda s, f, live: ("DC110", "asserts") if isinstance(s, ast.Assert) else None  # noqa: E731
    res = Slicer(fn, "self", consts={}, foreign_classes=set(), keep_super=False, for_effect=test).run({"n"})
    assert sorted(ln for ln, _ in res.kept) == [3, 4, 5]
    assert [(s.lineno, rule) for s, _, rule in res.for_effect.values()] == [(5, "DC110")]


def test_side_effect_classifier_prefers_statement_level_rules():
    stmt = ast.parse("REGISTRY[k] = torch.empty(3)").body[0]
    assert side_effect(stmt, collect(stmt, "self", set()))[0] == "DC402"
    stmt = ast.parse("x = 1").body[0]
    assert side_effect(stmt, collect(stmt, "self", {"x"})) is None


def test_an_explicit_base_init_on_self_is_always_kept():
    _, kept = slice_of("""
        def __init__(self, name, n):
            Named.__init__(self, name)
            object.__init__(self)
            self.pool = [0] * n
            self.n = n
        """, {"n"})
    assert kept == ["Named.__init__(self, name)", "self.n = n"]


def test_a_method_call_defines_what_the_method_assigns_and_needs_what_it_reads():
    from codemod.facts import MethodEffects

    methods = {"_setup": MethodEffects(reads={"scale"}, writes={"size"}, calls={"_setup"}),
               "_warm": MethodEffects(reads={"pool"}, writes={"warmed"}, calls={"_warm"})}
    fn = ast.parse(textwrap.dedent("""
        def __init__(self, n):
            self.scale = 2
            self.pool = [0] * n
            self._setup(n)
            self._warm()
            self.scale = 3
        """)).body[0]
    res = Slicer(fn, "self", consts={}, foreign_classes=set(), keep_super=False, methods=methods).run({"size", "scale"})
    assert sorted(ln for ln, _ in res.kept) == [3, 5, 7]  # scale = 2 feeds _setup; pool and _warm go


@pytest.mark.parametrize("test, value", [
    pytest.param("self.__class__ is Parent and n", False, id="and-stops-at-a-false-first-operand"),
    pytest.param("self.__class__ is not Parent or n", True, id="or-stops-at-a-true-first-operand"),
    pytest.param("True and self.__class__ is Parent and True", False, id="and-all-folded"),
    pytest.param("False or self.__class__ is not Parent", True, id="or-all-folded"),
    pytest.param("n and self.__class__ is Parent", None, id="near-miss-n-runs-first"),
    pytest.param("self.__class__ is not Parent and n", None, id="near-miss-n-decides"),
])
def test_fold_boolean_operators(test, value):
    from codemod.rules.rewrite_fold_constants import fold
    assert fold(ast.parse(test, mode="eval").body, {}, {"Parent"}, "self") is value


@pytest.mark.parametrize("test, value", [
    pytest.param("workers < 1", False, id="a-validation-always-passed"),
    pytest.param("workers >= 1", True, id="a-validation-always-failed"),
    pytest.param("1 < workers < 3", True, id="a-chain"),
    pytest.param("3 < workers < size", False, id="a-chain-stops-at-its-first-false-link"),
    pytest.param("-1 < workers", True, id="a-negative-literal"),
    pytest.param("name == 'light'", True, id="strings"),
    pytest.param("flag is None", True, id="is-none"),
    pytest.param("not workers > 1", False, id="not-of-a-comparison"),
    pytest.param("workers < size", None, id="near-miss-a-free-parameter"),
    pytest.param("workers is 2", None, id="near-miss-identity-of-a-number"),
    pytest.param("workers < name", None, id="near-miss-a-comparison-that-raises"),
    pytest.param("workers in (1, 2)", True, id="membership-in-a-tuple-of-literals"),
    pytest.param("name not in ['light', 'heavy']", False, id="membership-in-a-list"),
    pytest.param("workers in (1, size)", None, id="near-miss-membership-with-a-free-parameter"),
    pytest.param("workers in sizes", None, id="near-miss-membership-in-a-name"),
    pytest.param("items == []", None, id="near-miss-a-list"),
])
def test_fold_comparisons_of_bound_parameters(test, value):
    from codemod.rules.rewrite_fold_constants import fold
    consts = {"workers": 2, "name": "light", "flag": None}
    assert fold(ast.parse(test, mode="eval").body, consts, {"Parent"}, "self") is value


def test_slicers_of_one_init_share_its_facts_and_a_copy_does_not_take_them(monkeypatch):
    """The scan slices one __init__ once for each set of needs: the facts of its statements are
    worked out once. A copy of the function (other nodes, maybe the same ids later) gets its own."""
    import copy

    from codemod import slice as slicer

    calls = []
    monkeypatch.setattr(slicer, "collect", lambda node, *a: calls.append(node) or collect(node, *a))
    src = "def __init__(self, n):\n    self.a = n\n    self.b = [0] * n\n    open('x')\n"
    fn = ast.parse(src).body[0]
    first = Slicer(fn, "self", consts={}, foreign_classes=set(), keep_super=False).run({"a"})
    seen = len(calls)
    second = Slicer(fn, "self", consts={}, foreign_classes=set(), keep_super=False).run({"b"})
    assert seen and len(calls) == seen, "the second slicer worked out no fact again"
    assert sorted(first.kept) != sorted(second.kept)
    # Other needs, the same answer as a slicer with no facts shared.
    fresh = Slicer(ast.parse(src).body[0], "self", consts={}, foreign_classes=set(), keep_super=False).run({"b"})
    assert sorted(second.kept) == sorted(fresh.kept) and second.total == fresh.total
    twin = copy.deepcopy(fn)
    before = len(calls)
    Slicer(twin, "self", consts={}, foreign_classes=set(), keep_super=False).run({"a"})
    assert len(calls) > before, "a copy's statements are other nodes: their facts are worked out anew"
    # Another name for self: other facts.
    before = len(calls)
    Slicer(fn, "me", consts={}, foreign_classes=set(), keep_super=False).run(set())
    assert len(calls) > before
