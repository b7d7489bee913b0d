#!/usr/bin/env bash
# Session 42, call 9: how much the small GEMM's early weight requests cost the kernel running
# meanwhile (LAYA_CUDA_SMALL_EARLY_W: 0 the first 8 stages' before the wait, 1 none, 2 the same
# paced 150 ns apart, 3 the first 4 only) — the same bytes, interleaved rounds, traces at 1x48.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 9 start, bundled from $(bundle_commit)"
for m in 1 2; do
  LAYA_COMPARE_ENV_B="LAYA_CUDA_SMALL_EARLY_W=$m" timeout 150 bash .gpu/compare_answers.sh laya-engine laya-engine english 2>&1 | grep -E "identical|rc=" >> $OUT/summary.txt
  echo "compare english, early 0 vs $m rc=${PIPESTATUS[0]}" >> $OUT/summary.txt
done
synth_layout english > /dev/null
LAYA_VARIANTS="e8:LAYA_CUDA_SMALL_EARLY_W=0 none:LAYA_CUDA_SMALL_EARLY_W=1 paced:LAYA_CUDA_SMALL_EARLY_W=2 e4:LAYA_CUDA_SMALL_EARLY_W=3" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/a \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/a/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/a/bench.jsonl > $OUT/bench.jsonl.gz
for m in 0 1 2 3; do
  LAYA_CUDA_SMALL_EARLY_W=$m CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x48 early $m" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 7 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/a
log "call 9 end"
