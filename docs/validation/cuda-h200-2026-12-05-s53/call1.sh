#!/usr/bin/env bash
# Session 53, call 1: what programmatic edges into cuBLASLt's GEMMs could be worth on today's
# engine — the racy pricing switch LAYA_CUDA_RACY_GEMM_EDGES=1 (graph_memsets.h,
# make_gemm_entries_racy; wrong answers by design) against the same binary without it, interleaved,
# plus test_gpu of that binary with its defaults. Bundle: `cmake --build build/cuda-h --target
# laya-engine test_gpu test_cuda_host`, then `LAYA_BUNDLE_PROBES=none scripts/gpu/bundle.sh
# build/cuda-h` and this script copied to .gpu/call1-s53.sh.
# Run: `bash .gpu/call1-s53.sh` with carry [".gpu"], timeout 540; ≈ 6 min.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
export CUDA_CACHE_MAXSIZE=4294967296
log "s53 call 1 start, bundled from $(bundle_commit)"
record_machine
timeout -s KILL 200 $R test_gpu --gtest_filter=-*Extra*:*Official* > "$OUT/tests.log" 2>&1
log "test_gpu rc=$?"
grep -hE "built for|PASSED|FAILED|SKIPPED \] [0-9]" "$OUT/tests.log" >> "$OUT/summary.txt"
smi_start bench
LAYA_VARIANTS="base:LAYA_CUDA_RACY_GEMM_EDGES=0 racy:LAYA_CUDA_RACY_GEMM_EDGES=1" \
  LAYA_BENCH_SHAPES=1x48,1x256,1x512,2x512,4x464,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout -s KILL 280 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
smi_stop bench
grep -v "^==" "$OUT/ab/summary.txt" >> "$OUT/summary.txt"
grep -h "made programmatic" "$OUT/ab/bench_err.log" | sed 's/^.*cuda: //' | sort | uniq -c >> "$OUT/summary.txt"
gzip -9nf "$OUT/tests.log"
rm -rf "$OUT/ab"
log "s53 call 1 end"
