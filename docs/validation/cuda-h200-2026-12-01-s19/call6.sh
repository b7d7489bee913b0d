#!/usr/bin/env bash
# Session 19 call 6: is 16x512 slower with 7b2adac's edges, or is it the order in which the processes
# heat the GPU? 2178d99's binary (A), 7b2adac's (B) and 7b2adac's with LAYA_CUDA_PDL_OWN_EDGES=0 (C),
# run in palindromic order A B C C B A, three times, 60 + 60 forwards of 8x512 and 16x512 each.
set -u
export OUT=${OUT:-/tmp/out}
PH=bench
source .gpu/suite_common.sh
S=$OUT/summary.txt
log "call6 start"
record_machine
EN=/tmp/ck-english
[ -d $EN ] || $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" 2>&1 | tail -1
B=$OUT/bench.jsonl
n=0
run() {  # name binary env...
  local name=$1 bin=$2; shift 2
  n=$((n + 1))
  env "$@" $R $bin bench --model $EN --backend cuda --execution graph --shapes 8x512,16x512 --warmup 60 --iters 60 --json \
    2>>$OUT/bench_err.log | sed "s/^{/{\"seq\":$n,\"impl\":\"$name\",/" >> $B
  log "$name ($n) rc=$?"
}
smi_start bench
for round in 1 2 3; do
  run A laya-engine-base LAYA_X=0
  run B laya-engine LAYA_X=0
  run C laya-engine LAYA_CUDA_PDL_OWN_EDGES=0
  run C laya-engine LAYA_CUDA_PDL_OWN_EDGES=0
  run B laya-engine LAYA_X=0
  run A laya-engine-base LAYA_X=0
done
smi_stop bench
python3 - $B <<'PY' | tee -a $S
import json, sys, collections, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.defaultdict(list)
for r in rows:
    if "p50_ms" in r: by[(r["impl"], r["shape"])].append(r["p50_ms"])
for s in ("8x512", "16x512"):
    a = by[("A", s)]
    ma = statistics.mean(a)
    for i in "ABC":
        v = by[(i, s)]
        print("%-7s %s  mean %.3f  median %.3f  (%+.3f vs A)  runs: %s" % (s, i, statistics.mean(v), statistics.median(v),
              statistics.mean(v) - ma, ", ".join("%.3f" % x for x in v)))
PY
log "call6 end"
