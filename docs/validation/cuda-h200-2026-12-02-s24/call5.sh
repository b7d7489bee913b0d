#!/usr/bin/env bash
# Session 24 call 5: the lean add+LN and residual GEMMs from 129 tokens as defaults — tests, and
# the A/B against call 4's settings (from 513) and 93f26d5's at the suite's shapes and 1x160-1x384.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" >> $OUT/summary.txt
timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) " $OUT/tests.log >> $OUT/summary.txt
L=LAYA_CUDA_LEAN_ADD_LN_FROM; Q=LAYA_CUDA_RESIDUAL_GEMM_FROM
OLD="$L=1536,$Q=1536,LAYA_CUDA_PDL_ALL_FROM=1536,LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;769-1535"
LAYA_VARIANTS="final:LAYA_X=0 c4:$L=513,$Q=513 s23:$OLD" \
LAYA_BENCH_SHAPES=1x48,4x64,1x160,1x256,1x384,1x464,1x512,4x464,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/a timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
