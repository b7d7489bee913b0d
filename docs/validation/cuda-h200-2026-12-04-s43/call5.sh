#!/usr/bin/env bash
# Session 43, call 5: item 216's rules as defaults (global layers' K by the RoPE pass where rows
# average > 256 tokens; windowed layers at most two key groups) against the session's first engine
# (base) — GPU tests, the old rules' bytes under the switches, rounds on three layouts, a trace.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 5 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure" $OUT/suite/tests.log | head -20 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
for lay in english multilingual; do
  LAYA_COMPARE_ENV_B="LAYA_CUDA_ATTN_LOCAL_SPLIT_MAX=4 LAYA_CUDA_ROPE_ONCE_GLOBAL_ROW=0" \
    timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine $lay >> $OUT/summary.txt 2>&1
  echo "compare old rules $lay rc=$?" >> $OUT/summary.txt
done
LAYA_COMPARE_ENV_B="LAYA_CUDA_ATTN_LOCAL_SPLIT_MAX=4" \
  timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
echo "compare new global rule alone rc=$?" >> $OUT/summary.txt
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0 l1:LAYA_CUDA_ATTN_LOCAL_SPLIT_MAX=1 r192:LAYA_CUDA_ROPE_ONCE_GLOBAL_ROW=192" \
LAYA_BENCH_SHAPES=1x48,1x160,1x256,1x320,1x384,1x448,1x464,1x512,2x256,4x128,4x464 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 400 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
for lay in multilingual typed-decisions; do
  LAYA_BENCH_LAYOUT=$lay LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
  LAYA_BENCH_SHAPES=1x256,1x384,1x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/$lay \
    timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
  log "$lay variants rc=$?"
  grep -v "^==" $OUT/$lay/summary.txt >> $OUT/summary.txt
done
cat $OUT/ab/bench.jsonl $OUT/multilingual/bench.jsonl $OUT/typed-decisions/bench.jsonl | gzip -9n > $OUT/bench.jsonl.gz
synth_layout english > /dev/null
CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
  --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x512 --warmup 10 --iters 60 > /dev/null 2>&1
echo "## 1x512 new" >> $OUT/summary.txt
python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 24 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
rm -rf $OUT/suite $OUT/ab $OUT/multilingual $OUT/typed-decisions /tmp/t.tsv
log "call 5 end"
