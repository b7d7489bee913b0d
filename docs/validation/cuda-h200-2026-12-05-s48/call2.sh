#!/usr/bin/env bash
# Session 48, call 2: main's engine (built at 0da0de4, bundled with laya_bench_http) through the
# suite's serving and other-layout phases: `serve` over HTTP with the closed- and open-loop
# benchmarks (english), then the multilingual and typed-decisions checkpoints benched against the
# official package (two rounds), their official parity and `serve` answering in four languages.
set -u
export OUT=${OUT:-/tmp/out}
timeout -s KILL 560 bash .gpu/run_gpu_suite.sh http,multilingual,typed
echo "suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
