#!/usr/bin/env bash
# Session 27 call 2: the encoder add+LNs send the next kernels' constants to L2 (item 143,
# LAYA_CUDA_L2_PREFETCH; 0 = off as the base); its tests.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 150 $R test_gpu --gtest_filter=*LayerNorm*:*Launchers*:CudaEngine.* > $OUT/tests.log 2>&1; echo "test_gpu rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="off:LAYA_CUDA_L2_PREFETCH=0 pf:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x48,4x64,1x128,1x256,1x384,1x512,2x256,4x128,2x512,4x464,16x512 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
