#!/usr/bin/env bash
# Session 40, call 4: the partial counts one above the defaults (attention output 3, MLP output 4)
# against the defaults (2, 3), the same bundle and default path as call 3.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 4 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_CUDA_ATTN_OUT_FUSED=0 attn3:LAYA_CUDA_ATTN_OUT_FUSED=0,LAYA_CUDA_ATTN_OUT_SPLITS=3 mlp4:LAYA_CUDA_ATTN_OUT_FUSED=0,LAYA_CUDA_SMALL_MLP_OUT_SPLITS=4" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/ab
log "call 4 end"
