#!/usr/bin/env bash
# Session 22 call 2: the host - event gap. laya_bench_clock_gap over spin length, CTAs (1 idle /
# 1,056 burning FMAs) and kernels per graph (1 / 200); then the engine's bench (graph, --json: per-
# sample host and event times) at 1x48, 1x512, 4x464, 16x512 with the SM clock and power sampled.
PH=bench
source .gpu/suite_common.sh
record_machine
log "clock gap start"
timeout 120 $R laya_bench_clock_gap --reps 30 --ns 100000,1000000,3000000,12000000 --blocks 1,1056 --chain 1,200 \
  > $OUT/clock_gap.txt 2>&1
log "clock gap rc=$?"
EN=/tmp/ck-english
$R laya-engine synth --layout english --seed 1 $EN --tokenizer "$X/tokenizer" 2>&1 | tail -1
smi_start engine
timeout 200 $R laya-engine bench --model $EN --backend cuda --execution graph --shapes 1x48,1x512,4x464,16x512 \
  --warmup 20 --iters 60 --json > $OUT/engine.jsonl 2> $OUT/engine_err.log
log "engine bench rc=$?"
smi_stop engine
python3 - $OUT/engine.jsonl <<'PY' | tee -a $OUT/summary.txt
import json, statistics as st, sys
for line in open(sys.argv[1]):
    if not line.startswith('{"backend'): continue
    j = json.loads(line)
    g = [1e3 * (h - d) for h, d in zip(j["samples_ms"], j["device_samples_ms"])]
    print(f'{j["shape"]:7} host p50 {j["p50_ms"]:.3f} dev p50 {j["device_p50_ms"]:.3f}  per-sample gap median {st.median(g):.1f} us, min {min(g):.1f}, max {max(g):.1f}')
PY
cat $OUT/clock_gap.txt >> $OUT/summary.txt
