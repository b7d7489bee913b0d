#!/usr/bin/env bash
# Session 50, part 2 of call 1: session 49's call2.sh (the kernel-image check and the generic
# kernels on the H200) on the shared bundle of this call, where main's sm_90a build is
# laya-engine-base / test_gpu-base and main's 90-real build laya-engine-alt / test_gpu-alt
# (laya-engine is branch t80p-rule, part 1). Otherwise s49's call2.sh unchanged.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
timeout -s KILL 200 $R test_gpu-base --gtest_filter=-*Extra*:*Official* > "$OUT/tests.log" 2>&1
log "test_gpu (sm_90a build) rc=$?"
timeout -s KILL 200 $R test_gpu-alt --gtest_filter=-*Extra*:*Official* > "$OUT/tests-generic.log" 2>&1
log "test_gpu (generic build) rc=$?"
grep -hE "built for|PASSED|FAILED" "$OUT/tests.log" "$OUT/tests-generic.log" >> "$OUT/summary.txt"
synth_layout english
python3 .gpu/gen_requests.py 7 > /tmp/req.jsonl
for b in laya-engine-base laya-engine-alt; do
  timeout -s KILL 90 $R $b decide --backend cuda --model /tmp/ck-english --input /tmp/req.jsonl \
    > "$OUT/answers-$b.jsonl" 2> "$OUT/decide-$b.err"
  log "$b decide rc=$? ($(grep -m1 -o 'runs the [^(]*' "$OUT/decide-$b.err"))"
done
# Not the same bits (other GEMMs and attention forms): the largest difference of any number in the
# answers, which the parity bounds (0.02 in a probability) cover.
python3 - "$OUT/answers-laya-engine-base.jsonl" "$OUT/answers-laya-engine-alt.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
def leaves(v):
    if isinstance(v, dict):
        for k in sorted(v): yield from leaves(v[k])
    elif isinstance(v, list):
        for x in v: yield from leaves(x)
    elif isinstance(v, (int, float)) and not isinstance(v, bool):
        yield float(v)
a = [list(leaves(json.loads(l))) for l in open(sys.argv[1])]
b = [list(leaves(json.loads(l))) for l in open(sys.argv[2])]
assert len(a) == len(b) and all(len(x) == len(y) for x, y in zip(a, b)), "answers differ in shape"
print("hopper vs generic answers: %d requests, max |difference| of any number %.3g" %
      (len(a), max(abs(p - q) for x, y in zip(a, b) for p, q in zip(x, y))))
PY
# What a build without sm_90a costs on the H200 (the generic kernels against the Hopper ones).
LAYA_VARIANTS="hopper:LAYA_BENCH_BIN=laya-engine-base generic:LAYA_BENCH_BIN=laya-engine-alt" LAYA_BENCH_SHAPES=1x48,1x512,4x464,16x512 \
  LAYA_BENCH_ROUNDS=2 LAYA_BENCH_ITERS=30 OUT=$OUT/ab timeout -s KILL 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" "$OUT/ab/summary.txt" >> "$OUT/summary.txt"
gzip -9nc "$OUT/tests-generic.log" > "$OUT/call2-tests-generic.log.gz"
rm -rf "$OUT/ab"
log "call 2 end"
