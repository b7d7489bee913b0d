#!/usr/bin/env bash
# Session 42, call 6: item 205 (the late trigger) in the other modes — fp16 (english) and the typed-decisions layout —
# against the session's first engine: the same bytes in fp16, interleaved rounds at small shapes;
# the goal shapes (english bf16, three rounds).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 6 start, bundled from $(bundle_commit)"
LAYA_COMPARE_ARGS="--precision fp16" timeout 150 bash .gpu/compare_answers.sh laya-engine-base laya-engine english >> $OUT/summary.txt 2>&1
echo "compare english fp16 rc=$?" >> $OUT/summary.txt
synth_layout english > /dev/null
S=1x16,1x48,1x128,4x16
for round in 1 2 3 4; do
  order="laya-engine-base laya-engine"
  (( round % 2 == 0 )) && order="laya-engine laya-engine-base"
  for bin in $order; do
    $R $bin bench --model /tmp/ck-english --backend cuda --execution graph --precision fp16 --shapes $S \
      --warmup 20 --iters 40 --json 2>/dev/null | sed "s/^{/{\"round\":$round,\"impl\":\"$bin\",/" >> $OUT/fp16.jsonl
  done
done
python3 - $OUT/fp16.jsonl <<'PY' >> $OUT/summary.txt
import json, sys, collections
by = collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith("{"):
        r = json.loads(l)
        if "p50_ms" in r: by[(r["shape"], r["impl"])].append(r["p50_ms"])
print("fp16, english: shape  base  new  (host p50 ms, mean of rounds)")
for s in sorted({k[0] for k in by}):
    b, n = by[(s, "laya-engine-base")], by[(s, "laya-engine")]
    print("%-6s %.3f %.3f (%+.3f)   %s | %s" % (s, sum(b)/len(b), sum(n)/len(n), sum(n)/len(n)-sum(b)/len(b),
          ",".join("%.3f" % x for x in b), ",".join("%.3f" % x for x in n)))
PY
log "fp16 done"
LAYA_BENCH_LAYOUT=typed-decisions LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=$S LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/td \
  timeout 200 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "typed-decisions variants rc=$?"
grep -v "^==" $OUT/td/summary.txt >> $OUT/summary.txt
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x48,1x512,4x464,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 OUT=$OUT/goal \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "goal shapes rc=$?"
grep -v "^==" $OUT/goal/summary.txt >> $OUT/summary.txt
cat $OUT/fp16.jsonl $OUT/td/bench.jsonl $OUT/goal/bench.jsonl | gzip -9n > $OUT/bench.jsonl.gz
rm -rf $OUT/td $OUT/goal $OUT/fp16.jsonl
log "call 6 end"
