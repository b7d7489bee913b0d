#!/usr/bin/env bash
# Session 23 call 7: the final engine (item 123: nvjet's picks of 769-1,279 rows without clusters)
# — the GPU suite (tests, bench eager and graph, the official package interleaved and its parity,
# HTTP), then the default against LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_FROM=0 (b822916's engine).
set -u
export OUT=${OUT:-/tmp/out}
timeout 400 bash .gpu/run_gpu_suite.sh tests,bench,official,http
echo "suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
mkdir -p /tmp/ab && OUT=/tmp/ab LAYA_VARIANTS="b822916:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_FROM=0 item123:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_FROM=769" \
LAYA_BENCH_SHAPES=8x128,2x512,9x128,1x512,4x464 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 150 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" /tmp/ab/summary.txt >> $OUT/summary.txt
ls $OUT >> $OUT/summary.txt
