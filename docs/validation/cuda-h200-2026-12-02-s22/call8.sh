#!/usr/bin/env bash
# Session 22 call 8: the final engine (f4b12a2: items 118 and 121) — the GPU suite's tests, bench
# (eager and graph, two rounds, then each shape alone with the clock sampled), the official
# package interleaved and its parity check, and the HTTP check.
set -u
export OUT=${OUT:-/tmp/out}
timeout 560 bash .gpu/run_gpu_suite.sh tests,bench,official,http
echo "suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
ls $OUT >> $OUT/summary.txt
