#!/usr/bin/env bash
# Session 44, call 7: the act head GEMM rule (item 222) at the row counts it acts on, more rounds —
# against 19eb113 and against the same build with LAYA_CUDA_ACT_GEMM_FROM=0, in alternating order.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 7 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="new:LAYA_X=0 off:LAYA_CUDA_ACT_GEMM_FROM=0 base:LAYA_BENCH_BIN=laya-engine-base" \
LAYA_BENCH_SHAPES=32x48,64x48,64x16 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 400 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
rm -rf $OUT/ab
log "call 7 end"
