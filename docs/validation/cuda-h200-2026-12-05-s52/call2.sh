#!/usr/bin/env bash
# Session 52, call 2: call 1's three builds side by side on one machine (call 1 ran on an H100 with
# no `90-real` build in its speed table, so its prediction — the PTX build slower than the
# `90-real` one by what programmatic launches save — was not checked). Same bundle as call 1
# (laya-engine = 90a-real, -base = 90-real, -alt = 80-virtual PTX; the recipe: the header of
# docs/validation/cuda-h200-2026-12-05-s51/call3.sh), this script copied to .gpu/call2-s52.sh.
# Run: `bash .gpu/call2-s52.sh` with carry [".gpu"], timeout 300; ≈ 2 min.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
export CUDA_CACHE_MAXSIZE=4294967296
log "s52 call 2 start, bundled from $(bundle_commit)"
record_machine
timeout -s KILL 150 $R test_gpu-alt --gtest_filter=-*Extra*:*Official* > "$OUT/tests-ptx80.log" 2>&1
log "test_gpu (PTX build) rc=$?"
grep -hE "built for|PASSED|FAILED|SKIPPED \] [0-9]" "$OUT/tests-ptx80.log" >> "$OUT/summary.txt"
smi_start bench
LAYA_VARIANTS="hopper:LAYA_BENCH_BIN=laya-engine generic:LAYA_BENCH_BIN=laya-engine-base ptx80:LAYA_BENCH_BIN=laya-engine-alt" \
  LAYA_BENCH_SHAPES=1x48,1x512,4x464,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout -s KILL 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
smi_stop bench
grep -v "^==" "$OUT/ab/summary.txt" >> "$OUT/summary.txt"
gzip -9nf "$OUT/tests-ptx80.log"
rm -rf "$OUT/ab"
log "s52 call 2 end"
