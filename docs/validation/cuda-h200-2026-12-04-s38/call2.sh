#!/usr/bin/env bash
# Session 38, call 2: the multilingual layout under item 184's rule (item 186: the same build with
# the rule undone as the base binary), and K rotated once by the pass from 257 tokens again (item
# 187, LAYA_CUDA_ROPE_ONCE_FROM=256) on english.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
synth_layout multilingual > /dev/null
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="old184:LAYA_BENCH_BIN=laya-engine-base rule:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x160,1x256,1x384,2x256,1x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ml \
  timeout 170 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "multilingual variants rc=$?"
grep -v "^==" $OUT/ml/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ml/bench.jsonl > $OUT/ml-bench.jsonl.gz
synth_layout english > /dev/null
LAYA_VARIANTS="rule:LAYA_X=0 once256:LAYA_CUDA_ROPE_ONCE_FROM=256" \
LAYA_BENCH_SHAPES=1x384,1x464,1x512,2x256 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 120 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "english variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/ab $OUT/ml
log "call 2 end"
