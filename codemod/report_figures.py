"""The figures report.md shows: the memory a patch saves (Why), from the saving model
(``saving.configuration``) and, when a ``verify.json`` of this patch exists, from the GPU; and
the attention kit's table (How tested), with what it covers and the patch it ran.
"""

from __future__ import annotations

from pathlib import Path

from . import provenance
from .console import counted
from .dropped_work import size_text


def memory_table(memory: dict, verify: dict | None) -> list[str]:
    """The saving of one process of the configuration (``saving.configuration``): a row per
    construction, with the call that makes it and what it no longer builds, then the total; what
    is assumed, known from outside the tree or not sized, in a line; the GPU's figures, when a
    ``verify.json`` of this patch has them."""
    out = [f"| memory no longer allocated ({memory['name']}) | made at | GPU | pinned host | no longer built |",
           "|---|---|---|---|---|"]
    hows: list[str] = []
    for r in memory["constructions"]:
        given = ", ".join(f"{k}={v}" for k, v in r["given"].items())
        groups: dict[str, list[str]] = {}
        for i in r["items"]:
            groups.setdefault(i["in"], []).append(_item(i))
            if i["scope"] == "instance" and i["how"] not in hows:
                hows.append(i["how"])
        built = "; ".join((f"in the {where}: " if where else "") + ", ".join(items) for where, items in groups.items())
        out.append(f"| {r['role']}: `{r['class']}`{f' ({given})' if given else ''} | `{file_line(r['site'])}` | "
                   f"{size_text(r['gpu_bytes'])} | {size_text(r['pinned_bytes'])} | {built or 'nothing sized'} |")
    out.append(f"| **one process** | | **{size_text(memory['gpu_bytes'])}** | **{size_text(memory['pinned_bytes'])}** | |")
    notes = ["Read from the source: a buffer cached by name is allocated once in a process, so only the "
             "first construction saves it"]
    notes += [f"{h[0].upper()}{h[1:]}" for h in hows]
    notes += [f"Assumed: {a}" for a in memory.get("assumptions", [])]
    if memory.get("not_sized"):
        notes.append(f"Not counted: {counted(len(memory['not_sized']), 'allocation')} whose size is read at run time")
    return out + ["", ". ".join(notes + _first_later(verify)) + ".", ""]


def _item(i: dict) -> str:
    if i["scope"] == "process":
        return f"`{i['what']}` ({size_text(i['gpu_bytes'] + i['pinned_bytes'])}, once per process: `{file_line(i['at'])}`)"
    return f"{i['count']} `{i['what']}`"


def file_line(place: str) -> str:
    return place.rsplit("/", 1)[-1]


def _first_later(verify: dict | None) -> list[str]:
    """From ``verify.json``: GPU memory saved by the first construction of a process and by each
    later one (``allocated_bytes_all`` of each side: the constructions in order)."""
    bits = []
    for cls, c in ((verify or {}).get("construction") or {}).items():
        o, p = (c.get("original") or {}).get("allocated_bytes_all"), (c.get("patched") or {}).get("allocated_bytes_all")
        if not o or not p or len(o) != len(p):
            continue
        saved = [(x - y) / (1 << 20) for x, y in zip(o, p)]
        later = sorted({f"{v:.2f}" for v in saved[1:]})
        bits.append(f"`{cls}` {saved[0]:.1f} MiB at the first construction"
                    + (f", {' and '.join(later)} MiB at each later one" if later else ""))
    process = ((verify or {}).get("memory") or {}).get("per_process") or {}
    head = ""
    if process.get("gpu_mib") is not None:
        pinned = process.get("pinned_mib")
        head = (f"one process ({process.get('config', 'as SGLang builds it')}) {process['gpu_mib']:.1f} MiB of GPU memory"
                + (f" and {pinned:.1f} MiB of pinned host memory" if pinned is not None else " (pinned host memory not measured)")
                + "; ")
    if not bits and not head:
        return []
    return [f"Measured on {_gpu(verify)} (`torch.cuda.memory_allocated`, `torch.cuda.host_memory_stats`), saved: "
            + head + "; ".join(bits)]


def _gpu(verify: dict) -> str:
    return verify.get("gpu") or (verify.get("meta") or {}).get("device") or "a GPU"


def measured_per_class(verify: dict | None) -> list[str]:
    if not verify:
        return [""]
    meta = verify.get("meta", {})
    out = ["", f"Measured on {meta.get('device', 'a GPU')} (torch {meta.get('torch', '?')}), each side in a fresh process:\n"]
    for cls, c in (verify.get("construction") or {}).items():
        bits = []
        if "allocated_mib" in c:
            o, p = c["allocated_mib"]
            bits.append(f"{o - p:.1f} MiB less GPU memory at construction ({o:.1f} MiB to {p:.1f} MiB)")
        if "construction_time_ratio" in c:
            bits.append(f"construction in {c['construction_time_ratio']:.2f}x the time")
        if c.get("original", {}).get("flashinfer_objects") is not None:
            bits.append(f"{sum(c['original']['flashinfer_objects'].values())} parent-only objects built before, "
                        f"{c.get('flashinfer_objects_patched', 0)} after")
        if bits:
            out.append(f"- `{cls}`: " + "; ".join(bits) + ".")
    out.append("")
    return out


# Within this of 1x, a latency ratio is noise: the runs of one patch land this far apart anyway
# (codemod/gpu/verify.py's bound on the original's own spread).
_NOISE = 0.05


def _emitted_row(e: dict) -> list[str]:
    """The test --emit-tests wrote, run on both sides: what failed on the original (its checks of
    what the parent built) and what passed on the patched sources."""
    sides = {k: (e.get(k) or {}).get("tests") or {} for k in ("original", "patched")}
    if not all(sides.values()):
        return []

    def tally(tests: dict) -> str:
        bad = sum(1 for v in tests.values() if v != "passed")
        return f"{len(tests) - bad} passed, {bad} failed"
    return [f"| the test this patch adds (`{Path(e.get('file', 'test')).name}`) | {tally(sides['original'])} "
            f"| {tally(sides['patched'])} |"]


def gpu_table(verify: dict) -> list[str]:
    """The attention kit on both sides: the cases, the outputs, the GPU-bound latency; the GPU,
    what it covers and the patch it ran (``verify.json`` of this patch: ``provenance``)."""
    t = verify.get("tally", {})
    o, p = t.get("original", {}), t.get("patched", {})
    out = ["- On the GPU: SGLang's attention kit, both sides, each in a fresh process; run on {gpu}{versions}: SM90 only, so the "
           "kernels of other GPUs (SM100's TRT-LLM GenMHA, SM120) were not run; the patch it ran has this `patch.diff`'s "
           "sha256{digest}.", "", "| SGLang's attention kit (`sglang/test/kits/attention_unittest`) | original | patched |", "|---|---|---|",
           f"| cases passed, failed | {o.get('passed', 0)}, {o.get('failed', 0)} | {p.get('passed', 0)}, {p.get('failed', 0)} |",
           f"| outputs bitwise equal to the original's | | {verify.get('outputs_bitwise_equal', 0)} of {verify.get('outputs_compared', 0)} |"]
    out += _emitted_row(verify.get("emitted_test") or {})
    g = verify.get("latency_gpu_bound") or {}
    ms = g.get("median_ms") or {}
    if g.get("ratio") and ms.get("original") and ms.get("patched"):
        others = verify.get("other_latency_ratios", [])
        noise = all(abs(r - 1) <= _NOISE for r in [g["ratio"], *others])
        said = f"{g['ratio']:.3f}x the original's" + (f", {min(others):.3f}x to {max(others):.3f}x in "
                                                      f"{counted(len(others), 'other stored run')}" if others else "")
        out.append(f"| decode, GPU-bound CUDA-graph replay, median ms | {ms['original']:.4f} | {ms['patched']:.4f}: "
                   f"{'within noise, ' if noise else ''}{said} |")
    meta = verify.get("meta") or {}
    versions = ", ".join(f"{name} {v}" for name, v in (("torch", verify.get("torch_version") or meta.get("torch")),
                                                         ("FlashInfer", verify.get("flashinfer_version"))) if v)
    digest = provenance.patch_hash(verify)  # this patch's: report.write shows no other verification
    out[0] = out[0].format(gpu=_gpu(verify), versions=f" ({versions})" if versions else "",
                           digest=f" (`{digest[:12]}`)" if digest else "")
    return out
