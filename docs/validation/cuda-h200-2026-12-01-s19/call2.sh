#!/usr/bin/env bash
# Session 19 call 2 (item 108): programmatic edges between own kernels only (the build's default)
# against LAYA_CUDA_PDL_OWN_EDGES=0 (base: plain edges outside the small buckets' scope) and
# LAYA_CUDA_PDL=1 (every own kernel programmatic), one binary, three interleaved rounds, graph mode;
# then test_cuda_host and test_gpu of the build.
set -u
export OUT=${OUT:-/tmp/out}
PH=bench
source .gpu/suite_common.sh
S=$OUT/summary.txt
log "call2 start"
record_machine
EN=/tmp/ck-english
[ -d $EN ] || $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" 2>&1 | tail -1
SH=1x48,1x256,1x512,2x512,3x512,4x464,8x512,16x512
B=$OUT/bench.jsonl
run() {  # name env...
  local name=$1; shift
  env "$@" $R laya-engine bench --model $EN --backend cuda --execution graph --shapes $SH --warmup 20 --iters 30 --json \
    2>>$OUT/bench_err.log | sed "s/^{/{\"round\":$round,\"impl\":\"$name\",/" >> $B
  log "$name round $round rc=$?"
}
for round in 1 2 3; do
  run base LAYA_CUDA_PDL_OWN_EDGES=0
  run own LAYA_X=0
  run pdl LAYA_CUDA_PDL=1
done
python3 - $B <<'PY' | tee -a $S
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.defaultdict(list)
for r in rows:
    if "p50_ms" in r: by[(r["impl"], r["shape"])].append(r["p50_ms"])
impls = ["base", "own", "pdl"]
shapes = sorted({s for _, s in by}, key=lambda s: [int(x) for x in s.split("x")])
print("%-8s" % "shape" + "".join("%20s" % i for i in impls))
for s in shapes:
    b = sum(by[("base", s)]) / len(by[("base", s)])
    cells = []
    for i in impls:
        v = by.get((i, s), [])
        if not v: cells.append("%20s" % "-"); continue
        m = sum(v) / len(v)
        cells.append("%11.3f (%+.3f)" % (m, m - b) if i != "base" else "%20.3f" % m)
    print("%-8s" % s + "".join(cells))
    print("%-8s" % "" + "".join("%20s" % ",".join("%.3f" % x for x in by.get((i, s), []))  for i in impls))
PY
$R test_cuda_host > $OUT/tests.log 2>&1; log "test_cuda_host rc=$?"
timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; log "test_gpu rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure" $OUT/tests.log | head | tee -a $S
log "call2 end"
