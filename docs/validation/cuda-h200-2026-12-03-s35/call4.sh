#!/usr/bin/env bash
# Session 35, call 4 (measurement): what the fused GeGLU GEMM's epilogue costs. An experiment build
# (call4-epilogue.patch, on call 3's): LAYA_CUDA_GEGLU_EPI 1 = the computed GELU form left out of
# the code (out-of-table activations get GELU(x) = x: wrong there, times real; 65 KB of SASS
# instead of 124, no spills), 2 = no GELU at all (no table reads); LAYA_CUDA_GEGLU_ABLATE=5 = no
# epilogue. Kernel trace at 16x512 and 4x464.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 4 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
CK=/tmp/ck-english
mkdir -p $OUT/t
for shape in 4x464 16x512; do
  for v in EPI=0 EPI=1 EPI=2 ABLATE=5 EPI=1 EPI=0; do
    ( while true; do nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader; sleep 0.2; done ) > /tmp/smi.txt 2>&1 &
    SMI=$!
    CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv env LAYA_CUDA_GEGLU_$v $R laya-engine bench --model $CK \
      --backend cuda --execution graph --json --shapes $shape --warmup 10 --iters 60 > /dev/null 2>>$OUT/bench_err.log
    kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
    { echo "## $shape $v"; python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 16; } > $OUT/t/timeline-$shape-$v.txt 2>&1
    echo "## $shape $v: $(grep -E '^geglu_gemm' $OUT/t/timeline-$shape-$v.txt | head -1)" >> $OUT/summary.txt
    echo "   smi (clock MHz, W; last 5): $(tail -5 /tmp/smi.txt | tr '\n' ';')" >> $OUT/summary.txt
    rm -f /tmp/trace.tsv
  done
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t
log "call 4 end"
