#!/usr/bin/env bash
# Session 27 call 3: item 143 in its final form (the spans as a kernel argument of their own)
# against 7d7dd67, its tests; item 144 (the next cuBLASLt GEMM's first k-tiles of W sent to L2 too,
# LAYA_CUDA_L2_PREFETCH_KTILES).
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 150 $R test_gpu --gtest_filter=*LayerNorm*:*Launchers*:CudaEngine.* > $OUT/tests.log 2>&1; echo "test_gpu rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests.log >> $OUT/summary.txt
LAYA_CUDA_L2_PREFETCH_KTILES=2 timeout 100 $R test_gpu --gtest_filter=CudaEngine.Parity*:CudaEngine.Bitwise*:CudaEngine.Residual*:CudaEngine.FusedGeglu* > $OUT/tests-k2.log 2>&1; echo "test_gpu ktiles 2 rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests-k2.log >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base pf:LAYA_X=0 k1:LAYA_CUDA_L2_PREFETCH_KTILES=1 k2:LAYA_CUDA_L2_PREFETCH_KTILES=2 k4:LAYA_CUDA_L2_PREFETCH_KTILES=4" \
LAYA_BENCH_SHAPES=1x48,4x64,1x256,1x384,1x512,4x128,2x512,4x464,16x512 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
