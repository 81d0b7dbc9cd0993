"""verify.json's fields that report.md reads: what was verified, on what, and the memory table.

Standard library only; every function takes the workers' recorded results (plain dicts), so
they are tested on made-up measurements. The field names are a contract with
``report_md`` and are listed in docs/cli.md ("verify.json"):

    patch_sha256, flashinfer_version, torch_version, sglang_version, gpu,
    memory: {first, later: [...], classes: {CLASS: {first, later}}, per_process, pinned_method},
    latency_summary: {case: {original_ms, patched_ms, ratio}}, emitted_test: {...}

Each memory figure is ``{"gpu_mib", "pinned_mib", "original": {...}, "patched": {...}}``: the
top-level ``gpu_mib``/``pinned_mib`` are what the patch saves (original minus patched), the
sides hold ``gpu_mib``, ``pinned_mib``, ``reserved_mib`` and ``peak_mib`` as measured. A
figure that was not measured is None, never 0.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

MiB = 1 << 20
TARGET = "TRTLLMHAAttnBackend"


def _mib(n):
    return None if n is None else round(n / MiB, 2)


def side_figure(build: dict | None) -> dict:
    build = build or {}
    return {"gpu_mib": _mib(build.get("gpu_bytes")), "pinned_mib": _mib(build.get("pinned_bytes")),
            "reserved_mib": _mib(build.get("reserved_bytes")), "peak_mib": _mib(build.get("peak_bytes"))}


def figure(original: dict | None, patched: dict | None, **extra) -> dict:
    o, p = side_figure(original), side_figure(patched)

    def saved(key):
        return None if o[key] is None or p[key] is None else round(o[key] - p[key], 2)

    return {**extra, "gpu_mib": saved("gpu_mib"), "pinned_mib": saved("pinned_mib"), "original": o, "patched": p}


def _builds(results: dict, side: str, cls: str) -> list[dict]:
    return ((results.get(side) or {}).get("construction") or {}).get(cls, {}).get("builds") or []


def class_table(results: dict, cls: str) -> dict:
    """The first construction in a process (it pays for the cached workspaces) and each later one."""
    o, p = _builds(results, "original", cls), _builds(results, "patched", cls)
    if not o and not p:
        return {}
    first = figure(o[0] if o else None, p[0] if p else None, construction=1)
    later = [figure(o[i] if i < len(o) else None, p[i] if i < len(p) else None, construction=i + 1)
             for i in range(1, max(len(o), len(p)))]
    return {"first": first, "later": later}


def per_process(results: dict) -> dict:
    o, p = ((results.get(s) or {}).get("per_process") or {} for s in ("original", "patched"))
    if "gpu_bytes" not in o and "gpu_bytes" not in p:
        return {"error": o.get("error") or p.get("error") or "not measured"}
    parts = []
    for i, part in enumerate(o.get("parts") or p.get("parts") or []):
        po = (o.get("parts") or [])[i] if i < len(o.get("parts") or []) else None
        pp = (p.get("parts") or [])[i] if i < len(p.get("parts") or []) else None
        parts.append(figure(po, pp, role=part["role"], **{"class": part["class"]}))
    return figure(o, p, config=o.get("config") or p.get("config"), parts=parts)


def memory_table(results: dict) -> dict:
    classes = {}
    for side in ("original", "patched"):
        for cls in ((results.get(side) or {}).get("construction") or {}):
            classes.setdefault(cls, class_table(results, cls))
    target = classes.get(TARGET) or {}
    return {"first": target.get("first"), "later": target.get("later") or [], "classes": classes,
            "per_process": per_process(results),
            "pinned_method": (results.get("original") or {}).get("pinned_method")}


def latency_summary(summary: dict) -> dict:
    """Per case, the two sides' medians and their ratio; the GPU-bound case with the original's own spread."""
    out = {name: {"original_ms": v["original_ms"], "patched_ms": v["patched_ms"], "ratio": round(v["ratio"], 4),
                  **({"noise_ratio": round(v["noise_ratio"], 4)} if "noise_ratio" in v else {})}
           for name, v in (summary.get("latency") or {}).items()}
    g = summary.get("latency_gpu_bound") or {}
    if g:
        out[g["case"]] = {"original_ms": g["median_ms"].get("original"), "patched_ms": g["median_ms"].get("patched"),
                          "ratio": round(g["ratio"], 4), "spread": g.get("spread"), "ratio_is_a_result": g.get("ratio_is_a_result")}
    return out


def emitted_outcome(path: Path | None, source: str, original: dict | None, patched: dict | None, construction_tests, kit_tests) -> dict:
    """The emitted test on both sides; ``as_expected``: the construction tests fail on the original and
    everything passes on the patched, the kit tests passing on both."""
    def statuses(run):
        return {name: t["status"] for name, t in ((run or {}).get("tests") or {}).items()}

    so, sp = statuses(original), statuses(patched)
    out = {"file": str(path) if path else None, "source": source,
           "sha256": hashlib.sha256(path.read_bytes()).hexdigest() if path and path.exists() else None}
    for side, run, st in (("original", original, so), ("patched", patched, sp)):
        out[side] = {"tests": st, "load_error": (run or {}).get("load_error"),
                     "failures": {n: t.get("message") for n, t in ((run or {}).get("tests") or {}).items() if t["status"] in ("failed", "error")}}
    out["fails_on_original"] = sorted(n for n in construction_tests if so.get(n) in ("failed", "error"))
    out["as_expected"] = (bool(sp) and all(sp.get(n) == "passed" for n in (*construction_tests, *kit_tests))
                          and bool(out["fails_on_original"]) and all(so.get(n) == "passed" for n in kit_tests))
    return out


def sha256_of(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def assemble(results: dict, summary: dict, patch: Path, emitted: dict | None, overlaid: list[str]) -> dict:
    """verify.json: the fields above, then the comparison's own (cases, tally, construction, ...)."""
    o = results.get("original") or {}
    meta = {k: o.get(k) for k in ("device", "torch", "sglang_file")}
    meta["patched_sglang_file"] = (results.get("patched") or {}).get("sglang_file")
    checks = dict(summary.get("checks") or {})
    if emitted is not None:
        checks["emitted_test"] = emitted["as_expected"]
    data = {
        "schema": 2,
        "patch_sha256": sha256_of(patch), "patch": str(patch),
        "flashinfer_version": o.get("flashinfer"), "torch_version": o.get("torch"), "sglang_version": o.get("sglang"),
        "gpu": o.get("device"),
        "memory": memory_table(results),
        "latency_summary": latency_summary(summary),
        "emitted_test": emitted,
        "meta": meta, "overlaid": overlaid, **summary,
    }
    data["checks"] = checks
    data["ok"] = bool(summary.get("ok")) and all(checks.values())
    return data


def summary(data: dict) -> str:
    """The few lines gpu_verify.sh prints: the verdict, the cases, memory per process, the emitted test."""
    t, m, e = data.get("tally") or {}, data.get("memory") or {}, data.get("emitted_test") or {}
    pp, first = m.get("per_process") or {}, m.get("first") or {}

    def mib(fig, key):
        return "?" if not fig or fig.get(key) is None else f"{fig[key]:.2f}"

    lines = [(f"verify: {'verified' if data.get('ok') else 'NOT verified'}; patch sha256 {str(data.get('patch_sha256'))[:16]}; "
              f"{data.get('gpu')}, torch {data.get('torch_version')}, FlashInfer {data.get('flashinfer_version')}"),
             (f"kit: original {t.get('original')}, patched {t.get('patched')}; "
              f"{data.get('outputs_bitwise_equal')}/{data.get('outputs_compared')} outputs bitwise equal"),
             (f"memory saved: first TRTLLMHAAttnBackend {mib(first, 'gpu_mib')} MiB GPU + {mib(first, 'pinned_mib')} MiB pinned; later "
              + (", ".join(f"{mib(f, 'gpu_mib')}+{mib(f, 'pinned_mib')}" for f in m.get("later") or []) or "?")
              + f"; per EAGLE process {mib(pp, 'gpu_mib')} MiB GPU + {mib(pp, 'pinned_mib')} MiB pinned"),
             "latency patched/original: " + (", ".join(f"{k} {v['ratio']:.3f}x" for k, v in (data.get("latency_summary") or {}).items()) or "?"),
             (f"emitted test: {'as expected' if e.get('as_expected') else 'NOT as expected'}; failing on the original: "
              f"{', '.join(e.get('fails_on_original') or []) or 'none'}; patched: "
              f"{', '.join(sorted(set((e.get('patched') or {}).get('tests', {}).values()))) or 'no result'}") if e
             else "emitted test: not run"]
    failed = [k for k, v in (data.get("checks") or {}).items() if not v]
    if failed:
        lines.append("failed checks: " + ", ".join(failed))
    return "\n".join(lines)
