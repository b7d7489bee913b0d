#!/usr/bin/env bash
# Session 17 call 1 (item 98): what the graph cache does under HTTP load, from the new counters.
# (a) the small request, 64 vs 128 rows a forward (item 96's c = 128 question: evictions?);
# (b) mixed traffic (12 requests of 1-4 questions over 10-400 words) with the cache as shipped
#     (64 shapes), admission at the second miss, 1024 shapes, and no graphs at all (eager);
# (c) the new engine tests for admission and the cache.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" | tee -a $S
timeout 120 $R test_gpu --gtest_filter='*Cache*:*Admission*:*Capture*:*Warmup*' >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) \]|^\[  FAILED" $OUT/tests.log | tee -a $S
H="timeout 150 $R laya_bench_http --model $EN --backend cuda --requests 100 --seconds 4 --busy-poll-us 250 --warmup-shapes auto"
run() {  # name, args
  local name=$1; shift
  echo "== $name: $*" | tee -a $S
  $H "$@" > /tmp/http_$name.txt 2>&1; echo "rc=$?" >> $S
  grep -A5 "closed loop" /tmp/http_$name.txt | tee -a $S
  { echo "== $name: $*"; cat /tmp/http_$name.txt; } >> $OUT/http.txt
}
run small64 --concurrency 128,256,128 --max-batch-rows 64
run small128 --concurrency 128,256,128 --max-batch-rows 128
run mix64 --mix 1 --concurrency 64,256,64
run mix64admit2 --mix 1 --concurrency 64,256,64 --graph-admit-after 2
run mix1024 --mix 1 --concurrency 64,256,64 --graph-cache-shapes 1024
run mixeager --mix 1 --concurrency 64,256,64 --graph-cache-shapes 0
run mix64b --mix 1 --concurrency 64,256,64
