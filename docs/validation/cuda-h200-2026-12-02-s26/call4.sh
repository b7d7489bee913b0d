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
