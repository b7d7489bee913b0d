#!/usr/bin/env bash
# Session 19 call 4 (item 108): the edge rules at the large shapes, one binary, five interleaved
# rounds of 60 + 60 forwards a shape (longer than the suite's 20 + 30, so 16x512 runs mostly under
# the power cap), SM clock and power sampled: base (plain edges outside the small buckets: the
# previous behaviour), own (own edges only), all (the default: own edges, every edge from 1,536).
# Then test_gpu.
set -u
export OUT=${OUT:-/tmp/out}
PH=bench
source .gpu/suite_common.sh
S=$OUT/summary.txt
log "call4 start"
record_machine
EN=/tmp/ck-english
[ -d $EN ] || $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" 2>&1 | tail -1
SH=1x512,3x512,4x464,8x512,16x512
B=$OUT/bench.jsonl
run() {  # name env...
  local name=$1; shift
  env "$@" $R laya-engine bench --model $EN --backend cuda --execution graph --shapes $SH --warmup 60 --iters 60 --json \
    2>>$OUT/bench_err.log | sed "s/^{/{\"round\":$round,\"impl\":\"$name\",/" >> $B
  log "$name round $round rc=$?"
}
smi_start bench
for round in 1 2 3 4 5; do
  run base LAYA_CUDA_PDL_OWN_EDGES=0 LAYA_CUDA_PDL_ALL_FROM=0
  run own LAYA_CUDA_PDL_ALL_FROM=0
  run all LAYA_X=0
done
smi_stop bench
python3 - $B <<'PY' | tee -a $S
import json, sys, collections, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.defaultdict(list)
for r in rows:
    if "p50_ms" in r: by[(r["impl"], r["shape"])].append(r["p50_ms"])
impls = ["base", "own", "all"]
shapes = sorted({s for _, s in by}, key=lambda s: [int(x) for x in s.split("x")])
print("%-8s" % "shape" + "".join("%26s" % i for i in impls) + "   (mean (median) of rounds, variant - base)")
for s in shapes:
    b = sum(by[("base", s)]) / len(by[("base", s)])
    cells = []
    for i in impls:
        v = by.get((i, s), [])
        m = sum(v) / len(v); md = statistics.median(v)
        cells.append("%9.3f (%.3f) %+.3f" % (m, md, m - b) if i != "base" else "%26s" % ("%.3f (%.3f)" % (m, md)))
    print("%-8s" % s + "".join(cells))
    print("%-8s" % "" + "".join("%26s" % ",".join("%.2f" % x for x in by.get((i, s), []))  for i in impls))
PY
timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* > $OUT/tests.log 2>&1; log "test_gpu rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure" $OUT/tests.log | head | tee -a $S
log "call4 end"
