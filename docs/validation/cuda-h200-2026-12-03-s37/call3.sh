#!/usr/bin/env bash
# Session 37, call 3: GPU tests with the own residual GEMM's kernel and engine tests; the output GEMMs
# on it (LAYA_CUDA_OWN_RESIDUAL_FROM=129) against cuBLASLt's in interleaved rounds (item 179); kernel
# traces at 4x464 and 16x512.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 3 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 240 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
zcat $OUT/tests.log.gz | grep -E "(Residual|residual).*(OK|FAILED)|own residual|differ from cuBLASLt" | head -40 >> $OUT/summary.txt
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_VARIANTS="cublas:LAYA_X=0 own:LAYA_CUDA_OWN_RESIDUAL_FROM=129" \
LAYA_BENCH_SHAPES=1x512,2x512,3x512,4x464,5x512,8x512,16x512 LAYA_BENCH_ROUNDS=3 LAYA_BENCH_ITERS=30 OUT=$OUT/ab \
  timeout 260 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
mkdir -p $OUT/t
for sh in 4x464 16x512; do
  for v in 0 129; do
    LAYA_CUDA_OWN_RESIDUAL_FROM=$v CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv \
      timeout 60 $R laya-engine bench --model $CK --backend cuda --execution graph --json --shapes $sh --warmup 10 --iters 40 \
      > /dev/null 2>>$OUT/bench_err.log
    { echo "## $sh own_from=$v"; python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 16; } > $OUT/t/timeline-$sh-own$v.txt 2>&1
    head -14 $OUT/t/timeline-$sh-own$v.txt | grep -E "^## |forwards|residual|nvjet|add_ln" >> $OUT/summary.txt
    rm -f /tmp/trace.tsv
  done
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t $OUT/suite $OUT/ab
log "call 3 end"
