#!/usr/bin/env bash
# Session 35, call 5: the fused GeGLU GEMM's out-of-table GELUs from a global table of every bf16
# pattern instead of the computed form in each unrolled epilogue chunk (item 168). GPU tests, a
# short english parity, then the build (new) against d32d9b3's laya-engine (base: the engine of
# session 34) in interleaved rounds, and kernel traces of 4x464 and 16x512 in both.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 5 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
zcat $OUT/tests.log.gz | grep -E "(Geglu|Gelu).*(OK|FAILED)|geglu gemm M=" | sort | uniq -c | head -20 >> $OUT/summary.txt
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_GPU_PARITY_DIRS=$CK LAYA_GPU_PARITY_REQUESTS=12 LAYA_GPU_PARITY_MAX_TOKENS=2048 timeout 150 \
  $R test_gpu --gtest_filter='*ParityWithCpuEngineOnExtraCheckpoints*' > $OUT/parity.log 2>&1
log "english parity rc=$?"
grep -E "^\[  (PASSED|FAILED) |worst|requests" $OUT/parity.log | head -12 >> $OUT/summary.txt
gzip -9nc $OUT/parity.log > $OUT/parity.log.gz; rm -f $OUT/parity.log
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x48,1x512,10x128,3x512,13x128,4x464,4x512,5x512,8x512,16x512 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 300 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
mkdir -p $OUT/t
for v in "4x464 laya-engine-base" "4x464 laya-engine" "16x512 laya-engine-base" "16x512 laya-engine"; do
  set -- $v
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv $R $2 bench --model $CK \
    --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 60 > /dev/null 2>>$OUT/bench_err.log
  { echo "## $1 $2"; python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 16; } > $OUT/t/timeline-$1-$2.txt 2>&1
  sed -n 1,2p $OUT/t/timeline-$1-$2.txt >> $OUT/summary.txt
  grep -E '^geglu_gemm' $OUT/t/timeline-$1-$2.txt | head -1 >> $OUT/summary.txt
  rm -f /tmp/trace.tsv
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t $OUT/suite $OUT/ab
log "call 5 end"
