#!/usr/bin/env bash
# Session 17 call 2 (item 99): where a graph stops paying — eager against graph by bucket size
# (in-process bench, two rounds), and a token bound on the graph cache (--graph-max-tokens) under
# mixed and small-request HTTP traffic; the new engine tests.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" | tee -a $S
timeout 120 $R test_gpu --gtest_filter='*Cache*:*Admission*:*Capture*:*Warmup*:*TokenBound*' >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) \]|^\[  FAILED" $OUT/tests.log | tee -a $S
SH=1x48,16x48,32x48,64x48,16x128,2x512,4x512,6x512,8x512,12x512,16x512
for round in 1 2; do
  for ex in eager graph; do
    timeout 120 $R laya-engine bench --model $EN --backend cuda --execution $ex --shapes $SH --warmup 10 --iters 30 \
      --warmup-shapes auto --json > /tmp/b.jsonl 2>/dev/null; echo "bench $ex round $round rc=$?" >> $S
    sed "s/^/{\"round\":$round,\"ex\":\"$ex\",\"r\":/; s/$/}/" /tmp/b.jsonl >> $OUT/bench.jsonl
  done
done
python3 - "$OUT/bench.jsonl" <<'PY' | tee -a $S
import json, sys, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    try: j = json.loads(line)
    except Exception: continue
    r = j["r"]
    if "shape" not in r: continue
    shape = r["shape"]; p50 = r["p50_ms"]
    d[(shape, j["ex"])].append(p50)
shapes = sorted({k[0] for k in d}, key=lambda s: (int(s.split("x")[0]) * int(s.split("x")[1]), s))
print("shape  eager  graph  eager-graph (host p50 ms, mean of 2 rounds)")
for s in shapes:
    e = sum(d[(s, "eager")]) / max(1, len(d[(s, "eager")])); g = sum(d[(s, "graph")]) / max(1, len(d[(s, "graph")]))
    print(f"{s:7} {e:7.3f} {g:7.3f} {e-g:+7.3f}")
PY
H="timeout 150 $R laya_bench_http --model $EN --backend cuda --requests 100 --seconds 4 --busy-poll-us 250 --warmup-shapes auto"
run() {  # name, args
  local name=$1; shift
  echo "== $name: $*" | tee -a $S
  $H "$@" > /tmp/http_$name.txt 2>&1; echo "rc=$?" >> $S
  grep -A5 "closed loop" /tmp/http_$name.txt | tee -a $S
  grep -A3 "concurrency 1," /tmp/http_$name.txt >> $S
  { echo "== $name: $*"; cat /tmp/http_$name.txt; } >> $OUT/http.txt
}
run mix64 --mix 1 --concurrency 64,256,64
run mixT4096 --mix 1 --concurrency 64,256,64 --graph-max-tokens 4096
run mixT2048 --mix 1 --concurrency 64,256,64 --graph-max-tokens 2048
run mixT2048a2 --mix 1 --concurrency 64,256,64 --graph-max-tokens 2048 --graph-admit-after 2
run mixeager --mix 1 --concurrency 64,256,64 --graph-cache-shapes 0
run small64 --concurrency 8,128,256
run smallT2048 --concurrency 8,128,256 --graph-max-tokens 2048
run smalleager --concurrency 8,128,256 --graph-cache-shapes 0
