#!/usr/bin/env bash
# Session 21 call 5: the final engine's acceptance parity at full size — the CPU fp32 engine against
# the CUDA engine (both precision modes) on 30 requests each of the synthetic english and
# typed-decisions checkpoints, up to 1,024 tokens a request (run_gpu_suite.sh parity).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_PARITY_MAX_TOKENS=1024 LAYA_PARITY_TIMEOUT=300 timeout 360 bash scripts/gpu/run_gpu_suite.sh parity
echo "suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
