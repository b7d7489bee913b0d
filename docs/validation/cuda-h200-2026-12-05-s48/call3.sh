#!/usr/bin/env bash
# Session 48, call 3: main's engine against the CPU fp32 engine on the three full-size layouts
# (english, typed-decisions, multilingual; 30 requests each, rows up to 512 / 1,024 / 1,024
# tokens, up to 4,096 tokens a forward), bf16 and fp16: the suite's parity phase.
set -u
export OUT=${OUT:-/tmp/out}
LAYA_PARITY_TIMEOUT=540 timeout -s KILL 580 bash .gpu/run_gpu_suite.sh parity
echo "suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
