#!/usr/bin/env bash
# Session 43, call 7: the final engine (item 216's rules) — GPU tests, the goal shapes against the
# session's first engine (base).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 7 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure" $OUT/suite/tests.log | head -20 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x48,1x384,1x512,4x464,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
LAYA_VARIANTS="new:LAYA_X=0 g2:LAYA_CUDA_ATTN_SPLIT_MAX=2" \
LAYA_BENCH_SHAPES=1x464,1x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/g2 \
  timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "g2 variants rc=$?"
grep -v "^==" $OUT/g2/summary.txt >> $OUT/summary.txt
cat $OUT/ab/bench.jsonl $OUT/g2/bench.jsonl | gzip -9n > $OUT/bench.jsonl.gz
rm -rf $OUT/suite $OUT/ab $OUT/g2
log "call 7 end"
