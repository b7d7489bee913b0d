#!/usr/bin/env bash
# Session 40, call 11: the final engine's small buckets against the CPU fp32 engine on the
# full-size english checkpoint (three attention-output partials at d = 1,024 are not exercised by
# the tiny checkpoint of the default GPU tests): CudaEngine.ParityWithCpuEngineOnExtraCheckpoints,
# 30 requests of at most 128 tokens, bf16 and fp16.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 11 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_GPU_PARITY_DIRS=/tmp/ck-english LAYA_GPU_PARITY_REQUESTS=30 LAYA_GPU_PARITY_MAX_TOKENS=128 \
  timeout 400 $R test_gpu --gtest_filter=*Extra* > /tmp/parity.log 2>&1
echo "parity rc=$?" >> $OUT/summary.txt
grep -E "^\[  (PASSED|FAILED) |^\[ *(OK|FAILED) |parity|worst|nRMS|prob" /tmp/parity.log | head -60 >> $OUT/summary.txt
gzip -9nc /tmp/parity.log > $OUT/parity.log.gz
log "call 11 end"
