#!/usr/bin/env bash
# Session 23 call 1: item 122 — the encoder's attention-output and MLP-output GEMMs on splitk_gemm
# (128 x 128 tiles, K split across a thread-block cluster, partials summed through distributed
# shared memory). The new kernel's tests first, then test_gpu with the path on from 129 tokens,
# then the A/B (env switches of this one build, three interleaved rounds).
set -u
export OUT=${OUT:-/tmp/out}
R=.gpu/run.sh
mkdir -p $OUT
echo "== $(date -u +%H:%M:%S) start" >> $OUT/summary.txt
timeout 120 $R test_gpu --gtest_filter=*Splitk* > $OUT/tests.log 2>&1
echo "splitk tests rc=$?" >> $OUT/summary.txt
LAYA_CUDA_SPLITK_FROM=129 timeout 240 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1
echo "test_gpu (splitk from 129) rc=$?" >> $OUT/summary.txt
grep -E "^\[==========\]|^\[  (PASSED|FAILED) |FAILED|split-K gemm M=|split-K GEMMs," $OUT/tests.log >> $OUT/summary.txt
LAYA_VARIANTS="cublas:LAYA_CUDA_SPLITK_FROM=0 auto:LAYA_CUDA_SPLITK_FROM=129 two:LAYA_CUDA_SPLITK_FROM=129,LAYA_CUDA_SPLITK_SPLITS=2" \
LAYA_BENCH_SHAPES=1x160,1x256,1x384,1x512,2x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 300 bash .gpu/run_env_variants.sh
echo "env variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
ls $OUT >> $OUT/summary.txt
