#!/usr/bin/env bash
# Session 43, call 1: the action head in one kernel (item 213, default) and the GeGLU pass's thread
# layouts (item 214, LAYA_CUDA_GEGLU_SHAPE) — GPU tests, the same bytes (english, multilingual, each
# GeGLU layout), interleaved rounds against the session's first engine (base), traces of the tail.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 1 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure" $OUT/suite/tests.log | head -20 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
for lay in english multilingual; do
  timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine $lay >> $OUT/summary.txt 2>&1
  echo "compare $lay rc=$?" >> $OUT/summary.txt
done
for sh in 1 2; do
  LAYA_COMPARE_ENV_B="LAYA_CUDA_GEGLU_SHAPE=$sh" timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
  echo "compare geglu shape $sh rc=$?" >> $OUT/summary.txt
done
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0 unfused:LAYA_CUDA_ACT_HEAD_FUSED=0" \
LAYA_BENCH_SHAPES=1x16,1x48,1x128,4x16,4x64,1x512,4x464,16x512 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "act head variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
LAYA_VARIANTS="g0:LAYA_X=0 g1:LAYA_CUDA_GEGLU_SHAPE=1 g2:LAYA_CUDA_GEGLU_SHAPE=2" \
LAYA_BENCH_SHAPES=1x160,1x256,1x384,1x512,2x512,4x64 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=40 OUT=$OUT/gg \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "geglu variants rc=$?"
grep -v "^==" $OUT/gg/summary.txt >> $OUT/summary.txt
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x16,1x48,1x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ml \
  timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "multilingual variants rc=$?"
grep -v "^==" $OUT/ml/summary.txt >> $OUT/summary.txt
cat $OUT/ab/bench.jsonl $OUT/gg/bench.jsonl $OUT/ml/bench.jsonl | gzip -9n > $OUT/bench.jsonl.gz
synth_layout english > /dev/null
for v in "1x48 LAYA_X=0" "1x48 LAYA_CUDA_ACT_HEAD_FUSED=0" "1x512 LAYA_X=0" "1x512 LAYA_CUDA_GEGLU_SHAPE=2"; do
  set -- $v
  env $2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 8 --tail 6 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab $OUT/gg $OUT/ml
log "call 1 end"
