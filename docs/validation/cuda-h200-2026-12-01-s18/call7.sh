#!/usr/bin/env bash
# Session 18 call 7: the final code — GPU tests, the suite's bench + official comparison on the
# benchmark shapes, `serve --backend cuda` end to end, and the HTTP benchmark's c = 1 overhead and
# closed loop with the new kernels.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
rm -rf $X
LAYA_BENCH_SHAPES=1x48,2x64,4x64,1x464,1x512,4x464,16x512 LAYA_BENCH_ITERS=30 bash .gpu/run_gpu_suite.sh tests,bench,official
EN=/tmp/ck-english
$R laya-engine serve --model $EN --backend cuda --port 18080 > /tmp/serve.log 2>&1 &
SP=$!
for i in $(seq 1 600); do curl -sf http://127.0.0.1:18080/ready > /dev/null && break; sleep 0.05; done
B1='{"state": "I was charged twice for my order. Please refund the duplicate today.", "questions": {"refund": {"type": "noul", "instructions": "Does the customer ask for a refund?"}}}'
B2='{"state": "The server room is at 41 degrees and two fans have stopped.", "questions": {"team": {"type": "choice", "instructions": "Which team?", "criteria": {"facilities": "cooling", "it": "servers"}}, "urgency": {"type": "score", "instructions": "How urgent?", "criteria": ["low", "today", "now"]}}}'
for i in 1 2 3; do for b in "$B1" "$B2"; do
  curl -s -o /dev/null -w "%{http_code} " -H 'Content-Type: application/json' --data-binary "$b" http://127.0.0.1:18080/v1/systemone | tee -a $S
done; done; echo | tee -a $S
curl -s -H 'Content-Type: application/json' --data-binary "$B2" http://127.0.0.1:18080/v1/systemone | head -c 600 | tee -a $S; echo | tee -a $S
kill $SP; wait $SP 2>/dev/null
cp /tmp/serve.log $OUT/serve.log
timeout 150 $R laya_bench_http --model $EN --backend cuda --requests 300 --seconds 3 --busy-poll-us 250 --warmup-shapes auto \
  --concurrency 8,128 --open-loop 10000,12000 --connections 256 > $OUT/http.txt 2>&1; echo "http rc=$?" | tee -a $S
sed -n '/^concurrency 1/,$p' $OUT/http.txt | tee -a $S
