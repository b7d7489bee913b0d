#!/usr/bin/env bash
# Session 37, call 8: GPU tests; the local layers' key groups capped by their window (item 182)
# against the bucket's split for every layer (LAYA_CUDA_ATTN_LOCAL_SPLIT=0) and a cap of 2 for every
# layer, interleaved rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 8 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
synth_layout english > /dev/null
LAYA_VARIANTS="old:LAYA_CUDA_ATTN_LOCAL_SPLIT=0 new:LAYA_X=0 split2:LAYA_CUDA_ATTN_SPLIT_MAX=2" \
LAYA_BENCH_SHAPES=1x160,4x128,1x256,1x384,1x464,1x512,2x256,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 280 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/suite $OUT/ab
log "call 8 end"
