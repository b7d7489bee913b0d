#!/usr/bin/env bash
# Session 27 call 5: the add+LN's prefetching warp (items 143-145: a kernel of its own with one warp
# more a block; the row warps run add_ln_kernel's code), its tests, against 7d7dd67.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 150 $R test_gpu --gtest_filter=*LayerNorm*:*Launchers*:CudaEngine.* > $OUT/tests.log 2>&1; echo "test_gpu rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base off:LAYA_CUDA_L2_PREFETCH_TO=0 k0:LAYA_CUDA_L2_PREFETCH_KTILES=0 k2:LAYA_X=0 k4:LAYA_CUDA_L2_PREFETCH_KTILES=4" \
LAYA_BENCH_SHAPES=1x48,4x64,1x256,1x512,4x128,2x512,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 360 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
