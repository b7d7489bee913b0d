#!/usr/bin/env bash
# Session 53, call 3: which edges carry call 2's gain at 129-384 tokens and its cost at 512 — the
# racy switch limited by LAYA_CUDA_RACY_GEMM_AFTER to the edges out of one producer: add_ln (into
# the QKV and MLP input GEMMs), attention (into the attention output GEMM), geglu_kernel (the GeGLU
# pass, into the MLP output GEMM). Bundle as call 1's header says, from the commit that added
# LAYA_CUDA_RACY_GEMM_AFTER; this script copied to .gpu/call3-s53.sh.
# Run: `bash .gpu/call3-s53.sh` with carry [".gpu"], timeout 400; ≈ 2 min.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "s53 call 3 start, bundled from $(bundle_commit)"
record_machine
smi_start bench
I=LAYA_LOG_LEVEL=info
LAYA_VARIANTS="base:LAYA_CUDA_RACY_GEMM_EDGES=0 all:LAYA_CUDA_RACY_GEMM_EDGES=1,$I addln:LAYA_CUDA_RACY_GEMM_EDGES=1,LAYA_CUDA_RACY_GEMM_AFTER=add_ln,$I attn:LAYA_CUDA_RACY_GEMM_EDGES=1,LAYA_CUDA_RACY_GEMM_AFTER=attention,$I geglu:LAYA_CUDA_RACY_GEMM_EDGES=1,LAYA_CUDA_RACY_GEMM_AFTER=geglu_kernel,$I" \
  LAYA_BENCH_SHAPES=1x160,1x256,1x320,1x512,4x464 LAYA_BENCH_ROUNDS=3 \
  LAYA_BENCH_ITERS=30 OUT=$OUT/ab timeout -s KILL 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
smi_stop bench
grep -v "^==" "$OUT/ab/summary.txt" >> "$OUT/summary.txt"
grep -h "made programmatic" "$OUT/ab/bench_err.log" | sed 's/^.*cuda: //' | sort | uniq -c >> "$OUT/summary.txt"
rm -rf "$OUT/ab"
log "s53 call 3 end"
