#!/usr/bin/env bash
# Session 18 call 3: the executor's cycle under load (forward / packing / gap columns) and the open
# loop (Poisson arrivals at fixed rates over 256 connections, latency from the scheduled arrival):
# the small request and mixed traffic, serve's defaults (64 rows, graph policy), busy polling 250 us.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
H="timeout 280 $R laya_bench_http --model $EN --backend cuda --requests 100 --seconds 4 --busy-poll-us 250 --warmup-shapes auto --connections 256"
run() {  # name, args
  local name=$1; shift
  echo "== $name: $*" | tee -a $S
  $H "$@" > /tmp/http_$name.txt 2>&1; echo "rc=$?" >> $S
  sed -n '/^closed loop/,$p' /tmp/http_$name.txt | tee -a $S
  { echo "== $name: $*"; cat /tmp/http_$name.txt; } >> $OUT/http.txt
}
run small --concurrency 64,128,256 --open-loop 2000,5000,8000,10000,11000,12000,13000,14000
run mix --mix 1 --concurrency 64,256 --open-loop 300,600,900,1100,1300,1500
