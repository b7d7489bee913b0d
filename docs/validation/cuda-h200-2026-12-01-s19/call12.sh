#!/usr/bin/env bash
# Session 19 call 12: the final code (a979a3a = 9c2a159's) — test_cuda_host, test_gpu, one graph
# bench round of the goal shapes.
set -u
export OUT=${OUT:-/tmp/out}
PH=bench
source .gpu/suite_common.sh
S=$OUT/summary.txt
record_machine
EN=/tmp/ck-english
[ -d $EN ] || $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" 2>&1 | tail -1
$R test_cuda_host > $OUT/tests.log 2>&1; log "test_cuda_host rc=$?"
timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; log "test_gpu rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure" $OUT/tests.log | head | tee -a $S
$R laya-engine bench --model $EN --backend cuda --execution graph --shapes 1x48,1x512,4x464,16x512 --warmup 20 --iters 30 --json \
  2>/dev/null > $OUT/bench.jsonl; log "bench rc=$?"
python3 -c "
import json,sys
for l in open('$OUT/bench.jsonl'):
    if l.startswith('{') and 'p50_ms' in l:
        r=json.loads(l); print('%-7s graph host p50 %.3f ms, device p50 %.3f' % (r['shape'], r['p50_ms'], r['device_p50_ms']))
" | tee -a $S
