"""Which GPU verification belongs to a patch: ``verify.json`` records the sha256 of the
``patch.diff`` it verified (``patch_sha256``), with ``gpu``, ``torch_version`` and
``flashinfer_version``; report.md shows a verification only for the patch it was made of.

Looked for in the output folder (``decouple verify --output DIR`` writes ``DIR/verify.json``)
and, in a checkout of decouple, among the stored results (``benchmarks/results/*.json``), whose
other runs of the same GPU-bound case give the latency's spread between runs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _load(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def patch_hash(verify: dict) -> str | None:
    return verify.get("patch_sha256") or (verify.get("meta") or {}).get("patch_sha256")


def matching_verify(out_dir: Path, digest: str | None, results: Path = RESULTS) -> tuple[dict | None, list[float]]:
    """The verification of the patch whose sha256 is ``digest`` (None if there is none), and the
    GPU-bound latency ratios of the other stored runs (oldest first, by file name)."""
    candidates = [out_dir / "verify.json"] + (sorted(results.glob("*.json")) if results.is_dir() else [])
    found, others = None, []
    for path in candidates:
        data = _load(path) if path.is_file() else None
        if data is None:
            continue
        if found is None and digest is not None and patch_hash(data) == digest:
            found = dict(data, source=path.name)
            continue
        ratio = (data.get("latency_gpu_bound") or {}).get("ratio")
        if path.parent == results and isinstance(ratio, (int, float)):
            others.append(float(ratio))
    mine = (found or {}).get("latency_gpu_bound", {}).get("ratio")
    return found, [r for r in others if r != mine]  # a stored copy of the same run is not another run
