#!/usr/bin/env bash
# Session 26 call 7: the review's refactor of the tests (one helper for the engine's switch tests,
# one lambda for the attention launch forms) run on the GPU: the attention, RoPE and engine tests.
set -u
export OUT=${OUT:-/tmp/out}
mkdir -p $OUT
timeout 150 .gpu/run.sh test_gpu --gtest_filter=*Attention*:*Rope*:CudaEngine.* > $OUT/tests.log 2>&1; echo "test_gpu rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED|SKIPPED) |FAILED" $OUT/tests.log >> $OUT/summary.txt
