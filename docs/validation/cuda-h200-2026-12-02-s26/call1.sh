#!/usr/bin/env bash
# Session 26 call 1: every GPU test on the current code (session 25's last commits had not run the
# full test_gpu), then A/B: the narrow layout's rope form (item 135, against the session's starting
# binary d986f61 as laya-engine-base) and attention's K rotated in shared memory after cp.async
# (item 136, LAYA_CUDA_ATTN_ROPE_ASYNC), also with the K pass off at 4x464.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" >> $OUT/summary.txt
timeout 240 $R test_gpu >> $OUT/tests.log 2>&1; echo "test_gpu rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/tests.log | sort | uniq -c | sort -rn | head -40 >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_CUDA_ATTN_ROPE_ASYNC=0 async:LAYA_CUDA_ATTN_ROPE_ASYNC=1 asyncall:LAYA_CUDA_ATTN_ROPE_ASYNC=1,LAYA_CUDA_ROPE_ONCE_FROM=100000" \
LAYA_BENCH_SHAPES=1x48,1x64,2x32,4x16,1x256,1x384,1x512,4x128,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; mv $OUT/a/bench_err.log $OUT/bench_err.log 2>/dev/null; rm -rf $OUT/a
