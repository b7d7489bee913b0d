#!/usr/bin/env bash
# Session 44, call 5: the act head's first linear as a cuBLASLt GEMM with its GELU read by the second
# linear (item 222, LAYA_CUDA_ACT_GEMM_FROM) against the per-output and the 8x4-slot small_linear.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 5 start, bundled from $(bundle_commit)"
LAYA_CUDA_ACT_GEMM_FROM=1 timeout 240 $R test_gpu --gtest_filter=-*Extra*:*Official* > $OUT/tests.log 2>&1
echo "test_gpu (act GEMM in every bucket) rc=$?" >> $OUT/summary.txt
grep -E "PASSED|FAILED" $OUT/tests.log | tail -5 >> $OUT/summary.txt
gzip -9n $OUT/tests.log
log "tests done"
synth_layout english > /dev/null
LAYA_VARIANTS="r1:LAYA_CUDA_ACT_ROWS_PER_SLOT=1 slots:LAYA_X=0 g1:LAYA_CUDA_ACT_GEMM_FROM=1 g16:LAYA_CUDA_ACT_GEMM_FROM=16" \
LAYA_BENCH_SHAPES=1x48,8x16,16x48,4x464,64x48,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout 400 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/bench.jsonl.gz
for v in "1x48 LAYA_CUDA_ACT_GEMM_FROM=1" "8x16 LAYA_CUDA_ACT_GEMM_FROM=1" "16x48 LAYA_CUDA_ACT_GEMM_FROM=1" \
         "64x48 LAYA_CUDA_ACT_GEMM_FROM=1" "16x512 LAYA_CUDA_ACT_GEMM_FROM=1"; do
  set -- $v
  env $2 CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/t.tsv $R laya-engine bench \
    --model /tmp/ck-english --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 40 > /dev/null 2>&1
  echo "## $1 $2" >> $OUT/summary.txt
  python3 .gpu/kernel_trace.py /tmp/t.tsv --tail 3 2>&1 | sed -n '1p;/^kernels/,$p' >> $OUT/summary.txt
  rm -f /tmp/t.tsv
done
rm -rf $OUT/ab
log "call 5 end"
