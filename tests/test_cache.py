"""The warm-run cache: reused while nothing the run depends on changed, recomputed otherwise."""

import os
import time

from conftest import FIXTURES, copy_tree, run_cli

CASE = FIXTURES / "rewrite" / "inline_init" / "input"
REUSED = "reused the previous run's result"


def check(tree, cache):
    return run_cli(tree, "--class", "Child", "--check", "--diff", env={"DECOUPLE_CACHE_DIR": str(cache)})


def test_reuse_and_invalidation(tmp_path):
    tree = copy_tree(CASE, tmp_path / "tree")
    cache = tmp_path / "cache"
    first = check(tree, cache)
    assert first[0] == 1 and REUSED not in first[2]
    second = check(tree, cache)
    assert second[0] == 1 and REUSED in second[2] and second[1] == first[1]

    # A new file that mentions none of the names the run looked for: still reused.
    (tree / "pkg" / "unrelated.py").write_text("def helper(x):\n    return x + 1\n")
    third = check(tree, cache)
    assert REUSED in third[2] and third[1] == first[1]

    # Touching a file the run read, without changing it: reused.
    child = tree / "pkg" / "child.py"
    os.utime(child, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert REUSED in check(tree, cache)[2]

    # A new reader of a parent member on a Child: the run must see it (recomputed, and it counts).
    (tree / "pkg" / "reader.py").write_text("from .child import Child\n\n\ndef w(c: Child):\n    return c.wrappers\n")
    fourth = check(tree, cache)
    assert REUSED not in fourth[2]
    assert "self.wrappers" in fourth[1]

    # Editing a file the run read: recomputed.
    child.write_text(child.read_text().replace("class Child(Parent):", "class Child(Parent):  # edited"))
    fifth = check(tree, cache)
    assert REUSED not in fifth[2]


def test_no_cache_flag(tmp_path):
    tree = copy_tree(CASE, tmp_path / "tree")
    cache = tmp_path / "cache"
    run_cli(tree, "--class", "Child", "--check", env={"DECOUPLE_CACHE_DIR": str(cache)})
    code, _, err = run_cli(tree, "--class", "Child", "--check", "--no-cache", env={"DECOUPLE_CACHE_DIR": str(cache)})
    assert code == 1 and REUSED not in err
