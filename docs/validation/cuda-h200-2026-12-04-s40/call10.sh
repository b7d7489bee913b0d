#!/usr/bin/env bash
# Session 40, call 10: where two more attention-output partials lose their 0.02 ms (items 198,
# 200) — kernel traces at 1x48 and 1x64 of the final engine with 2, 3 (default) and 4 partials.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 10 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
for shape in 1x48 1x64; do
  for sp in 2 3 4; do
    LAYA_CUDA_ATTN_OUT_SPLITS=$sp CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
      --model /tmp/ck-english --backend cuda --execution graph --json --shapes $shape --warmup 10 --iters 60 > /dev/null 2>&1
    echo "## $shape splits $sp" >> $OUT/summary.txt
    python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -9 >> $OUT/summary.txt
    rm -f /tmp/t.tsv
  done
done
log "call 10 end"
