#!/usr/bin/env bash
# Session 29, call 1: the multilingual layout on the GPU for the first time — full-size parity
# against the CPU fp32 engine (bf16 and fp16, 30 requests up to 4,096 tokens), the bench against
# the official package (interleaved, two rounds), official parity, serve in four languages.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
R=.gpu/run.sh X=${LAYA_GPU_UNPACK:-/tmp/laya-gpu} ML=/tmp/ck-multilingual
echo "== $(date -u +%H:%M:%S) call 1 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
$R laya-engine synth --layout multilingual --seed 3 $ML --tokenizer "$X/tokenizer-mmbert" 2>&1 | tail -2 | tee -a "$OUT/summary.txt"
LAYA_GPU_PARITY_DIRS=$ML LAYA_GPU_PARITY_REQUESTS=30 LAYA_GPU_PARITY_MAX_TOKENS=4096 \
  timeout 300 $R test_gpu --gtest_filter=*Extra* > "$OUT/parity.log" 2>&1
echo "== $(date -u +%H:%M:%S) multilingual parity rc=$?" | tee -a "$OUT/summary.txt"
grep -E "^\[  (PASSED|FAILED) |parity|worst|requests|nRMS" "$OUT/parity.log" | head -60 | tee -a "$OUT/summary.txt"
LAYA_BENCH_ITERS=60 OUT=$OUT timeout 270 bash .gpu/run_gpu_suite.sh multilingual > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) call 1 end" | tee -a "$OUT/summary.txt"
