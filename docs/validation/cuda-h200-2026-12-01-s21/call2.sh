#!/usr/bin/env bash
# Session 21 call 2 (item 117): the fused GeGLU GEMM with 2, 3 or 4 consumer warpgroups (chosen per
# call) — test_cuda_host, test_gpu; then, one build, env variants in three interleaved rounds:
# c4 (the old four-consumer kernel everywhere), auto (default), gg129 (fused from 129 tokens, auto),
# gg129c2 (fused from 129 tokens, two consumers).
set -u
export OUT=${OUT:-/tmp/out}
PH=tests
source .gpu/suite_common.sh
S=$OUT/summary.txt
record_machine
$R test_cuda_host > $OUT/tests.log 2>&1; log "test_cuda_host rc=$?"
timeout 200 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; log "test_gpu rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure|consumers" $OUT/tests.log | head -20 | tee -a $S
LAYA_VARIANTS="c4:LAYA_CUDA_GEGLU_CONSUMERS=4 auto:LAYA_X=0 gg129:LAYA_CUDA_GEGLU_GEMM_FROM=129 gg129c2:LAYA_CUDA_GEGLU_GEMM_FROM=129,LAYA_CUDA_GEGLU_CONSUMERS=2" \
LAYA_BENCH_SHAPES=1x256,1x464,1x512,2x512,3x512,4x464,8x512,16x512 LAYA_BENCH_ROUNDS=3 \
  timeout 330 bash .gpu/run_env_variants.sh
log "call2 end ($SECONDS s)"
