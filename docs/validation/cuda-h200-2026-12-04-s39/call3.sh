#!/usr/bin/env bash
# Session 39, call 3: code run once before the programmatic wait to warm the instruction caches —
# the probe's warm rows (laya_bench_icache) and add+LN's warm pass (LAYA_CUDA_LN_WARM=1, item 195)
# against 58e439d's engine (base): tests, the same bytes, interleaved rounds, traces at 1x48.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 3 start, bundled from $(bundle_commit)"
echo "## icache, 128 threads" >> $OUT/summary.txt
timeout 120 $R laya_bench_icache --ctas 48,132 --threads 128 >> $OUT/summary.txt 2>&1
log "icache done"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
LAYA_CUDA_LN_WARM=1 timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* > /tmp/gt.log 2>&1
echo "warm test_gpu rc=$? $(grep -E '^\[  (PASSED|FAILED) ' /tmp/gt.log | tr '\n' ' ')" >> $OUT/summary.txt
grep -E "^\[  FAILED" /tmp/gt.log | head >> $OUT/summary.txt
timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine >> $OUT/summary.txt 2>&1
echo "compare base/new rc=$?" >> $OUT/summary.txt
LAYA_COMPARE_ENV_B="LAYA_CUDA_LN_WARM=1" timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine >> $OUT/summary.txt 2>&1
echo "compare base/warm rc=$?" >> $OUT/summary.txt
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0 warm:LAYA_CUDA_LN_WARM=1" \
LAYA_BENCH_SHAPES=1x48,4x64,1x128,1x512,4x464,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for v in base:laya-engine-base:0 new:laya-engine:0 warm:laya-engine:1; do
  IFS=: read -r name b w <<< "$v"
  LAYA_CUDA_LN_WARM=$w CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R $b bench --model /tmp/ck-english \
    --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x48 $name" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 8 2>&1 | grep -E "span|add_ln|  small_gemm|  attention" >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab
log "call 3 end"
