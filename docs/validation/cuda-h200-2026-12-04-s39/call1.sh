#!/usr/bin/env bash
# Session 39, call 1: what cold code costs a kernel in a programmatic chain (laya_bench_icache,
# item 192), twice; the 1x48 forward's kernels by duration (kernel trace), for the sizes of the code
# they run.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 1 start, bundled from $(bundle_commit)"
for rep in 1 2; do
  echo "## icache rep $rep, 128 threads" >> $OUT/summary.txt
  timeout 120 $R laya_bench_icache --ctas 48,132 --threads 128 >> $OUT/summary.txt 2>&1
done
echo "## icache 256 threads" >> $OUT/summary.txt
timeout 120 $R laya_bench_icache --ctas 48,132 --threads 256 >> $OUT/summary.txt 2>&1
log "icache done"
synth_layout english > /dev/null
for shape in 1x48 1x512; do
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench --model /tmp/ck-english \
    --backend cuda --execution graph --json --shapes $shape --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## trace $shape" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 16 >> $OUT/summary.txt 2>&1
  rm -f /tmp/t.tsv
done
log "call 1 end"
