#!/usr/bin/env bash
# Session 38, call 5: the new scripts/gpu/compare_answers.sh checked both ways — the engine against
# itself (the same bytes) and against the build with item 184's rule undone (attention's key groups
# differ at 129-448-token rows: results differ by rounding, so it must say NO and exit 1).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
{
  echo "== self"; bash .gpu/compare_answers.sh laya-engine laya-engine; echo "rc=$?"
  echo "== rule undone (base) against the engine"; bash .gpu/compare_answers.sh laya-engine-base laya-engine; echo "rc=$?"
} >> "$OUT/summary.txt" 2>&1
