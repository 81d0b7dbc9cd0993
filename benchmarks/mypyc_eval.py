#!/usr/bin/env python3
"""Issue 31: the hot pure-Python modules compiled with mypyc, against the same code pure.

    python benchmarks/mypyc_eval.py [ROOT] [--rounds 5] [--modules codemod/ast_util.py ...]
                                    [--skip-cold] [--keep DIR]

Needs ``pip install mypy`` (which brings mypyc) and a C compiler. ROOT defaults to the pinned
SGLang release. Two copies of this checkout's tracked files (as they are in the working tree)
are made in a temporary folder: ``pure``, and ``compiled``, where ``mypyc MODULES`` builds the
extension modules in place (an extension module shadows the ``.py`` beside it). Then, with the
order of the two alternating between rounds so that drift on a noisy machine hits both alike,
each round runs in a new process per copy:

* ``funcs``: the functions alone, CPU time (``time.process_time``), the least of 3 runs in the
  process: ``ast_util.walk`` over the ``ast`` of the 100 biggest files (with and without a
  parents dict), ``word_index._index_part`` over every file (stat, read, sha1, tokenise, index),
  ``words_in`` alone over every file's bytes (already read), and the stat, read, sha1 and
  ``words_in`` of every file done here, uncompiled: what ``_index_part`` spends beyond that is
  its dict-building loop (``typing_flow`` is measured by the stages);
* ``stages``: a cold run's stages in one process, as ``benchmarks/phases.py`` runs them (word
  index; analysis; rewrite and check), wall and CPU time of this process and of the worker
  processes it waited for (``RUSAGE_CHILDREN``); the two copies must patch the same bytes;
* ``cold``: the whole cold ``decouple ROOT --class ... --check`` (a fresh cache folder) as a
  child process, wall and CPU time (``os.wait4``), beside ``ruff check --select F --no-cache``;
  the two copies must print the same.

Prints medians as Markdown, with the build time and the size of the extension modules.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODULES = ["codemod/ast_util.py", "codemod/word_index.py", "codemod/receiver_typing/typing_flow.py"]
CLASSES = ["TRTLLMHAAttnBackend", "TRTLLMHAAttnMultiStepDraftBackend"]


# ---------------------------------------------------------------- workers (run inside a copy)

def _cpu() -> float:
    return time.process_time()


def worker_funcs(root: Path) -> dict:
    sys.path.insert(0, str(REPO))
    import ast
    import hashlib

    from codemod import ast_util, word_index

    files = sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
    biggest = sorted(files, key=lambda r: (root / r).stat().st_size, reverse=True)[:100]
    trees = [ast.parse((root / r).read_bytes()) for r in biggest]
    datas = [(root / r).read_bytes() for r in files]
    out: dict[str, list[float]] = {}

    def timed(label, fn):
        t = _cpu()
        fn()
        out.setdefault(label, []).append(_cpu() - t)

    for _ in range(3):
        timed("walk, 100 biggest files", lambda: [ast_util.walk(t) for t in trees])
        timed("walk with parents, 100 biggest files", lambda: [ast_util.walk(t, {}) for t in trees])
        timed(f"_index_part, all {len(files)} files", lambda: word_index._index_part(root, files, list(range(len(files))), {}, defaultdict(list), {}))
        timed(f"words_in, all {len(files)} files (bytes already read)", lambda: [word_index.words_in(d) for d in datas])
        timed("its stat, read, sha1 and words_in alone", lambda: [(p.stat(), hashlib.sha1(d := p.read_bytes()).digest(),
                                                                    word_index.words_in(d)) for r in files for p in [root / r]])
    got = {k: min(v) for k, v in out.items()}
    got["_index_part less that: its dict-building loop"] = (got[f"_index_part, all {len(files)} files"]
                                                          - got["its stat, read, sha1 and words_in alone"])
    return {"compiled": ast_util.__file__.endswith(".so"), "times": got}


def worker_stages(root: Path) -> dict:
    sys.path.insert(0, str(REPO))
    import gc
    import hashlib
    import resource

    from codemod import ast_util, pipeline
    from codemod.discover import DEFAULT_CLASSES, Tree
    from codemod.verdict import would_decouple

    gc.disable()  # as the CLI runs

    def now():
        return time.perf_counter(), _cpu(), resource.getrusage(resource.RUSAGE_CHILDREN)

    def since(a, b):
        return {"wall": b[0] - a[0], "cpu": b[1] - a[1],
                "children cpu": (b[2].ru_utime + b[2].ru_stime) - (a[2].ru_utime + a[2].ru_stime)}

    t0 = now()
    tree = Tree.open(root)
    tree.word_index
    t1 = now()
    index = pipeline.Index(tree)
    analyses = pipeline.analyse_all(index, DEFAULT_CLASSES, None, None)
    t2 = now()
    patches, _ = pipeline.build_patches(index, [a for a in analyses if would_decouple(a)])
    t3 = now()
    digest = hashlib.sha1("\0".join(p.after for p in patches).encode()).hexdigest()
    return {"compiled": ast_util.__file__.endswith(".so"), "digest": digest,
            "times": {"word index": since(t0, t1), "analysis": since(t1, t2), "rewrite and check": since(t2, t3),
                      "total": since(t0, t3)}}


# ---------------------------------------------------------------- the driver

def copy_checkout(dest: Path) -> None:
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True).stdout.split(b"\0")
    for f in files:
        if not f:
            continue
        src = REPO / os.fsdecode(f)
        if src.is_file():
            target = dest / os.fsdecode(f)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
    me = Path(__file__).resolve().relative_to(REPO)  # this script, even before it is committed
    (dest / me).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(Path(__file__), dest / me)


def build(folder: Path, modules: list[str]) -> dict:
    mypyc = shutil.which("mypyc", path=str(Path(sys.executable).parent)) or shutil.which("mypyc")
    if mypyc is None:
        sys.exit("mypyc_eval.py: mypyc is not installed (pip install mypy)")
    before = os.times()
    t0 = time.perf_counter()
    res = subprocess.run([mypyc, *modules], cwd=folder, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = os.times()
    if res.returncode != 0:
        sys.exit(f"mypyc_eval.py: mypyc failed:\n{res.stdout[-3000:]}{res.stderr[-2000:]}")
    sos = sorted(p for p in folder.rglob("*.so") if "build" not in p.relative_to(folder).parts)
    sizes = {str(p.relative_to(folder)): p.stat().st_size for p in sos}
    stripped = 0
    for p in sos:
        tmp = folder / "stripped.tmp"
        shutil.copy2(p, tmp)
        if shutil.which("strip") and subprocess.run(["strip", "--strip-debug", str(tmp)]).returncode == 0:
            stripped += tmp.stat().st_size
        tmp.unlink()
    return {"wall": wall, "cpu": (after.children_user + after.children_system) - (before.children_user + before.children_system),
            "sizes": sizes, "stripped": stripped}


def run_worker(folder: Path, kind: str, root: Path, cache: Path) -> dict:
    env = dict(os.environ, DECOUPLE_CACHE_DIR=str(cache))
    env.pop("PYTHONPATH", None)
    res = subprocess.run([sys.executable, "benchmarks/mypyc_eval.py", "--worker", kind, str(root)], cwd=folder, env=env,
                         capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"mypyc_eval.py: the {kind} worker in {folder} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def measure(cmd: list[str], env: dict, cwd: Path) -> tuple[float, float, int, str]:
    """(wall s, CPU s of the process and the children it waited for, exit code, stdout)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime, proc.returncode, out.decode(errors="replace")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--modules", nargs="+", default=MODULES)
    ap.add_argument("--skip-cold", action="store_true", help="skip the whole cold --check runs beside ruff")
    ap.add_argument("--only", choices=["funcs", "stages", "cold"], action="append", help="run only these measurements")
    ap.add_argument("--keep", help="build the two copies in this folder and keep them (default: a temporary one)")
    ap.add_argument("--worker", choices=["funcs", "stages"], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        got = (worker_funcs if args.worker == "funcs" else worker_stages)(Path(args.root))
        print(json.dumps(got))
        return 0

    sys.path.insert(0, str(REPO))
    from codemod.discover import fetch_release

    root = Path(args.root).resolve() if args.root else fetch_release(quiet=True)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="decouple-mypyc-"))
    if args.keep and work.exists():
        shutil.rmtree(work)
    folders = {"pure": work / "pure", "compiled": work / "compiled"}
    only = set(args.only or ["funcs", "stages"] + ([] if args.skip_cold else ["cold"]))
    try:
        for f in folders.values():
            copy_checkout(f)
        built = build(folders["compiled"], args.modules)
        print(f"mypyc {' '.join(args.modules)}: {built['wall']:.1f} s wall, {built['cpu']:.1f} s CPU; extension modules "
              f"{sum(built['sizes'].values()) / 1024:.0f} KiB ({built['stripped'] / 1024:.0f} KiB without debug info): "
              + ", ".join(f"{k} {v / 1024:.0f} KiB" for k, v in built["sizes"].items()), flush=True)
        caches = work / "caches"
        caches.mkdir()
        ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
        funcs: dict[str, dict[str, list[float]]] = {k: {} for k in folders}
        stages: dict[str, dict[str, list[float]]] = {k: {} for k in folders}
        cold: dict[str, list[float]] = {}
        digests: dict[str, set] = {k: set() for k in folders}
        outputs: dict[str, set] = {k: set() for k in folders}
        n = 0
        for i in range(args.rounds):
            order = ["pure", "compiled"] if i % 2 == 0 else ["compiled", "pure"]
            if "cold" in only and ruff:
                s, cpu, code, _ = measure([ruff, "check", "--select", "F", "--no-cache", "--quiet", str(root)], dict(os.environ), REPO)
                cold.setdefault("ruff wall", []).append(s)
                cold.setdefault("ruff cpu", []).append(cpu)
            for k in order:
                if "funcs" in only:
                    got = run_worker(folders[k], "funcs", root, caches / f"f{n}")
                    assert got["compiled"] == (k == "compiled"), got
                    for label, v in got["times"].items():
                        funcs[k].setdefault(label, []).append(v)
                    n += 1
                if "stages" in only:
                    got = run_worker(folders[k], "stages", root, caches / f"s{n}")
                    assert got["compiled"] == (k == "compiled"), got
                    digests[k].add(got["digest"])
                    for stage, d in got["times"].items():
                        for what, v in d.items():
                            stages[k].setdefault(f"{stage}: {what}", []).append(v)
                    n += 1
                if "cold" in only:
                    env = dict(os.environ, DECOUPLE_CACHE_DIR=str(caches / f"c{n}"))
                    env.pop("PYTHONPATH", None)
                    cmd = [sys.executable, "-m", "codemod", str(root), *[a for c in CLASSES for a in ("--class", c)], "--check"]
                    s, cpu, code, out = measure(cmd, env, folders[k])
                    if code not in (0, 1):
                        sys.exit(f"mypyc_eval.py: {k} --check exited with {code}")
                    outputs[k].add((code, out))
                    cold.setdefault(f"{k} wall", []).append(s)
                    cold.setdefault(f"{k} cpu", []).append(cpu)
                    n += 1
            print(f"round {i + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    if digests["pure"] != digests["compiled"] or len(digests["pure"]) > 1:
        sys.exit(f"mypyc_eval.py: the two copies patched differently: {digests}")
    if outputs["pure"] != outputs["compiled"] or len(outputs["pure"]) > 1:
        sys.exit("mypyc_eval.py: the two copies' --check printed differently")
    med = statistics.median
    print(f"\nmedians of {args.rounds} alternated rounds on {root}; compiled: {', '.join(args.modules)}\n")
    if funcs["pure"]:
        print("| function (CPU s, least of 3 in a process) | pure | compiled | speed-up |")
        print("|---|---|---|---|")
        for label in funcs["pure"]:
            p, c = med(funcs["pure"][label]), med(funcs["compiled"][label])
            print(f"| {label} | {p:.3f} | {c:.3f} | {p / c:.2f}x |")
        print()
    if stages["pure"]:
        print("| stage of a cold run, one process | pure | compiled | speed-up |")
        print("|---|---|---|---|")
        for label in stages["pure"]:
            p, c = med(stages["pure"][label]), med(stages["compiled"][label])
            print(f"| {label} | {p:.3f} | {c:.3f} | {p / c if c else float('nan'):.2f}x |")
        print()
    if cold:
        print("| cold `--check` | wall s | x ruff | CPU s |")
        print("|---|---|---|---|")
        r = med(cold["ruff wall"]) if "ruff wall" in cold else None
        for k in ["ruff", "pure", "compiled"]:
            if f"{k} wall" in cold:
                w = med(cold[f"{k} wall"])
                print(f"| {k} | {w:.2f} | {w / r:.2f} | {med(cold[f'{k} cpu']):.2f} |" if r else f"| {k} | {w:.2f} | | {med(cold[f'{k} cpu']):.2f} |")
        if "pure wall" in cold:
            print(f"\ncompiled / pure, cold wall: {med(cold['compiled wall']) / med(cold['pure wall']):.3f}; "
                  f"CPU: {med(cold['compiled cpu']) / med(cold['pure cpu']):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
