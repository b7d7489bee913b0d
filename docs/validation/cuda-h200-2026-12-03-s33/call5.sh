#!/usr/bin/env bash
# Session 33, call 5: the final engine (the memset kernels only on compute capability 9.0+, and
# switched off for the process after a failed edit): GPU tests, the memset tests on english, and
# the goal shapes once more, graph mode.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 5 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_GPU_PARITY_DIRS=$CK timeout 120 $R test_gpu --gtest_filter='*Memset*' > $OUT/memsets-test.log 2>&1
log "memset tests rc=$?"
grep -E "replaced|OK \]|FAILED|PASSED|SKIPPED" $OUT/memsets-test.log >> $OUT/summary.txt
$R laya-engine bench --model $CK --backend cuda --execution graph --json --shapes 1x48,4x64,1x464,1x512,4x464,8x512,16x512 \
  --warmup 20 --iters 60 2>>$OUT/bench_err.log > $OUT/bench.jsonl
python3 - $OUT/bench.jsonl <<'PY' >> $OUT/summary.txt
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "p50_ms" in r: print("%-7s p50 %.3f p95 %.3f" % (r["shape"], r["p50_ms"], r["p95_ms"]))
PY
rm -rf $OUT/suite
log "call 5 end"
