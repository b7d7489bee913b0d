#!/usr/bin/env bash
# Session 40, call 3: call 2 priced each partial the add+LN sums at ≈ 0.35 µs; the small buckets'
# partial counts (attention output 2, MLP output 3: items 74, 132, sessions 14 and 25) re-checked
# on today's engine (c413521's, the bundle's with its default path): one fewer partial for each GEMM.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 3 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_CUDA_ATTN_OUT_FUSED=0 mlp2:LAYA_CUDA_ATTN_OUT_FUSED=0,LAYA_CUDA_SMALL_MLP_OUT_SPLITS=2 attn1:LAYA_CUDA_ATTN_OUT_FUSED=0,LAYA_CUDA_ATTN_OUT_SPLITS=1" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/ab
log "call 3 end"
