#!/usr/bin/env bash
# Session 36, call 8: where item 176 costs at 10x128 and gains at 3x512 (kernel traces, call 6's
# bundle: base = 8e06a9b's engine, new = 5c2b7e8's), two processes of each binary, alternating.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 8 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
CK=/tmp/ck-english
mkdir -p $OUT/t
for shape in 10x128 3x512; do
  for b in laya-engine-base laya-engine laya-engine-base laya-engine; do
    CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv $R $b bench --model $CK \
      --backend cuda --execution graph --json --shapes $shape --warmup 10 --iters 60 > /dev/null 2>>$OUT/bench_err.log
    { echo "## $shape $b"; python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 16; } >> $OUT/t/timeline-$shape-$b.txt 2>&1
    { echo "## $shape $b"; grep -E '^[0-9]+ forwards|^geglu_gemm|^add_ln_kernel\[[0-9]{3}|^nvjet' $OUT/t/timeline-$shape-$b.txt | tail -6; } >> $OUT/summary.txt
    rm -f /tmp/trace.tsv
  done
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t
log "call 8 end"
