#!/usr/bin/env bash
# Session 29, call 7: which multilingual GEMM and rows make nvjet's clusters pay at 512 rows (call 6:
# no 1x1x1 rule at all, 1x512 -0.049 but 768 tokens +0.027): the rule's 129-768 range without the
# MLP input GEMM (2304x768), without the attention output (768x768), and without 449-512 rows.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "== $(date -u +%H:%M:%S) call 7 start, bundled from $(cat .gpu/commit.txt)" | tee -a "$OUT/summary.txt"
C=LAYA_CUDA_GEMM_SINGLE_CTA_CLUSTER
LAYA_BENCH_LAYOUT=multilingual \
LAYA_VARIANTS="base:LAYA_X=0 noMLPin:$C=1-64;129-768:768x768;769-1535 noAO:$C=1-64;129-768:2304x768;769-1535 not449:$C=1-64;129-448:2304x768+768x768;513-768:2304x768+768x768;769-1535" \
LAYA_BENCH_SHAPES=1x256,1x384,1x464,1x512,2x256,1x640,6x128 \
LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/a timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
echo "== $(date -u +%H:%M:%S) variants rc=$?" | tee -a "$OUT/summary.txt"
cat $OUT/a/summary.txt >> $OUT/summary.txt
cp $OUT/a/bench.jsonl $OUT/bench.jsonl 2>/dev/null
echo "== $(date -u +%H:%M:%S) call 7 end" | tee -a "$OUT/summary.txt"
