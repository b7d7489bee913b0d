#!/usr/bin/env bash
# Session 23 call 4: splitk_gemm with the partials pushed to their owners and the cluster size
# chosen by what runs at once — kernel tests, the GEMMs alone with their timeline, the engine A/B.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
echo "== $(date -u +%H:%M:%S) start" >> $OUT/summary.txt
timeout 120 $R test_gpu --gtest_filter=*Splitk* > $OUT/tests.log 2>&1
echo "splitk tests rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED|clusters active" $OUT/tests.log >> $OUT/summary.txt
timeout 200 $R laya_bench_splitk_gemm --m 256,512,1024 --timeline 1 > $OUT/splitk_bench.txt 2>&1
echo "splitk bench rc=$? ($SECONDS s)" >> $OUT/summary.txt
cat $OUT/splitk_bench.txt >> $OUT/summary.txt
LAYA_VARIANTS="cublas:LAYA_CUDA_SPLITK_FROM=0 auto:LAYA_CUDA_SPLITK_FROM=129" \
LAYA_BENCH_SHAPES=1x160,1x256,1x384,1x512,2x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 200 bash .gpu/run_env_variants.sh
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
