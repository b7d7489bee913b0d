#!/usr/bin/env bash
# Session 29, call 2: do the english-tuned bucket rules hold at the multilingual dims (d = 768,
# inter 1,152)? Env switches of 42f2751's engine on the multilingual checkpoint, four rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 2 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
LAYA_BENCH_LAYOUT=multilingual \
LAYA_VARIANTS="base:LAYA_X=0 geglu2560:LAYA_CUDA_GEGLU_GEMM_FROM=2560 geglu0:LAYA_CUDA_GEGLU_GEMM_FROM=0 aos4:LAYA_CUDA_ATTN_OUT_SPLITS=4 mlp4:LAYA_CUDA_SMALL_MLP_OUT_SPLITS=4 wide32:LAYA_CUDA_SMALL_GEMM_WIDE_MAX_M=32" \
LAYA_BENCH_SHAPES=1x16,1x48,2x32,1x64,1x128,4x64,1x512,10x128,3x512,4x464,16x512 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/a timeout 540 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) variants rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/a/summary.txt >> $OUT/summary.txt
cp $OUT/a/bench.jsonl $OUT/bench.jsonl 2>/dev/null
echo "== $(date -u +%H:%M:%S) call 2 end" | tee -a "$OUT/summary.txt"
