#!/usr/bin/env bash
# Session 18 call 4: rows a forward in the open loop — 64 (serve's default) against 128, the small
# request at 10,000-15,000 offered requests/s, two runs each, alternating; mixed traffic at
# 1,100-1,500/s once each. Item 101 measured 128 rows -4..-6 % in a closed loop with fewer clients
# than twice the rows: an artefact of clients that wait, or a loss a server would see?
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
H="timeout 200 $R laya_bench_http --model $EN --backend cuda --requests 100 --seconds 4 --busy-poll-us 250 --warmup-shapes auto --connections 256 --concurrency ''"
run() {  # name, args
  local name=$1; shift
  echo "== $name: $*" | tee -a $S
  eval "$H $*" > /tmp/http_$name.txt 2>&1; echo "rc=$?" >> $S
  sed -n '/^open loop/,$p' /tmp/http_$name.txt | tee -a $S
  { echo "== $name: $*"; cat /tmp/http_$name.txt; } >> $OUT/http.txt
}
for round in 1 2; do
  run small64_$round --max-batch-rows 64 --open-loop 10000,12000,13000,14000,15000
  run small128_$round --max-batch-rows 128 --open-loop 10000,12000,13000,14000,15000
done
run mix64 --mix 1 --max-batch-rows 64 --open-loop 1100,1300,1500
run mix128 --mix 1 --max-batch-rows 128 --open-loop 1100,1300,1500
