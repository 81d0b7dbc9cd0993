"""The import fixer alone: add what new code lacks, remove what became unused (codemod/rules/rewrite_imports.py)."""

import pytest
import libcst as cst

from codemod.rules.rewrite_imports import add_import


def added(text: str, module: str, obj, **kw) -> str:
    return add_import(cst.parse_module(text), module, obj, **kw).code


def test_no_change_when_already_imported():
    text = "from pkg.base import Thing\n\nx = Thing\n"
    assert added(text, "pkg.base", "Thing") == text


def test_merges_into_the_same_module_line_in_order():
    assert added("from pkg.base import Alpha, Gamma\n", "pkg.base", "Beta") == "from pkg.base import Alpha, Beta, Gamma\n"


def test_new_line_sorted_into_the_block():
    text = "import os\nimport sys\n\nfrom pkg.a import A\nfrom pkg.c import C\n\nx = 1\n"
    assert added(text, "pkg.b", "B") == "import os\nimport sys\n\nfrom pkg.a import A\nfrom pkg.b import B\nfrom pkg.c import C\n\nx = 1\n"


def test_long_lines_wrap_in_black_style():
    names = ", ".join(f"Name{i:02d}" for i in range(10))
    out = added(f"from pkg.base import {names}\n", "pkg.base", "Zeta")
    assert out.startswith("from pkg.base import (\n    Name00,\n") and out.endswith("    Zeta,\n)\n")


def test_type_checking_imports_go_under_the_guard():
    text = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg.a import A\n\nx = 1\n"
    out = added(text, "pkg.b", "B", type_checking=True)
    assert "if TYPE_CHECKING:\n    from pkg.a import A\n    from pkg.b import B\n" in out


def test_near_miss_a_relative_import_of_the_same_module_is_merged():
    text = "from .base import Alpha\n"
    assert added(text, "pkg.base", "Beta", here=("pkg.child", False)) == "from .base import Alpha, Beta\n"


@pytest.mark.parametrize("text", [
    pytest.param("", id="empty"),
    pytest.param("# only a comment\n", id="comment-only"),
    pytest.param("import os\n\n\nclass A:\n    def f(self):\n        import sys\n        return sys\n", id="plain"),
    pytest.param("x = 1\r\nif x:\r\n    y = 2\r\n", id="crlf"),
    pytest.param("def f():\n\treturn 1\n", id="tabs"),
    pytest.param("x = 1", id="no-trailing-newline"),
    pytest.param("#!/usr/bin/env python\n# header\n\nx = 1\n\n# footer\n", id="header-and-footer"),
])
def test_module_code_is_libcst_s_code(text):
    """``ModuleCode`` gives ``Module.code`` byte for byte, for a module and for versions of it
    that share statements, drop one and add one."""
    import libcst as cst

    from codemod.cst_util import ModuleCode

    render = ModuleCode()
    module = cst.parse_module(text)
    assert render(module) == module.code == text
    if module.body:
        dropped = module.with_changes(body=module.body[1:])
        assert render(dropped) == dropped.code
    added = module.with_changes(body=[cst.parse_statement("import re\n"), *module.body])
    assert render(added) == added.code


def test_a_visit_that_changes_nothing_keeps_every_statement_s_identity():
    """``unchanged`` in ``on_leave``: the statements a transformer entered and left as they were
    are the same objects after it (so ``ModuleCode`` reuses their code); one it changed is new,
    and so is each statement around it, and nothing else."""
    import libcst as cst

    from codemod.cst_util import unchanged

    class Rename(cst.CSTTransformer):
        def on_leave(self, original, updated):
            result = super().on_leave(original, updated)
            return unchanged(original, result) if result is updated else result

        def leave_Name(self, original, updated):
            return updated.with_changes(value="b") if original.value == "a" else updated

    module = cst.parse_module("import os\n\n\nclass K:\n    def f(self):\n        return os\n\n    def g(self):\n        return a\n\n\nx = 1\n")
    after = module.visit(Rename())
    assert after.code == module.code.replace("return a", "return b")
    assert [s is t for s, t in zip(module.body, after.body)] == [True, False, True]
    [f, g] = module.body[1].body.body
    [f2, g2] = after.body[1].body.body
    assert f is f2 and g is not g2
    assert module.visit(Rename()).code == module.code.replace("return a", "return b")
    untouched = cst.parse_module("x = 1\nif x:\n    y = 2\n")
    assert untouched.visit(Rename()) is untouched
