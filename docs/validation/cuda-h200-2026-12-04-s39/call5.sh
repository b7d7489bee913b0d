#!/usr/bin/env bash
# Session 39, call 5: the lean add+LN (129 rows and up) compiled per hidden size or for any size
# (LAYA_CUDA_LN_SIZED_LEAN=0, item 196), against 5306e5a's engine (base): interleaved rounds on the
# lean form's buckets, traces at 16x512.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 5 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0 gen:LAYA_CUDA_LN_SIZED_LEAN=0" \
LAYA_BENCH_SHAPES=1x512,3x512,4x464,8x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for v in base:laya-engine-base:1 new:laya-engine:1 gen:laya-engine:0; do
  IFS=: read -r name b s <<< "$v"
  LAYA_CUDA_LN_SIZED_LEAN=$s CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R $b bench --model /tmp/ck-english \
    --backend cuda --execution graph --json --shapes 16x512 --warmup 10 --iters 40 > /dev/null 2>&1
  echo "## 16x512 $name" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | grep -E "span|add_ln|geglu_gemm|nvjet" >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/ab
log "call 5 end"
