#!/usr/bin/env bash
# Session 46, call 1 (prepared; no GPU was lent in session 46). Build the experiment's commit
# (README), bundle, run. The fused GeGLU GEMM on 256 x 80 tiles in its three untested forms (item
# 223 / 224): each stage refilled by the warp that releases it last (LAYA_CUDA_GEGLU_TILE_OUTPUTS=80),
# with half the epilogue deferred (+ LAYA_CUDA_GEGLU_DEFER_HALF=1), and with a producer warpgroup
# and the act / mul rows as two m64n80k16 (+ LAYA_CUDA_GEGLU_80_PRODUCER=1) — their kernel tests
# first (a smoke test: nothing else runs if they fail),
# the GPU tests, the producer form's answers against the 64-output tiles' (the same bytes expected),
# traces of 4x464 per form, the A/B at the fused buckets (1x512, unfused, the control).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 1 start, bundled from $(bundle_commit)"
timeout -s KILL 90 $R test_gpu --gtest_filter='*GegluGemm*' > $OUT/smoke.log 2>&1
rc=$?
log "kernel tests rc=$rc"
grep -E "OK \]|FAILED|PASSED" $OUT/smoke.log >> $OUT/summary.txt
[ "$rc" = 0 ] || exit 1
OUT=$OUT/suite timeout -s KILL 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure" -A 3 $OUT/suite/tests.log | head -40 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
LAYA_COMPARE_ENV_B="LAYA_CUDA_GEGLU_TILE_OUTPUTS=80 LAYA_CUDA_GEGLU_80_PRODUCER=1" timeout -s KILL 150 \
  bash .gpu/compare_answers.sh laya-engine laya-engine english >> $OUT/summary.txt 2>&1
echo "compare rule vs 80 with a producer warpgroup, english rc=$?" >> $OUT/summary.txt
log "compare done"
synth_layout english > /dev/null
for v in "64 0 0" "80 0 0" "80 1 0" "80 0 1"; do
  set -- $v
  LAYA_CUDA_GEGLU_TILE_OUTPUTS=$1 LAYA_CUDA_GEGLU_DEFER_HALF=$2 LAYA_CUDA_GEGLU_80_PRODUCER=$3 \
    CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv timeout -s KILL 60 $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 4x464 --warmup 10 --iters 40 > /dev/null 2>&1
  echo "## 4x464 tile outputs $1, half deferred $2, producer warpgroup $3" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -6 >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
LAYA_VARIANTS="t64:LAYA_CUDA_GEGLU_TILE_OUTPUTS=64 t80:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80 t80h:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_DEFER_HALF=1 t80p:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_80_PRODUCER=1" \
LAYA_BENCH_SHAPES=1x512,10x128,3x512,14x128,4x464,4x512,5x512,6x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout -s KILL 320 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
rm -rf $OUT/ab $OUT/suite
log "call 1 end"
