#!/usr/bin/env bash
# Session 24 call 6: the final engine's answers — parity against the official package (bf16) and
# the full-size parity against the CPU fp32 engine (both modes): the residual output GEMMs now run
# from 129 tokens (one rounding fewer there).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_PARITY_TIMEOUT=200 LAYA_PARITY_MAX_TOKENS=1024 timeout 280 bash .gpu/run_gpu_suite.sh official,parity
echo "suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
