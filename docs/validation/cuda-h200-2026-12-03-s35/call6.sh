#!/usr/bin/env bash
# Session 35, call 6: the small GEMM's GeGLU epilogue (buckets of <= 128 tokens) and the GeGLU pass
# (129-1,279 tokens) look T(gelu(act)) up in the table of every bf16 pattern (the pass: with no
# range check and no erf branch) instead of computing erf. GPU tests, then
# the build (new) against 696d579's laya-engine (base: call 5's engine) in interleaved rounds,
# and kernel traces of 1x48 in both.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
PH=none
source .gpu/suite_common.sh
log "call 6 start, bundled from $(bundle_commit)"
OUT=$OUT/suite timeout 200 bash .gpu/run_gpu_suite.sh tests > /dev/null 2>&1
log "suite rc=$?"
grep -E "rc=|PASSED|FAILED" $OUT/suite/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/suite/tests.log > $OUT/tests.log.gz 2>/dev/null
zcat $OUT/tests.log.gz | grep -E "(SmallGemm|Gelu|Geglu).*(OK|FAILED)" | sort | uniq -c | head -20 >> $OUT/summary.txt
synth_layout english > /dev/null
CK=/tmp/ck-english
LAYA_VARIANTS="base:LAYA_BENCH_BIN=laya-engine-base new:LAYA_X=0" \
LAYA_BENCH_SHAPES=1x16,1x48,2x32,1x64,4x32,1x128,4x64,1x256,1x464,1x512,2x512,4x464 LAYA_BENCH_ROUNDS=4 LAYA_BENCH_ITERS=40 OUT=$OUT/ab \
  timeout 240 bash .gpu/run_env_variants.sh > /dev/null 2>&1
log "variants rc=$?"
grep -v "^==" $OUT/ab/summary.txt >> $OUT/summary.txt
gzip -9nc $OUT/ab/bench.jsonl > $OUT/ab-bench.jsonl.gz
mkdir -p $OUT/t
for v in "1x48 laya-engine-base" "1x48 laya-engine"; do
  set -- $v
  CUDA_INJECTION64_PATH=$X/lib/liblaya_kernel_trace.so LAYA_KERNEL_TRACE=/tmp/trace.tsv $R $2 bench --model $CK \
    --backend cuda --execution graph --json --shapes $1 --warmup 10 --iters 100 > /dev/null 2>>$OUT/bench_err.log
  { echo "## $1 $2"; python3 .gpu/kernel_trace.py /tmp/trace.tsv --layer-detail 8; } > $OUT/t/timeline-$1-$2.txt 2>&1
  sed -n 1,2p $OUT/t/timeline-$1-$2.txt >> $OUT/summary.txt
  grep -E '^small_gemm' $OUT/t/timeline-$1-$2.txt | head -6 >> $OUT/summary.txt
  rm -f /tmp/trace.tsv
done
tar -C $OUT -cf $OUT/timelines.tar t && rm -rf $OUT/t $OUT/suite $OUT/ab
log "call 6 end"
