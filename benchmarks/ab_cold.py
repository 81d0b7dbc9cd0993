#!/usr/bin/env python3
"""A cut measured against its parent: cold and warm ``--check`` of two revisions beside ruff,
alternated in one run.

    python benchmarks/ab_cold.py [--base REV] [--new REV] [--rounds 5] [--scan] [ROOT]

``--base`` defaults to ``HEAD~1``, ``--new`` to the working tree (``.``); any other REV is
checked out, detached, into a temporary git worktree (removed at the end). ROOT defaults to the
pinned SGLang release. Each round runs, in an order that alternates between rounds so that
drift on a noisy machine hits both revisions alike:

* ``ruff check --select F --no-cache ROOT`` (the yardstick);
* each revision's ``decouple ROOT --class ... --check`` with a fresh cache folder (cold), then
  the same command again on that folder (warm); with ``--scan``, ``decouple scan ROOT`` instead.

Prints medians, each revision's ratio to ruff's median of the same run, new/base, and the peak
RSS of the largest process (``os.wait4``). Both revisions must give the same exit code and the
same output, or the script stops (``--different-ok`` where only the wording changed): a time of
different work measures nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_tree import compiled, failed, measure_cpu  # noqa: E402
from codemod.discover import DEFAULT_CLASSES, fetch_release  # noqa: E402

RUFF = "ruff check --select F --no-cache"


def checkout(rev: str, work: Path) -> Path:
    """The source folder of ``rev``: the working tree for ``.``, else a detached worktree."""
    if rev == ".":
        return REPO
    dest = work / f"rev-{len(list(work.iterdir()))}"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet", str(dest), rev], check=True)
    return dest


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?", help="the tree to run on (default: the pinned SGLang release)")
    ap.add_argument("--base", default="HEAD~1", help="the parent revision (default HEAD~1)")
    ap.add_argument("--new", default=".", help="the revision with the cut (default: the working tree)")
    ap.add_argument("--rounds", type=int, default=5, help="alternated rounds (default 5); medians are reported")
    ap.add_argument("--scan", action="store_true", help="time `decouple scan ROOT` instead of the two classes' --check")
    ap.add_argument("--different-ok", action="store_true",
                    help="time the two even when their --check output differs (a wording change between them)")
    args = ap.parse_args(argv)
    root = Path(args.root) if args.root else fetch_release(quiet=True)
    ruff = shutil.which("ruff") or shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        sys.exit("ab_cold.py: ruff is not installed (pip install ruff): it is the yardstick")
    work = Path(tempfile.mkdtemp(prefix="decouple-ab-"))
    (work / "src").mkdir()
    select = [a for c in DEFAULT_CLASSES for a in ("--class", c)]
    revs = {"base": args.base, "new": args.new}
    times: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    rss: dict[str, float] = {}
    folders: dict[str, Path] = {}
    try:
        for k, rev in revs.items():
            folders[k] = checkout(rev, work / "src")
            compiled(folders[k])

        def decouple(k: str, cache: Path):
            env = dict(os.environ, DECOUPLE_CACHE_DIR=str(cache), PYTHONPATH=str(folders[k]))
            if args.scan:
                return [sys.executable, "-m", "codemod", "scan", str(root)], env
            return [sys.executable, "-m", "codemod", str(root), *select, "--check"], env

        outputs = {}
        for k in revs:  # a first run of each: the same verdicts, the page cache warm
            cmd, env = decouple(k, work / f"first-{k}")
            res = subprocess.run(cmd, env=env, cwd=folders[k], capture_output=True, text=True)
            if failed(res.returncode, cmd):
                sys.exit(f"ab_cold.py: {k} ({revs[k]}) exited with {res.returncode}: {res.stderr.strip()[-300:]}")
            outputs[k] = (res.returncode, res.stdout)
        if outputs["base"] != outputs["new"] and not args.different_ok:
            sys.exit("ab_cold.py: the two revisions print different results on this tree (compare their --check "
                     "output; --different-ok when only the wording changed)")

        def timed(label: str, cmd, env, cwd=None):
            os.chdir(cwd or REPO)
            s, mb, code, cpu = measure_cpu(cmd, env)
            if failed(code, cmd):
                sys.exit(f"ab_cold.py: {label} exited with {code}")
            times.setdefault(label, []).append(s)
            cpus.setdefault(label, []).append(cpu)
            rss[label] = max(rss.get(label, 0.0), mb)

        for i in range(args.rounds):
            order = ["base", "new"] if i % 2 == 0 else ["new", "base"]
            timed(RUFF, [ruff, "check", "--select", "F", "--no-cache", "--quiet", str(root)], dict(os.environ))
            for k in order:
                cmd, env = decouple(k, work / f"cache-{k}-{i}")
                timed(f"{k} cold", cmd, env, folders[k])
                timed(f"{k} warm", cmd, env, folders[k])
            print(f"round {i + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    finally:
        os.chdir(REPO)
        for folder in folders.values():
            if folder != REPO:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(folder)], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)

    med = {label: statistics.median(v) for label, v in times.items()}
    print(f"\nbase = {args.base}, new = {'the working tree' if args.new == '.' else args.new}; "
          f"medians of {args.rounds} alternated rounds on {root}\n")
    cpu = {label: statistics.median(v) for label, v in cpus.items()}
    print("| command | median s | x ruff | median CPU s | peak RSS MB |")
    print("|---|---|---|---|---|")
    for label, s in med.items():
        print(f"| {label} | {s:.2f} | {s / med[RUFF]:.2f} | {cpu[label]:.2f} | {rss[label]:.0f} |")
    print(f"\nnew / base, cold: {med['new cold'] / med['base cold']:.3f}; warm: {med['new warm'] / med['base warm']:.3f}; "
          f"cold CPU: {cpu['new cold'] / cpu['base cold']:.3f}")

    def paired(key: str, series: dict) -> float:
        return statistics.median(n / b for n, b in zip(series[f"new {key}"], series[f"base {key}"]))

    # The two revisions of one round ran a few seconds apart: their ratio cancels most of the
    # machine's drift between rounds, which the medians above do not.
    print(f"paired (median of each round's new / base), cold: {paired('cold', times):.3f}; cold CPU: {paired('cold', cpus):.3f}; "
          f"new cold / ruff of its round: {statistics.median(n / r for n, r in zip(times['new cold'], times[RUFF])):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
