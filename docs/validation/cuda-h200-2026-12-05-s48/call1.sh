#!/usr/bin/env bash
# Session 48, call 1 (session 47's call 5, which found no machine): main's engine (a638c6c's,
# built at 0da0de4) — the GPU suite's tests, the
# bench (eager and graph, two rounds) interleaved with the official laya package on the same GPU,
# and the official parity check: the headline table of this session.
set -u
export OUT=${OUT:-/tmp/out}
timeout -s KILL 480 bash .gpu/run_gpu_suite.sh tests,bench,official
echo "suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
