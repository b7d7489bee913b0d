#!/usr/bin/env bash
# Session 38, call 1: GPU tests; attention's later K tiles requested before the current tile's
# products (item 185) against 8bf7e9b's engine (base), english; kernel traces at 1x256 / 1x512.
# (The multilingual check of item 184's rule did not fit the carry limit: a later call.)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 1 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x160,1x256,1x384,1x512,2x256,2x512,4x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 170 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for s in 1x256 1x512; do
  for b in laya-engine-base laya-engine; do
    CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R $b bench --model /tmp/ck-english \
      --backend cuda --execution graph --json --shapes $s --warmup 10 --iters 60 > /dev/null 2>&1
    echo "## $s $b" >> $OUT/summary.txt
    python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 16 2>&1 | grep -E "span|attention|^kernel" >> $OUT/summary.txt
    rm -f /tmp/t.tsv
  done
done
log "traces done"
rm -rf $OUT/suite $OUT/ab
log "call 1 end"
