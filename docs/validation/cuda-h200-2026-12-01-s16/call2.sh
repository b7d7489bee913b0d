#!/usr/bin/env bash
# Session 16 call 2 (item 95): the fused GeGLU GEMM in CTA pairs sharing A by multicast.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 90 $R test_gpu --gtest_filter='*GegluGemm*' > $OUT/tests.log 2>&1; rc=$?; echo "geglu kernel tests rc=$rc" | tee -a $S
grep -E "^\[  (PASSED|FAILED) \]|^\[  FAILED|geglu gemm M=" $OUT/tests.log | tee -a $S
[ $rc -eq 0 ] || exit 0
timeout 300 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) \]" $OUT/tests.log | tail -2 | tee -a $S
run() { # name env...
  local name=$1; shift
  env "$@" timeout 150 $R laya-engine bench --model $EN --backend cuda --execution graph \
    --shapes 10x128,3x512,4x464,8x512,16x512 --warmup 20 --iters 30 --json 2>>/dev/null | sed "s/^{/{\"round\":$round,\"impl\":\"$name\",/" >> $OUT/bench.jsonl
}
for round in 1 2 3; do
  run single LAYA_CUDA_GEGLU_PAIR=0
  run pair
done
python3 - $OUT/bench.jsonl <<'PY' | tee -a $S
import json, sys, collections
by = collections.defaultdict(list); impls = []
for l in open(sys.argv[1]):
    if l.startswith("{"):
        r = json.loads(l)
        if "p50_ms" in r:
            by[(r["shape"], r["impl"])].append(r["p50_ms"])
            if r["impl"] not in impls: impls.append(r["impl"])
shapes = sorted({s for s, _ in by}, key=lambda s: (int(s.split("x")[0]) * int(s.split("x")[1]), s))
print("shape   " + "".join("%-10s" % i for i in impls))
for s in shapes:
    print("%-7s " % s + "".join("%-10s" % ("%.3f" % (sum(by[(s, i)]) / len(by[(s, i)]))) for i in impls))
for (shape, impl), v in sorted(by.items()):
    print("%-6s %-8s rounds %s" % (shape, impl, " ".join("%.3f" % x for x in v)))
PY
