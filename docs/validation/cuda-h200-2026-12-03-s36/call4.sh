#!/usr/bin/env bash
# Session 36, call 4: the fused GeGLU GEMM's consumer loop alone (item 175): laya_bench_wgmma_loop's
# new section, then the engine's kernel trace at 4x464 for the kernel's time on the same GPU.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 4 start, bundled from $(bundle_commit)"
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv >> $OUT/summary.txt 2>&1
timeout 120 $R laya_bench_wgmma_loop --tiles 64 > $OUT/wgmma_loop.txt 2>&1
log "wgmma loop rc=$?"
cat $OUT/wgmma_loop.txt >> $OUT/summary.txt
synth_layout english > /dev/null
CK=/tmp/ck-english
CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv $R laya-engine bench --model $CK \
  --backend cuda --execution graph --json --shapes 4x464 --warmup 10 --iters 60 > /dev/null 2>>$OUT/bench_err.log
python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 16 > $OUT/timeline-4x464.txt 2>&1
sed -n 1,6p $OUT/timeline-4x464.txt >> $OUT/summary.txt
log "call 4 end"
