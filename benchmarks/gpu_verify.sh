#!/usr/bin/env bash
# GPU verification on the lent H200 (or any CUDA machine with the bundle), in one call:
#   bash benchmarks/gpu_prepare.sh here first (it builds .gpu-bundle and .whl), then carry
#   .gpu-bundle and .whl (libcst, pyflakes, platformdirs for Python 3.12; datasets and
#   multiprocess, which the kit's speculative draft runner imports through sglang.benchmark), then
#   bash benchmarks/gpu_verify.sh
# (DECOUPLE_GPU_ARGS="--keep proven --no-markers" bash benchmarks/gpu_verify.sh: the patch made with those
# options; --no-markers gives the patch decouple --sglang writes, whose sha256 report.md then matches)
# It decouples the SGLang the bundle installs (with --emit-tests: the patch carries SGLang's CUDA
# test), runs `decouple verify` through tests/gpu (3 kit runs: original, patched, original again;
# then the emitted test on both sides at once), writes verify.json, report.md, pytest.log and
# details.tar.gz (patch, emitted test, per-side results and logs) to $OUT (or ./output/gpu) and
# prints a summary.
# About 6-7 minutes on a fresh H200; GPU_VERIFY_TIMEOUT (default 450 s) bounds the pytest run so
# that the whole call stays under 8 minutes (DECOUPLE_GPU_SIDES=4 adds a second patched run).
set -uo pipefail
cd "$(dirname "$0")/.."
source .gpu-bundle/activate.sh
python3 -m pip install -q --no-index --no-deps --target /tmp/decouple-site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/decouple-site:$PWD:${PYTHONPATH:-}
# Without black the patch made here would not be formatted like the one made on the CPU (DC610).
python3 -c "import black, libcst, pyflakes" || { echo "gpu_verify: .whl lacks a dependency; run benchmarks/gpu_prepare.sh" >&2; exit 1; }
export DECOUPLE_GPU_REPEATS=${DECOUPLE_GPU_REPEATS:-50} DECOUPLE_GPU_SIDES=${DECOUPLE_GPU_SIDES:-3} DECOUPLE_GPU_SIDE_TIMEOUT=${DECOUPLE_GPU_SIDE_TIMEOUT:-300}
export DECOUPLE_GPU_OUT=/tmp/decouple-gpu DECOUPLE_CACHE_DIR=/tmp/decouple-cache PYTHONUNBUFFERED=1 SGLANG_TEST_MAX_RETRY=0
rm -rf "$DECOUPLE_GPU_OUT"; mkdir -p "$DECOUPLE_GPU_OUT"
DEST="${OUT:-output/gpu}"; mkdir -p "$DEST"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
t0=$(date +%s)
timeout "${GPU_VERIFY_TIMEOUT:-450}" python3 -m pytest tests/gpu -m gpu -q -s -p no:cacheprovider 2>&1 | tee "$DEST/pytest.log" | grep -v Warning | tail -25
rc=${PIPESTATUS[0]}
# A device call brings back at most 8 files from $OUT: verify.json, report.md and pytest.log as they
# are, everything else (patch, emitted test, per-side results and logs) in details.tar.gz.
V="$DECOUPLE_GPU_OUT"/verify
cp "$DECOUPLE_GPU_OUT"/verify.json "$DECOUPLE_GPU_OUT"/report.md "$DEST"/ 2>/dev/null
D=/tmp/decouple-gpu-details; rm -rf "$D"; mkdir -p "$D"
cp "$DECOUPLE_GPU_OUT"/patch.diff "$DECOUPLE_GPU_OUT"/report.json "$D"/ 2>/dev/null
cp "$DECOUPLE_GPU_OUT"/files/test/registered/attention/unittest/dense/test_trtllm_mha_decoupled.py "$D"/ 2>/dev/null
for f in "$V"/result_*.json "$V"/emitted_*.json; do [ -f "$f" ] && cp "$f" "$D"/; done
for f in "$V"/worker_*.log "$V"/emitted_*.log; do [ -f "$f" ] && tail -c 200000 "$f" > "$D/$(basename "$f")"; done
tar -czf "$DEST/details.tar.gz" -C "$D" . 2>/dev/null
echo "---- summary ($(( $(date +%s) - t0 ))s for decouple + verify)"
if [ -f "$DEST/verify.json" ]; then
  python3 -c 'import json,sys; from codemod.gpu.record import summary; print(summary(json.load(open(sys.argv[1]))))' "$DEST/verify.json"
else
  echo "gpu_verify: no verify.json (see $DEST/pytest.log and the worker logs)"
  [ "$rc" -eq 0 ] && rc=3  # the tests skipped (no CUDA, no SGLang): nothing was verified
fi
echo "gpu_verify rc=$rc"
exit $rc
