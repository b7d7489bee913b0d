#!/usr/bin/env bash
# Session 34, call 2: the final engine — the fused GeGLU GEMM's warpgroups without rows skip their
# MMAs only where every tile of the last round lies in the last row tile (skips_rows_past_m);
# attention's async K and the persisting L2 window reverted. GPU tests, the rule against every
# warpgroup multiplying (LAYA_CUDA_GEGLU_SKIP_PAST_M=0) in interleaved rounds where it fires
# (1,664 tokens: 13x128, 4x416) and at 4x464 / 14x128 (where it does not: the same kernel), then the
# goal shapes once more, graph mode.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
zcat $OUT/tests.log.gz | grep -E "SkippingRowsPastM" >> $OUT/summary.txt
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_VARIANTS="all_rows:LAYA_CUDA_GEGLU_SKIP_PAST_M=0 rule:LAYA_CUDA_GEGLU_SKIP_PAST_M=1" \
LAYA_BENCH_SHAPES=13x128,4x416,14x128,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
$R laya-engine bench --model $CK --backend cuda --execution graph --json --shapes 1x48,4x64,1x464,1x512,4x464,8x512,16x512 \
  --warmup 20 --iters 60 2>>$OUT/bench_err.log > $OUT/bench.jsonl
python3 - $OUT/bench.jsonl <<'PY' >> $OUT/summary.txt
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "p50_ms" in r: print("%-7s p50 %.3f p95 %.3f" % (r["shape"], r["p50_ms"], r["p95_ms"]))
PY
rm -rf $OUT/suite $OUT/ab
log "call 2 end"
