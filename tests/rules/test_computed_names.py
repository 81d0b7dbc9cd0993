"""Computed attribute names (issue 37): ``getattr``/``hasattr``/``setattr``/``delattr`` whose name
can only be one of literals the code spells is a read of each (DC108, ``codemod/literal_names.py``);
a name from data on an object that may be the class refuses it (DC301); on an object of unknown
type the site is listed under Risk with its ``file:line``.

Each case runs on the original package and on the patched one (``run_both``): what is patched
prints the same, what is refused is left as it was.
"""

import json

import pytest
from ruletools import analyse, hazards_of, kept_by, refused_as_it_was, run_both, write

from conftest import run_cli

# A source of settings, shaped like a new user's project: the parent does real work (a buffer),
# the child reads none of the parent's members itself.
SOURCE = """
class Source:
    def __init__(self, url, timeout=10, encoding="utf-8"):
        self.url = url
        self.timeout = timeout
        self.encoding = encoding
        self.buffer = bytearray(1 << 16)
        self.retries = 3

    def fetch(self):
        return self.url, self.retries


class Other:
    url, timeout, encoding, retries = "other", 1, "ascii", 0
"""
CHILD = """
from .base import Source


class Child(Source):
    def __init__(self, path):
        super().__init__("file://" + path)
        self.path = path

    def read(self):
        return self.path
"""


def package(use: str) -> dict[str, str]:
    return {"base.py": SOURCE, "child.py": CHILD, "use.py": use}


SCRIPT = "from pkg.child import Child\nfrom pkg.use import settings\nprint(sorted(settings(Child('x')).items()))"

# The measured case and its siblings: every name a literal the code spells.
SPELT = {
    "comprehension-over-a-tuple": (
        "from .child import Child\n\n\ndef settings(src: Child):\n"
        "    return {a: getattr(src, a) for a in ('url', 'timeout', 'encoding')}\n"),
    "loop-over-a-module-constant": (
        "FIELDS = ['url', 'timeout']\n\n\ndef settings(src):\n    out = {}\n    for name in FIELDS:\n"
        "        out[name] = getattr(src, name)\n    return out\n"),
    "a-dicts-items": (
        "DEFAULTS = {'url': '', 'retries': 1}\n\n\ndef settings(src):\n"
        "    return {k: getattr(src, k, v) for k, v in DEFAULTS.items()}\n"),
    "an-f-string": (
        "def settings(src):\n    return {p: getattr(src, f'{p}out') for p in ('time',)}\n"),
    "a-conditional": (
        "def settings(src, text=True):\n    return {'v': getattr(src, 'encoding' if text else 'timeout')}\n"),
    "hasattr-over-a-list": (
        "def settings(src):\n    return {n: hasattr(src, n) for n in ['retries', 'url']}\n"),
}


@pytest.mark.parametrize("use", SPELT.values(), ids=SPELT.keys())
def test_spelt_names_are_reads_of_each(tmp_path, use):
    before, after, patched = run_both(tmp_path, package(use), SCRIPT)
    assert patched is not None, "a read of spelt names is no reason to refuse"
    assert before == after and "raised" not in before, before


def test_the_measured_case_keeps_every_name_with_its_line(tmp_path):
    a, v = analyse(tmp_path, package(SPELT["comprehension-over-a-tuple"]))
    assert v.decision == "decouple"
    assert {"url", "timeout", "encoding"} <= kept_by(a, "DC108")
    assert {e.file for n in ("url", "timeout", "encoding") for e in a.kept[n]} == {"pkg/use.py"}
    assert "retries" not in a.kept  # a name not spelt is not read


# Near misses: alike, but the name is data, so the set of names is not known.
DATA = {
    "a-parameter": "from .child import Child\n\n\ndef settings(src: Child, fields=('url',)):\n    return {a: getattr(src, a) for a in fields}\n",
    "read-from-a-file": (
        "import json\n\nfrom .base import Source\n\n\ndef settings(src: Source, raw='[\"url\", \"retries\"]'):\n"
        "    return {a: getattr(src, a) for a in json.loads(raw)}\n"),
    "a-loop-name-rebound": (
        "from .child import Child\n\n\ndef settings(src: Child, aliases={'u': 'url'}):\n    out = {}\n"
        "    for a in ('u',):\n        a = aliases[a]\n        out[a] = getattr(src, a)\n    return out\n"),
    "a-module-list-that-grows": (
        "from .child import Child\n\nFIELDS = ['url']\nFIELDS.append('retries')\n\n\n"
        "def settings(src: Child):\n    return {a: getattr(src, a) for a in FIELDS}\n"),
}


@pytest.mark.parametrize("use", DATA.values(), ids=DATA.keys())
def test_a_name_from_data_on_the_class_refuses_it(tmp_path, use):
    assert any("a computed name" in h for h in refused_as_it_was(tmp_path, package(use), SCRIPT, "DC301"))


def test_a_name_from_data_on_another_class_is_no_use(tmp_path):
    use = ("from .base import Other\nfrom .child import Child\n\n\ndef dump(o: Other, fields):\n"
           "    return [getattr(o, f) for f in fields]\n\n\ndef settings(src: Child):\n    return {'path': src.read()}\n")
    a, v = analyse(tmp_path / "a", package(use))
    assert v.decision == "decouple" and hazards_of(a, "DC301") == []
    before, after, patched = run_both(tmp_path / "b", package(use), SCRIPT)
    assert patched is not None and before == after


def test_a_name_from_data_on_an_unknown_object_is_listed_under_risk(tmp_path):
    use = ("from .child import Child\n\n\ndef dump(obj, fields):\n    return [getattr(obj, f) for f in fields]\n\n\n"
           "def settings(src: Child):\n    return {'path': src.read()}\n")
    root = write(tmp_path / "tree", package(use))
    code, _, err = run_cli(root, "--class", "Child", "--output", tmp_path / "out")
    assert code == 0, err
    md = (tmp_path / "out" / "report.md").read_text()
    risk = md.split("## Risk")[1].split("## How tested")[0]
    assert "`pkg/use.py:5` getattr(obj, f) (a computed name)" in risk
    [entry] = json.loads((tmp_path / "out" / "report.json").read_text())["classes"]
    assert [(h["file"], h["line"]) for h in entry["hazards"] if h["rule"] == "DC301"] == [("pkg/use.py", 5)]


# getattr applied along a path by reduce, on an object reached through **kwargs or a dict that
# a call site fills with an instance (a template renderer given its objects).
RENDER = "import functools\n\nfrom .child import Child\n\n\n{render}\n\n\ndef settings(src):\n    return {{'v': render([('s', ['url'])], {call})[0]}}\n"
THROUGH = {
    "kwargs": ("def render(tpl, **objects):\n    return [functools.reduce(getattr, path, objects[root]) for root, path in tpl]", "s=src"),
    "a-dict-argument": ("def render(tpl, objects):\n    return [functools.reduce(getattr, path, objects[root]) for root, path in tpl]", "{'s': src}"),
}


@pytest.mark.parametrize("route", THROUGH.values(), ids=THROUGH.keys())
def test_reduce_through_kwargs_or_a_dict_refuses_the_class(tmp_path, route):
    render, call = route
    use = RENDER.format(render=render, call=call).replace("def settings(src):", "def settings(src: Child):")
    assert any("may be a Child" in h for h in refused_as_it_was(tmp_path, package(use), SCRIPT, "DC301"))


@pytest.mark.parametrize("route", THROUGH.values(), ids=THROUGH.keys())
def test_near_miss_reduce_through_kwargs_given_another_class(tmp_path, route):
    render, call = route
    use = (RENDER.format(render=render, call=call.replace("src", "Other()")).replace("from .child import Child", "from .base import Other")
           .replace("return {'v'", "src.read()\n    return {'v'"))
    a, v = analyse(tmp_path / "a", package(use))
    assert v.decision == "decouple" and hazards_of(a, "DC301") == []
    before, after, patched = run_both(tmp_path / "b", package(use), SCRIPT)
    assert patched is not None and before == after and "other" in before


# The class's own code: spelt names on self are reads of each (DC101); a name from data on self
# refuses the class (DC301), as it always did.
OWN = CHILD + "\n    def summary(self{params}):\n        return {{a: getattr(self, a) for a in {names}}}\n"
OWN_SCRIPT = "from pkg.child import Child\nprint(sorted(Child('x').summary().items()))"


def test_spelt_names_on_self_are_reads_of_each(tmp_path):
    files = {**package(""), "child.py": OWN.format(params="", names="('url', 'timeout')")}
    a, v = analyse(tmp_path / "a", files)
    assert v.decision == "decouple" and {"url", "timeout"} <= kept_by(a, "DC101") and "retries" not in a.kept
    before, after, patched = run_both(tmp_path / "b", files, OWN_SCRIPT)
    assert patched is not None and before == after and "file://x" in before


def test_near_miss_a_name_from_data_on_self_refuses(tmp_path):
    files = {**package(""), "child.py": OWN.format(params=", fields=('url',)", names="fields")}
    assert any("computed name" in h for h in refused_as_it_was(tmp_path, files, OWN_SCRIPT, "DC301"))
