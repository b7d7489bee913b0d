#!/usr/bin/env bash
# Session 35, call 2 (measurement): what bounds the fused GeGLU GEMM. An experiment build
# (call2-ablate.patch: LAYA_CUDA_GEGLU_ABLATE — 1 no W loads, 2 no A loads, 3 no loads, 4 no MMAs;
# results garbage, times real) under the kernel trace at 16x512 and 4x464.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
CK=/tmp/ck-english
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv >> $OUT/summary.txt 2>&1
mkdir -p $OUT/t
for shape in 16x512 4x464; do
  for a in 0 1 2 3 4 0; do
    ( while true; do nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader; sleep 0.2; done ) > /tmp/smi.txt 2>&1 &
    SMI=$!
    CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv LAYA_CUDA_GEGLU_ABLATE=$a $R laya-engine bench --model $CK \
      --backend cuda --execution graph --json --shapes $shape --warmup 10 --iters 60 > /dev/null 2>>$OUT/bench_err.log
    kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
    { echo "## $shape ablate $a"; python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 16; } > $OUT/t/timeline-$shape-ablate$a.txt 2>&1
    echo "## $shape ablate $a: $(grep -E '^geglu_gemm' $OUT/t/timeline-$shape-ablate$a.txt | head -1)" >> $OUT/summary.txt
    echo "   smi (clock MHz, W; last 5): $(tail -5 /tmp/smi.txt | tr '\n' ';')" >> $OUT/summary.txt
    rm -f /tmp/trace.tsv
  done
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t
log "call 2 end"
