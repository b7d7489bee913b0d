#!/usr/bin/env bash
# Session 40, call 6: the session's final engine (ec60de4: three attention-output partials at
# d >= 1,024, two below) against the session's first (base): GPU tests, the same bytes where the
# path did not change (multilingual; english with LAYA_CUDA_ATTN_OUT_SPLITS=2), the goal shapes in
# interleaved rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 6 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine multilingual >> $OUT/summary.txt 2>&1
echo "compare multilingual rc=$?" >> $OUT/summary.txt
LAYA_COMPARE_ENV_B="LAYA_CUDA_ATTN_OUT_SPLITS=2" timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
echo "compare english, two partials rc=$?" >> $OUT/summary.txt
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x16,1x48,4x64,1x128,1x512,4x464,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
rm -rf $OUT/suite $OUT/ab
log "call 6 end"
