#!/usr/bin/env bash
# Session 42, call 7: the small buckets' add+LN (partials form) with each row split over 2 or 4
# warps (LAYA_CUDA_ADD_LN_WARPS) — GPU tests with the split, interleaved rounds, traces at 1x48.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 7 start, bundled from $(bundle_commit)"
for w in 4 2; do
  LAYA_CUDA_ADD_LN_WARPS=$w timeout 150 $R test_gpu > $OUT/test_gpu_w$w.log 2>&1
  echo "test_gpu with LAYA_CUDA_ADD_LN_WARPS=$w rc=$?" >> $OUT/summary.txt
  grep -E "PASSED|FAILED" $OUT/test_gpu_w$w.log | head -12 >> $OUT/summary.txt
done
gzip -9 $OUT/test_gpu_w*.log
log "tests done"
synth_layout english > /dev/null
LAYA_VARIANTS="w1:LAYA_CUDA_ADD_LN_WARPS=1 w2:LAYA_CUDA_ADD_LN_WARPS=2 w4:LAYA_CUDA_ADD_LN_WARPS=4" \
LAYA_BENCH_SHAPES=1x16,1x48,1x64,4x16,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/a \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/a/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/a/bench.jsonl > $OUT/bench.jsonl.gz
for w in 1 4; do
  LAYA_CUDA_ADD_LN_WARPS=$w CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x48 warps $w" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --layer-detail 7 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/a
log "call 7 end"
