#!/usr/bin/env bash
# Session 33, call 4: cuBLASLt's workspace memsets replaced by an own one-block kernel behind a
# programmatic edge from the kernel before them (graph_memsets.h, LAYA_CUDA_GEMM_MEMSET_KERNELS,
# default on in this build).
# GPU tests (the new ones: the graph edit on stand-ins; bitwise answers at 8x512 / 5x512 on english),
# the switch off against on in interleaved rounds, and the trace of 16x512 / 8x512 with it on.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 4 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_GPU_PARITY_DIRS=$CK timeout 120 $R test_gpu --gtest_filter='*Memset*' > $OUT/memsets-test.log 2>&1
log "memset tests rc=$?"
grep -E "replaced|OK \]|FAILED|PASSED|SKIPPED" $OUT/memsets-test.log >> $OUT/summary.txt
LAYA_VARIANTS="off:LAYA_CUDA_GEMM_MEMSET_KERNELS=0 on:LAYA_CUDA_GEMM_MEMSET_KERNELS=1" \
LAYA_BENCH_SHAPES=1x512,4x464,5x512,6x512,8x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
mkdir -p $OUT/t
for shape in 16x512 8x512; do
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace-$shape.tsv $R laya-engine bench --model $CK \
    --backend cuda --execution graph --json --shapes $shape --warmup 20 --iters 100 > /dev/null 2>>$OUT/bench_err.log
  { echo "## $shape (memset kernels)"; python3 .gpu/kernel_trace.py /tmp/trace-$shape.tsv --layer-detail 16; } > $OUT/t/timeline-$shape.txt 2>&1
  sed -n 1,2p $OUT/t/timeline-$shape.txt >> $OUT/summary.txt
  grep -E 'memset|fill_kernel' $OUT/t/timeline-$shape.txt | head -4 >> $OUT/summary.txt
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t $OUT/suite $OUT/ab
log "call 4 end"
