#!/usr/bin/env bash
# Session 35, call 7 (little device time left: no tests; call 5 ran them on the same code): where the fused GeGLU GEMM starts
# now that it is faster (item 168): from 1,280 tokens (default) against from 896 tokens with the
# rounds rule (so 1,152-token buckets fuse; 896 and 1,024 make a full round and one of 24 %: not)
# and from 896 without it (every bucket from 896 fused), env switches of one build.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 7 start, bundled from $(bundle_commit)"
LAYA_VARIANTS="from1280:LAYA_X=0 from896_rule:LAYA_CUDA_GEGLU_GEMM_FROM=896 from896_all:LAYA_CUDA_GEGLU_GEMM_FROM=896,LAYA_CUDA_GEGLU_GEMM_MIN_FILL=0" \
LAYA_BENCH_SHAPES=8x128,2x512,9x128,3x384,10x128 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/ab
log "call 7 end"
