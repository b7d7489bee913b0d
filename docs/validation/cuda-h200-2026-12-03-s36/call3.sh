#!/usr/bin/env bash
# Session 36, call 3: the small buckets' switches re-measured on today's engine (item 174), env only.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 3 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_X=0 rope256:LAYA_CUDA_ROPE_ONCE_FROM=256 tile16:LAYA_CUDA_ATTN_SMALL_TILE=16 mlp2:LAYA_CUDA_SMALL_MLP_OUT_SPLITS=2 mlp4:LAYA_CUDA_SMALL_MLP_OUT_SPLITS=4 wide64:LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M=64" \
LAYA_BENCH_SHAPES=1x16,1x48,2x32,1x64,1x128,1x384,1x464,1x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 420 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/ab
log "call 3 end"
