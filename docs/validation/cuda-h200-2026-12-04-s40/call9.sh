#!/usr/bin/env bash
# Session 40, call 9: add+LN issues the loads of its first three split-K parts before it adds them (695f6e8)
# against the build before it (ff0373f, base): GPU tests, the same bytes (english, multilingual),
# interleaved rounds; then the partial counts again on the new build (one more for each GEMM).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 9 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
for layout in english multilingual; do
  timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine $layout >> $OUT/summary.txt 2>&1
  echo "compare $layout rc=$?" >> $OUT/summary.txt
done
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0 attn4:LAYA_CUDA_ATTN_OUT_SPLITS=4 mlp4:LAYA_CUDA_SMALL_MLP_OUT_SPLITS=4" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16,1x128,1x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 280 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0 attn3:LAYA_CUDA_ATTN_OUT_SPLITS=3" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ml \
  timeout 150 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "multilingual variants rc=$?"
grep -v "^==" $OUT/ml/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ml/bench.jsonl > $OUT/ml-bench.jsonl.gz
synth_layout english > /dev/null
for b in laya-engine-base laya-engine; do
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R $b bench --model /tmp/ck-english \
    --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x48 $b" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -8 >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab $OUT/ml
log "call 9 end"
