#!/usr/bin/env bash
# Session 25 call 2: the fixed engine test; attention's switches at 256-1,024 tokens measured
# again (item 128); cuBLASLt's enumerated configurations against its pick for the four encoder
# GEMMs at 512 and 1,920 rows (item 129).
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* > $OUT/tests.log 2>&1; echo "test_gpu rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |ClusterRuleSwitch" $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_X=0 once256:LAYA_CUDA_ROPE_ONCE_FROM=256 split2:LAYA_CUDA_ATTN_SPLIT_MAX=2" \
LAYA_BENCH_SHAPES=1x256,1x384,1x464,1x512,2x512,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/a timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt
grep -v "^== .* round" $OUT/a/summary.txt >> $OUT/summary.txt; mv $OUT/a/bench.jsonl $OUT/bench.jsonl; rm -rf $OUT/a
timeout 240 $R laya_bench_gemm_pdl --m 512,1920 --nk 3072x1024,5248x1024,1024x1024,1024x2624 > $OUT/gemm.txt 2>&1
echo "gemm_pdl rc=$? ($SECONDS s)" >> $OUT/summary.txt
