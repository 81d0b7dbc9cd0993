#!/usr/bin/env bash
# Build everything the GPU call carries, from a clean clone (needs PyPI here, not there):
#   .gpu-bundle/  FlashInfer, SGLang and their import-time dependencies (the shared bundle maker)
#   .whl/         this tool's own dependencies as Python 3.12 wheels for the GPU machine
#                 (libcst, pyflakes, platformdirs, black (pure Python) and its click, mypy_extensions
#                 and pathspec) and datasets and multiprocess, which the
#                 kit's speculative draft runner imports through sglang.benchmark
# Then, on the GPU machine (carry .gpu-bundle and .whl): bash benchmarks/gpu_verify.sh
#
#   BUNDLE_MAKER=path/to/make-bundle  where the bundle maker is (default ../shared/gpu/make-bundle)
#   SGLANG_VERSION=0.5.23             the SGLang release to bundle
set -euo pipefail
cd "$(dirname "$0")/.."
maker="${BUNDLE_MAKER:-../shared/gpu/make-bundle}"
version="${SGLANG_VERSION:-0.5.23}"
if [ ! -x "$maker" ]; then
  echo "gpu_prepare: no bundle maker at $maker (set BUNDLE_MAKER)" >&2
  exit 2
fi
"$maker" --sglang "$version" --out .gpu-bundle --dl-cache "${XDG_CACHE_HOME:-$HOME/.cache}/gpu-bundle-downloads"
rm -rf .whl.tmp && mkdir -p .whl.tmp
# Pure-Python wheels where there are; libcst has compiled ones per Python version and platform.
python3 -m pip download -q --no-deps --only-binary :all: --python-version 3.12 --implementation cp \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
  -d .whl.tmp libcst pyflakes platformdirs click mypy_extensions pathspec datasets multiprocess
# black's pure-Python wheel: a fifth of the compiled one's size (the call carries at most 64 MiB), and as fast
# for the few lines a patch formats.
python3 -m pip download -q --no-deps --only-binary :all: --python-version 3.12 --implementation py --platform any \
  -d .whl.tmp "black==24.10.0"
rm -rf .whl && mv .whl.tmp .whl
du -sh .gpu-bundle .whl | sed 's/^/gpu_prepare: /'
# What a device call sends: the working tree (tracked and untracked-not-ignored files) plus the carried folders.
tree=$(git ls-files -co --exclude-standard -z | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
carried=$(du -sb .gpu-bundle .whl | awk '{s += $1} END {print s}')
echo "gpu_prepare: working tree $(( tree / 1024 )) KiB + carried $(( carried / 1024 )) KiB = $(( (tree + carried) / 1024 )) KiB (a device call takes at most $(( 64 * 1024 )))"
if [ $(( tree + carried )) -gt $(( 64 * 1048576 )) ]; then
  echo "gpu_prepare: over the device call's 64 MiB; the working tree's largest tracked files are benchmarks/results/real-world-stress/" >&2
  exit 1
fi
