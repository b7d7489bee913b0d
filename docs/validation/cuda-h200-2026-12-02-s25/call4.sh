#!/usr/bin/env bash
# Session 25 call 4: the small buckets' output GEMMs in three partials (item 132), cuBLASLt's
# candidates timed from 2,048 rows again with more rounds (item 131), and attention's RoPE left
# out at 256-512 tokens (item 130; results garbage, times real).
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
LAYA_CUDA_MLP_OUT_SPLITS=3 LAYA_CUDA_ATTN_OUT_SPLITS=3 timeout 120 $R test_gpu --gtest_filter=CudaEngine.* > $OUT/tests.log 2>&1
echo "test_gpu CudaEngine.* with MLP_OUT_SPLITS=3 ATTN_OUT_SPLITS=3 rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) " $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_X=0 mo3:LAYA_CUDA_MLP_OUT_SPLITS=3 ao3:LAYA_CUDA_ATTN_OUT_SPLITS=3 both3:LAYA_CUDA_MLP_OUT_SPLITS=3,LAYA_CUDA_ATTN_OUT_SPLITS=3" \
LAYA_BENCH_SHAPES=1x16,1x48,2x32,1x64,4x64,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 150 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench_a.jsonl; rm -rf $OUT/a
LAYA_VARIANTS="base:LAYA_X=0 tune2048:LAYA_CUDA_GEMM_TUNE_FROM_M=2048" \
LAYA_BENCH_SHAPES=4x512,5x512,6x512,64x48,7x512,8x512 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/b timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "B rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/b/summary.txt >> $OUT/summary.txt; mv $OUT/b/bench.jsonl $OUT/bench_b.jsonl; rm -rf $OUT/b
LAYA_VARIANTS="base:LAYA_X=0 ropeattn:LAYA_CUDA_ABLATE=ropeattn" \
LAYA_BENCH_SHAPES=1x48,1x256,1x384,1x512 LAYA_BENCH_ROUNDS=2 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/c timeout 100 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "C rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/c/summary.txt >> $OUT/summary.txt; mv $OUT/c/bench.jsonl $OUT/bench_c.jsonl; rm -rf $OUT/c
