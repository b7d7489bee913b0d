#!/usr/bin/env bash
# Session 37, call 7 (call 4's bundle = the session's engine): environment switches only, item 181 —
# the fused GeGLU GEMM from 129 tokens, attention's key split at most 2; interleaved rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 7 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="default:LAYA_X=0 geglu_all:LAYA_CUDA_GEGLU_GEMM_FROM=1 split2:LAYA_CUDA_ATTN_SPLIT_MAX=2" \
LAYA_BENCH_SHAPES=1x256,1x384,1x464,1x512,2x256 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/ab
log "call 7 end"
