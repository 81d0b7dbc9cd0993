"""``tree_wide``: an answer one index of a run makes is taken by another (the scan's full
analyses, forked after its main process made it) with what making it read and could not parse,
so that the other index's warm-cache dependencies and DC306's unparsable files are those it would
have had computing the answer itself."""

from conftest import write_files

from codemod.discover import Tree
from codemod.index import Index
from codemod.model import ReadLog
from codemod.rules.keep_structural_tests import registrations

FILES = {
    # Binds Sink without spelling it: only the resolution of the registration reads it.
    "pkg/__init__.py": "from .sinks import *\n",
    "pkg/sinks.py": "import abc\n\n\nclass Sink(abc.ABC):\n    pass\n",
    "pkg/impl.py": "from pkg import Sink\n\n\nclass Impl:\n    pass\n\n\nSink.register(Impl)\n",
    # Spells a registration on the abstract class, and does not parse.
    "pkg/broken.py": "from .sinks import Sink\n\nSink.register(int\n",
    "pkg/other.py": "import atexit\n\natexit.register(print)\n",
}


def asked(tree: Tree):
    """The answer of a fresh index of ``tree``, under a fresh read log: (answer, log, errors)."""
    tree.reads = ReadLog()
    index = Index(tree)
    return registrations(index), tree.reads, dict(index.syntax_errors)


def test_no_change_an_index_alone_finds_the_registration_and_the_broken_file(tmp_path):
    answer, log, errors = asked(Tree(write_files(tmp_path, FILES)))
    assert answer == {"pkg.sinks.Sink"}
    assert set(errors) == {"pkg/broken.py"}
    assert {"pkg/impl.py", "pkg/broken.py", "pkg/sinks.py", "pkg/__init__.py"} <= log.consulted and "register" in log.queried


def test_an_answer_made_ahead_is_taken_with_its_reads_and_errors(tmp_path):
    alone = asked(Tree(write_files(tmp_path, FILES)))
    tree = Tree(tmp_path)
    registrations(Index(tree))  # made ahead, as the scan's main process does
    taken = asked(tree)
    assert taken[0] == alone[0]
    assert (taken[1].consulted, taken[1].queried) == (alone[1].consulted, alone[1].queried)
    assert taken[2] == alone[2]


def test_an_index_that_parsed_a_module_before_still_logs_it(tmp_path):
    """The answer is made on an index of its own, which reads every file it needs: a module the
    asking index held already is in the log that later indexes take, whole."""
    alone = asked(Tree(write_files(tmp_path, FILES)))
    tree = Tree(tmp_path)
    busy = Index(tree)
    assert busy.module("pkg/__init__.py") is not None and busy.module("pkg/broken.py") is None
    tree.reads = ReadLog()
    registrations(busy)
    assert tree.reads.consulted >= {"pkg/__init__.py", "pkg/broken.py"}
    later = asked(tree)
    assert (later[1].consulted, later[1].queried, later[2]) == (alone[1].consulted, alone[1].queried, alone[2])


def test_the_asking_index_keeps_what_was_parsed_for_the_answer(tmp_path):
    tree = Tree(write_files(tmp_path, FILES))
    index = Index(tree)
    registrations(index)
    assert "pkg/sinks.py" in index._modules and index._modules["pkg/sinks.py"] is not None


def test_the_scan_makes_the_searches_ahead_only_on_a_tree_no_run_has_read(tmp_path):
    """On a tree seen before (a word index kept), the full analyses mostly come from the run
    cache: a search made ahead would be lost work. Either way the answers are the same."""
    from codemod.scan.report import _unseen

    root = write_files(tmp_path / "tree", FILES)
    first = Tree(root, index_snapshot=tmp_path / "index.marshal")
    first.begin_word_index()
    assert _unseen(first)
    first.write_index_snapshot(wait=True)
    again = Tree(root, index_snapshot=tmp_path / "index.marshal")
    again.begin_word_index()
    assert not _unseen(again)
    assert registrations(Index(again)) == registrations(Index(first))
