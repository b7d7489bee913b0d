#!/usr/bin/env bash
# Session 25 call 3: where a forward's time goes now (item 130: each kernel family left out of the
# captured forward in turn, results garbage, times real; an experiment build), and two switches of
# the large buckets measured again (item 131: K rotated in attention's loads up to 8,192 tokens;
# cuBLASLt's candidates timed from 2,048 rows).
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
V="base:LAYA_X=0"
for f in embed qkv rope attn attnout ln1 mlpin geglu mlpout ln2 dec head; do V="$V $f:LAYA_CUDA_ABLATE=$f"; done
LAYA_VARIANTS="$V" LAYA_BENCH_SHAPES=1x48,1x256,1x512,4x464 LAYA_BENCH_ROUNDS=2 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/a timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/ablate.jsonl; rm -rf $OUT/a
LAYA_VARIANTS="base:LAYA_X=0 inloads:LAYA_CUDA_ROPE_ONCE_FROM=8192 tune2048:LAYA_CUDA_GEMM_TUNE_FROM_M=2048" \
LAYA_BENCH_SHAPES=2x512,3x512,4x464,6x512,8x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/b timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "B rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/b/summary.txt >> $OUT/summary.txt; mv $OUT/b/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/b
