#!/usr/bin/env bash
# Session 17 call 3 (item 100): traffic whose batches stay under the token bound in many shapes
# (--mix short: 1-4 questions over 10-60 words) against the cache settings; the defaults' candidate
# (bound 4,096, admission at the 2nd miss) on the full mix and the small request.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
H="timeout 150 $R laya_bench_http --model $EN --backend cuda --requests 100 --seconds 4 --busy-poll-us 250 --warmup-shapes auto"
run() {  # name, args
  local name=$1; shift
  echo "== $name: $*" | tee -a $S
  $H "$@" > /tmp/http_$name.txt 2>&1; echo "rc=$?" >> $S
  grep -A6 "closed loop" /tmp/http_$name.txt | tee -a $S
  grep -A3 "concurrency 1," /tmp/http_$name.txt >> $S
  { echo "== $name: $*"; cat /tmp/http_$name.txt; } >> $OUT/http.txt
}
C=8,32,128,8
run short_shipped --mix short --concurrency $C
run short_T4096 --mix short --concurrency $C --graph-max-tokens 4096
run short_T4096a2 --mix short --concurrency $C --graph-max-tokens 4096 --graph-admit-after 2
run short_T4096a2s256 --mix short --concurrency $C --graph-max-tokens 4096 --graph-admit-after 2 --graph-cache-shapes 256
run short_eager --mix short --concurrency $C --graph-cache-shapes 0
run short_shipped2 --mix short --concurrency $C
run mix_T4096a2 --mix 1 --concurrency 64,256,64 --graph-max-tokens 4096 --graph-admit-after 2
run small_T4096a2 --concurrency 8,128,256 --graph-max-tokens 4096 --graph-admit-after 2
