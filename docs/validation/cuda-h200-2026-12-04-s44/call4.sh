#!/usr/bin/env bash
# Session 44, call 4: the act head's first linear in slots of 8 rows x 4 columns from 16 row slots
# (item 222) — GPU tests, the same bytes as 19eb113's build and across the switch, rounds, traces.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 4 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure|SmallLinearRowsPerSlot" $OUT/suite/tests.log | head -20 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
echo "compare base english rc=$?" >> $OUT/summary.txt
for e in LAYA_CUDA_ACT_ROWS_PER_SLOT=8 LAYA_CUDA_ACT_ROWS_PER_SLOT=3; do
  LAYA_COMPARE_ENV_B="$e" timeout 150 bash .gpu/compare_answers.sh laya-engine laya-engine english >> $OUT/summary.txt 2>&1
  echo "compare $e rc=$?" >> $OUT/summary.txt
done
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="r1:LAYA_CUDA_ACT_ROWS_PER_SLOT=1 rule:LAYA_X=0 r8:LAYA_CUDA_ACT_ROWS_PER_SLOT=8" \
LAYA_BENCH_SHAPES=1x48,8x16,16x48,4x464,64x48,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
for v in "1x48 LAYA_CUDA_ACT_ROWS_PER_SLOT=8" "16x48 LAYA_CUDA_ACT_ROWS_PER_SLOT=1" "16x48 LAYA_X=0" \
         "64x48 LAYA_X=0" "16x512 LAYA_X=0"; do
  set -- $v
  env $2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 40 > /dev/null 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --tail 3 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab
log "call 4 end"
