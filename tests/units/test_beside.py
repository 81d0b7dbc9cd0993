"""``Beside``: a function run in a forked child gives the answer it would give here; a child
with no answer (it raised, it died) leaves the function to run here; ``close`` ends a child
whose answer is not wanted. And the patch's checks, one of them run beside the other, refuse
what they refuse one after the other."""

import os
import time

import pytest

from codemod.beside import Beside

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="a child needs fork")

HERE = os.getpid()


def where():
    return os.getpid()


def test_no_change_without_fork():
    assert Beside(where, fork=False).result() == HERE


def test_the_answer_comes_from_the_child():
    with Beside(where) as b:
        assert b.result() not in (HERE, None)


def _raises():
    raise ValueError("from wherever it ran")


def test_a_child_that_raises_leaves_the_function_to_raise_here():
    with Beside(_raises) as b, pytest.raises(ValueError, match="from wherever it ran"):
        b.result()


def _dies_in_a_child():
    if os.getpid() != HERE:
        os._exit(3)
    return "computed here"


def test_a_child_that_dies_leaves_the_function_to_run_here():
    with Beside(_dies_in_a_child) as b:
        assert b.result() == "computed here"


def _in_a_daemon(send):
    send.send(Beside(where).result() == os.getpid())
    send.close()


def test_a_daemonic_worker_computes_it_itself():
    """The scan's full analyses run in daemonic workers, which may not start children."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_in_a_daemon, args=(send,), daemon=True)
    proc.start()
    send.close()
    assert receive.recv() is True
    proc.join()


def test_close_ends_a_child_whose_answer_is_not_wanted():
    start = time.monotonic()
    with Beside(time.sleep, 30) as b:
        proc = b.proc
    assert not proc.is_alive() and time.monotonic() - start < 10


def _dc705_tree(tmp_path):
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "rules"))
    from test_run_time_names import GUARDED, WIDGETS, base, child

    head = "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .widgets import Widget\n"
    make = "    def make(self, w: Widget = None):\n        return self.n\n"
    return {"widgets.py": WIDGETS, "base.py": base(head, make), "child.py": child(GUARDED)}


def _recorded(monkeypatch, module, name, log):
    fn = getattr(module, name)

    def recorded(*args):
        with open(log, "a") as f:
            f.write(f"{os.getpid()}\n")
        return fn(*args)

    monkeypatch.setattr(module, name, recorded)


@pytest.mark.parametrize("fork_from", [10**9, 1], ids=["one-after-the-other", "side-by-side"])
def test_the_checks_refuse_alike_side_by_side(tmp_path, monkeypatch, fork_from):
    """DC705 refuses the patch in both (from the post-conditions, checked here while pyflakes
    runs beside them)."""
    files = _dc705_tree(tmp_path)
    from ruletools import patch

    from codemod import check, postconditions

    monkeypatch.setattr("codemod.scan_worker.PARALLEL_FROM", fork_from)
    _recorded(monkeypatch, postconditions, "check_module", tmp_path / "post")
    _recorded(monkeypatch, check, "check_file", tmp_path / "flakes")
    after, v = patch(tmp_path / "tree", files)
    assert after is None and v.refused_by == "DC705", v
    assert "reads Widget at run time, which pkg/child.py binds only under `if TYPE_CHECKING:`" in v.reason
    assert (tmp_path / "post").read_text().split() == [str(HERE)]
    assert ((tmp_path / "flakes").read_text().split() == [str(HERE)]) == (fork_from > 1)


@pytest.mark.parametrize("flakes_pass", [True, False], ids=["pyflakes-passes", "pyflakes-refuses"])
def test_a_post_condition_that_raises_is_raised_only_on_a_text_pyflakes_passes(tmp_path, monkeypatch, flakes_pass):
    """The post-conditions run before pyflakes has answered; on a text that pyflakes refuses,
    what they raise is not raised (one after the other, they were never asked of it)."""
    files = _dc705_tree(tmp_path)
    from ruletools import patch

    from codemod import check, postconditions

    monkeypatch.setattr("codemod.scan_worker.PARALLEL_FROM", 1)

    def broken(*args):
        raise RuntimeError("a post-condition's own failure")

    monkeypatch.setattr(postconditions, "check_module", broken)
    if not flakes_pass:
        monkeypatch.setattr(check, "check_file", lambda *args: "child.py: the patch introduces line 1: UndefinedName 'x'")
    if flakes_pass:
        with pytest.raises(RuntimeError, match="a post-condition's own failure"):
            patch(tmp_path / "tree", files)
    else:
        after, v = patch(tmp_path / "tree", files)
        assert after is None and "UndefinedName 'x'" in v.reason, v
