"""``ast_util.source_segment`` gives what ``ast.get_source_segment`` gives, for every node."""

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
