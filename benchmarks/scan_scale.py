#!/usr/bin/env python3
"""How the scan grows with the tree: ruff, a cold single-class ``--check`` and a cold ``decouple
scan`` on trees of 1x, 2x and 4x SGLang 0.5.23's size, side by side in one run.

    python benchmarks/scan_scale.py [--rounds 3] [--sizes 1,2,4] [--work DIR]

The trees are real PyPI releases, side by side under one ROOT (each release's ``.py`` files,
downloaded once into the user cache directory, as ``decouple --sglang`` does, and hard-linked
into ``WORK/<size>x/``):

* 1x: SGLang 0.5.23;
* 2x: that, transformers 5.19.0 and sympy 1.14.0;
* 4x: that, Home Assistant 2024.3.3 (a large pure-Python monorepo: 6,725 files) and vLLM 0.34.0.

Each round runs every command once per tree, trees and commands in an order that alternates
between rounds, so that drift on a noisy machine hits every size alike:

* ``ruff check --select F --no-cache ROOT`` (the yardstick);
* ``decouple ROOT --class ...TRTLLMHAAttnBackend --class ...Draft... --check``, cold (an empty
  cache folder);
* ``decouple scan ROOT``, cold.

Prints medians, each command's ratio to ruff and the scan's to the single run on the same tree,
the peak RSS of the largest process of each command (``os.wait4``: the process and every worker
it waited for), and for each command the exponent ``b`` of ``time = a * files ** b`` fitted over
the sizes (least squares on the logarithms): 1.0 grows with the tree, more grows faster.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.bench_tree import compiled, failed, measure  # noqa: E402
from codemod.discover import fetch_release  # noqa: E402

RELEASES = {
    1: [("sglang", "0.5.23")],
    2: [("sglang", "0.5.23"), ("transformers", "5.19.0"), ("sympy", "1.14.0")],
    4: [("sglang", "0.5.23"), ("transformers", "5.19.0"), ("sympy", "1.14.0"),
        ("homeassistant", "2024.3.3"), ("vllm", "0.34.0")],
}
MODULE = "sglang.srt.layers.attention.trtllm_mha_backend"
SELECT = ["--class", f"{MODULE}:TRTLLMHAAttnBackend", "--class", f"{MODULE}:TRTLLMHAAttnMultiStepDraftBackend"]
COMMANDS = ("ruff", "check", "scan")


def build(size: int, work: Path) -> tuple[Path, int, int]:
    """The tree of ``size``: (ROOT, its .py files, their MB). Hard links where the cache and WORK
    share a file system, copies otherwise."""
    root = work / f"{size}x"
    if root.exists():
        shutil.rmtree(root)
    files = nbytes = 0
    for package, version in RELEASES[size]:
        src = fetch_release(package, version, quiet=True)
        for path in sorted(src.rglob("*.py")):
            dest = root / path.relative_to(src)
            if dest.exists():
                continue  # two releases shipping one path (none of these do): the first wins
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, dest)
            except OSError:
                shutil.copyfile(path, dest)
            files += 1
            nbytes += path.stat().st_size
    return root, files, round(nbytes / 2**20)


def exponent(sizes: list[int], times: list[float]) -> float:
    xs, ys = [math.log(s) for s in sizes], [math.log(t) for t in times]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="alternated rounds (default 3); medians are reported")
    ap.add_argument("--sizes", default="1,2,4", help="which trees, of 1, 2, 4 (default all three)")
    ap.add_argument("--work", help="where the trees are built (default: a temporary folder, removed)")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if any(s not in RELEASES for s in sizes):
        ap.error(f"--sizes: each of {sorted(RELEASES)}")
    ruff = shutil.which("ruff")
    if ruff is None:
        sys.exit("scan_scale.py: ruff is not installed (pip install ruff): it is the yardstick")
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="scan-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    trees = {s: build(s, work / "trees") for s in sizes}
    env = dict(os.environ, PYTHONPATH=str(REPO))
    times: dict[tuple[int, str], list[float]] = {}
    rss: dict[tuple[int, str], float] = {}

    def command(size: int, what: str, i: int) -> tuple[list[str], dict]:
        root = str(trees[size][0])
        cache = work / f"cache-{size}-{what}-{i}"
        shutil.rmtree(cache, ignore_errors=True)  # cold: a --work folder used before still holds its caches
        cold = dict(env, DECOUPLE_CACHE_DIR=str(cache))
        if what == "ruff":
            return [ruff, "check", "--select", "F", "--no-cache", "--quiet", root], env
        if what == "check":
            return [sys.executable, "-m", "codemod", root, *SELECT, "--check"], cold
        return [sys.executable, "-m", "codemod", "scan", root], cold

    compiled(REPO)
    try:
        for size in sizes:  # a first run of each: the page cache warm
            for what in COMMANDS:
                cmd, e = command(size, what, -1)
                res = subprocess.run(cmd, env=e, cwd=REPO, capture_output=True, text=True)
                if failed(res.returncode, cmd):
                    sys.exit(f"scan_scale.py: {what} on {size}x exited {res.returncode}: {res.stderr.strip()[-300:]}")
        for i in range(args.rounds):
            order = [(s, w) for s in sizes for w in COMMANDS]
            for size, what in order if i % 2 == 0 else order[::-1]:
                cmd, e = command(size, what, i)
                os.chdir(REPO)
                s, mb, code = measure(cmd, e)
                if failed(code, cmd):
                    sys.exit(f"scan_scale.py: {what} on {size}x exited {code}")
                times.setdefault((size, what), []).append(s)
                rss[(size, what)] = max(rss.get((size, what), 0.0), mb)
            print(f"round {i + 1}/{args.rounds} done", file=sys.stderr)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)

    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\nmedians of {args.rounds} alternated rounds; peak RSS of the largest process of each command\n")
    print("| tree | files | MB | ruff --select F | cold `--check`, two classes | cold `decouple scan` | scan / check | peak RSS MB (ruff, check, scan) |")
    print("|---|---|---|---|---|---|---|---|")
    for s in sizes:
        _, files, mb = trees[s]
        r, c, sc = med[(s, "ruff")], med[(s, "check")], med[(s, "scan")]
        print(f"| {s}x | {files:,} | {mb} | {r:.2f} s | {c:.2f} s ({c / r:.2f}x ruff) | {sc:.2f} s ({sc / r:.2f}x ruff) "
              f"| {sc / c:.2f}x | {rss[(s, 'ruff')]:.0f}, {rss[(s, 'check')]:.0f}, {rss[(s, 'scan')]:.0f} |")
    if len(sizes) >= 2:
        files = [trees[s][1] for s in sizes]
        print("\ngrowth exponent over the sizes (time = a * files ** b): "
              + ", ".join(f"{w} b = {exponent(files, [med[(s, w)] for s in sizes]):.2f}" for w in COMMANDS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
