#!/usr/bin/env bash
# Session 24 call 4: the final engine (items 125-126) — the GPU suite (tests, bench eager and graph,
# the official package interleaved and its parity, HTTP); the A/B against 93f26d5's settings (its
# switches); the next thresholds (env switches).
set -u
export OUT=${OUT:-/tmp/out}
timeout 330 bash .gpu/run_gpu_suite.sh tests,bench,official,http
echo "suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
OLD="LAYA_CUDA_LEAN_ADD_LN_FROM=1536,LAYA_CUDA_RESIDUAL_GEMM_FROM=1536,LAYA_CUDA_PDL_ALL_FROM=1536,LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=1-64;769-1535"
mkdir -p /tmp/ab && OUT=/tmp/ab LAYA_VARIANTS="final:LAYA_X=0 s23:$OLD" \
LAYA_BENCH_SHAPES=1x48,1x160,1x256,1x384,1x512,5x128,6x128,7x128,2x512,9x128,10x128,11x128,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 \
  timeout 120 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" /tmp/ab/summary.txt >> $OUT/summary.txt
L=LAYA_CUDA_LEAN_ADD_LN_FROM; Q=LAYA_CUDA_RESIDUAL_GEMM_FROM
mkdir -p /tmp/b && OUT=/tmp/b LAYA_VARIANTS="final:LAYA_X=0 lr257:$L=257,$Q=257 lr129:$L=129,$Q=129 p513:LAYA_CUDA_PDL_ALL_FROM=513" \
LAYA_BENCH_SHAPES=1x160,1x256,1x384,1x512,5x128,6x128,7x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 \
  timeout 120 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "B rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" /tmp/b/summary.txt >> $OUT/summary.txt
cat /tmp/ab/bench.jsonl /tmp/b/bench.jsonl > $OUT/ab_bench.jsonl
ls $OUT >> $OUT/summary.txt
