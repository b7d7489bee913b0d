#!/usr/bin/env bash
# One-shot A/B GPU suite for a change to the CUDA engine, run ON the GPU machine from the repository
# root with the bundle carried (`LAYA_BASELINE_BIN=<dir of the previous build> scripts/gpu/bundle.sh`,
# then the device tool's `run` with carry [".gpu"]). Phases, in order of importance so a timeout
# loses the least useful part:
#   tests    test_cuda_host, test_gpu (kernels, tiny-checkpoint parity, determinism, cache policies)
#            of the new build, then test_gpu again under each experiment variant;
#   bench    english synthetic checkpoint, graph mode: baseline (laya-engine-base) and new,
#            interleaved, LAYA_BENCH_ROUNDS rounds; new eager once; new graph once per variant;
#   noise    the official laya package on 30 english requests in bf16 autocast (stock) and fp32;
#            ours vs each through test_gpu's ParityWithOfficialCudaPath;
#   parity   ours vs the CPU fp32 engine on 30 full-size english requests (every intermediate), in
#            both precision modes;
#   fp16     the fp16 precision mode: bf16 and fp16 graph benches interleaved (LAYA_BENCH_ROUNDS),
#            and the official package on an english checkpoint whose amp_dtype is fp16 (its stock
#            path then autocasts in fp16) vs ours (--precision auto, so fp16) and vs its fp32;
#   profile  ncu kernel summary of the new build at LAYA_PROFILE_SHAPES.
# Results under $OUT: summary.txt (everything that matters), tests.log, bench.jsonl, noise.log,
# parity.log, profile.txt, gpu.txt.
#
# usage: scripts/gpu/run_ab_suite.sh [PHASES]   (comma list; default tests,bench,noise,parity,profile)
# Env: LAYA_AB_VARIANTS   space-separated NAME:VAR=VALUE[,VAR=VALUE] experiment switches of the new
#                         build, e.g. "pdl:LAYA_CUDA_PDL=1 split2:LAYA_CUDA_ATTN_SPLIT_MAX=2,LAYA_CUDA_PDL=1";
#      LAYA_BENCH_SHAPES, LAYA_BENCH_ITERS (30), LAYA_BENCH_ROUNDS (2), LAYA_PROFILE_SHAPES
#      ("16x512 1x48"), LAYA_PROFILE_FLAGS (extra bench flags of the profile, e.g. "--precision fp16"),
#      LAYA_PROFILE_BASE=1 (profile the bundled baseline too), LAYA_PROFILE_TOP (kernel families
#      listed, 12), LAYA_PARITY_MAX_TOKENS (1024), LAYA_PARITY_TIMEOUT (200);
#      LAYA_AB_BASE_ENV    "VAR=VALUE ..." : without a bundled baseline binary, the baseline is the new
#                          build run with these switches (an A/B of one switch, interleaved in rounds);
#      LAYA_AB_VARIANT_TESTS=0 skips test_gpu under each variant.
PH=${1:-tests,bench,noise,parity,profile}
source "$(dirname "$0")/suite_common.sh"
IT=${LAYA_BENCH_ITERS:-30}
ROUNDS=${LAYA_BENCH_ROUNDS:-2}
VARIANTS=${LAYA_AB_VARIANTS:-}
check_variants LAYA_AB_VARIANTS "$VARIANTS"
S="$OUT/summary.txt"

log "ab suite start, bundled from $(bundle_commit)"
record_machine
head -3 "$OUT/gpu.txt" | tee -a "$S"
EN=/tmp/ck-english
synth_layout english
log "synth english done"

# 1. tests
NEW_RC=0
TG=test_gpu  # the test binary the parity phases use: the baseline's when the new build's tests fail
if has tests; then
  $R test_cuda_host > "$OUT/tests.log" 2>&1; log "test_cuda_host rc=$?"
  $R test_gpu --gtest_filter=-*Extra*:*Official* >> "$OUT/tests.log" 2>&1; NEW_RC=$?; log "test_gpu rc=$NEW_RC"
  [ "$NEW_RC" = 0 ] || TG=test_gpu-base
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^parity|worst|requests|Failure|Expected|Which is|nRMS" "$OUT/tests.log" | head -60 | tee -a "$S"
  for v in $([ "${LAYA_AB_VARIANT_TESTS:-1}" = 0 ] || echo $VARIANTS); do
    echo "-- variant $v" >> "$OUT/tests.log"
    env $(echo "${v#*:}" | tr ',' ' ') $R test_gpu --gtest_filter=-*Extra*:*Official* >> "$OUT/tests.log" 2>&1
    log "test_gpu with ${v#*:} rc=$?"
    sed -n '/^-- variant '"${v%%:*}"':/,$p' "$OUT/tests.log" | grep -E "^\[  (PASSED|FAILED) |Failure" | head -10 | tee -a "$S"
  done
  LAYA_CUDA_GEMM_LOG=1 $R laya-engine bench --model $EN --backend cuda --execution graph --shapes 1x48 --warmup 1 --iters 1 2>&1 >/dev/null | grep -E "gemm plan" | sort -u | head -12 | tee -a "$S"
fi

# 2. A/B bench
B=$OUT/bench.jsonl
EXTRA=()  # extra bench flags (the fp16 phase's --precision)
bench() {  # impl-name program execution [VAR=VALUE...]
  local name=$1 prog=$2 ex=$3; shift 3
  env "$@" $R "$prog" bench --model $EN --backend cuda --execution "$ex" --shapes "$SHAPES" --warmup 20 --iters "$IT" --json \
    "${EXTRA[@]}" 2>>/tmp/bench_err.log | sed "s/^{/{\"round\":$round,\"impl\":\"$name\",/" >> "$B"
  log "bench $name round $round rc=$?"
}
summarize() {  # the mean per shape and impl of $B's rows, for the impls given, first = baseline
  python3 - "$B" "$@" <<'PY' | tee -a "$S"
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
impls = sys.argv[2:]
by = collections.defaultdict(list)
for r in rows:
    if "shape" in r and "p50_ms" in r:
        by[(r.get("impl", "?"), r["shape"])].append(r)
shapes = sorted({s for _, s in by}, key=lambda s: [int(x) for x in s.replace("+", "x").split("x")])
print("%-8s %-24s %9s %9s %9s  (mean of rounds; host wall, device = CUDA events)" % ("shape", "impl", "p50 ms", "p95 ms", "dev p50"))
for s in shapes:
    for impl in impls:
        rs = by.get((impl, s), [])
        if not rs: continue
        m = lambda k: sum(r.get(k, float("nan")) for r in rs) / len(rs)
        print("%-8s %-24s %9.3f %9.3f %9.3f  rounds p50: %s" % (s, impl, m("p50_ms"), m("p95_ms"), m("device_p50_ms"), ", ".join("%.3f" % r["p50_ms"] for r in rs)))
    a, b = by.get((impls[0], s)), by.get((impls[1], s)) if len(impls) > 1 else None
    if a and b:
        ma = sum(r["p50_ms"] for r in a) / len(a); mb = sum(r["p50_ms"] for r in b) / len(b)
        print("%-8s %s/%s p50: %.3f (%+.3f ms)" % (s, impls[1], impls[0], mb / ma, mb - ma))
for r in rows:
    if "device_memory_mb" in r and r.get("impl") in impls:
        print("device memory in use by the engine: %.0f MB (%s)" % (r["device_memory_mb"], r.get("impl")))
PY
}
if has bench; then
  base_graph() {
    if [ -x "$X/bin/laya-engine-base" ]; then bench base-graph laya-engine-base graph
    elif [ -n "${LAYA_AB_BASE_ENV:-}" ]; then bench base-graph laya-engine graph $LAYA_AB_BASE_ENV; fi
  }
  # Even rounds run the new build first: a fixed order alone moved a shape by ≈ 0.01 ms
  # (docs/benchmarks/cuda.md item 124).
  for round in $(seq 1 "$ROUNDS"); do
    if (( round % 2 == 1 )); then base_graph; bench new-graph laya-engine graph
    else bench new-graph laya-engine graph; base_graph; fi
  done
  round=1
  bench new-eager laya-engine eager
  for v in $VARIANTS; do bench "new-graph-${v%%:*}" laya-engine graph $(echo "${v#*:}" | tr ',' ' '); done
  grep -v " warning " /tmp/bench_err.log | head -20 | tee -a "$S"
  summarize base-graph new-graph new-eager $(for v in $VARIANTS; do echo "new-graph-${v%%:*}"; done)
fi

# The official package's stock path (autocast in the checkpoint's amp_dtype) and its fp32 forward
# on 30 requests, the noise floor between them, and ours (test binary $4, --precision auto) vs each.
official_parity() {  # model-dir tag log test-binary
  local model=$1 tag=$2 olog=$3 tbin=$4
  [ -d /tmp/laya-site ] || python3 -m pip install -q --no-deps --no-index --target /tmp/laya-site "$X"/wheels/laya-*.whl >> "$olog" 2>&1
  PYTHONPATH=/tmp/laya-site timeout 90 python3 .gpu/official_gpu_bench.py --model "$model" --shapes 1x48 --warmup 1 --iters 2 \
    --parity-out /tmp/official_${tag}_stock.jsonl --parity-fp32-out /tmp/official_${tag}_fp32.jsonl --parity-requests 30 >> "$olog" 2>&1
  log "official stock + fp32 dumps ($tag) rc=$?"
  grep -E "noise floor|wrote|amp" "$olog" | tee -a "$S"
  for ref in stock fp32; do
    echo "-- ours ($tbin, --precision auto) vs official $ref ($tag)" | tee -a "$S" "$olog"
    LAYA_GPU_OFFICIAL_PARITY=/tmp/official_${tag}_$ref.jsonl LAYA_GPU_OFFICIAL_MODEL=$model \
      $R "$tbin" --gtest_filter=*Official* >> "$olog" 2>&1
    log "ours vs official $ref rc=$? (bound: max |dp| <= 0.02 in fp16, 0.05 in bf16)"
    grep -E "official parity" "$olog" | tail -1 | tee -a "$S"
  done
}

# 3. noise floor
if has noise; then official_parity $EN bf16 "$OUT/noise.log" $TG; fi

# 4. ours vs CPU fp32, full-size english
if has parity; then
LAYA_GPU_PARITY_DIRS=$EN LAYA_GPU_PARITY_REQUESTS=30 LAYA_GPU_PARITY_MAX_TOKENS=${LAYA_PARITY_MAX_TOKENS:-1024} \
  timeout ${LAYA_PARITY_TIMEOUT:-200} $R $TG --gtest_filter=*Extra* > "$OUT/parity.log" 2>&1
log "full-size parity vs CPU fp32 ($TG) rc=$?"
grep -E "^\[  (PASSED|FAILED) |parity|worst|requests|nRMS" "$OUT/parity.log" | head -40 | tee -a "$S"
fi

# 5. the fp16 precision mode
if has fp16; then
  EN16=/tmp/ck-english-fp16  # the same weights (seed 1), amp_dtype fp16
  [ -d $EN16 ] || $R laya-engine synth --layout english --seed 1 --amp-dtype fp16 $EN16 --tokenizer "$X/tokenizer" 2>&1 | tail -1
  for round in $(seq 1 "$ROUNDS"); do
    for prec in bf16 fp16; do EXTRA=(--precision $prec); bench "graph-$prec" laya-engine graph; done
  done
  EXTRA=()
  summarize graph-bf16 graph-fp16
  official_parity $EN16 fp16 "$OUT/fp16.log" test_gpu
fi

# 6. profile
if has profile; then
  NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
  for bin in laya-engine $([ "${LAYA_PROFILE_BASE:-0}" = 1 ] && echo laya-engine-base); do
    for shp in ${LAYA_PROFILE_SHAPES:-16x512 1x48}; do
      timeout 40 "$NCU" --clock-control none --metrics gpu__time_duration.sum --csv \
        $R $bin bench --model $EN --backend cuda --execution eager --shapes $shp --warmup 1 --iters 1 \
        ${LAYA_PROFILE_FLAGS:-} > /tmp/ncu_$shp.csv 2>/dev/null
      log "ncu $bin $shp ${LAYA_PROFILE_FLAGS:-} rc=$?"
      echo "== $bin" >> "$OUT/profile.txt"
      python3 scripts/gpu/ncu_summary.py /tmp/ncu_$shp.csv $shp ${LAYA_PROFILE_TOP:-12} | tee -a "$OUT/profile.txt"
    done
  done
fi
log "ab suite end"
