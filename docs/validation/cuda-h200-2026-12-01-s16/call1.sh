#!/usr/bin/env bash
# Session 16 call 1 (item 94): the fused GeGLU GEMM's short last round as half tiles.
# Tests (test_cuda_host, test_gpu without the opt-in parity tests), then an A/B in one job:
# base = LAYA_CUDA_GEGLU_HALF_TILES=0, half = default, half1024 = default + LAYA_CUDA_GEGLU_GEMM_FROM=1024.
set -u
OUT=${OUT:-/tmp/out}; R=.gpu/run.sh; X=/tmp/laya-gpu; S=$OUT/summary.txt
EN=/tmp/ck-english
rm -rf $X; $R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 60 $R test_cuda_host > $OUT/tests.log 2>&1; echo "test_cuda_host rc=$?" | tee -a $S
timeout 300 $R test_gpu --gtest_filter=-*Extra*:*Official* >> $OUT/tests.log 2>&1; echo "test_gpu rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) \]|geglu gemm M=" $OUT/tests.log | tee -a $S
run() { # name env...
  local name=$1; shift
  env "$@" timeout 150 $R laya-engine bench --model $EN --backend cuda --execution graph \
    --shapes 1x512,2x512,3x512,4x464,4x512,5x512,16x512 --warmup 20 --iters 30 --json 2>>/dev/null | sed "s/^{/{\"round\":$round,\"impl\":\"$name\",/" >> $OUT/bench.jsonl
}
for round in 1 2 3; do
  run base LAYA_CUDA_GEGLU_HALF_TILES=0
  run half
  run half1024 LAYA_CUDA_GEGLU_GEMM_FROM=1024
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
