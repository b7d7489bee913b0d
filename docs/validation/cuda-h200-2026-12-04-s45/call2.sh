#!/usr/bin/env bash
# Session 45, call 2: call 1's machine stopped answering with nothing back; first a smoke test of
# the 80-output kernel (its kernel tests, one bench process each way, hard time limits), then
# call 1 itself.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
timeout -s KILL 90 $R test_gpu --gtest_filter='*GegluGemm*' > $OUT/smoke.log 2>&1
rc=$?
log "smoke tests rc=$rc"
grep -E "OK \]|FAILED|PASSED|geglu gemm M=" $OUT/smoke.log >> $OUT/summary.txt
synth_layout english > /dev/null
for v in 64 80; do
  LAYA_CUDA_GEGLU_TILE_OUTPUTS=$v timeout -s KILL 60 $R laya-engine bench --model /tmp/ck-english --backend cuda \
    --execution graph --json --shapes 4x464 --warmup 10 --iters 20 2>/dev/null | python3 -c "import json,sys; [print('4x464 tile $v', round(json.loads(l)['p50_ms'],3)) for l in sys.stdin if l.startswith('{')]" >> $OUT/summary.txt
  log "bench $v rc=$?"
done
[ "$rc" = 0 ] || exit 1
OUT=$OUT bash .gpu/call1.sh
