#!/usr/bin/env bash
# Experiment switches of ONE build, side by side: each variant is the bundled laya-engine run with
# some environment switches, and every round runs all variants in turn (interleaved, so a slow
# minute of the GPU hits them alike), graph mode, on a synthetic checkpoint (english unless
# LAYA_BENCH_LAYOUT names another layout). Prints, per
# shape, each variant's mean host p50 over the rounds and its difference to the first variant.
# Run ON the GPU machine from the repository root with the bundle carried (scripts/gpu/bundle.sh,
# then the device tool's `run` with carry [".gpu"]). Odd rounds run the variants in the listed
# order, even rounds in reverse.
#
# usage: LAYA_VARIANTS="base:LAYA_X=0 pdl:LAYA_CUDA_PDL=1 two:VAR=V,VAR=V" scripts/gpu/run_env_variants.sh
# Env: LAYA_VARIANTS   space-separated NAME:VAR=VALUE[,VAR=VALUE] (the first is the base; a variant
#                      without switches still needs one, e.g. LAYA_X=0);
#      LAYA_BENCH_LAYOUT (english; typed-decisions or multilingual: that layout's checkpoint),
#      LAYA_BENCH_SHAPES (1x48,1x512,4x464,16x512), LAYA_BENCH_ROUNDS (3), LAYA_BENCH_WARMUP (20),
#      LAYA_BENCH_ITERS (30), LAYA_BENCH_BIN (laya-engine; e.g. laya-engine-base; also per variant,
#      as one of its switches: "base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0").
# Results under $OUT: bench.jsonl (each row tagged with round and impl), summary.txt.
set -u
PH=bench
source "$(dirname "$0")/suite_common.sh"
VARIANTS=${LAYA_VARIANTS:?set LAYA_VARIANTS to NAME:VAR=VALUE[,VAR=VALUE] ...}
ROUNDS=${LAYA_BENCH_ROUNDS:-3}
BIN=${LAYA_BENCH_BIN:-laya-engine}
check_variants LAYA_VARIANTS "$VARIANTS"
S=$OUT/summary.txt
B=$OUT/bench.jsonl
log "env variants start: $VARIANTS; shapes $SHAPES; $ROUNDS rounds; bundled from $(bundle_commit)"
record_machine
LAYOUT=${LAYA_BENCH_LAYOUT:-english}
EN=/tmp/ck-$LAYOUT
synth_layout "$LAYOUT"
log "checkpoint: $EN ($LAYOUT)"
for round in $(seq 1 "$ROUNDS"); do
  # Even rounds run the variants in reverse order: in a fixed order two variants with the same code
  # differed by 0.011 ms (docs/benchmarks/cuda.md item 124).
  order=$VARIANTS
  (( round % 2 == 0 )) && order=$(echo $VARIANTS | tr ' ' '\n' | tac | tr '\n' ' ')
  for v in $order; do
    # A variant may name its own binary (LAYA_BENCH_BIN=laya-engine-base: a baseline build).
    vbin=$(echo "${v#*:}" | tr ',' '\n' | sed -n 's/^LAYA_BENCH_BIN=//p' | tail -1)
    env $(echo "${v#*:}" | tr ',' ' ') $R "${vbin:-$BIN}" bench --model $EN --backend cuda --execution graph --shapes "$SHAPES" \
      --warmup "${LAYA_BENCH_WARMUP:-20}" --iters "${LAYA_BENCH_ITERS:-30}" --json 2>>"$OUT/bench_err.log" |
      sed "s/^{/{\"round\":$round,\"impl\":\"${v%%:*}\",/" >> "$B"
    log "${v%%:*} round $round rc=$?"
  done
done
python3 - "$B" $(for v in $VARIANTS; do echo "${v%%:*}"; done) <<'PY' | tee -a "$S"
import json, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
impls = sys.argv[2:]
by = collections.defaultdict(list)
for r in rows:
    if "p50_ms" in r:
        by[(r["impl"], r["shape"])].append(r["p50_ms"])
shapes = sorted({s for _, s in by}, key=lambda s: [int(x) for x in s.replace("+", "x").split("x")])
print("%-8s" % "shape" + "".join("%20s" % i for i in impls) + "   (host p50 ms, mean of rounds; variant - first)")
for s in shapes:
    base = by.get((impls[0], s))
    b = sum(base) / len(base) if base else float("nan")
    cells = []
    for i in impls:
        v = by.get((i, s), [])
        if not v:
            cells.append("%20s" % "-")
            continue
        m = sum(v) / len(v)
        cells.append("%20.3f" % m if i == impls[0] else "%11.3f (%+.3f)" % (m, m - b))
    print("%-8s" % s + "".join(cells))
    print("%-8s" % "" + " | ".join(",".join("%.3f" % x for x in by.get((i, s), [])) for i in impls))
PY
log "env variants end"
