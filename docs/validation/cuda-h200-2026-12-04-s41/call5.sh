#!/usr/bin/env bash
# Session 41, call 5: item 203 alone — the fused final LayerNorms on and off in one build
# (LAYA_CUDA_FINAL_LN_FUSED), six interleaved rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 5 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="unfused:LAYA_CUDA_FINAL_LN_FUSED=0 fused:LAYA_CUDA_FINAL_LN_FUSED=1" \
LAYA_BENCH_SHAPES=1x16,1x48,1x128,4x64,1x512,4x464,16x512 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/ab
log "call 5 end"
