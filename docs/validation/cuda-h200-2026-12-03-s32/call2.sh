#!/usr/bin/env bash
# Session 32, call 2: (a) does sustained load slow the next forward? 4x464 before and right after
# ~25 s of 16x512, with the SM clock, power and temperature sampled every 200 ms; (b) the GEMM
# choice inside the captured forward (LAYA_CUDA_GEMM_GRAPH_TUNE=8) at six more bucket sizes, one
# process: the tuner's own first-against-final replays are the result.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
CK=/tmp/ck-english
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv,noheader \
  -lms 200 > "$OUT/smi.csv" 2>/dev/null &
SMI=$!
bench() { $R laya-engine bench --model $CK --backend cuda --execution graph --json "$@" 2>>"$OUT/bench_err.log"; }
for i in 1 2; do
  log "thermal $i: 4x464 cool"
  bench --shapes 4x464 --warmup 20 --iters 60 | sed "s/^{/{\"phase\":\"before$i\",/" >> "$OUT/thermal.jsonl"
  log "thermal $i: 16x512 burn"
  bench --shapes 16x512 --warmup 20 --iters 2000 | sed "s/^{/{\"phase\":\"burn$i\",/" >> "$OUT/thermal.jsonl"
  log "thermal $i: 4x464 after"
  bench --shapes 4x464 --warmup 20 --iters 60 | sed "s/^{/{\"phase\":\"after$i\",/" >> "$OUT/thermal.jsonl"
  log "thermal $i: idle 20 s"
  sleep 20
done
python3 - "$OUT/thermal.jsonl" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
for l in open(sys.argv[1]):
    if l.startswith("{"):
        r = json.loads(l)
        if "p50_ms" in r: print("%-8s %-7s p50 %.3f p95 %.3f" % (r["phase"], r["shape"], r["p50_ms"], r.get("p95_ms", float("nan"))))
PY
log "tune: six bucket sizes"
LAYA_CUDA_GEMM_GRAPH_TUNE=8 timeout 240 $R laya-engine bench --model $CK --backend cuda --execution graph --json \
  --shapes 1x192,1x320,1x384,1x448,3x512,6x512 --warmup 20 --iters 30 > "$OUT/tune-bench.jsonl" 2>"$OUT/tune-err.log"
log "tune rc=$?"
grep "graph tune" "$OUT/tune-err.log" > "$OUT/tune-log.txt"
grep "graph tune .*:.*tried" "$OUT/tune-log.txt" >> "$OUT/summary.txt"
kill $SMI 2>/dev/null; wait $SMI 2>/dev/null
gzip -9n "$OUT/smi.csv"
rm -f "$OUT/tune-err.log"
log "call 2 end"
