#!/bin/bash
# Re-run, without the libraries' test suites, every candidate that the campaigns of issue 37 judged,
# and compare: each stress patch with the patches the suites judged (by digest), and every decision,
# rule, reason and digest with the latest stored re-run. About 10 minutes on 2 cores (sqlglot is most).
#
#   bash benchmarks/recheck_campaign.sh OUTDIR [WORK]
#
# Runs this checkout's codemod/. OUTDIR: a fresh folder for the results (never inside the repo);
# WORK: real_world.py's --work (sdists, tool snapshots; default /tmp/real-world), reused between runs.
# The nine libraries of issue 37 run every candidate; sqlglot, boltons and arrow the same --limit 30
# spread their judged run used. With --no-tests nothing runs a library's own Python, so the test
# dependencies are not installed (SKIP_VENV=0 installs them, as a judged run needs).
# NINE="..." / UNSEEN="..." pick other libraries. OUTDIR/compare.txt holds the comparisons.
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:?outdir}; WORK=${2:-/tmp/real-world}
NINE=${NINE-"httpx anyio starlette tomlkit cattrs cachetools flask structlog platformdirs"}
UNSEEN=${UNSEEN-"sqlglot boltons arrow"}
R="$REPO/benchmarks/results/real-world-new"
LATEST=${LATEST:-$R/final-ed03aa1}   # the latest stored re-run, all twelve libraries
mkdir -p "$OUT/stress-no-tests" "$OUT/default-no-tests" "$WORK"
LOG="$OUT/run.log"
echo "commit $(git -C "$REPO" rev-parse --short HEAD)  $(date)" > "$LOG"
if [ "${SKIP_VENV:-1}" = 1 ]; then
  for l in $NINE $UNSEEN; do mkdir -p "$WORK/$l/venv" && touch "$WORK/$l/venv/.rw-ok"; done
fi
cd "$REPO"
RW() { nice -n 19 python3 benchmarks/real_world.py --work "$WORK" "$@" >> "$LOG" 2>&1; }
for l in $NINE; do
  RW "$l" --stress --no-tests --out "$OUT/stress-no-tests"
  RW "$l" --no-tests --out "$OUT/default-no-tests"
done
for l in $UNSEEN; do
  RW "$l" --stress --no-tests --limit 30 --out "$OUT/stress-no-tests"
  RW "$l" --no-tests --limit 30 --out "$OUT/default-no-tests"
done
J="$OUT/judged"   # the judged stress patches; compare_digests reads them in order, a later folder's patch replacing an earlier one's
rm -rf "$J"; mkdir -p "$J/1-stress" "$J/2-stress-dc115" "$J/3-stress-dc115-judged-changed" "$J/4-unseen-stress"
cp "$R"/stress/*.json "$J/1-stress/"
cp "$R"/stress-dc115/*.json "$J/2-stress-dc115/"
cp "$R"/stress-dc115-judged-changed/*.json "$J/3-stress-dc115-judged-changed/"
cp "$R"/unseen-2026-12-04/stress/*.json "$J/4-unseen-stress/"
{
echo "== stress patches against the judged ones, by digest"
python3 benchmarks/compare_digests.py "$OUT/stress-no-tests" --old "$J"
for mode in stress default; do
  echo; echo "== $mode: summary, and every difference from $LATEST/$mode-no-tests"
  python3 benchmarks/compare_runs.py "$OUT/$mode-no-tests" "$LATEST/$mode-no-tests"
done
} > "$OUT/compare.txt" 2>&1
cat "$OUT/compare.txt"
