#!/usr/bin/env bash
# Session 19 call 1: env-only screening on 2178d99's build (no code change). Variants of the same
# binary, interleaved in 3 rounds, graph mode: base; pdl (LAYA_CUDA_PDL=1: own kernels of every
# bucket launched programmatically, cuBLASLt's keep plain edges); part512 (MLP output GEMM as 2
# cuBLASLt fp32 partials up to 512 tokens); res512 (residual epilogue from 512 tokens); pdl+part512.
set -u
export OUT=${OUT:-/tmp/out}
PH=bench
source .gpu/suite_common.sh
S=$OUT/summary.txt
log "call1 start $(git rev-parse --short HEAD 2>/dev/null)"
record_machine
$R laya-engine version > /dev/null 2>&1
EN=/tmp/ck-english
[ -d $EN ] || $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" 2>&1 | tail -1
SH=1x48,1x128,1x256,2x256,1x464,1x512,4x464,16x512
B=$OUT/bench.jsonl
run() {  # name env...
  local name=$1; shift
  env "$@" $R laya-engine bench --model $EN --backend cuda --execution graph --shapes $SH --warmup 20 --iters 30 --json \
    2>>$OUT/bench_err.log | sed "s/^{/{\"round\":$round,\"impl\":\"$name\",/" >> $B
  log "$name round $round rc=$?"
}
for round in 1 2 3; do
  run base LAYA_X=0
  run pdl LAYA_CUDA_PDL=1
  run part512 LAYA_CUDA_PARTIALS_MAX_M=512
  run res512 LAYA_CUDA_RESIDUAL_GEMM_FROM=512
  run pdlpart LAYA_CUDA_PDL=1 LAYA_CUDA_PARTIALS_MAX_M=512
done
python3 - $B <<'PY' | tee -a $S
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = collections.defaultdict(list)
for r in rows:
    if "p50_ms" in r: by[(r["impl"], r["shape"])].append(r["p50_ms"])
impls = ["base", "pdl", "part512", "res512", "pdlpart"]
shapes = sorted({s for _, s in by}, key=lambda s: [int(x) for x in s.split("x")])
print("%-8s" % "shape" + "".join("%18s" % i for i in impls))
for s in shapes:
    b = sum(by[("base", s)]) / len(by[("base", s)])
    cells = []
    for i in impls:
        v = by.get((i, s), [])
        if not v: cells.append("%18s" % "-"); continue
        m = sum(v) / len(v)
        cells.append("%9.3f (%+.3f)" % (m, m - b) if i != "base" else "%18.3f" % m)
    print("%-8s" % s + "".join(cells))
    print("%-8s" % "" + "".join("%18s" % ",".join("%.3f" % x for x in by.get((i, s), []))  for i in impls))
PY
log "pdl test_gpu"
LAYA_CUDA_PDL=1 timeout 150 $R test_gpu --gtest_filter=-*Extra*:*Official* > $OUT/tests-pdl.log 2>&1
log "test_gpu with LAYA_CUDA_PDL=1 rc=$?"
grep -E "^\[  (PASSED|FAILED) |Failure" $OUT/tests-pdl.log | head | tee -a $S
log "call1 end"
