#!/usr/bin/env bash
# Session 42, call 2: the small GEMM's GeGLU form (the MLP input GEMM at <= 48 tokens) with all its
# weights requested before the PDL wait (LAYA_CUDA_SMALL_GEGLU_W=1: a 16-stage ring) or the boxes past
# the 8-stage ring prefetched into L2 (=2) — tests, the same bytes, interleaved rounds, traces at 1x48.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 2 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure|error" $OUT/suite/tests.log | head -20 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
for mode in 1 2; do
  LAYA_COMPARE_ENV_B="LAYA_CUDA_SMALL_GEGLU_W=$mode" timeout 150 bash .gpu/compare_answers.sh laya-engine laya-engine english >> $OUT/summary.txt 2>&1
  echo "compare english, mode 0 vs $mode rc=$?" >> $OUT/summary.txt
done
log "compare done"
synth_layout english > /dev/null
LAYA_VARIANTS="ring8:LAYA_CUDA_SMALL_GEGLU_W=0 deep:LAYA_CUDA_SMALL_GEGLU_W=1 prefetch:LAYA_CUDA_SMALL_GEGLU_W=2" \
LAYA_BENCH_SHAPES=1x16,1x32,1x48,4x16,1x64,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for mode in 0 1 2; do
  LAYA_CUDA_SMALL_GEGLU_W=$mode CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x48 mode $mode" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 7 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab
log "call 2 end"
