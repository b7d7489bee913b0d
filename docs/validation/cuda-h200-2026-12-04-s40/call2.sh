#!/usr/bin/env bash
# Session 40, call 2: what the fused kernel's four partials cost by themselves — the unfused path
# with the attention output GEMM in 4 partials (LAYA_CUDA_ATTN_OUT_SPLITS=4, summed by the add+LN
# as the fused kernel's are) against its default 2, and the fused kernel, interleaved.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="unfused:LAYA_CUDA_ATTN_OUT_FUSED=0 parts4:LAYA_CUDA_ATTN_OUT_FUSED=0,LAYA_CUDA_ATTN_OUT_SPLITS=4 fused:LAYA_CUDA_ATTN_OUT_FUSED=1" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/ab
log "call 2 end"
