#!/usr/bin/env bash
# Session 41, call 1: the small GEMM's weights loaded L2 evict-first (item 201) — GPU tests, the
# same bytes with the hint (and against the base build), interleaved rounds base / off / on, kernel
# traces at 1x48 off / on.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 1 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure|error" $OUT/suite/tests.log | head -20 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
LAYA_COMPARE_ENV_B="LAYA_CUDA_SMALL_W_EVICT_FIRST=1" timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
echo "compare english, base vs hint rc=$?" >> $OUT/summary.txt
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base off:LAYA_CUDA_SMALL_W_EVICT_FIRST=0 on:LAYA_CUDA_SMALL_W_EVICT_FIRST=1" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16,1x128,1x512,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for ef in 0 1; do
  LAYA_CUDA_SMALL_W_EVICT_FIRST=$ef CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x48 evict-first $ef" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -12 >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab
log "call 1 end"
