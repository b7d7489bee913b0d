#!/usr/bin/env bash
# Session 16 call 5: what a forward at a new bucket costs (graph capture + instantiation, and the
# first use of each GEMM shape) against the steady state — the p99 tail of a server meeting new
# batch shapes (item 97).
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt 2>&1
SH=1x16,1x48,1x64,2x64,1x128,4x64,1x512,4x464,16x512,2x48,3x48
for mode in graph eager; do
  for pass in first steady; do
    if [ $pass = first ]; then W=0; I=1; else W=3; I=10; fi
    timeout 200 $R laya-engine bench --model $EN --backend cuda --execution $mode --shapes $SH --warmup $W --iters $I --json 2>>/dev/null \
      | sed "s/^{/{\"mode\":\"$mode\",\"pass\":\"$pass\",/" >> $OUT/bench.jsonl
  done
done
python3 - $OUT/bench.jsonl <<'PY' | tee -a $S
import json, sys, collections
by = {}
order = []
for l in open(sys.argv[1]):
    if l.startswith("{"):
        r = json.loads(l)
        if "p50_ms" in r:
            by[(r["mode"], r["pass"], r["shape"])] = r["p50_ms"]
            if r["shape"] not in order: order.append(r["shape"])
print("shape    graph first  graph steady  eager first  eager steady   (ms; 'first' = the process's first forward of that shape)")
for s in order:
    g1, g2, e1, e2 = (by.get((m, p, s), float('nan')) for m, p in (("graph","first"),("graph","steady"),("eager","first"),("eager","steady")))
    print("%-7s %11.3f %13.3f %12.3f %13.3f" % (s, g1, g2, e1, e2))
PY
