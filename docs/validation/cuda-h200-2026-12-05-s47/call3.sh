#!/usr/bin/env bash
# Session 47, call 3 (after call 1's results): call2.sh, then t80p against t64 at the buckets where
# the experiment's rule takes 80 outputs (1,792-2,048 tokens), five rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
OUT=$OUT/c2 timeout -s KILL 420 bash .gpu/call2.sh > /dev/null 2>&1
cat $OUT/c2/summary.txt >> $OUT/summary.txt; mv $OUT/c2/bench.jsonl.gz $OUT/call2-bench.jsonl.gz 2>/dev/null; rm -rf $OUT/c2
log "call 3: t80p focused"
LAYA_VARIANTS="t64:LAYA_CUDA_GEGLU_TILE_OUTPUTS=64 t80p:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_80_PRODUCER=1" \
LAYA_BENCH_SHAPES=7x256,4x448,4x464,15x128,4x480,4x512 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout -s KILL 150 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/call3-bench.jsonl.gz
rm -rf $OUT/ab
log "call 3 end"
