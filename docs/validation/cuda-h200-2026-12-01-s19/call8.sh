#!/usr/bin/env bash
# Session 19 call 8: 7b2adac end to end — `serve --backend cuda` with six requests, then the HTTP
# benchmark (serve's defaults) with the small request (closed c = 64 / 128, open 10,000/s) and mixed
# traffic (closed c = 64, open 900 / 1,300/s): statuses, throughput, the graph counters.
set -u
export OUT=${OUT:-/tmp/out}
PH=bench
source .gpu/suite_common.sh
S=$OUT/summary.txt
log "call8 start"
record_machine
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
grep -E "programmatic|ready" /tmp/serve.log | head -3 | cut -c1-600 | tee -a $S
cp /tmp/serve.log $OUT/serve.log
H="timeout 150 $R laya_bench_http --model $EN --backend cuda --requests 100 --seconds 4 --busy-poll-us 250 --warmup-shapes auto --connections 256"
$H --concurrency 64,128 --open-loop 10000 > $OUT/http-small.txt 2>&1; log "http small rc=$?"
$H --mix 1 --concurrency 64 --open-loop 900,1300 > $OUT/http-mix.txt 2>&1; log "http mix rc=$?"
for f in http-small http-mix; do echo "-- $f" | tee -a $S; grep -vE "^\s*$" $OUT/$f.txt | tail -14 | tee -a $S; done
log "call8 end"
