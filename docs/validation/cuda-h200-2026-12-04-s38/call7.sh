#!/usr/bin/env bash
# Session 38, call 7: compare_answers.sh's final form (dump names every layout has) on english and
# multilingual, against itself and with one attention key group for B (must fail).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
{
  for layout in english multilingual; do
    echo "== $layout self"; bash .gpu/compare_answers.sh laya-engine laya-engine $layout; echo "rc=$?"
    echo "== $layout one key group for B"
    LAYA_COMPARE_ENV_B=LAYA_CUDA_ATTN_SPLIT_MAX=1 bash .gpu/compare_answers.sh laya-engine laya-engine $layout; echo "rc=$?"
  done
} >> "$OUT/summary.txt" 2>&1
