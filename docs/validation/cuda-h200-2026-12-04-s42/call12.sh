#!/usr/bin/env bash
# Session 42, call 12: the small buckets' layout switches on the final engine (item 205 changed
# when the small GEMMs' early weights go out): the wide layout up to 64 tokens (default 48), the
# decision layers' partials off, the narrow layout's carveout off; four interleaved rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 12 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="def:LAYA_X=0 wide64:LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M=64 noparts:LAYA_CUDA_DECISION_PARTS=0 carve:LAYA_CUDA_NARROW_CARVEOUT=-1" \
LAYA_BENCH_SHAPES=1x16,1x48,1x56,1x64,2x32,4x16,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/ab
log "call 12 end"
