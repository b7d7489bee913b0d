#!/usr/bin/env bash
# Session 26 call 4: the suite on the final code of the session's kernels (632728a: items 135 and
# 137) — tests, bench eager and graph, the official package interleaved, HTTP — then attention's
# query tile in the small buckets again now that attention no longer rotates there (item 139, env).
set -u
export OUT=${OUT:-/tmp/out}
timeout 330 bash .gpu/run_gpu_suite.sh tests,bench,official,http
echo "suite rc=$? ($SECONDS s)" >> $OUT/summary.txt
LAYA_VARIANTS="t32:LAYA_X=0 t16:LAYA_CUDA_ATTN_SMALL_TILE=16 t64:LAYA_CUDA_ATTN_SMALL_TILE=64" \
LAYA_BENCH_SHAPES=1x48,1x64,2x32,1x128,4x32 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/ab_bench.jsonl; rm -rf $OUT/a
# Item 136's loss, diagnosed: laya-engine-base here is an EXPERIMENT build (632728a plus
# LAYA_CUDA_ATTN_EXTRA_SMEM: that many unused bytes of dynamic shared memory per attention block;
# the code: call4-code.patch), with and without every own kernel preferring the largest carveout.
LAYA_VARIANTS="e0:LAYA_BENCH_BIN=laya-engine-base,LAYA_CUDA_ATTN_EXTRA_SMEM=0 e16:LAYA_BENCH_BIN=laya-engine-base,LAYA_CUDA_ATTN_EXTRA_SMEM=16384 e64:LAYA_BENCH_BIN=laya-engine-base,LAYA_CUDA_ATTN_EXTRA_SMEM=65536 e64c:LAYA_BENCH_BIN=laya-engine-base,LAYA_CUDA_ATTN_EXTRA_SMEM=65536,LAYA_CUDA_CARVEOUT=100" \
LAYA_BENCH_SHAPES=1x48,1x256,1x512,4x128 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/d timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "D rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/d/summary.txt >> $OUT/summary.txt; mv $OUT/d/bench.jsonl $OUT/diag_bench.jsonl; rm -rf $OUT/d
