#!/usr/bin/env bash
# Session 25 call 7: the final code (the rope form reverted; three MLP-output partials in the small
# buckets and cuBLASLt's candidates timed from 2,560 rows by default): the tests.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" >> $OUT/summary.txt
timeout 180 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED|SmallMlpOutput|ClusterRuleSwitch" $OUT/tests.log >> $OUT/summary.txt
grep -m1 "cuda: .* ready" $OUT/tests.log >> $OUT/summary.txt
