#!/usr/bin/env bash
# Session 42, call 1 (measurement only, no engine change): where a small bucket's layer and the
# forward's tail go now — kernel traces at 1x48 (two layers, the last 26 kernels) and 1x512 / 4x464
# (one layer), and the small GEMM's timeline tool at 48 tokens, wide layout (item 69's chain).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 1 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
for shape in 1x48:14:26 1x512:10:26 4x464:10:4; do
  IFS=: read -r s layer tail <<< "$shape"
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $s --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## $s" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail $layer --tail $tail 2>&1 >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
log "traces done"
echo "## small GEMM timeline, m 48, wide" >> $OUT/summary.txt
timeout 120 $R laya_bench_small_gemm_timeline --m 48 --wide 1 --layers 28 >> $OUT/summary.txt 2>&1
echo "timeline rc=$?" >> $OUT/summary.txt
log "call 1 end"
