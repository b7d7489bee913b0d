#!/usr/bin/env bash
# Session 42, call 4: the small GEMM's late trigger unconditional (item 205) against the session's
# first engine (base) — GPU tests, the same bytes (english, multilingual), interleaved rounds at the
# small and goal shapes (both layouts); the partial counts on the new engine; a 1x48 trace.
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
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16,1x128,4x64,1x512,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x16,1x48,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ml \
  timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "multilingual variants rc=$?"
grep -v "^==" $OUT/ml/summary.txt >> $OUT/summary.txt
LAYA_VARIANTS="def:LAYA_X=0 attn2:LAYA_CUDA_ATTN_OUT_SPLITS=2 attn4:LAYA_CUDA_ATTN_OUT_SPLITS=4 mlp2:LAYA_CUDA_SMALL_MLP_OUT_SPLITS=2 mlp4:LAYA_CUDA_SMALL_MLP_OUT_SPLITS=4" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/sp \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "splits variants rc=$?"
grep -v "^==" $OUT/sp/summary.txt >> $OUT/summary.txt
cat $OUT/ab/bench.jsonl $OUT/ml/bench.jsonl $OUT/sp/bench.jsonl | gzip -9n > $OUT/bench.jsonl.gz
CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
  --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 60 > /dev/null 2>&1
echo "## 1x48 new" >> $OUT/summary.txt
python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 7 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
rm -rf $OUT/suite $OUT/ab $OUT/ml $OUT/sp /tmp/t.tsv
log "call 4 end"
