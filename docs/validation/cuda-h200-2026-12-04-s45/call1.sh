#!/usr/bin/env bash
# Session 45, call 1: the fused GeGLU GEMM on 256 x 80 tiles (item 223) — the GPU tests (the new
# kernel cases), the same bytes with 64- and 80-output tiles end to end, the A/B of the tile width
# in one build at the fused buckets, traces of 4x464.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 1 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout -s KILL 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure|geglu gemm M=" -A 3 $OUT/suite/tests.log | head -40 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
for lay in english multilingual; do
  LAYA_COMPARE_ENV_B=LAYA_CUDA_GEGLU_TILE_OUTPUTS=64 timeout -s KILL 150 bash .gpu/compare_answers.sh laya-engine laya-engine $lay >> $OUT/summary.txt 2>&1
  echo "compare rule vs 64 $lay rc=$?" >> $OUT/summary.txt
done
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="t64:LAYA_CUDA_GEGLU_TILE_OUTPUTS=64 t80:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80 rule:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x512,10x128,3x512,14x128,4x464,4x512,5x512,6x512,8x512,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout -s KILL 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
for v in 64 80; do
  LAYA_CUDA_GEGLU_TILE_OUTPUTS=$v CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 4x464 --warmup 10 --iters 40 > /dev/null 2>&1
  echo "## 4x464 tile outputs $v" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -8 >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab
log "call 1 end"
