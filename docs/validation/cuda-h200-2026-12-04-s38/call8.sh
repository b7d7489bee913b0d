#!/usr/bin/env bash
# Session 38, call 8: fp16's small-GEMM GeGLU outputs read through an identity shuffle (item 191)
# against cfa2af7's engine (base): GPU tests; bitwise the same in fp16 and bf16 (compare_answers.sh);
# fp16 host p50 at the small buckets, three interleaved rounds (bench --precision fp16).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 8 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
{
  echo "== fp16"; LAYA_COMPARE_ARGS="--precision fp16" bash .gpu/compare_answers.sh; echo "rc=$?"
  echo "== bf16"; bash .gpu/compare_answers.sh; echo "rc=$?"
} >> $OUT/summary.txt 2>&1
synth_layout english > /dev/null
for round in 1 2 3; do
  for b in laya-engine-base laya-engine; do
    $R $b bench --model /tmp/ck-english --backend cuda --precision fp16 --execution graph \
      --shapes 1x16,1x48,2x32,4x64,1x128,1x512 --warmup 20 --iters 40 --json 2>/dev/null |
      sed "s/^{/{\"round\":$round,\"impl\":\"$b\",/" >> $OUT/bench.jsonl
  done
done
python3 - $OUT/bench.jsonl <<'PY' >> $OUT/summary.txt
import json, sys, collections
by = collections.defaultdict(list)
for l in open(sys.argv[1]):
    if l.startswith("{"):
        r = json.loads(l)
        if "p50_ms" in r: by[(r["impl"], r["shape"])].append(r["p50_ms"])
print("fp16 host p50 ms (mean of rounds): shape base new new-base")
for s in sorted({s for _, s in by}, key=lambda s: [int(x) for x in s.split("x")]):
    a, b = by[("laya-engine-base", s)], by[("laya-engine", s)]
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    print(f"{s:8s} {ma:.3f} {mb:.3f} {mb - ma:+.3f}   {','.join(f'{x:.3f}' for x in a)} | {','.join(f'{x:.3f}' for x in b)}")
PY
gzip -9nc $OUT/bench.jsonl > $OUT/bench.jsonl.gz && rm -f $OUT/bench.jsonl
rm -rf $OUT/suite
log "call 8 end"
