#!/usr/bin/env bash
# Session 36, call 2: cuBLASLt's candidates timed longer / more of them (item 173). One build's
# switches in interleaved rounds on the buckets whose GEMMs are timed (from 2,560 rows), and from
# 1,792 rows with the longer timing; each variant's picks logged once.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
CK=/tmp/ck-english
LONG=LAYA_CUDA_GEMM_TUNE_WARM=10,LAYA_CUDA_GEMM_TUNE_REPS=40
LAYA_VARIANTS="base:LAYA_X=0 long:$LONG long16:$LONG,LAYA_CUDA_GEMM_TUNE_CANDIDATES=16 long1792:$LONG,LAYA_CUDA_GEMM_TUNE_FROM_M=1792" \
LAYA_BENCH_SHAPES=4x464,4x512,5x512,8x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 420 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for v in "base LAYA_X=0" "long $LONG" "long16 $LONG,LAYA_CUDA_GEMM_TUNE_CANDIDATES=16" "long1792 $LONG,LAYA_CUDA_GEMM_TUNE_FROM_M=1792"; do
  set -- $v
  echo "## $1" >> $OUT/picks.txt
  env $(echo $2 | tr ',' ' ') LAYA_CUDA_GEMM_LOG=1 timeout 60 $R laya-engine bench --model $CK --backend cuda \
    --execution graph --json --shapes 4x464,16x512 --warmup 2 --iters 3 2>&1 >/dev/null | grep "gemm plan" | grep timed >> $OUT/picks.txt
done
rm -rf $OUT/ab
log "call 2 end"
