#!/usr/bin/env bash
# Session 53, call 2: call 1's racy pricing switch across the mid buckets (where it flips sign
# between 1x256 and 1x512), with the racy engine's log at info level so that each bucket's count of
# converted edges is recorded. Same bundle as call 1 (its header), this script copied to
# .gpu/call2-s53.sh. Run: `bash .gpu/call2-s53.sh` with carry [".gpu"], timeout 400; ≈ 2 min.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "s53 call 2 start, bundled from $(bundle_commit)"
record_machine
smi_start bench
LAYA_VARIANTS="base:LAYA_CUDA_RACY_GEMM_EDGES=0 racy:LAYA_CUDA_RACY_GEMM_EDGES=1,LAYA_LOG_LEVEL=info" \
  LAYA_BENCH_SHAPES=1x128,1x160,1x192,1x256,1x320,1x384,1x448,1x512,2x256,4x464 LAYA_BENCH_ROUNDS=4 \
  LAYA_BENCH_ITERS=30 OUT=$OUT/ab timeout -s KILL 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
smi_stop bench
grep -v "^==" "$OUT/ab/summary.txt" >> "$OUT/summary.txt"
grep -h "made programmatic" "$OUT/ab/bench_err.log" | sed 's/^.*cuda: //' | sort | uniq -c >> "$OUT/summary.txt"
rm -rf "$OUT/ab"
log "s53 call 2 end"
