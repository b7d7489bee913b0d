#!/usr/bin/env bash
# Session 16 call 3: a request beyond the CUDA engine's capacity (engine/parts.h): the GPU tests,
# then one 48-question request over a long state (> 8,192 tokens) through decide (cuda and cpu) and
# through the HTTP server on the CUDA engine.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" | tee -a $S
timeout 300 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) \]|^\[  FAILED|BatchBeyondCapacity" $OUT/tests.log | tee -a $S
python3 .gpu/big_request.py 48 150 > /tmp/big.jsonl
$R laya-engine pack --model $EN < /tmp/big.jsonl | python3 -c "import json,sys; d=json.loads(sys.stdin.readline()); print('request: rows', d['rows'], 'usage', d['usage']['input_tokens'], 'tokens')" | tee -a $S
( time timeout 120 $R laya-engine decide --model $EN --backend cuda < /tmp/big.jsonl > /tmp/cuda.jsonl 2> /tmp/cuda.err ) 2>&1 | grep real | sed 's/^/decide cuda /' | tee -a $S
echo "decide cuda rc=$(head -c 200 /tmp/cuda.jsonl | grep -c answers) (1 = answered)" | tee -a $S; head -c 300 /tmp/cuda.err >> $S
( time timeout 300 $R laya-engine decide --model $EN --backend cpu < /tmp/big.jsonl > /tmp/cpu.jsonl 2> /dev/null ) 2>&1 | grep real | sed 's/^/decide cpu /' | tee -a $S
python3 .gpu/compare_answers.py /tmp/cuda.jsonl /tmp/cpu.jsonl 2>&1 | sed 's/^/cuda vs cpu: /' | tee -a $S
$R laya-engine serve --model $EN --backend cuda --port 18080 > /tmp/serve.log 2>&1 &
SP=$!
for i in $(seq 1 120); do curl -sf http://127.0.0.1:18080/ready > /dev/null && break; sleep 0.5; done
curl -s -o /tmp/serve.json -w "serve big request: HTTP %{http_code} in %{time_total} s\n" -H 'Content-Type: application/json' \
  --data-binary @/tmp/big.jsonl http://127.0.0.1:18080/v1/systemone | tee -a $S
for i in 1 2 3; do curl -s -o /dev/null -w "serve again: HTTP %{http_code} in %{time_total} s\n" -H 'Content-Type: application/json' \
  --data-binary @/tmp/big.jsonl http://127.0.0.1:18080/v1/systemone | tee -a $S; done
python3 .gpu/compare_answers.py /tmp/serve.json /tmp/cuda.jsonl 2>&1 | sed 's/^/serve vs decide cuda: /' | tee -a $S
curl -s http://127.0.0.1:18080/metrics | grep -iE "recover|forward|batch" | head -12 >> $S
kill $SP; wait $SP 2>/dev/null
grep -iE "recover|fail|error" /tmp/serve.log | head -5 | sed 's/^/serve log: /' | tee -a $S
cp /tmp/serve.log $OUT/serve.log
