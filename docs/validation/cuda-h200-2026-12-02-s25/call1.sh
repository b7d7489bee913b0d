#!/usr/bin/env bash
# Session 25 call 1: test_gpu (the engine test ClusterRuleSwitchIsValidatedAtStartUp has never run
# on a GPU), the engine tests with the output GEMMs as cuBLASLt partials at 129-1,024 tokens, the
# A/B of that experiment (item 127), and cuBLASLt's candidates for the split shapes at 512 rows.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" >> $OUT/summary.txt
timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" >> $OUT/summary.txt
LAYA_CUDA_MID_PARTIALS_TO=1024 timeout 120 $R test_gpu --gtest_filter=CudaEngine.* >> $OUT/tests.log 2>&1
echo "test_gpu CudaEngine.* with MID_PARTIALS_TO=1024 rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |ClusterRuleSwitch" $OUT/tests.log >> $OUT/summary.txt
M=LAYA_CUDA_MID_PARTIALS_TO=1024
LAYA_VARIANTS="base:LAYA_X=0 p44:$M p22:$M,LAYA_CUDA_MID_ATTN_SPLITS=2,LAYA_CUDA_MID_MLP_SPLITS=2 m4:$M,LAYA_CUDA_MID_ATTN_SPLITS=0" \
LAYA_BENCH_SHAPES=1x48,1x160,1x256,1x384,1x512,6x128,2x512,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/a timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
timeout 120 $R laya_bench_gemm_pdl --m 512 --nk 1024x1024,1024x1024p2,1024x1024p4,1024x2624,1024x2624p2,1024x2624p4 > $OUT/gemm512.txt 2>&1
echo "gemm_pdl rc=$? ($SECONDS s)" >> $OUT/summary.txt
