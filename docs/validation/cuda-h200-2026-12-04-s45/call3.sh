#!/usr/bin/env bash
# Session 45, call 3 (prepared, not run: no GPU was lent after call 2). Build the experiment's
# commit (README), bundle, run. The 80-output tiles with each stage refilled by the warp that
# releases it last (item 223, second form), with the whole epilogue after each tile or half of it
# deferred into the next tile (LAYA_CUDA_GEGLU_DEFER_HALF=1) — their kernel tests, traces of 4x464
# at 64 / 80 / 80 half deferred, the A/B at the buckets where the rule takes 80.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 3 start, bundled from $(bundle_commit)"
timeout -s KILL 90 $R test_gpu --gtest_filter='*GegluGemm*' > $OUT/smoke.log 2>&1
rc=$?
log "kernel tests rc=$rc"
grep -E "OK \]|FAILED|PASSED" $OUT/smoke.log >> $OUT/summary.txt
[ "$rc" = 0 ] || exit 1
synth_layout english > /dev/null
for v in "64 0" "80 0" "80 1"; do
  set -- $v
  LAYA_CUDA_GEGLU_TILE_OUTPUTS=$1 LAYA_CUDA_GEGLU_DEFER_HALF=$2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so \
    LAYA_KERNEL_TRACE=/tmp/t.tsv timeout -s KILL 60 $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 4x464 --warmup 10 --iters 40 > /dev/null 2>&1
  echo "## 4x464 tile outputs $1, half deferred $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -4 >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
LAYA_VARIANTS="t64:LAYA_CUDA_GEGLU_TILE_OUTPUTS=64 t80:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80 t80h:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_DEFER_HALF=1" \
LAYA_BENCH_SHAPES=14x128,4x464,4x512,5x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout -s KILL 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
rm -rf $OUT/ab
log "call 3 end"
