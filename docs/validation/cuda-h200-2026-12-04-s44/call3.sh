#!/usr/bin/env bash
# Session 44, call 3: the act head's first linear with several rows a slot (item 222,
# LAYA_CUDA_ACT_ROWS_PER_SLOT) — GPU tests, the same bytes, rounds, traces of the tail.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 3 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure|SmallLinearRowsPerSlot" $OUT/suite/tests.log | head -20 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
for lay in english multilingual; do
  LAYA_COMPARE_ENV_B="LAYA_CUDA_ACT_ROWS_PER_SLOT=8" timeout 150 bash .gpu/compare_answers.sh laya-engine laya-engine $lay \
    >> $OUT/summary.txt 2>&1
  echo "compare rows-per-slot 8 $lay rc=$?" >> $OUT/summary.txt
done
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="r1:LAYA_X=0 r4:LAYA_CUDA_ACT_ROWS_PER_SLOT=4 r8:LAYA_CUDA_ACT_ROWS_PER_SLOT=8" \
LAYA_BENCH_SHAPES=1x48,8x16,4x464,64x48,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
for v in "1x48 LAYA_X=0" "1x48 LAYA_CUDA_ACT_ROWS_PER_SLOT=8" "64x48 LAYA_X=0" "64x48 LAYA_CUDA_ACT_ROWS_PER_SLOT=8" \
         "16x512 LAYA_X=0" "16x512 LAYA_CUDA_ACT_ROWS_PER_SLOT=8"; do
  set -- $v
  env $2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 40 > /dev/null 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --tail 6 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab
log "call 3 end"
