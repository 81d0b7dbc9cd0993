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

    # New times on every file, as in a fresh checkout with the cache restored: reused.
    for p in tree.rglob("*.py"):
        os.utime(p, ns=(time.time_ns(), time.time_ns() + 2 * 10**9))
    assert REUSED in check(tree, cache)[2]

    # A new reader of a parent member on a Child: the run must see it (recomputed, and it counts).
    # Here it keeps the one costly member, so nothing is left to gain: the verdict changes.
    (tree / "pkg" / "reader.py").write_text("from .child import Child\n\n\ndef w(c: Child):\n    return c.wrappers\n")
    fourth = check(tree, cache)
    assert REUSED not in fourth[2]
    assert fourth[0] == 0 and "nothing to gain" in fourth[2] and fourth[1] == ""

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


# ---- the word index snapshot ----------------------------------------------------------


def _fresh_lookups(root, words):
    from codemod.discover import Tree

    tree = Tree.open(root)
    return {w: tree.files_with_words((w,)) for w in words}


def _snapshot_lookups(root, snapshot, words):
    from codemod.discover import Tree

    tree = Tree.open(root)
    tree.index_snapshot = snapshot
    out = {w: tree.files_with_words((w,)) for w in words}
    tree.word_index.write_snapshot(wait=True)
    return out, tree.word_index.reused


WORDS = ["Child", "Parent", "wrappers", "token_pool", "brand_new_name", "helper", "gone_name"]


def test_index_snapshot_follows_every_kind_of_change(tmp_path):
    tree = copy_tree(CASE, tmp_path / "tree")
    (tree / "pkg" / "doomed.py").write_text("gone_name = 1\n")
    snapshot = tmp_path / "cache" / "index.marshal"
    first, reused = _snapshot_lookups(tree, snapshot, WORDS)
    assert reused == 0 and snapshot.exists()
    assert first == _fresh_lookups(tree, WORDS)
    n_files = len(list(tree.rglob("*.py")))

    again, reused = _snapshot_lookups(tree, snapshot, WORDS)
    assert again == first and reused == n_files  # nothing re-read

    child = tree / "pkg" / "child.py"
    os.utime(child, ns=(time.time_ns(), time.time_ns() + 10**9))  # new time, same content
    (tree / "pkg" / "doomed.py").unlink()
    (tree / "pkg" / "extra.py").write_text("def helper():\n    return brand_new_name\n")
    parent = tree / "pkg" / "parent.py"
    parent.write_text(parent.read_text().replace("wrappers", "wrapperz"))
    later, reused = _snapshot_lookups(tree, snapshot, WORDS)
    assert later == _fresh_lookups(tree, WORDS)
    assert later["gone_name"] == [] and later["brand_new_name"] == ["pkg/extra.py"]
    assert reused == n_files - 2  # all but the deleted and the edited file; the touched one by hash

    # The snapshot written after the changes serves the next run as well.
    last, reused = _snapshot_lookups(tree, snapshot, WORDS)
    assert last == later and reused == n_files


def test_index_snapshot_that_cannot_be_read_is_rebuilt(tmp_path):
    tree = copy_tree(CASE, tmp_path / "tree")
    snapshot = tmp_path / "index.marshal"
    snapshot.write_bytes(b"not a snapshot")
    got, reused = _snapshot_lookups(tree, snapshot, WORDS)
    assert got == _fresh_lookups(tree, WORDS) and reused == 0
    assert _snapshot_lookups(tree, snapshot, WORDS) == (got, len(list(tree.rglob("*.py"))))


def test_no_cache_writes_no_index_snapshot(tmp_path):
    tree = copy_tree(CASE, tmp_path / "tree")
    cache = tmp_path / "cache"
    run_cli(tree, "--class", "Child", "--check", "--no-cache", env={"DECOUPLE_CACHE_DIR": str(cache)})
    assert not (cache / "index").exists()
    run_cli(tree, "--class", "Child", "--check", env={"DECOUPLE_CACHE_DIR": str(cache)})
    # The snapshot is written by a detached child once the run is done: give it a moment.
    deadline = time.monotonic() + 30
    while not list((cache / "index").glob("*.marshal")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(list((cache / "index").glob("*.marshal"))) == 1
