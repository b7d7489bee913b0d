#!/usr/bin/env bash
# Session 22 call 3: how the host waits. laya_bench_clock_gap under the context's scheduling flag
# (auto, spin) x the wait call (cudaStreamSynchronize, cudaEventSynchronize, polling
# cudaEventQuery), one idle CTA and 1,056 CTAs burning FMAs; then the engine's LAYA_CUDA_WAIT=0/1/2
# interleaved in three rounds (graph host p50), with the per-sample host - event gap.
set -u
export OUT=${OUT:-/tmp/out}
mkdir -p $OUT
for sched in auto spin; do
  for sync in stream event query; do
    timeout 60 .gpu/run.sh laya_bench_clock_gap --reps 30 --ns 100000,1000000,3000000,12000000 --blocks 1,1056 \
      --sched $sched --sync $sync >> $OUT/clock_gap.txt 2>&1
    echo "clock gap $sched $sync rc=$? ($SECONDS s)" >> $OUT/summary.txt
  done
done
LAYA_VARIANTS="w0:LAYA_CUDA_WAIT=0 w1:LAYA_CUDA_WAIT=1 w2:LAYA_CUDA_WAIT=2" LAYA_BENCH_SHAPES=1x48,1x512,4x464,16x512 \
  LAYA_BENCH_ROUNDS=3 timeout 300 bash .gpu/run_env_variants.sh
echo "variants rc=$? ($SECONDS s)" >> $OUT/summary.txt
python3 - $OUT/bench.jsonl <<'PY' | tee -a $OUT/summary.txt
import json, statistics as st, sys, collections
g = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if not line.startswith('{"round'): continue
    j = json.loads(line)
    if "device_samples_ms" not in j: continue
    g[(j["shape"], j["impl"])] += [1e3 * (h - d) for h, d in zip(j["samples_ms"], j["device_samples_ms"])]
for (s, i), v in sorted(g.items()):
    print(f"{s:7} {i:3} per-sample host - event gap median {st.median(v):6.1f} us, min {min(v):6.1f}")
PY
cat $OUT/clock_gap.txt >> $OUT/summary.txt
