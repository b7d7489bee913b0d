#!/usr/bin/env bash
# Session 36, call 7: call 6's A/B again where it was noisy or level (16x512, 4x512, 10x128, 8x512),
# six rounds; the same bundle.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 7 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=10x128,4x464,4x512,8x512,16x512 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 400 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/ab
log "call 7 end"
