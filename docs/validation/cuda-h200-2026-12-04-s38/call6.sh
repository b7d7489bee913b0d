#!/usr/bin/env bash
# Session 38, call 6: compare_answers.sh (switches for B, the rc fixed) checked both ways — the
# engine against itself, and against itself with attention's key groups capped at one
# (LAYA_CUDA_ATTN_SPLIT_MAX=1: the 512-token rows' attention merges no groups, different rounding).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
{
  echo "== self"; bash .gpu/compare_answers.sh laya-engine laya-engine; echo "rc=$?"
  echo "== one key group for B"
  LAYA_COMPARE_ENV_B=LAYA_CUDA_ATTN_SPLIT_MAX=1 bash .gpu/compare_answers.sh laya-engine laya-engine; echo "rc=$?"
} >> "$OUT/summary.txt" 2>&1
