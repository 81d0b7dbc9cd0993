#!/usr/bin/env python3
"""Run decouple on every SGLang release on PyPI whose sources contain TRTLLMHAAttnBackend.

    python benchmarks/release_matrix.py [--since 0.4.9] [--out docs/release-matrix.md] [--json out.json]

Each release's .py files are downloaded once (``pip download --no-deps``) and cached in the
user cache directory. Per release it records: whether the class is there, its parent, the
verdict, the kept members, whether the patch applies (``git apply --check``), compiles, is
pyflakes-clean and idempotent (a second run on the patched tree reports nothing to do), and
the time. Every release must end in a patch that passes every check, or a clear decline or
refusal: a crash (exit code other than 0, 2, 3, or a traceback) is a failure of the tool.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from codemod.check import new_findings  # noqa: E402
from codemod.discover import fetch_release, release_dir  # noqa: E402

CLASSES = ("TRTLLMHAAttnBackend", "TRTLLMHAAttnMultiStepDraftBackend")


def versions(since: str) -> list[str]:
    proc = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "sglang"], capture_output=True, text=True)
    line = next((l for l in proc.stdout.splitlines() if l.startswith("Available versions:")), "")
    found = [v.strip() for v in line.split(":", 1)[1].split(",")] if line else []

    def key(v):
        return tuple(int(x) if x.isdigit() else x for x in re.split(r"[.]|post", v) if x != "")

    return sorted((v for v in found if key(v) >= key(since)), key=key)


def run(args, cwd=None):
    t0 = time.time()
    proc = subprocess.run([sys.executable, "-m", "codemod", *map(str, args)], capture_output=True, text=True, cwd=cwd)
    return proc, time.time() - t0


def overlay(root: Path, files: Path, dest: Path) -> None:
    """A hard-linked copy of the release with the patched files written over it (cheap, leaves the cache alone)."""
    subprocess.run(["cp", "-al", str(root), str(dest)], check=True)
    for f in files.rglob("*.py"):
        target = dest / f.relative_to(files)
        target.unlink()
        shutil.copyfile(f, target)


def one(version: str, work: Path) -> dict:
    row = {"version": version}
    t0 = time.time()
    try:
        root = fetch_release("sglang", version, quiet=True)
    except Exception as exc:  # the tool's own download error is one line
        row.update(status="download failed", detail=str(exc)[:200])
        return row
    shutil.rmtree(release_dir("sglang", version) / "wheel", ignore_errors=True)  # keep only the .py files
    row["download_s"] = round(time.time() - t0, 1)
    hits = [p for p in root.rglob("trtllm_mha_backend.py")]
    if not hits or "class TRTLLMHAAttnBackend" not in hits[0].read_text():
        row["status"] = "no TRTLLMHAAttnBackend"
        return row
    out = work / version
    args = [root, "--output", out] + [a for c in CLASSES if f"class {c}" in hits[0].read_text() for a in ("--class", c)]
    proc, seconds = run(args)
    row["seconds"] = round(seconds, 1)
    row["exit"] = proc.returncode
    row["crash"] = proc.returncode not in (0, 2, 3) or "Traceback" in proc.stderr
    if proc.returncode == 2:
        row["status"] = "refused (usage)"
        row["detail"] = proc.stderr.strip().splitlines()[-1][:200] if proc.stderr.strip() else ""
        return row
    report = json.loads((out / "report.json").read_text())
    row["classes"] = [
        {"name": c["name"], "parent": (c["parent"] or "").rsplit(":", 1)[-1], "decision": c["decision"],
         "reason": c["reason"][:160], "kept": [k["member"] for k in c["kept"]]}
        for c in report["classes"]
    ]
    patch = out / "patch.diff"
    if not patch.exists():
        row["status"] = "declined or refused" if not row["crash"] else "crash"
        return row
    check = subprocess.run(["git", "apply", "--check", str(patch)], cwd=root, capture_output=True, text=True)
    row["applies"] = check.returncode == 0
    ok_compile, clean = True, True
    for f in (out / "files").rglob("*.py"):
        rel = f.relative_to(out / "files")
        after = f.read_text()
        try:
            compile(after, str(rel), "exec")
        except SyntaxError:
            ok_compile = False
        if new_findings((root / rel).read_text(), after, str(rel)):
            clean = False
    row["compiles"], row["pyflakes_clean"] = ok_compile, clean
    patched = work / f"{version}-patched"
    overlay(root, out / "files", patched)
    again, _ = run([patched, "--check", *args[3:]])
    row["idempotent"] = again.returncode == 0
    shutil.rmtree(patched, ignore_errors=True)
    row["status"] = "patched" if all(row[k] for k in ("applies", "compiles", "pyflakes_clean", "idempotent")) else "patch FAILED a check"
    return row


def render(rows: list[dict]) -> str:
    lines = [
        "# Release matrix: decouple on every SGLang release with TRTLLMHAAttnBackend\n",
        "Produced by `python benchmarks/release_matrix.py` (sources from PyPI, `.py` files only, cached).",
        "Each release ends in a patch that passes every static check, or a decline or refusal with its reason.\n",
        "| release | classes: verdict (kept members) | applies | compiles | pyflakes | idempotent | seconds | outcome |",
        "|---|---|---|---|---|---|---|---|",
    ]
    yes = lambda v: "yes" if v else ("no" if v is not None else "")  # noqa: E731
    for r in rows:
        if r.get("status") == "no TRTLLMHAAttnBackend":
            continue
        cls = "<br>".join(
            f"`{c['name']}` ({c['parent']}): **{c['decision']}** ({len(c['kept'])} kept)" for c in r.get("classes", [])
        ) or r.get("detail", "")
        lines.append(
            f"| {r['version']} | {cls} | {yes(r.get('applies'))} | {yes(r.get('compiles'))} | {yes(r.get('pyflakes_clean'))} "
            f"| {yes(r.get('idempotent'))} | {r.get('seconds', '')} | {r['status']}{' (CRASH)' if r.get('crash') else ''} |"
        )
    absent = [r["version"] for r in rows if r.get("status") == "no TRTLLMHAAttnBackend"]
    if absent:
        lines.append(f"\nReleases checked without the class: {', '.join(absent)}.")
    crashes = [r["version"] for r in rows if r.get("crash")]
    lines.append(f"\nCrashes: {len(crashes)}{' (' + ', '.join(crashes) + ')' if crashes else ''}.")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--since", default="0.4.9", help="first release to try (default 0.4.9)")
    ap.add_argument("--only", nargs="*", help="exact versions to run")
    ap.add_argument("--out", default=str(REPO / "docs" / "release-matrix.md"))
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    todo = args.only or versions(args.since)
    rows = []
    with tempfile.TemporaryDirectory(prefix="decouple-matrix-") as tmp:
        for v in todo:
            row = one(v, Path(tmp))
            rows.append(row)
            print(f"{v}: {row['status']} {row.get('seconds', '')}", flush=True)
            Path(args.out).write_text(render(rows))
            if args.json:
                Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 1 if any(r.get("crash") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
