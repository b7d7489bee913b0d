#!/usr/bin/env bash
# Session 51, call 2: the generic build's (laya-engine-base / test_gpu-base of call 1's bundle,
# 90-real) full-size parity against the CPU fp32 engine on the english layout — the suite's parity
# phase, english only (the session's last ≈ 380 s of device time; s48's three layouts took 7.5 min).
# Call 1's tests ran the tiny checkpoint's CPU parity only; this is the 28-layer, 512-token one.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
synth_layout english
LAYA_GPU_PARITY_DIRS=/tmp/ck-english LAYA_GPU_PARITY_REQUESTS=30 LAYA_GPU_PARITY_MAX_TOKENS=4096 \
  timeout -s KILL ${LAYA_PARITY_TIMEOUT:-200} $R test_gpu-base --gtest_filter=*ParityWithCpuEngineOnExtraCheckpoints* \
  > "$OUT/parity-generic.log" 2>&1
log "generic full-size parity rc=$?"
grep -E "^\[  (PASSED|FAILED) |parity|worst|requests|nRMS" "$OUT/parity-generic.log" | grep -v warning | head -80 >> "$OUT/summary.txt"
gzip -9n "$OUT/parity-generic.log"
log "call 2 end"
