#!/usr/bin/env bash
# Session 48, call 4: session 47's open lead, t80p (item 224-225: the fused GeGLU GEMM on 256 x 80
# tiles with a producer warpgroup) against t64 on a third instance — 03ba318's build bundled as
# laya-engine-base — eight rounds at the 1,792-2,048-token shapes, then 4x464 alone per form, twice
# alternating, with the SM clock and power sampled.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 4 start, bundled from $(bundle_commit)"
T64=LAYA_BENCH_BIN=laya-engine-base,LAYA_CUDA_GEGLU_TILE_OUTPUTS=64
T80P=LAYA_BENCH_BIN=laya-engine-base,LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_80_PRODUCER=1
LAYA_VARIANTS="t64:$T64 t80p:$T80P" LAYA_BENCH_SHAPES=4x448,4x464,4x480,4x512,7x256,14x128,15x128,16x128 \
  LAYA_BENCH_ROUNDS=8 LAYA_BENCH_ITERS=30 OUT=$OUT/ab timeout -s KILL 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/call4-bench.jsonl.gz
rm -rf $OUT/ab
for rep in 1 2; do
  for v in "t64 64 0" "t80p 80 1"; do
    set -- $v
    smi_start "4x464-$1-$rep"
    LAYA_CUDA_GEGLU_TILE_OUTPUTS=$2 LAYA_CUDA_GEGLU_80_PRODUCER=$3 timeout -s KILL 40 $R laya-engine-base bench \
      --model /tmp/ck-english --backend cuda --execution graph --json --shapes 4x464 --warmup 50 --iters 800 \
      | grep -o '"p50_ms":[0-9.]*' | sed "s/^/4x464 $1 rep $rep /" >> $OUT/summary.txt
    smi_stop "4x464-$1-$rep"
  done
done
log "call 4 end"
