#!/usr/bin/env bash
# Session 16 call 7: the final code (b86c6cd): GPU tests, then the suite's bench + official
# comparison on the benchmark shapes (the kernels are session 15's: a re-measurement on this
# instance), the big request through serve, and serve's start-up with the default warm-up.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
rm -rf $X
LAYA_BENCH_SHAPES=1x48,2x64,4x64,1x464,1x512,4x464,16x512 LAYA_BENCH_ITERS=30 bash .gpu/run_gpu_suite.sh tests,bench,official
EN=/tmp/ck-english
python3 .gpu/big_request.py 48 150 > /tmp/big.jsonl
t0=$(date +%s.%N)
$R laya-engine serve --model $EN --backend cuda --port 18080 > /tmp/serve.log 2>&1 &
SP=$!
for i in $(seq 1 600); do curl -sf http://127.0.0.1:18080/ready > /dev/null && break; sleep 0.05; done
t1=$(date +%s.%N)
echo "serve (default --warmup-shapes auto): ready after $(python3 -c "print('%.2f' % ($t1 - $t0))") s" | tee -a $S
for i in 1 2; do curl -s -o /tmp/serve.json -w "serve 48-question request (8,416 tokens): HTTP %{http_code} in %{time_total} s\n" -H 'Content-Type: application/json' \
  --data-binary @/tmp/big.jsonl http://127.0.0.1:18080/v1/systemone | tee -a $S; done
kill $SP; wait $SP 2>/dev/null
