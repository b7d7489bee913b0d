#!/usr/bin/env bash
# Session 41, call 4: the session's engine (item 201's evict-first weights, item 203's fused final
# LayerNorms) against its first (base) — GPU tests, the same bytes (english, multilingual),
# interleaved rounds at the goal and small shapes, traces at 1x48 and 16x512 (the new kernel).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 4 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure" $OUT/suite/tests.log | head -20 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
for lay in english multilingual; do
  timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine $lay >> $OUT/summary.txt 2>&1
  echo "compare $lay rc=$?" >> $OUT/summary.txt
done
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16,1x128,4x64,1x512,4x464,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for shape in 1x48 16x512; do
  for bin in laya-engine-base laya-engine; do
    CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R $bin bench \
      --model /tmp/ck-english --backend cuda --execution graph --json --shapes $shape --warmup 10 --iters 40 > /dev/null 2>&1
    echo "## $shape $bin" >> $OUT/summary.txt
    python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | grep -E "forwards of|kernel\[grid\]|add_ln|type_ln|final_ln" >> $OUT/summary.txt
    rm -f /tmp/t.tsv
  done
done
rm -rf $OUT/suite $OUT/ab
log "call 4 end"
