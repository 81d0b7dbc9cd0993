"""GPU verification: SGLang's own attention kit on the original and the patched sources.

``decouple verify [ROOT] --output DIR``, after a run that wrote ``DIR/files``:

1. the original side is the SGLang installed in this environment (on the lent H200,
   the bundle's); the patched side is a copy of that package with ``DIR/files``
   laid over it, in its own import root;
2. ``codemod.gpu.worker`` runs the kit once per side, each in a fresh process, and
   the original side a second time, so that a kernel that is not deterministic
   from run to run shows its own spread (the bound for original vs patched);
3. the results go to ``DIR/verify.json`` and a table in ``DIR/report.md``.

Only the standard library is imported here (torch only inside the comparison), so
this runs where libcst and pyflakes are not installed.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from ..errors import UsageError

# In this order: original and patched alternate, so drift of the machine over the run shows
# as a gap between the two original runs (the spread) instead of as a difference of the sides.
SIDES = ("original", "patched", "original_again", "patched_again")
SPREAD_LIMIT = 0.05  # a latency ratio is a result only when the original's two runs agree this well
MiB = 1 << 20


def installed_sglang() -> Path:
    spec = importlib.util.find_spec("sglang")
    if spec is None or not spec.submodule_search_locations:
        raise UsageError("verify needs SGLang importable in this environment (on the GPU machine: source .gpu-bundle/activate.sh)")
    return Path(list(spec.submodule_search_locations)[0])


def cuda_available() -> bool:
    probe = subprocess.run([sys.executable, "-c", "import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)"], capture_output=True)
    return probe.returncode == 0


def package_relative(rel: str) -> str | None:
    """``python/sglang/srt/x.py`` or ``sglang/srt/x.py`` -> ``srt/x.py`` (inside the package)."""
    parts = rel.split("/")
    if "sglang" not in parts:
        return None
    return "/".join(parts[parts.index("sglang") + 1:])


def build_patched_root(original: Path, files: Path, dest: Path) -> list[str]:
    """A full copy of the installed package with the patched files laid over it."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(original, dest / "sglang", ignore=shutil.ignore_patterns("__pycache__"))
    overlaid = []
    for f in sorted(files.rglob("*.py")):
        inner = package_relative(f.relative_to(files).as_posix())
        if inner is None:
            continue
        target = dest / "sglang" / inner
        if not target.exists():
            raise UsageError(f"patched file {inner} has no counterpart in the installed SGLang at {original}")
        shutil.copyfile(f, target)
        overlaid.append(inner)
    return overlaid


def run_side(side: str, work: Path, import_root: Path | None, args, log) -> dict:
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parents[1])
    paths = ([str(import_root)] if import_root else []) + [here] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.pop("SGLANG_SRC", None)
    env["PYTHONUNBUFFERED"] = "1"
    cmd = [sys.executable, "-m", "codemod.gpu.worker", "--side", side, "--out", str(work),
           "--head-dim", str(args.head_dim), "--hidden-size", str(args.hidden_size), "--repeats", str(args.repeats)]
    t0 = time.time()
    with open(work / f"worker_{side}.log", "w") as fh:
        proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, timeout=args.timeout)
    log(f"verify: {side}: exit {proc.returncode} in {time.time() - t0:.0f}s (log: {work / f'worker_{side}.log'})")
    result = work / f"result_{side}.json"
    if not result.exists():
        tail = (work / f"worker_{side}.log").read_text()[-400:].strip().splitlines()
        raise UsageError(f"the {side} run wrote no result: {tail[-1] if tail else 'no output'}")
    return json.loads(result.read_text())


def compare(results: dict, work: Path) -> dict:
    """Case statuses, outputs (bitwise, else within the original's own run-to-run spread), costs."""
    import torch

    outs = {s: torch.load(work / f"outputs_{s}.pt") if (work / f"outputs_{s}.pt").exists() else {} for s in SIDES if s in results}
    cases = []
    status = {s: {(c["mode"], c["name"]): c for c in results[s]["cases"]} for s in results}
    for key in sorted(set(status["original"]) | set(status["patched"])):
        ca, cb = status["original"].get(key), status["patched"].get(key)
        entry = {"mode": key[0], "name": key[1], "original": ca and ca["status"], "patched": cb and cb["status"]}
        okey = (ca or {}).get("output_key")
        if okey and okey in outs["original"] and okey in outs["patched"]:
            x, y = outs["original"][okey], outs["patched"][okey]
            entry["bitwise_equal"] = bool(x.shape == y.shape and x.dtype == y.dtype and torch.equal(x, y))
            if not entry["bitwise_equal"]:
                diff = (x.float() - y.float()).abs().max().item() if x.shape == y.shape else float("inf")
                spread = None
                if okey in outs.get("original_again", {}):
                    z = outs["original_again"][okey]
                    spread = (x.float() - z.float()).abs().max().item()
                entry.update(max_abs_diff=diff, run_to_run_spread=spread, within_spread=spread is not None and spread > 0 and diff <= spread)
        cases.append(entry)

    def costs(side, cls):
        return (results[side].get("construction") or {}).get(cls) or {}

    construction = {}
    for cls in sorted(set(results["original"].get("construction", {})) | set(results["patched"].get("construction", {}))):
        o, p = costs("original", cls), costs("patched", cls)
        entry = {"original": o, "patched": p}
        if o.get("allocated_bytes") is not None and p.get("allocated_bytes") is not None:
            entry["allocated_mib"] = [o["allocated_bytes"] / MiB, p["allocated_bytes"] / MiB]
            entry["saved_mib"] = (o["allocated_bytes"] - p["allocated_bytes"]) / MiB
        if o.get("peak_bytes") is not None and p.get("peak_bytes") is not None:
            entry["peak_mib"] = [o["peak_bytes"] / MiB, p["peak_bytes"] / MiB]
        if o.get("seconds_median") and p.get("seconds_median"):
            entry["construction_time_ratio"] = p["seconds_median"] / o["seconds_median"]
        entry["flashinfer_objects_patched"] = sum((p.get("flashinfer_objects") or {}).values())
        construction[cls] = entry
    latency = {}
    for name, lo in (results["original"].get("latency") or {}).items():
        lp = (results["patched"].get("latency") or {}).get(name)
        la = (results.get("original_again", {}).get("latency") or {}).get(name) or {}
        if lp and lo.get("median_ms") and lp.get("median_ms"):
            latency[name] = {"original_ms": lo["median_ms"], "patched_ms": lp["median_ms"], "ratio": lp["median_ms"] / lo["median_ms"]}
            if la.get("median_ms"):
                # The same sources in a second process: how far apart two runs land anyway.
                latency[name]["original_again_ms"] = la["median_ms"]
                latency[name]["noise_ratio"] = la["median_ms"] / lo["median_ms"]

    gpu_bound = gpu_bound_latency(results)

    def tally(side):
        out = {"passed": 0, "failed": 0, "skipped": 0}
        for c in results[side]["cases"]:
            out[c["status"]] = out.get(c["status"], 0) + 1
        return out

    compared = [c for c in cases if "bitwise_equal" in c]
    same_status = all(c["original"] == c["patched"] for c in cases)
    outputs_ok = all(c["bitwise_equal"] or c.get("within_spread") for c in compared)
    no_flashinfer = all(v["flashinfer_objects_patched"] == 0 for v in construction.values())
    less_memory = all(v.get("saved_mib", 0) > 0 for k, v in construction.items() if k == "TRTLLMHAAttnBackend")
    return {
        "cases": cases,
        "tally": {s: tally(s) for s in results},
        "outputs_compared": len(compared),
        "outputs_bitwise_equal": sum(1 for c in compared if c["bitwise_equal"]),
        "construction": construction,
        "latency": latency,
        "latency_gpu_bound": gpu_bound,
        "checks": {"same_status": same_status, "outputs_equal": outputs_ok, "no_flashinfer_objects": no_flashinfer, "less_memory": less_memory},
        "ok": same_status and outputs_ok and no_flashinfer and less_memory and bool(compared),
    }


def gpu_bound_latency(results: dict) -> dict:
    """The CUDA-graph decode timing of each side, the original's spread between its two runs,
    and the patched/original ratio, which counts only when the spread is within SPREAD_LIMIT."""
    ms = {s: (results.get(s, {}).get("latency_gpu_bound") or {}).get("median_ms") for s in SIDES}
    if not (ms["original"] and ms["patched"]):
        return {}
    out = {"case": results["original"]["latency_gpu_bound"].get("case"), "median_ms": ms}
    origs = [m for m in (ms["original"], ms["original_again"]) if m]
    pats = [m for m in (ms["patched"], ms["patched_again"]) if m]
    out["ratio"] = statistics.median(pats) / statistics.median(origs)
    if len(origs) == 2:
        out["spread"] = abs(origs[1] / origs[0] - 1)
        out["ratio_is_a_result"] = out["spread"] <= SPREAD_LIMIT
    else:
        out["ratio_is_a_result"] = False
    return out


def render(summary: dict, meta: dict) -> str:
    t = summary["tally"]
    lines = ["## GPU verification (SGLang's attention kit, original vs patched)\n",
             f"{meta.get('device', '?')}, torch {meta.get('torch', '?')}; each side in a fresh process with its own import root.\n",
             "| | original | patched |", "|---|---|---|"]
    for k in ("passed", "failed", "skipped"):
        lines.append(f"| cases {k} | {t['original'].get(k, 0)} | {t['patched'].get(k, 0)} |")
    lines.append(f"| outputs bitwise equal | {summary['outputs_bitwise_equal']} / {summary['outputs_compared']} | |")
    for cls, c in summary["construction"].items():
        if "allocated_mib" in c:
            lines.append(f"| `{cls}`: MiB allocated at construction | {c['allocated_mib'][0]:.1f} | {c['allocated_mib'][1]:.1f} |")
        if "peak_mib" in c:
            lines.append(f"| `{cls}`: peak MiB during construction | {c['peak_mib'][0]:.1f} | {c['peak_mib'][1]:.1f} |")
        if "construction_time_ratio" in c:
            lines.append(f"| `{cls}`: construction time, patched / original | | {c['construction_time_ratio']:.2f}x |")
        lines.append(f"| `{cls}`: FlashInfer wrappers/updaters/backends built | {sum((c['original'].get('flashinfer_objects') or {}).values())} | {c['flashinfer_objects_patched']} |")
    for name, l in summary["latency"].items():
        noise = f"; original run twice: {l['noise_ratio']:.2f}x" if "noise_ratio" in l else ""
        lines.append(f"| forward `{name}`: median ms (patched / original{noise}) | {l['original_ms']:.4f} | {l['patched_ms']:.4f} ({l['ratio']:.2f}x) |")
    g = summary.get("latency_gpu_bound") or {}
    if g:
        ms = g["median_ms"]
        runs = ", ".join(f"{s} {ms[s]:.4f}" for s in SIDES if ms.get(s))
        verdict = (f"{g['ratio']:.3f}x" if g.get("ratio_is_a_result")
                   else f"not a result: the original's two runs differ by {g.get('spread', float('nan')):.1%}, over {SPREAD_LIMIT:.0%}")
        lines.append(f"| GPU-bound `{g['case']}` (CUDA-graph replay, ms; {runs}) | patched / original: {verdict} | |")
    lines.append("")
    lines.append("**verified**" if summary["ok"] else "**not verified**: " + ", ".join(k for k, v in summary["checks"].items() if not v))
    return "\n".join(lines) + "\n"


def run_verify(root: str | None, out_dir: Path, args) -> int:
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    report_path = out_dir / "report.json"
    files = out_dir / "files"
    if not report_path.exists():
        raise UsageError(f"{report_path} not found: run decouple --output {out_dir} first")
    if not files.is_dir():
        raise UsageError(f"{files} not found: the run that wrote {out_dir} produced no patch")
    if not cuda_available():
        raise UsageError("verify needs a CUDA GPU and torch with CUDA; none here")
    original = Path(root) / "sglang" if root and (Path(root) / "sglang" / "__init__.py").exists() else installed_sglang()
    work = out_dir / "verify"
    work.mkdir(parents=True, exist_ok=True)
    overlaid = build_patched_root(original, files, work / "patched_root")
    log(f"verify: original {original}; patched copy at {work / 'patched_root'} with {', '.join(overlaid)}")
    orig_root = original.parent if root else None
    results = {}
    for side in SIDES:
        results[side] = run_side(side, work, work / "patched_root" if side.startswith("patched") else orig_root, args, log)
    summary = compare(results, work)
    meta = {k: results["original"].get(k) for k in ("device", "torch", "sglang_file")}
    meta["patched_sglang_file"] = results["patched"].get("sglang_file")
    data = {"meta": meta, "overlaid": overlaid, **provenance(out_dir, meta), **summary}
    (out_dir / "verify.json").write_text(json.dumps(data, indent=2, default=str) + "\n")
    # report.md again, from report.json, with the measurements folded into Why and How tested
    # (report.write finds this verify.json by the patch's sha256).
    from ..report import write

    write(out_dir, json.loads(report_path.read_text()))
    log(f"verify: {'verified' if summary['ok'] else 'NOT verified'}; see {out_dir / 'verify.json'}")
    return 0 if summary["ok"] else 1


def provenance(out_dir: Path, meta: dict) -> dict:
    """What report.md names of the run: the sha256 of the patch it verified (``patch_sha256``,
    which ``codemod.provenance`` matches against the patch of a report), the GPU, torch and
    FlashInfer (the original side's environment, which the patched side shares)."""
    import hashlib
    from importlib import metadata

    patch = out_dir / "patch.diff"
    version = None
    for dist in ("flashinfer-python", "flashinfer"):
        try:
            version = metadata.version(dist)
            break
        except metadata.PackageNotFoundError:
            continue
    return {"patch_sha256": hashlib.sha256(patch.read_bytes()).hexdigest() if patch.is_file() else None,
            "gpu": meta.get("device"), "torch_version": meta.get("torch"), "flashinfer_version": version}


def add_arguments(p) -> None:
    p.add_argument("root", nargs="?", metavar="ROOT", help="the tree the patch was made from (default: the SGLang installed here)")
    p.add_argument("--output", "-o", metavar="DIR", default="output", help="the directory a previous decouple run wrote (default: output/)")
    p.add_argument("--head-dim", type=int, default=64, help="kit head dim (SM90 kernels take 64 or 128; default 64)")
    p.add_argument("--hidden-size", type=int, default=256)
    p.add_argument("--repeats", type=int, default=20, help="timed forward runs per side, after warm-up (default 20)")
    p.add_argument("--timeout", type=int, default=900, help="seconds allowed per side (default 900)")
