#!/usr/bin/env bash
# Session 41, call 6: does item 202's access-policy window act on cuBLASLt's kernels at all? At
# 1x16 / 1x48 / 1x128 with every GEMM on cuBLASLt (LAYA_CUDA_SMALL_GEMM_MAX_M=0), where item 201
# showed the weights evicting what the chain reads again, the window off and on; traces at 1x48.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 6 start, bundled from $(bundle_commit)"
synth_layout english > /dev/null
LAYA_VARIANTS="off:LAYA_CUDA_SMALL_GEMM_MAX_M=0,LAYA_CUDA_GEMM_W_STREAMING_MAX_M=0 on:LAYA_CUDA_SMALL_GEMM_MAX_M=0,LAYA_CUDA_GEMM_W_STREAMING_MAX_M=100000" \
LAYA_BENCH_SHAPES=1x16,1x48,1x128 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for m in 0 100000; do
  LAYA_CUDA_SMALL_GEMM_MAX_M=0 LAYA_CUDA_GEMM_W_STREAMING_MAX_M=$m CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x48 --warmup 10 --iters 40 > /dev/null 2>&1
  echo "## 1x48 cuBLASLt, window up to $m rows" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -12 >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/ab
log "call 6 end"
