#!/usr/bin/env bash
# Session 27 call 1: attention's blocks with heads fastest (item 141) and the LayerNorm family one
# row a block for launches of few rows (item 142, LAYA_CUDA_LN_ONE_ROW_TO); their tests.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 150 $R test_gpu --gtest_filter=*Attention*:*LayerNorm*:CudaEngine.* > $OUT/tests.log 2>&1; echo "test_gpu rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests.log >> $OUT/summary.txt
LAYA_CUDA_LN_ONE_ROW_TO=100000 timeout 100 $R test_gpu --gtest_filter=*LayerNorm*:*GemmPartials*:CudaEngine.Parity*:CudaEngine.Bitwise*:CudaEngine.*Partials*:CudaEngine.Pruned* > $OUT/tests-onerow.log 2>&1; echo "test_gpu one row rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests-onerow.log >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base hf0:LAYA_CUDA_ATTN_ONE_BLOCK=0 hf:LAYA_X=0 ln128:LAYA_CUDA_LN_ONE_ROW_TO=128 ln512:LAYA_CUDA_LN_ONE_ROW_TO=512" \
LAYA_BENCH_SHAPES=1x16,1x48,2x32,4x64,1x128,3x128,4x128,7x64,8x64,5x100,6x80,1x512,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
# Rows of unequal lengths (the bench's T1+T2+... shapes, new in this build): the one-block rule's
# estimate assumes equal rows.
LAYA_VARIANTS="hf0:LAYA_CUDA_ATTN_ONE_BLOCK=0 hf:LAYA_X=0 hf2:LAYA_CUDA_ATTN_ONE_BLOCK=2" \
LAYA_BENCH_SHAPES=128+70+100+90,200+60+60+60+60,65+65+65+65+65+65,300+20+20+20+20+20+20 LAYA_BENCH_ROUNDS=2 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/m timeout 100 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "M rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/m/summary.txt >> $OUT/summary.txt; mv $OUT/m/bench.jsonl $OUT/bench-mixed.jsonl; rm -rf $OUT/m
