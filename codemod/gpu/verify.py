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
from .record import assemble, emitted_outcome

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


def side_env(import_root: Path | None) -> dict:
    """This environment with the side's sglang first on the path (and this package after it)."""
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parents[2])
    paths = ([str(import_root)] if import_root else []) + [here] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.pop("SGLANG_SRC", None)
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("SGLANG_TEST_MAX_RETRY", "0")  # a failing test on the original side is a result, not a flake
    return env


def run_side(side: str, work: Path, import_root: Path | None, args, log) -> dict:
    env = side_env(import_root)
    cmd = [sys.executable, "-m", "codemod.gpu.worker", "--side", side, "--out", str(work),
           "--head-dim", str(args.head_dim), "--hidden-size", str(args.hidden_size), "--repeats", str(args.repeats)]
    t0 = time.time()
    with open(work / f"worker_{side}.log", "w") as fh:
        try:
            proc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            raise UsageError(f"the {side} run took more than --timeout {args.timeout}s (log: {work / f'worker_{side}.log'})") from None
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
    lines += memory_lines(summary.get("memory") or {}) + emitted_lines(summary.get("emitted_test"))
    if summary.get("patch_sha256"):
        lines.append(f"\nPatch verified: `patch.diff` sha256 `{summary['patch_sha256']}`; FlashInfer {summary.get('flashinfer_version')}, "
                     f"torch {summary.get('torch_version')}, SGLang {summary.get('sglang_version')}, {summary.get('gpu')}.")
    lines.append("")
    lines.append("**verified**" if summary["ok"] else "**not verified**: " + ", ".join(k for k, v in summary["checks"].items() if not v))
    return "\n".join(lines) + "\n"


def _cell(fig: dict, key: str) -> str:
    o, p, d = fig["original"].get(key), fig["patched"].get(key), fig.get(key)
    if o is None or p is None:
        return "not measured"
    return f"{o:.2f} -> {p:.2f} ({-d:+.2f})"


def memory_lines(memory: dict) -> list[str]:
    """MiB, original -> patched (change): the first construction in a process, each later one, one EAGLE process."""
    rows = []
    for cls, table in (memory.get("classes") or {}).items():
        for fig in ([table["first"]] if table.get("first") else []) + list(table.get("later") or []):
            which = "first in the process" if fig["construction"] == 1 else f"construction {fig['construction']}"
            rows.append(f"| `{cls}`, {which} | {_cell(fig, 'gpu_mib')} | {_cell(fig, 'pinned_mib')} |")
    pp = memory.get("per_process") or {}
    for part in pp.get("parts") or []:
        rows.append(f"| per process: {part['role']} (`{part['class']}`) | {_cell(part, 'gpu_mib')} | {_cell(part, 'pinned_mib')} |")
    if "original" in pp:
        rows.append(f"| **per process, {pp.get('config')}** | {_cell(pp, 'gpu_mib')} | {_cell(pp, 'pinned_mib')} |")
    if not rows:
        return []
    return ["", "| memory, MiB: original -> patched (change) | GPU | pinned host |", "|---|---|---|", *rows,
            f"\nPinned host memory read from {memory.get('pinned_method') or 'nowhere (not measured)'}."]


def emitted_lines(emitted: dict | None) -> list[str]:
    if not emitted:
        return []
    def side(s):
        st = emitted[s]
        if st.get("load_error"):
            return "did not load"
        counts = {}
        for v in st["tests"].values():
            counts[v] = counts.get(v, 0) + 1
        return ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    verdict = "as expected" if emitted["as_expected"] else "NOT as expected"
    fails = ", ".join(f"`{n}`" for n in emitted["fails_on_original"]) or "none"
    return [f"\nThe SGLang test (`{Path(emitted['file'] or '?').name}`, {emitted['source']}): original {side('original')}; "
            f"patched {side('patched')}; {verdict} (failing on the original: {fails})."]


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
    for side in SIDES[:args.sides]:
        results[side] = run_side(side, work, work / "patched_root" if side.startswith("patched") else orig_root, args, log)
    summary = compare(results, work)
    # Written now too, so that a run stopped during the emitted test still leaves the kit's results.
    (out_dir / "verify.json").write_text(json.dumps(assemble(results, summary, out_dir / "patch.diff", None, overlaid), indent=2, default=str) + "\n")
    emitted = run_emitted_test(out_dir, work, {"original": orig_root, "patched": work / "patched_root"}, args, log)
    data = assemble(results, summary, out_dir / "patch.diff", emitted, overlaid)
    (out_dir / "verify.json").write_text(json.dumps(data, indent=2, default=str) + "\n")
    # report.md again, from report.json, with the measurements folded into Why and How tested
    # (report.write finds this verify.json by the patch's sha256).
    from ..report import write

    write(out_dir, json.loads(report_path.read_text()))
    log(f"verify: {'verified' if data['ok'] else 'NOT verified'}; see {out_dir / 'verify.json'}")
    return 0 if data["ok"] else 1


def emitted_test_file(out_dir: Path, work: Path) -> tuple[Path, str]:
    """The SGLang test the run wrote with --emit-tests, else the same template rendered here."""
    from ..version import __version__
    from .sglang_test import TEST_PATH, render as render_test

    written = out_dir / "files" / TEST_PATH
    if written.exists():
        return written, "--emit-tests"
    path = work / "emitted" / Path(TEST_PATH).name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_test(__version__)[1])
    return path, "rendered by verify (the run had no --emit-tests)"


def run_emitted_test(out_dir: Path, work: Path, roots: dict, args, log) -> dict:
    """The emitted test on both sides at once (each in its own process; the kernels are compiled by then)."""
    from .sglang_test import CONSTRUCTION_TESTS, KIT_TESTS

    path, source = emitted_test_file(out_dir, work)
    procs, t0 = {}, time.time()
    for side, root in roots.items():
        cmd = [sys.executable, "-m", "codemod.gpu.run_test", str(path), "--out", str(work / f"emitted_{side}.json")]
        with open(work / f"emitted_{side}.log", "w") as fh:
            procs[side] = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=side_env(root))
    runs = {}
    for side, proc in procs.items():
        try:
            proc.wait(timeout=max(1, args.timeout - (time.time() - t0)))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        res = work / f"emitted_{side}.json"
        runs[side] = json.loads(res.read_text()) if res.exists() else {"load_error": f"no result (exit {proc.returncode})"}
        log(f"verify: emitted test, {side}: {runs[side].get('tally') or runs[side].get('load_error')}")
    return emitted_outcome(path, source, runs["original"], runs["patched"], CONSTRUCTION_TESTS, KIT_TESTS)



def add_arguments(p) -> None:
    p.add_argument("root", nargs="?", metavar="ROOT", help="the tree the patch was made from (default: the SGLang installed here)")
    p.add_argument("--output", "-o", metavar="DIR", default="output", help="the directory a previous decouple run wrote (default: output/)")
    p.add_argument("--head-dim", type=int, default=64, help="kit head dim (SM90 kernels take 64 or 128; default 64)")
    p.add_argument("--hidden-size", type=int, default=256)
    p.add_argument("--repeats", type=int, default=20, help="timed forward runs per side, after warm-up (default 20)")
    p.add_argument("--timeout", type=int, default=900, help="seconds allowed per side (default 900)")
    p.add_argument("--sides", type=int, choices=(3, 4), default=4,
                   help="kit runs, alternating: 3 = original, patched, original again (the spread); 4 adds patched again (default 4)")
