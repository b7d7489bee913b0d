#!/usr/bin/env bash
# Session 23 call 3: where a splitk_gemm call's time goes (the instrumented instance's %globaltimer
# events, launches 54-55 of a graph of 56), after the reduction's loads were issued together.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
echo "== $(date -u +%H:%M:%S) start" >> $OUT/summary.txt
timeout 120 $R test_gpu --gtest_filter=*Splitk* > $OUT/tests.log 2>&1
echo "splitk tests rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED" $OUT/tests.log >> $OUT/summary.txt
timeout 200 $R laya_bench_splitk_gemm --m 256,512,2048 --timeline 1 > $OUT/splitk_bench.txt 2>&1
echo "splitk bench rc=$? ($SECONDS s)" >> $OUT/summary.txt
cat $OUT/splitk_bench.txt >> $OUT/summary.txt
