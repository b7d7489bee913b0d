#!/usr/bin/env bash
# Temporary (call 8): 16x512 and 4x464 in the power-capped steady state (warm-up 100, 100 measured),
# the default engine against switches that trade energy for latency; two interleaved passes.
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh
source scripts/gpu/suite_common.sh
[ -d /tmp/ck-english ] || $R laya-engine synth --layout english --seed 1 /tmp/ck-english --tokenizer /tmp/laya-gpu/tokenizer > /dev/null 2>&1
for pass in 1 2; do
  for v in default LAYA_CUDA_GEGLU_GEMM_FROM=0 LAYA_CUDA_RESIDUAL_GEMM_FROM=0 LAYA_CUDA_ATTN_FIVE_BLOCKS_FROM=0; do
    for shp in 16x512 4x464; do
      smi_start "$pass-$v-$shp" > /dev/null
      echo "== pass $pass $v $shp $(env $([ $v = default ] || echo $v) $R laya-engine bench --model /tmp/ck-english --backend cuda --shapes $shp --warmup 100 --iters 100 2>/dev/null | grep -E "^ +[0-9]+x")" >> $OUT/capped.txt
      smi_stop "$pass-$v-$shp" > /dev/null
      tail -1 $OUT/summary.txt >> $OUT/capped.txt
    done
  done
done
