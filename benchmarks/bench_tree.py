#!/usr/bin/env python3
"""Wall time and peak RSS of decouple on a whole SGLang tree, beside ruff, in one run.

    python benchmarks/bench_tree.py [ROOT] [--repeats 3]

ROOT defaults to the pinned SGLang release (downloaded once). Measured, each as the median
of --repeats runs, interleaved so that drift hits every command alike:

* ``ruff check --select F --no-cache ROOT`` (the yardstick; skipped when ruff is missing);
* ``decouple ROOT --check`` cold (an empty cache) and warm (the cache from the previous run);
* the warm ``--check`` after every file got a new modification time, as in a fresh CI
  checkout with the cache restored (on a copy of the tree);
* ``decouple --check`` after an edit to a file the run reads (the parent's module gets a new
  comment line each round): the run's cached result no longer applies, the cached word index
  does for every file but that one;
* ``decouple ROOT --output DIR`` (the full patch run), cold;
* the same cold ``--check`` on the tree doubled: ROOT plus a copy, under a second name, of every
  file that mentions none of the names the analysis looks for.

Peak RSS is per process: the largest of the command's processes (``os.wait4`` reports the
maximum over the process and the workers it waited for). The heavy commands then run once
more, untimed, with every process of the command sampled every 20 ms for the memory they
take together (PSS, so pages shared after a fork count once; Linux only). Prints a Markdown
table for BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from codemod.discover import DEFAULT_CLASSES, fetch_release  # noqa: E402
from codemod.word_index import words_in  # noqa: E402


EDITED = "sglang/srt/layers/attention/flashinfer_backend.py"  # read by every default run


def failed(code: int, cmd: list[str]) -> bool:
    """A command that failed would time the failure. (``--check`` exits 1 when the tree still
    needs the refactor, ruff 1 when it finds something: both are results.)"""
    return code not in (0, 1) or (code == 1 and "--output" in cmd)


def compiled(source: Path) -> None:
    """Write the bytecode of the ``codemod`` package under ``source``, as installing it does.

    A first untimed run was meant to write it, but Python writes no ``.pyc`` file where
    ``PYTHONDONTWRITEBYTECODE`` is set (this machine sets it for every process): each timed run
    then compiled all of the package's 170-odd modules again, about 0.25 s of a cold ``--check``
    on SGLang that no installed copy pays (``pip install`` compiles a wheel's modules)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(source) / "codemod")], check=True,
                   stdout=subprocess.DEVNULL)


def measure(cmd: list[str], env: dict) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, exit code) of one child process."""
    return measure_cpu(cmd, env)[:3]


def measure_cpu(cmd: list[str], env: dict) -> tuple[float, float, int, float]:
    """``measure``'s answer and the CPU seconds (user and system) of the child and of every
    process it waited for (its workers): on a machine whose speed swings between runs, a
    steadier measure of the work than the wall time."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return (time.perf_counter() - t0, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status),
            usage.ru_utime + usage.ru_stime)


def together(cmd: list[str], env: dict) -> float | None:
    """Peak PSS in MB of a command's processes taken together, sampled from /proc (Linux)."""
    if not Path("/proc/self/smaps_rollup").exists():
        return None
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        family, parents = {proc.pid}, {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    parents[int(d)] = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    pass
        grew = True
        while grew:
            grew = False
            for pid, parent in parents.items():
                if parent in family and pid not in family:
                    family.add(pid)
                    grew = True
        kb = 0
        for pid in family:
            try:
                kb += sum(int(l.split()[1]) for l in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines() if l.startswith("Pss:"))
            except (OSError, ValueError):
                pass
        peak = max(peak, kb)
        time.sleep(0.02)
    return peak / 1024


def doubled(root: Path, words: set[str], dest: Path) -> int:
    """ROOT hard-linked into dest, plus a copy of every file that mentions none of ``words``."""
    subprocess.run(["cp", "-al", str(root), str(dest)], check=True)
    copies = 0
    wanted = {w.encode() for w in words}
    for p in root.rglob("*.py"):
        data = p.read_bytes()
        if wanted.isdisjoint(words_in(data)):
            target = dest / "zz_copy" / p.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            copies += 1
    return copies


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    root = Path(args.root) if args.root else fetch_release(quiet=True)
    n_files = sum(1 for _ in root.rglob("*.py"))
    n_lines = sum(p.read_bytes().count(b"\n") for p in root.rglob("*.py"))
    ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    work = Path(tempfile.mkdtemp(prefix="decouple-bench-"))
    base_env = dict(os.environ)
    decouple = [sys.executable, "-m", "codemod"]
    select = [a for c in DEFAULT_CLASSES for a in ("--class", c)]  # a ROOT given needs its classes
    results: dict[str, list[tuple[float, float]]] = {}
    shared: dict[str, float | None] = {}
    compiled(REPO)

    def run(label, cmd, env):
        s, rss, code = measure(cmd, env)
        if failed(code, cmd):
            sys.exit(f"bench_tree.py: {label} exited with {code}; run it by hand to see why")
        results.setdefault(label, []).append((s, rss))

    try:
        # Words the analysis looks for, from one warm-up run's cache entry.
        env0 = dict(base_env, DECOUPLE_CACHE_DIR=str(work / "cache0"))
        first = subprocess.run(decouple + [str(root), *select, "--check"], env=env0, capture_output=True, text=True)
        if failed(first.returncode, first.args):
            why = (first.stderr.strip().splitlines() or ["no message"])[-1]
            sys.exit(f"bench_tree.py: decouple {root} --check exited with {first.returncode}: {why}")
        entry = next((work / "cache0" / "runs").glob("*.json"))
        words = set(json.loads(entry.read_text())["words"])
        copies = doubled(root, words, work / "doubled")
        # A tree whose parent module is a file of its own (the rest hard-linked), to edit.
        edited = work / "edited"
        subprocess.run(["cp", "-al", str(root), str(edited)], check=True)
        target = edited / EDITED
        text = target.read_bytes()
        target.unlink()
        target.write_bytes(text)
        env_edit = dict(base_env, DECOUPLE_CACHE_DIR=str(work / "cache-edit"))
        subprocess.run(decouple + [str(edited), *select, "--check"], env=env_edit, capture_output=True)
        touched = work / "touched"  # a real copy: new times here must not reach ROOT
        shutil.copytree(root, touched)
        env_touch = dict(base_env, DECOUPLE_CACHE_DIR=str(work / "cache-touch"))
        subprocess.run(decouple + [str(touched), *select, "--check"], env=env_touch, capture_output=True)
        for i in range(args.repeats):
            if ruff:
                run("ruff check --select F --no-cache", [ruff, "check", "--select", "F", "--no-cache", "--quiet", str(root)], base_env)
            cold = dict(base_env, DECOUPLE_CACHE_DIR=str(work / f"cold{i}"))
            run("decouple --check (cold)", decouple + [str(root), *select, "--check"], cold)
            run("decouple --check (warm)", decouple + [str(root), *select, "--check"], cold)
            stamp = time.time_ns() + (i + 1) * 10**9
            for p in touched.rglob("*.py"):
                os.utime(p, ns=(stamp, stamp))
            run("decouple --check (warm, every file with a new time)", decouple + [str(touched), *select, "--check"], env_touch)
            target.write_bytes(text + f"# edit {i}\n".encode())
            run("decouple --check after an edit to a file it reads", decouple + [str(edited), *select, "--check"], env_edit)
            run("decouple full patch run (cold)", decouple + [str(root), *select, "--output", str(work / f"out{i}"), "--no-cache"], base_env)
            dbl = dict(base_env, DECOUPLE_CACHE_DIR=str(work / f"dbl{i}"))
            run("decouple --check on the doubled tree (cold)", decouple + [str(work / "doubled"), *select, "--check"], dbl)
            print(f"round {i + 1}/{args.repeats} done", file=sys.stderr, flush=True)
        shared = {
            "decouple --check (cold)": together(decouple + [str(root), *select, "--check"], dict(base_env, DECOUPLE_CACHE_DIR=str(work / "mem"))),
            "decouple full patch run (cold)": together(decouple + [str(root), *select, "--output", str(work / "out-mem"), "--no-cache"], base_env),
            "decouple --check on the doubled tree (cold)": together(decouple + [str(work / "doubled"), *select, "--check"], dict(base_env, DECOUPLE_CACHE_DIR=str(work / "mem2"))),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)

    ruff_s = statistics.median(s for s, _ in results.get("ruff check --select F --no-cache", [(float("nan"), 0)]))
    print(f"\nMachine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"tree: {root.name} ({n_files:,} .py files, {n_lines:,} lines); doubled tree: +{copies:,} copies; "
          f"median of {args.repeats}\n")
    print("| command | median s | x ruff | peak RSS MB (largest process) | peak MB, all processes (PSS) |")
    print("|---|---|---|---|---|")
    for label, rows in results.items():
        s = statistics.median(r[0] for r in rows)
        rss = max(r[1] for r in rows)
        both = shared.get(label)
        print(f"| {label} | {s:.2f} | {s / ruff_s:.1f} | {rss:.0f} | {'' if both is None else f'{both:.0f}'} |")
    single = statistics.median(r[0] for r in results["decouple --check (cold)"])
    dbl = statistics.median(r[0] for r in results["decouple --check on the doubled tree (cold)"])
    print(f"\nDoubled tree / tree (cold --check): {dbl / single:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
