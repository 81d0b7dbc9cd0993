#!/usr/bin/env bash
# GPU verification on the lent H200 (or any CUDA machine with the bundle), in one call:
#   bash benchmarks/gpu_prepare.sh here first (it builds .gpu-bundle and .whl), then carry
#   .gpu-bundle and .whl (libcst, pyflakes, platformdirs for Python 3.12; datasets and
#   multiprocess, which the kit's speculative draft runner imports through sglang.benchmark), then
#   bash benchmarks/gpu_verify.sh
# (DECOUPLE_GPU_ARGS="--keep proven" bash benchmarks/gpu_verify.sh: the patch made with those options)
# It decouples the SGLang the bundle installs, runs `decouple verify` through tests/gpu,
# and copies verify.json, report.md and the per-side results/logs to $OUT (or ./output/gpu).
set -uo pipefail
cd "$(dirname "$0")/.."
source .gpu-bundle/activate.sh
python3 -m pip install -q --no-index --no-deps --target /tmp/decouple-site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/decouple-site:$PWD:${PYTHONPATH:-}
# Without black the patch made here would not be formatted like the one made on the CPU (DC610).
python3 -c "import black, libcst, pyflakes" || { echo "gpu_verify: .whl lacks a dependency; run benchmarks/gpu_prepare.sh" >&2; exit 1; }
export DECOUPLE_GPU_REPEATS=${DECOUPLE_GPU_REPEATS:-100} DECOUPLE_GPU_OUT=/tmp/decouple-gpu DECOUPLE_CACHE_DIR=/tmp/decouple-cache PYTHONUNBUFFERED=1
rm -rf "$DECOUPLE_GPU_OUT"; mkdir -p "$DECOUPLE_GPU_OUT"
DEST="${OUT:-output/gpu}"; mkdir -p "$DEST"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
timeout "${GPU_VERIFY_TIMEOUT:-570}" python3 -m pytest tests/gpu -m gpu -q -s -p no:cacheprovider 2>&1 | tee "$DEST/pytest.log" | grep -v Warning | tail -40
rc=${PIPESTATUS[0]}
cp "$DECOUPLE_GPU_OUT"/verify.json "$DECOUPLE_GPU_OUT"/report.md "$DEST"/ 2>/dev/null
for s in original patched original_again patched_again; do
  cp "$DECOUPLE_GPU_OUT"/verify/result_$s.json "$DEST"/ 2>/dev/null
done
tail -c 20000 "$DECOUPLE_GPU_OUT"/verify/worker_patched.log > "$DEST/worker_patched.log" 2>/dev/null
tail -c 20000 "$DECOUPLE_GPU_OUT"/verify/worker_original.log > "$DEST/worker_original.log" 2>/dev/null
echo "gpu_verify rc=$rc"
exit $rc
