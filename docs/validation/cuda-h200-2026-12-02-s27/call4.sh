#!/usr/bin/env bash
# Session 27 call 4: is call 3's +0.02 for `pf` the code or the machine? Call 2's build (prefetch
# spans inside AddLnParams, laya-engine-c2) and call 3's (a kernel argument of their own, strided
# spans) side by side with 7d7dd67, interleaved.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
$R laya-engine version > /dev/null 2>&1   # unpacks the bundle
xz -dc .gpu/laya-engine-c2.xz > /tmp/laya-gpu/bin/laya-engine-c2 && chmod +x /tmp/laya-gpu/bin/laya-engine-c2
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base c2off:LAYA_BENCH_BIN=laya-engine-c2,LAYA_CUDA_L2_PREFETCH=0 c2pf:LAYA_BENCH_BIN=laya-engine-c2 c3off:LAYA_CUDA_L2_PREFETCH=0 c3pf:LAYA_X=0 c3k2:LAYA_CUDA_L2_PREFETCH_KTILES=2 c3k4:LAYA_CUDA_L2_PREFETCH_KTILES=4" \
LAYA_BENCH_SHAPES=1x48,4x64,1x256,1x512,4x128,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 \
  OUT=$OUT/a timeout 400 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
