#!/usr/bin/env bash
# Session 19 call 7 (item 109): attention switches of the mid buckets on 7b2adac's build, env
# switches of one binary interleaved in three rounds, graph mode.
set -u
export OUT=${OUT:-/tmp/out}
PH=bench
source .gpu/suite_common.sh
S=$OUT/summary.txt
log "call7 start"
record_machine
EN=/tmp/ck-english
[ -d $EN ] || $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" 2>&1 | tail -1
SH=1x192,1x256,1x384,1x512,2x256,2x512
B=$OUT/bench.jsonl
run() {  # name env...
  local name=$1; shift
  env "$@" $R laya-engine bench --model $EN --backend cuda --execution graph --shapes $SH --warmup 20 --iters 30 --json \
    2>>$OUT/bench_err.log | sed "s/^{/{\"round\":$round,\"impl\":\"$name\",/" >> $B
  log "$name round $round rc=$?"
}
for round in 1 2 3; do
  run base LAYA_X=0
  run rope128 LAYA_CUDA_ROPE_ONCE_FROM=128
  run rope256 LAYA_CUDA_ROPE_ONCE_FROM=256
  run split2 LAYA_CUDA_ATTN_SPLIT_MAX=2
  run mma LAYA_CUDA_ATTN_WGMMA_FROM=0
done
python3 - $B <<'PY' | tee -a $S
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.defaultdict(list)
for r in rows:
    if "p50_ms" in r: by[(r["impl"], r["shape"])].append(r["p50_ms"])
impls = ["base", "rope128", "rope256", "split2", "mma"]
shapes = sorted({s for _, s in by}, key=lambda s: [int(x) for x in s.split("x")])
print("%-8s" % "shape" + "".join("%18s" % i for i in impls))
for s in shapes:
    b = sum(by[("base", s)]) / len(by[("base", s)])
    cells = []
    for i in impls:
        v = by.get((i, s), [])
        m = sum(v) / len(v)
        cells.append("%9.3f (%+.3f)" % (m, m - b) if i != "base" else "%18.3f" % m)
    print("%-8s" % s + "".join(cells))
    print("%-8s" % "" + "".join("%18s" % ",".join("%.3f" % x for x in by.get((i, s), []))  for i in impls))
PY
log "call7 end"
