#!/usr/bin/env bash
# Session 48, call 5 (prepared, not run: no device time left): branch t80p-rule (664d35a: 256 x 80
# tiles with a producer warpgroup where they take fewer rounds, up to 1,920 tokens) against main —
# its GPU tests (the kernel tests compare the 80-output tiles bitwise with the 64-output ones), the
# same bytes as main's build end to end (english with the rule; english with the 64-output tiles
# forced, i.e. the branch's rewritten 64-output kernel against main's), then main (laya-engine-base)
# against the branch in interleaved rounds at the shapes the rule changes and at the fused shapes
# it does not (the 64-output kernel's code changed with the generalisation; since session 49 —
# branch 94847c4 — its SASS is main's again but for three independent moves' order in bf16, so
# those shapes check the bundle, not the kernel: README, "Call 5").
# Bundle: build main into build/cuda-h and the branch into its worktree's build/cuda-h, then
#   LAYA_BASELINE_BIN=<main>/build/cuda-h/bin LAYA_BUNDLE_PROBES=none scripts/gpu/bundle.sh <branch>/build/cuda-h
# from the branch's checkout (laya-engine = the branch, laya-engine-base = main).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 5 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout -s KILL 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure|geglu gemm M=" -A 3 $OUT/suite/tests.log | head -40 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/call5-tests.log.gz 2>/dev/null
timeout -s KILL 120 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
echo "compare main vs branch (rule) rc=$?" >> $OUT/summary.txt
LAYA_COMPARE_ENV_B=LAYA_CUDA_GEGLU_TILE_OUTPUTS=64 timeout -s KILL 120 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
echo "compare main vs branch (64 forced) rc=$?" >> $OUT/summary.txt
log "compare done"
LAYA_VARIANTS="main:LAYA_BENCH_BIN=laya-engine-base branch:LAYA_X=0" \
LAYA_BENCH_SHAPES=4x448,4x464,4x480,7x256,15x128,4x512,3x512,5x512,16x512 LAYA_BENCH_ROUNDS=6 LAYA_BENCH_ITERS=30 \
  OUT=$OUT/ab timeout -s KILL 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/call5-bench.jsonl.gz
rm -rf $OUT/ab $OUT/suite
log "call 5 end"
