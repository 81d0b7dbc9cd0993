#!/usr/bin/env bash
# The MLA draft factory hook (issue 39) on the lent H200, in one call (about 3-4 minutes fresh):
#   bash benchmarks/gpu_prepare.sh here first, then carry .gpu-bundle and .whl and run
#   bash benchmarks/gpu_hook_verify.sh
# 1. copies the SGLang the bundle installs and runs
#    `decouple COPY --class TRTLLMMLAMultiStepDraftBackend --hook --write` on it (the patch: 3 files);
# 2. one process per side (the bundle's SGLang, then the copy through SGLANG_SRC):
#    benchmarks/gpu_hook_verify.py builds FlashInferMLAMultiStepDraftBackend (the parent, unchanged
#    by the hook) and TRTLLMMLAMultiStepDraftBackend 3 times each, recording GPU and pinned memory,
#    time and the objects each ends with, then runs the attention kit's MLA cases for flashinfer_mla
#    (trtllm_mla needs SM100: not run on SM90, and said so);
# 3. compares the sides, writes hook_verify.json, original.json, patched.json and details.tar.gz
#    (the patch, the hook's report, each side's log) to $OUT (or ./output/gpu-hook) and prints a
#    short summary last.
# HOOK_SIDE_TIMEOUT (default 120 s) bounds each side, so the call stays under 5 minutes;
# HOOK_MLA_DIMS (default 512x64) is the kit's kv_lora_rank x qk_rope_head_dim.
set -uo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
PP0="${PYTHONPATH:-}"
source .gpu-bundle/activate.sh || exit 1
python3 -m pip install -q --no-index --no-deps --target /tmp/decouple-site .whl/*.whl || exit 1
DEST="${OUT:-output/gpu-hook}"; mkdir -p "$DEST"
export DECOUPLE_CACHE_DIR=/tmp/decouple-cache PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
P=/tmp/hook-sglang; rm -rf "$P"; mkdir -p "$P"
cp -r "$GPU_SITE/sglang" "$P/" && find "$P" -name __pycache__ -prune -exec rm -rf {} +
D=/tmp/hook-details; rm -rf "$D"; mkdir -p "$D"
PYTHONPATH=/tmp/decouple-site:$PWD:$PYTHONPATH python3 -m codemod "$P" --class TRTLLMMLAMultiStepDraftBackend --hook --output "$D/patch" \
  > "$D/hook.log" 2>&1 \
  && PYTHONPATH=/tmp/decouple-site:$PWD:$PYTHONPATH python3 -m codemod "$P" --class TRTLLMMLAMultiStepDraftBackend --hook --write --force \
  >> "$D/hook.log" 2>&1
hook_rc=$?
echo "hook: rc=$hook_rc, $(grep -c '^+++ ' "$D/patch/patch.diff" 2>/dev/null || echo 0) files ($(( $(date +%s) - t0 ))s)"
side() {  # side NAME [SGLANG_SRC]
  ( export PYTHONPATH="$PP0"; [ -n "${2:-}" ] && export SGLANG_SRC="$2"; source .gpu-bundle/activate.sh >/dev/null 2>&1
    timeout "${HOOK_SIDE_TIMEOUT:-120}" python3 benchmarks/gpu_hook_verify.py side --side "$1" --json "$DEST/$1.json" ) \
    > "$D/$1.log" 2>&1
  echo "side $1: rc=$? ($(( $(date +%s) - t0 ))s)"
}
side original
[ "$hook_rc" -eq 0 ] && side patched "$P"
# A device call brings back few files: the three JSONs as they are, the patch and the logs in details.tar.gz.
tar -czf "$DEST/details.tar.gz" -C "$D" . 2>/dev/null
echo "---- summary ($(( $(date +%s) - t0 ))s)"
python3 benchmarks/gpu_hook_verify.py compare "$DEST/original.json" "$DEST/patched.json" --json "$DEST/hook_verify.json"
rc=$?
[ "$hook_rc" -ne 0 ] && { echo "hook failed: $(tail -2 "$D/hook.log")"; rc=2; }
echo "gpu_hook_verify rc=$rc"
exit $rc
