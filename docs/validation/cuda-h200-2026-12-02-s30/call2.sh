#!/usr/bin/env bash
# Session 30, call 2: GEMM timing bound by row count (english, multilingual); the 1x1x1-cluster
# rule per english bucket of 144-768 tokens (env switches of 529ad3a's engine, four rounds).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 2 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
V="base:LAYA_X=0 tune1024:LAYA_CUDA_GEMM_TUNE_FROM_M=1024 tune4096:LAYA_CUDA_GEMM_TUNE_FROM_M=4096"
LAYA_BENCH_LAYOUT=english LAYA_VARIANTS="$V" \
LAYA_BENCH_SHAPES=2x512,10x128,3x512,7x256,4x464,4x512,9x256,5x512,6x512,7x512 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/entune timeout 150 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) english tune rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/entune/summary.txt >> $OUT/summary.txt
LAYA_BENCH_LAYOUT=multilingual LAYA_VARIANTS="$V" \
LAYA_BENCH_SHAPES=2x512,10x128,3x512,7x256,4x464,4x512,9x256,5x512,6x512,7x512,2x1024,3x1024 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/mltune timeout 150 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) multilingual tune rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/mltune/summary.txt >> $OUT/summary.txt
V="base:LAYA_X=0 qkv_1:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-768:5248x1024+1024x1024+3072x1024;769-1535"
V="$V mlpout_1:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-768:5248x1024+1024x1024+1024x2624;769-1535"
V="$V attnout_cl:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;129-768:5248x1024;769-1535"
LAYA_BENCH_LAYOUT=english LAYA_VARIANTS="$V" \
LAYA_BENCH_SHAPES=1x144,1x160,1x176,1x192,1x208,1x224,1x240,1x256,1x288,1x320,1x352,1x384,1x416,1x448,1x480,1x512,2x288,2x320,2x352,3x256 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/encl timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) english cluster rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/encl/summary.txt >> $OUT/summary.txt
echo "== $(date -u +%H:%M:%S) call 2 end" | tee -a "$OUT/summary.txt"
