"""Calls through a table of factories, and names unpacked from a call (codemod/receiver_typing/type_dispatch.py)."""

import pytest

from codemod.model import Receiver

from typetools import verdict

NO, MAYBE, YES = Receiver.NO, Receiver.MAYBE, Receiver.YES

FACTORY = '''from .base import Child, Other


class Factory:
    def _make_child(self):
        return "child", Child()

    def _make_other(self):
        return "other", Other()

    def _pick(self, kind, table):
        stamp, made = table[kind]()
        return made

    def create(self, kind):
        table = {"child": self._make_child, "other": self._make_other}
        return self._pick(kind, table)
'''


@pytest.mark.parametrize("user, expected", [
    pytest.param(FACTORY + "\n\ndef f():\n    x = Factory().create('child')\n    return x.cache\n", YES,
                 id="table-of-methods-handed-to-a-helper-that-unpacks"),
    pytest.param(FACTORY.replace('"child": self._make_child, ', "") + "\n\ndef f():\n    x = Factory().create('o')\n    return x.cache\n", NO,
                 id="near-miss-no-value-makes-the-class"),
    pytest.param(FACTORY.replace("        return self._pick(kind, table)", "        keep(table)\n        return self._pick(kind, table)")
                 + "\n\ndef keep(t):\n    pass\n\n\ndef f():\n    x = Factory().create('o')\n    return x.cache\n", MAYBE,
                 id="near-miss-the-table-handed-elsewhere-may-hold-anything"),
    pytest.param(FACTORY.replace('"other": self._make_other', '"other": lambda: ("o", None)')
                 + "\n\ndef f():\n    x = Factory().create('o')\n    return x.cache\n", MAYBE,
                 id="near-miss-a-lambda-in-the-table-is-not-followed"),
    pytest.param(FACTORY.replace(
        '        table = {"child": self._make_child, "other": self._make_other}\n',
        '        table = {"other": self._make_other}\n        table["child"] = self._make_child\n')
                 + "\n\ndef f():\n    x = Factory().create('o')\n    return x.cache\n", YES,
                 id="a-value-stored-into-the-table"),
])
def test_tables(tmp_path, user, expected):
    assert verdict(tmp_path, user) == expected


@pytest.mark.parametrize("user, expected", [
    pytest.param("from .base import Child\n\n\ndef make():\n    return 1, Child()\n\n\ndef f():\n    n, x = make()\n    return x.cache\n", YES,
                 id="unpacked-from-a-returned-tuple"),
    pytest.param("from .base import Child, Other\n\n\ndef make():\n    return Child(), Other()\n\n\ndef f():\n    x, n = make()\n    return n.cache\n", NO,
                 id="near-miss-the-other-position"),
    pytest.param("from .base import Child\n\n\ndef pair():\n    return 1, Child()\n\n\ndef make():\n    return pair()\n\n\ndef f():\n    n, x = make()\n    return x.cache\n", YES,
                 id="through-a-returned-call"),
    pytest.param("from .base import Other\n\n\ndef make(v):\n    return v\n\n\ndef f(v):\n    n, x = make(v)\n    return x.cache\n", MAYBE,
                 id="near-miss-a-returned-name-is-not-followed"),
    pytest.param("from .base import Other\n\n\ndef make():\n    return 1, 2, Other()\n\n\ndef f():\n    n, x = make()\n    return x.cache\n", MAYBE,
                 id="near-miss-a-tuple-of-another-size"),
])
def test_unpacking(tmp_path, user, expected):
    assert verdict(tmp_path, user) == expected
