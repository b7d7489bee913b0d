#!/usr/bin/env bash
# Session 39, call 6: the chain probes after their options and launch moved into bench_common.h
# (laya_bench_grid_barrier, laya_bench_icache); fp16 with add+LN per hidden size against 5306e5a's
# engine (base).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 6 start, bundled from $(bundle_commit)"
timeout 60 $R laya_bench_grid_barrier --ctas 32,128 >> $OUT/summary.txt 2>&1
echo "grid_barrier rc=$?" >> $OUT/summary.txt
timeout 90 $R laya_bench_icache --ctas 48 >> $OUT/summary.txt 2>&1
echo "icache rc=$?" >> $OUT/summary.txt
synth_layout english > /dev/null
for round in 1 2 3; do
  for b in laya-engine-base laya-engine; do
    $R $b bench --model /tmp/ck-english --backend cuda --execution graph --precision fp16 --shapes 1x48,1x128,1x512 \
      --warmup 20 --iters 40 --json 2>/dev/null | sed "s/^{/{\"round\":$round,\"impl\":\"$b\",/" >> $OUT/fp16.jsonl
  done
done
python3 - $OUT/fp16.jsonl <<'PY' >> $OUT/summary.txt
import json, sys, collections
by = collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith("{"):
        r = json.loads(l)
        if "p50_ms" in r: by[(r["impl"], r["shape"])].append(r["p50_ms"])
for s in sorted({k[1] for k in by}):
    b, n = by[("laya-engine-base", s)], by[("laya-engine", s)]
    print("fp16 %-6s base %.3f new %.3f (%+.3f)  rounds %s | %s" % (s, sum(b)/len(b), sum(n)/len(n), sum(n)/len(n)-sum(b)/len(b),
          ",".join("%.3f" % x for x in b), ",".join("%.3f" % x for x in n)))
PY
gzip -9nc $OUT/fp16.jsonl > $OUT/fp16.jsonl.gz; rm -f $OUT/fp16.jsonl
log "call 6 end"
