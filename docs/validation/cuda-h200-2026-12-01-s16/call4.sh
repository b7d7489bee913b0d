#!/usr/bin/env bash
# Session 16 call 4 (item 96): more rows per forward for throughput — the engine's row capacity
# (LAYA_CUDA_MAX_ROWS, an experiment switch) and the server's --max-batch-rows, 64 vs 128.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
for round in 1 2; do
  LAYA_CUDA_MAX_ROWS=128 timeout 200 $R laya-engine bench --model $EN --backend cuda --execution graph \
    --shapes 32x48,64x48,96x48,128x48,64x96,128x24 --warmup 10 --iters 20 --json 2>>/dev/null | sed "s/^{/{\"round\":$round,/" >> $OUT/bench.jsonl
done
python3 - $OUT/bench.jsonl <<'PY' | tee -a $S
import json, sys, collections
by = collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith("{"):
        r = json.loads(l)
        if "p50_ms" in r: by[r["shape"]].append(r["p50_ms"])
for s, v in by.items():
    rows, length = map(int, s.split("x"))
    m = sum(v) / len(v)
    print("%-7s p50 %.3f ms (rounds %s)  %.0f rows/s  %.0f tokens/s" % (s, m, " ".join("%.3f" % x for x in v), rows / m * 1e3, rows * length / m * 1e3))
PY
for rows in 64 128 64 128; do
  echo "== max rows $rows" | tee -a $S
  LAYA_CUDA_MAX_ROWS=$rows timeout 150 $R laya_bench_http --model $EN --backend cuda --requests 300 --concurrency 64,128,256 \
    --seconds 3 --busy-poll-us 250 --max-batch-rows $rows > /tmp/http_$rows.txt 2>&1
  grep -A5 "closed loop" /tmp/http_$rows.txt | tee -a $S
  cat /tmp/http_$rows.txt >> $OUT/http.txt
done
