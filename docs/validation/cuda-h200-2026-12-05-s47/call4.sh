#!/usr/bin/env bash
# Session 47, call 4: why t80p loses at 15x128 and wins at 4x480 (both 1,920 tokens): traces of both
# shapes per form, then t64 / t80p at 14x128, 15x128, 16x128, 4x480 (five rounds).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 4 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
for shape in 15x128 4x480; do
  for v in "64 0" "80 1"; do
    set -- $v
    LAYA_CUDA_GEGLU_TILE_OUTPUTS=$1 LAYA_CUDA_GEGLU_80_PRODUCER=$2 \
      CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv timeout -s KILL 60 $R laya-engine bench \
      --model /tmp/ck-english --backend cuda --execution graph --json --shapes $shape --warmup 10 --iters 40 > /dev/null 2>&1
    echo "## $shape tile outputs $1, producer $2" >> $OUT/summary.txt
    python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -9 >> $OUT/summary.txt
    rm -f /tmp/t.tsv
  done
done
log "traces done"
LAYA_VARIANTS="t64:LAYA_CUDA_GEGLU_TILE_OUTPUTS=64 t80p:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_80_PRODUCER=1" \
LAYA_BENCH_SHAPES=14x128,15x128,16x128,4x480 LAYA_BENCH_ROUNDS=5 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout -s KILL 150 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/call4-bench.jsonl.gz
rm -rf $OUT/ab
log "call 4 end"
