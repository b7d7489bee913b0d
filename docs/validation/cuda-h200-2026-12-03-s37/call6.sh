#!/usr/bin/env bash
# Session 37, call 6 (call 4's bundle = the session's final engine code, the machine still warm): the
# goal shapes, three rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 6 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="final:LAYA_X=0" LAYA_BENCH_SHAPES=1x48,1x512,4x464,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
cp $OUT/ab/gpu.txt $OUT/gpu.txt 2>/dev/null
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/ab
log "call 6 end"
