#!/usr/bin/env bash
# Session 41, call 3: cuBLASLt's reads of W as streaming in captured graphs (item 202) — GPU tests,
# the switch's bounds in interleaved rounds, kernel traces at 1x512 off / on.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 3 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
grep -E "^\[  FAILED|Failure" $OUT/suite/tests.log | head -20 >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
synth_layout english > /dev/null
LAYA_VARIANTS="off:LAYA_CUDA_GEMM_W_STREAMING_MAX_M=0 to1279:LAYA_CUDA_GEMM_W_STREAMING_MAX_M=1279 all:LAYA_CUDA_GEMM_W_STREAMING_MAX_M=100000" \
LAYA_BENCH_SHAPES=1x48,1x256,1x512,2x512,4x464,8x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 330 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
for m in 0 1279; do
  LAYA_CUDA_GEMM_W_STREAMING_MAX_M=$m CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes 1x512 --warmup 10 --iters 60 > /dev/null 2>&1
  echo "## 1x512 streaming up to $m" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv 2>&1 | head -14 >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/suite $OUT/ab
log "call 3 end"
