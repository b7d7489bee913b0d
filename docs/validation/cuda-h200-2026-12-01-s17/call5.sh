#!/usr/bin/env bash
# Session 17 call 5 (item 101): rows a forward (64 / 128) against the number of closed-loop
# clients, with the new graph defaults (128-row batches of the small request, ≈ 5,700 tokens, run
# eagerly above the 4,096-token bound) and with the bound at 8,192 (graphs for them too).
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
H="timeout 200 $R laya_bench_http --model $EN --backend cuda --requests 50 --seconds 4 --busy-poll-us 250 --warmup-shapes auto"
run() {  # name, args
  local name=$1; shift
  echo "== $name: $*" | tee -a $S
  $H "$@" > /tmp/http_$name.txt 2>&1; echo "rc=$?" >> $S
  grep -A8 "closed loop" /tmp/http_$name.txt | tee -a $S
  { echo "== $name: $*"; cat /tmp/http_$name.txt; } >> $OUT/http.txt
}
C=96,128,192,256,384
for round in 1 2; do
  run r64_$round --concurrency $C --max-batch-rows 64
  run r128_$round --concurrency $C --max-batch-rows 128
  run r128T8192_$round --concurrency $C --max-batch-rows 128 --graph-max-tokens 8192
done
