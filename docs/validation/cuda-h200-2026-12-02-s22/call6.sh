#!/usr/bin/env bash
# Session 22 call 6: item 120 with ±0 in the GELU table (the zero rows' GELUs by table, not computed)
# against 499965a's binary — test_cuda_host, test_gpu, then the A/B in five interleaved
# rounds on buckets with padding (1x300: 320, 4x464: 1,920, 6x470: 3,072, 12x500: 6,144) and
# 16x512 (none), and 1x48 / 1x512 as controls (the table's slot function changed).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_BENCH_SHAPES=1x48,1x300,1x512,4x464,6x470,12x500,16x512 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=30 \
  timeout 420 bash .gpu/run_ab_suite.sh tests,bench
echo "ab suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) " $OUT/tests.log >> $OUT/summary.txt
ls $OUT >> $OUT/summary.txt
