#!/usr/bin/env bash
# Session 39, call 2: GPU tests; the fused GeGLU GEMM's epilogue spread over fewer k-tiles
# (LAYA_CUDA_GEGLU_SPREAD, item 193) and add+LN compiled per hidden size (item 194), against
# 5306e5a's engine (base): the same bytes, interleaved rounds, traces at 4x464.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
for s in 8 4 2; do
  LAYA_CUDA_GEGLU_SPREAD=$s timeout 120 $R test_gpu --gtest_filter='*GegluGemm*:*FusedGeglu*' > /tmp/gt.log 2>&1
  echo "spread $s geglu tests rc=$? $(grep -E '^\[  (PASSED|FAILED) ' /tmp/gt.log | tr '\n' ' ')" >> $OUT/summary.txt
done
timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine >> $OUT/summary.txt 2>&1
echo "compare base/new rc=$?" >> $OUT/summary.txt
LAYA_COMPARE_ENV_B="LAYA_CUDA_GEGLU_SPREAD=4" timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine >> $OUT/summary.txt 2>&1
echo "compare base/spread4 rc=$?" >> $OUT/summary.txt
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0 s8:LAYA_CUDA_GEGLU_SPREAD=8 s4:LAYA_CUDA_GEGLU_SPREAD=4 s2:LAYA_CUDA_GEGLU_SPREAD=2" \
LAYA_BENCH_SHAPES=1x48,1x512,3x512,4x464,8x512,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for v in base:laya-engine-base:16 new:laya-engine:16 s4:laya-engine:4 s2:laya-engine:2; do
  IFS=: read -r name b s <<< "$v"
  LAYA_CUDA_GEGLU_SPREAD=$s CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R $b bench --model /tmp/ck-english \
    --backend cuda --execution graph --json --shapes 4x464 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 4x464 $name" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | grep -E "span|geglu_gemm|add_ln" >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab
log "call 2 end"
