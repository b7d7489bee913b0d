#!/usr/bin/env bash
# Session 21 call 1: HEAD 54bd975 on the H200 — test_cuda_host, test_gpu (first run of d7604c3's skinny
# removal, the extended pruned-layer test, 54bd975's global_ns); the A/B against f7bdcc8's binary (session
# 19's end: session 20's changes together) in three rounds; pruning in the small buckets too (item 116,
# env variant, three rounds; test_gpu's engine tests under it); the official comparison; the HTTP check.
set -u
export OUT=${OUT:-/tmp/out}
S=$OUT/summary.txt
LAYA_BENCH_SHAPES=1x48,1x128,1x256,1x512,2x512,4x464,8x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 \
  timeout 200 bash .gpu/run_ab_suite.sh tests,bench
echo "ab suite rc=$?" >> $S
mkdir -p $OUT/ab && mv $OUT/bench.jsonl $OUT/tests.log $OUT/ab/ 2>/dev/null
PH=tests
source .gpu/suite_common.sh
LAYA_CUDA_PRUNE_HEAD_FROM=1 timeout 100 $R test_gpu --gtest_filter='CudaEngine.*' > $OUT/tests-prune1.log 2>&1
log "test_gpu CudaEngine.* under LAYA_CUDA_PRUNE_HEAD_FROM=1 rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure" $OUT/tests-prune1.log | head -10 | tee -a $S
LAYA_VARIANTS="base:LAYA_X=0 prune1:LAYA_CUDA_PRUNE_HEAD_FROM=1" \
LAYA_BENCH_SHAPES=1x16,1x48,2x64,4x64,1x128,8x16 LAYA_BENCH_ROUNDS=3 \
  timeout 90 bash .gpu/run_env_variants.sh
mkdir -p $OUT/prune1 && mv $OUT/bench.jsonl $OUT/prune1/ 2>/dev/null
LAYA_BENCH_SHAPES=1x48,2x64,4x64,1x464,1x512,4x464,16x512 LAYA_BENCH_ITERS=30 timeout 200 bash .gpu/run_gpu_suite.sh bench,official
echo "suite rc=$?" >> $S
# The HTTP check (session 19 call 8's), only while time is left under the call's 600 s.
if [ $SECONDS -lt 430 ]; then
  PH=bench
  source .gpu/suite_common.sh
  EN=/tmp/ck-english
  [ -d $EN ] || $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" 2>&1 | tail -1
  $R laya-engine serve --model $EN --backend cuda --port 18080 > /tmp/serve.log 2>&1 &
  SP=$!
  for i in $(seq 1 600); do curl -sf http://127.0.0.1:18080/ready > /dev/null && break; sleep 0.05; done
  B1='{"state": "I was charged twice for my order. Please refund the duplicate today.", "questions": {"refund": {"type": "noul", "instructions": "Does the customer ask for a refund?"}}}'
  B2='{"state": "The server room is at 41 degrees and two fans have stopped.", "questions": {"team": {"type": "choice", "instructions": "Which team?", "criteria": {"facilities": "cooling", "it": "servers"}}, "urgency": {"type": "score", "instructions": "How urgent?", "criteria": ["low", "today", "now"]}}}'
  for i in 1 2 3; do for b in "$B1" "$B2"; do
    curl -s -o /dev/null -w "%{http_code} " -H 'Content-Type: application/json' --data-binary "$b" http://127.0.0.1:18080/v1/systemone | tee -a $S
  done; done; echo | tee -a $S
  curl -s -H 'Content-Type: application/json' --data-binary "$B2" http://127.0.0.1:18080/v1/systemone | head -c 400 | tee -a $S; echo | tee -a $S
  kill $SP; wait $SP 2>/dev/null
  cp /tmp/serve.log $OUT/serve.log
  H="timeout 70 $R laya_bench_http --model $EN --backend cuda --requests 100 --seconds 4 --busy-poll-us 250 --warmup-shapes auto --connections 256"
  $H --concurrency 64,128 --open-loop 10000 > $OUT/http-small.txt 2>&1; log "http small rc=$?"
  [ $SECONDS -lt 510 ] && { $H --mix 1 --concurrency 64 --open-loop 900,1300 > $OUT/http-mix.txt 2>&1; log "http mix rc=$?"; }
  for f in http-small http-mix; do [ -f $OUT/$f.txt ] && { echo "-- $f" | tee -a $S; grep -vE "^\s*$" $OUT/$f.txt | tail -14 | tee -a $S; }; done
else
  echo "HTTP check skipped: $SECONDS s used" | tee -a $S
fi
log "call1 end ($SECONDS s)"
