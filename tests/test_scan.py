"""``decouple scan``: the estimate's parts, the ranking, the formats, ``--check`` and its allow list."""

import json

import pytest
from conftest import FIXTURES, copy_tree, on_a_terminal, run_cli, write_files

TREE = FIXTURES / "scan" / "backends"


@pytest.fixture
def env(tmp_path):
    return {"DECOUPLE_CACHE_DIR": str(tmp_path / "cache")}


def scan(*args, env, cwd=None, root=TREE):
    return run_cli("scan", root, *args, env=env, cwd=cwd)


def rows(env, *args):
    code, out, err = scan("--format", "json", *args, env=env)
    assert code == 0, err
    return {r["class"]: r for r in json.loads(out)}


def test_a_heavy_parent_ranks_above_a_light_one(env):
    code, out, err = scan("--format", "json", env=env)
    assert code == 0, err
    got = json.loads(out)
    assert [r["class"] for r in got] == ["FastBackend", "LightChild"]
    assert got[0]["score"] > got[1]["score"]
    # Progress goes to stderr, the table alone to stdout.
    assert "the full analysis runs on 2" in err and "FastBackend: decouple" in err


def test_each_part_of_the_estimate(env):
    fast = rows(env)["FastBackend"]
    assert (fast["file"], fast["line"], fast["parent"]) == ("pkg/backends.py", 24, "pkg.backends:HeavyBackend")
    # HeavyBackend.__init__ has 7 statements; FastBackend reads only page_size.
    assert (fast["skipped"], fast["init_statements"], fast["needs"]) == (6, 7, ["page_size"])
    # The size the source states: 64 * 1024 * 1024 uint8.
    assert fast["allocations"] == [{"at": "pkg/backends.py:13", "bytes": 64 << 20,
                                    "code": "self.workspace = torch.empty((64, 1024, 1024), dtype=torch.uint8)"}]
    # An object of the tree weighs what its own __init__ does, on top of being built; in a loop, twice.
    # Buffer's own: 2 statements, bytearray(size) an allocation (4), a Lock built (4).
    built = {c["class"]: c["weight"] for c in fast["constructions"]}
    assert built == {"pkg.buffers:Buffer": 2 * (4 + 10), "pkg.planning:Planner": 4 + 1}
    assert (fast["loops"], fast["calls"], fast["writes"]) == (1, 1, 0)
    # statements 6 + a call 2 + a loop 3 + the constructions 28 + 5 + an allocation 4 + 64 MiB 64.
    assert fast["saving"] == 6 + 2 + 3 + 28 + 5 + 4 + 64
    assert fast["copied_share"] == 0 and fast["score"] == fast["saving"]
    assert (fast["verdict"], fast["rule"]) == ("decouple", "DC501")
    light = rows(env)["LightChild"]
    assert (light["skipped"], light["calls"], light["constructions"], light["allocations"]) == (2, 1, [], [])
    assert light["saving"] == 2 + 2


def test_a_class_that_never_runs_the_parents_init_is_not_listed(env):
    assert "OwnInitBackend" not in rows(env)


def test_the_inherited_interface_counts_half_as_copied(tmp_path, env):
    tree = copy_tree(TREE, tmp_path / "tree")
    light = tree / "pkg" / "light.py"
    # LightChild no longer defines describe: it inherits LightBase's, 2 of its 2 method lines.
    light.write_text(light.read_text().replace("    def describe(self):\n        return self.name\n", "    pass\n"))
    got = rows(env, "--top", "0", "--min-saving", "0")
    assert got["LightChild"]["copied_share"] == 0  # the original tree
    code, out, err = run_cli("scan", tree, "--format", "json", env=env)
    assert code == 0, err
    light_row = {r["class"]: r for r in json.loads(out)}["LightChild"]
    assert light_row["copied_share"] == 0.5 and light_row["score"] == round(light_row["saving"] * 0.5)


def test_top_and_min_saving_choose_what_the_full_analysis_runs_on(env):
    code, out, err = scan("--format", "json", "--top", "1", env=env)
    assert code == 0, err
    assert [r["class"] for r in json.loads(out)] == ["FastBackend"]
    assert "1 more class below the cut" in scan("--top", "1", env=env)[1]
    got = rows(env, "--top", "0", "--min-saving", "5")
    assert list(got) == ["FastBackend"]


def test_text_and_markdown(env):
    code, out, _ = scan(env=env)
    assert code == 0
    head, first = out.splitlines()[:2]
    assert head.split()[:4] == ["#", "score", "saving", "class"]
    assert "FastBackend" in first and "64 MiB" in first and first.rstrip().endswith("decouple")
    code, out, _ = scan("--format", "markdown", env=env)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("| # | score | saving | class |") and lines[1].startswith("|---|")
    assert "`pkg/backends.py:24`" in lines[2] and "**decouple**" in lines[2]


def test_check_without_and_with_the_allow_list(tmp_path, env):
    tree = copy_tree(TREE, tmp_path / "tree")
    code, out, err = run_cli("scan", tree, "--check", env=env)
    assert code == 1, err
    assert [line.split(": ")[0].rsplit("/", 2)[-2:] for line in out.splitlines()] == [
        ["pkg", "backends.py:24"], ["pkg", "light.py:13"]]
    assert "FastBackend pays for HeavyBackend.__init__ work it does not use" in out
    assert "`decouple --class pkg.backends:FastBackend` would decouple it" in out
    (tree / "pyproject.toml").write_text('[tool.decouple]\nscan-ignore = ["FastBackend"]\n')
    code, out, err = run_cli("scan", tree, "--check", env=env)
    assert code == 1 and "LightChild" in out and "FastBackend" not in out
    assert "1 in scan-ignore" in err
    (tree / "pyproject.toml").write_text('[tool.decouple]\nscan-ignore = ["FastBackend", "pkg.light:LightChild"]\n')
    code, out, err = run_cli("scan", tree, "--check", env=env)
    assert (code, out) == (0, ""), err
    # With no ROOT, the folder with the table is ROOT, as for decouple.
    code, out, err = run_cli("scan", "--check", env=env, cwd=tree / "pkg")
    assert (code, out) == (0, ""), err


def test_a_second_scan_reuses_the_first_ones_analyses(env):
    first = rows(env)
    code, out, err = scan("--format", "json", env=env)
    assert code == 0 and {r["class"]: r for r in json.loads(out)} == first


def test_a_root_named_scan(tmp_path, env):
    copy_tree(TREE, tmp_path / "scan")
    code, out, err = run_cli("scan", "scan", "--format", "json", env=env, cwd=tmp_path)
    assert code == 0, err
    assert [r["class"] for r in json.loads(out)] == ["FastBackend", "LightChild"]
    # A path to it runs the normal command on that folder.
    code, out, err = run_cli("./scan", "--class", "FastBackend", "--check", env=env, cwd=tmp_path)
    assert code == 1 and "FastBackend would be decoupled from HeavyBackend" in out, err
    code, out, _ = run_cli("scan", "--help")
    assert code == 0 and "decouple ./scan" in out


@pytest.mark.parametrize("args, pyproject, message", [
    (["--top", "-1"], None, "--top takes a number of classes, 0 or more, got -1"),
    (["--min-saving", "-3"], None, "--min-saving takes a number of points, 0 or more, got -3"),
    ([], '[tool.decouple]\nscan-ignore = "FastBackend"\n', "scan-ignore must be a list of class names"),
    ([], '[tool.decouple]\nscan-ignore = ["not a name"]\n', "scan-ignore must be a list of class names"),
], ids=["top", "min-saving", "ignore-not-a-list", "ignore-not-a-name"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, env, args, pyproject, message):
    tree = copy_tree(TREE, tmp_path / "tree")
    if pyproject:
        (tree / "pyproject.toml").write_text(pyproject)
    code, out, err = run_cli("scan", tree, *args, env=env)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_a_missing_root_is_one_line_and_exit_2(tmp_path, env):
    code, out, err = run_cli("scan", tmp_path / "nowhere", env=env)
    assert code == 2 and out == "" and err.startswith("decouple: error: ROOT") and err.count("\n") == 1


def test_a_tree_where_no_class_pays_says_so(tmp_path, env):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("class A:\n    def __init__(self):\n        self.x = open('f')\n")
    code, out, err = run_cli("scan", tmp_path, env=env)
    assert (code, out) == (0, "no class pays for parent __init__ work it does not use\n"), err
    code, out, _ = run_cli("scan", tmp_path, "--format", "json", env=env)
    assert (code, out) == (0, "[]\n")
    code, out, _ = run_cli("scan", tmp_path, "--check", env=env)
    assert (code, out) == (0, "")


def _validating_tree(tmp_path):
    pkg = tmp_path / "tree" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "store.py").write_text(
        "class Store:\n"
        "    def __init__(self, name, size=4):\n"
        "        if size < 0:\n"
        "            raise ValueError(size)\n"
        "        self.name = name\n"
        "        self.buf = bytearray(1 << 20)\n"
        "        self.pool = [bytearray(1024) for _ in range(size)]\n"
        "        self.log = []\n"
        "\n"
        "\n"
        "class MemStore(Store):\n"
        "    def __init__(self, name, size):\n"
        "        super().__init__(name, size)\n"
        "        self.data = {}\n"
        "\n"
        "    def label(self):\n"
        "        return self.name\n")
    return tmp_path / "tree"


def test_an_analysed_rows_counts_are_the_full_runs(tmp_path, env):
    """The sketch cannot see that a run keeps the parent's validation (DC110); the row of a class
    the full analysis ran on says what that run skips, as its own report does."""
    root = _validating_tree(tmp_path)
    code, out, err = scan("--format", "json", env=env, root=root)
    assert code == 0, err
    row = json.loads(out)[0]
    assert row["verdict"] == "decouple", row
    assert row["reason"].endswith("and 2 of 5 statements of its __init__"), row["reason"]  # the raise and self.name
    assert (row["skipped"], row["init_statements"], row["estimated_skipped"]) == (3, 5, 4)
    text = scan(env=env, root=root)[1]
    assert " 3/5 " in text and "2 of 5 statements" in text


def test_a_buffers_stated_size_is_an_allocation_not_a_call(tmp_path, env):
    root = _validating_tree(tmp_path)
    row = json.loads(scan("--format", "json", env=env, root=root)[1])[0]
    # bytearray(1 << 20) states its size; the one in a comprehension runs `size` times: no size.
    assert sorted((a["at"], a.get("bytes")) for a in row["allocations"]) == [("pkg/store.py:6", 1 << 20), ("pkg/store.py:7", None)]
    assert row["calls"] == 0
    code, _, err = run_cli(root, "--class", "MemStore", "--output", tmp_path / "out", env=env)
    assert code == 0, err
    why = (tmp_path / "out" / "report.md").read_text().split("## Why")[1].split("##")[0]
    assert "2 allocations no longer made, at least 1 MiB" in why and "other call" not in why


def test_subclasses_of_one_parent_each_get_what_they_need(tmp_path, env):
    """The parent's side of an estimate is worked out once per chain and per what a subclass
    needs and binds: subclasses alike share it, and one that needs more, or binds another
    literal, gets its own."""
    write_files(tmp_path / "tree", {"pkg/__init__.py": "", "pkg/base.py": (
        "class Base:\n"
        "    def __init__(self, fast=False):\n"
        "        self.cache = bytearray(1 << 20)\n"
        "        if not fast:\n"
        "            self.table = []\n"
        "            for _ in range(8):\n"
        "                self.table.append(bytearray(64))\n"
        "        self.log = []\n"
        "\n"
        "    def note(self, x):\n"
        "        self.log.append(x)\n"), "pkg/subs.py": (
        "from .base import Base\n"
        "\n"
        "\n"
        "class A(Base):\n"
        "    def run(self):\n"
        "        return 1\n"
        "\n"
        "\n"
        "class B(Base):\n"
        "    def run(self):\n"
        "        return 2\n"
        "\n"
        "\n"
        "class Noting(Base):\n"
        "    def run(self, x):\n"
        "        self.note(x)\n"
        "\n"
        "\n"
        "class Fast(Base):\n"
        "    def __init__(self):\n"
        "        super().__init__(fast=True)\n"
        "\n"
        "    def run(self):\n"
        "        return 3\n")})
    code, out, err = scan("--format", "json", "--top", "4", env=env, root=tmp_path / "tree")
    assert code == 0, err
    got = {r["class"]: r for r in json.loads(out)}
    estimate = ("estimated_skipped", "init_statements", "needs", "allocations", "constructions", "loops", "calls", "score")
    assert (got["A"]["estimated_skipped"], got["A"]["init_statements"], got["A"]["needs"]) == (4, 4, [])
    assert [got["A"][k] for k in estimate] == [got["B"][k] for k in estimate]
    # Noting needs note(), and note() needs log: the statement that binds log stays.
    assert (got["Noting"]["estimated_skipped"], got["Noting"]["needs"]) == (3, ["log", "note"])
    # Fast binds fast=True: the loop under `if not fast` is dead, not work it skips.
    assert (got["Fast"]["loops"], got["Fast"]["estimated_skipped"]) == (0, 2) and got["A"]["loops"] == 1


def test_the_progress_line_on_a_terminal(env):
    import os
    import sys

    from conftest import REPO

    code, text = on_a_terminal([sys.executable, "-m", "codemod", "scan", str(TREE)],
                               env={**os.environ, "PYTHONPATH": str(REPO), **env})
    assert code == 0
    assert "] 0/2 candidates: analysing FastBackend\x1b[K" in text
    assert "] 1/2 candidates: analysed; analysing LightChild\x1b[K" in text
    # The line is cleared before each verdict is said; the workers' own lines stay off.
    assert "\r\x1b[Kdecouple scan: [1/2] FastBackend: decouple" in text
    assert " files: " not in text


def test_an_ancestor_is_read_light_to_weigh_its_subclasses_init(tmp_path, monkeypatch):
    """Whether the ``__init__`` a parent runs does work is read off light sketches, its
    ancestors' too: an ancestor that only binds names, with no parent in its file that does
    work, is never parsed whole; one that works is, for the estimate of its subclass's subclass."""
    from codemod.discover import open_tree
    from codemod.scan.estimate import estimate_files, plan
    from codemod.scan.sketch import SketchIndex

    write_files(tmp_path, {
        "base.py": "class Base:\n    def __init__(self):\n        self.x = 1\n\n    def m(self):\n        return self.x\n",
        "mid.py": "from base import Base\n\n\nclass Mid(Base):\n    pass\n",
        "leaf.py": "from mid import Mid\n\n\nclass Leaf(Mid):\n    def __init__(self):\n        super().__init__()\n",
        "heavy.py": "class Heavy:\n    def __init__(self):\n        self.buf = bytearray(1024)\n        self.f = open('x')\n",
        "hmid.py": "from heavy import Heavy\n\n\nclass HMid(Heavy):\n    pass\n",
        "hleaf.py": "from hmid import HMid\n\n\nclass HLeaf(HMid):\n    def __init__(self):\n        super().__init__()\n",
    })
    parsed = []
    sketched = SketchIndex._sketched
    monkeypatch.setattr(SketchIndex, "_sketched", lambda self, rel, light: parsed.append((rel, light)) or sketched(self, rel, light))
    tree = open_tree(tmp_path, None)
    the_plan = plan(tree)
    got = estimate_files(tree, the_plan, the_plan.parent_files)
    assert sorted((e.cls, e.parent) for e in got) == [("hleaf:HLeaf", "hmid:HMid"), ("hmid:HMid", "heavy:Heavy")]
    whole = {rel for rel, light in parsed if not light}
    assert "base.py" not in whole and {"heavy.py", "hmid.py"} <= whole
    assert ("base.py", True) in parsed


def _plan(parents: dict[str, list[str]], sizes: dict[str, int]):
    """A Plan whose parent file ``p`` defines class ``P_p``, named as a base in each of its files."""
    from codemod.scan.estimate import Plan

    bases_in: dict = {p: {f"P_{p}": set()} for p in parents}
    subclass_files: dict = {}
    for p, subs in parents.items():
        for rel in subs:
            bases_in.setdefault(rel, {}).setdefault(f"C_{rel}", set()).add(f"P_{p}")
            subclass_files.setdefault(f"P_{p}", set()).add(rel)
    named = {f"P_{p}" for p in parents}
    return Plan({f"P_{p}": {p} for p in parents}, bases_in, named, subclass_files, sorted(parents), sizes)


def test_a_parent_file_goes_to_the_worker_that_has_its_subclasses_files():
    from codemod.scan.report import shares

    # a and c share a large subclass file, as b and d do: each pair in one worker, read once.
    plan = _plan({"a": ["big1"], "b": ["big2"], "c": ["big1"], "d": ["big2"]},
                 {"a": 10, "b": 10, "c": 10, "d": 10, "big1": 1000, "big2": 1000})
    assert shares(plan, 2) == [["a", "c"], ["b", "d"]]
    assert shares(plan, 1) == [["a", "b", "c", "d"]]


def test_the_shares_stay_about_even():
    from codemod.scan.report import shares

    # Nothing shared: the files alternate, whatever their order in the tree.
    plan = _plan({f"p{k}": [f"s{k}"] for k in range(8)}, {**{f"p{k}": 10 for k in range(8)}, **{f"s{k}": 100 for k in range(8)}})
    got = shares(plan, 2)
    assert sorted(got[0] + got[1]) == plan.parent_files and [len(s) for s in got] == [4, 4]
    # Everything shared by one file: the one whose files overlap most takes it while it stays
    # within SLACK of the other; the other takes the rest.
    hub = _plan({f"p{k}": ["hub"] for k in range(40)}, {**{f"p{k}": 100 for k in range(40)}, "hub": 100})
    got = shares(hub, 2)
    assert sorted(got[0] + got[1]) == hub.parent_files and 10 <= len(got[1]) <= 30


def test_a_worker_takes_its_own_files_first_then_the_others_from_their_ends():
    from codemod.scan.report import in_turn

    parts = [["a", "b"], ["c", "d", "e"], ["f"]]
    assert in_turn(parts, 0) == ["a", "b", "e", "d", "c", "f"]
    assert in_turn(parts, 1) == ["c", "d", "e", "b", "a", "f"]


_CLAIMS = None


def _taken(order: list[str]) -> list[str]:
    import time

    out = []
    for rel in order:
        if _CLAIMS.take(rel):
            out.append(rel)
            time.sleep(0.001)  # the workers' walks overlap
    return out


def test_each_parent_file_is_taken_by_one_worker():
    import multiprocessing

    from codemod.scan import report

    global _CLAIMS
    files = [f"f{k:03}" for k in range(200)]
    _CLAIMS = report._Claims(files)
    parts = [files[0::2], files[1::2][:30]]  # the second ends early and takes from the first's end
    with multiprocessing.get_context("fork").Pool(2) as pool:
        got = pool.map(_taken, [report.in_turn(parts, i) for i in range(2)], chunksize=1)
    assert sorted(got[0] + got[1]) == sorted(parts[0] + parts[1]) and not set(got[0]) & set(got[1])


@pytest.mark.parametrize("jobs, size", [(5, "cores+1"), (1, 1), (0, 1)])
def test_the_full_analyses_run_one_process_more_than_there_are_cores(tmp_path, jobs, size):
    """Few unequal analyses: one process per core would leave the last one alone on a core."""
    from codemod.discover import Tree
    from codemod.scan import report

    judges = report.Judges(Tree(tmp_path), None, {}, False)
    try:
        judges._fork(one_job_each=True, jobs=jobs)
        want = min(report.WORKERS + 1, jobs) if size == "cores+1" else size
        assert judges.pool._processes == want
        judges.close()
        judges._fork()
        assert judges.pool._processes == report.WORKERS
    finally:
        judges.close()
