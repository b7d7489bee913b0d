#!/usr/bin/env bash
# Session 21 call 4: the GPU suite's new `http` phase (its first run), on the final engine (the
# start-up line's wording is the only change since call 3's binary).
set -u
export OUT=${OUT:-/tmp/out}
timeout 400 bash scripts/gpu/run_gpu_suite.sh http
echo "suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
