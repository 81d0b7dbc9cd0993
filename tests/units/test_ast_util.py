"""``ast_util.source_segment`` gives what ``ast.get_source_segment`` gives, for every node; ``statements``
gives the statements of ``walk``, in its order."""

import ast
from pathlib import Path

import pytest

from codemod.ast_util import source_segment

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("y = 1", id="one-line-no-end"),
        pytest.param("a = 1\r\nb = (2,\r 3)\n\x0cc = 4\n", id="crlf-cr-formfeed"),
        pytest.param("x = 'é' + f(1,\n  'ü')\n", id="non-ascii-columns"),
        pytest.param("z = [\n1,\n\n2]\r\n", id="blank-line-inside"),
        pytest.param('s = """a\nb\r\nc"""  # end\n', id="multi-line-string"),
    ],
)
def test_same_as_get_source_segment(text):
    for node in ast.walk(ast.parse(text)):
        if getattr(node, "end_lineno", None) is not None:
            assert source_segment(text, node) == ast.get_source_segment(text, node)


def test_same_on_a_module_of_ours():
    text = (ROOT / "codemod" / "rules" / "rewrite_inline_init.py").read_text()
    nodes = [n for n in ast.walk(ast.parse(text)) if getattr(n, "end_lineno", None) is not None]
    assert len(nodes) > 1000
    for node in nodes[::7]:
        assert source_segment(text, node) == ast.get_source_segment(text, node)


_SINGLETONS = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop)
_EVERY_KIND = '''
import a.b as c
from . import d
from .e import (f as g, h)
global_ = [x async for x in y if x] if z else {k: v for k, v in w}
def fn(p: int = 1, /, q=2, *r: str, s, t=3, **u) -> "T":
    global global_
    nonlocal_ = lambda *a, **k: (yield from a)
    try:
        del p[0], q.attr
    except* (E, F) as e:
        raise X from e
    else:
        pass
    finally:
        assert s, f"{s!r:>{t}} {u=}"
    with open(p) as (a, b), open(q):
        a @= b ** -c << d if not e else ~f
    match p:
        case [1, *rest] | {"k": 2, **others} | C(1, kw=[None, True]) | (str() as named) | -1j:
            pass
async def afn():
    async with a as b:
        async for c in d:
            await c
class K(Base, metaclass=M):
    x: int = 1
    y = z = 2
    def f(self): return self.x < self.y <= 3 is not None
'''


@pytest.mark.parametrize("text", [
    pytest.param(_EVERY_KIND, id="every-kind-of-node"),
    *[pytest.param(p.read_bytes(), id=p.relative_to(ROOT).as_posix())
      for p in sorted((ROOT / "fixtures" / "rewrite").rglob("*.py"))[:60]],
])
def test_walk_is_ast_walk_less_the_singletons(text):
    """``walk`` gives ``ast.walk``'s nodes in its order, less ``Load``, ``Add``, ... (the fields it
    skips as names, strings and numbers hold no node), and each node's parent."""
    from codemod.ast_util import walk

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        pytest.skip("not Python this interpreter parses")
    parents: dict = {}
    got = walk(tree, parents)
    assert got == [n for n in ast.walk(tree) if not isinstance(n, _SINGLETONS)]
    assert got == walk(tree)
    expected_parents = {id(c): n for n in got for c in ast.iter_child_nodes(n) if not isinstance(c, _SINGLETONS)}
    assert parents == expected_parents


BLOCKS = '''
import a
try:
    import b
    def f():
        import c
        class K:
            import d
        return lambda: 1
except ImportError as e:
    import e1
    try:
        pass
    finally:
        import e2
else:
    import g
finally:
    from . import h
for x in y:
    import i
else:
    import j
while z:
    async def af():
        async with m as n:
            import k
        async for q in r:
            import l
match v:
    case [1, *rest] if rest:
        import mm
    case _:
        from .o import p as pp
with w:
    import s
'''


def test_statements_are_walks_statements_in_its_order():
    from codemod.ast_util import statements, walk

    tree = ast.parse(BLOCKS)
    kinds = (ast.stmt, ast.ExceptHandler, ast.match_case, ast.Module)
    assert statements(tree) == [n for n in walk(tree) if isinstance(n, kinds)]
    imports = [n for n in statements(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert len(imports) == 15
