#!/usr/bin/env bash
# Session 42, call 8: the small GEMM triggering the next kernel once its last stage has arrived
# (LAYA_CUDA_SMALL_TRIGGER_ARRIVED=1) instead of once it was requested — the same bytes,
# interleaved rounds, traces at 1x48.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 8 start, bundled from $(bundle_commit)"
LAYA_COMPARE_ENV_B="LAYA_CUDA_SMALL_TRIGGER_ARRIVED=1" timeout 150 bash .gpu/compare_answers.sh laya-engine laya-engine english >> $OUT/summary.txt 2>&1
echo "compare english rc=$?" >> $OUT/summary.txt
synth_layout english > /dev/null
LAYA_VARIANTS="requested:LAYA_CUDA_SMALL_TRIGGER_ARRIVED=0 arrived:LAYA_CUDA_SMALL_TRIGGER_ARRIVED=1" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/a \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/a/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/a/bench.jsonl > $OUT/bench.jsonl.gz
for v in 0 1; do
  LAYA_CUDA_SMALL_TRIGGER_ARRIVED=$v CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x48 arrived $v" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 7 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/a
log "call 8 end"
