#!/usr/bin/env bash
# Session 40, call 5: the attention output GEMM as three partials by default (kAttnOutSplits 3):
# GPU tests, the old default's bytes against the base engine, interleaved rounds against the old
# default (LAYA_CUDA_ATTN_OUT_SPLITS=2) on english and multilingual.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 5 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
LAYA_COMPARE_ENV_B="LAYA_CUDA_ATTN_OUT_SPLITS=2" timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
echo "compare base / two partials rc=$?" >> $OUT/summary.txt
timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
echo "compare base / new default rc=$? (expected 1: three partials)" >> $OUT/summary.txt
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="two:LAYA_CUDA_ATTN_OUT_SPLITS=2 three:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,2x32,4x16,8x6,1x96,1x128,4x32 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="two:LAYA_CUDA_ATTN_OUT_SPLITS=2 three:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,1x128,4x16 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ml \
  timeout 150 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "multilingual variants rc=$?"
grep -v "^==" $OUT/ml/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ml/bench.jsonl > $OUT/ml-bench.jsonl.gz
rm -rf $OUT/suite $OUT/ab $OUT/ml
log "call 5 end"
