"""``--keep proven`` and ``--assume-unused``: what the user knows, shown as an assumption (issue 26).

By default a member is kept wherever a use could not be ruled out. Under ``--keep proven`` a use
on an object of unknown type keeps nothing: the member is dropped and report.md lists the use
under "Assumptions to review". ``--assume-unused C.member`` does the same for one member, and is
an error on a member with a shown use. The patches are executed, original against patched.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli, write_files

BASE = '''
class Backend:
    def __init__(self, n):
        self.size = n
        self.kv = bytearray(1 << 16)
        self.label = "backend"
        self.scratch = [0] * n

    def describe(self):
        return f"{self.size}"
'''
CHILD = '''
from .base import Backend


class Fast(Backend):
    def __init__(self, n):
        super().__init__(n)

    def run(self):
        return self.size * 2
'''
# Reads on objects of unknown type (no call site passes anything), and one on a typed receiver.
USER = '''from .child import Fast


def peek(obj):
    return len(obj.kv)


def name_of(obj):
    return obj.label


def typed(fast: Fast):
    return len(fast.scratch)
'''
PROBE = "from pkg.child import Fast\nfrom pkg.user import typed\nf = Fast(3)\nprint(f.run(), typed(f))\n"


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    write_files(root, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/child.py": CHILD, "pkg/user.py": USER})
    return root


def _run(root, out, *args):
    code, stdout, err = run_cli(root, "--class", "Fast", "--output", out, "--no-cache", *args)
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else None
    return code, err, report


def _kept(report):
    return {k["member"] for k in report["classes"][0]["kept"]}


def _assumed(report):
    return {a["member"]: a["uses"] for a in report["classes"][0]["assumptions"]}


def test_no_change_by_default(project, tmp_path):
    code, err, report = _run(project, tmp_path / "out")
    assert code == 0, err
    assert {"kv", "label", "scratch"} <= _kept(report) and _assumed(report) == {}
    assert "Assumptions to review" not in (tmp_path / "out" / "report.md").read_text()


def test_proven_drops_what_only_unknown_receivers_read_and_lists_each_use(project, tmp_path):
    code, err, report = _run(project, tmp_path / "out", "--keep", "proven")
    assert code == 0, err
    assumed = _assumed(report)
    assert set(assumed) == {"kv", "label"}
    assert [(u["file"], u["line"], u["strength"]) for u in assumed["kv"]] == [("pkg/user.py", 5, "unknown")]
    # the typed receiver's read is a shown use: kept, and no assumption
    assert "scratch" in _kept(report) and not {"kv", "label"} & _kept(report)
    md = (tmp_path / "out" / "report.md").read_text()
    # Risk says which members were dropped on the user's word; each use behind it is report.json's.
    risk = md[md.index("## Risk"):md.index("## How tested")]
    [item] = [line for line in risk.splitlines() if "Dropped on your word" in line]
    assert "`kv`, `label`" in item and "2 reads" in item and "If one of them can hold a `Fast`" in item
    assert "pkg/user.py:5" not in md and [(u["file"], u["line"]) for u in assumed["label"]] == [("pkg/user.py", 9)]
    patched = (tmp_path / "out" / "files" / "pkg" / "child.py").read_text()
    assert "self.kv" not in patched and "self.label" not in patched and "self.scratch = [0] * n" in patched


def test_assume_unused_drops_one_member_and_keeps_the_rest_as_they_were(project, tmp_path):
    code, err, report = _run(project, tmp_path / "out", "--assume-unused", "Fast.kv")
    assert code == 0, err
    assert set(_assumed(report)) == {"kv"} and "label" in _kept(report)


def test_assume_unused_on_a_member_with_a_shown_use_is_an_error_that_prints_it(project, tmp_path):
    code, err, _ = _run(project, tmp_path / "out", "--assume-unused", "Fast.scratch")
    assert code == 2
    assert err.strip().splitlines()[-1].startswith("decouple: error: --assume-unused Fast.scratch: scratch has a shown use, pkg/user.py:13")


@pytest.mark.parametrize("arg, message", [
    pytest.param("Fast.kvv", "Backend has no member 'kvv'", id="no-such-member"),
    pytest.param("kv", "--assume-unused takes Class.member, got 'kv'", id="no-class"),
    pytest.param("Slow.kv", "Slow is not a class of this run", id="another-class"),
])
def test_assume_unused_that_names_nothing_is_a_one_line_error(project, tmp_path, arg, message):
    code, err, _ = _run(project, tmp_path / "out", "--assume-unused", arg)
    assert code == 2 and message in err and "Traceback" not in err


def test_the_table_states_the_same(project, tmp_path):
    (project / "pyproject.toml").write_text('[tool.decouple]\nclasses = ["Fast"]\nkeep = "proven"\nassume-unused = ["Fast.kv"]\n')
    code, _, err = run_cli(project, "--output", tmp_path / "out", "--no-cache")
    assert code == 0, err
    assert set(_assumed(json.loads((tmp_path / "out" / "report.json").read_text()))) == {"kv", "label"}
    (project / "pyproject.toml").write_text('[tool.decouple]\nclasses = ["Fast"]\nkeep = "all"\n')
    code, _, err = run_cli(project, "--output", tmp_path / "out2", "--no-cache")
    assert code == 2 and 'keep must be "possible" or "proven"' in err


def test_a_cached_default_run_is_not_reused_for_proven(project, tmp_path, monkeypatch):
    monkeypatch.setenv("DECOUPLE_CACHE_DIR", str(tmp_path / "cache"))
    code, out1, _ = run_cli(project, "--class", "Fast", "--check")
    code, out2, err = run_cli(project, "--class", "Fast", "--check", "--keep", "proven")
    assert "reused" not in err and out1 != out2


def test_the_proven_patch_behaves_the_same_where_the_assumption_holds(project, tmp_path):
    code, err, _ = _run(project, tmp_path / "out", "--keep", "proven")
    assert code == 0, err
    patched = tmp_path / "patched"
    write_files(patched, {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/user.py": USER,
                          "pkg/child.py": (tmp_path / "out" / "files" / "pkg" / "child.py").read_text()})

    def probe(where: Path) -> str:
        done = subprocess.run([sys.executable, "-c", PROBE], cwd=where, capture_output=True, text=True, timeout=60)
        return done.stdout + done.stderr

    before, after = probe(project), probe(patched)
    assert before == after == "6 3\n"


# A binder: the instance is put in a list that a method of another class walks, reading an
# attribute of each element (as KVIndexTranslator.bind_and_verify_backends does on SGLang).
BINDER = '''
class Translator:
    def bind(self, backends):
        for backend in backends:
            if backend.kv is None:
                backend.kv = self


def boot(fast):
    backends = [fast]
    Translator().bind(backends)
    return fast
'''


def _binder(tmp_path, user_extra="", tail=""):
    root = tmp_path / "proj"
    write_files(root, {"pkg/__init__.py": "", "pkg/base.py": BASE.replace('bytearray(1 << 16)', 'None'),
                       "pkg/child.py": CHILD, "pkg/user.py": BINDER + user_extra + "\n\nfrom .child import Fast\nBOOTED = boot(Fast(2))\n" + tail})
    code, err, report = _run(root, tmp_path / "out", "--keep", "proven")
    assert code == 0, err
    return report


def test_proven_keeps_a_member_a_binder_reads_on_each_element_of_a_list(tmp_path):
    report = _binder(tmp_path)
    assert "kv" in _kept(report)
    ev = next(k for k in report["classes"][0]["kept"] if k["member"] == "kv")["evidence"][0]
    assert (ev["file"], ev["line"], ev["strength"]) == ("pkg/user.py", 5, "shown")


def test_a_list_also_handed_to_other_code_still_shows_what_it_was_built_with(tmp_path):
    # fill() may add anything to the list, so its elements are unknown to the typing; but the
    # instance it was built with does reach the binder: a witness route shows the use
    report = _binder(tmp_path, "\n\ndef fill(xs):\n    pass\n\n\ndef boot2(fast):\n    backends = [fast]\n    fill(backends)\n"
                               "    Translator().bind(backends)\n", tail="BOOTED2 = boot2(Fast(3))\n")
    assert "kv" in _kept(report)
    ev = next(k for k in report["classes"][0]["kept"] if k["member"] == "kv")["evidence"][0]
    assert (ev["line"], ev["strength"]) == (5, "shown") and "along the routes the typing follows" in ev["use"]


def test_near_miss_a_binder_no_instance_is_shown_to_reach_is_an_assumption(tmp_path):
    # boot() is only handed what an unknown caller passes: no route shows a Fast reaching it
    root = tmp_path / "proj"
    write_files(root, {"pkg/__init__.py": "", "pkg/base.py": BASE.replace('bytearray(1 << 16)', 'None'),
                       "pkg/child.py": CHILD, "pkg/user.py": BINDER + "\n\ndef main(thing):\n    return boot(thing)\n"})
    code, err, report = _run(root, tmp_path / "out", "--keep", "proven")
    assert code == 0, err
    assert "kv" in _assumed(report) and "kv" not in _kept(report)


# The route on SGLang: a factory picked from a table of methods, unpacked from the tuple it
# returns, put in a list beside something the typing cannot follow, and handed to the binder.
FACTORY_BINDER = BINDER.replace("def boot(fast):", "def unused(fast):") + '''

from .child import Fast


class Factory:
    def _make_fast(self):
        return "fast", Fast(2)

    def _make_none(self):
        return "none", None

    def _create(self, kind, table):
        stamp, backend = table[kind]()
        return backend

    def create(self, kind):
        table = {"fast": self._make_fast, "none": self._make_none}
        return self._create(kind, table)


class Worker:
    def __init__(self, other):
        self.backend = Factory().create("fast")
        self.other = other

    def boot(self):
        Translator().bind([self.backend, self.other])


def start(thing):
    w = Worker(thing)
    w.boot()
    return w
'''


def test_proven_keeps_a_member_read_on_a_factory_made_instance_by_a_binder(tmp_path):
    root = tmp_path / "proj"
    write_files(root, {"pkg/__init__.py": "", "pkg/base.py": BASE.replace('bytearray(1 << 16)', 'None'),
                       "pkg/child.py": CHILD, "pkg/user.py": FACTORY_BINDER})
    code, err, report = _run(root, tmp_path / "out", "--keep", "proven")
    assert code == 0, err
    assert "kv" in _kept(report)
    ev = next(k for k in report["classes"][0]["kept"] if k["member"] == "kv")["evidence"][0]
    assert (ev["file"], ev["line"], ev["strength"]) == ("pkg/user.py", 5, "shown")
    patched = tmp_path / "patched"
    write_files(patched, {"pkg/__init__.py": "", "pkg/base.py": BASE.replace('bytearray(1 << 16)', 'None'), "pkg/user.py": FACTORY_BINDER,
                          "pkg/child.py": (tmp_path / "out" / "files" / "pkg" / "child.py").read_text()})
    probe = "from pkg.child import Fast\nfrom pkg.user import start\nw = start(Fast(1))\nprint(type(w.backend.kv).__name__)\n"

    def run(where):
        done = subprocess.run([sys.executable, "-c", probe], cwd=where, capture_output=True, text=True, timeout=60)
        return done.stdout + done.stderr

    assert run(root) == run(patched) == "Translator\n"
