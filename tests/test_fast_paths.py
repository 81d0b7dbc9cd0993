"""The shortcuts that make a run fast must not change what it decides.

Each test compares a fast path with the slow, obvious way on the same input:

* the search for outside uses stops at a member's first use (``--all-uses`` types every one);
* the word index tokenises bytes, in worker processes on big trees (a regex over decoded text);
* rewrite positions come from pairing the libcst and ast trees (libcst's ``PositionProvider``).
"""

import ast
import io
import json
import re
import sys
import tokenize
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from codemod import discover, word_index
from codemod.discover import Tree
from codemod.cst_util import Located
from codemod.index import Index
from codemod.pipeline import analyse_all
from codemod.verdict import decide
from conftest import FIXTURES, write_files

ANALYSIS = sorted(p for p in (FIXTURES / "analysis").iterdir() if (p / "expect.json").exists())
CORPUS = sorted(p for p in (FIXTURES / "corpus").iterdir() if (p / "expect.json").exists())


def _decisions(root: Path, classes: list[str], parent: str | None, all_uses: bool):
    analyses = analyse_all(Index(Tree.open(root)), classes, parent, None, all_uses)
    return {
        a.cls.name: (decide(a).decision, sorted(a.kept), sorted(n for n in a.members if n not in a.kept) if a.parent else [],
                     {n: {(e.file, e.line) for e in evs} for n, evs in a.kept.items()})
        for a in analyses
    }


def _cases():
    for root in ANALYSIS:
        expect = json.loads((root / "expect.json").read_text())
        parent = expect.get("parent") if ":" not in expect.get("parent", ":") else None
        yield pytest.param(root, [expect["class"]], parent, id=f"analysis/{root.name}")
    for root in CORPUS:
        args = json.loads((root / "expect.json").read_text())["args"]
        if args[:1] != ["--class"] or len(args) != 2:
            continue
        yield pytest.param(root / "tree", [args[1]], None, id=f"corpus/{root.name}")


@pytest.mark.parametrize("root, classes, parent", list(_cases()))
def test_first_use_keeps_what_every_use_keeps(root, classes, parent):
    try:
        fast = _decisions(root, classes, parent, all_uses=False)
    except Exception as exc:  # a usage error in both modes is the same outcome
        with pytest.raises(type(exc)):
            _decisions(root, classes, parent, all_uses=True)
        return
    slow = _decisions(root, classes, parent, all_uses=True)
    assert fast.keys() == slow.keys()
    for name in fast:
        f_decision, f_kept, f_dropped, f_evidence = fast[name]
        s_decision, s_kept, s_dropped, s_evidence = slow[name]
        assert (f_decision, f_kept, f_dropped) == (s_decision, s_kept, s_dropped)
        for member, where in f_evidence.items():
            assert where and where <= s_evidence[member], member  # the fast run's evidence is real


# ---- the word index -------------------------------------------------------------------


def _identifiers(root: Path, rel: str) -> set[str]:
    """Every NAME token of the file, as Python's own tokenizer reads it."""
    text = discover.decode_source((root / rel).read_bytes())[0]
    return {t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.NAME}


def _write_tree(root: Path) -> None:
    files = {
        "pkg/__init__.py": "from .a import Alpha\n",
        "pkg/a.py": "class Alpha:\n    def run(self, x_1):\n        return x_1.kv_indptr + 0x1f\n",
        "pkg/b.py": "import pkg.a\n\ndef f(obj):\n    return getattr(obj, 'decode_wrappers')  # see Alpha\n",
        "pkg/uni.py": "café = 1\nπ_value = café\nclass Ünïcode:\n    pass\n",
        "pkg/crlf.py": "x = 1\r\nclass Crlf:\r\n    kv_indptr = None\r\n",
    }
    write_files(root, files)
    (root / "pkg/latin.py").write_bytes("# -*- coding: latin-1 -*-\nnaïve_name = 'é'\n".encode("latin-1"))
    (root / "pkg/bom.py").write_bytes(b"\xef\xbb\xbfbom_name = 1\n")


def _dying_worker(build, send):  # pragma: no cover - the child
    build.claim()  # takes a chunk, and dies before it sends anything back
    word_index.os._exit(1)


@pytest.mark.parametrize("parallel", ["no", "yes", "chunks", "begun", "dies"],
                         ids=["one-process", "worker-processes", "many-chunks", "begun-early", "a-worker-dies"])
def test_word_index_finds_what_a_regex_finds(tmp_path, monkeypatch, parallel):
    _write_tree(tmp_path)
    if parallel != "no":
        if "fork" not in __import__("multiprocessing").get_all_start_methods():
            pytest.skip("worker processes need fork")
        monkeypatch.setattr(word_index, "PARALLEL_FROM", 1)
        monkeypatch.setattr(word_index.os, "cpu_count", lambda: 2)
    if parallel in ("chunks", "dies"):
        monkeypatch.setattr(word_index, "CHUNK", 1)  # both processes claim files, one at a time
    if parallel == "dies":
        monkeypatch.setattr(word_index, "_worker", _dying_worker)
    tree = Tree.open(tmp_path)
    if parallel == "begun":
        tree.begin_word_index()
    names = {rel: _identifiers(tmp_path, rel) for rel in tree.files}
    for w in sorted(set().union(*names.values())):
        expected = {rel for rel, ws in names.items() if w in ws}
        found = tree.files_with_words((w,))
        assert found == sorted(found) and expected <= set(found), w
        for rel in set(found) - expected:  # only where the word stands in a comment or string
            assert re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", (tmp_path / rel).read_text(encoding="utf-8", errors="replace")), (w, rel)
    # Words in strings and comments count too (the index is a prefilter); parts of words do not.
    assert tree.files_with_words(("decode_wrappers",)) == ["pkg/b.py"]
    assert tree.files_with_words(("Alpha",)) == ["pkg/__init__.py", "pkg/a.py", "pkg/b.py"]
    assert tree.files_with_words(("indptr", "no_such_word_anywhere")) == []


# ---- rewrite positions -------------------------------------------------------------------


def _by_position_provider(text: str):
    """Statement positions from libcst's own provider (which Located used before pairing trees)."""
    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    simple, compound = {}, {}
    for node, rng in wrapper.resolve(PositionProvider).items():
        if isinstance(node, cst.BaseSmallStatement):
            simple[(rng.start.line, rng.start.column)] = type(node).__name__
        elif isinstance(node, cst.BaseCompoundStatement):
            compound.setdefault(rng.start.line, type(node).__name__)
    return simple, compound


SHAPES = '''\
import os, sys; x = 1
@decorator
@other(
    arg,
)
class C(Base, metaclass=M):
    """doc"""
    a: int = 1; b = 2
    def f(self):
        if x: return 1
        elif y:
            pass
        else: z = 3
        for i in range(3):
            continue
        else:
            pass
        while False: break
        try:
            pass
        except (ValueError, TypeError) as e:
            raise
        except OSError: pass
        else:
            pass
        finally:
            del x
        with open(p) as f, open(q): pass
        match x:
            case 1: return 1
            case _:
                return 2
    async def g(self):
        async for i in it: pass
        async with ctx: await i
try:
    pass
except* ValueError:
    pass
'''


def _sources():
    yield pytest.param(SHAPES, id="every-statement-shape")
    for p in sorted(FIXTURES.rglob("*.py")):
        yield pytest.param(discover.decode_source(p.read_bytes())[0], id=str(p.relative_to(FIXTURES)))
    for name in ("ast", "dataclasses", "argparse", "typing"):
        p = Path(sys.modules[name].__file__ if name in sys.modules else __import__(name).__file__)
        yield pytest.param(p.read_text(encoding="utf-8"), id=f"stdlib/{name}")


@pytest.mark.parametrize("text", list(_sources()))
def test_paired_positions_match_position_provider(text):
    try:
        tree = ast.parse(text)
    except SyntaxError:
        pytest.skip("not Python")
    if any(ord(ch) > 127 for ch in text):
        # ast counts columns in UTF-8 bytes and libcst in characters: compare ASCII sources only
        text = text.encode("ascii", "replace").decode()
        tree = ast.parse(text)
    located = Located.parse(text, tree)
    simple, compound = _by_position_provider(text)
    assert {p: type(n).__name__ for p, n in located.simple.items()} == simple
    assert {line: type(n).__name__ for line, n in located.compound.items()} == compound
    for small in located.simple.values():
        assert id(small) in located.pos_of


# ---- scans in a worker process --------------------------------------------------------


def _trees():
    for root in ANALYSIS:
        yield pytest.param(root, id=f"analysis/{root.name}")
    for root in CORPUS:
        yield pytest.param(root / "tree", id=f"corpus/{root.name}")


def _every_subclass_report(root: Path):
    """The report over every class of the tree that has a base, in one run."""
    from codemod import report

    tree = Tree.open(root)
    index = Index(tree)
    names = sorted({c.name for rel in tree.files if (m := index.module(rel)) for c in m.classes.values() if c.bases})
    try:
        analyses = analyse_all(Index(Tree.open(root)), names, None, None)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return json.dumps(report.build(root, [(a, decide(a)) for a in analyses], []), sort_keys=True)


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="workers need fork")
@pytest.mark.parametrize("root", list(_trees()))
def test_scans_in_a_worker_give_the_report_of_one_process(root, monkeypatch):
    from codemod import scan_worker

    from codemod.analyse import Analyzer

    alone = _every_subclass_report(root)
    monkeypatch.setattr(scan_worker, "PARALLEL_FROM", 1)
    replayed = []
    real = Analyzer.replay
    monkeypatch.setattr(Analyzer, "replay", lambda self, st, s: (replayed.append(st.a.cls.name), real(self, st, s)))
    assert _every_subclass_report(root) == alone
    _REPLAYED.extend(replayed)


_REPLAYED: list[str] = []


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="workers need fork")
def test_the_worker_scans_when_no_lookup_needed_the_word_index(monkeypatch):
    """Classes named ``module:Name`` need no word index to be found: the scan worker is forked
    while the index's own workers still run, and it cannot join them (they are its parent's).
    It must still scan its half, not leave every class to this process."""
    from codemod import scan_worker
    from codemod.analyse import Analyzer

    root = FIXTURES / "rewrite" / "inline_init" / "input"
    monkeypatch.setattr(scan_worker, "PARALLEL_FROM", 1)
    monkeypatch.setattr(word_index, "PARALLEL_FROM", 1)
    monkeypatch.setattr(word_index, "_jobs", lambda n: 2)
    replayed = []
    real = Analyzer.replay
    monkeypatch.setattr(Analyzer, "replay", lambda self, st, s: (replayed.append(st.a.cls.name), real(self, st, s)))
    tree = Tree.open(root)
    index = Index(tree)
    specs = sorted({c.cli_name for rel in tree.files if (m := index.module(rel)) for c in m.classes.values() if c.bases})
    assert len(specs) >= 2 and all(":" in s for s in specs)
    tree = Tree.open(root)
    tree.begin_word_index()
    analyse_all(Index(tree), specs, None, None)
    assert replayed


def _worker_always_busy(monkeypatch):
    """The worker taken to be still scanning whenever this process asks: it prepares every one
    of the worker's classes before their scans come back (on a small tree the worker is
    often done first, and that path would go untested)."""
    from codemod import scan_worker

    monkeypatch.setattr(scan_worker.WorkerScans, "busy", lambda self: self.proc is not None and self.scans is None)


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="workers need fork")
@pytest.mark.parametrize("root", list(_trees()))
def test_classes_prepared_while_the_worker_scans_give_the_report_of_one_process(root, monkeypatch):
    from codemod import scan_worker
    from codemod.analyse import Analyzer

    alone = _every_subclass_report(root)
    monkeypatch.setattr(scan_worker, "PARALLEL_FROM", 1)
    _worker_always_busy(monkeypatch)
    prepared = []
    real = Analyzer.analyse

    def spy(self, cls, parent=None, base=None, scanned=None, state=None):
        prepared.append(state is not None)
        return real(self, cls, parent, base, scanned, state)

    monkeypatch.setattr(Analyzer, "analyse", spy)
    assert _every_subclass_report(root) == alone
    if len(prepared) >= 2:  # a tree of one class gets no worker
        assert any(prepared)


def test_the_worker_scans_were_used():
    """Not a vacuous comparison above: the worker's scans were replayed for many classes."""
    if not _REPLAYED:
        pytest.skip("run together with the worker comparisons")
    assert len(_REPLAYED) >= 10


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="workers need fork")
@pytest.mark.parametrize("order", [["First", "Second"], ["Second", "First"]], ids=["first-second", "second-first"])
@pytest.mark.parametrize("busy", [False, True], ids=["as-it-comes", "prepared-while-busy"])
def test_an_error_surfaces_in_class_order_with_a_worker(tmp_path, monkeypatch, order, busy):
    from codemod import scan_worker
    from codemod.errors import UsageError

    if busy:
        _worker_always_busy(monkeypatch)

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from elsewhere import OutsideOne\n\n\nclass First(OutsideOne):\n    pass\n")
    (tmp_path / "pkg" / "b.py").write_text("from elsewhere import OutsideTwo\n\n\nclass Second(OutsideTwo):\n    pass\n")
    expected = {"First": "OutsideOne", "Second": "OutsideTwo"}[order[0]]
    for parallel_from in (10**9, 1):
        monkeypatch.setattr(scan_worker, "PARALLEL_FROM", parallel_from)
        with pytest.raises(UsageError, match=expected):
            analyse_all(Index(Tree.open(tmp_path)), order, None, None)
