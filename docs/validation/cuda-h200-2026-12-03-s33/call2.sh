#!/usr/bin/env bash
# Session 33, call 2 (measurement only): where 16x512's ≈ 2.9 µs gaps before each cuBLASLt kernel
# come from (call 1: ≈ 0.28 ms a forward with no kernel running, against ≈ 0.025 at 1x512) — the trace
# now records memsets and copies too; 16x512, 8x512, 6x512 with the GEMMs timed at start-up (default
# from 2,560 rows) and with the heuristic's picks (LAYA_CUDA_GEMM_TUNE_FROM_M=0), and 4x464 (call 1's
# timeline did not come back). Each traced run beside an untraced one.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
CK=/tmp/ck-english
bench() { $R laya-engine bench --model $CK --backend cuda --execution graph --json "$@" 2>>"$OUT/bench_err.log"; }
tag() { sed "s/^{/{\"variant\":\"$1\",/"; }
TRACE_LIB=$X/lib/liblaya_kernel_trace.so
mkdir -p "$OUT/t"
run() {  # NAME SHAPE [ENV...]
  local name=$1 shape=$2; shift 2
  env "$@" $R laya-engine bench --model $CK --backend cuda --execution graph --json --shapes $shape --warmup 20 --iters 100 \
    2>>"$OUT/bench_err.log" | tag "$name-plain" >> "$OUT/bench.jsonl"
  env "$@" CUDA_INJECTION64_PATH=$TRACE_LIB LAYA_KERNEL_TRACE=/tmp/trace-$name.tsv $R laya-engine bench --model $CK --backend cuda \
    --execution graph --json --shapes $shape --warmup 20 --iters 100 2>>"$OUT/bench_err.log" | tag "$name-traced" >> "$OUT/bench.jsonl"
  { echo "## $name"; python3 .gpu/kernel_trace.py /tmp/trace-$name.tsv --layer-detail 16; } > "$OUT/t/timeline-$name.txt" 2>&1
  { echo "## $name"; sed -n 2p "$OUT/t/timeline-$name.txt"; grep -E "memset|memcpy" "$OUT/t/timeline-$name.txt" | head -4; } >> "$OUT/summary.txt"
  gzip -9nc /tmp/trace-$name.tsv > "$OUT/t/trace-$name.tsv.gz"
}
run 16x512 16x512
run 16x512-heur 16x512 LAYA_CUDA_GEMM_TUNE_FROM_M=0
run 8x512 8x512
run 8x512-heur 8x512 LAYA_CUDA_GEMM_TUNE_FROM_M=0
run 6x512 6x512
run 4x464 4x464
python3 - "$OUT/bench.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "p50_ms" in r: print("%-20s %-7s p50 %.3f p95 %.3f" % (r["variant"], r["shape"], r["p50_ms"], r["p95_ms"]))
PY
tar -C "$OUT" -cf "$OUT/timelines.tar" t && rm -rf "$OUT/t"
log "call 2 end"
