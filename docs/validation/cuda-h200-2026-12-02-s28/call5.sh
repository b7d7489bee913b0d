#!/usr/bin/env bash
# Session 28 call 5: which of item 146's spans carry its gain — the plan less one span at a time,
# and one k-tile instead of two (env switches of 08ef858's build; no tests: the code is call 4's).
set -u
export OUT=${OUT:-/tmp/out}
LAYA_VARIANTS="all:LAYA_X=0 no64:LAYA_CUDA_GEGLU_PREFETCH=63 no32:LAYA_CUDA_GEGLU_PREFETCH=95 no8:LAYA_CUDA_GEGLU_PREFETCH=119 no4:LAYA_CUDA_GEGLU_PREFETCH=123 kt1:LAYA_CUDA_GEGLU_PREFETCH_KTILES=1 none:LAYA_CUDA_GEGLU_PREFETCH=0" \
LAYA_BENCH_SHAPES=1x160,1x256,1x512,4x128,2x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
