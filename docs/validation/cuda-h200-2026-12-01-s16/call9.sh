#!/usr/bin/env bash
# Session 16 call 9 (item 96, third look): 64 vs 128 rows a forward in longer closed loops (10 s a
# row), warm-up on, c = 96 / 128 / 192 / 256 — is 128 rows' c = 128 loss only the first captures?
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
for rows in 64 128 64 128; do
  echo "== max batch rows $rows" | tee -a $S
  timeout 280 $R laya_bench_http --model $EN --backend cuda --requests 200 --concurrency 96,128,192,256,128 \
    --seconds 10 --busy-poll-us 250 --max-batch-rows $rows --warmup-shapes auto > /tmp/http_$rows.txt 2>&1
  grep -A7 "closed loop" /tmp/http_$rows.txt | tee -a $S
  cat /tmp/http_$rows.txt >> $OUT/http.txt
done
