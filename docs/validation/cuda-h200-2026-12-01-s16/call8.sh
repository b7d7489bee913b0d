#!/usr/bin/env bash
# Session 16 call 8 (item 96 again): rows per forward 64 vs 128, now a real option (serve's
# --max-batch-rows sizes the CUDA engine), with the start-up warm-up on; and the final code's GPU tests.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" | tee -a $S
timeout 300 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) \]|^\[  FAILED|MaxRows" $OUT/tests.log | tee -a $S
for rows in 64 128 64 128; do
  echo "== max batch rows $rows" | tee -a $S
  timeout 200 $R laya_bench_http --model $EN --backend cuda --requests 300 --concurrency 64,128,256 \
    --seconds 3 --busy-poll-us 250 --max-batch-rows $rows --warmup-shapes auto > /tmp/http_$rows.txt 2>&1
  grep -A5 "closed loop" /tmp/http_$rows.txt | tee -a $S
  cat /tmp/http_$rows.txt >> $OUT/http.txt
done
