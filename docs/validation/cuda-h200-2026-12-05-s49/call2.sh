#!/usr/bin/env bash
# Session 49, call 2 (prepared, not run: no device machine was lent in session 49): the kernel-image
# check (current_kernel_image, docs/cuda.md) and the generic kernels on the H200. Two builds of main:
# build/cuda-h (CMAKE_CUDA_ARCHITECTURES=90a-real: the Hopper kernels) and build/cuda-generic
# (90-real: sm_90 SASS without the "a" features — what CMake's `90` or `native` gives on a Hopper,
# and the same source paths as the sm_80 image of an A100). Before session 49 the generic build
# chose the wgmma kernels there (binaryVersion 90) and their helpers trapped. Bundle:
#   cmake -S . -B build/cuda-generic -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAYA_WITH_CUDA=ON \
#     -DCMAKE_CUDA_COMPILER=nvcc -DCMAKE_CUDA_ARCHITECTURES=90-real -DLAYA_BUILD_BENCH=OFF
#   cmake --build build/cuda-generic --target laya-engine test_gpu
#   mkdir -p /tmp/generic && cp build/cuda-generic/bin/laya-engine build/cuda-generic/tests/gpu/test_gpu /tmp/generic/
#   LAYA_BASELINE_BIN=/tmp/generic LAYA_BUNDLE_PROBES=none scripts/gpu/bundle.sh build/cuda-h
# (laya-engine / test_gpu: the sm_90a build; laya-engine-base / test_gpu-base: the generic one;
# another bundle names the two builds' suffixes: LAYA_CALL2_HOPPER, LAYA_CALL2_GENERIC — s50's call1.sh).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
H=${LAYA_CALL2_HOPPER-}          # suffix of the sm_90a build's binaries
G=${LAYA_CALL2_GENERIC--base}    # suffix of the generic build's
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
timeout -s KILL 200 $R test_gpu$H --gtest_filter=-*Extra*:*Official* > "$OUT/tests.log" 2>&1
log "test_gpu (sm_90a build) rc=$?"
timeout -s KILL 200 $R test_gpu$G --gtest_filter=-*Extra*:*Official* > "$OUT/tests-generic.log" 2>&1
log "test_gpu (generic build) rc=$?"
grep -hE "built for|PASSED|FAILED" "$OUT/tests.log" "$OUT/tests-generic.log" >> "$OUT/summary.txt"
synth_layout english
python3 .gpu/gen_requests.py 7 > /tmp/req.jsonl
for b in laya-engine$H laya-engine$G; do
  timeout -s KILL 90 $R $b decide --backend cuda --model /tmp/ck-english --input /tmp/req.jsonl \
    > "$OUT/answers-$b.jsonl" 2> "$OUT/decide-$b.err"
  log "$b decide rc=$? ($(grep -m1 -o 'runs the [^(]*' "$OUT/decide-$b.err"))"
done
# Not the same bits (other GEMMs and attention forms): the largest difference of any number in the
# answers, which the parity bounds (0.02 in a probability) cover.
python3 - "$OUT/answers-laya-engine$H.jsonl" "$OUT/answers-laya-engine$G.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
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
LAYA_VARIANTS="hopper:LAYA_BENCH_BIN=laya-engine$H generic:LAYA_BENCH_BIN=laya-engine$G" LAYA_BENCH_SHAPES=1x48,1x512,4x464,16x512 \
  LAYA_BENCH_ROUNDS=2 LAYA_BENCH_ITERS=30 OUT=$OUT/ab timeout -s KILL 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" "$OUT/ab/summary.txt" >> "$OUT/summary.txt"
gzip -9nc "$OUT/tests-generic.log" > "$OUT/call2-tests-generic.log.gz"
rm -rf "$OUT/ab"
log "call 2 end"
