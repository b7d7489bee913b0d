#!/usr/bin/env bash
# Session 24 call 2: items 125 and 126 narrowed — the lean add+LN with the residual GEMMs and PDL
# around 1,024-1,408 tokens, and 1x1x1 clusters for a set of GEMM shapes at 129-768 rows.
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
fold() {  # one run's files into $OUT's summary.txt / bench.jsonl (the fetch takes 8 files)
  cat $OUT/$1/summary.txt >> $OUT/summary.txt; cat $OUT/$1/bench.jsonl >> $OUT/bench.jsonl
  [ -f $OUT/gpu.txt ] || cp $OUT/$1/gpu.txt $OUT/gpu.txt
  tail -3 $OUT/$1/bench_err.log >> $OUT/bench_err_tail.log; rm -rf $OUT/$1
}
timeout 60 $R test_gpu --gtest_filter='*SingleCta*' > $OUT/tests.log 2>&1; echo "test_gpu (filtered) rc=$?" >> $OUT/summary.txt
L=LAYA_CUDA_LEAN_ADD_LN_FROM; Q=LAYA_CUDA_RESIDUAL_GEMM_FROM; P=LAYA_CUDA_PDL_ALL_FROM
LAYA_VARIANTS="base:LAYA_X=0 l1152r1280:$L=1152,$Q=1280 l1152r1152:$L=1152,$Q=1152 l1152r1152p:$L=1152,$Q=1152,$P=1152 l1024r1024:$L=1024,$Q=1024" \
LAYA_BENCH_SHAPES=2x512,9x128,10x128,11x128 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/a timeout 200 bash .gpu/run_env_variants.sh
echo "A rc=$? ($SECONDS s)" >> $OUT/summary.txt; fold a
C="LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_FROM=129,LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_TO=768,LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER_NK"
LAYA_VARIANTS="base:LAYA_X=0 wi:$C=5248x1024 wiwo:$C=5248x1024+1024x1024 wiwoqkv:$C=5248x1024+1024x1024+3072x1024" \
LAYA_BENCH_SHAPES=1x160,1x256,1x384,1x512,5x128,6x128 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/b timeout 200 bash .gpu/run_env_variants.sh
echo "B rc=$? ($SECONDS s)" >> $OUT/summary.txt; fold b
