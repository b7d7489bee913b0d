#!/usr/bin/env bash
# Session 36, call 5: the fused GeGLU GEMM from inside (item 175): an experiment build
# (call5-stamps.patch, never committed) stamps %globaltimer per CTA in the kernel's latest call;
# `laya-engine bench` prints the medians at its end with LAYA_CUDA_GEGLU_STAMPS set.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 5 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
CK=/tmp/ck-english
for shape in 4x464 3x512 4x512 16x512 4x464; do
  echo "## $shape" >> $OUT/summary.txt
  LAYA_CUDA_GEGLU_STAMPS=1 timeout 100 $R laya-engine bench --model $CK --backend cuda --execution graph --json \
    --shapes $shape --warmup 10 --iters 30 2>&1 | grep -E "geglu stamps|p50_ms" | sed 's/"samples_ms".*//' >> $OUT/summary.txt
done
log "call 5 end"
