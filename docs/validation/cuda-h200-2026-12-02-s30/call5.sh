#!/usr/bin/env bash
# Session 30, call 5: the 1x1x1-cluster rule per multilingual bucket of 144-768 tokens (a339a61's
# engine, four rounds), then the spec derived from it (call5-derive.py) against the default, four rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 5 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
SH=1x144,1x160,1x176,1x192,1x208,1x224,1x240,1x256,1x288,1x320,1x352,1x384,1x416,1x448,1x480,1x512,1x576,1x640,1x704,1x768
V="base:LAYA_X=0 big:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-256:768x768;257-512:2304x768+768x768;513-768:768x768;769-1535"
V="$V attnout_cl:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-256:2304x768;513-768:2304x768;769-1535"
V="$V mlpout_1:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-256:2304x768+768x768+768x1152;257-512:768x768+768x1152;513-768:2304x768+768x768+768x1152;769-1535"
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="$V" LAYA_BENCH_SHAPES=$SH \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/sweep timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) sweep rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/sweep/summary.txt >> $OUT/summary.txt
SPEC=$(python3 .gpu/call5-derive.py $OUT/sweep/bench.jsonl 2>>$OUT/summary.txt)
echo "== derived spec: $SPEC" | tee -a "$OUT/summary.txt"
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="old:LAYA_X=0 new:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=$SPEC" LAYA_BENCH_SHAPES=$SH,1x48,1x1024,4x464 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/check timeout 150 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) check rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/check/summary.txt >> $OUT/summary.txt
echo "== $(date -u +%H:%M:%S) call 5 end" | tee -a "$OUT/summary.txt"
