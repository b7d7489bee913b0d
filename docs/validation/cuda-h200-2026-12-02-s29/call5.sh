#!/usr/bin/env bash
# Session 29, call 5: the typed-decisions checkpoint benched against the official package (rows up
# to 1,024 tokens, 16x1024 = the engine's 16,384-token capacity), its official parity and serve; the
# HTTP benchmark (small request and mixed traffic, serve's defaults) on the multilingual checkpoint.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 5 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
LAYA_HTTP_LAYOUT=multilingual LAYA_BENCH_ITERS=40 OUT=$OUT timeout 520 bash .gpu/run_gpu_suite.sh typed,http > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) call 5 end rc=$?" | tee -a "$OUT/summary.txt"
