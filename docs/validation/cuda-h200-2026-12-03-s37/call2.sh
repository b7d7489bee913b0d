#!/usr/bin/env bash
# Session 37, call 2: GPU tests; the fused GeGLU GEMM's early start only where a CTA runs three
# tiles (item 178) against e6a0ddc's engine (base) in interleaved rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
zcat $OUT/tests.log.gz | grep -E "(Geglu|Gelu).*(OK|FAILED)" | sort | uniq -c | head -20 >> $OUT/summary.txt
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0 early:LAYA_CUDA_GEGLU_START=1" \
LAYA_BENCH_SHAPES=10x128,11x128,3x512,13x128,4x464,5x512,8x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/suite $OUT/ab
log "call 2 end"
