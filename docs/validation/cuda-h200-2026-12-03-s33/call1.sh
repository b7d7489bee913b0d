#!/usr/bin/env bash
# Session 33, call 1 (measurement only; the engine is session 31's):
# (a) the kernel timeline of a replayed forward — every kernel's time in context and the gaps
#     between kernels — through the CUPTI injection library (bench/cuda/kernel_trace.cpp), at
#     1x48, 1x256, 1x512, 4x464 and 16x512; each shape also benched without the library (its cost);
# (b) does a process that has captured many graphs run a bucket slower (item 160's open question)?
#     4x464 and 1x512 in a fresh process, after 40 other buckets' graphs kept in the cache, and
#     after 40 captured and destroyed (cache of one graph); three interleaved rounds.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 1 start, bundled from $(bundle_commit)"
record_machine
synth_layout english > /dev/null
CK=/tmp/ck-english
bench() { $R laya-engine bench --model $CK --backend cuda --execution graph --json "$@" 2>>"$OUT/bench_err.log"; }
tag() { sed "s/^{/{\"variant\":\"$1\",\"round\":$2,/"; }
TRACE_LIB=$X/lib/liblaya_kernel_trace.so
for shape in 1x48 1x256 1x512 4x464 16x512; do
  log "trace $shape"
  bench --shapes $shape --warmup 20 --iters 100 | tag plain 0 >> "$OUT/trace-bench.jsonl"
  CUDA_INJECTION64_PATH=$TRACE_LIB LAYA_KERNEL_TRACE=/tmp/trace-$shape.tsv bench --shapes $shape --warmup 20 --iters 100 \
    | tag traced 0 >> "$OUT/trace-bench.jsonl"
  { echo "## $shape"; python3 .gpu/kernel_trace.py /tmp/trace-$shape.tsv --layer-detail 16; } > "$OUT/timeline-$shape.txt" 2>&1
  head -1 "$OUT/timeline-$shape.txt" >> "$OUT/summary.txt"; sed -n 2p "$OUT/timeline-$shape.txt" >> "$OUT/summary.txt"
  gzip -9nc /tmp/trace-$shape.tsv > "$OUT/trace-$shape.tsv.gz"
done
python3 - "$OUT/trace-bench.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "p50_ms" in r: print("%-7s %-7s p50 %.3f p95 %.3f" % (r["variant"], r["shape"], r["p50_ms"], r["p95_ms"]))
PY
OTHERS=1x16,1x32,1x64,1x96,1x128,1x160,1x192,1x224,1x256,1x288,1x320,1x352,1x384,1x416,1x448,1x480,2x64,2x128,2x192,2x256,2x320,2x384,3x128,3x256,3x384,3x512,4x128,4x256,4x384,5x256,6x256,8x64,8x128,8x192,8x256,2x512,12x128,16x64,16x128,5x512
for round in 1 2 3; do
  log "graphs round $round"
  bench --shapes 4x464,1x512 --warmup 10 --iters 100 | tag fresh $round >> "$OUT/graphs.jsonl"
  bench --shapes $OTHERS,4x464,1x512 --warmup 10 --iters 100 | tag kept $round >> "$OUT/graphs.jsonl"
  bench --shapes $OTHERS,4x464,1x512 --warmup 10 --iters 100 --graph-cache-shapes 1 | tag destroyed $round >> "$OUT/graphs.jsonl"
done
python3 - "$OUT/graphs.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
from collections import defaultdict
t = defaultdict(list)
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get("shape") in ("4x464", "1x512"): t[(r["shape"], r["variant"])].append(r["p50_ms"])
for (shape, v), xs in sorted(t.items()):
    print("%-6s %-9s p50 by round %s  mean %.3f" % (shape, v, " ".join("%.3f" % x for x in xs), sum(xs) / len(xs)))
PY
log "call 1 end"
