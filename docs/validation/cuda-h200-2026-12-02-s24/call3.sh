#!/usr/bin/env bash
# Session 24 call 3: the engine with items 125-126 as defaults — tests, the A/B against 93f26d5's
# behaviour (its switches), and the next thresholds (env switches).
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
fold() {  # one run's files into $OUT's summary.txt / bench.jsonl (the fetch takes 8 files)
  cat $OUT/$1/summary.txt >> $OUT/summary.txt; cat $OUT/$1/bench.jsonl >> $OUT/bench.jsonl
  [ -f $OUT/gpu.txt ] || cp $OUT/$1/gpu.txt $OUT/gpu.txt
  tail -3 $OUT/$1/bench_err.log >> $OUT/bench_err_tail.log; rm -rf $OUT/$1
}
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" >> $OUT/summary.txt
timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) " $OUT/tests.log >> $OUT/summary.txt
OLD="LAYA_CUDA_LEAN_ADD_LN_FROM=1536,LAYA_CUDA_RESIDUAL_GEMM_FROM=1536,LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;769-1535"
LAYA_VARIANTS="final:LAYA_X=0 s23:$OLD" \
LAYA_BENCH_SHAPES=1x48,1x160,1x256,1x384,1x512,5x128,6x128,2x512,9x128,10x128,11x128,12x128,4x464 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/a timeout 200 bash .gpu/run_env_variants.sh
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt; fold a
L=LAYA_CUDA_LEAN_ADD_LN_FROM; Q=LAYA_CUDA_RESIDUAL_GEMM_FROM
LAYA_VARIANTS="final:LAYA_X=0 lr769:$L=769,$Q=769 lr513:$L=513,$Q=513 p1024:LAYA_CUDA_PDL_ALL_FROM=1024" \
LAYA_BENCH_SHAPES=5x128,6x128,7x128,2x512,9x128,10x128,11x128 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/b timeout 200 bash .gpu/run_env_variants.sh
echo "B rc=$? ($SECONDS s)" >> $OUT/summary.txt; fold b
