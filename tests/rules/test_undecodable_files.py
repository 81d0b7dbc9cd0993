"""DC306 on files that do not decode as Python decodes them (UTF-8 unless a PEP 263 coding line
or a BOM says otherwise): refused like a file that does not parse when it names what the patch
would drop, a warning otherwise; a file with a coding line that names its encoding is read."""

from pathlib import Path

from ruletools import dedent, patch, run_both, write

from codemod.discover import Tree
from codemod.index import Index
from codemod.pipeline import analyse_all, unparsable_files
from codemod.verdict import decide

FILES = {
    "base.py": """
        class Source:
            def __init__(self, name):
                self.name = name


        class HttpSource(Source):
            def __init__(self, name, url):
                super().__init__(name)
                self.url = url
                self.session = [bytearray(1024) for _ in range(8)]
        """,
    "child.py": """
        from .base import HttpSource


        class Child(HttpSource):
            def __init__(self, name):
                super().__init__(name, "file://" + name)

            def label(self):
                return self.name
        """,
}

# A Latin-1 comment: without a coding line Python refuses the file (SyntaxError at import).
USER = "# résumé of a source\n\ndef where(src):\n    return src.url\n"
CODING = "# -*- coding: latin-1 -*-\n"


def user(root: Path, text: str, rel: str = "user.py") -> None:
    (root / "pkg").mkdir(parents=True, exist_ok=True)
    (root / "pkg" / rel).write_bytes(text.encode("latin-1"))


def analyse(root: Path, files: dict):
    """The class's analysis once every scan is in (DC306 runs then, as the pipeline runs it), its
    verdict, and the warnings."""
    write(root, {k: dedent(t) for k, t in files.items()})
    index = Index(Tree.open(root))
    [a] = analyse_all(index, ("pkg.child:Child",), None, None)
    warnings = unparsable_files(index, [a])
    return a, decide(a), warnings


def test_an_undecodable_file_reading_a_member_the_patch_would_drop_refuses(tmp_path):
    user(tmp_path, USER)
    a, v, warnings = analyse(tmp_path, FILES)
    assert v.decision == "unsafe" and not warnings, v
    assert ("pkg/user.py cannot be decoded (byte 0xe9 is not valid utf-8 and no PEP 263 coding line names another "
            "encoding) and names url, so a use there cannot be ruled out") in v.reason
    assert [h.rule for h in a.unsafe] == ["DC306"] and a.unsafe[0].line == 1


def test_near_miss_a_coding_line_makes_it_a_file_like_any_other(tmp_path):
    """The same bytes under ``# -*- coding: latin-1 -*-``: Python reads them, so does the tool; the
    read keeps url, and the patched class still answers it."""
    for side in ("before", "after"):
        user(tmp_path / side, CODING + USER)
    before, after, patched = run_both(tmp_path, FILES, """
        from pkg.child import Child
        from pkg.user import where
        print(where(Child("a")), [c.__name__ for c in type(Child("b")).__mro__])
    """)
    assert patched is not None and "self.url = url" in patched and "session" not in patched
    assert before.split()[0] == after.split()[0] == "file://a" and "HttpSource" in before and "HttpSource" not in after


def test_near_miss_an_undecodable_file_naming_only_kept_members_is_one_warning(tmp_path):
    # It sorts before the file whose read keeps url, so it is read while url is still undecided.
    user(tmp_path, USER, "a_user.py")
    files = {**FILES, "b_user.py": "def where(src):\n    return src.url\n"}
    a, v, warnings = analyse(tmp_path, files)
    assert not a.unsafe and "url" in a.kept
    assert warnings == [
        "cannot decode pkg/a_user.py:1: byte 0xe9 is not valid utf-8 and no PEP 263 coding line names another encoding; "
        "it names none of the classes, parents or dropped members, so the run went on without it"]
    after, v = patch(tmp_path, files)
    assert v.decision == "decouple" and "self.url = url" in after


def test_a_wrong_coding_line_is_undecodable_too(tmp_path):
    user(tmp_path, "# -*- coding: ascii -*-\n" + USER)
    a, v, _ = analyse(tmp_path, FILES)
    assert v.decision == "unsafe" and "pkg/user.py cannot be decoded (byte 0xe9 is not valid ascii)" in v.reason, v.reason
    assert a.unsafe[0].line == 2
