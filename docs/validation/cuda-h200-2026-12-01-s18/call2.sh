#!/usr/bin/env bash
# Session 18 call 2 (item 103): the one-wave tile shape (128 x 80) as the persistent fused GeGLU
# GEMM's tile at 1,280-8,192 tokens, where the 256 x 64 tiles' last round is partial (1,920 tokens:
# 328 tiles = 2.5 rounds on 132 SMs; 128 x 80: 495 tiles = 3.75 rounds of 0.625 the work each).
# Baseline: the default (256 x 64 from 1,280 tokens); new: LAYA_CUDA_GEGLU_WAVE_FROM=1280 with
# LAYA_CUDA_GEGLU_WAVE_TO=8192. Three interleaved rounds, graph host p50.
set -u
export OUT=${OUT:-/tmp/out}
export LAYA_AB_BASE_ENV="LAYA_CUDA_GEGLU_WAVE_FROM=0"
export LAYA_CUDA_GEGLU_WAVE_FROM=1280 LAYA_CUDA_GEGLU_WAVE_TO=8192  # the new build's runs
export LAYA_BENCH_SHAPES=1x512,10x128,3x512,4x464,4x512,5x512,8x512,16x512
export LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30
rm -rf /tmp/laya-gpu
timeout 400 bash .gpu/run_ab_suite.sh bench
echo "suite rc=$?" >> $OUT/summary.txt
