#!/usr/bin/env bash
# Session 23 call 2: why item 122's splitk_gemm made the mid buckets slower (call 1: +0.45 ms at
# 1x512 with clusters of 4, +0.19 with clusters of 2). laya_bench_splitk_gemm times the two output
# GEMM shapes alone in a graph (cuBLASLt, splitk at each cluster size, plain / programmatic edges,
# the device's active-cluster limits); then the engine at 1x512 with own programmatic edges off.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
echo "== $(date -u +%H:%M:%S) start" >> $OUT/summary.txt
timeout 200 $R laya_bench_splitk_gemm --m 160,256,512,1024,2048 > $OUT/splitk_bench.txt 2>&1
echo "splitk bench rc=$? ($SECONDS s)" >> $OUT/summary.txt
cat $OUT/splitk_bench.txt >> $OUT/summary.txt
LAYA_VARIANTS="cublas:LAYA_CUDA_SPLITK_FROM=0 auto:LAYA_CUDA_SPLITK_FROM=129 auto_noown:LAYA_CUDA_SPLITK_FROM=129,LAYA_CUDA_PDL_OWN_EDGES=0" \
LAYA_BENCH_SHAPES=1x512 LAYA_BENCH_ROUNDS=2 LAYA_BENCH_ITERS=30 \
  timeout 200 bash .gpu/run_env_variants.sh
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
