#!/usr/bin/env bash
# Session 29, call 6: three more english-tuned bounds at the multilingual dims (env switches of
# 871f9a0's engine, multilingual checkpoint, four rounds): the fused GeGLU GEMM from 513 tokens,
# every own edge programmatic from 513 tokens, no 1x1x1-cluster rule for cuBLASLt.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 6 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
LAYA_BENCH_LAYOUT=multilingual \
LAYA_VARIANTS="base:LAYA_X=0 geglu513:LAYA_CUDA_GEGLU_GEMM_FROM=513 pdl513:LAYA_CUDA_PDL_ALL_FROM=513 nocluster:LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER=none" \
LAYA_BENCH_SHAPES=1x256,1x512,6x128,7x128,9x128,2x512,1x1024,4x464 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/a timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) variants rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/a/summary.txt >> $OUT/summary.txt
cp $OUT/a/bench.jsonl $OUT/bench.jsonl 2>/dev/null
echo "== $(date -u +%H:%M:%S) call 6 end" | tee -a "$OUT/summary.txt"
