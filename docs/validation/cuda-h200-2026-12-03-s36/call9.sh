#!/usr/bin/env bash
# Session 36, call 9: item 176's two parts apart — an experiment build (call9-switch.patch on
# 5c2b7e8: LAYA_CUDA_GEGLU_EARLY_W=0 requests every W box after the wait, the table still copied
# before it) against 8e06a9b's engine (base), interleaved rounds, and kernel traces.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 9 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base both:LAYA_X=0 copy:LAYA_CUDA_GEGLU_EARLY_W=0" \
LAYA_BENCH_SHAPES=10x128,3x512,4x464,5x512,8x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for shape in 10x128 4x464; do
  for v in "laya-engine-base 1" "laya-engine 1" "laya-engine 0"; do
    set -- $v
    LAYA_CUDA_GEGLU_EARLY_W=$2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv \
      $R $1 bench --model $CK --backend cuda --execution graph --json --shapes $shape --warmup 10 --iters 60 \
      > /dev/null 2>>$OUT/bench_err.log
    { echo "## $shape $1 early_w=$2"; python3 .gpu/kernel_trace.py /tmp/trace.tsv | grep -E "forwards|^geglu_gemm|^add_ln_kernel\[(320|480)\]"; } >> $OUT/summary.txt 2>&1
    rm -f /tmp/trace.tsv
  done
done
rm -rf $OUT/ab
log "call 9 end"
