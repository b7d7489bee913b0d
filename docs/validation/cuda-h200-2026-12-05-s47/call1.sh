#!/usr/bin/env bash
# Session 47, call 1 (prepared; no GPU was lent in session 47). Build the experiment's commit 03ba318
# (README), bundle, run. Supersedes session 46's call1.sh (03ba318 holds 7b138c0's forms too): the
# fused GeGLU GEMM's untested tile forms where the engine fuses (>= 1,280 tokens) — 256 x 80 with the
# ring refilled by the last releasing warp (t80), + half the epilogue deferred (t80h), with a
# producer warpgroup (t80p), 256 x 40 (t40) and 128 x 80 (t128), those two also with a ring of 5
# stages (t40s5, t128s5) — their kernel tests first (a smoke
# test: nothing else runs if they fail), the GPU tests, answers against the 64-output tiles' (the
# same bytes expected), traces of 4x464 per form, the A/B at seven shapes, three rounds (1x512, unfused, the control).
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
[ "$rc" = 0 ] || { grep -E "Failure|Expected|Which is|tiles" $OUT/smoke.log | head -40 >> $OUT/summary.txt; exit 1; }
OUT=$OUT/suite timeout -s KILL 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure" -A 3 $OUT/suite/tests.log | head -40 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
for b in "LAYA_CUDA_GEGLU_TILE_OUTPUTS=80 LAYA_CUDA_GEGLU_80_PRODUCER=1" "LAYA_CUDA_GEGLU_TILE_OUTPUTS=40" \
         "LAYA_CUDA_GEGLU_TILE_OUTPUTS=80 LAYA_CUDA_GEGLU_TILE_ROWS=128 LAYA_CUDA_GEGLU_STAGES=5"; do
  LAYA_COMPARE_ENV_A="LAYA_CUDA_GEGLU_TILE_OUTPUTS=64" LAYA_COMPARE_ENV_B="$b" timeout -s KILL 100 \
    bash .gpu/compare_answers.sh laya-engine laya-engine english >> $OUT/summary.txt 2>&1
  echo "compare 64-output tiles vs $b, english rc=$?" >> $OUT/summary.txt
done
log "compare done"
synth_layout english > /dev/null
for v in "64 256 0 0 4" "80 256 0 0 4" "80 256 1 0 4" "80 256 0 1 4" "40 256 0 0 4" "80 128 0 0 4" "40 256 0 0 5" "80 128 0 0 5"; do
  set -- $v
  LAYA_CUDA_GEGLU_TILE_OUTPUTS=$1 LAYA_CUDA_GEGLU_TILE_ROWS=$2 LAYA_CUDA_GEGLU_DEFER_HALF=$3 LAYA_CUDA_GEGLU_80_PRODUCER=$4 \
    LAYA_CUDA_GEGLU_STAGES=$5 \
    CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv timeout -s KILL 60 $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 4x464 --warmup 10 --iters 40 > /dev/null 2>&1
  echo "## 4x464 tiles $2 x $1, half deferred $3, producer warpgroup $4, $5 stages" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -6 >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
log "traces done"
LAYA_VARIANTS="t64:LAYA_CUDA_GEGLU_TILE_OUTPUTS=64 t80:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80 t80h:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_DEFER_HALF=1 t80p:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_80_PRODUCER=1 t40:LAYA_CUDA_GEGLU_TILE_OUTPUTS=40 t128:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_TILE_ROWS=128 t40s5:LAYA_CUDA_GEGLU_TILE_OUTPUTS=40,LAYA_CUDA_GEGLU_STAGES=5 t128s5:LAYA_CUDA_GEGLU_TILE_OUTPUTS=80,LAYA_CUDA_GEGLU_TILE_ROWS=128,LAYA_CUDA_GEGLU_STAGES=5" \
LAYA_BENCH_SHAPES=1x512,10x128,3x512,4x464,4x512,5x512,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout -s KILL 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
rm -rf $OUT/ab $OUT/suite
log "call 1 end"
